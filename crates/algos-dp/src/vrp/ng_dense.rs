//! ng-paths on dense memory tables: the GPU's layout ([`super::GpuNgPricer`]) and its CPU mirror.
//!
//! Every (load q, customer i) cell holds all `S = 2^(Δ−1)` memories over N_i (bit 0, i itself, is
//! always set, so memory `M` sits at index `t = M >> 1`). Each label keeps the lexicographically least
//! `(value, predecessor j, predecessor index t)`: the same label the reachable-state DP
//! ([`super::ng_paths`]) keeps, since it scans predecessors in (j, t) order and replaces on `<` only.
//! That minimum does not depend on the order candidates meet, so the GPU's tree reductions and this
//! mirror's loops give the same tables bit for bit (f64 sums of the same two terms, exact minima).
//!
//! **Near and far predecessors.** For a target k, a predecessor j whose neighbourhood shares nothing
//! with N_k (besides k) and that does not hold k in N_j maps every memory to `{k}`: it only contributes
//! its cell's best label ([`NgDenseTable::best`]). The few *near* j (about Δ² of them) map memory bits
//! through their shared members; [`NgPlan`] lists them per k with the bit maps the kernels use.

use rayon::prelude::*;

use super::{ArcCosts, Cvrp, DpError, NgSets, Route};

/// No label (unreachable memory).
pub const NO_LABEL: u32 = u32::MAX;

/// Largest Δ of the dense layout: a predecessor packs `j << 16 | t` (t < 2^15) and a table has
/// `(Q + 1)(n + 1) 2^(Δ−1)` labels.
pub const MAX_DENSE_DELTA: usize = 16;

/// Words per near-pair record: `[j, forbid, free, image, required, map × 4]`.
pub(crate) const RECORD_WORDS: usize = 9;

/// The near predecessors of every customer and how memories cross each (j → k) arc.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NgPlan {
    /// Customers + 1.
    pub m: usize,
    /// Largest |N_i|.
    pub delta: usize,
    /// Memories per cell, `2^(delta − 1)`.
    pub masks: usize,
    /// `near_at[k]..near_at[k + 1]`: k's records in `records` (j ascending).
    pub near_at: Vec<u32>,
    /// `RECORD_WORDS` words per (j, k) near pair: j; `forbid` (bit of k over N_j's positions, or 0);
    /// `free` (index bits of N_j's positions neither shared with N_k nor k: minimised away); `image`
    /// (bits of N_k a memory from j can hold, bit 0 included); `required` (bits it always holds: 0, and
    /// j's own position when j ∈ N_k); four words of bytes, byte x = position in N_j of N_k\[x\] or 0xFF.
    pub records: Vec<u32>,
    /// `near[k * m + j]`: j is a near predecessor of k.
    pub near: Vec<bool>,
}

impl NgPlan {
    /// The plan of `ng` (Δ ≤ [`MAX_DENSE_DELTA`]).
    pub fn new(inst: &Cvrp, ng: &NgSets) -> Result<Self, DpError> {
        let m = inst.customers() + 1;
        if ng.members.len() != m {
            return Err(DpError::Shape(format!(
                "{} neighbourhoods for {} customers",
                ng.members.len().saturating_sub(1),
                m - 1
            )));
        }
        let delta = ng.members.iter().map(Vec::len).max().unwrap_or(1).max(1);
        if delta > MAX_DENSE_DELTA {
            return Err(DpError::NeighbourhoodTooLarge { delta, max: MAX_DENSE_DELTA });
        }
        let position = |set: &[u32], c: u32| set.iter().position(|&x| x == c);
        let mut near_at = vec![0u32; m + 1];
        let mut records = Vec::new();
        let mut near = vec![false; m * m];
        for k in 1..m {
            let nk = &ng.members[k];
            for j in 1..m {
                if j == k {
                    continue;
                }
                let nj = &ng.members[j];
                let kpos = position(nj, k as u32);
                let mut map = [0xFFu8; 16];
                let (mut image, mut free) = (1u32, 0u32);
                for (p, &c) in nj.iter().enumerate() {
                    if Some(p) == kpos {
                        continue;
                    }
                    match position(nk, c) {
                        Some(x) if x > 0 => {
                            map[x] = p as u8;
                            image |= 1 << x;
                        }
                        _ if p > 0 => free |= 1 << (p - 1),
                        _ => {}
                    }
                }
                if image == 1 && kpos.is_none() {
                    continue; // far: every memory of j becomes {k}
                }
                near[k * m + j] = true;
                let forbid = kpos.map_or(0, |p| 1u32 << p);
                let required = 1 | position(nk, j as u32).map_or(0, |x| 1u32 << x);
                records.extend_from_slice(&[j as u32, forbid, free, image, required]);
                records.extend(map.chunks(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])));
            }
            near_at[k + 1] = (records.len() / RECORD_WORDS) as u32;
        }
        Ok(Self { m, delta, masks: 1 << (delta - 1), near_at, records, near })
    }

    /// Labels of a table over `capacity`.
    pub fn labels(&self, capacity: u32) -> u64 {
        (capacity as u64 + 1) * self.m as u64 * self.masks as u64
    }

    /// The records of k's near predecessors.
    pub(crate) fn near_of(&self, k: usize) -> impl Iterator<Item = &[u32]> {
        let (a, b) = (self.near_at[k] as usize, self.near_at[k + 1] as usize);
        self.records[a * RECORD_WORDS..b * RECORD_WORDS].chunks_exact(RECORD_WORDS)
    }
}

