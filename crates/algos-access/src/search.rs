//! The bounded-search engine: one Dijkstra per source, stopped at the first label past the largest
//! cutoff, adding each point vertex as it settles. It costs the vertices within reach, not the graph,
//! and needs no preparation: the engine for cutoffs that reach a small part of the graph.

use algos_sssp::UNREACHABLE;
use algos_sssp::cpu::queue::LazyHeap;
use algos_sssp::cpu::search::{Settle, Workspace, dijkstra_search};
use graph_core::Csr;
use rayon::prelude::*;

use crate::error::AccessError;
use crate::opportunities::NO_SLOT;
use crate::reducer::Reducer;
use crate::reduction::{Cell, Reduction};

/// Bounded searches on all cores, one reusable distance row and queue per thread.
pub(crate) struct SearchReducer<'a> {
    pub graph: &'a Csr<u32>,
    pub reduction: &'a Reduction<'a>,
}

/// A thread's scratch: distances (all unreached between searches) and the queue.
struct Scratch {
    dist: Vec<u32>,
    ws: Workspace<u32, LazyHeap<u32>>,
}

impl Reducer for SearchReducer<'_> {
    fn block(&self) -> usize {
        64 * rayon::current_num_threads()
    }

    fn reduce(&mut self, sources: &[u32], cells: &mut [Cell]) -> Result<(), AccessError> {
        let nc = self.reduction.cutoffs.len();
        let n = self.graph.num_vertices() as usize;
        let (graph, red) = (self.graph, self.reduction);
        let slot = &red.opportunities.slot;
        let reach = red.reach();
        cells.par_chunks_mut(nc).zip(sources.par_iter()).for_each_init(
            || Scratch {
                dist: vec![UNREACHABLE; n],
                ws: Workspace::new(LazyHeap::with_capacity(1024)).with_touched(),
            },
            |s, (cells, &source)| {
                cells.fill(Cell::EMPTY);
                dijkstra_search(graph, source, &mut s.dist, &mut s.ws, |v, d| {
                    if d > reach {
                        return Settle::Stop;
                    }
                    let k = slot[v as usize];
                    if k != NO_SLOT {
                        red.add(cells, k as usize, d);
                    }
                    Settle::Expand
                });
                s.ws.reset(&mut s.dist);
                red.finish(cells);
            },
        );
        Ok(())
    }
}
