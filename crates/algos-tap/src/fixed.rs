//! Fixed-point all-or-nothing loading: the model the GPU computes, and its exact CPU mirror.
//!
//! - The **split search graph** gives every blocked zone that is an origin a copy holding its out-links,
//!   and leaves blocked zones themselves without out-arcs: searches never pass through a zone, and the
//!   GPU kernels need no zone test.
//! - **Costs** become u32 fixed point `max(1, round(c · 2^s))`, with `s` the largest shift that keeps
//!   every simple path below the saturation bound. Every arc costs at least 1, so the canonical
//!   predecessor (the smallest-id tight arc) always forms a tree.
//! - **Demand** becomes u64 fixed point `round(d · 2^24)`; loads are integer sums, identical whatever
//!   the order of the additions.
//!
//! The quantisation changes path costs by at most half a unit per arc, so the trees are optimal to about
//! `n · 2^-s` and the gap measured on them floors near 1e-6 … 1e-7 (finish on the f64 CPU path below).

use crate::demand::Demand;
use crate::error::TapError;
use crate::network::Network;

/// Fixed-point scale of demand: 2^24 units per vehicle (rounding moves SPTT by ~1e-9 relative).
pub const DEMAND_SCALE: f64 = 16_777_216.0;
/// Saturation bound of u32 distances (as in algos-sssp).
const SATURATED: u32 = u32::MAX - 1;

/// The network's forward star with zones split, plus OD pairs in search-graph vertices.
#[derive(Debug, Clone)]
pub struct SplitGraph {
    /// CSR offsets over search vertices (network nodes, then zone copies).
    pub offsets: Vec<u32>,
    /// Head vertex per arc.
    pub heads: Vec<u32>,
    /// Tail vertex per arc.
    pub tails: Vec<u32>,
    /// Network link per arc.
    pub link: Vec<u32>,
    /// Search vertex each demand origin starts from (index = demand origin index).
    pub source: Vec<u32>,
}

impl SplitGraph {
    /// Builds the search graph of `net` for `demand` (zones blocked unless `allow_zone_transit`).
    pub fn new(net: &Network, demand: &Demand, allow_zone_transit: bool) -> Self {
        let n = net.num_nodes();
        let blocked = |v: u32| !allow_zone_transit && !net.can_pass_through(v);
        // Copies for blocked origins, numbered after the network's nodes.
        let mut copy_of = vec![u32::MAX; n];
        let mut copies = Vec::new();
        for &o in demand.origins() {
            if blocked(o) {
                copy_of[o as usize] = (n + copies.len()) as u32;
                copies.push(o);
            }
        }
        let total = n + copies.len();
        let mut offsets = Vec::with_capacity(total + 1);
        let (mut heads, mut tails, mut link) = (Vec::new(), Vec::new(), Vec::new());
        offsets.push(0);
        let mut push_arcs = |vertex: u32, node: u32, heads: &mut Vec<u32>, tails: &mut Vec<u32>| {
            for &a in net.out_links(node) {
                heads.push(net.links()[a as usize].to);
                tails.push(vertex);
                link.push(a);
            }
        };
        for v in 0..n as u32 {
            if !blocked(v) {
                push_arcs(v, v, &mut heads, &mut tails);
            }
            offsets.push(heads.len() as u32);
        }
        for (i, &o) in copies.iter().enumerate() {
            push_arcs((n + i) as u32, o, &mut heads, &mut tails);
            offsets.push(heads.len() as u32);
        }
        let source =
            demand.origins().iter().map(|&o| if blocked(o) { copy_of[o as usize] } else { o }).collect();
        Self { offsets, heads, tails, link, source }
    }

