//! Dense distance matrices between sources and targets, built on the many-source runs.

use gpu_runtime::Backend;
use graph_core::Csr;
use rayon::prelude::*;

use super::{ManyOptions, Schedule, many_to_all_shared};
use crate::error::SsspError;

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
/// use urbanflow::sssp::many::{DistanceMatrix, Matrix};
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

/// The distances between every source and every target.
///
/// ```
/// use urbanflow::sssp::many::{Matrix, distance_matrix};
/// let g = urbanflow::graph::generators::grid_2d(4, 4); // unit weights, vertex = row * 4 + column
/// let m = distance_matrix(&g, &[0, 5], &[15, 3], urbanflow::gpu::Backend::Cpu)?;
/// assert_eq!((m.get(0, 0), m.get(0, 1), m.get(1, 0), m.get(1, 1)), (6, 3, 4, 3));
/// assert_eq!(m.distance(1, 0), Some(4));
/// # Ok::<(), urbanflow::sssp::SsspError>(())
/// ```
pub fn distance_matrix(
    graph: &Csr<u32>,
    sources: &[u32],
    targets: &[u32],
    backend: Backend,
) -> Result<DistanceMatrix, SsspError> {
    let opts = ManyOptions { backend, schedule: Schedule::Single, ..Default::default() };
    distance_matrix_with(graph, sources, targets, &opts)
}

/// [`distance_matrix`] with every option of [`many_to_all_with`](super::many_to_all_with): several GPUs
/// ([`ManyOptions::devices`]), CPU threads beside them, the automatic schedule. Entries never depend on
/// where their row was computed.
pub fn distance_matrix_with(
    graph: &Csr<u32>,
    sources: &[u32],
    targets: &[u32],
    opts: &ManyOptions<'_>,
) -> Result<DistanceMatrix, SsspError> {
    let n = graph.num_vertices();
    if let Some(&t) = targets.iter().find(|&&t| t >= n) {
        return Err(SsspError::TargetOutOfRange { target: t, n });
    }
    let cols = targets.len();
    let data = std::sync::Mutex::new(vec![0u32; sources.len() * cols]);
    let opts = ManyOptions { predecessors: false, ..*opts };
    // Every GPU's thread picks its columns straight from its readback buffer; the lock is held only to
    // store a block's picked columns.
    many_to_all_shared(graph, sources, &opts, |block| {
        let mut picked = vec![0u32; block.sources.len() * cols];
        picked.par_chunks_mut(cols.max(1)).enumerate().for_each(|(i, out)| {
            let row = block.dist_row(i);
            for (o, &t) in out.iter_mut().zip(targets) {
                *o = row[t as usize];
            }
        });
        let mut data = data.lock().unwrap_or_else(|e| e.into_inner());
        data[block.first * cols..(block.first + block.sources.len()) * cols].copy_from_slice(&picked);
    })?;
    let data = data.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok(DistanceMatrix { sources: sources.to_vec(), targets: targets.to_vec(), data })
}
