//! A primal simplex for the restricted master `min c·x s.t. A x = 1, x ≥ 0`, warm-started from the
//! last round's basis.
//!
//! Why by hand: the master has one row per customer (≤ a few hundred) and thousands of columns, and
//! column generation only *adds* columns between rounds, so the previous optimal basis stays primal
//! feasible and the next optimum is some hundred pivots away (700 a round at X-n190-k8), each O(m²),
//! instead of a solve from scratch. An interior point (Clarabel, kept as
//! [`MasterLp::InteriorPoint`](super::MasterLp)) starts from scratch every round and was measured to
//! be the bound's bottleneck once pricing moved to the GPU (X-n190-k8: 28.6 of 37.3 s). The basis is
//! small enough to hold its inverse densely (m² doubles: 1.3 MB at 400 customers); from [`PARALLEL_FLUSH`]
//! rows pivots are kept as etas and applied to it [`ETA_BLOCK`] at a time, on the pool's threads (the
//! m² update per pivot bounded the master at X-n401-k29's 400 rows; smaller bases update it at every
//! pivot), and it is rebuilt from the basis columns when the
//! residuals, checked every [`CHECK_EVERY`] pivots, show rounding. Full pricing scans of large
//! masters run on the pool's threads too (the threads are idle while the master solves: pricing waits
//! for its duals). Results do not depend on the thread count.
//!
//! The starting basis is the single-customer routes, which the master always holds as its first m
//! columns (B = I, x = 1: feasible, so there is no phase one). Degeneracy, the rule in set
//! partitioning, is broken by a tiny perturbation of the right-hand side ([`PERTURBATION`]); ties left
//! are taken with a Harris ratio test (largest pivot among the near-ties), and after [`STALL_LIMIT`]
//! degenerate pivots in a row Bland's rule takes over until the objective moves again.

use rayon::prelude::*;

use super::DpError;
use super::columns::Columns;

/// Pivots whose updates of the inverse are applied together (see [`Etas`]).
const ETA_BLOCK: usize = 32;
/// Masters with at least this many columns (and [`PARALLEL_FLUSH`] rows) are scanned on the pool's
/// threads, in blocks of [`SCAN_BLOCK`] columns.
const PARALLEL_SCAN: usize = 8 * SCAN_BLOCK;
const SCAN_BLOCK: usize = 256;
/// Rows from which pivots are kept as etas and applied [`ETA_BLOCK`] at a time on the pool's threads
/// (m² · [`ETA_BLOCK`] doubles of work: 5 M at 200 rows). Below, each pivot updates the inverse at
/// once, as before the etas: their O(m) per pivot in B⁻¹ a and the pivot row, and rayon's overhead,
/// cost about what a block saves there (H100 host, LP time with blocks ÷ without: 0.78–1.10× at
/// 147–171 rows, 1.25–1.48× at 175–199, 2.2× at 400; docs/benchmarks.md).
const PARALLEL_FLUSH: usize = 176;
/// Pivots between two checks of the inverse's accuracy.
const CHECK_EVERY: usize = 100;
/// The largest residual (primal, or dual relative to the cost) before the inverse is rebuilt.
const RESIDUAL: f64 = 1e-9;
/// Pivots after which the inverse is rebuilt whatever its residuals.
const REFACTOR_AT_MOST: usize = 2_000;
/// Columns kept from a full pricing scan and re-priced on their own until none enters (multiple
/// pricing: a full scan reads every column, the candidates a handful).
const CANDIDATES: usize = 96;
/// Degenerate pivots in a row before Bland's rule.
const STALL_LIMIT: usize = 200;
/// The objective decrease below which a pivot counts as degenerate.
const PROGRESS: f64 = 1e-9;
/// A column enters when its reduced cost is below `-OPTIMALITY · (1 + |c|)`.
const OPTIMALITY: f64 = 1e-9;
/// Entries of the entering column below this are not pivots.
const PIVOT: f64 = 1e-9;
/// Primal values may dip this far below zero (Harris' ratio test bound): well below the perturbation.
const FEASIBILITY: f64 = 1e-12;
/// The right-hand side is 1 + ε_i with ε_i in [1, 2) · this: set partitioning is so degenerate (most
/// basic routes at 0) that without it the simplex stalls for thousands of pivots at one vertex, and Bland's
/// rule, in floating point, cycled there (measured on X-n120-k6). The optimal basis of the perturbed LP is
/// dual feasible for the true one, and its duals are within ~ε · Σ|y| of optimal.
const PERTURBATION: f64 = 1e-8;

