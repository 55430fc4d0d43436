//! ng-paths (Baldacci, Mingozzi & Roberti 2011; spec vrp-relaxations.md §3.3).
//!
//! A state is (customer i, load q, memory NG ⊆ N_i with i ∈ NG). Extending to customer k is allowed iff
//! k ∉ NG, and then NG' = (NG ∩ N_k) ∪ {k}. Memories are bit masks over the positions of N_i (i first,
//! so bit 0 is always set). Only reachable states are stored: per (q, i) a list sorted by mask, built in
//! the pull form (each target customer gathers from all predecessors of the previous stage; rayon over
//! targets, no atomics), with one label per exact state (the seed's rule) and ties to the first
//! predecessor in (j, state) order, so serial and parallel runs give identical tables.

use rustc_hash::FxHashMap as HashMap;

use rayon::prelude::*;

use super::{ArcCosts, Cvrp, DpError, Route};

/// The largest Δ (masks are u32).
pub const MAX_DELTA: usize = 32;

/// The ng-neighbourhoods: `members[i]` lists N_i with i first (customers 1..n; entry 0 unused).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NgSets {
    /// N_i, i first.
    pub members: Vec<Vec<u32>>,
}

impl NgSets {
    /// N_i = i and its Δ − 1 nearest customers by `c_ij + c_ji` (ties: smaller id); Δ is capped at n.
    pub fn nearest(inst: &Cvrp, delta: usize) -> Result<Self, DpError> {
        if delta == 0 || delta > MAX_DELTA {
            return Err(DpError::NeighbourhoodTooLarge { delta, max: MAX_DELTA });
        }
        let n = inst.customers();
        let mut members = vec![Vec::new(); n + 1];
        for (i, row) in members.iter_mut().enumerate().skip(1) {
            let mut others: Vec<u32> = (1..=n as u32).filter(|&j| j as usize != i).collect();
            others.sort_by(|&a, &b| {
                let da = inst.cost(i, a as usize) + inst.cost(a as usize, i);
                let db = inst.cost(i, b as usize) + inst.cost(b as usize, i);
                da.total_cmp(&db).then(a.cmp(&b))
            });
            row.push(i as u32);
            row.extend(others.into_iter().take(delta - 1));
        }
        Ok(Self { members })
    }

    /// N_i = every customer (ng-routes are then elementary routes).
    pub fn all(inst: &Cvrp) -> Result<Self, DpError> {
        Self::nearest(inst, inst.customers())
    }
}

/// One label.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NgState {
    /// NG over the positions of N_i.
    pub mask: u32,
    /// Least cost.
    pub value: f64,
    /// Predecessor customer (0 = the depot).
    pub pred: u32,
    /// Index of the predecessor's state in its (q, pred) list.
    pub pred_state: u32,
}

/// The ng-path states by load and customer.
#[derive(Debug, Clone, PartialEq)]
pub struct NgTable {
    m: usize,
    capacity: u32,
    /// `states[q * m + i]`, sorted by mask.
    states: Vec<Vec<NgState>>,
}

/// Per ordered pair (j, k): where each member of N_j sits in N_k (or none), and where k sits in N_j.
struct Transitions {
    delta: usize,
    /// `pos[(j * m + k) * delta + p]` = position in N_k of N_j[p], or u8::MAX.
    pos: Vec<u8>,
    /// `k_in_j[j * m + k]` = position of k in N_j, or u8::MAX.
    k_in_j: Vec<u8>,
}

impl Transitions {
    fn new(ng: &NgSets, m: usize) -> Self {
        let delta = ng.members.iter().map(Vec::len).max().unwrap_or(1);
        let mut pos = vec![u8::MAX; m * m * delta];
        let mut k_in_j = vec![u8::MAX; m * m];
        let mut where_in: Vec<HashMap<u32, u8>> = vec![HashMap::default(); m];
        for (k, row) in ng.members.iter().enumerate() {
            for (p, &c) in row.iter().enumerate() {
                where_in[k].insert(c, p as u8);
            }
        }
        for j in 1..m {
            for k in 1..m {
                for (p, c) in ng.members[j].iter().enumerate() {
                    if let Some(&x) = where_in[k].get(c) {
                        pos[(j * m + k) * delta + p] = x;
                    }
                }
                if let Some(&x) = where_in[j].get(&(k as u32)) {
                    k_in_j[j * m + k] = x;
                }
            }
        }
        Self { delta, pos, k_in_j }
    }

    /// NG' at k of a state at j with `mask`, or None when k is in the memory.
    #[inline]
    fn extend(&self, m: usize, j: usize, mask: u32, k: usize) -> Option<u32> {
        let at = self.k_in_j[j * m + k];
        if at != u8::MAX && mask & (1 << at) != 0 {
            return None;
        }
        let map = &self.pos[(j * m + k) * self.delta..][..self.delta];
        let mut out = 1u32; // k itself, position 0 of N_k
        let mut bits = mask;
        while bits != 0 {
            let p = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let x = map[p];
            if x != u8::MAX {
                out |= 1 << x;
            }
        }
        Some(out)
    }
}

/// The ng-path states under `arcs` with neighbourhoods `ng` (serial when `parallel` is false), one label
/// per exact memory (the seed's rule). `max_states` bounds the labels kept
/// ([`DpError::StateSpaceTooLarge`] beyond).
pub fn ng_paths(
    inst: &Cvrp,
    arcs: &ArcCosts,
    ng: &NgSets,
    parallel: bool,
    max_states: usize,
) -> Result<NgTable, DpError> {
    ng_paths_with(inst, arcs, ng, parallel, max_states, false)
}

