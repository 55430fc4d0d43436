//! Customisable contraction hierarchies (Dibbelt, Strasser, Wagner 2014): a hierarchy whose shape
//! does not depend on the arc weights, so a new metric (the link costs of a traffic-assignment
//! iteration) costs one customisation — milliseconds on a city — instead of a new contraction.
//!
//! - [`Cch::build`] orders the vertices by nested dissection (`order`: multilevel bisections in pure
//!   Rust, `bisect`, or METIS's with [`Cch::build_with`] and the `metis` feature; minimum vertex covers
//!   of the cuts as separators; the two sides of every separator on two threads) and builds the
//!   chordal supergraph of that order with a downward index. Only the graph's shape is read.
//! - [`Cch::customise`] takes weights for the input arcs and runs the basic customisation: each edge
//!   `{x, y}` takes the minimum of its input arcs and of `x → v → y` over its lower triangles. No edge
//!   joins the two sides of a separator, so they are customised in parallel (rayon's join down the
//!   dissection tree), then the separator's ranks in order; a rank with many triangles splits its lower
//!   neighbours over threads. The triangles are enumerated as customisation goes, not stored (NY's
//!   13.8 M took 123 MB and most of a build from a cached order). The result is a
//!   [`ContractionHierarchy`], so everything that runs
//!   on one — [`ContractionHierarchy::phast`], [`crate::ch::gpu::GpuPhast`], `many_to_all` with
//!   `Method::Phast` — runs on it, with Dijkstra's distances exactly.
//!
//! [`CchQuery`] answers point-to-point queries (distance, and the path in input arcs) on a
//! customised CCH by walking the elimination tree: no priority queue, nothing allocated per query.
//!
//! Directions an edge does not have in the input stay [`UNREACHABLE`] (never a finite weight), so
//! one-way streets keep the same topology under every metric.
//!
//! ```
//! use urbanflow::sssp::cch::Cch;
//! use urbanflow::graph::GraphBuilder;
//! let mut b = GraphBuilder::new(4);
//! b.add_arc(0, 1, 4).add_arc(0, 2, 1).add_arc(2, 1, 2).add_arc(1, 3, 5);
//! let g = b.build().unwrap().0;
//! let cch = Cch::build(&g).unwrap();
//! assert_eq!(cch.customise(g.weights()).unwrap().phast(&[0]).unwrap()[0], vec![0, 3, 1, 8]);
//! // A new metric on the same shape, weights in the graph's arc order (0→1, 0→2, 1→3, 2→1): the arc
//! // 0 → 2 becomes expensive, 1 → 3 cheap.
//! let ch = cch.customise(&[4, 10, 2, 5]).unwrap();
//! assert_eq!(ch.phast(&[0]).unwrap()[0], vec![0, 4, 10, 6]);
//! ```

mod bisect;
#[cfg(feature = "gpu")]
pub mod gpu_matrix;
mod order;
pub mod perfect;
mod query;
mod store;
mod topology;

pub use order::Bisector;
pub use query::CchQuery;
pub use store::CacheUse;

use graph_core::{Csr, Weight};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use crate::ch::ContractionHierarchy;
use crate::error::SsspError;
use crate::paths::{SATURATED, UNREACHABLE};
use order::Undirected;
use topology::Topology;

/// The metric-independent hierarchy of one graph shape.
#[derive(Debug, Clone)]
pub struct Cch {
    rank: Vec<u32>,
    order: Vec<u32>,
    topo: Topology,
    /// The dissection tree: sides of a part are customised in parallel.
    parts: Vec<order::Part>,
    /// Parent of every rank in the elimination tree (its lowest upward neighbour; `u32::MAX` at roots).
    elimination_tree: Vec<u32>,
    /// For each input arc, the slot of its weight: `2e` (upward along edge `e`), `2e + 1`
    /// (downward), or `u32::MAX` for a self-loop.
    arc_slot: Vec<u32>,
    /// Edges that carry no input arc (shortcuts of the chordal supergraph).
    shortcuts: usize,
    /// Seconds spent ordering (nested dissection).
    pub order_seconds: f64,
    /// Seconds spent building (or reading and checking) the chordal supergraph.
    pub topology_seconds: f64,
}