/// The basis between rounds.
#[derive(Debug, Clone, Default)]
pub(crate) struct Simplex {
    rows: usize,
    /// B⁻¹ as of the last flush, column by column (entry (k, i) at `i · rows + k`: k the basis
    /// position, i the customer row), so that B⁻¹ a, a sparse column, reads a few contiguous columns.
    /// The pivots since then are the pending etas ([`Etas`]).
    inverse: Vec<f64>,
    /// Pivots not yet applied to `inverse`.
    etas: Etas,
    /// The column in each basis position.
    basis: Vec<usize>,
    /// The basic columns' values, per basis position.
    values: Vec<f64>,
    /// The perturbed right-hand side 1 + ε_i (see [`PERTURBATION`]).
    rhs: Vec<f64>,
    /// Pivots since the inverse was last rebuilt.
    updates: usize,
    /// Pivots over the solver's life (for the report).
    pub pivots: u64,
}

/// The pivots since the inverse was last brought up to date, in order: pivot j replaced basis
/// position `p_j` with a column whose B⁻¹ a was `w_j`, and row `p_j` of the new inverse is `r_j`
/// (the pivot row). Applying them one block at a time ([`flush`]) reads the inverse once per
/// [`ETA_BLOCK`] pivots instead of once per pivot, which is what bounded the master at a few hundred
/// rows (m² doubles streamed per pivot, 1.3 MB at 400 rows); in between, B⁻¹ a and the pivot row are
/// taken through the etas (product form, O(m) each).
#[derive(Debug, Clone, Default)]
struct Etas {
    /// `w_j`, one row of `rows` per pending pivot.
    w: Vec<f64>,
    /// `r_j`, one row of `rows` per pending pivot.
    r: Vec<f64>,
    /// `p_j`.
    p: Vec<usize>,
}

/// The optimum of one call.
pub(crate) struct SimplexOptimum {
    /// Σ y: the dual objective on the true right-hand side (the LP's value to ~ε · Σ|y|).
    pub value: f64,
    /// y = c_B B⁻¹, one per row.
    pub duals: Vec<f64>,
}

impl Simplex {
    /// The columns in the basis.
    pub fn basic_columns(&self) -> &[usize] {
        &self.basis
    }

    /// After the master dropped columns: `new_index[r]` is column r's new index (`None` when dropped;
    /// never for a basic column).
    pub fn renumber(&mut self, new_index: &[Option<usize>]) {
        for b in &mut self.basis {
            *b = new_index[*b].expect("the master keeps its basic columns");
        }
    }

