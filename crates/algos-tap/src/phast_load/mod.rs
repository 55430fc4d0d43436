//! Loading flows along the trees of a PHAST sweep, on the hierarchy's own arcs: the CPU loader
//! ([`PhastLoad`]) and its GPU twin ([`GpuPhastLoad`], `shaders/phast_load.wgsl`). algos-sssp computes
//! the trees (`algos_sssp::ch::PhastWorkspace`, `algos_sssp::ch::gpu::GpuPhast`); this module sends
//! flows along them.
//!
//! Every vertex of a tree gets one parent arc in the hierarchy: the upward-search arc when the upward
//! search gave its final label, else its first tight downward in-arc (in `ch.down` order). Parents
//! always have smaller labels (arc weights are at least 1 where this is used), so the parents form a
//! tree, and the order of passing flows up is known without sorting: vertices with a downward parent
//! in increasing rank (their parent ranks higher), then the upward-search vertices in decreasing rank
//! (their parent ranks lower, and no downward-parented vertex hangs below them: see
//! [`PhastLoad::load`]). The GPU follows the same rules, so both give the same integer loads. Loads are
//! per hierarchy slot: up arc `a` is slot `a`, down arc `a` is slot `up.num_arcs() + a`;
//! `algos_sssp::cch::Unpacking` turns a CCH's slot loads into input-arc loads.

#[cfg(feature = "gpu")]
mod gpu;

#[cfg(feature = "gpu")]
pub use gpu::GpuPhastLoad;

use algos_sssp::ch::{ContractionHierarchy, LANES, NO_PARENT, PhastWorkspace, Seed};
use algos_sssp::{SATURATED, UNREACHABLE};

/// `up_arc` mark of the source itself (a root: no arc).
const ROOT: u32 = u32::MAX - 1;

/// Scratch of the CPU tree loading, reused across sweeps (one per worker thread).
#[derive(Debug, Default)]
pub struct PhastLoad {
    /// Flow accumulators, `acc[rank * LANES + lane]` (allocated on first use).
    acc: Vec<u64>,
    /// Up arc into each (rank, lane) whose label the upward search gave.
    up_arc: Vec<u32>,
    /// One lane's seeds in decreasing rank.
    seeds: Vec<Seed>,
}

impl PhastLoad {
    /// Empty scratch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sends `demands[lane]` — `(destination vertex, amount)` pairs — from each tree's source along
    /// the trees of `ws`'s last sweep on `ch`, adding every amount to each hierarchy slot it crosses
    /// (`loads`, `up.num_arcs() + down.num_arcs()` long). Destinations must be reached with labels
    /// below the saturation bound (check `PhastWorkspace::label` first), and weights on the trees at
    /// least 1.
    ///
    /// Why the order is right: a vertex whose label came from the upward search hands its flow to a
    /// lower rank that also got its label there (its final label is the upward label, shown by
    /// exactness), so downward-parented vertices never sit below upward-search ones; one pass up the
    /// ranks over the downward-parented vertices, then one pass down each lane's search space, sees
    /// every child before its parent.
    pub fn load(
        &mut self,
        ch: &ContractionHierarchy,
        ws: &PhastWorkspace,
        demands: &[Vec<(u32, u64)>],
        loads: &mut [u64],
    ) {
        let n = ch.num_vertices() as usize;
        let dist = ws.labels();
        let lanes = demands.len().min(LANES);
        let up_slots = ch.up.num_arcs() as usize;
        if self.acc.len() != n * LANES {
            self.acc = vec![0; n * LANES];
            self.up_arc = vec![NO_PARENT; n * LANES];
        }
        for (lane, list) in demands.iter().enumerate().take(lanes) {
            for &(v, amount) in list {
                self.acc[ch.rank[v as usize] as usize * LANES + lane] += amount;
            }
            for &(r, d, (_, arc)) in ws.seeds(lane) {
                let i = r as usize * LANES + lane;
                if dist[i] == d {
                    self.up_arc[i] = if arc == NO_PARENT { ROOT } else { arc };
                }
            }
        }
        let (dof, dt, dw) = (ch.down.offsets(), ch.down.targets(), ch.down.weights());
        for r in 0..n {
            for lane in 0..lanes {
                let i = r * LANES + lane;
                let f = self.acc[i];
                if f == 0 || self.up_arc[i] != NO_PARENT {
                    continue;
                }
                let d = dist[i];
                for a in dof[r] as usize..dof[r + 1] as usize {
                    let (t, w) = (dt[a] as usize, dw[a]);
                    let from = dist[t * LANES + lane];
                    if w != UNREACHABLE && from != UNREACHABLE && from.saturating_add(w).min(SATURATED) == d {
                        loads[up_slots + a] += f;
                        self.acc[t * LANES + lane] += f;
                        break;
                    }
                }
            }
        }
        for lane in 0..lanes {
            self.seeds.clear();
            self.seeds.extend_from_slice(ws.seeds(lane));
            self.seeds.sort_unstable_by_key(|&(r, _, _)| std::cmp::Reverse(r));
            for &(r, _, (parent, arc)) in &self.seeds {
                let i = r as usize * LANES + lane;
                let f = self.acc[i];
                if f != 0 && self.up_arc[i] == arc && arc != NO_PARENT {
                    loads[arc as usize] += f;
                    self.acc[parent as usize * LANES + lane] += f;
                }
                self.up_arc[i] = NO_PARENT;
            }
        }
        self.acc.fill(0);
    }
}
