//! The CPU sweep engine: PHAST on a contraction hierarchy, [`LANES`] sources per downward sweep, then
//! every point vertex's labels read for all of them. It costs the whole graph per sweep whatever the
//! cutoff: the engine for cutoffs that reach a large part of it.

use algos_sssp::ch::{ContractionHierarchy, LANES, PhastWorkspace};
use rayon::prelude::*;

use crate::error::AccessError;
use crate::reducer::Reducer;
use crate::reduction::{Cell, Reduction};

/// PHAST sweeps on all cores, one workspace per thread.
pub(crate) struct SweepReducer<'a> {
    pub hierarchy: &'a ContractionHierarchy,
    pub reduction: &'a Reduction<'a>,
    /// (rank, slot) of every point vertex, by rank: the labels are read in memory order.
    ranks: Vec<(u32, u32)>,
}

impl<'a> SweepReducer<'a> {
    pub fn new(hierarchy: &'a ContractionHierarchy, reduction: &'a Reduction<'a>) -> Self {
        let mut ranks: Vec<(u32, u32)> = (reduction.opportunities.vertices.iter())
            .enumerate()
            .map(|(slot, &v)| (hierarchy.rank[v as usize], slot as u32))
            .collect();
        ranks.sort_unstable();
        Self { hierarchy, reduction, ranks }
    }
}

impl Reducer for SweepReducer<'_> {
    fn block(&self) -> usize {
        LANES * 4 * rayon::current_num_threads()
    }

    fn reduce(&mut self, sources: &[u32], cells: &mut [Cell]) -> Result<(), AccessError> {
        let nc = self.reduction.cutoffs.len();
        let (ch, red, ranks) = (self.hierarchy, self.reduction, &self.ranks);
        let reach = red.reach();
        cells.par_chunks_mut(nc * LANES).zip(sources.par_chunks(LANES)).for_each_init(
            || PhastWorkspace::new(ch.num_vertices()),
            |ws, (cells, srcs)| {
                ws.sweep(ch, srcs);
                cells.fill(Cell::EMPTY);
                let labels = ws.labels();
                for &(r, slot) in ranks {
                    let row = &labels[r as usize * LANES..r as usize * LANES + srcs.len()];
                    for (lane, &d) in row.iter().enumerate() {
                        if d <= reach {
                            red.add(&mut cells[lane * nc..(lane + 1) * nc], slot as usize, d);
                        }
                    }
                }
                for lane in cells.chunks_mut(nc) {
                    red.finish(lane);
                }
            },
        );
        Ok(())
    }
}