    /// Solves `min c·x s.t. A x = 1, x ≥ 0` over `columns` with `cost`, from the last basis (or from the
    /// first `rows` columns, which must be the unit columns).
    pub fn solve(&mut self, rows: usize, columns: &Columns, cost: &[f64]) -> Result<SimplexOptimum, DpError> {
        if self.rows != rows || self.basis.len() != rows {
            self.rows = rows;
            self.basis = (0..rows).collect();
            // ε_i spread over [1, 2) · PERTURBATION by a fixed sequence (the same master, the same run).
            let mut state = 0x9E37_79B9_7F4A_7C15u64;
            self.rhs = (0..rows)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    1.0 + PERTURBATION * (1.0 + (state >> 11) as f64 / (1u64 << 53) as f64)
                })
                .collect();
            self.refactor(columns)?;
        }
        let mut is_basic = vec![false; columns.len()];
        for &b in &self.basis {
            is_basic[b] = true;
        }
        let (mut duals, mut fresh) = (self.duals(cost), true);
        let mut stalled = 0usize;
        let mut w = vec![0.0; rows];
        let mut candidates: Vec<usize> = Vec::with_capacity(CANDIDATES);
        let mut scanned: Vec<(f64, usize)> = Vec::new();
        let mut pivot_row = vec![0.0; rows];
        let eta_block = if rows >= PARALLEL_FLUSH { ETA_BLOCK } else { 1 };
        // Small masters scan on this thread: the pool's overhead exceeded the scan there (X-n129-k18:
        // LP 0.20 s, 0.30 s through rayon even on one thread).
        let parallel = rows >= PARALLEL_FLUSH && rayon::current_num_threads() > 1;
        let limit = 50 * (rows + columns.len()) + 10_000;
        for _ in 0..limit {
            let bland = stalled >= STALL_LIMIT;
            // Entering column (multiple pricing): the most negative reduced cost among the candidates
            // of the last full scan, re-priced at the current duals; a full scan over every column when
            // none of them is negative any more. Under Bland's rule: the first negative column.
            let reduced = |r: usize, duals: &[f64]| cost[r] - columns.dot(r, duals);
            let enters = |r: usize, d: f64| d < -OPTIMALITY * (1.0 + cost[r].abs());
            let mut entering: Option<(usize, f64)> = None;
            if !bland {
                // Candidates that entered the basis are skipped before pricing (their reduced cost is 0).
                for &r in candidates.iter().filter(|&&r| !is_basic[r]) {
                    let d = reduced(r, &duals);
                    if enters(r, d) && entering.is_none_or(|(_, best)| d < best) {
                        entering = Some((r, d));
                    }
                }
            }
            if entering.is_none() {
                // A full scan: every entering column, then the CANDIDATES most negative kept. On
                // the pool's threads for large masters (blocks in column order: the same list on any
                // thread count); under Bland's rule only the first entering column counts.
                scanned.clear();
                // Column r with its reduced cost if it enters.
                let priced = |r: usize| Some((reduced(r, &duals), r)).filter(|&(d, r)| enters(r, d));
                let non_basic = (0..columns.len()).filter(|&r| !is_basic[r]);
                if bland {
                    scanned.extend(non_basic.filter_map(priced).take(1));
                } else if !parallel || columns.len() < PARALLEL_SCAN {
                    scanned.extend(non_basic.filter_map(priced));
                } else {
                    let blocks: Vec<Vec<(f64, usize)>> = is_basic
                        .par_chunks(SCAN_BLOCK)
                        .enumerate()
                        .map(|(b, basic)| {
                            let first = b * SCAN_BLOCK;
                            (first..first + basic.len())
                                .filter(|&r| !basic[r - first])
                                .filter_map(priced)
                                .collect()
                        })
                        .collect();
                    scanned.extend(blocks.into_iter().flatten());
                }
                entering = scanned.iter().min_by(|a, b| a.0.total_cmp(&b.0)).map(|&(d, r)| (r, d));
                if scanned.len() > CANDIDATES {
                    scanned.select_nth_unstable_by(CANDIDATES, |a, b| a.0.total_cmp(&b.0));
                    scanned.truncate(CANDIDATES);
                }
                candidates.clear();
                candidates.extend(scanned.iter().map(|&(_, r)| r));
            }
            let Some((q, d_q)) = entering else {
                if !fresh {
                    // Optimal at duals updated pivot by pivot: confirm at duals computed afresh.
                    duals = self.duals(cost);
                    fresh = true;
                    continue;
                }
                // The dual objective on the true right-hand side: at most the LP's optimum (y is dual
                // feasible) and within ~PERTURBATION · Σ|y| of it.
                let value = duals.iter().sum();
                return Ok(SimplexOptimum { value, duals });
            };
            fresh = false;
            // w = B⁻¹ a_q: the flushed inverse's columns, then the pending etas in order.
            w.fill(0.0);
            for &i in columns.column(q) {
                let i = i as usize;
                add_column(&mut w, &self.inverse[i * rows..(i + 1) * rows]);
            }
            self.etas.forward(&mut w, rows);
            let p = self.leaving(&w, bland).ok_or_else(|| {
                DpError::Lp(format!(
                    "the restricted master ({rows} rows) is unbounded along column {q}: numerical trouble"
                ))
            })?;
            let step = (self.values[p] / w[p]).max(0.0);
            // A pivot that moves the objective by less than PROGRESS counts as degenerate (tiny positive
            // steps must not reset the count, or Dantzig's rule and Bland's could take turns forever).
            stalled = if step * -d_q > PROGRESS { 0 } else { stalled + 1 };
            for (k, x) in self.values.iter_mut().enumerate() {
                if k != p {
                    *x = (*x - step * w[k]).max(0.0);
                }
            }
            self.values[p] = step;
            // y += d_q / w_p · (row p of the old B⁻¹) = d_q · (row p of the new): the entering column's reduced cost becomes 0.
            self.etas.row(&self.inverse, rows, p, &mut pivot_row);
            for v in pivot_row.iter_mut() {
                *v /= w[p];
            }
            for (y, v) in duals.iter_mut().zip(&pivot_row) {
                *y += d_q * v;
            }
            // B⁻¹ -= (w − e_p) ⊗ pivot row, one block of pivots at a time (B⁻¹ of these masters is
            // dense: ~80 % at X-n181-k23).
            self.etas.push(&w, &pivot_row, p);
            if self.etas.p.len() == eta_block {
                self.etas.flush(&mut self.inverse, rows);
            }
            is_basic[self.basis[p]] = false;
            is_basic[q] = true;
            self.basis[p] = q;
            self.pivots += 1;
            self.updates += 1;
            if self.updates.is_multiple_of(CHECK_EVERY) {
                // Rebuild B⁻¹ (m³) only once rounding shows: the residuals of B x_B = b and of
                // y B = c_B cost one pass over the basis columns.
                duals = self.duals(cost);
                fresh = true;
                if self.updates >= REFACTOR_AT_MOST || self.residual(columns, cost, &duals) > RESIDUAL {
                    self.refactor(columns)?;
                    duals = self.duals(cost);
                }
            }
        }
        Err(DpError::Lp(format!(
            "the restricted master ({rows} rows, {} columns) did not reach an optimum in {limit} pivots",
            columns.len()
        )))
    }

    /// The basis position that leaves for direction `w`: Harris' two passes (bound the step with the
    /// feasibility tolerance, then take the largest pivot within it), or with `bland` the exact least
    /// ratio, ties to the smallest column index.
    fn leaving(&self, w: &[f64], bland: bool) -> Option<usize> {
        let candidates = || w.iter().enumerate().filter(|&(_, &wk)| wk > PIVOT);
        if bland {
            return candidates()
                .map(|(k, &wk)| (self.values[k] / wk, self.basis[k], k))
                .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
                .map(|(_, _, k)| k);
        }
        let bound =
            candidates().map(|(k, &wk)| (self.values[k] + FEASIBILITY) / wk).min_by(f64::total_cmp)?;
        candidates()
            .filter(|&(k, &wk)| self.values[k] / wk <= bound)
            .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
            .map(|(k, _)| k)
    }

    /// max(|B x_B − b|, |y B − c_B| / (1 + |c_B|)) over the basis.
    fn residual(&self, columns: &Columns, cost: &[f64], duals: &[f64]) -> f64 {
        let mut primal = self.rhs.clone();
        let mut worst = 0.0f64;
        for (&b, &x) in self.basis.iter().zip(&self.values) {
            let mut priced = 0.0;
            for &i in columns.column(b) {
                primal[i as usize] -= x;
                priced += duals[i as usize];
            }
            worst = worst.max((priced - cost[b]).abs() / (1.0 + cost[b].abs()));
        }
        primal.iter().fold(worst, |w, r| w.max(r.abs()))
    }

    /// y = c_B B⁻¹ (the pending etas applied first).
    fn duals(&mut self, cost: &[f64]) -> Vec<f64> {
        let rows = self.rows;
        self.etas.flush(&mut self.inverse, rows);
        let c_b: Vec<f64> = self.basis.iter().map(|&b| cost[b]).collect();
        self.inverse
            .chunks_exact(rows)
            .map(|column| column.iter().zip(&c_b).map(|(v, c)| v * c).sum())
            .collect()
    }

    /// Rebuilds B⁻¹ from the basis columns (Gauss–Jordan, partial pivoting) and x_B = B⁻¹ 1.
    fn refactor(&mut self, columns: &Columns) -> Result<(), DpError> {
        let m = self.rows;
        // Work on [B | I] row-major; B's column k is basis position k.
        let mut b = vec![0.0f64; m * m];
        for (k, &col) in self.basis.iter().enumerate() {
            for &i in columns.column(col) {
                b[i as usize * m + k] += 1.0;
            }
        }
        let mut inv = vec![0.0; m * m];
        for i in 0..m {
            inv[i * m + i] = 1.0;
        }
        for k in 0..m {
            let p = (k..m).max_by(|&x, &y| b[x * m + k].abs().total_cmp(&b[y * m + k].abs())).expect("k < m");
            let pivot = b[p * m + k];
            if pivot.abs() < 1e-11 {
                return Err(DpError::Lp(format!(
                    "the restricted master's basis became singular at position {k} of {m}: numerical trouble"
                )));
            }
            if p != k {
                for j in 0..m {
                    b.swap(p * m + j, k * m + j);
                    inv.swap(p * m + j, k * m + j);
                }
            }
            for j in 0..m {
                b[k * m + j] /= pivot;
                inv[k * m + j] /= pivot;
            }
            // B is a 0/1 route matrix: eliminate with the pivot rows' non-zeros only.
            let (b_row, inv_row) = (nonzeros(&b[k * m..(k + 1) * m]), nonzeros(&inv[k * m..(k + 1) * m]));
            for i in 0..m {
                let f = b[i * m + k];
                if i == k || f == 0.0 {
                    continue;
                }
                for &(j, v) in &b_row {
                    b[i * m + j] -= f * v;
                }
                for &(j, v) in &inv_row {
                    inv[i * m + j] -= f * v;
                }
            }
        }
        // Gauss–Jordan on [B | I] left B⁻¹ row-major, row k for basis position k; stored column by column.
        self.values = (0..m)
            .map(|k| inv[k * m..(k + 1) * m].iter().zip(&self.rhs).map(|(v, b)| v * b).sum::<f64>().max(0.0))
            .collect();
        self.inverse = (0..m * m).map(|at| inv[(at % m) * m + at / m]).collect();
        self.etas.clear();
        self.updates = 0;
        Ok(())
    }
}

