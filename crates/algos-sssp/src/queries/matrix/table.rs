//! The dense tables every engine returns, and what they all answer ([`Matrix`]).

/// Dense `sources × targets` distances (`UNREACHABLE` where no path), row-major.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DistanceMatrix {
    /// Row vertices.
    pub sources: Vec<u32>,
    /// Column vertices.
    pub targets: Vec<u32>,
    /// `data[i * targets.len() + j]` = distance from `sources[i]` to `targets[j]`.
    pub data: Vec<u32>,
}

impl DistanceMatrix {
    /// Distance from `sources[i]` to `targets[j]`.
    pub fn get(&self, i: usize, j: usize) -> u32 {
        self.data[i * self.targets.len() + j]
    }
}

/// What every dense table of path lengths answers, whatever its unit: its sources (rows) and targets
/// (columns), an entry (`None` for an unreachable pair), a row. [`DistanceMatrix`] (exact u32 distances,
/// from the CPU buckets, the GPU min-plus or whole trees) and [`crate::real::RealMatrix`] (f64 lengths)
/// implement it, so code that consumes a matrix takes either.
///
/// ```
/// use urbanflow::sssp::matrix::{DistanceMatrix, Matrix};
/// fn nearest<M: Matrix>(m: &M, i: usize) -> Option<(u32, M::Value)> {
///     (0..m.targets().len())
///         .filter_map(|j| m.distance(i, j).map(|d| (m.targets()[j], d)))
///         .min_by(|a, b| a.1.partial_cmp(&b.1).unwrap())
/// }
/// let m = DistanceMatrix { sources: vec![0], targets: vec![5, 6, 7], data: vec![9, u32::MAX, 4] };
/// assert_eq!(nearest(&m, 0), Some((7, 4)));
/// ```
pub trait Matrix {
    /// The unit of an entry (u32 for exact distances, f64 for real lengths).
    type Value: Copy + PartialOrd;
    /// Row vertices.
    fn sources(&self) -> &[u32];
    /// Column vertices.
    fn targets(&self) -> &[u32];
    /// Row `i`: the entries from `sources()[i]` to every target, unreachable ones included as stored.
    fn row(&self, i: usize) -> &[Self::Value];
    /// The entry from `sources()[i]` to `targets()[j]`, `None` when unreachable.
    fn distance(&self, i: usize, j: usize) -> Option<Self::Value>;
}

impl Matrix for DistanceMatrix {
    type Value = u32;
    fn sources(&self) -> &[u32] {
        &self.sources
    }
    fn targets(&self) -> &[u32] {
        &self.targets
    }
    fn row(&self, i: usize) -> &[u32] {
        let t = self.targets.len();
        &self.data[i * t..(i + 1) * t]
    }
    fn distance(&self, i: usize, j: usize) -> Option<u32> {
        let d = self.get(i, j);
        (d != crate::paths::UNREACHABLE).then_some(d)
    }
}
