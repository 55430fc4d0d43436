//! Algorithm B (Dial 2006): origin-based assignment on bushes, to relative gaps of 1e-10 and below.
//!
//! Every origin keeps a *bush*: an acyclic set of links rooted at it carrying that origin's flow. One
//! iteration:
//! - **updates every bush's links**, all bushes in parallel against the iteration's starting costs (each
//!   update reads only its own bush and those costs, so results do not depend on the thread count):
//!   drop unused links that are not on the bush's shortest-path tree, add links that shorten a path
//!   (`L_i + c_ij < L_j`) and keep the bush acyclic (`U_i < U_j`, `U` the longest path labels over all
//!   bush links: a strict potential for the added links);
//! - **shifts flow**, bush after bush in origin order (Gauss–Seidel: each sees the costs the previous
//!   ones left): in reverse topological order, at every node whose longest *used* path and shortest
//!   path arrive by different links, find where the two paths diverge and move
//!   `Δ = (C_long − C_short) / (D_long + D_short)` (a Newton step on the two segments, capped by the
//!   smallest bush flow on the long one), updating the moved links' costs exactly; a few passes per
//!   bush, then a few sweeps over all bushes.
//!
//! Updating the links of all bushes at once (Jacobi) rather than each just before its shifts was
//! measured better as well as parallel: Chicago-Sketch with doubled demand needs 146 iterations to 1e-12
//! instead of 218.
//!
//! Each iteration's gap is measured exactly (one shortest-path tree per origin over the whole network)
//! on the other threads while the next iteration runs.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::aon::{SearchGraph, Workspace, arcs_at, search};
use crate::demand::Demand;
use crate::error::TapError;
use crate::network::Network;

#[cfg(feature = "gpu")]
mod gpu_passes;
mod proportions;
#[cfg(feature = "gpu")]
pub(crate) use gpu_passes::GpuBushes;

/// Flows below this (vehicles) count as unused.
const FLOW_EPS: f64 = 1e-12;
const NONE: u32 = u32::MAX;

/// One origin's bush, stored compactly: its nodes in topological order and, per node, the bush links
/// entering it (in internal link id order) with their tails' positions and this origin's flows. The node
/// set never changes: every node of the initial shortest-path tree stays reachable through the links on
/// the bush's shortest paths, which are never dropped. Memory is O(bush links), not O(network links).
pub(crate) struct Bush {
    root: u32,
    /// Its class ([`BushSolver::classes`]): what its links cost and how much a vehicle weighs.
    class: u32,
    /// The bush's nodes in topological order, the root first.
    nodes: Vec<u32>,
    /// The links entering `nodes[p]` are entries `first[p]..first[p + 1]` of the arrays below.
    first: Vec<u32>,
    /// Internal link id of each bush link.
    link: Vec<u32>,
    /// Position (in `nodes`) of each bush link's tail.
    tail_pos: Vec<u32>,
    /// This origin's flow on each bush link.
    flow: Vec<f64>,
}

/// The network with links renumbered in reverse-star order: the links entering a node have
/// consecutive internal ids, so a node's label reads its in-links' arrays sequentially. Bushes and link
/// state use internal ids; `original` maps them back.
pub(crate) struct Topology {
    out_offsets: Vec<u32>,
    out_links: Vec<u32>,
    in_offsets: Vec<u32>,
    tail: Vec<u32>,
    head: Vec<u32>,
    /// Original link id of each internal id.
    original: Vec<u32>,
    /// Internal id of each original link id.
    internal: Vec<u32>,
}

impl Topology {
    pub(crate) fn new(net: &Network) -> Self {
        let n = net.num_nodes();
        let mut in_offsets = vec![0u32; n + 1];
        for l in net.links() {
            in_offsets[l.to as usize + 1] += 1;
        }
        for v in 0..n {
            in_offsets[v + 1] += in_offsets[v];
        }
        let mut next = in_offsets.clone();
        let mut original = vec![0u32; net.num_links()];
        let mut internal = vec![0u32; net.num_links()];
        for (a, l) in net.links().iter().enumerate() {
            let k = next[l.to as usize];
            original[k as usize] = a as u32;
            internal[a] = k;
            next[l.to as usize] += 1;
        }
        let links = net.links();
        Self {
            out_offsets: net.out_offsets().to_vec(),
            out_links: net.out_link_ids().iter().map(|&a| internal[a as usize]).collect(),
            in_offsets,
            tail: original.iter().map(|&a| links[a as usize].from).collect(),
            head: original.iter().map(|&a| links[a as usize].to).collect(),
            original,
            internal,
        }
    }

