//! The one Dijkstra: generic over the label type (u32, u64, f64), the queue ([`Frontier`]) and the
//! graph's arcs ([`OutArcs`]), with a settle hook and a reusable workspace.
//!
//! Every CPU shortest-path tree of the workspace runs through [`dijkstra_search`]: the integer engine and
//! its many-source rows ([`crate::cpu::dijkstra`]), exact real-valued paths ([`crate::real`]),
//! traffic assignment's f64 trees and its fixed-point twins (algos-tap). What differs between them is
//! said by the caller: the hook decides per settled vertex whether to expand it, skip its arcs (zones
//! that may not be passed through) or stop (all targets settled, a cutoff passed), and the workspace
//! records predecessor arcs and the vertices touched when asked.
//!
//! ```
//! use urbanflow::sssp::cpu::queue::LazyHeap;
//! use urbanflow::sssp::cpu::search::{Settle, Workspace, dijkstra_search};
//! let g = urbanflow::graph::generators::grid_2d(3, 3); // unit weights, vertex r * 3 + c
//! let mut dist = vec![u32::MAX; 9];
//! let mut ws = Workspace::new(LazyHeap::with_capacity(16)).with_predecessors(9);
//! let mut order = Vec::new();
//! dijkstra_search(&g, 0, &mut dist, &mut ws, |v, _| {
//!     order.push(v);
//!     Settle::Expand
//! });
//! assert_eq!(dist[8], 4);
//! assert_eq!(order.len(), 9);
//! assert_eq!(g.targets()[ws.pred()[1] as usize], 1); // the arc that reached vertex 1 ends there
//! ```

use graph_core::{Csr, Weight};

use crate::cpu::label::Label;
use crate::cpu::queue::Frontier;
use crate::paths::NO_ARC;

/// The arcs leaving each vertex, with their weights as labels and an arc id (what predecessors record).
pub trait OutArcs<L> {
    /// Calls `relax(head, weight, arc id)` for every arc leaving `v`.
    fn for_each_out(&self, v: u32, relax: impl FnMut(u32, L, u32));
}

impl OutArcs<u32> for Csr<u32> {
    #[inline]
    fn for_each_out(&self, v: u32, mut relax: impl FnMut(u32, u32, u32)) {
        let (targets, weights) = (self.targets(), self.weights());
        for a in self.arc_range(v) {
            relax(targets[a], weights[a], a as u32);
        }
    }
}

/// A graph of any [`Weight`] type searched with f64 labels (exact real-valued paths).
#[derive(Debug, Clone, Copy)]
pub struct RealWeights<'a, W>(pub &'a Csr<W>);

impl<W: Weight> OutArcs<f64> for RealWeights<'_, W> {
    #[inline]
    fn for_each_out(&self, v: u32, mut relax: impl FnMut(u32, f64, u32)) {
        let (targets, weights) = (self.0.targets(), self.0.weights());
        for a in self.0.arc_range(v) {
            relax(targets[a], weights[a].to_f64(), a as u32);
        }
    }
}

/// A forward or reverse star: `offsets` per vertex, per arc position the other end in `ends` and, for
/// a reverse star, the arc id in `arc_of`; weights by arc id.
#[derive(Debug, Clone, Copy)]
pub struct Star<'a, L> {
    /// Arc positions of vertex `v`: `offsets[v]..offsets[v + 1]`.
    pub offsets: &'a [u32],
    /// The other end of each arc (by arc id).
    pub ends: &'a [u32],
    /// Arc id at each position (`None`: the position is the id).
    pub arc_of: Option<&'a [u32]>,
    /// Weight of each arc (by arc id).
    pub weights: &'a [L],
}

impl<L: Label> OutArcs<L> for Star<'_, L> {
    #[inline]
    fn for_each_out(&self, v: u32, mut relax: impl FnMut(u32, L, u32)) {
        for p in self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize {
            let a = self.arc_of.map_or(p, |m| m[p] as usize);
            relax(self.ends[a], self.weights[a], a as u32);
        }
    }
}

/// What the search does with a vertex it settles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settle {
    /// Relax its arcs.
    Expand,
    /// Keep its label but do not relax its arcs (a vertex that may not be passed through).
    Skip,
    /// Stop the search now (this vertex counts as settled; the labels of unsettled vertices are
    /// upper bounds, or unreached).
    Stop,
}

