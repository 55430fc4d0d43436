//! Many sources at once: shortest-path trees streamed to a callback in blocks, and distance matrices.
//!
//! CPU: rayon over the sources of a block, each thread reusing its own distance row and radix heap.
//! GPU: batched locality-based relaxation (`shaders/sssp_lbr.wgsl`), one invocation per
//! (source, vertex) pair, so a whole block of trees advances in every launch; the block size comes from
//! the device's storage-binding limit ([`GpuSssp::max_batch`]).

use gpu_runtime::{Backend, Resolved};
use graph_core::Csr;
use rayon::prelude::*;

use crate::cpu::dijkstra::dijkstra_into;
use crate::cpu::radix_heap::RadixHeap;
use crate::error::SsspError;
use crate::gpu::GpuSssp;
use crate::paths::{SATURATED, SsspStats};
use crate::pred::canonical_predecessors;

/// Sources per CPU block (rows handed to the sink at once).
pub const CPU_BLOCK: usize = 64;
/// LBR depth used for batched GPU trees.
pub const BATCH_LBR_K: u32 = 4;

/// A block of shortest-path trees: row `i` (`n` entries) belongs to `sources[i]`.
#[derive(Debug)]
pub struct TreeBlock<'a> {
    /// Index of the block's first source in the caller's source list.
    pub first: usize,
    /// The block's sources.
    pub sources: &'a [u32],
    /// Number of vertices (row length).
    pub n: usize,
    /// Distances, row-major (`UNREACHABLE` for unreached vertices).
    pub dist: &'a [u32],
    /// Canonical predecessor arcs, row-major, when asked for.
    pub pred: Option<&'a [u32]>,
}

impl TreeBlock<'_> {
    /// Distances of tree `i` of the block.
    pub fn dist_row(&self, i: usize) -> &[u32] {
        &self.dist[i * self.n..(i + 1) * self.n]
    }
}

fn check(graph: &Csr<u32>, sources: &[u32]) -> Result<(), SsspError> {
    let n = graph.num_vertices();
    if let Some(&s) = sources.iter().find(|&&s| s >= n) {
        return Err(SsspError::SourceOutOfRange { vertex: s, n });
    }
    if let Some((arc, &weight)) = graph.weights().iter().enumerate().find(|(_, w)| **w >= SATURATED) {
        return Err(SsspError::WeightTooLarge { arc: arc as u32, weight });
    }
    Ok(())
}

/// Shortest-path trees from every source, handed to `sink` block by block in source order (an n × n
/// result never has to exist at once). Returns work counters summed over all trees.
///
/// ```
/// use algos_sssp::many::many_to_all;
/// use graph_core::generators;
/// use gpu_runtime::Backend;
/// let g = generators::grid_2d(4, 4);
/// let mut total = 0u64;
/// many_to_all(&g, &[0, 5, 15], Backend::Cpu, false, |b| {
///     total += b.dist.iter().map(|&d| d as u64).sum::<u64>();
/// })
/// .unwrap();
/// assert_eq!(total, 3 * 48 - 16); // corner sums are 48, the inner vertex 5 sums to 32
/// ```
pub fn many_to_all(
    graph: &Csr<u32>,
    sources: &[u32],
    backend: Backend,
    predecessors: bool,
    mut sink: impl FnMut(TreeBlock<'_>),
) -> Result<SsspStats, SsspError> {
    check(graph, sources)?;
    let n = graph.num_vertices() as usize;
    let mut total = SsspStats::default();
    let emit = |first: usize, block: &[u32], dist: &[u32], sink: &mut dyn FnMut(TreeBlock<'_>)| {
        let pred: Option<Vec<u32>> = predecessors.then(|| {
            block
                .par_iter()
                .enumerate()
                .flat_map_iter(|(i, &s)| canonical_predecessors(graph, s, &dist[i * n..(i + 1) * n]))
                .collect()
        });
        sink(TreeBlock { first, sources: block, n, dist, pred: pred.as_deref() });
    };
    match backend.resolve() {
        Resolved::Cpu => {
            let mut dist = vec![0u32; CPU_BLOCK * n];
            for (b, block) in sources.chunks(CPU_BLOCK).enumerate() {
                let rows = &mut dist[..block.len() * n];
                let stats: Vec<SsspStats> = rows
                    .par_chunks_mut(n.max(1))
                    .zip(block.par_iter())
                    .map_init(RadixHeap::new, |heap, (row, &s)| dijkstra_into(graph, s, row, heap))
                    .collect::<Result<_, _>>()?;
                for s in stats {
                    total.phases += s.phases;
                }
                emit(b * CPU_BLOCK, block, &dist[..block.len() * n], &mut sink);
            }
        }
        Resolved::Gpu(ctx) => {
            let mut solver = GpuSssp::new(ctx, graph)?;
            let per = solver.max_batch();
            for (b, block) in sources.chunks(per).enumerate() {
                let (dist, s) = solver.run_batch(block, BATCH_LBR_K)?;
                total.phases += s.phases;
                total.dispatches += s.dispatches;
                total.readbacks += s.readbacks;
                emit(b * per, block, &dist, &mut sink);
            }
        }
    }
    Ok(total)
}

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

/// The distances between every source and every target.
pub fn distance_matrix(
    graph: &Csr<u32>,
    sources: &[u32],
    targets: &[u32],
    backend: Backend,
) -> Result<DistanceMatrix, SsspError> {
    let n = graph.num_vertices();
    if let Some(&t) = targets.iter().find(|&&t| t >= n) {
        return Err(SsspError::TargetOutOfRange { target: t, n });
    }
    let cols = targets.len();
    let mut data = vec![0u32; sources.len() * cols];
    many_to_all(graph, sources, backend, false, |block| {
        for i in 0..block.sources.len() {
            let row = block.dist_row(i);
            let out = &mut data[(block.first + i) * cols..(block.first + i + 1) * cols];
            for (o, &t) in out.iter_mut().zip(targets) {
                *o = row[t as usize];
            }
        }
    })?;
    Ok(DistanceMatrix { sources: sources.to_vec(), targets: targets.to_vec(), data })
}
