//! Isochrones: everything reachable within a budget from one or several origins, with the tree that
//! reaches it.
//!
//! A bounded Dijkstra from all origins at once (a virtual source joined to each by a zero arc, run by
//! the one generic search), stopped at the first label past the budget: it costs the vertices reached,
//! not the graph, and needs no preparation. The alternative, a PHAST sweep of a hierarchy's whole
//! downward graph (`n` vertices whatever the budget) cut at the budget, was measured against it in
//! `benches/isochrone.rs` (docs/benchmarks.md, "Isochrones"; one thread): on NY the search is 20× faster
//! for budgets reaching 1 % of the tree and 4.5× at 10 %; they are even at half the tree, and the sweep
//! is 2.1× faster only for a budget that reaches everything (34 against 73 ms) — after a hierarchy that
//! costs 0.7 s from the cache and 3 s to build. An isochrone therefore always runs the search; a user with
//! a customised hierarchy and whole-graph budgets wants trees ([`crate::ch::ContractionHierarchy::phast`]).
//!
//! ```
//! use urbanflow::sssp::isochrone::within;
//! let g = urbanflow::graph::generators::grid_2d(5, 5); // unit weights, vertex r * 5 + c
//! let reach = within(&g, &[0, 24], 2).unwrap();
//! assert_eq!(reach.reached(), 12); // 6 vertices within 2 of each corner
//! assert_eq!(reach.distance(12), None); // the centre is 4 from both
//! assert_eq!(reach.origin_of(2), Some(0));
//! ```

use graph_core::Csr;

use crate::cpu::queue::LazyHeap;
use crate::cpu::search::{OutArcs, Settle, Workspace, dijkstra_search};
use crate::error::SsspError;
use crate::paths::{NO_ARC, SATURATED, UNREACHABLE};

/// The vertices within a budget and how they are reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reach {
    /// The budget, in the graph's weight units.
    pub budget: u32,
    /// Distance from the nearest origin, `UNREACHABLE` beyond the budget (by vertex).
    pub dist: Vec<u32>,
    /// The graph arc that reaches each vertex on its shortest path, `NO_ARC` at origins and beyond.
    pub pred_arc: Vec<u32>,
    /// Index (into [`Reach::origins`]) of the origin each reached vertex is nearest to, `u32::MAX`
    /// beyond the budget; a vertex as near to two origins goes to the one whose search reached it first.
    pub nearest_origin: Vec<u32>,
    /// The origins, as given.
    pub origins: Vec<u32>,
}

impl Reach {
    /// Distance of `v` from the nearest origin, `None` beyond the budget.
    pub fn distance(&self, v: u32) -> Option<u32> {
        let d = self.dist[v as usize];
        (d != UNREACHABLE).then_some(d)
    }

    /// The origin (a vertex) whose area `v` lies in, `None` beyond the budget.
    pub fn origin_of(&self, v: u32) -> Option<u32> {
        let k = self.nearest_origin[v as usize];
        (k != u32::MAX).then(|| self.origins[k as usize])
    }

    /// Number of vertices within the budget.
    pub fn reached(&self) -> usize {
        self.dist.iter().filter(|&&d| d != UNREACHABLE).count()
    }

    /// The reached vertices with their distances, nearest first (ties by vertex id).
    pub fn vertices(&self) -> Vec<(u32, u32)> {
        let mut out: Vec<(u32, u32)> =
            (0..self.dist.len() as u32).filter_map(|v| self.distance(v).map(|d| (v, d))).collect();
        out.sort_unstable_by_key(|&(v, d)| (d, v));
        out
    }

    /// The tree's arcs: `(tail, head, arc id)` for every reached vertex that is not an origin.
    pub fn tree_arcs<'a>(&'a self, graph: &'a Csr<u32>) -> impl Iterator<Item = (u32, u32, u32)> + 'a {
        (0..self.dist.len() as u32).filter_map(move |v| {
            let a = self.pred_arc[v as usize];
            (a != NO_ARC).then(|| (crate::paths::tail_of(graph, a), v, a))
        })
    }
}

/// The graph with one more vertex, `n`, joined to every origin by a zero-weight arc (arc ids `m + k`).
struct FromOrigins<'a> {
    graph: &'a Csr<u32>,
    origins: &'a [u32],
}

impl OutArcs<u32> for FromOrigins<'_> {
    #[inline]
    fn for_each_out(&self, v: u32, mut relax: impl FnMut(u32, u32, u32)) {
        if v == self.graph.num_vertices() {
            let m = self.graph.num_arcs();
            for (k, &o) in self.origins.iter().enumerate() {
                relax(o, 0, m + k as u32);
            }
        } else {
            self.graph.for_each_out(v, relax);
        }
    }
}

