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
    /// Per vertex, its next in-edge to examine (an index into the graph's `in_edges`, which are sorted
    /// by time): a vertex's in-edges are examined in that order, so the heap holds one entry per
    /// vertex rather than one per edge.
    next: Vec<u32>,
    /// Entries `key bits << 64 | push order << 32 | vertex` (one integer, one comparison): the least key
    /// `u_v + time` first (non-negative f64 keys order as their bits), and among equal keys the entry
    /// pushed first, so that an edge out of a vertex is examined before the edges into it. An entry
    /// whose key no longer matches its vertex's next edge is stale and passed over.
    heap: BinaryHeap<Reverse<u128>>,
    pushes: u32,
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
            next: vec![0; n],
            heap: BinaryHeap::new(),
            pushes: 0,
            attractive: Vec::new(),
            node_volume: vec![0.0; n],
            expect: vec![Expectation::default(); n],
        }
    }

    /// Puts vertex `v`'s next in-edge on the heap. Once `v`'s label is final (`settled`), in-edges that
    /// can never be attractive are passed over without a heap operation: those whose tail is labelled
    /// at or below `v` or below the edge's key already (labels only fall).
    fn schedule(&mut self, g: &HyperpathGraph, v: usize, settled: bool) {
        let end = g.in_start[v + 1] as usize;
        let mut k = self.next[v] as usize;
        let uv = self.u[v];
        if settled {
            while k < end {
                let ut = self.u[g.in_tail[k] as usize];
                if ut < uv + g.in_time[k] || ut <= uv {
                    k += 1;
                } else {
                    break;
                }
            }
            self.next[v] = k as u32;
        }
        if k < end {
            let key = (uv + g.in_time[k]).to_bits() as u128;
            self.heap.push(Reverse(key << 64 | (self.pushes as u128) << 32 | v as u128));
            self.pushes += 1;
        }
    }

    /// The optimal strategy to `dest`: `u`, `F` and the attractive edges.
    pub fn strategy(&mut self, g: &HyperpathGraph, dest: u32) {
        self.u.fill(f64::INFINITY);
        self.freq_sum.fill(0.0);
        self.no_wait.fill(0);
        self.next.copy_from_slice(&g.in_start[..g.num_vertices() as usize]);
        self.heap.clear();
        self.pushes = 0;
        self.attractive.clear();
        self.u[dest as usize] = 0.0;
        self.schedule(g, dest as usize, true);
        while let Some(Reverse(entry)) = self.heap.pop() {
            let (key_bits, j) = ((entry >> 64) as u64, (entry as u32) as usize);
            let k = self.next[j] as usize;
            if k >= g.in_start[j + 1] as usize {
                continue;
            }
            let key = self.u[j] + g.in_time[k];
            if key.to_bits() != key_bits {
                continue; // stale: the vertex's label or next edge changed since
            }
            self.next[j] += 1;
            let (a, i) = (g.in_edges[k] as usize, g.in_tail[k] as usize);
            // `j`'s label is final now (every later key is at least this one): its next in-edge.
            self.schedule(g, j, true);
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
            let before = self.u[i];
            if f.is_infinite() {
                self.u[i] = key;
                self.no_wait[i] = 1;
            } else if fi == 0.0 {
                self.u[i] = 1.0 / f + key;
                self.freq_sum[i] = f;
            } else {
                // `F u` fused with the sum (one rounding): a GPU compiler may fuse a multiply and an
                // add on its own, so the GPU path (shaders/transit_strategies.wgsl) fuses this one
                // explicitly and both round the same way, ties included.
                self.u[i] = fi.mul_add(self.u[i], f * key) / (fi + f);
                self.freq_sum[i] = fi + f;
            }
            self.attractive.push(a as u32);
            if self.u[i].to_bits() != before.to_bits() {
                self.schedule(g, i, false);
            }
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