    fn out(&self, v: u32) -> &[u32] {
        &self.out_links[self.out_offsets[v as usize] as usize..self.out_offsets[v as usize + 1] as usize]
    }

    /// Internal ids of the links entering `v`.
    fn into(&self, v: u32) -> std::ops::Range<usize> {
        self.in_offsets[v as usize] as usize..self.in_offsets[v as usize + 1] as usize
    }

    /// Network-order values in the internal link order.
    pub(crate) fn to_internal_order(&self, values: &[f64]) -> Vec<f64> {
        self.original.iter().map(|&a| values[a as usize]).collect()
    }

    /// Internal-order values back in the network's link order.
    pub(crate) fn to_network_order(&self, values: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; values.len()];
        for (k, &a) in self.original.iter().enumerate() {
            out[a as usize] = values[k];
        }
        out
    }
}

/// A node's labels in a bush: shortest path, longest path over all bush links, longest used path.
#[derive(Debug, Clone, Copy)]
struct Labels {
    shortest: f64,
    longest_all: f64,
    longest_used: f64,
}

impl Labels {
    const UNSET: Self =
        Self { shortest: f64::INFINITY, longest_all: f64::NEG_INFINITY, longest_used: f64::NEG_INFINITY };
}

/// Per-solve scratch space shared by the bushes (they are processed one at a time).
pub(crate) struct Scratch {
    /// Labels per bush position, packed so a tail's three labels share one cache line.
    labels: Vec<Labels>,
    /// Per bush position: the bush-link entry on the shortest path, and on the longest used path.
    sp_pred: Vec<u32>,
    lp_pred: Vec<u32>,
    /// Per network node: its position in the bush being updated (`NONE` outside it).
    pos: Vec<u32>,
    /// Per network node: bush links entering it not yet ordered (topological sort).
    indeg: Vec<u32>,
    /// Per internal link: in the bush being sorted.
    mark: Vec<bool>,
    order: Vec<u32>,
    /// Per new position in a sort: the node's old position.
    old_pos: Vec<u32>,
    /// The bush's link arrays being rebuilt (swapped in).
    first: Vec<u32>,
    link: Vec<u32>,
    tail_pos: Vec<u32>,
    flow: Vec<f64>,
}

impl Scratch {
    /// Empties the rebuild arrays, the root's (empty) in-link range started.
    fn begin_rebuild(&mut self) {
        self.first.clear();
        self.link.clear();
        self.tail_pos.clear();
        self.flow.clear();
        self.first.push(0);
    }

    pub(crate) fn new(n: usize, m: usize) -> Self {
        Self {
            labels: vec![Labels::UNSET; n],
            sp_pred: vec![NONE; n],
            lp_pred: vec![NONE; n],
            pos: vec![NONE; n],
            indeg: vec![0; n],
            mark: vec![false; m],
            order: Vec::with_capacity(n),
            old_pos: Vec::with_capacity(n),
            first: Vec::with_capacity(n + 1),
            link: Vec::new(),
            tail_pos: Vec::new(),
            flow: Vec::new(),
        }
    }
}

/// Link costs and derivatives at the current total flows, kept up to date as flow moves.
/// Indexed by internal link id.
pub(crate) struct LinkState {
    pub(crate) x: Vec<f64>,
    pub(crate) cost: Vec<f64>,
    pub(crate) deriv: Vec<f64>,
    original: Vec<u32>,
}

impl LinkState {
    pub(crate) fn new(net: &Network, topo: &Topology, x: Vec<f64>) -> Self {
        let m = x.len();
        let mut s = Self { cost: vec![0.0; m], deriv: vec![0.0; m], x, original: topo.original.clone() };
        for a in 0..m {
            s.refresh(net, a);
        }
        s
    }