/// The memory a label of j reaches at k, or `None` when k is in it. `rec` is the pair's record.
#[inline]
fn cross(rec: &[u32], delta: usize, t: usize) -> Option<usize> {
    let mask = ((t as u32) << 1) | 1;
    if mask & rec[1] != 0 {
        return None;
    }
    let mut out = 1u32;
    for x in 1..delta {
        let p = (rec[5 + x / 4] >> (8 * (x % 4))) & 0xFF;
        if p != 0xFF && mask & (1 << p) != 0 {
            out |= 1 << x;
        }
    }
    Some((out >> 1) as usize)
}

/// Packs a predecessor label.
#[inline]
pub(crate) fn pack(j: usize, t: usize) -> u32 {
    ((j as u32) << 16) | t as u32
}

/// `(value, key)` strictly before `(v, key2)`: smaller value, then smaller packed (j, t).
#[inline]
fn before(v: f64, key: u32, v2: f64, key2: u32) -> bool {
    key != NO_LABEL && (key2 == NO_LABEL || v < v2 || (v == v2 && key < key2))
}

/// The dense ng-path tables. Values of labels without a predecessor ([`NO_LABEL`]) are `+∞`.
#[derive(Debug, Clone, PartialEq)]
pub struct NgDenseTable {
    /// Customers + 1.
    pub m: usize,
    /// Memories per cell.
    pub masks: usize,
    /// Capacity.
    pub capacity: u32,
    /// `value[(q · m + i) · masks + t]`.
    pub value: Vec<f64>,
    /// Predecessor `j << 16 | t` (j = 0: the depot), or [`NO_LABEL`].
    pub pred: Vec<u32>,
    /// Per cell: the least value (`+∞` when none).
    pub best: Vec<f64>,
    /// Per cell: the least memory index reaching it, or [`NO_LABEL`].
    pub best_mask: Vec<u32>,
}

/// The dense ng-path tables under `arcs` (rayon over the customers of a stage when `parallel`).
/// `max_labels` bounds `(Q + 1)(n + 1) 2^(Δ−1)` ([`DpError::StateSpaceTooLarge`] beyond).
///
/// ```
/// use urbanflow::dp::vrp::{ArcCosts, Costs, Cvrp, NgPlan, NgSets, vrp_ng_mirror};
/// let x = [0.0f64, 1.0, 2.0];
/// let cost: Vec<f64> = (0..9).map(|k| (x[k / 3] - x[k % 3]).abs()).collect();
/// let inst = Cvrp::new("line", vec![0, 1, 1], 2, cost)?;
/// let plan = NgPlan::new(&inst, &NgSets::nearest(&inst, 2)?)?;
/// let t = vrp_ng_mirror(&inst, &ArcCosts::new(&inst, &Costs::Raw)?, &plan, false, 1 << 20)?;
/// assert_eq!(t.value(2, 2), 2.0); // 0 → 1 → 2
/// # Ok::<(), urbanflow::dp::DpError>(())
/// ```
pub fn vrp_ng_mirror(
    inst: &Cvrp,
    arcs: &ArcCosts,
    plan: &NgPlan,
    parallel: bool,
    max_labels: usize,
) -> Result<NgDenseTable, DpError> {
    let (m, s, cap) = (plan.m, plan.masks, inst.capacity());
    if m != inst.customers() + 1 {
        return Err(DpError::Shape(format!(
            "a plan for {} customers, the instance has {}",
            m - 1,
            inst.customers()
        )));
    }
    let labels = plan.labels(cap);
    if labels > max_labels as u64 {
        return Err(DpError::StateSpaceTooLarge {
            states: labels as usize,
            bytes: labels * 12,
            limit: max_labels,
        });
    }
    let cells = (cap as usize + 1) * m;
    let mut t = NgDenseTable {
        m,
        masks: s,
        capacity: cap,
        value: vec![f64::INFINITY; cells * s],
        pred: vec![NO_LABEL; cells * s],
        best: vec![f64::INFINITY; cells],
        best_mask: vec![NO_LABEL; cells],
    };
    let d = inst.demands();
    for q in 1..=cap {
        let split = q as usize * m * s;
        let (done, rest) = (t.value.split_at_mut(split), t.pred.split_at_mut(split));
        let (done_v, row_v) = (&done.0[..], &mut done.1[..m * s]);
        let (done_p, row_p) = (&rest.0[..], &mut rest.1[..m * s]);
        let (best, best_mask) = (&t.best[..q as usize * m], &t.best_mask[..q as usize * m]);
        let cell = |(k, (vals, preds)): (usize, (&mut [f64], &mut [u32]))| -> (f64, u32) {
            if k == 0 || d[k] > q {
                return (f64::INFINITY, NO_LABEL);
            }
            let prev = (q - d[k]) as usize;
            if prev == 0 {
                vals[0] = arcs.get(0, k);
                preds[0] = pack(0, 0);
                return (vals[0], 0);
            }
            // Far predecessors reach memory {k} with their cell's best label.
            for j in 1..m {
                let b = best_mask[prev * m + j];
                if j == k || plan.near[k * m + j] || b == NO_LABEL {
                    continue;
                }
                let (v, key) = (best[prev * m + j] + arcs.get(j, k), pack(j, b as usize));
                if before(v, key, vals[0], preds[0]) {
                    (vals[0], preds[0]) = (v, key);
                }
            }
            for rec in plan.near_of(k) {
                let j = rec[0] as usize;
                let a = arcs.get(j, k);
                let base = (prev * m + j) * s;
                for src in 0..s {
                    if done_p[base + src] == NO_LABEL {
                        continue;
                    }
                    let Some(to) = cross(rec, plan.delta, src) else { continue };
                    let (v, key) = (done_v[base + src] + a, pack(j, src));
                    if before(v, key, vals[to], preds[to]) {
                        (vals[to], preds[to]) = (v, key);
                    }
                }
            }
            let mut b = (f64::INFINITY, NO_LABEL);
            for (x, (&v, &p)) in vals.iter().zip(preds.iter()).enumerate() {
                if p != NO_LABEL && (b.1 == NO_LABEL || v < b.0) {
                    b = (v, x as u32);
                }
            }
            b
        };
        let rows = row_v.chunks_mut(s).zip(row_p.chunks_mut(s)).enumerate();
        let bests: Vec<(f64, u32)> = if parallel {
            rows.collect::<Vec<_>>().into_par_iter().map(cell).collect()
        } else {
            rows.map(cell).collect()
        };
        for (k, (v, b)) in bests.into_iter().enumerate() {
            t.best[q as usize * m + k] = v;
            t.best_mask[q as usize * m + k] = b;
        }
    }
    Ok(t)
}

