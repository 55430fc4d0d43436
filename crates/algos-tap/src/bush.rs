//! Algorithm B (Dial 2006): origin-based assignment on bushes, to relative gaps of 1e-10 and below.
//!
//! Every origin keeps a *bush*: an acyclic set of links rooted at it carrying that origin's flow. One
//! iteration visits the origins in order (Gauss–Seidel, so results do not depend on the thread count):
//! - **update the bush**: drop unused links that are not on the bush's shortest-path tree, add links
//!   that shorten a path (`L_i + c_ij < L_j`) and keep the bush acyclic (`U_i < U_j`, `U` the longest
//!   path labels over all bush links: a strict potential for the added links);
//! - **shift flow**: in reverse topological order, at every node whose longest *used* path and shortest
//!   path arrive by different links, find where the two paths diverge and move
//!   `Δ = (C_long − C_short) / (D_long + D_short)` (a Newton step on the two segments, capped by the
//!   smallest bush flow on the long one), updating the moved links' costs exactly; a few passes.
//!
//! After each iteration the gap is measured exactly (one shortest-path tree per origin over the whole
//! network, in parallel), as for the Frank–Wolfe family.

use crate::demand::Demand;
use crate::network::Network;

/// Flows below this (vehicles) count as unused.
const FLOW_EPS: f64 = 1e-12;
const NONE: u32 = u32::MAX;

/// One origin's bush.
pub(crate) struct Bush {
    root: u32,
    /// Topological order of the bush's nodes (valid until its links change).
    order: Vec<u32>,
    in_bush: Vec<bool>,
    /// This origin's flow per link.
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
    order: Vec<u32>,
    pos: Vec<u32>,
    indeg: Vec<u32>,
    /// Labels per node, packed so a tail's three labels share one cache line.
    labels: Vec<Labels>,
    sp_pred: Vec<u32>,
    lp_pred: Vec<u32>,
}

