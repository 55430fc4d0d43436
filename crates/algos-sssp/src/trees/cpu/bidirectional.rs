//! Point-to-point queries without a hierarchy: bidirectional Dijkstra, a forward search from the source
//! and a backward one from the target (on the reverse graph) taking turns, stopped once the labels last
//! settled on both sides add up to the best meeting found, or once either side runs out (an unreachable
//! target costs the smaller of the two reachable sets, not the source's whole component).
//!
//! For users who cannot afford a hierarchy's preparation (one query on a graph read once, a metric that
//! changes every query): it settles about half the vertices a one-sided search to the target settles.
//! Both sides run the one generic search ([`crate::cpu::search`]) a vertex at a time.
//!
//! Why the stop is exact: let `lf` and `lb` be the labels settled last on each side and `mu` the best
//! `dist_f(v) + dist_b(v)` over vertices labelled on both. Every vertex with `dist(s, v) < lf` is settled
//! forward and every one with `dist(v, t) < lb` backward. If a path `P` shorter than `mu` existed, take its
//! last vertex `x` settled forward and the next one `y`: `dist(s, y) ≥ lf`, so `dist(y, t) < mu − lf ≤ lb`
//! once `lf + lb ≥ mu`, so `y` is settled backward; whichever of the two settles came second relaxed the
//! arc `x → y` against the other's final label and set `mu ≤ |P|`, a contradiction.
//!
//! ```
//! use urbanflow::sssp::cpu::bidirectional::BidirectionalQuery;
//! use urbanflow::graph::GraphBuilder;
//! let mut b = GraphBuilder::new(4);
//! b.add_arc(0, 1, 4).add_arc(0, 2, 1).add_arc(2, 1, 2).add_arc(1, 3, 5);
//! let g = b.build().unwrap().0;
//! let mut q = BidirectionalQuery::new(&g);
//! assert_eq!(q.distance(0, 3).unwrap(), Some(8));
//! assert_eq!(q.distance(3, 0).unwrap(), None);
//! let route = q.path(0, 3).unwrap().unwrap();
//! assert_eq!((route.distance, route.vertices), (8, vec![0, 2, 1, 3]));
//! ```

use graph_core::{Csr, Transposed};

use crate::cpu::dijkstra::RADIX_HEAP_MIN_VERTICES;
use crate::cpu::queue::{Frontier, LazyHeap};
use crate::cpu::radix_heap::RadixHeap;
use crate::cpu::search::Workspace;
use crate::error::SsspError;
use crate::paths::{SATURATED, UNREACHABLE};

/// A shortest path between two vertices: its length, its vertices from source to target and the ids of
/// its arcs in the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The path's length in the graph's weight units.
    pub distance: u32,
    /// Vertices from the source to the target (both included).
    pub vertices: Vec<u32>,
    /// Arc ids of the graph, in path order (`vertices.len() − 1` of them).
    pub arcs: Vec<u32>,
}

/// One side of the query: labels, predecessor arcs and the queue, reset by the vertices touched only.
#[derive(Debug, Clone)]
struct Side<F: Frontier<u32>> {
    dist: Vec<u32>,
    ws: Workspace<u32, F>,
    /// Label of the vertex settled last (0 after the start).
    last: u32,
}

impl<F: Frontier<u32>> Side<F> {
    fn new(n: usize, frontier: F) -> Self {
        let ws = Workspace::new(frontier).with_predecessors(n).with_touched();
        Self { dist: vec![UNREACHABLE; n], ws, last: 0 }
    }

    fn begin(&mut self, source: u32) {
        self.ws.reset(&mut self.dist);
        self.ws.begin(source, &mut self.dist);
        self.last = 0;
    }
}

/// Both sides, with the queue [`crate::cpu::dijkstra`] measured faster for the graph's size (a radix
/// heap from [`RADIX_HEAP_MIN_VERTICES`] vertices).
#[derive(Debug, Clone)]
enum Sides {
    Binary(Side<LazyHeap<u32>>, Side<LazyHeap<u32>>),
    Radix(Box<(Side<RadixHeap>, Side<RadixHeap>)>),
}

/// Reusable state of bidirectional Dijkstra queries on one graph: the reverse graph (built once, O(m))
/// and both sides' arrays; a query costs the vertices it touches, not `n`.
#[derive(Debug, Clone)]
pub struct BidirectionalQuery<'g> {
    graph: &'g Csr<u32>,
    reverse: Transposed<u32>,
    sides: Sides,
}

