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
use graph_core::Csr;

/// In increasing rank, each (rank, lane) with flow and no upward-search parent hands its flow to its
/// first tight downward in-arc (`down_loads[a]`; `down` is `ch.down`, each rank's in-arcs with their
/// tails as targets) and that arc's tail: the rule itself, read lane by lane, for loads after a plain
/// `PhastWorkspace::sweep` (the reference `pass_to_kept_parents` is tested against; assignment sweeps
/// with parents).
fn pass_down_parents(acc: &mut [u64], up_arc: &[u32], dist: &[u32], down: &Csr<u32>, down_loads: &mut [u64]) {
    let (offsets, tails, weights) = (down.offsets(), down.targets(), down.weights());
    for r in 0..offsets.len() - 1 {
        for lane in 0..LANES {
            let i = r * LANES + lane;
            let f = acc[i];
            if f == 0 || up_arc[i] != NO_PARENT {
                continue;
            }
            let arcs = offsets[r] as usize..offsets[r + 1] as usize;
            let in_arcs = tails[arcs.clone()].iter().zip(&weights[arcs.clone()]).zip(&mut down_loads[arcs]);
            for ((&t, &w), load) in in_arcs {
                let from = dist[t as usize * LANES + lane];
                if w != UNREACHABLE && from != UNREACHABLE && from.saturating_add(w).min(SATURATED) == dist[i]
                {
                    *load += f;
                    acc[t as usize * LANES + lane] += f;
                    break;
                }
            }
        }
    }
}

/// [`pass_down_parents`] with the parents a `PhastWorkspace::sweep_with_parents` kept: the first
/// in-arc that lowered a label is its first tight one wherever the label is not the upward search's,
/// so the same arcs and loads without reading any other in-arc.
fn pass_to_kept_parents(
    acc: &mut [u64],
    up_arc: &[u32],
    parents: &[u32],
    down: &Csr<u32>,
    down_loads: &mut [u64],
) {
    let tails = down.targets();
    for (i, &a) in parents.iter().enumerate() {
        let f = acc[i];
        if f == 0 || up_arc[i] != NO_PARENT || a == NO_PARENT {
            continue;
        }
        down_loads[a as usize] += f;
        acc[tails[a as usize] as usize * LANES + i % LANES] += f;
    }
}

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
        let down = &ch.down;
        if ws.down_parents().len() == self.acc.len() {
            pass_to_kept_parents(
                &mut self.acc,
                &self.up_arc,
                ws.down_parents(),
                down,
                &mut loads[up_slots..],
            );
        } else {
            pass_down_parents(&mut self.acc, &self.up_arc, dist, down, &mut loads[up_slots..]);
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
