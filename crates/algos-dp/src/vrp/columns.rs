//! The restricted master's columns in one flat store, shared by the master (which adds and purges
//! them) and its simplex (which scans them every pivot).

/// The master's columns in one flat store: column r lists the customer rows (0-based) its route
/// visits, sorted, a row repeated once per visit (ng-routes may visit a customer twice). One slice per
/// column keeps a pricing scan of the simplex in one pass over contiguous memory.
#[derive(Debug, Clone, Default)]
pub(crate) struct Columns {
    starts: Vec<usize>,
    rows: Vec<u32>,
}

impl Columns {
    /// Number of columns.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Column r's rows, sorted, repeated per visit.
    pub fn column(&self, r: usize) -> &[u32] {
        let end = self.starts.get(r + 1).copied().unwrap_or(self.rows.len());
        &self.rows[self.starts[r]..end]
    }

    /// Σ_i a_ir y_i. Four running sums: one would chain every gathered add on the last (the simplex's
    /// pricing scan spent half its time waiting on that chain).
    pub fn dot(&self, r: usize, y: &[f64]) -> f64 {
        let column = self.column(r);
        let mut sums = [0.0f64; 4];
        let mut quads = column.chunks_exact(4);
        for quad in &mut quads {
            for (s, &i) in sums.iter_mut().zip(quad) {
                *s += y[i as usize];
            }
        }
        let tail: f64 = quads.remainder().iter().map(|&i| y[i as usize]).sum();
        (sums[0] + sums[1]) + (sums[2] + sums[3]) + tail
    }

    /// Appends a column visiting `rows` (any order, repeats counted).
    pub fn push(&mut self, rows: impl IntoIterator<Item = u32>) {
        self.starts.push(self.rows.len());
        let start = self.rows.len();
        self.rows.extend(rows);
        self.rows[start..].sort_unstable();
    }

    /// Keeps the columns whose `kept` is true, in order.
    pub fn retain(&mut self, kept: &[bool]) {
        let old = std::mem::take(self);
        for (r, _) in kept.iter().enumerate().filter(|&(_, &k)| k) {
            self.push(old.column(r).iter().copied());
        }
    }
}