/// `w += column` (B⁻¹ a for a 0/1 column a, one column of B⁻¹ per visit).
///
/// Like [`rank_one_update`], compiled for AVX2 too and picked at run time: separate multiplies and
/// adds, never fused, so every copy rounds the same way and the pivots do not depend on the CPU.
#[multiversion::multiversion(targets("x86_64+avx2", "x86_64+sse4.1"))]
fn add_column(w: &mut [f64], column: &[f64]) {
    for (wk, v) in w.iter_mut().zip(column) {
        *wk += v;
    }
}

impl Etas {
    fn clear(&mut self) {
        self.w.clear();
        self.r.clear();
        self.p.clear();
    }

    fn push(&mut self, w: &[f64], pivot_row: &[f64], p: usize) {
        self.w.extend_from_slice(w);
        self.r.extend_from_slice(pivot_row);
        self.p.push(p);
    }

    /// `x ← E_j ⋯ E_1 x` for the pending pivots j (x = B⁻¹ a as of the last flush on entry, as of now
    /// on return): `x_p ← x_p / w_p`, then `x_k −= w_k x_p` elsewhere.
    fn forward(&self, x: &mut [f64], rows: usize) {
        for (w, &p) in self.w.chunks_exact(rows).zip(&self.p) {
            let xp = x[p] / w[p];
            if xp != 0.0 {
                subtract_multiple(x, w, xp);
            }
            x[p] = xp;
        }
    }

