//! Settle rules of the frontier algorithms and a CPU mirror of their phases.

use graph_core::Csr;

use crate::paths::{UNREACHABLE, sat_add};

/// Which unsettled vertices a frontier phase settles (spec sssp.md §5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettleRule {
    /// Martín et al.: those at the minimum tentative distance.
    MinOnly = 0,
    /// Crauser et al. OUT: `dist ≤ min over unsettled (dist + min out-weight)`.
    Out = 1,
    /// OUT, or IN: `dist − min in-weight ≤ min unsettled dist`.
    InOut = 2,
}

/// `(min out-arc weight, min in-arc weight)` per vertex, `UNREACHABLE` when none, flattened.
pub fn min_weights(graph: &Csr<u32>) -> Vec<u32> {
    let n = graph.num_vertices() as usize;
    let mut mw = vec![UNREACHABLE; 2 * n];
    for (u, v, w) in graph.arcs() {
        mw[2 * u as usize] = mw[2 * u as usize].min(w);
        mw[2 * v as usize + 1] = mw[2 * v as usize + 1].min(w);
    }
    mw
}

/// The frontier algorithm run sequentially with the same phases as `shaders/sssp_frontier.wgsl`;
/// returns the distances and the number of settling phases (which the GPU must match exactly).
pub fn sssp_frontier_mirror(graph: &Csr<u32>, source: u32, rule: SettleRule) -> (Vec<u32>, u64) {
    let n = graph.num_vertices() as usize;
    let mw = min_weights(graph);
    let mut dist = vec![UNREACHABLE; n];
    let mut unsettled = vec![true; n];
    let mut frontier = vec![false; n];
    dist[source as usize] = 0;
    unsettled[source as usize] = false;
    frontier[source as usize] = true;
    let mut phases = 0;
    loop {
        for u in 0..n {
            if frontier[u] {
                for (v, w) in graph.out_arcs(u as u32) {
                    if unsettled[v as usize] {
                        dist[v as usize] = dist[v as usize].min(sat_add(dist[u], w));
                    }
                }
            }
        }
        let (mut dmin, mut dout) = (UNREACHABLE, UNREACHABLE);
        for u in 0..n {
            if unsettled[u] && dist[u] != UNREACHABLE {
                dmin = dmin.min(dist[u]);
                dout = dout.min(sat_add(dist[u], mw[2 * u]));
            }
        }
        if dmin == UNREACHABLE {
            break;
        }
        phases += 1;
        for v in 0..n {
            frontier[v] = false;
            let d = dist[v];
            if unsettled[v] && d != UNREACHABLE {
                let inw = mw[2 * v + 1];
                let settle = match rule {
                    SettleRule::MinOnly => d == dmin,
                    SettleRule::Out => d <= dout,
                    SettleRule::InOut => d <= dout || d.saturating_sub(inw) <= dmin,
                };
                if settle {
                    unsettled[v] = false;
                    frontier[v] = true;
                }
            }
        }
    }
    (dist, phases)
}
