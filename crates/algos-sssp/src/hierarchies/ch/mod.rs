//! Contraction hierarchies and PHAST: one-to-all trees as a linear sweep (issue 21, CPU part).
//!
//! [`ContractionHierarchy::build`] contracts the vertices one by one in the order of a lazily updated
//! priority (edge difference + contracted neighbours + level), adding a shortcut `u → w` for a
//! contracted `v` whenever a bounded witness search cannot show a path from `u` to `w` avoiding `v` at
//! most as long as `u → v → w`. A limited witness search only adds superfluous shortcuts, never drops
//! a needed one, so distances stay exact.
//!
//! PHAST (Delling, Goldberg, Nowatzyk, Werneck 2011) then computes a whole tree from `s` in two
//! steps: a Dijkstra search from `s` over **upward** arcs only (to higher-ranked vertices), then one
//! sweep over all vertices in **decreasing rank**, each taking the minimum over its downward in-arcs
//! (from higher-ranked vertices, already final). The sweep reads every downward arc once, in a fixed
//! order that does not depend on the source — and [`ContractionHierarchy::phast`] runs it for several
//! sources at once (`LANES` labels per vertex, contiguous), so each arc read serves them all.
//!
//! Rows equal Dijkstra's distances exactly, so [`crate::pred::canonical_predecessors`] on a row gives the
//! same predecessor arcs (in the original graph) as every other backend; unpacking shortcuts is not needed
//! for that.
//!
//! ```
//! use urbanflow::sssp::ch::ContractionHierarchy;
//! use urbanflow::graph::GraphBuilder;
//! let mut b = GraphBuilder::new(4);
//! b.add_arc(0, 1, 4).add_arc(0, 2, 1).add_arc(2, 1, 2).add_arc(1, 3, 5);
//! let g = b.build().unwrap().0;
//! let ch = ContractionHierarchy::build(&g).unwrap();
//! let trees = ch.phast(&[0, 2]).unwrap();
//! assert_eq!(trees[0], vec![0, 3, 1, 8]);
//! assert_eq!(trees[1], vec![u32::MAX, 2, 0, 7]);
//! ```

mod contract;
#[cfg(feature = "gpu")]
pub mod gpu;

use graph_core::Csr;
use rayon::prelude::*;

use crate::cpu::queue::LazyHeap;
use crate::cpu::search::{OutArcs, Workspace};
use crate::error::SsspError;
use crate::paths::{SATURATED, UNREACHABLE};

/// Sources per downward sweep: labels of one vertex for all of them share a cache line.
pub const LANES: usize = 16;

/// A contraction hierarchy in rank space: vertex `v` has rank `rank[v]`; arrays are indexed by rank.
#[derive(Debug, Clone)]
pub struct ContractionHierarchy {
    /// Rank of every vertex (0 = contracted first).
    pub rank: Vec<u32>,
    /// Vertex of every rank.
    pub order: Vec<u32>,
    /// Upward arcs (to higher ranks) of every rank, by rank: offsets, heads (ranks), weights.
    pub up: Csr<u32>,
    /// Downward in-arcs of every rank: for rank r, tails (higher ranks) and weights of the arcs into r.
    pub down: Csr<u32>,
    /// Shortcuts added.
    pub shortcuts: usize,
    /// Seconds spent contracting.
    pub build_seconds: f64,
    /// The elimination tree of a chordal hierarchy (a CCH): each rank's parent, its lowest upward
    /// neighbour (`u32::MAX` at a root). Every upward path from a rank stays on its ancestors, so
    /// upward searches walk them in rank order instead of running Dijkstra.
    pub elimination_tree: Option<Vec<u32>>,
}

