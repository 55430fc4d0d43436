//! Running the planned trees on the CPU: blocks of sources over rayon (the GPU schedules are in
//! `gpu_schedule`).

use graph_core::Csr;
use rayon::prelude::*;

use super::{CPU_BLOCK, ManyStats, RowSink};
use crate::cpu::dijkstra::dijkstra_into;
use crate::cpu::radix_heap::RadixHeap;
use crate::error::SsspError;
use crate::paths::SsspStats;

/// The CPU path: rayon over blocks of [`CPU_BLOCK`] sources, each thread with its own heap.
pub(super) fn cpu_blocks(
    graph: &Csr<u32>,
    sources: &[u32],
    out: &mut ManyStats,
    emit: &mut RowSink<'_>,
) -> Result<(), SsspError> {
    let n = graph.num_vertices() as usize;
    let mut dist = vec![0u32; CPU_BLOCK.min(sources.len()) * n];
    for (b, block) in sources.chunks(CPU_BLOCK).enumerate() {
        let rows = &mut dist[..block.len() * n];
        trees_into(graph, block, rows, out)?;
        emit(b * CPU_BLOCK, block, rows);
    }
    Ok(())
}

/// One Dijkstra tree per source straight into `rows` (row `i` from `sources[i]`), rayon over the rows,
/// each thread with its own heap.
pub(super) fn trees_into(
    graph: &Csr<u32>,
    sources: &[u32],
    rows: &mut [u32],
    out: &mut ManyStats,
) -> Result<(), SsspError> {
    let n = graph.num_vertices() as usize;
    let stats: Vec<SsspStats> = rows
        .par_chunks_mut(n.max(1))
        .zip(sources.par_iter())
        .map_init(RadixHeap::new, |heap, (row, &s)| dijkstra_into(graph, s, row, heap))
        .collect::<Result<_, _>>()?;
    for s in stats {
        out.stats.phases += s.phases;
    }
    out.cpu_trees += sources.len();
    Ok(())
}