/// Everything within `budget` (the graph's weight units, inclusive) of the nearest of `origins`, with
/// shortest-path tree and nearest origin per vertex. Errors: an origin out of range, no origin, a
/// graph of `u32::MAX` vertices (no room for the virtual source).
///
/// ```
/// let g = urbanflow::graph::generators::grid_2d(5, 5); // unit weights, vertex = row * 5 + column
/// let reach = urbanflow::sssp::isochrone::within(&g, &[0, 24], 2)?;
/// assert_eq!(reach.vertices().len(), 12); // six cells around each corner
/// assert_eq!((reach.distance(12), reach.distance(2)), (None, Some(2)));
/// assert_eq!(reach.origin_of(23), Some(24));
/// # Ok::<(), urbanflow::sssp::SsspError>(())
/// ```
pub fn within(graph: &Csr<u32>, origins: &[u32], budget: u32) -> Result<Reach, SsspError> {
    let n = graph.num_vertices();
    if let Some(&vertex) = origins.iter().find(|&&o| o >= n) {
        return Err(SsspError::SourceOutOfRange { vertex, n });
    }
    if origins.is_empty() {
        return Err(SsspError::InvalidParameter("an isochrone needs at least one origin".into()));
    }
    if n == u32::MAX {
        return Err(SsspError::InvalidParameter(
            "no room for a virtual source in a graph of u32::MAX vertices".into(),
        ));
    }
    let budget = budget.min(SATURATED - 1);
    let arcs = FromOrigins { graph, origins };
    let mut dist = vec![UNREACHABLE; n as usize + 1];
    let mut ws = Workspace::new(LazyHeap::with_capacity(1024)).with_predecessors(n as usize + 1);
    // Settle order: a vertex's tree parent settles before it (zero arcs make distance order ambiguous).
    let mut order = Vec::new();
    dijkstra_search(&arcs, n, &mut dist, &mut ws, |v, d| {
        if d > budget {
            return Settle::Stop;
        }
        order.push(v);
        Settle::Expand
    });
    dist.pop();
    // Labels past the budget are upper bounds of vertices not settled: beyond.
    let mut pred_arc = ws.pred()[..n as usize].to_vec();
    let m = graph.num_arcs();
    for v in 0..n as usize {
        if dist[v] > budget {
            dist[v] = UNREACHABLE;
            pred_arc[v] = NO_ARC;
        }
    }
    // Each vertex takes its tree parent's origin; origins are the virtual source's children.
    let mut nearest_origin = vec![u32::MAX; n as usize];
    for &v in &order[1..] {
        let a = pred_arc[v as usize];
        nearest_origin[v as usize] =
            if a >= m { a - m } else { nearest_origin[crate::paths::tail_of(graph, a) as usize] };
        if a >= m {
            pred_arc[v as usize] = NO_ARC;
        }
    }
    Ok(Reach { budget, dist, pred_arc, nearest_origin, origins: origins.to_vec() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::dijkstra::{Stop, dijkstra};
    use proptest::prelude::*;

    proptest! {
        // Equal to the minimum over one Dijkstra per origin, cut at the budget; the tree's arcs cost what
        // the labels say; every vertex is assigned an origin at its distance.
        #[test]
        fn equals_dijkstra_per_origin(
            n in 1u32..30,
            arcs in prop::collection::vec((0u32..30, 0u32..30, 0u32..10), 0..90),
            origins in prop::collection::vec(0u32..30, 1..4),
            budget in 0u32..25,
        ) {
            let mut b = graph_core::GraphBuilder::new(n);
            for &(u, v, w) in &arcs {
                b.add_arc(u % n, v % n, w);
            }
            let g = b.build().unwrap().0;
            let origins: Vec<u32> = origins.iter().map(|o| o % n).collect();
            let reach = within(&g, &origins, budget).unwrap();
            let rows: Vec<Vec<u32>> = origins.iter().map(|&o| dijkstra(&g, o, &Stop::default()).unwrap().0).collect();
            for v in 0..n {
                let best = rows.iter().map(|r| r[v as usize]).min().unwrap();
                let want = (best <= budget).then_some(best);
                prop_assert_eq!(reach.distance(v), want, "vertex {}", v);
                if let Some(d) = want {
                    let o = reach.origin_of(v).unwrap();
                    let k = origins.iter().position(|&x| x == o).unwrap();
                    prop_assert_eq!(rows[k][v as usize], d);
                }
            }
            for (u, v, a) in reach.tree_arcs(&g) {
                prop_assert_eq!(reach.dist[u as usize] + g.weights()[a as usize], reach.dist[v as usize]);
            }
        }
    }

    #[test]
    fn bad_origins_are_errors() {
        let g = graph_core::generators::grid_2d(2, 2);
        assert!(matches!(within(&g, &[4], 3), Err(SsspError::SourceOutOfRange { .. })));
        assert!(matches!(within(&g, &[], 3), Err(SsspError::InvalidParameter(_))));
    }
}