impl ContractionHierarchy {
    /// Contracts `graph` (u32 weights; parallel arcs keep the lightest, self-loops are dropped).
    pub fn build(graph: &Csr<u32>) -> Result<Self, SsspError> {
        if let Some((arc, &w)) = graph.weights().iter().enumerate().find(|&(_, &w)| w >= SATURATED) {
            return Err(SsspError::WeightTooLarge { arc: arc as u32, weight: w });
        }
        let t = std::time::Instant::now();
        let mut ch = contract::contract(graph);
        ch.build_seconds = t.elapsed().as_secs_f64();
        Ok(ch)
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> u32 {
        self.rank.len() as u32
    }

    /// The hierarchy of the reverse graph, for distances *to* vertices: an upward arc `r → h` of the
    /// reverse graph is a downward arc `h → r` of this one and the other way round, so the two arc
    /// sets trade places; ranks and the elimination tree (the shape's) stay. No search, no copy: PHAST
    /// from `t` on the result gives every vertex's distance to `t` (what K-shortest-paths rankings
    /// need for each target).
    ///
    /// ```
    /// use urbanflow::sssp::ch::ContractionHierarchy;
    /// use urbanflow::graph::GraphBuilder;
    /// let mut b = GraphBuilder::new(4);
    /// b.add_arc(0, 1, 4).add_arc(0, 2, 1).add_arc(2, 1, 2).add_arc(1, 3, 5);
    /// let g = b.build().unwrap().0;
    /// let to = ContractionHierarchy::build(&g).unwrap().reversed();
    /// // Distances from every vertex to 3 and to 1.
    /// assert_eq!(to.phast(&[3, 1]).unwrap(), [vec![8, 5, 7, 0], vec![3, 0, 2, u32::MAX]]);
    /// ```
    pub fn reversed(self) -> Self {
        Self { up: self.down, down: self.up, ..self }
    }

    /// One-to-all distances from each source (`UNREACHABLE` where there is no path), in sources'
    /// order, equal to Dijkstra's. Batches of [`LANES`] sources share a sweep; batches run in parallel
    /// (rayon).
    pub fn phast(&self, sources: &[u32]) -> Result<Vec<Vec<u32>>, SsspError> {
        self.check_sources(sources)?;
        let mut out: Vec<Vec<u32>> = vec![Vec::new(); sources.len()];
        out.par_chunks_mut(LANES).zip(sources.par_chunks(LANES)).for_each_init(
            || PhastWorkspace::new(self.num_vertices()),
            |ws, (rows, srcs)| {
                ws.sweep(self, srcs);
                for (lane, row) in rows.iter_mut().enumerate() {
                    *row = ws.row(self, lane);
                }
            },
        );
        Self::check_overflow(out)
    }

    fn check_sources(&self, sources: &[u32]) -> Result<(), SsspError> {
        let n = self.num_vertices();
        match sources.iter().find(|&&s| s >= n) {
            Some(&s) => Err(SsspError::SourceOutOfRange { vertex: s, n }),
            None => Ok(()),
        }
    }

    /// A sum that reached `SATURATED` is an overflow, never a distance (as everywhere in the crate).
    fn check_overflow(rows: Vec<Vec<u32>>) -> Result<Vec<Vec<u32>>, SsspError> {
        if rows.par_iter().any(|r| r.contains(&SATURATED)) {
            return Err(SsspError::WeightOverflow { bound: SATURATED });
        }
        Ok(rows)
    }

    /// Like [`Self::phast`] on the calling thread only (the per-tree baseline of the benchmark).
    pub fn phast_serial(&self, sources: &[u32]) -> Result<Vec<Vec<u32>>, SsspError> {
        self.check_sources(sources)?;
        let mut ws = PhastWorkspace::new(self.num_vertices());
        let mut out = Vec::with_capacity(sources.len());
        for srcs in sources.chunks(LANES) {
            ws.sweep(self, srcs);
            out.extend((0..srcs.len()).map(|lane| ws.row(self, lane)));
        }
        Self::check_overflow(out)
    }
}

/// Labels of one batch: `dist[rank * LANES + lane]`, plus the upward search's state.
pub struct PhastWorkspace {
    dist: Vec<u32>,
    /// `down_parent[rank * LANES + lane]`: the first downward in-arc that lowered the label in the last
    /// [`Self::sweep_with_parents`] (`NO_PARENT` where none did); empty after a plain sweep.
    down_parent: Vec<u32>,
    up: UpwardSearch,
    /// Each lane's upward-search results of the last sweep: (rank, label, (parent rank, up arc)).
    seeds: Vec<Vec<Seed>>,
}

/// Dijkstra over upward arcs only, with state reset through the touched ranks.
pub struct UpwardSearch {
    /// The generic search's queue, predecessor arcs and touched ranks, for hierarchies without an
    /// elimination tree.
    ws: Workspace<u32, LazyHeap<u32>>,
    dist: Vec<u32>,
    /// (parent rank, upward arc) of every touched rank.
    parent: Vec<(u32, u32)>,
    touched: Vec<u32>,
}

/// An upward-search result: (rank, label, (parent rank, up arc)).
pub type Seed = (u32, u32, (u32, u32));

/// No parent (the source of a search).
pub const NO_PARENT: u32 = u32::MAX;

impl UpwardSearch {
    /// Scratch for `n` vertices.
    pub fn new(n: u32) -> Self {
        Self {
            ws: Workspace::new(LazyHeap::with_capacity(64)).with_predecessors(n as usize).with_touched(),
            dist: vec![UNREACHABLE; n as usize],
            parent: vec![(NO_PARENT, NO_PARENT); n as usize],
            touched: Vec::new(),
        }
    }