    #[inline]
    fn refresh(&mut self, net: &Network, a: usize) {
        let vdf = net.vdf();
        let link = self.original[a] as usize;
        self.cost[a] = vdf.time(link, self.x[a]) + net.fixed_costs()[link];
        self.deriv[a] = vdf.derivative(link, self.x[a]);
    }
}

/// One class of travellers as its bushes see it (several user classes: [`crate::multiclass`]): a class
/// routes on the network's cost plus its own extra cost per link, and each of its vehicles adds `pce` to
/// the links' flows. Bush flows are in vehicles of their class; [`LinkState::x`] is in PCE units.
pub(crate) struct BushClass {
    /// Its name, for errors.
    name: String,
    /// Passenger-car equivalent of one vehicle.
    pub(crate) pce: f64,
    /// Extra cost per internal link (the class's fixed costs; `f64::INFINITY` on a link it may not use);
    /// empty for none. Kept apart from the shared [`LinkState::cost`] so that a flow shift updates one
    /// cost per link for all classes.
    extra: Vec<f64>,
}

impl BushClass {
    /// Vehicles of weight 1 that pay the network's costs only (one-class assignment).
    pub(crate) fn plain() -> Self {
        Self { name: "all".into(), pce: 1.0, extra: Vec::new() }
    }

    /// A class with this PCE and extra cost per link in the network's order (empty for none).
    pub(crate) fn new(topo: &Topology, name: &str, pce: f64, extra: &[f64]) -> Self {
        let extra = if extra.iter().all(|&c| c == 0.0) { Vec::new() } else { topo.to_internal_order(extra) };
        Self { name: name.into(), pce, extra }
    }

    /// `Σ_a extra_a v_a` over this class's vehicle flows `v` (internal order, zero where unused).
    fn extra_cost(&self, bush: &Bush) -> f64 {
        if self.extra.is_empty() {
            return 0.0;
        }
        bush.link
            .iter()
            .zip(&bush.flow)
            .filter(|(_, f)| **f > 0.0)
            .map(|(&a, f)| self.extra[a as usize] * f)
            .sum()
    }
}

impl Bush {
    /// A bush holding the shortest-path tree of `root` at the current costs, with the origin's demand
    /// loaded on it. `pred` (network link ids) and `settle_order` (the root first) come from a Dijkstra
    /// over the network.
    pub(crate) fn from_tree(
        net: &Network,
        topo: &Topology,
        (class, index): (u32, usize),
        root: u32,
        pred: &[u32],
        settle_order: &[u32],
        demand: &Demand,
    ) -> Self {
        debug_assert_eq!(settle_order.first(), Some(&root));
        let k = settle_order.len();
        let mut pos = vec![NONE; net.num_nodes()];
        for (p, &v) in settle_order.iter().enumerate() {
            pos[v as usize] = p as u32;
        }
        let mut bush = Self {
            root,
            class,
            nodes: settle_order.to_vec(),
            first: (0..=k as u32).map(|p| p.saturating_sub(1)).collect(),
            link: Vec::with_capacity(k - 1),
            tail_pos: Vec::with_capacity(k - 1),
            flow: vec![0.0; k - 1],
        };
        for &v in &settle_order[1..] {
            let a = topo.internal[pred[v as usize] as usize];
            bush.link.push(a);
            bush.tail_pos.push(pos[topo.tail[a as usize] as usize]);
        }
        // Demand per position, pushed back towards the root along the tree.
        let mut node_flow = vec![0.0; k];
        let (dests, flows) = demand.from_origin(index);
        for (&d, &f) in dests.iter().zip(flows) {
            node_flow[pos[d as usize] as usize] += f;
        }
        for p in (1..k).rev() {
            let f = node_flow[p];
            if f != 0.0 {
                bush.flow[p - 1] += f;
                node_flow[bush.tail_pos[p - 1] as usize] += f;
            }
        }
        bush
    }