/// The reusable part of a search: the queue, and on request the predecessor arc of every labelled
/// vertex and the list of vertices labelled (to reset only those).
#[derive(Debug, Clone)]
pub struct Workspace<L: Label, F: Frontier<L>> {
    frontier: F,
    pred: Vec<u32>,
    touched: Option<Vec<u32>>,
    _label: std::marker::PhantomData<L>,
}

impl<L: Label, F: Frontier<L>> Workspace<L, F> {
    /// A workspace around `frontier`, recording neither predecessors nor touched vertices.
    pub fn new(frontier: F) -> Self {
        Self { frontier, pred: Vec::new(), touched: None, _label: std::marker::PhantomData }
    }

    /// Also records the arc that last improved each vertex's label (`n` vertices).
    pub fn with_predecessors(mut self, n: usize) -> Self {
        self.pred = vec![NO_ARC; n];
        self
    }

    /// Also lists the vertices labelled, so that [`Workspace::reset`] costs the tree's size, not `n`.
    pub fn with_touched(mut self) -> Self {
        self.touched = Some(Vec::new());
        self
    }

    /// Predecessor arcs (empty unless [`Workspace::with_predecessors`]).
    pub fn pred(&self) -> &[u32] {
        &self.pred
    }

    /// Vertices labelled by the last search (empty unless [`Workspace::with_touched`]).
    pub fn touched(&self) -> &[u32] {
        self.touched.as_deref().unwrap_or(&[])
    }

    /// The queue.
    pub fn frontier_mut(&mut self) -> &mut F {
        &mut self.frontier
    }

    /// Makes `dist` unreached again: only the touched vertices when they are listed, else all of it;
    /// predecessors likewise.
    pub fn reset(&mut self, dist: &mut [L]) {
        match &mut self.touched {
            Some(touched) => {
                for &v in touched.iter() {
                    dist[v as usize] = L::UNREACHED;
                    if let Some(p) = self.pred.get_mut(v as usize) {
                        *p = NO_ARC;
                    }
                }
                touched.clear();
            }
            None => {
                dist.fill(L::UNREACHED);
                self.pred.fill(NO_ARC);
            }
        }
    }
}

/// Dijkstra from `source` over `graph` into `dist` (all [`Label::UNREACHED`] on entry: use
/// [`Workspace::reset`] between searches), calling `settle(v, label)` for each vertex in label order.
/// The queue is empty again on return, whatever made the search end.
pub fn dijkstra_search<L, F, G>(
    graph: &G,
    source: u32,
    dist: &mut [L],
    ws: &mut Workspace<L, F>,
    settle: impl FnMut(u32, L) -> Settle,
) where
    L: Label,
    F: Frontier<L>,
    G: OutArcs<L> + ?Sized,
{
    let Workspace { frontier, pred, touched, .. } = ws;
    // The bookkeeping asked for is fixed for a whole search: one loop per combination, so the relax
    // step of a plain search carries no per-arc test for it (measured: the tests cost a single-thread
    // NY tree about 5%).
    match (!pred.is_empty(), touched.as_mut()) {
        (false, None) => search_loop::<_, _, _, _, false, false>(
            graph,
            source,
            dist,
            frontier,
            pred,
            &mut Vec::new(),
            settle,
        ),
        (true, None) => search_loop::<_, _, _, _, true, false>(
            graph,
            source,
            dist,
            frontier,
            pred,
            &mut Vec::new(),
            settle,
        ),
        (false, Some(t)) => {
            search_loop::<_, _, _, _, false, true>(graph, source, dist, frontier, pred, t, settle)
        }
        (true, Some(t)) => {
            search_loop::<_, _, _, _, true, true>(graph, source, dist, frontier, pred, t, settle)
        }
    }
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn search_loop<L, F, G, S, const RECORD: bool, const TOUCH: bool>(
    graph: &G,
    source: u32,
    dist: &mut [L],
    frontier: &mut F,
    pred: &mut [u32],
    touched: &mut Vec<u32>,
    mut settle: S,
) where
    L: Label,
    F: Frontier<L>,
    G: OutArcs<L> + ?Sized,
    S: FnMut(u32, L) -> Settle,
{
    start::<L, F, TOUCH>(source, dist, frontier, touched);
    while let Some((d, u)) = pop_settled(frontier, dist) {
        match settle(u, d) {
            Settle::Expand => {}
            Settle::Skip => continue,
            Settle::Stop => {
                frontier.clear();
                break;
            }
        }
        relax_arcs::<L, F, G, RECORD, TOUCH>(graph, u, d, dist, frontier, pred, touched, |_, _| {});
    }
}

/// Labels `source` with zero and queues it.
#[inline(always)]
fn start<L: Label, F: Frontier<L>, const TOUCH: bool>(
    source: u32,
    dist: &mut [L],
    frontier: &mut F,
    touched: &mut Vec<u32>,
) {
    dist[source as usize] = L::ZERO;
    if TOUCH {
        touched.push(source);
    }
    frontier.push(source, L::ZERO);
}

/// The next vertex to settle and its label, stale entries of a lazy queue skipped (a vertex is pushed
/// again only on strict improvement).
#[inline(always)]
fn pop_settled<L: Label, F: Frontier<L>>(frontier: &mut F, dist: &[L]) -> Option<(L, u32)> {
    while let Some((d, u)) = frontier.pop() {
        if d <= dist[u as usize] {
            return Some((d, u));
        }
    }
    None
}

/// Relaxes the arcs leaving `u` (label `d`), calling `improved(v, label)` for every label lowered.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn relax_arcs<L, F, G, const RECORD: bool, const TOUCH: bool>(
    graph: &G,
    u: u32,
    d: L,
    dist: &mut [L],
    frontier: &mut F,
    pred: &mut [u32],
    touched: &mut Vec<u32>,
    mut improved: impl FnMut(u32, L),
) where
    L: Label,
    F: Frontier<L>,
    G: OutArcs<L> + ?Sized,
{
    graph.for_each_out(u, |v, w, a| {
        let nd = d.extend(w);
        let old = dist[v as usize];
        if nd < old {
            if TOUCH && old == L::UNREACHED {
                touched.push(v);
            }
            dist[v as usize] = nd;
            if RECORD {
                pred[v as usize] = a;
            }
            frontier.push(v, nd);
            improved(v, nd);
        }
    });
}