impl<'g> BidirectionalQuery<'g> {
    /// Query state for `graph` (builds its reverse graph).
    pub fn new(graph: &'g Csr<u32>) -> Self {
        let n = graph.num_vertices() as usize;
        let sides = if graph.num_vertices() >= RADIX_HEAP_MIN_VERTICES {
            Sides::Radix(Box::new((Side::new(n, RadixHeap::new()), Side::new(n, RadixHeap::new()))))
        } else {
            let heap = || LazyHeap::with_capacity(256);
            Sides::Binary(Side::new(n, heap()), Side::new(n, heap()))
        };
        Self { graph, reverse: graph.transpose(), sides }
    }

    /// The distance from `s` to `t`, `None` when `t` cannot be reached. Errors: a vertex out of range,
    /// a distance reaching the saturation bound `u32::MAX − 1` (as Dijkstra).
    pub fn distance(&mut self, s: u32, t: u32) -> Result<Option<u32>, SsspError> {
        Ok(self.search(s, t)?.map(|(d, _)| d))
    }

    /// The shortest path from `s` to `t` with its vertices and arc ids, `None` when unreachable.
    pub fn path(&mut self, s: u32, t: u32) -> Result<Option<Route>, SsspError> {
        let Some((distance, meet)) = self.search(s, t)? else { return Ok(None) };
        let targets = self.graph.targets();
        let tails = |a: u32| self.reverse.graph.targets()[self.reverse_position(a)];
        // Forward predecessors are graph arcs ending at each vertex; backward ones are reverse-graph arcs
        // (mapped to the graph's ids) leaving each vertex towards the target.
        let mut arcs = Vec::new();
        let (forward_pred, backward_pred) = match &self.sides {
            Sides::Binary(f, b) => (f.ws.pred(), b.ws.pred()),
            Sides::Radix(sides) => (sides.0.ws.pred(), sides.1.ws.pred()),
        };
        let mut v = meet;
        while v != s {
            let a = forward_pred[v as usize];
            arcs.push(a);
            v = tails(a);
        }
        arcs.reverse();
        let mut v = meet;
        while v != t {
            let a = self.reverse.rev_to_fwd[backward_pred[v as usize] as usize];
            arcs.push(a);
            v = targets[a as usize];
        }
        let mut vertices = Vec::with_capacity(arcs.len() + 1);
        vertices.push(s);
        vertices.extend(arcs.iter().map(|&a| targets[a as usize]));
        Ok(Some(Route { distance, vertices, arcs }))
    }

    /// The position in the reverse graph of graph arc `a` (its tail is the reverse arc's head).
    fn reverse_position(&self, a: u32) -> usize {
        let head = self.graph.targets()[a as usize];
        let range = self.reverse.graph.arc_range(head);
        // A vertex's in-arcs appear in forward arc-id order: binary search among them.
        let ids = &self.reverse.rev_to_fwd[range.clone()];
        range.start + ids.binary_search(&a).expect("every arc has its reverse")
    }

    /// Both searches in turn; the distance and the meeting vertex.
    fn search(&mut self, s: u32, t: u32) -> Result<Option<(u32, u32)>, SsspError> {
        let n = self.graph.num_vertices();
        if s >= n {
            return Err(SsspError::SourceOutOfRange { vertex: s, n });
        }
        if t >= n {
            return Err(SsspError::TargetOutOfRange { target: t, n });
        }
        let best = match &mut self.sides {
            Sides::Binary(f, b) => meet(self.graph, &self.reverse.graph, f, b, s, t),
            Sides::Radix(sides) => {
                let (f, b) = &mut **sides;
                meet(self.graph, &self.reverse.graph, f, b, s, t)
            }
        };
        match best {
            Some((d, _)) if d >= SATURATED as u64 => Err(SsspError::WeightOverflow { bound: SATURATED }),
            Some((d, v)) => Ok(Some((d as u32, v))),
            None => Ok(None),
        }
    }
}