    /// Swaps in the link arrays rebuilt in `s` (the old ones become scratch).
    fn take_rebuilt(&mut self, s: &mut Scratch) {
        std::mem::swap(&mut self.first, &mut s.first);
        std::mem::swap(&mut self.link, &mut s.link);
        std::mem::swap(&mut self.tail_pos, &mut s.tail_pos);
        std::mem::swap(&mut self.flow, &mut s.flow);
    }

    /// Adds this bush's flow per internal link, times `weight` (the class's PCE, or 1 for vehicles), to
    /// `x`.
    pub(crate) fn add_flows(&self, weight: f64, x: &mut [f64]) {
        for (&a, &f) in self.link.iter().zip(&self.flow) {
            x[a as usize] += weight * f;
        }
    }

    /// The bush-link entries entering the node at position `p`.
    #[inline]
    fn entering(&self, p: usize) -> std::ops::Range<usize> {
        self.first[p] as usize..self.first[p + 1] as usize
    }

    /// Shortest and longest (all links, used links) labels per position, in topological order, at its
    /// class's costs.
    fn label(&self, state: &LinkState, class: &BushClass, s: &mut Scratch) {
        // Two copies of the loop: the one-class case keeps its single load per link.
        if class.extra.is_empty() {
            self.label_at(|a| state.cost[a], s);
        } else {
            self.label_at(|a| state.cost[a] + class.extra[a], s);
        }
    }

    #[inline(always)]
    fn label_at(&self, cost: impl Fn(usize) -> f64, s: &mut Scratch) {
        s.labels[0] = Labels { shortest: 0.0, longest_all: 0.0, longest_used: 0.0 };
        s.sp_pred[0] = NONE;
        s.lp_pred[0] = NONE;
        for p in 1..self.nodes.len() {
            let (mut sp, mut spe, mut la, mut lu, mut lpe) =
                (f64::INFINITY, NONE, f64::NEG_INFINITY, f64::NEG_INFINITY, NONE);
            for e in self.entering(p) {
                let tl = s.labels[self.tail_pos[e] as usize];
                let c = cost(self.link[e] as usize);
                let d = tl.shortest + c;
                if d < sp {
                    sp = d;
                    spe = e as u32;
                }
                la = la.max(tl.longest_all + c);
                if self.flow[e] > FLOW_EPS && tl.longest_used + c > lu {
                    lu = tl.longest_used + c;
                    lpe = e as u32;
                }
            }
            s.labels[p] = Labels { shortest: sp, longest_all: la, longest_used: lu };
            s.sp_pred[p] = spe;
            s.lp_pred[p] = lpe;
        }
    }

    /// Drops unused links off the shortest tree and adds shortcuts that keep the bush acyclic.
    /// Returns the number of links added.
    fn update(
        &mut self,
        net: &Network,
        topo: &Topology,
        state: &LinkState,
        class: &BushClass,
        s: &mut Scratch,
    ) -> usize {
        self.label(state, class, s);
        for (p, &v) in self.nodes.iter().enumerate() {
            s.pos[v as usize] = p as u32;
        }
        s.begin_rebuild();
        s.first.push(0);
        let mut added = 0;
        for p in 1..self.nodes.len() {
            let lv = s.labels[p];
            let mut existing = self.entering(p).peekable();
            // The node's network in-links and its bush links are both in internal id order: merge them.
            for a in topo.into(self.nodes[p]) {
                if let Some(&e) = existing.peek().filter(|&&e| self.link[e] as usize == a) {
                    existing.next();
                    if self.flow[e] > FLOW_EPS || s.sp_pred[p] == e as u32 {
                        s.link.push(a as u32);
                        s.tail_pos.push(self.tail_pos[e]);
                        s.flow.push(self.flow[e]);
                        continue;
                    }
                    // Dropped: it may still come back below as a shortcut, without flow.
                }
                let i = topo.tail[a];
                let pi = s.pos[i as usize];
                if pi == NONE || (i != self.root && !net.through()[i as usize]) {
                    continue;
                }
                let li = s.labels[pi as usize];
                let cost = state.cost[a] + class.extra.get(a).copied().unwrap_or(0.0);
                let improves = li.shortest + cost < lv.shortest * (1.0 - 1e-14);
                if improves && li.longest_all < lv.longest_all {
                    s.link.push(a as u32);
                    s.tail_pos.push(pi);
                    s.flow.push(0.0);
                    added += 1;
                }
            }
            s.first.push(s.link.len() as u32);
        }
        self.take_rebuilt(s);
        // Re-sorted even when every added link points forward in the current order: keeping that order
        // instead was measured slower (Chicago-Sketch 42 iterations to 1e-12 instead of 27).
        if added > 0 {
            self.sort(topo, s);
        }
        for &v in &self.nodes {
            s.pos[v as usize] = NONE;
        }
        added
    }

