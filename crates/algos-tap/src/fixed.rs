//! Fixed-point all-or-nothing loading: the model the GPU computes, and its exact CPU mirror.
//!
//! - The **split search graph** gives every blocked zone that is an origin a copy holding its out-links,
//!   and leaves blocked zones themselves without out-arcs: searches never pass through a zone, and the
//!   GPU kernels need no zone test.
//! - **Costs** become u32 fixed point `max(1, round(c · 2^s))`, with `s` the largest shift that keeps
//!   every OD distance below half the saturation bound. The bound on OD distances comes from the costs
//!   alone (so every device and every cluster rank picks the same `s`): `d(o, t) ≤ d(o, h) + d(h, t)`
//!   through a hub `h`, two f64 Dijkstra searches; where the hub does not connect every origin and
//!   destination, the hop bound `(n − 1) · max c` instead. Every arc costs at least 1, so the canonical
//!   predecessor (the smallest-id tight arc) always forms a tree.
//! - **Demand** becomes u64 fixed point `round(d · 2^24)`; loads are integer sums, identical whatever
//!   the order of the additions.
//!
//! The quantisation changes path costs by at most half a unit per arc, so a tree path of `h` arcs is
//! optimal to `h / 2^s`: with OD distances spanning about 2^30 units, paths of a few hundred arcs, the
//! relative error is ~1e-7 at worst per pair and the relative gap measured on these trees goes below
//! 1e-8 (the hop bound alone gave `2^s` a thousand times smaller on city networks: gaps floored near
//! 1e-6).

use algos_sssp::cpu::queue::LazyHeap;
use algos_sssp::cpu::search::{Settle, Star, Workspace, dijkstra_search};

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
    /// Search vertex each demand origin starts from (index = demand origin index; for several demands,
    /// the union of their origins in ascending node order, see [`SplitGraph::for_demands`]).
    pub source: Vec<u32>,
    /// Network node of each entry of `source`.
    pub origin_nodes: Vec<u32>,
    /// Every vertex that is some OD pair's destination, ascending.
    pub destinations: Vec<u32>,
    /// Reverse star (arcs into each vertex) for the OD-distance bound's backward search.
    rev_offsets: Vec<u32>,
    rev_arcs: Vec<u32>,
    /// The scale of the last [`SplitGraph::quantised_with`] call: the guess its work starts from.
    last_scale: LastScale,
}

/// A scale remembered between calls (`f64` bits; 0: none yet). Only a guess: results never depend
/// on it.
#[derive(Debug, Default)]
struct LastScale(std::sync::atomic::AtomicU64);

impl Clone for LastScale {
    fn clone(&self) -> Self {
        Self(self.0.load(std::sync::atomic::Ordering::Relaxed).into())
    }
}

impl SplitGraph {
    /// Builds the search graph of `net` for `demand` (zones blocked unless `allow_zone_transit`).
    pub fn new(net: &Network, demand: &Demand, allow_zone_transit: bool) -> Self {
        Self::for_demands(net, &[demand], allow_zone_transit)
    }