    /// Row `p` of the current B⁻¹ into `out`: the flushed row (or the last pending pivot row of
    /// position `p`), then the later pivots' updates of it in order.
    fn row(&self, inverse: &[f64], rows: usize, p: usize, out: &mut [f64]) {
        let from = match self.p.iter().rposition(|&pj| pj == p) {
            Some(j) => {
                out.copy_from_slice(&self.r[j * rows..(j + 1) * rows]);
                j + 1
            }
            None => {
                for (i, v) in out.iter_mut().enumerate() {
                    *v = inverse[i * rows + p];
                }
                0
            }
        };
        for j in from..self.p.len() {
            let wp = self.w[j * rows + p];
            if wp != 0.0 {
                subtract_multiple(out, &self.r[j * rows..(j + 1) * rows], wp);
            }
        }
    }

    /// Applies the pending pivots to `inverse` and forgets them: columns in blocks on the pool's
    /// threads for large bases (each column's arithmetic is the same on any thread).
    fn flush(&mut self, inverse: &mut [f64], rows: usize) {
        if self.p.is_empty() {
            return;
        }
        let (w, r, p) = (&self.w, &self.r, &self.p);
        if rows >= PARALLEL_FLUSH && rayon::current_num_threads() > 1 {
            // Blocks of 16 columns (a multiple of the kernel's 4).
            inverse
                .par_chunks_mut(16 * rows)
                .enumerate()
                .for_each(|(b, block)| apply_etas(block, rows, 16 * b, w, r, p));
        } else {
            apply_etas(inverse, rows, 0, w, r, p);
        }
        self.clear();
    }
}