impl NgDenseTable {
    /// `min_NG f(q, i, NG)`, or `+∞`.
    pub fn value(&self, q: u32, i: usize) -> f64 {
        self.best[q as usize * self.m + i]
    }

    /// The label of memory index `t` at (q, i): `(value, predecessor)`.
    pub fn label(&self, q: u32, i: usize, t: usize) -> (f64, u32) {
        let at = (q as usize * self.m + i) * self.masks + t;
        (self.value[at], self.pred[at])
    }

    /// The walk of label `t` at (q, i), depot excluded.
    pub fn walk(&self, inst: &Cvrp, q: u32, i: usize, t: usize) -> Vec<u32> {
        walk_with(inst, q, i, t, |q, i, t| self.label(q, i, t).1)
    }

    /// The cheapest ng-routes (closing arc added), one per (q, i) at its best memory, cheapest first,
    /// below `max_cost`, at most `k` (the same routes as [`super::NgTable::best_routes`]).
    pub fn best_routes(&self, inst: &Cvrp, arcs: &ArcCosts, k: usize, max_cost: f64) -> Vec<Route> {
        best_ends(inst, arcs, &self.best, &self.best_mask, k, max_cost)
            .into_iter()
            .map(|(cost, q, i, t)| Route { customers: self.walk(inst, q, i, t as usize), load: q, cost })
            .collect()
    }
}

/// The walk ending at label `t` of (q, i), with `pred(q, i, t)` giving each label's predecessor.
pub(crate) fn walk_with(
    inst: &Cvrp,
    q: u32,
    i: usize,
    t: usize,
    pred: impl Fn(u32, usize, usize) -> u32,
) -> Vec<u32> {
    let d = inst.demands();
    let mut out = vec![i as u32];
    let (mut q, mut i, mut t) = (q, i, t);
    loop {
        let p = pred(q, i, t);
        if p == NO_LABEL || p >> 16 == 0 {
            break;
        }
        q -= d[i];
        i = (p >> 16) as usize;
        t = (p & 0xFFFF) as usize;
        out.push(i as u32);
    }
    out.reverse();
    out
}

/// The `k` cheapest route ends `(cost, q, i, memory)` below `max_cost` from per-cell bests.
pub(crate) fn best_ends(
    inst: &Cvrp,
    arcs: &ArcCosts,
    best: &[f64],
    best_mask: &[u32],
    k: usize,
    max_cost: f64,
) -> Vec<(f64, u32, usize, u32)> {
    let m = inst.customers() + 1;
    let mut ends = Vec::new();
    for q in 1..=inst.capacity() {
        for i in 1..m {
            let at = q as usize * m + i;
            if best_mask[at] != NO_LABEL {
                let v = best[at] + arcs.get(i, 0);
                if v < max_cost {
                    ends.push((v, q, i, best_mask[at]));
                }
            }
        }
    }
    ends.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    ends.truncate(k);
    ends
}
