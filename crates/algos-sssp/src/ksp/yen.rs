//! Yen's algorithm: the classic baseline. Each accepted path is split at every vertex (the *spur*);
//! a shortest spur→t path that avoids the root's vertices and the arcs that earlier accepted paths
//! with the same root take at the spur is a candidate.
//!
//! For the same output as MPS under ties, each spur search returns the spur path with the smallest
//! arc sequence among the shortest ones (distances first, then a walk that takes the smallest arc id
//! that still lies on a shortest path), and candidates are ordered by (cost, arc sequence).

use crate::SsspError;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};

use graph_core::Csr;
use graph_core::transform::Transposed;

use super::{KspStats, Path, check_vertex};
use crate::cpu::dijkstra::{Stop, dijkstra};
use crate::paths::UNREACHABLE;

/// The `k` cheapest loopless paths from `s` to `t`, in (cost, arc sequence) order, by Yen's algorithm
/// (one restricted search per spur vertex of every accepted path: A* on the distances to `t`).
///
/// ```
/// use urbanflow::sssp::ksp::{mps, yen};
/// use urbanflow::graph::GraphBuilder;
/// let mut b = GraphBuilder::new(4);
/// b.add_arc(0, 1, 1).add_arc(1, 3, 1).add_arc(0, 2, 1).add_arc(2, 3, 1).add_arc(1, 2, 0);
/// let g = b.build().unwrap().0;
/// assert_eq!(yen(&g, 0, 3, 10).unwrap().0, mps(&g, 0, 3, 10).unwrap().0);
/// ```
pub fn yen(g: &Csr<u32>, s: u32, t: u32, k: usize) -> Result<(Vec<Path>, KspStats), SsspError> {
    check_vertex(g, "source", s)?;
    check_vertex(g, "target", t)?;
    if k == 0 {
        return Ok((Vec::new(), KspStats::default()));
    }
    let mut ranking = YenRanking::new(g, s, t);
    let mut out = Vec::new();
    while out.len() < k {
        match ranking.next_path()? {
            Some(p) => out.push(p),
            None => break,
        }
    }
    let mut stats = ranking.stats;
    stats.pops = out.len() as u64;
    Ok((out, stats))
}

/// Yen's ranking as a resumable state: the accepted paths, the candidates of their spurs, and how
/// many of the accepted paths have had their spurs searched.
#[derive(Debug)]
pub(crate) struct YenRanking<'g> {
    g: &'g Csr<u32>,
    s: u32,
    t: u32,
    search: SpurSearch<'g>,
    accepted: Vec<Path>,
    /// Accepted paths whose spurs have been searched.
    expanded: usize,
    /// Accepted paths already given out.
    given: usize,
    known: HashSet<Vec<u32>>,
    candidates: BinaryHeap<Reverse<Path>>,
    pub(crate) stats: KspStats,
}

impl<'g> YenRanking<'g> {
    /// A ranking from its start (`s = t` gives the empty path).
    pub(crate) fn new(g: &'g Csr<u32>, s: u32, t: u32) -> Self {
        let mut r = Self::resume(g, s, t, Vec::new(), None);
        if s == t {
            r.accepted.push(Path { cost: 0, arcs: Vec::new(), source: s });
            r.expanded = 1; // nothing deviates from the empty path
        } else {
            r.stats.searches += 1;
            if let Some(first) = r.search.run(s, t) {
                r.known.insert(first.arcs.clone());
                r.accepted.push(first);
            } else {
                r.expanded = usize::MAX; // nothing at all
            }
        }
        r
    }

    /// A ranking that goes on after `given`, the first paths in (cost, arc sequence) order (as
    /// another ranking gave them out): the next call returns the path after them. `to_target`: the
    /// distances to `t` ([`crate::paths::UNREACHABLE`] where it cannot be reached), when the caller
    /// has them; otherwise one search on the reverse graph computes them.
    pub(crate) fn resume(
        g: &'g Csr<u32>,
        s: u32,
        t: u32,
        given: Vec<Path>,
        to_target: Option<Vec<u32>>,
    ) -> Self {
        let known = given.iter().map(|p| p.arcs.clone()).collect();
        Self {
            g,
            s,
            t,
            search: SpurSearch::new(g, t, to_target),
            given: given.len(),
            expanded: 0,
            accepted: given,
            known,
            candidates: BinaryHeap::new(),
            stats: KspStats::default(),
        }
    }

    /// The next path, `None` when there are no more.
    pub(crate) fn next_path(&mut self) -> Result<Option<Path>, SsspError> {
        while self.given == self.accepted.len() {
            if self.expanded >= self.accepted.len() {
                return Ok(None);
            }
            // Yen's step for every accepted path not yet expanded, with the blocks of its time (the
            // accepted paths up to it); then the least candidate is the next path.
            while self.expanded < self.accepted.len() {
                self.expand(self.expanded)?;
                self.expanded += 1;
            }
            self.stats.max_heap = self.stats.max_heap.max(self.candidates.len());
            match self.candidates.pop() {
                Some(Reverse(p)) => self.accepted.push(p),
                None => {
                    self.expanded = usize::MAX;
                    return Ok(None);
                }
            }
        }
        self.given += 1;
        Ok(Some(self.accepted[self.given - 1].clone()))
    }