/// `x −= a · f`.
fn subtract_multiple(x: &mut [f64], a: &[f64], f: f64) {
    for (xk, ak) in x.iter_mut().zip(a) {
        *xk -= ak * f;
    }
}

/// For each pending pivot j in order, `B⁻¹ −= w_j ⊗ r_j` off row `p_j` and row `p_j` = `r_j`, on
/// `inverse`'s columns (the first is column `first` of B⁻¹): four
/// columns at a time, so each `w_j` is read once per four columns while the columns stay in the first
/// cache level. Each entry sees the same operations in the same order as pivot-by-pivot updates.
/// Compiled for AVX2 too and picked at run time; multiplies and subtractions stay separate (no FMA
/// contraction), so every copy gives the same bits and the pivots do not depend on the CPU.
#[multiversion::multiversion(targets("x86_64+avx2", "x86_64+sse4.1"))]
fn apply_etas(inverse: &mut [f64], rows: usize, first: usize, w: &[f64], r: &[f64], p: &[usize]) {
    if let [pj] = *p {
        // One pivot (small bases update at once): column by column, skipping the pivot row's zeros
        // (a fifth of B⁻¹'s entries).
        for (column, &f) in inverse.chunks_exact_mut(rows).zip(&r[first..]) {
            if f != 0.0 {
                subtract_multiple(column, w, f);
            }
            column[pj] = f;
        }
        return;
    }
    let mut blocks = inverse.chunks_exact_mut(4 * rows);
    let mut first = first;
    for block in &mut blocks {
        let (c0, rest) = block.split_at_mut(rows);
        let (c1, rest) = rest.split_at_mut(rows);
        let (c2, c3) = rest.split_at_mut(rows);
        for (j, (wj, &pj)) in w.chunks_exact(rows).zip(p).enumerate() {
            let f = &r[j * rows + first..j * rows + first + 4];
            let (f0, f1, f2, f3) = (f[0], f[1], f[2], f[3]);
            for ((((&wk, v0), v1), v2), v3) in
                wj.iter().zip(c0.iter_mut()).zip(c1.iter_mut()).zip(c2.iter_mut()).zip(c3.iter_mut())
            {
                *v0 -= wk * f0;
                *v1 -= wk * f1;
                *v2 -= wk * f2;
                *v3 -= wk * f3;
            }
            (c0[pj], c1[pj], c2[pj], c3[pj]) = (f0, f1, f2, f3);
        }
        first += 4;
    }
    for (c, column) in blocks.into_remainder().chunks_exact_mut(rows).enumerate() {
        for (j, (wj, &pj)) in w.chunks_exact(rows).zip(p).enumerate() {
            let f = r[j * rows + first + c];
            if f != 0.0 {
                subtract_multiple(column, wj, f);
            }
            column[pj] = f;
        }
    }
}