    /// Recomputes the topological order (Kahn, scanning forward stars) after links were added, and
    /// lays the link arrays out in the new order. Expects `s.pos` to hold the current positions.
    fn sort(&mut self, topo: &Topology, s: &mut Scratch) {
        for (p, &v) in self.nodes.iter().enumerate() {
            let range = self.entering(p);
            s.indeg[v as usize] = range.len() as u32;
            for e in range {
                s.mark[self.link[e] as usize] = true;
            }
        }
        s.order.clear();
        s.order.push(self.root);
        let mut i = 0;
        while i < s.order.len() {
            let u = s.order[i];
            i += 1;
            for &a in topo.out(u) {
                if s.mark[a as usize] {
                    let v = topo.head[a as usize] as usize;
                    s.indeg[v] -= 1;
                    if s.indeg[v] == 0 {
                        s.order.push(v as u32);
                    }
                }
            }
        }
        debug_assert_eq!(s.order.len(), self.nodes.len(), "bush of {} is not acyclic", self.root);
        for &a in &self.link {
            s.mark[a as usize] = false;
        }
        // Old position of each new position's node, then the new positions.
        s.old_pos.clear();
        s.old_pos.extend(s.order.iter().map(|&v| s.pos[v as usize]));
        for (p, &v) in s.order.iter().enumerate() {
            s.pos[v as usize] = p as u32;
        }
        s.begin_rebuild();
        for &op in &s.old_pos {
            for e in self.entering(op as usize) {
                s.link.push(self.link[e]);
                s.tail_pos.push(s.pos[topo.tail[self.link[e] as usize] as usize]);
                s.flow.push(self.flow[e]);
            }
            s.first.push(s.link.len() as u32);
        }
        self.take_rebuilt(s);
        std::mem::swap(&mut self.nodes, &mut s.order);
    }