    /// Settles every rank reachable from `source` by upward arcs, calling `settled(rank, distance)`.
    pub fn search(&mut self, ch: &ContractionHierarchy, source: u32, mut settled: impl FnMut(u32, u32)) {
        self.search_tree(ch, source, |r, d, _| settled(r, d));
    }

    /// Like [`Self::search`], also giving each settled rank's parent in the search tree as
    /// `(parent rank, upward arc index)`, `(NO_PARENT, NO_PARENT)` for the source. The parent is the
    /// first rank that reached the final label (a strict improvement), so the tree is deterministic.
    /// On a hierarchy with an elimination tree the ranks come in increasing rank order, else in
    /// Dijkstra's order.
    pub fn search_tree(
        &mut self,
        ch: &ContractionHierarchy,
        source: u32,
        mut settled: impl FnMut(u32, u32, (u32, u32)),
    ) {
        let r0 = ch.rank[source as usize];
        self.dist[r0 as usize] = 0;
        self.parent[r0 as usize] = (NO_PARENT, NO_PARENT);
        self.touched.push(r0);
        if let Some(etree) = &ch.elimination_tree {
            // Ancestors in increasing rank: each one's upward in-arcs from the search space come from
            // lower ancestors, already final.
            let mut r = r0;
            while r != NO_PARENT {
                let d = self.dist[r as usize];
                if d != UNREACHABLE {
                    settled(r, d, self.parent[r as usize]);
                    self.relax(ch, r, d);
                }
                r = etree[r as usize];
            }
        } else {
            // Dijkstra's order: the one generic search a rank at a time; each rank whose label an
            // expansion lowered takes the expanded rank and the arc (the search's predecessor) as parent.
            let mut lowered = Vec::new();
            self.ws.begin(r0, &mut self.dist);
            while let Some((d, r)) = self.ws.settle_next(&self.dist) {
                settled(r, d, self.parent[r as usize]);
                lowered.clear();
                self.ws.expand(&UpArcs(ch), r, d, &mut self.dist, |h, _| lowered.push(h));
                for &h in &lowered {
                    self.parent[h as usize] = (r, self.ws.pred()[h as usize]);
                }
            }
            self.ws.reset(&mut self.dist);
        }
        for &r in &self.touched {
            self.dist[r as usize] = UNREACHABLE;
        }
        self.touched.clear();
    }
}

/// The upward arcs as the generic search reads them; a CCH leaves directions without an arc at
/// `UNREACHABLE`, which are no arcs.
struct UpArcs<'a>(&'a ContractionHierarchy);

impl OutArcs<u32> for UpArcs<'_> {
    #[inline]
    fn for_each_out(&self, r: u32, mut relax: impl FnMut(u32, u32, u32)) {
        let (uo, ut, uw) = (self.0.up.offsets(), self.0.up.targets(), self.0.up.weights());
        for a in uo[r as usize] as usize..uo[r as usize + 1] as usize {
            if uw[a] != UNREACHABLE {
                relax(ut[a], uw[a], a as u32);
            }
        }
    }
}

impl UpwardSearch {
    /// Relaxes the upward arcs of rank `r` (label `d`) in the elimination-tree walk (no queue: the
    /// ranks come in increasing order). A CCH leaves directions without an arc at `UNREACHABLE`: no arc.
    fn relax(&mut self, ch: &ContractionHierarchy, r: u32, d: u32) {
        let (uo, ut, uw) = (ch.up.offsets(), ch.up.targets(), ch.up.weights());
        for a in uo[r as usize] as usize..uo[r as usize + 1] as usize {
            if uw[a] == UNREACHABLE {
                continue;
            }
            let nd = d.saturating_add(uw[a]).min(SATURATED);
            let h = ut[a] as usize;
            if nd < self.dist[h] {
                if self.dist[h] == UNREACHABLE {
                    self.touched.push(h as u32);
                }
                self.dist[h] = nd;
                self.parent[h] = (r, a as u32);
            }
        }
    }
}

