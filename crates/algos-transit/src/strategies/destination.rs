//! One destination's optimal strategy (Spiess & Florian's backward label setting), the loading of its
//! origins' demand along it, and the expectations per origin that make the skims.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::graph::HyperpathGraph;

/// Travel times below this are raised to it, as AequilibraE's `HyperpathGenerating` does: edges of zero
/// time (boarding, alighting, transfers) would make two strategies equally good and leave the choice
/// between them to rounding; with the floor, alighting and boarding again costs a little more than a
/// direct transfer, and every attractive edge leads to a strictly smaller label.
pub const TIME_FLOOR: f64 = 1e-12;

/// The quantities a skim propagates along a strategy, per vertex.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Expectation {
    pub in_vehicle: f64,
    pub waiting: f64,
    pub walking: f64,
    pub boardings: f64,
}

/// What one thread keeps between destinations (sized once for the graph).
pub(crate) struct Workspace {
    /// Expected cost to the destination (`u`), ∞ where it cannot be reached.
    pub u: Vec<f64>,
    /// Combined frequency of each vertex's attractive edges with a wait (`F`).
    freq_sum: Vec<f64>,
    /// Attractive edges without wait out of each vertex: from the first one on, the vertex's label is
    /// that edge's `u_head + time`, and only edges without wait of exactly that cost join (ties split
    /// equally: AequilibraE's 1e20 stand-in for an infinite frequency splits them so).
    no_wait: Vec<u32>,
    examined: Vec<bool>,
    /// Entries `(key bits, push order, edge)`: the least key first, and among equal keys the edge
    /// pushed first, so that an edge out of a vertex is always examined before the edges into it.
    heap: BinaryHeap<Reverse<(u64, u64, u32)>>,
    pushes: u64,
    /// Attractive edges in the order they were examined (increasing `u_head + time`).
    pub attractive: Vec<u32>,
    /// Demand passing through each vertex while loading.
    node_volume: Vec<f64>,
    /// Per vertex, for skims.
    pub expect: Vec<Expectation>,
}

impl Workspace {
    pub fn new(g: &HyperpathGraph) -> Self {
        let n = g.num_vertices() as usize;
        Self {
            u: vec![f64::INFINITY; n],
            freq_sum: vec![0.0; n],
            no_wait: vec![0; n],
            examined: vec![false; g.num_edges()],
            heap: BinaryHeap::new(),
            pushes: 0,
            attractive: Vec::new(),
            node_volume: vec![0.0; n],
            expect: vec![Expectation::default(); n],
        }
    }

    fn push_into(&mut self, g: &HyperpathGraph, v: u32) {
        let (lo, hi) = (g.in_start[v as usize] as usize, g.in_start[v as usize + 1] as usize);
        for &b in &g.in_edges[lo..hi] {
            if !self.examined[b as usize] {
                let key = self.u[v as usize] + g.time[b as usize].max(TIME_FLOOR);
                self.heap.push(Reverse((key.to_bits(), self.pushes, b)));
                self.pushes += 1;
            }
        }
    }

    /// The optimal strategy to `dest`: `u`, `F` and the attractive edges.
    pub fn strategy(&mut self, g: &HyperpathGraph, dest: u32) {
        self.u.fill(f64::INFINITY);
        self.freq_sum.fill(0.0);
        self.no_wait.fill(0);
        self.examined.fill(false);
        self.heap.clear();
        self.attractive.clear();
        self.u[dest as usize] = 0.0;
        self.push_into(g, dest);
        while let Some(Reverse((key_bits, _, a))) = self.heap.pop() {
            let a = a as usize;
            if self.examined[a] {
                continue;
            }
            let (i, j) = (g.tail[a] as usize, g.head[a] as usize);
            let key = self.u[j] + g.time[a].max(TIME_FLOOR);
            if key.to_bits() != key_bits {
                continue; // an older entry: the edge's head has been lowered since (the newer one is due)
            }
            self.examined[a] = true;
            // Attractive: `u_i ≥ u_j + c_a`, which with `c_a > 0` implies `u_j < u_i`. The second test
            // matters where `c_a` is below the rounding of `u_j` (a 1e-12 floor on a label of 1e4 s):
            // without it an alighting edge and the boarding edge back would both be attractive, a loop
            // that loading would send travellers round.
            if self.u[i] < key || self.u[j] >= self.u[i] {
                continue;
            }
            let (f, fi) = (g.freq[a], self.freq_sum[i]);
            if self.no_wait[i] > 0 {
                // Reached without waiting at u_i = key already: a tie without wait joins, nothing else.
                if f.is_infinite() {
                    self.no_wait[i] += 1;
                    self.attractive.push(a as u32);
                }
                continue;
            }
            if f.is_infinite() {
                self.u[i] = key;
                self.no_wait[i] = 1;
            } else if fi == 0.0 {
                self.u[i] = 1.0 / f + key;
                self.freq_sum[i] = f;
            } else {
                self.u[i] = (fi * self.u[i] + f * key) / (fi + f);
                self.freq_sum[i] = fi + f;
            }
            self.attractive.push(a as u32);
            self.push_into(g, i as u32);
        }
    }