/// The non-zero entries of a dense row, with their indices.
fn nonzeros(row: &[f64]) -> Vec<(usize, f64)> {
    row.iter().copied().enumerate().filter(|&(_, v)| v != 0.0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use microlp::{ComparisonOp, OptimizationDirection, Problem};
    use proptest::prelude::*;

    /// `min c·x s.t. A x = 1, x ≥ 0` by microlp (the reference).
    fn reference(rows: usize, columns: &Columns, cost: &[f64]) -> f64 {
        let mut lp = Problem::new(OptimizationDirection::Minimize);
        let vars: Vec<_> = cost.iter().map(|&c| lp.add_var(c, (0.0, f64::INFINITY))).collect();
        for i in 0..rows {
            let row: Vec<_> = (0..columns.len())
                .filter_map(|r| {
                    let visits = columns.column(r).iter().filter(|&&x| x as usize == i).count();
                    (visits > 0).then_some((vars[r], visits as f64))
                })
                .collect();
            lp.add_constraint(row.as_slice(), ComparisonOp::Eq, 1.0);
        }
        lp.solve().unwrap().into_solution().unwrap().objective()
    }

    /// A random set partitioning master: `rows` unit columns (cost `unit`), then `routes` routes of
    /// 2–15 customers with costs below the sum of their unit costs (so that many of them enter).
    fn random_master(rows: usize, routes: usize, seed: u64) -> (Columns, Vec<f64>) {
        let mut state = seed | 1;
        let mut next = move |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound as u64) as usize
        };
        let mut columns = Columns::default();
        let mut cost = Vec::new();
        for i in 0..rows as u32 {
            columns.push([i]);
            cost.push(100.0);
        }
        for _ in 0..routes {
            let len = 2 + next(14);
            columns.push((0..len).map(|_| next(rows) as u32));
            cost.push((40 + next(50)) as f64 * len as f64);
        }
        (columns, cost)
    }

    /// B⁻¹ a and the pivot rows taken through pending etas, and the inverse after a flush (on the pool's
    /// threads at this size), equal the pivot-by-pivot dense update's to rounding, over 150 pivots
    /// (several blocks). Fails when an eta is applied out of order or the pivot row's overwrite is lost.
    #[test]
    fn pending_etas_equal_the_dense_update() {
        let rows = PARALLEL_FLUSH + 22;
        let (columns, _) = random_master(rows, 600, 7);
        let mut dense = vec![0.0; rows * rows];
        for i in 0..rows {
            dense[i * rows + i] = 1.0;
        }
        let mut lazy = Simplex { rows, inverse: dense.clone(), ..Simplex::default() };
        let (mut w, mut w_dense, mut row) = (vec![0.0; rows], vec![0.0; rows], vec![0.0; rows]);
        let mut pivots = 0;
        for q in rows..columns.len() {
            w.fill(0.0);
            w_dense.fill(0.0);
            for &i in columns.column(q) {
                let i = i as usize;
                add_column(&mut w, &lazy.inverse[i * rows..(i + 1) * rows]);
                add_column(&mut w_dense, &dense[i * rows..(i + 1) * rows]);
            }
            lazy.etas.forward(&mut w, rows);
            for (a, b) in w.iter().zip(&w_dense) {
                assert!((a - b).abs() < 1e-9 * (1.0 + b.abs()), "B⁻¹ a: {a} vs {b}");
            }
            // The largest entry pivots (well conditioned).
            let p = (0..rows).max_by(|&a, &b| w[a].abs().total_cmp(&w[b].abs())).unwrap();
            if w[p].abs() < 0.5 {
                continue;
            }
            lazy.etas.row(&lazy.inverse, rows, p, &mut row);
            for (i, v) in row.iter_mut().enumerate() {
                let expected = dense[i * rows + p];
                assert!((*v - expected).abs() < 1e-9 * (1.0 + expected.abs()), "row {p}: {v} vs {expected}");
                *v /= w[p];
            }
            // The dense update, pivot by pivot.
            let wp = w_dense[p];
            for column in dense.chunks_exact_mut(rows) {
                let pv = column[p] / wp;
                for (k, v) in column.iter_mut().enumerate() {
                    if k != p {
                        *v -= w_dense[k] * pv;
                    }
                }
                column[p] = pv;
            }
            lazy.etas.push(&w, &row, p);
            if lazy.etas.p.len() == ETA_BLOCK {
                lazy.etas.flush(&mut lazy.inverse, rows);
            }
            pivots += 1;
            if pivots == 150 {
                break;
            }
        }
        assert_eq!(pivots, 150, "the random columns gave too few pivots");
        lazy.etas.flush(&mut lazy.inverse, rows);
        for (a, b) in lazy.inverse.iter().zip(&dense) {
            assert!((a - b).abs() < 1e-8 * (1.0 + b.abs()), "B⁻¹ after the flush: {a} vs {b}");
        }
    }

    /// A master large enough for the parallel scan and flush: the same pivots, duals and value (bit for
    /// bit) on one thread and on four, with a warm start, and the value equals microlp's.
    #[test]
    fn the_same_optimum_on_any_thread_count() {
        let rows = PARALLEL_FLUSH + 8;
        let (columns, cost) = random_master(rows, PARALLEL_SCAN + 500, 11);
        let mut first = Columns::default();
        for r in 0..rows + PARALLEL_SCAN / 2 {
            first.push(columns.column(r).iter().copied());
        }
        let solve = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| {
                let mut simplex = Simplex::default();
                simplex.solve(rows, &first, &cost[..first.len()]).unwrap();
                let opt = simplex.solve(rows, &columns, &cost).unwrap();
                (
                    opt.value.to_bits(),
                    opt.duals.iter().map(|y| y.to_bits()).collect::<Vec<_>>(),
                    simplex.pivots,
                )
            })
        };
        let one = solve(1);
        assert!(one.2 > 2 * ETA_BLOCK as u64, "only {} pivots", one.2);
        assert_eq!(one, solve(4));
        let value = f64::from_bits(one.0);
        let expected = reference(rows, &columns, &cost);
        assert!((value - expected).abs() < 1e-6 * expected, "{value} vs microlp {expected}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Random set partitionings (unit columns first, as the master holds them, then random
        /// routes, some visiting a customer twice), solved in two rounds like column generation (half
        /// the routes, then all: the warm start): the optimum equals microlp's, the duals are feasible
        /// and their sum is the value.
        #[test]
        fn equals_a_reference_lp_with_a_warm_start(
            rows in 1usize..9,
            routes in proptest::collection::vec((proptest::collection::vec(0usize..9, 1..6), 1u32..100), 0..40),
            unit_cost in 50u32..200,
        ) {
            let (mut first, mut columns) = (Columns::default(), Columns::default());
            let mut cost: Vec<f64> = (0..rows).map(|_| unit_cost as f64).collect();
            for i in 0..rows as u32 {
                first.push([i]);
                columns.push([i]);
            }
            let half = routes.len() / 2;
            for (at, (visits, c)) in routes.iter().enumerate() {
                let visits = visits.iter().map(|&v| (v % rows) as u32);
                if at < half {
                    first.push(visits.clone());
                }
                columns.push(visits);
                cost.push(*c as f64);
            }
            let mut simplex = Simplex::default();
            simplex.solve(rows, &first, &cost[..rows + half]).unwrap();
            let opt = simplex.solve(rows, &columns, &cost).unwrap();
            let expected = reference(rows, &columns, &cost);
            prop_assert!((opt.value - expected).abs() < 1e-6 * expected.max(1.0), "{} vs microlp {expected}", opt.value);
            for (r, c) in cost.iter().enumerate() {
                prop_assert!(c - columns.dot(r, &opt.duals) > -1e-7);
            }
            prop_assert!((opt.duals.iter().sum::<f64>() - opt.value).abs() < 1e-9 * opt.value.abs().max(1.0));
        }
    }
}