    /// Searches the spurs of accepted path `j`.
    fn expand(&mut self, j: usize) -> Result<(), SsspError> {
        let heads = self.g.targets();
        let last = self.accepted[j].clone();
        let mut root_cost = 0u64;
        let mut spur = self.s;
        for i in 0..last.arcs.len() {
            self.search.begin();
            // The root's vertices (all but the spur) are out of bounds.
            let mut v = self.s;
            for &a in &last.arcs[..i] {
                self.search.block_vertex(v);
                v = heads[a as usize];
            }
            // Arcs that accepted paths (up to this one) with this root take out of the spur.
            for p in &self.accepted[..=j] {
                if p.arcs.len() > i && p.arcs[..i] == last.arcs[..i] {
                    self.search.block_arc(p.arcs[i]);
                }
            }
            self.stats.searches += 1;
            if let Some(tail) = self.search.run(spur, self.t) {
                let mut arcs = last.arcs[..i].to_vec();
                arcs.extend_from_slice(&tail.arcs);
                if self.known.insert(arcs.clone()) {
                    let cost = root_cost.checked_add(tail.cost).ok_or(SsspError::PathCostOverflow)?;
                    self.candidates.push(Reverse(Path { cost, arcs, source: self.s }));
                }
            }
            root_cost += self.g.weights()[last.arcs[i] as usize] as u64;
            spur = heads[last.arcs[i] as usize];
        }
        Ok(())
    }
}

/// A* from a spur vertex with blocked vertices and arcs, then the smallest arc sequence among the
/// shortest paths. Every per-vertex mark is an epoch number, so nothing is cleared per search.
///
/// The A* potential is the distance to the target in the whole graph (π): blocking vertices and arcs
/// only lengthens paths, so π is a consistent lower bound of every restricted search, and a spur search
/// settles the vertices whose `d + π` is at most the spur path's cost instead of every vertex nearer
/// than it (one query of NY at K = 100 ran 4,415 spur searches: most of its time).
#[derive(Debug)]
struct SpurSearch<'g> {
    g: &'g Csr<u32>,
    rev: Transposed<u32>,
    /// Epoch of the current restriction (blocked marks) and of the current search's other marks.
    restriction: u32,
    epoch: u32,
    /// π: distances to the target in the whole graph, `UNREACHABLE` where it cannot be reached.
    to_target: Vec<u32>,
    blocked_vertex: Vec<u32>,
    blocked_arc: Vec<u32>,
    dist: Vec<u64>,
    /// `dist` holds a label of this search.
    labelled: Vec<u32>,
    settled: Vec<u32>,
    /// On some shortest spur→t path (set by the backward pass).
    useful: Vec<u32>,
    on_walk: Vec<u32>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    /// Reaches the target under the current restriction (the backward reachability search).
    reaches_t: Vec<u32>,
    backward: std::collections::VecDeque<u32>,
}

impl<'g> SpurSearch<'g> {
    fn new(g: &'g Csr<u32>, t: u32, to_target: Option<Vec<u32>>) -> Self {
        let n = g.num_vertices() as usize;
        let rev = g.transpose();
        // Distances that leave u32 (an error of the search) make no potential: plain Dijkstra.
        let to_target = to_target.unwrap_or_else(|| {
            dijkstra(&rev.graph, t, &Stop::default()).map_or_else(|_| vec![0; n], |(d, _)| d)
        });
        Self {
            g,
            rev,
            restriction: 1,
            epoch: 0,
            to_target,
            blocked_vertex: vec![0; n],
            blocked_arc: vec![0; g.num_arcs() as usize],
            dist: vec![0; n],
            labelled: vec![0; n],
            settled: vec![0; n],
            useful: vec![0; n],
            on_walk: vec![0; n],
            heap: BinaryHeap::new(),
            reaches_t: vec![0; n],
            backward: Default::default(),
        }
    }

    /// Starts a new restriction (no vertex or arc blocked).
    fn begin(&mut self) {
        self.restriction += 1;
    }

    fn block_vertex(&mut self, v: u32) {
        self.blocked_vertex[v as usize] = self.restriction;
    }

    fn block_arc(&mut self, a: u32) {
        self.blocked_arc[a as usize] = self.restriction;
    }

    /// Arc `a` is usable: neither it nor its head is blocked.
    fn open(&self, a: usize) -> bool {
        self.blocked_arc[a] != self.restriction
            && self.blocked_vertex[self.g.targets()[a] as usize] != self.restriction
    }

    /// Queues the unblocked in-neighbours of `x` that are not known to reach t yet; whether `from`
    /// is among them.
    fn step_back(&mut self, x: u32, from: u32) -> bool {
        let epoch = self.epoch;
        let (roff, rheads) = (self.rev.graph.offsets(), self.rev.graph.targets());
        let arcs = roff[x as usize] as usize..roff[x as usize + 1] as usize;
        let mut reached = false;
        for (&y, &a) in rheads[arcs.clone()].iter().zip(&self.rev.rev_to_fwd[arcs]) {
            let (yi, a) = (y as usize, a as usize);
            if self.reaches_t[yi] != epoch
                && self.blocked_vertex[yi] != self.restriction
                && self.blocked_arc[a] != self.restriction
            {
                self.reaches_t[yi] = epoch;
                self.backward.push_back(y);
                reached |= y == from;
            }
        }
        reached
    }