/// PHAST's downward sweep over `LANES` trees at once, highest rank first: every tail of an in-arc is
/// final before its head. The lanes' minimum is an unsigned 32-bit min, which the baseline x86-64
/// target lacks (SSE2 emulates it in several instructions); `multiversion` compiles AVX2 and SSE4.1
/// copies and picks one at run time. The same labels on every copy (integer operations only).
///
/// With `PARENTS`, `parents[rank * LANES + lane]` gets the first in-arc that lowered the label.
#[multiversion::multiversion(targets("x86_64+avx2", "x86_64+sse4.1"))]
fn sweep_down<const PARENTS: bool>(
    dist: &mut [u32],
    parents: &mut [u32],
    dof: &[u32],
    dt: &[u32],
    dw: &[u32],
) {
    let n = dof.len() - 1;
    for r in (0..n).rev() {
        let mut best = [UNREACHABLE; LANES];
        best.copy_from_slice(&dist[r * LANES..(r + 1) * LANES]);
        let mut parent = [NO_PARENT; LANES];
        for a in dof[r] as usize..dof[r + 1] as usize {
            let u = dt[a] as usize;
            let w = dw[a];
            if w == UNREACHABLE {
                continue;
            }
            let from: &[u32; LANES] = dist[u * LANES..(u + 1) * LANES].try_into().expect("LANES labels");
            for lane in 0..LANES {
                // Unreached tails stay unreached; sums saturate at SATURATED (an overflow).
                let sum = from[lane].saturating_add(w).min(SATURATED);
                let cand = if from[lane] == UNREACHABLE { UNREACHABLE } else { sum };
                if PARENTS {
                    // Branch-free, so that the lanes stay one vector operation each.
                    let lower = cand < best[lane];
                    parent[lane] = if lower { a as u32 } else { parent[lane] };
                }
                best[lane] = best[lane].min(cand);
            }
        }
        dist[r * LANES..(r + 1) * LANES].copy_from_slice(&best);
        if PARENTS {
            parents[r * LANES..(r + 1) * LANES].copy_from_slice(&parent);
        }
    }
}

impl PhastWorkspace {
    /// Scratch for `n` vertices.
    pub fn new(n: u32) -> Self {
        Self {
            dist: vec![UNREACHABLE; n as usize * LANES],
            down_parent: Vec::new(),
            up: UpwardSearch::new(n),
            seeds: vec![Vec::new(); LANES],
        }
    }

    /// Label of `vertex` in tree `lane` of the last sweep (`UNREACHABLE` where unreached).
    pub fn label(&self, ch: &ContractionHierarchy, vertex: u32, lane: usize) -> u32 {
        self.dist[ch.rank[vertex as usize] as usize * LANES + lane]
    }

    /// Every label of the last sweep, `labels()[rank * LANES + lane]`, for code that walks the trees
    /// (assignment's tree loading in algos-tap).
    pub fn labels(&self) -> &[u32] {
        &self.dist
    }

    /// Tree `lane`'s upward-search results of the last sweep: (rank, label, (parent rank, up arc)),
    /// the arc [`NO_PARENT`] at the source.
    pub fn seeds(&self, lane: usize) -> &[Seed] {
        &self.seeds[lane]
    }

    /// Upward searches from `sources` (at most [`LANES`]) and the downward sweep.
    pub fn sweep(&mut self, ch: &ContractionHierarchy, sources: &[u32]) {
        self.sweep_up(ch, sources);
        self.down_parent.clear();
        sweep_down::<false>(&mut self.dist, &mut [], ch.down.offsets(), ch.down.targets(), ch.down.weights());
    }

    /// [`Self::sweep`], also keeping for every (rank, lane) the first downward in-arc (in `ch.down`
    /// order) that lowered its label: where the label did not come from the upward search, that arc
    /// is the first tight one, the tree parent a tree loading needs ([`Self::down_parents`]).
    pub fn sweep_with_parents(&mut self, ch: &ContractionHierarchy, sources: &[u32]) {
        self.sweep_up(ch, sources);
        // The downward sweep writes every rank's parents: nothing to clear first.
        self.down_parent.resize(self.dist.len(), NO_PARENT);
        let (dof, dt, dw) = (ch.down.offsets(), ch.down.targets(), ch.down.weights());
        sweep_down::<true>(&mut self.dist, &mut self.down_parent, dof, dt, dw);
    }

    /// Every lane's upward search, its labels written and its seeds kept.
    fn sweep_up(&mut self, ch: &ContractionHierarchy, sources: &[u32]) {
        assert!(sources.len() <= LANES);
        self.dist.fill(UNREACHABLE);
        for (lane, &s) in sources.iter().enumerate() {
            let (dist, seeds) = (&mut self.dist, &mut self.seeds[lane]);
            seeds.clear();
            self.up.search_tree(ch, s, |r, d, parent| {
                dist[r as usize * LANES + lane] = d;
                seeds.push((r, d, parent));
            });
        }
    }

    /// The parents of the last [`Self::sweep_with_parents`], `[rank * LANES + lane]`: a downward arc
    /// index, or `NO_PARENT` where no in-arc lowered the label; empty after a plain [`Self::sweep`].
    pub fn down_parents(&self) -> &[u32] {
        &self.down_parent
    }

    /// The tree of `lane` in original vertex ids.
    pub fn row(&self, ch: &ContractionHierarchy, lane: usize) -> Vec<u32> {
        ch.rank.iter().map(|&r| self.dist[r as usize * LANES + lane]).collect()
    }
}