impl Scratch {
    pub(crate) fn new(n: usize) -> Self {
        Self {
            order: Vec::with_capacity(n),
            pos: vec![NONE; n],
            indeg: vec![0; n],
            labels: vec![Labels::UNSET; n],
            sp_pred: vec![NONE; n],
            lp_pred: vec![NONE; n],
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

impl Bush {
    /// A bush holding the shortest-path tree of `root` at the current costs, with the origin's demand
    /// loaded on it. `pred` (network link ids) and `order` come from a Dijkstra over the network.
    pub(crate) fn from_tree(
        net: &Network,
        topo: &Topology,
        index: usize,
        root: u32,
        pred: &[u32],
        settle_order: &[u32],
        demand: &Demand,
    ) -> Self {
        let m = net.num_links();
        let mut bush = Self { root, order: Vec::new(), in_bush: vec![false; m], flow: vec![0.0; m] };
        let mut node_flow = vec![0.0; net.num_nodes()];
        let (dests, flows) = demand.from_origin(index);
        for (&d, &f) in dests.iter().zip(flows) {
            node_flow[d as usize] += f;
        }
        for &v in settle_order {
            if v != root && pred[v as usize] != NONE {
                bush.in_bush[topo.internal[pred[v as usize] as usize] as usize] = true;
            }
        }
        for &v in settle_order.iter().rev() {
            if v == root || pred[v as usize] == NONE {
                continue;
            }
            let a = topo.internal[pred[v as usize] as usize] as usize;
            let f = node_flow[v as usize];
            if f != 0.0 {
                bush.flow[a] += f;
                node_flow[topo.tail[a] as usize] += f;
            }
        }
        bush.order = settle_order.to_vec();
        bush
    }

    /// This bush's flow per link.
    pub(crate) fn flows(&self) -> &[f64] {
        &self.flow
    }

    /// Recomputes the bush's topological order (Kahn) after its links changed.
    fn sort(&mut self, topo: &Topology, s: &mut Scratch) {
        for (a, &inb) in self.in_bush.iter().enumerate() {
            if inb {
                s.indeg[topo.head[a] as usize] += 1;
            }
        }
        self.order.clear();
        self.order.push(self.root);
        let mut i = 0;
        while i < self.order.len() {
            let u = self.order[i];
            i += 1;
            for &a in topo.out(u) {
                if self.in_bush[a as usize] {
                    let v = topo.head[a as usize] as usize;
                    s.indeg[v] -= 1;
                    if s.indeg[v] == 0 {
                        self.order.push(v as u32);
                    }
                }
            }
        }
        // Heads never reached (only possible if the bush were not acyclic) must not keep a count.
        let mut unreached = 0;
        for (a, &inb) in self.in_bush.iter().enumerate() {
            if inb {
                unreached += (s.indeg[topo.head[a] as usize] != 0) as usize;
                s.indeg[topo.head[a] as usize] = 0;
            }
        }
        debug_assert_eq!(unreached, 0, "bush of {} is not acyclic", self.root);
    }

    /// Shortest and longest (all links, used links) labels in topological order, and positions.
    fn label(&self, topo: &Topology, state: &LinkState, s: &mut Scratch) {
        for &v in &s.order {
            s.pos[v as usize] = NONE;
            s.labels[v as usize] = Labels::UNSET;
            s.sp_pred[v as usize] = NONE;
            s.lp_pred[v as usize] = NONE;
        }
        s.order.clear();
        s.order.extend_from_slice(&self.order);
        for (k, &v) in self.order.iter().enumerate() {
            s.pos[v as usize] = k as u32;
        }
        s.labels[self.root as usize] = Labels { shortest: 0.0, longest_all: 0.0, longest_used: 0.0 };
        for k in 1..s.order.len() {
            let v = s.order[k];
            let (mut sp, mut spa, mut la, mut lu, mut lpa) =
                (f64::INFINITY, NONE, f64::NEG_INFINITY, f64::NEG_INFINITY, NONE);
            for a in topo.into(v) {
                if !self.in_bush[a] {
                    continue;
                }
                let tl = s.labels[topo.tail[a] as usize];
                let c = state.cost[a];
                let d = tl.shortest + c;
                if d < sp {
                    sp = d;
                    spa = a as u32;
                }
                la = la.max(tl.longest_all + c);
                if self.flow[a] > FLOW_EPS && tl.longest_used + c > lu {
                    lu = tl.longest_used + c;
                    lpa = a as u32;
                }
            }
            s.labels[v as usize] = Labels { shortest: sp, longest_all: la, longest_used: lu };
            s.sp_pred[v as usize] = spa;
            s.lp_pred[v as usize] = lpa;
        }
    }

    /// Drops unused links off the shortest tree and adds shortcuts that keep the bush acyclic.
    /// Returns the number of links added.
    fn update(&mut self, net: &Network, topo: &Topology, state: &LinkState, s: &mut Scratch) -> usize {
        self.label(topo, state, s);
        for a in 0..self.in_bush.len() {
            if self.in_bush[a] && self.flow[a] <= FLOW_EPS && s.sp_pred[topo.head[a] as usize] != a as u32 {
                self.in_bush[a] = false;
                self.flow[a] = 0.0;
            }
        }
        let mut added = 0;
        for a in 0..self.in_bush.len() {
            if self.in_bush[a] {
                continue;
            }
            let (i, j) = (topo.tail[a] as usize, topo.head[a] as usize);
            if s.pos[i] == NONE || s.pos[j] == NONE || (i as u32 != self.root && !net.through()[i]) {
                continue;
            }
            let (li, lj) = (s.labels[i], s.labels[j]);
            let improves = li.shortest + state.cost[a] < lj.shortest * (1.0 - 1e-14);
            if improves && li.longest_all < lj.longest_all {
                self.in_bush[a] = true;
                added += 1;
            }
        }
        if added > 0 {
            self.sort(topo, s);
        }
        added
    }

    /// One pass of Newton flow shifts from longest used to shortest paths. Returns the largest cost
    /// difference met (a convergence hint).
    pub(crate) fn shift(
        &mut self,
        net: &Network,
        topo: &Topology,
        state: &mut LinkState,
        s: &mut Scratch,
    ) -> f64 {
        self.label(topo, state, s);
        let mut worst: f64 = 0.0;
        for k in (1..s.order.len()).rev() {
            let j = s.order[k] as usize;
            let (spa, lpa) = (s.sp_pred[j], s.lp_pred[j]);
            if lpa == NONE || spa == lpa {
                continue;
            }
            // Walk both paths back to where they diverge, the later node (in topological order) first.
            let (mut a, mut b) = (topo.tail[spa as usize] as usize, topo.tail[lpa as usize] as usize);
            while a != b {
                if s.pos[a] > s.pos[b] {
                    a = topo.tail[s.sp_pred[a] as usize] as usize;
                } else {
                    b = topo.tail[s.lp_pred[b] as usize] as usize;
                }
            }
            let divergence = a;
            let (mut cs, mut ds, mut cl, mut dl, mut cap) = (0.0, 0.0, 0.0, 0.0, f64::INFINITY);
            let mut v = j;
            while v != divergence {
                let e = s.sp_pred[v] as usize;
                cs += state.cost[e];
                ds += state.deriv[e];
                v = topo.tail[e] as usize;
            }
            let mut v = j;
            while v != divergence {
                let e = s.lp_pred[v] as usize;
                cl += state.cost[e];
                dl += state.deriv[e];
                cap = cap.min(self.flow[e]);
                v = topo.tail[e] as usize;
            }
            let diff = cl - cs;
            if diff <= 0.0 || cap <= 0.0 {
                continue;
            }
            worst = worst.max(diff);
            let delta = if ds + dl > 0.0 { (diff / (ds + dl)).min(cap) } else { cap };
            let mut v = j;
            while v != divergence {
                let e = s.lp_pred[v] as usize;
                self.flow[e] = if self.flow[e] - delta <= FLOW_EPS { 0.0 } else { self.flow[e] - delta };
                state.x[e] = (state.x[e] - delta).max(0.0);
                state.refresh(net, e);
                v = topo.tail[e] as usize;
            }
            let mut v = j;
            while v != divergence {
                let e = s.sp_pred[v] as usize;
                self.flow[e] += delta;
                state.x[e] += delta;
                state.refresh(net, e);
                v = topo.tail[e] as usize;
            }
        }
        worst
    }

    /// One Algorithm B step for this bush: update, then `passes` flow-shift passes.
    pub(crate) fn improve(
        &mut self,
        net: &Network,
        topo: &Topology,
        state: &mut LinkState,
        s: &mut Scratch,
        passes: usize,
    ) {
        self.update(net, topo, state, s);
        for _ in 0..passes {
            if self.shift(net, topo, state, s) == 0.0 {
                break;
            }
        }
    }
}

/// Flow-shift passes per bush after its update, and shift-only sweeps over all bushes per iteration:
/// measured on Anaheim, Barcelona, Winnipeg and Chicago-Sketch (2/4 was best or near best on each).
const SHIFT_PASSES: usize = 2;
/// Shift-only sweeps over all bushes per iteration.
const INNER_SWEEPS: usize = 4;

/// Solves with Algorithm B; `measure` logs an iteration and says whether to stop.
pub(crate) fn solve(
    net: &Network,
    demand: &Demand,
    allow_zone_transit: bool,
    mut measure: impl FnMut(&[f64], &[f64], &mut Vec<f64>) -> Result<bool, crate::error::TapError>,
) -> Result<Vec<f64>, crate::error::TapError> {
    let g = crate::aon::SearchGraph::new(net, !allow_zone_transit);
    let topo = Topology::new(net);
    let m = net.num_links();
    let mut free = vec![0.0; m];
    net.costs(&vec![0.0; m], &mut free);
    let mut bushes = crate::aon::initial_bushes(net, &g, &topo, demand, &free)?;
    let total = |bushes: &[Bush]| {
        let mut x = vec![0.0; m];
        for b in bushes {
            for (t, f) in x.iter_mut().zip(b.flows()) {
                *t += f;
            }
        }
        x
    };
    let mut state = LinkState::new(net, &topo, total(&bushes));
    let mut scratch = Scratch::new(net.num_nodes());
    let mut y = vec![0.0; m];
    loop {
        if measure(&topo.to_network_order(&state.x), &topo.to_network_order(&state.cost), &mut y)? {
            break;
        }
        for bush in &mut bushes {
            bush.improve(net, &topo, &mut state, &mut scratch, SHIFT_PASSES);
        }
        // Sweeps of flow shifts over every bush (no bush change) before the next measured iteration.
        for _ in 0..INNER_SWEEPS {
            for bush in &mut bushes {
                bush.shift(net, &topo, &mut state, &mut scratch);
            }
        }
        // Re-add the bushes' flows so rounding in the incremental updates never accumulates.
        state = LinkState::new(net, &topo, total(&bushes));
    }
    Ok(topo.to_network_order(&state.x))
}