    /// The search graph for several demands at once (user classes sharing one hierarchy): `source`
    /// lists the union of their origins in ascending node order (for one demand, its own origin order).
    pub fn for_demands(net: &Network, demands: &[&Demand], allow_zone_transit: bool) -> Self {
        let n = net.num_nodes();
        let blocked = |v: u32| !allow_zone_transit && !net.can_pass_through(v);
        let origins: Vec<u32> = match demands {
            [one] => one.origins().to_vec(),
            _ => {
                let mut all: Vec<u32> = demands.iter().flat_map(|d| d.origins().iter().copied()).collect();
                all.sort_unstable();
                all.dedup();
                all
            }
        };
        // Copies for blocked origins, numbered after the network's nodes.
        let mut copy_of = vec![u32::MAX; n];
        let mut copies = Vec::new();
        for &o in &origins {
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
        let source = origins.iter().map(|&o| if blocked(o) { copy_of[o as usize] } else { o }).collect();
        let mut destinations: Vec<u32> = demands
            .iter()
            .flat_map(|demand| {
                (0..demand.num_origins()).flat_map(|i| demand.from_origin(i).0.iter().copied())
            })
            .collect();
        destinations.sort_unstable();
        destinations.dedup();
        let total = offsets.len() - 1;
        let mut rev_offsets = vec![0u32; total + 1];
        for &h in &heads {
            rev_offsets[h as usize + 1] += 1;
        }
        for v in 0..total {
            rev_offsets[v + 1] += rev_offsets[v];
        }
        let mut fill = rev_offsets.clone();
        let mut rev_arcs = vec![0u32; heads.len()];
        for (a, &h) in heads.iter().enumerate() {
            rev_arcs[fill[h as usize] as usize] = a as u32;
            fill[h as usize] += 1;
        }
        Self {
            offsets,
            heads,
            tails,
            link,
            source,
            origin_nodes: origins,
            destinations,
            rev_offsets,
            rev_arcs,
            last_scale: LastScale::default(),
        }
    }

    /// The customisable contraction hierarchy of this graph's shape (what both PHAST loaders customise),
    /// through the hierarchy cache ([`Cch::build_cached`](algos_sssp::cch::Cch::build_cached)): the
    /// nested-dissection order is computed on a shape's first run and read on later ones.
    pub fn hierarchy(&self) -> Result<algos_sssp::cch::Cch, TapError> {
        let shape = graph_core::Csr::from_parts(
            self.offsets.clone(),
            self.heads.clone(),
            vec![1u32; self.num_arcs()],
        )
        .map_err(|e| TapError::InvalidOption(format!("search graph: {e}")))?;
        Ok(algos_sssp::cch::Cch::build_cached(&shape)?.0)
    }

    /// Number of search vertices.
    pub fn num_vertices(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Number of arcs.
    pub fn num_arcs(&self) -> usize {
        self.heads.len()
    }

    /// Per-arc fixed-point costs of the link costs `costs`, and the scale used (`2^s`): the largest
    /// power of two keeping every OD distance below half the saturation bound (module docs). An
    /// infinite cost (a link a user class may not take) is left out of the scale and clamped like every
    /// arc dearer than all OD distances: a path through it saturates, so it carries no load.
    pub fn quantise(&self, costs: &[f64]) -> (Vec<u32>, f64) {
        let scale = self.scale(costs);
        (self.quantise_at(costs, scale), scale)
    }

    /// `work(&quantise(costs).0)`: the work (a customisation) starts at the last call's scale, beside
    /// the scale's two searches, and is redone only when the scale changed (between assignment
    /// iterations it rarely does). The same result as running them one after the other, ~2 ms sooner
    /// on a city network.
    pub fn quantised_with<R: Send>(&self, costs: &[f64], work: impl Fn(&[u32]) -> R + Sync) -> R {
        use std::sync::atomic::Ordering::Relaxed;
        let guess = f64::from_bits(self.last_scale.0.load(Relaxed));
        let (scale, speculated) = if guess > 0.0 {
            let (scale, speculated) =
                rayon::join(|| self.scale(costs), || work(&self.quantise_at(costs, guess)));
            (scale, Some(speculated))
        } else {
            (self.scale(costs), None)
        };
        self.last_scale.0.store(scale.to_bits(), Relaxed);
        match speculated {
            Some(out) if scale == guess => out,
            _ => work(&self.quantise_at(costs, scale)),
        }
    }

    /// The fixed-point scale `2^s` of [`SplitGraph::quantise`].
    fn scale(&self, costs: &[f64]) -> f64 {
        let max =
            self.link.iter().map(|&a| costs[a as usize]).filter(|c| c.is_finite()).fold(0.0f64, f64::max);
        let hops = self.num_vertices().max(2) as f64 - 1.0;
        // The hop bound: (max · 2^s + 1) · hops below the saturation bound.
        let safe = (SATURATED as f64 / hops - 1.0) / max.max(f64::MIN_POSITIVE);
        // Through a hub: OD distances (real units) at most `bound`, quantised at most `bound · 2^s`
        // plus one unit per arc (rounding and the minimum of 1): half the range leaves room for that.
        let room = match self.od_distance_bound(costs) {
            Some(bound) if bound > 0.0 => (SATURATED as f64 / 2.0 / bound).max(safe),
            _ => safe,
        };
        2f64.powi(room.log2().floor().clamp(-1000.0, 1000.0) as i32)
    }

    /// Per-arc fixed-point costs at `scale`.
    fn quantise_at(&self, costs: &[f64], scale: f64) -> Vec<u32> {
        // An arc dearer than every OD distance is on no OD shortest path: clamping it keeps it there.
        self.link
            .iter()
            .map(|&a| ((costs[a as usize] * scale).round().min((SATURATED - 1) as f64) as u32).max(1))
            .collect()
    }

    /// `max_o d(o, h) + max_t d(h, t)` over origins `o` and destinations `t`, through the hub `h` (the
    /// vertex of most out-arcs), when `h` connects them all.
    fn od_distance_bound(&self, costs: &[f64]) -> Option<f64> {
        let n = self.num_vertices();
        let hub = (0..n).max_by_key(|&v| (self.offsets[v + 1] - self.offsets[v], std::cmp::Reverse(v)))?;
        let cost: Vec<f64> = self.link.iter().map(|&l| costs[l as usize]).collect();
        let (forward, backward) = rayon::join(
            || dijkstra_f64(n, hub, &self.offsets, &self.heads, None, &cost),
            || dijkstra_f64(n, hub, &self.rev_offsets, &self.tails, Some(&self.rev_arcs), &cost),
        );
        let to_hub = self.source.iter().map(|&o| backward[o as usize]).fold(0.0f64, f64::max);
        let from_hub = self.destinations.iter().map(|&t| forward[t as usize]).fold(0.0f64, f64::max);
        (to_hub + from_hub).is_finite().then_some(to_hub + from_hub)
    }
}

/// f64 Dijkstra from `source` over a star (`offsets`, and per arc position the other end in `ends`;
/// `arc_of` maps positions to arc ids for a reverse star). Unreached vertices stay infinite.
fn dijkstra_f64(
    n: usize,
    source: usize,
    offsets: &[u32],
    ends: &[u32],
    arc_of: Option<&[u32]>,
    cost: &[f64],
) -> Vec<f64> {
    let mut dist = vec![f64::INFINITY; n];
    let star = Star { offsets, ends, arc_of, weights: cost };
    let mut ws = Workspace::new(LazyHeap::with_capacity(1024));
    dijkstra_search(&star, source as u32, &mut dist, &mut ws, |_, _| Settle::Expand);
    dist
}

/// OD amounts in fixed point: `(lo, hi)` words of `round(d · 2^24)`.
pub fn fixed_amount(flow: f64) -> (u32, u32) {
    let units = (flow * DEMAND_SCALE).round() as u64;
    (units as u32, (units >> 32) as u32)
}

/// The CPU mirror of the GPU loading: for each origin, u32 Dijkstra over the split graph with weights
/// `weights`, canonical predecessors (smallest-id tight arc), and fixed-point loads per arc.
pub fn tap_aon_mirror(
    net: &Network,
    g: &SplitGraph,
    weights: &[u32],
    demand: &Demand,
) -> Result<Vec<u64>, TapError> {
    let n = g.num_vertices();
    let mut dist = vec![u32::MAX; n];
    let (mut pred, mut loads, mut missed) =
        (vec![u32::MAX; n], vec![0u64; g.num_arcs()], Unloaded::default());
    // Sums saturate at SATURATED like the kernel's, which `load_canonical_tree` reports.
    let star = Star { offsets: &g.offsets, ends: &g.heads, arc_of: None, weights };
    let mut ws = Workspace::new(LazyHeap::with_capacity(1024));
    for (i, &source) in g.source.iter().enumerate() {
        ws.reset(&mut dist);
        dijkstra_search(&star, source, &mut dist, &mut ws, |_, _| Settle::Expand);
        load_canonical_tree(g, (weights, demand), (i, &dist), &mut pred, &mut loads, &mut missed);
    }
    missed.into_result(net, demand)?;
    Ok(loads)
}

/// OD amount in fixed-point units (`round(d · 2^24)`).
pub fn fixed_units(flow: f64) -> u64 {
    let (lo, hi) = fixed_amount(flow);
    ((hi as u64) << 32) | lo as u64
}

/// OD pairs a loading could not route: unreachable ones, and ones whose distance saturated u32.
#[derive(Debug, Clone, Default)]
pub struct Unloaded {
    pairs: usize,
    flow: f64,
    saturated: usize,
    /// The first unreachable pair by (origin position, destination).
    first: Option<(usize, u32)>,
}

impl Unloaded {
    /// True when OD pair (origin position `i`, destination `d`, `flow`) can be loaded: its
    /// fixed-point distance `label` is neither unreachable nor saturated (else it is counted).
    pub fn check(&mut self, i: usize, d: u32, flow: f64, label: u32) -> bool {
        match label {
            u32::MAX => {
                self.pairs += 1;
                self.flow += flow;
                self.first = Some(self.first.map_or((i, d), |x| x.min((i, d))));
                false
            }
            SATURATED => {
                self.saturated += 1;
                false
            }
            _ => true,
        }
    }

    /// Both tallies together (loadings of several threads).
    pub fn merge(mut self, other: Self) -> Self {
        self.pairs += other.pairs;
        self.flow += other.flow;
        self.saturated += other.saturated;
        self.first = match (self.first, other.first) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self
    }

    /// The loading's error, if any pair was not loaded.
    pub fn into_result(self, net: &Network, demand: &Demand) -> Result<(), TapError> {
        if self.saturated > 0 {
            return Err(TapError::FixedPointSaturated { pairs: self.saturated as u64 });
        }
        match self.first {
            Some((i, d)) => Err(TapError::DemandUnreachable {
                pairs: self.pairs,
                flow: self.flow,
                origin: net.node_id(demand.origins()[i]),
                destination: net.node_id(d),
            }),
            None => Ok(()),
        }
    }
}

/// Loads origin `i`'s OD pairs along the canonical tree of its distance row `dist` (u32 fixed point,
/// `u32::MAX` unreached): the tree the GPU's `pred_tight` and `load` kernels walk. `pred` is scratch.
fn load_canonical_tree(
    g: &SplitGraph,
    (weights, demand): (&[u32], &Demand),
    (i, dist): (usize, &[u32]),
    pred: &mut [u32],
    loads: &mut [u64],
    missed: &mut Unloaded,
) {
    let source = g.source[i];
    pred.fill(u32::MAX);
    // Canonical predecessors: the smallest tight arc into each vertex.
    for u in 0..g.num_vertices() {
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
        if !missed.check(i, d, f, dist[d as usize]) {
            continue;
        }
        let amount = fixed_units(f);
        let mut v = d as usize;
        while pred[v] != u32::MAX {
            let a = pred[v] as usize;
            loads[a] += amount;
            v = g.tails[a] as usize;
        }
    }
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