/// Both searches in turn from `s` on `graph` and from `t` on `reverse`; the best meeting (distance as
/// u64, vertex) once the stop rule holds.
fn meet<F: Frontier<u32>>(
    graph: &Csr<u32>,
    reverse: &Csr<u32>,
    forward: &mut Side<F>,
    backward: &mut Side<F>,
    s: u32,
    t: u32,
) -> Option<(u64, u32)> {
    forward.begin(s);
    backward.begin(t);
    // Meeting candidates are checked whenever a label drops on one side where the other side has one.
    let mut best: Option<(u64, u32)> = (s == t).then_some((0, s));
    let mut turn_forward = true;
    loop {
        if let Some((mu, _)) = best
            && forward.last as u64 + backward.last as u64 >= mu
        {
            break;
        }
        let (side, other, arcs): (&mut Side<F>, &Side<F>, &Csr<u32>) = if turn_forward {
            (&mut *forward, &*backward, graph)
        } else {
            (&mut *backward, &*forward, reverse)
        };
        turn_forward = !turn_forward;
        // A side that runs out has settled everything it reaches with final labels, and the other
        // side's start was labelled 0 from the outset: the best meeting is the answer (none: no path).
        let Some((d, u)) = side.ws.settle_next(&side.dist) else { break };
        side.last = d;
        let Side { dist, ws, .. } = side;
        ws.expand(arcs, u, d, dist, |v, label| {
            let there = other.dist[v as usize];
            if there != UNREACHABLE {
                let sum = label as u64 + there as u64;
                if best.is_none_or(|(mu, _)| sum < mu) {
                    best = Some((sum, v));
                }
            }
        });
    }
    forward.ws.stop();
    backward.ws.stop();

    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::dijkstra::{Stop, dijkstra};
    use proptest::prelude::*;

    fn random_graph(n: u32, arcs: &[(u32, u32, u32)]) -> Csr<u32> {
        let mut b = graph_core::GraphBuilder::new(n);
        for &(u, v, w) in arcs {
            b.add_arc(u % n, v % n, w);
        }
        b.build().unwrap().0
    }

    proptest! {
        // Zero weights, parallel arcs, self-loops, unreachable pairs: distance equals Dijkstra's, and the
        // path is a chain of the graph's arcs that costs what it claims.
        #[test]
        fn equals_dijkstra(n in 1u32..40, arcs in prop::collection::vec((0u32..40, 0u32..40, 0u32..20), 0..120)) {
            let g = random_graph(n, &arcs);
            let mut q = BidirectionalQuery::new(&g);
            for s in 0..n {
                let (d, _) = dijkstra(&g, s, &Stop::default()).unwrap();
                for t in 0..n {
                    let want = (d[t as usize] != UNREACHABLE).then_some(d[t as usize]);
                    prop_assert_eq!(q.distance(s, t).unwrap(), want, "{} -> {}", s, t);
                    let route = q.path(s, t).unwrap();
                    prop_assert_eq!(route.as_ref().map(|r| r.distance), want);
                    if let Some(r) = route {
                        prop_assert_eq!(r.vertices.first(), Some(&s));
                        prop_assert_eq!(r.vertices.last(), Some(&t));
                        let mut at = s;
                        let mut cost = 0;
                        for &a in &r.arcs {
                            prop_assert!(g.arc_range(at).contains(&(a as usize)));
                            cost += g.weights()[a as usize];
                            at = g.targets()[a as usize];
                        }
                        prop_assert_eq!(cost, r.distance);
                        prop_assert_eq!(at, t);
                    }
                }
            }
        }
    }

    // A graph large enough for the radix-heap sides: a grid with pseudo-random weights.
    #[test]
    fn radix_sides_equal_dijkstra() {
        let grid = graph_core::generators::grid_2d(320, 320);
        assert!(grid.num_vertices() >= RADIX_HEAP_MIN_VERTICES);
        let weights = (0..grid.num_arcs()).map(|a| (a.wrapping_mul(2_654_435_761) >> 20) % 100).collect();
        let g = grid.with_weights(weights).unwrap();
        let mut q = BidirectionalQuery::new(&g);
        assert!(matches!(q.sides, Sides::Radix(..)));
        for k in 0..6u32 {
            let (s, t) = (k * 17_011 % g.num_vertices(), k * 40_503 % g.num_vertices());
            let (d, _) = dijkstra(&g, s, &Stop::default()).unwrap();
            assert_eq!(q.path(s, t).unwrap().map(|r| r.distance), Some(d[t as usize]));
        }
    }

    #[test]
    fn out_of_range_and_overflow_are_errors() {
        let g = random_graph(3, &[(0, 1, u32::MAX / 2), (1, 2, u32::MAX / 2)]);
        let mut q = BidirectionalQuery::new(&g);
        assert!(matches!(q.distance(3, 0), Err(SsspError::SourceOutOfRange { .. })));
        assert!(matches!(q.distance(0, 9), Err(SsspError::TargetOutOfRange { .. })));
        assert!(matches!(q.distance(0, 2), Err(SsspError::WeightOverflow { .. })));
        assert_eq!(q.distance(0, 1).unwrap(), Some(u32::MAX / 2));
    }
}