    /// One pass of Newton flow shifts from longest used to shortest paths. Returns the largest cost
    /// difference met (a convergence hint).
    ///
    /// With a class, the costs compared are the class's (the shared cost plus its extra, which moving
    /// flow does not change), the derivatives are `pce` times the shared ones (a vehicle moved changes
    /// the links' PCE flow by `pce`), and the step is in vehicles.
    pub(crate) fn shift(
        &mut self,
        net: &Network,
        state: &mut LinkState,
        class: &BushClass,
        s: &mut Scratch,
    ) -> f64 {
        self.label(state, class, s);
        let extra = |l: usize| class.extra.get(l).copied().unwrap_or(0.0);
        let pce = class.pce;
        let mut worst: f64 = 0.0;
        for j in (1..self.nodes.len()).rev() {
            let (spe, lpe) = (s.sp_pred[j], s.lp_pred[j]);
            if lpe == NONE || spe == lpe {
                continue;
            }
            // Walk both paths back to where they diverge, the later position first.
            let (mut a, mut b) = (self.tail_pos[spe as usize], self.tail_pos[lpe as usize]);
            while a != b {
                if a > b {
                    a = self.tail_pos[s.sp_pred[a as usize] as usize];
                } else {
                    b = self.tail_pos[s.lp_pred[b as usize] as usize];
                }
            }
            let divergence = a as usize;
            let (mut cs, mut ds, mut cl, mut dl, mut cap) = (0.0, 0.0, 0.0, 0.0, f64::INFINITY);
            let mut v = j;
            while v != divergence {
                let e = s.sp_pred[v] as usize;
                let l = self.link[e] as usize;
                cs += state.cost[l] + extra(l);
                ds += state.deriv[l];
                v = self.tail_pos[e] as usize;
            }
            let mut v = j;
            while v != divergence {
                let e = s.lp_pred[v] as usize;
                let l = self.link[e] as usize;
                cl += state.cost[l] + extra(l);
                dl += state.deriv[l];
                cap = cap.min(self.flow[e]);
                v = self.tail_pos[e] as usize;
            }
            let diff = cl - cs;
            if diff <= 0.0 || cap <= 0.0 {
                continue;
            }
            worst = worst.max(diff);
            let curvature = pce * (ds + dl);
            let delta = if curvature > 0.0 { (diff / curvature).min(cap) } else { cap };
            let moved = pce * delta;
            let mut v = j;
            while v != divergence {
                let e = s.lp_pred[v] as usize;
                let l = self.link[e] as usize;
                self.flow[e] = if self.flow[e] - delta <= FLOW_EPS { 0.0 } else { self.flow[e] - delta };
                state.x[l] = (state.x[l] - moved).max(0.0);
                state.refresh(net, l);
                v = self.tail_pos[e] as usize;
            }
            let mut v = j;
            while v != divergence {
                let e = s.sp_pred[v] as usize;
                let l = self.link[e] as usize;
                self.flow[e] += delta;
                state.x[l] += moved;
                state.refresh(net, l);
                v = self.tail_pos[e] as usize;
            }
        }
        worst
    }
}

/// Flow-shift passes per bush after its update, and shift-only sweeps over all bushes per iteration:
/// measured on Anaheim, Barcelona, Winnipeg and Chicago-Sketch (2/4 was best or near best on each).
/// Re-measured after the Jacobi updates (2 threads): 1/4 is 10–20% faster to 1e-12 on the small networks
/// and Berlin-Center, but slower on Philadelphia at high precision (1e-8 at 309 s instead of 224 s, 1e-10
/// not reached in 600 s instead of 452 s), so 2/4 stays.
const SHIFT_PASSES: usize = 2;
/// Shift-only sweeps over all bushes per iteration.
const INNER_SWEEPS: usize = 4;

/// Solves with Algorithm B; `measure` logs an iteration and says whether to stop.
pub(crate) fn solve(
    net: &Network,
    demand: &Demand,
    allow_zone_transit: bool,
    measure: impl FnMut(&Measured, &mut Vec<f64>) -> Result<bool, crate::error::TapError>,
) -> Result<Vec<f64>, crate::error::TapError> {
    let mut solver = BushSolver::new(net, &[(BushClass::plain(), demand)], allow_zone_transit)?;
    solver.run(net, measure, Overlap::MeasureWhileIterating)
}

/// What an iteration's measurement sees (network link order).
pub(crate) struct Measured {
    /// Total link flows, in PCE units.
    pub(crate) x: Vec<f64>,
    /// The network's link costs at those flows (without class extras).
    pub(crate) cost: Vec<f64>,
    /// `Σ_k pce_k Σ_a extra^k_a v^k_a`: what the classes' extra costs add to the total cost (0 with one
    /// plain class), so that the total cost is `cost · x + class_extra`.
    pub(crate) class_extra: f64,
}

/// Whether an iteration runs while the previous one's flows are measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Overlap {
    /// Measure on the other threads while the next iteration runs, and drop that iteration when the
    /// measurement says stop: fastest, but the bushes are left partly updated (a one-off solve).
    MeasureWhileIterating,
    /// Measure, then iterate: the bushes always hold exactly the flows last measured (a solve that
    /// goes on from them: ODME).
    MeasureThenIterate,
}

/// Algorithm B's state between solves: one bush per origin and the link costs at their flows.
pub(crate) struct BushSolver {
    pub(crate) topo: Topology,
    /// The bushes of every class, class after class, each class's in its demand's origin order.
    pub(crate) bushes: Vec<Bush>,
    pub(crate) classes: Vec<BushClass>,
    /// Where each class's bushes start in `bushes` (one more entry than classes).
    pub(crate) class_starts: Vec<usize>,
    pub(crate) state: LinkState,
    scratch: Scratch,
}