/// The rank of every vertex of `order` (its inverse).
fn ranks_of(order: &[u32]) -> Vec<u32> {
    let mut rank = vec![0u32; order.len()];
    for (r, &v) in order.iter().enumerate() {
        rank[v as usize] = r as u32;
    }
    rank
}

/// The error of a graph whose hierarchy would have more than [`topology::MAX_TRIANGLES`] triangles.
fn too_many_triangles(triangles: u64) -> SsspError {
    SsspError::InvalidParameter(format!(
        "the customisable hierarchy of this graph would have {triangles} triangles (at most {} are \
         allowed): it has no small separators, unlike a road network",
        topology::MAX_TRIANGLES
    ))
}

/// The sum of two weights: unreachable stays unreachable, overflow saturates (and is reported).
fn link(a: u32, b: u32) -> u32 {
    if a == UNREACHABLE || b == UNREACHABLE { UNREACHABLE } else { a.saturating_add(b).min(SATURATED) }
}

impl Cch {
    /// Orders `graph` by nested dissection and builds its chordal supergraph (weights are not read),
    /// with the default [`Bisector`].
    ///
    /// ```
    /// use urbanflow::sssp::cch::{Cch, CchQuery};
    /// let g = urbanflow::graph::generators::grid_2d(20, 20); // unit weights
    /// let cch = Cch::build(&g)?; // once per graph shape
    /// let ch = cch.customise(g.weights())?; // once per metric: milliseconds on a city
    /// assert_eq!(CchQuery::new(&ch)?.distance(&ch, 0, 399)?, Some(38));
    /// // Another metric on the same order: every weight doubled.
    /// let doubled: Vec<u32> = g.weights().iter().map(|w| 2 * w).collect();
    /// let ch2 = cch.customise(&doubled)?;
    /// assert_eq!(CchQuery::new(&ch2)?.distance(&ch2, 0, 399)?, Some(76));
    /// # Ok::<(), urbanflow::sssp::SsspError>(())
    /// ```
    pub fn build<W: Weight>(graph: &Csr<W>) -> Result<Self, SsspError> {
        Self::build_with(graph, Bisector::default())
    }

    /// [`Self::build`] with the bisections of `bisector`.
    pub fn build_with<W: Weight>(graph: &Csr<W>, bisector: Bisector) -> Result<Self, SsspError> {
        let t = std::time::Instant::now();
        let undirected = Undirected::of(graph);
        let (order, parts) = order::nested_dissection(&undirected, bisector)?;
        Self::from_order(graph, &undirected, order, parts, t.elapsed().as_secs_f64())
    }

    /// The chordal supergraph of `graph` (as `undirected`) in a given nested-dissection order: what
    /// [`Self::build`] does after ordering.
    fn from_order<W: Weight>(
        graph: &Csr<W>,
        undirected: &Undirected,
        order: Vec<u32>,
        parts: Vec<order::Part>,
        order_seconds: f64,
    ) -> Result<Self, SsspError> {
        let n = graph.num_vertices() as usize;
        let rank = ranks_of(&order);
        let t = std::time::Instant::now();
        let mut adj = vec![Vec::new(); n];
        for v in 0..n {
            let r = rank[v];
            for &w in &undirected.adj[undirected.offsets[v] as usize..undirected.offsets[v + 1] as usize] {
                adj[r as usize].push(rank[w as usize]);
            }
        }
        let topo = Topology::build(adj).map_err(too_many_triangles)?;
        Self::with_topology(graph, rank, order, parts, topo, order_seconds, t)
    }

