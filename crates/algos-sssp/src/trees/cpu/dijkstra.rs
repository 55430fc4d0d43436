//! Integer Dijkstra ([`crate::cpu::search`] with u32 labels) with lazy deletion over a monotone priority
//! queue: a radix heap on large graphs (integer weights make keys monotone; O(1) pushes), a binary heap
//! of packed `(distance, vertex)` keys on small ones, where the radix heap's bucket allocations and re-bucketing cost more than they save (measured
//! in docs/benchmarks.md: binary heap 1.5× faster on Bremen and Ballard, radix heap 1.25× faster on NY).

use graph_core::Csr;

use crate::cpu::queue::{Frontier, LazyHeap};
use crate::cpu::radix_heap::RadixHeap;
use crate::cpu::search::{Settle, Workspace, dijkstra_search};
use crate::error::SsspError;
use crate::paths::{SATURATED, SsspStats, UNREACHABLE};

/// Options of one Dijkstra run.
#[derive(Debug, Clone, Default)]
pub struct Stop<'a> {
    /// Stop once all of these are settled (vertices not settled then stay unreachable).
    pub targets: Option<&'a [u32]>,
    /// Do not settle vertices farther than this.
    pub cutoff: Option<u32>,
}

/// Graphs with at least this many vertices use the radix heap.
pub const RADIX_HEAP_MIN_VERTICES: u32 = 100_000;

/// Distances from `source`, settling vertices in order. Returns the distances (unsettled vertices
/// `UNREACHABLE`) and work counters.
pub fn dijkstra(graph: &Csr<u32>, source: u32, stop: &Stop) -> Result<(Vec<u32>, SsspStats), SsspError> {
    if graph.num_vertices() >= RADIX_HEAP_MIN_VERTICES {
        run(graph, source, stop, RadixHeap::new())
    } else {
        run(graph, source, stop, LazyHeap::with_capacity(1024))
    }
}

fn run(
    graph: &Csr<u32>,
    source: u32,
    stop: &Stop,
    heap: impl Frontier<u32>,
) -> Result<(Vec<u32>, SsspStats), SsspError> {
    let n = graph.num_vertices() as usize;
    let mut dist = vec![UNREACHABLE; n];
    // Settled flags are only needed to stop early: then the labels of vertices not settled are upper
    // bounds, reported as unreachable.
    let early = stop.targets.is_some() || stop.cutoff.is_some();
    let mut settled = vec![false; if early { n } else { 0 }];
    let mut is_target = vec![false; if stop.targets.is_some() { n } else { 0 }];
    let mut remaining = usize::MAX;
    if let Some(ts) = stop.targets {
        remaining = 0;
        for &t in ts {
            remaining += !std::mem::replace(&mut is_target[t as usize], true) as usize;
        }
    }
    let cutoff = stop.cutoff.unwrap_or(u32::MAX);
    let offsets = graph.offsets();
    let mut stats = SsspStats::default();
    let mut ws = Workspace::new(heap);
    if !early {
        // A whole tree: the lightest hook (as `dijkstra_into`); arcs scanned are those of the
        // reached vertices.
        dijkstra_search(graph, source, &mut dist, &mut ws, |_, _| Settle::Expand);
        for (v, &d) in dist.iter().enumerate() {
            if d != UNREACHABLE {
                stats.phases += 1;
                stats.relaxations += (offsets[v + 1] - offsets[v]) as u64;
            }
        }
    } else {
        dijkstra_search(graph, source, &mut dist, &mut ws, |u, d| {
            if early {
                if d > cutoff {
                    return Settle::Stop;
                }
                settled[u as usize] = true;
            }
            stats.phases += 1;
            if !is_target.is_empty() && is_target[u as usize] {
                remaining -= 1;
                if remaining == 0 {
                    return Settle::Stop;
                }
            }
            stats.relaxations += (offsets[u as usize + 1] - offsets[u as usize]) as u64;
            Settle::Expand
        });
    }
    // Saturate like the GPU: a label at SATURATED is a sum that overflowed the u32 range.
    if dist.contains(&SATURATED) {
        return Err(SsspError::WeightOverflow { bound: SATURATED });
    }
    if early {
        for (d, s) in dist.iter_mut().zip(&settled) {
            if !s {
                *d = UNREACHABLE;
            }
        }
    }
    Ok((dist, stats))
}

/// Full Dijkstra from `source` into `dist` (length n, overwritten), reusing `heap`: the per-thread
/// workhorse of many-source runs (no allocation per source).
pub fn dijkstra_into(
    graph: &Csr<u32>,
    source: u32,
    dist: &mut [u32],
    heap: &mut RadixHeap,
) -> Result<SsspStats, SsspError> {
    dist.fill(UNREACHABLE);
    let mut ws = Workspace::new(RadixHeap::new_reusing(std::mem::take(heap)));
    let mut stats = SsspStats::default();
    dijkstra_search(graph, source, dist, &mut ws, |_, _| {
        stats.phases += 1;
        Settle::Expand
    });
    *heap = std::mem::take(ws.frontier_mut());
    if dist.contains(&SATURATED) {
        return Err(SsspError::WeightOverflow { bound: SATURATED });
    }
    Ok(stats)
}