impl BushSolver {
    /// Bushes from the free-flow shortest-path trees (at each class's costs), with each class's demand
    /// loaded on them.
    pub(crate) fn new(
        net: &Network,
        classes: &[(BushClass, &Demand)],
        allow_zone_transit: bool,
    ) -> Result<Self, TapError> {
        let g = crate::aon::SearchGraph::new(net, !allow_zone_transit);
        let topo = Topology::new(net);
        let m = net.num_links();
        let mut free = vec![0.0; m];
        net.costs(&vec![0.0; m], &mut free);
        let mut bushes = Vec::new();
        let mut class_starts = vec![0];
        for (k, (class, demand)) in classes.iter().enumerate() {
            let costs = if class.extra.is_empty() {
                free.clone()
            } else {
                let extra = topo.to_network_order(&class.extra);
                free.iter().zip(extra).map(|(c, e)| c + e).collect()
            };
            let class_bushes =
                initial_bushes(net, &g, &topo, k as u32, demand, &costs).map_err(|e| match e {
                    // Another class may reach it: say which one cannot (a ban, usually).
                    TapError::DemandUnreachable { .. } if classes.len() > 1 => TapError::InvalidOption(
                        format!("class {}: {e}, over the links this class may use", class.name),
                    ),
                    e => e,
                })?;
            bushes.extend(class_bushes);
            class_starts.push(bushes.len());
        }
        let classes: Vec<BushClass> = classes
            .iter()
            .map(|(c, _)| BushClass { name: c.name.clone(), pce: c.pce, extra: c.extra.clone() })
            .collect();
        let state = LinkState::new(net, &topo, total_flows(&bushes, &classes, m));
        Ok(Self { topo, bushes, classes, class_starts, state, scratch: Scratch::new(net.num_nodes(), m) })
    }

    /// Class `k`'s bushes.
    pub(crate) fn class_bushes(&self, k: usize) -> &[Bush] {
        &self.bushes[self.class_starts[k]..self.class_starts[k + 1]]
    }

    /// Class `k`'s vehicle flows per link, in the network's order.
    pub(crate) fn class_flows(&self, k: usize) -> Vec<f64> {
        let mut v = vec![0.0; self.state.x.len()];
        for b in self.class_bushes(k) {
            b.add_flows(1.0, &mut v);
        }
        self.topo.to_network_order(&v)
    }

    /// `Σ_k pce_k Σ_a extra^k_a v^k_a` ([`Measured::class_extra`]).
    fn class_extra(&self) -> f64 {
        self.bushes
            .iter()
            .map(|b| {
                let class = &self.classes[b.class as usize];
                class.pce * class.extra_cost(b)
            })
            .sum()
    }

    /// Iterates until `measure` (given the flows and costs in network order, and scratch space) says
    /// stop; returns the flows last measured, in network order.
    pub(crate) fn run(
        &mut self,
        net: &Network,
        mut measure: impl FnMut(&Measured, &mut Vec<f64>) -> Result<bool, TapError>,
        overlap: Overlap,
    ) -> Result<Vec<f64>, TapError> {
        let mut y = vec![0.0; self.state.x.len()];
        let abort = AtomicBool::new(false);
        loop {
            let measured = Measured {
                x: self.topo.to_network_order(&self.state.x),
                cost: self.topo.to_network_order(&self.state.cost),
                class_extra: self.class_extra(),
            };
            let Self { topo, bushes, classes, state, scratch, .. } = self;
            if overlap == Overlap::MeasureThenIterate {
                if measure(&measured, &mut y)? {
                    return Ok(measured.x);
                }
                iterate(net, topo, bushes, classes, state, scratch, &abort);
                continue;
            }
            // The gap of these flows is measured (on the other threads) while the next iteration runs on
            // this one; the iteration gives way as soon as the measurement says stop. The flow trajectory
            // does not depend on the measurement, so results are those of measuring first and iterating
            // after.
            abort.store(false, Ordering::Relaxed);
            let mut stop = Ok(false);
            rayon::in_place_scope(|scope| {
                scope.spawn(|_| iterate(net, topo, bushes, classes, state, scratch, &abort));
                stop = measure(&measured, &mut y);
                if !matches!(stop, Ok(false)) {
                    abort.store(true, Ordering::Relaxed);
                }
            });
            if stop? {
                return Ok(measured.x);
            }
        }
    }