    /// The hierarchy from its parts, the chordal supergraph (`topo`) given: each input arc finds its
    /// edge. `Err` when an arc has none (a supergraph of another graph).
    fn with_topology<W: Weight>(
        graph: &Csr<W>,
        rank: Vec<u32>,
        order: Vec<u32>,
        parts: Vec<order::Part>,
        topo: Topology,
        order_seconds: f64,
        t: std::time::Instant,
    ) -> Result<Self, SsspError> {
        let n = rank.len();
        // Each input arc's slot: a search among its lower end's upper neighbours, on all threads (NY:
        // 730,100 searches, a tenth of a cached build on one thread).
        let tails = graph.arc_tails();
        let arc_slot = (tails.par_iter().zip(graph.targets()))
            .map(|(&u, &v)| {
                let (ru, rv) = (rank[u as usize], rank[v as usize]);
                let missing =
                    || SsspError::InvalidParameter(format!("no hierarchy edge for the arc {u} → {v}"));
                Ok(match ru.cmp(&rv) {
                    std::cmp::Ordering::Equal => u32::MAX,
                    std::cmp::Ordering::Less => 2 * topo.edge(ru, rv).ok_or_else(missing)?,
                    std::cmp::Ordering::Greater => 2 * topo.edge(rv, ru).ok_or_else(missing)? + 1,
                })
            })
            .collect::<Result<Vec<u32>, SsspError>>()?;
        let mut has_arc = vec![false; topo.num_edges()];
        arc_slot.iter().filter(|&&s| s != u32::MAX).for_each(|&s| has_arc[s as usize / 2] = true);
        let shortcuts = has_arc.iter().filter(|&&h| !h).count();
        let topology_seconds = t.elapsed().as_secs_f64();
        let elimination_tree = (0..n)
            .map(|r| {
                let (s, e) = (topo.first_out[r] as usize, topo.first_out[r + 1] as usize);
                if s < e { topo.head[s] } else { u32::MAX }
            })
            .collect();
        Ok(Self {
            rank,
            order,
            topo,
            parts,
            elimination_tree,
            arc_slot,
            shortcuts,
            order_seconds,
            topology_seconds,
        })
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> u32 {
        self.rank.len() as u32
    }

    /// Number of input arcs the customisation expects weights for.
    pub fn num_input_arcs(&self) -> usize {
        self.arc_slot.len()
    }

    /// Edges of the chordal supergraph (each gives an upward and a downward arc).
    pub fn num_edges(&self) -> usize {
        self.topo.num_edges()
    }

    /// Lower triangles (the work of one customisation).
    pub fn num_triangles(&self) -> u64 {
        self.topo.num_triangles()
    }

    /// Parts of the dissection tree (leaves included).
    pub fn num_parts(&self) -> usize {
        self.parts.len()
    }

    /// Rank of every vertex (0 = lowest).
    pub fn rank(&self) -> &[u32] {
        &self.rank
    }

    /// The hierarchy for `weights` (one per input arc, in the graph's arc order): upward and downward
    /// arc weights of every edge after the basic customisation.
    pub fn customise(&self, weights: &[u32]) -> Result<ContractionHierarchy, SsspError> {
        let t = std::time::Instant::now();
        let (w, _) = self.customised(weights, false)?;
        self.hierarchy(w, t)
    }

    /// Like [`Self::customise`], also keeping how each hierarchy arc was realised (an input arc or a
    /// lower triangle), to turn loads on hierarchy arcs back into loads on input arcs.
    pub fn customise_with_unpacking(
        &self,
        weights: &[u32],
    ) -> Result<(ContractionHierarchy, Unpacking<'_>), SsspError> {
        let t = std::time::Instant::now();
        let (w, witness) = self.customised(weights, true)?;
        Ok((self.hierarchy(w, t)?, Unpacking { cch: self, witness, edge_of: None }))
    }

    fn hierarchy(&self, w: Vec<u32>, t: std::time::Instant) -> Result<ContractionHierarchy, SsspError> {
        let (up, down): (Vec<u32>, Vec<u32>) = w.chunks_exact(2).map(|p| (p[0], p[1])).unzip();
        let csr = |weights| {
            Csr::from_parts(self.topo.first_out.clone(), self.topo.head.clone(), weights)
                .map_err(|e| SsspError::InvalidParameter(format!("CCH arrays: {e}")))
        };
        Ok(ContractionHierarchy {
            rank: self.rank.clone(),
            order: self.order.clone(),
            up: csr(up)?,
            down: csr(down)?,
            shortcuts: self.shortcuts,
            build_seconds: t.elapsed().as_secs_f64(),
            elimination_tree: Some(self.elimination_tree.clone()),
        })
    }

    /// Interleaved `[up, down]` weights per edge after the basic customisation, and with `witnesses`
    /// how each was reached: an input arc id, or a lower triangle's two edges ([`triangle_witness`]).
    fn customised(&self, weights: &[u32], witnesses: bool) -> Result<(Vec<u32>, Vec<u64>), SsspError> {
        if weights.len() != self.arc_slot.len() {
            return Err(SsspError::InvalidParameter(format!(
                "{} weights for a CCH of {} arcs",
                weights.len(),
                self.arc_slot.len()
            )));
        }
        if let Some((arc, &w)) = weights.iter().enumerate().find(|&(_, &w)| w >= SATURATED) {
            return Err(SsspError::WeightTooLarge { arc: arc as u32, weight: w });
        }
        let slots = 2 * self.topo.num_edges();
        if witnesses && self.topo.num_edges() > 1 << 31 {
            return Err(SsspError::InvalidParameter(format!(
                "path unpacking needs fewer than 2^31 hierarchy edges; this one has {}",
                self.topo.num_edges()
            )));
        }
        let mut w = vec![UNREACHABLE; slots];
        let mut why = vec![NONE; if witnesses { slots } else { 0 }];
        for (a, (&slot, &x)) in self.arc_slot.iter().zip(weights).enumerate() {
            // The first lightest input arc realises its slot.
            if slot != u32::MAX && x < w[slot as usize] {
                w[slot as usize] = x;
                if witnesses {
                    why[slot as usize] = a as u64;
                }
            }
        }
        let cells = Cells {
            w: w.into_iter().map(AtomicU32::new).collect(),
            why: why.into_iter().map(AtomicU64::new).collect(),
        };
        if !self.parts.is_empty() {
            self.customise_part(0, &cells);
        }
        Ok((
            cells.w.into_iter().map(AtomicU32::into_inner).collect(),
            cells.why.into_iter().map(AtomicU64::into_inner).collect(),
        ))
    }

    /// Customises the edges whose lower endpoint lies in part `p`: both sides at once; then the
    /// separator's edges, in two phases. Each edge takes its lower triangles in ascending lower rank, and
    /// every rank of the sides is below every rank of the separator, so the triangles through the sides
    /// come first: those read only edges of the sides, final by then, so every separator rank takes
    /// them at once; then the ranks in increasing order take the triangles through lower separator
    /// ranks (a chain: each reads edges of the ranks before it). The same relaxations of each edge in
    /// the same order as one rank after the other, so the same weights and witnesses; the chain, which
    /// bounded the customisation on many threads, now holds only the separator's own triangles.
    fn customise_part(&self, p: usize, cells: &Cells) {
        let part = &self.parts[p];
        let topo = &self.topo;
        let separator = match part.sides {
            Some([a, b]) if part.ranks.len() >= SERIAL_PART => {
                rayon::join(|| self.customise_part(a, cells), || self.customise_part(b, cells));
                self.parts[b].ranks.end..part.ranks.end
            }
            // A small part: every rank in order, on this thread.
            _ => {
                for x in part.ranks.clone() {
                    self.relax_rank(x, topo.down_edges(x), cells);
                }
                return;
            }
        };
        // Where the lower neighbours in the separator start in a rank's downward list (ascending).
        let sides_end = topo.first_out[separator.start as usize];
        let split = |x: u32| topo.down_edges(x).partition_point(|&[e1, _]| e1 < sides_end);
        separator.clone().into_par_iter().for_each(|x| {
            self.relax_rank(x, &topo.down_edges(x)[..split(x)], cells);
        });
        for x in separator {
            self.relax_rank(x, &topo.down_edges(x)[split(x)..], cells);
        }
    }

    /// Relaxes rank `x`'s edges through the lower neighbours in `below` (a run of its downward list,
    /// ascending), splitting a run with many triangles over the pool's threads.
    fn relax_rank(&self, x: u32, below: &[[u32; 2]], cells: &Cells) {
        let topo = &self.topo;
        let edges = topo.first_out[x as usize] as usize..topo.first_out[x as usize + 1] as usize;
        let work: u64 = below.iter().map(|&[e1, v_end]| (v_end - e1 - 1) as u64).sum();
        // A run pays for its own copy of the rank's edges (set, merged): it must carry far more
        // triangles than the rank has edges.
        let per_run = (16 * edges.len() as u64).max(PARALLEL_RANK_TRIANGLES);
        // On one thread runs would only add their merge.
        let threads = rayon::current_num_threads() as u64;
        let runs = if threads > 1 { (work / per_run).min(4 * threads) } else { 1 };
        if runs >= 2 {
            self.relax_rank_parallel(x, edges, below, runs as usize, cells);
        } else if work > 0 {
            with_mark(self.rank.len(), |mark| {
                topo.lower_triangles(
                    x,
                    below,
                    mark,
                    |e1| cells.pair(e1),
                    |&l, f, e1, e2| cells.relax_into(f, cells, l, e1, e2),
                )
            });
        }
    }

    /// The edges of a rank with many triangles (a separator's near the top): its lower neighbours are
    /// split into runs, each run's best triangle per edge found on its own thread, and the runs'
    /// results taken in order, a later run only when strictly lighter — the serial scan's result and
    /// witness exactly.
    fn relax_rank_parallel(
        &self,
        x: u32,
        edges: std::ops::Range<usize>,
        below: &[[u32; 2]],
        runs: usize,
        cells: &Cells,
    ) {
        let topo = &self.topo;
        let run = below.len().div_ceil(runs);
        let runs: Vec<Cells> = below
            .par_chunks(run)
            .map(|below| {
                let best = Cells::unset(edges.len(), !cells.why.is_empty());
                with_mark(self.rank.len(), |mark| {
                    topo.lower_triangles(
                        x,
                        below,
                        mark,
                        |e1| cells.pair(e1),
                        |&l, f, e1, e2| best.relax_into(f - edges.start, cells, l, e1, e2),
                    )
                });
                best
            })
            .collect();
        let get = |c: &Cells, i: usize| c.w[i].load(Ordering::Relaxed);
        for (i, f) in edges.enumerate() {
            for slot in [0, 1] {
                let mut w = get(cells, 2 * f + slot);
                for best in &runs {
                    let candidate = get(best, 2 * i + slot);
                    if candidate < w {
                        w = candidate;
                        cells.w[2 * f + slot].store(w, Ordering::Relaxed);
                        if !cells.why.is_empty() {
                            cells.why[2 * f + slot]
                                .store(best.why[2 * i + slot].load(Ordering::Relaxed), Ordering::Relaxed);
                        }
                    }
                }
            }
        }
    }
}

thread_local! {
    /// One slot per rank for [`Topology::lower_triangles`], kept between customisations (an
    /// assignment customises every iteration). Borrowed only while one rank (or run) is relaxed: while
    /// a thread waits in a parallel loop, rayon may run another part's ranks on it.
    static MARK: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` with this thread's scratch of at least `n` slots.
fn with_mark(n: usize, f: impl FnOnce(&mut [u32])) {
    MARK.with(|mark| {
        let mut mark = mark.borrow_mut();
        if mark.len() < n {
            mark.resize(n, 0);
        }
        f(&mut mark)
    })
}

impl Cells {
    /// `edges` edges, every direction unreachable and without a witness.
    fn unset(edges: usize, witnesses: bool) -> Self {
        Self {
            w: (0..2 * edges).map(|_| AtomicU32::new(UNREACHABLE)).collect(),
            why: (0..if witnesses { 2 * edges } else { 0 }).map(|_| AtomicU64::new(NONE)).collect(),
        }
    }

    /// Slot pair `i` (edge `i`, or a run's copy of a rank's edge `i`) through the lower triangle of
    /// `e1 = {v, x}` (its weights `lower`) and `e2 = {v, y}` read from `from`'s weights: `x → v → y` is
    /// down(e1) + up(e2), `y → v → x` down(e2) + up(e1). A triangle replaces the current value only
    /// when strictly lighter, and an edge's triangles come in ascending `v`, so the witness is
    /// deterministic: the input arc when it ties, else the lowest `v`. Only the task that owns the
    /// slots writes them.
    #[inline]
    fn relax_into(&self, i: usize, from: &Cells, lower: [u32; 2], e1: usize, e2: usize) {
        for (slot, w) in [2 * i, 2 * i + 1].into_iter().zip(from.through(lower, e2)) {
            if w < self.get(slot) {
                self.w[slot].store(w, Ordering::Relaxed);
                if !self.why.is_empty() {
                    self.why[slot].store(triangle_witness(e1, e2), Ordering::Relaxed);
                }
            }
        }
    }

    /// The weight in slot `i`.
    #[inline]
    fn get(&self, i: usize) -> u32 {
        self.w[i].load(Ordering::Relaxed)
    }

    /// Edge `e`'s `[up, down]` weights.
    #[inline]
    fn pair(&self, e: usize) -> [u32; 2] {
        [self.get(2 * e), self.get(2 * e + 1)]
    }

    /// `[x → v → y, y → v → x]` through the lower triangle of `e1 = {v, x}` (its weights `lower`) and
    /// `e2 = {v, y}`: down(e1) + up(e2), down(e2) + up(e1).
    #[inline]
    fn through(&self, lower: [u32; 2], e2: usize) -> [u32; 2] {
        [link(lower[1], self.get(2 * e2)), link(self.get(2 * e2 + 1), lower[0])]
    }
}

/// Weights and witnesses during a customisation. Threads touch disjoint edges of one phase, and
/// rayon's joins order the phases, so relaxed atomics are enough (they compile to plain moves).
struct Cells {
    w: Vec<AtomicU32>,
    why: Vec<AtomicU64>,
}

/// Parts with fewer ranks are customised on one thread (a join costs more than they do).
const SERIAL_PART: usize = 512;
/// A separator rank splits its lower neighbours over threads in runs of at least this many triangles.
const PARALLEL_RANK_TRIANGLES: u64 = 1 << 12;

/// No witness (a direction without a path).
const NONE: u64 = u64::MAX;
/// Witness flag of a lower triangle (else the witness is an input arc id).
const TRIANGLE: u64 = 1 << 63;

/// The witness of a lower triangle: its two edges in the word itself, so that unpacking a path reads
/// the witnesses only, not the supergraph as well (a cache miss per shortcut on a query's path; storing
/// the pair took the unpacking of a 682-arc route from about 137 µs to
/// the figure in docs/benchmarks.md). Edge ids must fit in 31 bits: checked by `customised`.
#[inline]
fn triangle_witness(e1: usize, e2: usize) -> u64 {
    TRIANGLE | (e1 as u64) << 32 | e2 as u64
}

/// The two edges of a triangle witness.
#[inline]
fn triangle_edges(why: u64) -> (usize, usize) {
    (((why & !TRIANGLE) >> 32) as usize, (why & 0xffff_ffff) as usize)
}

/// How every hierarchy arc of one customisation was realised, to turn loads on hierarchy arcs
/// (`ContractionHierarchy` slots: up arc `e` is slot `e`, down arc `e` slot `E + e`) into loads on the
/// input arcs.
#[derive(Debug, Clone)]
pub struct Unpacking<'a> {
    cch: &'a Cch,
    /// Per interleaved slot (`2e` up, `2e + 1` down): input arc id, a triangle's edges
    /// ([`triangle_witness`]), or `NONE`.
    witness: Vec<u64>,
    /// For a thinned hierarchy ([`perfect::thin_for_queries`]): the edge of each of its upward and
    /// downward arcs (its arcs are a subset of the edges, renumbered). `None`: arc `f` is edge `f`.
    edge_of: Option<[Vec<u32>; 2]>,
}

impl Unpacking<'_> {
    /// The unpacking slot of arc `f` of `ch.up` (`down` false) or `ch.down` (`down` true) of the
    /// hierarchy this unpacking belongs to (checked by [`Self::check_fits`]).
    #[inline]
    pub(crate) fn slot(&self, f: u32, down: bool) -> usize {
        let e = match &self.edge_of {
            Some(maps) => maps[down as usize][f as usize],
            None => f,
        };
        2 * e as usize + down as usize
    }

    /// An error unless `ch` is the hierarchy of this unpacking's customisation (or its thinned copy
    /// when the unpacking came with it): the arc counts must match, since paths are read through them.
    pub(crate) fn check_fits(&self, ch: &ContractionHierarchy) -> Result<(), SsspError> {
        let edges = self.witness.len() / 2;
        let (up, down) = match &self.edge_of {
            Some([up, down]) => (up.len(), down.len()),
            None => (edges, edges),
        };
        if ch.up.num_arcs() as usize != up || ch.down.num_arcs() as usize != down {
            return Err(SsspError::InvalidParameter(format!(
                "the unpacking belongs to a hierarchy of {up} upward and {down} downward arcs, this one has {} and {}: \
                 pass the unpacking that came with it (a thinned hierarchy has its own)",
                ch.up.num_arcs(),
                ch.down.num_arcs()
            )));
        }
        Ok(())
    }

    /// This unpacking for a thinned copy of its hierarchy whose arcs are the edges `edge_of` (upward,
    /// downward).
    pub(crate) fn for_thinned(&self, edge_of: [Vec<u32>; 2]) -> Self {
        Self { cch: self.cch, witness: self.witness.clone(), edge_of: Some(edge_of) }
    }

    /// Appends the input arcs that realise hierarchy slot `slot` (`2e` up, `2e + 1` down) to `out`, in
    /// path order: a shortcut `x → y` via the lower triangle of `v` is `x → v` then `v → y`.
    pub fn unpack_slot(&self, slot: usize, out: &mut Vec<u32>) {
        self.unpack_slots(&[slot], out);
    }

    /// [`Self::unpack_slot`] for consecutive slots of a path, one work stack for all of them.
    pub fn unpack_slots(&self, slots: &[usize], out: &mut Vec<u32>) {
        let mut stack = Vec::with_capacity(64);
        for &slot in slots {
            stack.push(slot);
            while let Some(slot) = stack.pop() {
                let why = self.witness[slot];
                if why == NONE {
                    continue; // never on a finite path
                }
                if why & TRIANGLE == 0 {
                    out.push(why as u32);
                    continue;
                }
                let (e1, e2) = triangle_edges(why);
                // Edge {x, y} via v, e1 = {v, x}, e2 = {v, y}: up is x → v → y, down is y → v → x. Pushed
                // last half first.
                if slot % 2 == 0 {
                    stack.extend([2 * e2, 2 * e1 + 1]);
                } else {
                    stack.extend([2 * e1, 2 * e2 + 1]);
                }
            }
        }
    }

    /// Input-arc loads of the hierarchy-slot loads `slot_loads` (`2 · edges` long, consumed): each
    /// shortcut's load goes to its two halves, edges from the highest lower endpoint down (a
    /// triangle's halves have lower endpoints below the shortcut's): a separator's edges first, then
    /// both sides of it at once (no shortcut of one side has a half in the other).
    pub fn arc_loads(&self, slot_loads: Vec<u64>) -> Vec<u64> {
        let e_count = self.cch.topo.num_edges();
        assert_eq!(slot_loads.len(), 2 * e_count, "one load per hierarchy slot");
        let loads: Vec<AtomicU64> = slot_loads.into_iter().map(AtomicU64::new).collect();
        let out: Vec<AtomicU64> = (0..self.cch.arc_slot.len()).map(|_| AtomicU64::new(0)).collect();
        if !self.cch.parts.is_empty() {
            self.unpack_part(0, &loads, &out);
        }
        out.into_iter().map(AtomicU64::into_inner).collect()
    }

    fn unpack_part(&self, p: usize, loads: &[AtomicU64], out: &[AtomicU64]) {
        let parts = &self.cch.parts;
        let part = &parts[p];
        let (first_sep, sides) = match part.sides {
            Some([a, b]) if part.ranks.len() >= SERIAL_PART => (parts[b].ranks.end, Some((a, b))),
            _ => (part.ranks.start, None),
        };
        let topo = &self.cch.topo;
        for x in (first_sep..part.ranks.end).rev() {
            for e in (topo.first_out[x as usize] as usize..topo.first_out[x as usize + 1] as usize).rev() {
                self.unpack_edge(e, loads, out);
            }
        }
        if let Some((a, b)) = sides {
            rayon::join(|| self.unpack_part(a, loads, out), || self.unpack_part(b, loads, out));
        }
    }

    /// Hands both directions' loads of edge `e` to their halves or input arcs. Each cell has one
    /// writer at a time (phases ordered by joins), so plain relaxed loads and stores suffice.
    fn unpack_edge(&self, e: usize, loads: &[AtomicU64], out: &[AtomicU64]) {
        let topo = &self.cch.topo;
        let e_count = topo.num_edges();
        let add = |cell: &AtomicU64, x: u64| cell.store(cell.load(Ordering::Relaxed) + x, Ordering::Relaxed);
        for (down, slot) in [(false, e), (true, e_count + e)] {
            let load = loads[slot].load(Ordering::Relaxed);
            if load == 0 {
                continue;
            }
            let why = self.witness[2 * e + down as usize];
            if why & TRIANGLE == 0 {
                debug_assert!(why != NONE, "load on a hierarchy arc without a path");
                add(&out[why as usize], load);
                continue;
            }
            let (e1, e2) = triangle_edges(why);
            // Up x → y = down {v,x} then up {v,y}; down y → x = down {v,y} then up {v,x}.
            let (first_down, then_up) = if down { (e2, e1) } else { (e1, e2) };
            add(&loads[e_count + first_down], load);
            add(&loads[then_up], load);
        }
    }
}
