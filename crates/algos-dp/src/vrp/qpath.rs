//! q-paths with 2-cycle elimination (Christofides, Mingozzi & Toth 1981; spec vrp-relaxations.md §3.1).
//!
//! `f(q, i)`: least cost of a walk 0 → … → i whose load (demands counted with multiplicity) is exactly
//! q and that never goes j → i → j; `φ(q, i)`: the best such walk whose last arc comes from another
//! predecessor than `f`'s. Stages increase strictly in load (demands ≥ 1), so reduced (negative) costs
//! are fine. Serial or rayon over customers within a stage; identical tables either way.

use rayon::prelude::*;

use super::{ArcCosts, Cvrp, Route};

/// No predecessor (state unreachable).
pub const NONE: u32 = u32::MAX;

/// The q-path tables, `(Q + 1) × (n + 1)` row-major by load (column 0, the depot, unused).
#[derive(Debug, Clone, PartialEq)]
pub struct QPathTable {
    /// Customers + 1.
    pub m: usize,
    /// Capacity.
    pub capacity: u32,
    /// `f(q, i)` (`+∞` when no walk exists).
    pub f: Vec<f64>,
    /// Predecessor of `f` (0 = the depot, [`NONE`] when unreachable).
    pub pred: Vec<u32>,
    /// `φ(q, i)`.
    pub phi: Vec<f64>,
    /// Predecessor of `φ`.
    pub pred2: Vec<u32>,
}

impl QPathTable {
    #[inline]
    fn at(&self, q: u32, i: usize) -> usize {
        q as usize * self.m + i
    }

    /// `f(q, i)`.
    pub fn value(&self, q: u32, i: usize) -> f64 {
        self.f[self.at(q, i)]
    }

    /// The least-cost q-route through the closing arc `i → 0` for each (q, i), cheapest first, below
    /// `max_cost`, at most `k`: the walks are rebuilt from the predecessors.
    pub fn best_routes(&self, inst: &Cvrp, arcs: &ArcCosts, k: usize, max_cost: f64) -> Vec<Route> {
        let mut ends: Vec<(f64, u32, usize)> = Vec::new();
        for q in 1..=self.capacity {
            for i in 1..self.m {
                let v = self.value(q, i) + arcs.get(i, 0);
                if v < max_cost {
                    ends.push((v, q, i));
                }
            }
        }
        ends.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        ends.truncate(k);
        ends.into_iter()
            .map(|(cost, q, i)| {
                let customers = self.walk(inst, q, i);
                Route { customers, load: q, cost }
            })
            .collect()
    }

    /// The walk of `f(q, i)`, depot excluded.
    pub fn walk(&self, inst: &Cvrp, q: u32, i: usize) -> Vec<u32> {
        let d = inst.demands();
        let mut out = vec![i as u32];
        let (mut q, mut i, mut second) = (q, i, false);
        loop {
            let at = self.at(q, i);
            let p = if second { self.pred2[at] } else { self.pred[at] };
            if p == 0 || p == NONE {
                break;
            }
            let prev_q = q - d[i];
            // The DP took φ at (prev_q, p) exactly when f's predecessor there was i.
            second = self.pred[self.at(prev_q, p as usize)] == i as u32;
            out.push(p);
            q = prev_q;
            i = p as usize;
        }
        out.reverse();
        out
    }
}

/// The q-path tables under `arcs` (serial when `parallel` is false).
pub fn q_paths(inst: &Cvrp, arcs: &ArcCosts, parallel: bool) -> QPathTable {
    let m = inst.customers() + 1;
    let cap = inst.capacity();
    let d = inst.demands();
    let cells = (cap as usize + 1) * m;
    let mut t = QPathTable {
        m,
        capacity: cap,
        f: vec![f64::INFINITY; cells],
        pred: vec![NONE; cells],
        phi: vec![f64::INFINITY; cells],
        pred2: vec![NONE; cells],
    };
    for q in 1..=cap {
        // Stage q reads only stages below q.
        let done = &t.f[..q as usize * m];
        let (pred_done, phi_done) = (&t.pred[..q as usize * m], &t.phi[..q as usize * m]);
        let cell = |i: usize| -> (f64, u32, f64, u32) {
            if i == 0 || d[i] > q {
                return (f64::INFINITY, NONE, f64::INFINITY, NONE);
            }
            let prev = q - d[i];
            if prev == 0 {
                return (arcs.get(0, i), 0, f64::INFINITY, NONE);
            }
            let base = prev as usize * m;
            // Best and second best with distinct predecessors; ties to the smaller j.
            let (mut v1, mut p1, mut v2, mut p2) = (f64::INFINITY, NONE, f64::INFINITY, NONE);
            for j in 1..m {
                if j == i {
                    continue;
                }
                let from = if pred_done[base + j] != i as u32 { done[base + j] } else { phi_done[base + j] };
                if from == f64::INFINITY {
                    continue;
                }
                let h = from + arcs.get(j, i);
                if h < v1 {
                    (v2, p2) = (v1, p1);
                    (v1, p1) = (h, j as u32);
                } else if h < v2 {
                    (v2, p2) = (h, j as u32);
                }
            }
            (v1, p1, v2, p2)
        };
        let row: Vec<(f64, u32, f64, u32)> =
            if parallel { (0..m).into_par_iter().map(cell).collect() } else { (0..m).map(cell).collect() };
        let base = q as usize * m;
        for (i, (v1, p1, v2, p2)) in row.into_iter().enumerate() {
            t.f[base + i] = v1;
            t.pred[base + i] = p1;
            t.phi[base + i] = v2;
            t.pred2[base + i] = p2;
        }
    }
    t
}