/// The same search one vertex at a time, for callers that interleave searches (a bidirectional
/// query alternates two): [`Workspace::begin`], then [`Workspace::settle_next`] and
/// [`Workspace::expand`] in turn. [`dijkstra_search`] is these steps in a loop.
impl<L: Label, F: Frontier<L>> Workspace<L, F> {
    /// Starts a search from `source` (`dist` all unreached, as for [`dijkstra_search`]).
    pub fn begin(&mut self, source: u32, dist: &mut [L]) {
        match self.touched.as_mut() {
            Some(t) => start::<L, F, true>(source, dist, &mut self.frontier, t),
            None => start::<L, F, false>(source, dist, &mut self.frontier, &mut Vec::new()),
        }
    }

    /// The next vertex in label order and its label, or `None` when the search is exhausted.
    pub fn settle_next(&mut self, dist: &[L]) -> Option<(L, u32)> {
        pop_settled(&mut self.frontier, dist)
    }

    /// Relaxes the arcs leaving the settled vertex `u` (label `d`); `improved(v, label)` hears of every
    /// label lowered.
    pub fn expand<G: OutArcs<L> + ?Sized>(
        &mut self,
        graph: &G,
        u: u32,
        d: L,
        dist: &mut [L],
        improved: impl FnMut(u32, L),
    ) {
        let Workspace { frontier, pred, touched, .. } = self;
        match (!pred.is_empty(), touched.as_mut()) {
            (false, None) => relax_arcs::<L, F, G, false, false>(
                graph,
                u,
                d,
                dist,
                frontier,
                pred,
                &mut Vec::new(),
                improved,
            ),
            (true, None) => relax_arcs::<L, F, G, true, false>(
                graph,
                u,
                d,
                dist,
                frontier,
                pred,
                &mut Vec::new(),
                improved,
            ),
            (false, Some(t)) => {
                relax_arcs::<L, F, G, false, true>(graph, u, d, dist, frontier, pred, t, improved)
            }
            (true, Some(t)) => {
                relax_arcs::<L, F, G, true, true>(graph, u, d, dist, frontier, pred, t, improved)
            }
        }
    }

    /// Ends a search early: empties the queue.
    pub fn stop(&mut self) {
        self.frontier.clear();
    }
}