    /// The shortest `from → t` path with the smallest arc sequence, under the current restriction.
    fn run(&mut self, from: u32, t: u32) -> Option<Path> {
        self.epoch += 1;
        let epoch = self.epoch;
        let (offsets, heads, weights) = (self.g.offsets(), self.g.targets(), self.g.weights());
        self.heap.clear();
        if self.to_target[from as usize] == UNREACHABLE {
            return None;
        }
        self.dist[from as usize] = 0;
        self.labelled[from as usize] = epoch;
        self.heap.push(Reverse((u64::from(self.to_target[from as usize]), from)));
        // Settle everything whose d + π is up to t's distance: every vertex on a shortest spur path
        // is among them (π never overestimates), and with zero-weight arcs such vertices may share
        // t's key and would otherwise be missed by the backward pass.
        let mut found: Option<u64> = None;
        // Beside it, one step per settled vertex of a breadth-first search back from t: when the
        // root seals t (or `from`) into a small pocket, that search runs out first and proves that
        // no spur path exists — the forward search alone would settle every vertex it can reach.
        self.backward.clear();
        self.backward.push_back(t);
        self.reaches_t[t as usize] = epoch;
        let mut from_reaches_t = from == t;
        while let Some(Reverse((key, u))) = self.heap.pop() {
            if found.is_some_and(|dt| key > dt) {
                break;
            }
            let d = key - u64::from(self.to_target[u as usize]);
            if self.settled[u as usize] == epoch || d > self.dist[u as usize] {
                continue;
            }
            self.settled[u as usize] = epoch;
            if u == t {
                found = Some(d);
                continue;
            }
            if found.is_none() && !from_reaches_t {
                match self.backward.pop_front() {
                    Some(x) => from_reaches_t = self.step_back(x, from),
                    None => return None,
                }
            }
            for a in offsets[u as usize] as usize..offsets[u as usize + 1] as usize {
                if !self.open(a) {
                    continue;
                }
                let h = heads[a] as usize;
                if self.to_target[h] == UNREACHABLE {
                    continue;
                }
                let nd = d + weights[a] as u64;
                if self.labelled[h] != epoch || nd < self.dist[h] {
                    self.labelled[h] = epoch;
                    self.dist[h] = nd;
                    self.heap.push(Reverse((nd + u64::from(self.to_target[h]), h as u32)));
                }
            }
        }
        found?;
        // Backwards from t over tight arcs between settled vertices: the vertices on shortest paths.
        let (roff, rheads) = (self.rev.graph.offsets(), self.rev.graph.targets());
        let mut stack = vec![t];
        self.useful[t as usize] = epoch;
        while let Some(x) = stack.pop() {
            let arcs = roff[x as usize] as usize..roff[x as usize + 1] as usize;
            for (&y, &a) in rheads[arcs.clone()].iter().zip(&self.rev.rev_to_fwd[arcs]) {
                let (y, a) = (y as usize, a as usize);
                if self.settled[y] == epoch
                    && self.useful[y] != epoch
                    && self.blocked_vertex[y] != self.restriction
                    && self.open(a)
                    && self.dist[y] + weights[a] as u64 == self.dist[x as usize]
                {
                    self.useful[y] = epoch;
                    stack.push(y as u32);
                }
            }
        }
        // Smallest arc ids first, depth first. Without zero-weight arcs every tight step moves
        // strictly closer to t, so the first try never fails; zero-weight cycles may need backtracking.
        let mut arcs: Vec<u32> = Vec::new();
        let mut walk: Vec<(u32, usize)> = vec![(from, offsets[from as usize] as usize)];
        self.on_walk[from as usize] = epoch;
        loop {
            let (at, next) = walk.last_mut().expect("the walk holds its start");
            let at = *at;
            if at == t {
                break;
            }
            let end = offsets[at as usize + 1] as usize;
            let mut step = None;
            while *next < end {
                let a = *next;
                *next += 1;
                let h = heads[a] as usize;
                if self.useful[h] == epoch
                    && self.on_walk[h] != epoch
                    && self.open(a)
                    && self.dist[at as usize] + weights[a] as u64 == self.dist[h]
                {
                    step = Some(a);
                    break;
                }
            }
            match step {
                Some(a) => {
                    let h = heads[a];
                    arcs.push(a as u32);
                    self.on_walk[h as usize] = epoch;
                    walk.push((h, offsets[h as usize] as usize));
                }
                None => {
                    // A dead end (only through zero-weight cycles): step back.
                    self.on_walk[at as usize] = 0;
                    walk.pop();
                    arcs.pop()?;
                }
            }
        }
        Some(Path { cost: self.dist[t as usize], arcs, source: from })
    }
}