    /// Number of search vertices.
    pub fn num_vertices(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Number of arcs.
    pub fn num_arcs(&self) -> usize {
        self.heads.len()
    }

    /// Per-arc fixed-point costs of the link costs `costs`, and the scale used (`2^s`).
    pub fn quantise(&self, costs: &[f64]) -> (Vec<u32>, f64) {
        let max = self.link.iter().map(|&a| costs[a as usize]).fold(0.0f64, f64::max);
        let hops = self.num_vertices().max(2) as f64 - 1.0;
        // (max · 2^s + 1) · hops must stay below the saturation bound.
        let room = (SATURATED as f64 / hops - 1.0) / max.max(f64::MIN_POSITIVE);
        let scale = 2f64.powi(room.log2().floor().clamp(-1000.0, 1000.0) as i32);
        let q = self.link.iter().map(|&a| ((costs[a as usize] * scale).round() as u32).max(1)).collect();
        (q, scale)
    }
}

/// OD amounts in fixed point: `(lo, hi)` words of `round(d · 2^24)`.
pub fn fixed_amount(flow: f64) -> (u32, u32) {
    let units = (flow * DEMAND_SCALE).round() as u64;
    (units as u32, (units >> 32) as u32)
}

/// The CPU mirror of the GPU loading: for each origin, u32 Dijkstra over the split graph with weights
/// `weights`, canonical predecessors (smallest-id tight arc), and fixed-point loads per arc.
pub fn mirror_loads(
    net: &Network,
    g: &SplitGraph,
    weights: &[u32],
    demand: &Demand,
) -> Result<Vec<u64>, TapError> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let n = g.num_vertices();
    let mut loads = vec![0u64; g.num_arcs()];
    let mut dist = vec![u32::MAX; n];
    let mut pred = vec![u32::MAX; n];
    let mut unreachable = (0usize, 0.0f64, None);
    for (i, &source) in g.source.iter().enumerate() {
        dist.fill(u32::MAX);
        pred.fill(u32::MAX);
        dist[source as usize] = 0;
        let mut heap = BinaryHeap::new();
        heap.push(Reverse((0u32, source)));
        while let Some(Reverse((d, u))) = heap.pop() {
            if d > dist[u as usize] {
                continue;
            }
            let arcs = g.offsets[u as usize] as usize..g.offsets[u as usize + 1] as usize;
            for (&v, &w) in g.heads[arcs.clone()].iter().zip(&weights[arcs]) {
                let v = v as usize;
                let nd = d.saturating_add(w).min(SATURATED);
                if nd < dist[v] {
                    dist[v] = nd;
                    heap.push(Reverse((nd, v as u32)));
                }
            }
        }
        // Canonical predecessors: the smallest tight arc into each vertex.
        for u in 0..n {
            if dist[u] == u32::MAX {
                continue;
            }
            let arcs = g.offsets[u] as usize..g.offsets[u + 1] as usize;
            for ((a, &v), &w) in arcs.clone().zip(&g.heads[arcs.clone()]).zip(&weights[arcs]) {
                let v = v as usize;
                if v as u32 != source && dist[u].saturating_add(w).min(SATURATED) == dist[v] {
                    pred[v] = pred[v].min(a as u32);
                }
            }
        }
        let (dests, flows) = demand.from_origin(i);
        for (&d, &f) in dests.iter().zip(flows) {
            if dist[d as usize] == u32::MAX {
                unreachable.0 += 1;
                unreachable.1 += f;
                unreachable.2.get_or_insert((demand.origins()[i], d));
                continue;
            }
            let (lo, hi) = fixed_amount(f);
            let amount = ((hi as u64) << 32) | lo as u64;
            let mut v = d as usize;
            while pred[v] != u32::MAX {
                let a = pred[v] as usize;
                loads[a] += amount;
                v = g.tails[a] as usize;
            }
        }
    }
    if let (pairs, flow, Some((o, d))) = unreachable {
        return Err(TapError::DemandUnreachable {
            pairs,
            flow,
            origin: net.node_id(o),
            destination: net.node_id(d),
        });
    }
    Ok(loads)
}

/// Link flows from per-arc fixed-point loads.
pub fn link_flows(g: &SplitGraph, loads: &[u64], num_links: usize) -> Vec<f64> {
    let mut y = vec![0u64; num_links];
    for (a, &l) in loads.iter().enumerate() {
        y[g.link[a] as usize] += l;
    }
    y.into_iter().map(|u| u as f64 / DEMAND_SCALE).collect()
}

/// The demand pairs without a path in the search graph, as an error (`None` when every pair has one).
pub fn unreachable_pairs(net: &Network, g: &SplitGraph, demand: &Demand) -> Option<TapError> {
    let mut seen = vec![u32::MAX; g.num_vertices()];
    let mut stack = Vec::new();
    let (mut pairs, mut flow, mut first) = (0usize, 0.0f64, None);
    for (i, &source) in g.source.iter().enumerate() {
        let mark = i as u32;
        seen[source as usize] = mark;
        stack.push(source);
        while let Some(u) = stack.pop() {
            for &v in &g.heads[g.offsets[u as usize] as usize..g.offsets[u as usize + 1] as usize] {
                if seen[v as usize] != mark {
                    seen[v as usize] = mark;
                    stack.push(v);
                }
            }
        }
        let (dests, flows) = demand.from_origin(i);
        for (&d, &f) in dests.iter().zip(flows) {
            if seen[d as usize] != mark {
                pairs += 1;
                flow += f;
                first.get_or_insert((demand.origins()[i], d));
            }
        }
    }
    first.map(|(o, d)| TapError::DemandUnreachable {
        pairs,
        flow,
        origin: net.node_id(o),
        destination: net.node_id(d),
    })
}