    /// Recomputes the link state from the bushes' flows (after they were changed from outside).
    pub(crate) fn refresh(&mut self, net: &Network) {
        self.state =
            LinkState::new(net, &self.topo, total_flows(&self.bushes, &self.classes, self.state.x.len()));
    }
}

/// One Algorithm B iteration over all bushes, unless `abort` is raised (then the state is left partly
/// updated: the caller drops it).
fn iterate(
    net: &Network,
    topo: &Topology,
    bushes: &mut [Bush],
    classes: &[BushClass],
    state: &mut LinkState,
    scratch: &mut Scratch,
    abort: &AtomicBool,
) {
    // Topology updates against this iteration's starting costs, all bushes at once: each one depends on
    // its own links and those costs only, so not on the thread count.
    let (n, m) = (net.num_nodes(), state.x.len());
    let shared: &LinkState = state;
    bushes.par_iter_mut().for_each_init(
        || Scratch::new(n, m),
        |s, bush| {
            if !abort.load(Ordering::Relaxed) {
                bush.update(net, topo, shared, &classes[bush.class as usize], s);
            }
        },
    );
    for bush in bushes.iter_mut() {
        if abort.load(Ordering::Relaxed) {
            return;
        }
        for _ in 0..SHIFT_PASSES {
            if bush.shift(net, state, &classes[bush.class as usize], scratch) == 0.0 {
                break;
            }
        }
    }
    // Sweeps of flow shifts over every bush (no bush change) before the next measured iteration.
    for _ in 0..INNER_SWEEPS {
        for bush in bushes.iter_mut() {
            if abort.load(Ordering::Relaxed) {
                return;
            }
            bush.shift(net, state, &classes[bush.class as usize], scratch);
        }
    }
    // Re-add the bushes' flows so rounding in the incremental updates never accumulates.
    *state = LinkState::new(net, topo, total_flows(bushes, classes, state.x.len()));
}

/// The bushes' flows in PCE units added per internal link, in bush order.
fn total_flows(bushes: &[Bush], classes: &[BushClass], m: usize) -> Vec<f64> {
    let mut x = vec![0.0; m];
    for b in bushes {
        b.add_flows(classes[b.class as usize].pce, &mut x);
    }
    x
}

/// One bush of `class` per demand origin from its full shortest-path tree at `costs` (in parallel).
pub(crate) fn initial_bushes(
    net: &Network,
    g: &SearchGraph,
    topo: &Topology,
    class: u32,
    demand: &Demand,
    costs: &[f64],
) -> Result<Vec<Bush>, TapError> {
    let arcs = arcs_at(g, costs);
    let bushes: Vec<Result<Bush, (u32, u32, f64)>> = (0..demand.num_origins())
        .into_par_iter()
        .map_init(
            || Workspace::new(g.num_nodes()),
            |ws, i| {
                let origin = demand.origins()[i];
                search(g, &arcs, origin, ws, usize::MAX);
                let (dests, flows) = demand.from_origin(i);
                let missing = dests.iter().zip(flows).find(|(d, _)| ws.dist[**d as usize].is_infinite());
                let bush = match missing {
                    Some((&d, &f)) => Err((origin, d, f)),
                    None => Ok(Bush::from_tree(net, topo, (class, i), origin, ws.pred(), &ws.order, demand)),
                };
                ws.reset();
                bush
            },
        )
        .collect();
    bushes
        .into_iter()
        .map(|b| {
            b.map_err(|(o, d, f)| TapError::DemandUnreachable {
                pairs: 1,
                flow: f,
                origin: net.node_id(o),
                destination: net.node_id(d),
            })
        })
        .collect()
}