    /// The share of vertex `tail(a)`'s travellers who take attractive edge `a`.
    fn share(&self, g: &HyperpathGraph, a: usize) -> f64 {
        let i = g.tail[a] as usize;
        match (self.no_wait[i], g.freq[a].is_infinite()) {
            (0, _) => g.freq[a] / self.freq_sum[i],
            (k, true) => 1.0 / k as f64, // equally good edges without wait
            (_, false) => 0.0,           // a wait was beaten by an edge without one
        }
    }

    /// Adds to `volumes` the flows of `origins` (`(vertex, demand)`, vertices other than the
    /// destination) along the current strategy. Travellers at a vertex split over its attractive edges
    /// by frequency share; vertices are taken in decreasing `u` (attractive edges in the reverse of
    /// their examination order), so a vertex has all its travellers before they move on.
    pub fn load(&mut self, g: &HyperpathGraph, origins: &[(u32, f64)], volumes: &mut [f64]) {
        for &(o, d) in origins {
            self.node_volume[o as usize] += d;
        }
        for &a in self.attractive.iter().rev() {
            let a = a as usize;
            let i = g.tail[a] as usize;
            let through = self.node_volume[i];
            if through == 0.0 {
                continue;
            }
            let v = through * self.share(g, a);
            volumes[a] += v;
            self.node_volume[g.head[a] as usize] += v;
        }
        // Leave the buffer clean for the next destination (only touched vertices are non-zero).
        for &(o, _) in origins {
            self.node_volume[o as usize] = 0.0;
        }
        for &a in &self.attractive {
            self.node_volume[g.head[a as usize] as usize] = 0.0;
        }
    }

    /// Per vertex, the expected in-vehicle, waiting and walking time and number of boardings on the
    /// way to the destination along the current strategy (`expect`; `u` is the expected total).
    /// Attractive edges in examination order reach every vertex after the vertices they lead to.
    /// `waiting` is the expected wait after leaving a vertex: [`Workspace::waiting_at`] adds the wait
    /// at the vertex itself.
    pub fn expectations(&mut self, g: &HyperpathGraph, dest: u32) {
        self.expect[dest as usize] = Expectation::default();
        for &a in &self.attractive {
            self.expect[g.tail[a as usize] as usize] = Expectation::default();
        }
        for k in 0..self.attractive.len() {
            let a = self.attractive[k] as usize;
            let (i, j) = (g.tail[a] as usize, g.head[a] as usize);
            let share = self.share(g, a);
            if share == 0.0 {
                continue;
            }
            let (next, kind, time) = (self.expect[j], g.kind(a), g.time[a]);
            let wait_next = self.waiting_at(j as u32);
            let e = &mut self.expect[i];
            e.in_vehicle += share * (next.in_vehicle + if kind.in_vehicle() { time } else { 0.0 });
            e.walking += share * (next.walking + if kind.walking() { time } else { 0.0 });
            e.waiting += share * wait_next;
            e.boardings += share * (next.boardings + if g.freq[a].is_finite() { 1.0 } else { 0.0 });
        }
    }

    /// The expected wait from vertex `v` on: at `v` itself (1 / F where its attractive edges have a
    /// finite combined frequency F) and after it.
    pub fn waiting_at(&self, v: u32) -> f64 {
        let f = self.freq_sum[v as usize];
        let waits = self.no_wait[v as usize] == 0 && f > 0.0;
        self.expect[v as usize].waiting + if waits { 1.0 / f } else { 0.0 }
    }
}