/// [`ng_paths`] with subset dominance: a label is dropped when another label of the same (q, i) has a
/// memory that is a subset of its own and a value no larger. Every `value(q, i)` and the cheapest routes
/// are unchanged; far fewer labels are stored and extended (docs/benchmarks.md).
pub fn ng_paths_dominated(
    inst: &Cvrp,
    arcs: &ArcCosts,
    ng: &NgSets,
    parallel: bool,
    max_states: usize,
) -> Result<NgTable, DpError> {
    ng_paths_with(inst, arcs, ng, parallel, max_states, true)
}

fn ng_paths_with(
    inst: &Cvrp,
    arcs: &ArcCosts,
    ng: &NgSets,
    parallel: bool,
    max_states: usize,
    dominance: bool,
) -> Result<NgTable, DpError> {
    let m = inst.customers() + 1;
    if ng.members.len() != m {
        return Err(DpError::Shape(format!(
            "{} neighbourhoods for {} customers",
            ng.members.len() - 1,
            m - 1
        )));
    }
    let tr = Transitions::new(ng, m);
    let cap = inst.capacity();
    let d = inst.demands();
    let mut states: Vec<Vec<NgState>> = vec![Vec::new(); (cap as usize + 1) * m];
    let mut total = 0usize;
    for q in 1..=cap {
        let done = &states[..q as usize * m];
        let cell = |k: usize| -> Vec<NgState> {
            if k == 0 || d[k] > q {
                return Vec::new();
            }
            let prev = q - d[k];
            if prev == 0 {
                return vec![NgState { mask: 1, value: arcs.get(0, k), pred: 0, pred_state: 0 }];
            }
            let mut best: HashMap<u32, NgState> = HashMap::default();
            for j in 1..m {
                if j == k {
                    continue;
                }
                let a = arcs.get(j, k);
                for (s, st) in done[prev as usize * m + j].iter().enumerate() {
                    let Some(mask) = tr.extend(m, j, st.mask, k) else { continue };
                    let v = st.value + a;
                    let e = best.entry(mask).or_insert(NgState {
                        mask,
                        value: f64::INFINITY,
                        pred: 0,
                        pred_state: 0,
                    });
                    if v < e.value {
                        *e = NgState { mask, value: v, pred: j as u32, pred_state: s as u32 };
                    }
                }
            }
            let mut out: Vec<NgState> = best.into_values().collect();
            if dominance {
                // Drop a label when another with a subset memory costs no more: every extension of it
                // is open to the other, at no more cost and with a subset memory again.
                out.sort_unstable_by(|a, b| a.value.total_cmp(&b.value).then(a.mask.cmp(&b.mask)));
                let mut kept: Vec<NgState> = Vec::with_capacity(out.len());
                for s in out {
                    if !kept.iter().any(|k| k.mask & s.mask == k.mask) {
                        kept.push(s);
                    }
                }
                out = kept;
            }
            out.sort_unstable_by_key(|s| s.mask);
            out
        };
        let row: Vec<Vec<NgState>> =
            if parallel { (0..m).into_par_iter().map(cell).collect() } else { (0..m).map(cell).collect() };
        let base = q as usize * m;
        for (k, r) in row.into_iter().enumerate() {
            total += r.len();
            states[base + k] = r;
        }
        if total > max_states {
            let bytes = (total * std::mem::size_of::<NgState>()) as u64;
            return Err(DpError::StateSpaceTooLarge { states: total, bytes, limit: max_states });
        }
    }
    Ok(NgTable { m, capacity: cap, states })
}

impl NgTable {
    /// The states of (q, i), sorted by mask.
    pub fn states(&self, q: u32, i: usize) -> &[NgState] {
        &self.states[q as usize * self.m + i]
    }

    /// Number of labels stored.
    pub fn len(&self) -> usize {
        self.states.iter().map(Vec::len).sum()
    }

    /// True when no state is reachable.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `min_NG f(q, i, NG)`, or `+∞`.
    pub fn value(&self, q: u32, i: usize) -> f64 {
        self.states(q, i).iter().map(|s| s.value).fold(f64::INFINITY, f64::min)
    }

    /// The cheapest ng-routes (closing arc `i → 0` added), one per (q, i) at its best state, cheapest
    /// first, below `max_cost`, at most `k`.
    pub fn best_routes(&self, inst: &Cvrp, arcs: &ArcCosts, k: usize, max_cost: f64) -> Vec<Route> {
        let mut ends: Vec<(f64, u32, usize, usize)> = Vec::new();
        for q in 1..=self.capacity {
            for i in 1..self.m {
                let best =
                    self.states(q, i).iter().enumerate().min_by(|a, b| a.1.value.total_cmp(&b.1.value));
                if let Some((s, st)) = best {
                    let v = st.value + arcs.get(i, 0);
                    if v < max_cost {
                        ends.push((v, q, i, s));
                    }
                }
            }
        }
        ends.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        ends.truncate(k);
        ends.into_iter()
            .map(|(cost, q, i, s)| Route { customers: self.walk(inst, q, i, s), load: q, cost })
            .collect()
    }

    /// The walk of state `s` of (q, i), depot excluded.
    pub fn walk(&self, inst: &Cvrp, q: u32, i: usize, s: usize) -> Vec<u32> {
        let d = inst.demands();
        let mut out = vec![i as u32];
        let (mut q, mut i, mut s) = (q, i, s);
        loop {
            let st = self.states(q, i)[s];
            if st.pred == 0 {
                break;
            }
            q -= d[i];
            i = st.pred as usize;
            s = st.pred_state as usize;
            out.push(i as u32);
        }
        out.reverse();
        out
    }
}
