//! The result of a single-source computation: distances, predecessor arcs, paths.

use crate::error::{SsspError, TreeIssue};
use graph_core::Csr;

/// Distance of an unreachable vertex.
pub const UNREACHABLE: u32 = u32::MAX;
/// Saturation bound: a sum reaching it means the true distance does not fit in u32.
pub const SATURATED: u32 = u32::MAX - 1;
/// "No predecessor" (the source, unreachable vertices).
pub const NO_ARC: u32 = u32::MAX;

/// Counters describing how much work a run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SsspStats {
    /// Phases (GPU iterations, Δ-stepping buckets; settled vertices for Dijkstra).
    pub phases: u64,
    /// GPU dispatches recorded.
    pub dispatches: u64,
    /// Host round trips (readbacks) during the solve.
    pub readbacks: u64,
    /// Arc relaxations performed (CPU algorithms; 0 where not counted).
    pub relaxations: u64,
}

/// Shortest-path distances from one source, with predecessor arcs when asked for. Vertex ids are the
/// graph's own (the caller's); `dist[v] == UNREACHABLE` for vertices not reached (or not settled
/// before an early exit / cutoff).
#[derive(Debug, Clone, PartialEq)]
pub struct ShortestPaths {
    /// The source.
    pub source: u32,
    /// Distance per vertex.
    pub dist: Vec<u32>,
    /// Predecessor arc per vertex (`NO_ARC` for the source and unreached vertices), when requested.
    pub pred_arc: Option<Vec<u32>>,
    /// Work counters.
    pub stats: SsspStats,
    /// The algorithm that ran ([`crate::Algorithm::Auto`] decided).
    pub algorithm: crate::Algorithm,
}

impl ShortestPaths {
    /// Distance to `v`, `None` when not reached.
    pub fn distance(&self, v: u32) -> Option<u32> {
        self.dist.get(v as usize).copied().filter(|&d| d != UNREACHABLE)
    }

    /// Number of reached vertices.
    pub fn reached(&self) -> usize {
        self.dist.iter().filter(|&&d| d != UNREACHABLE).count()
    }

    /// Sum of finite distances modulo 2^64 (the examples' checksum).
    pub fn checksum(&self) -> u64 {
        self.dist.iter().filter(|&&d| d != UNREACHABLE).fold(0u64, |a, &d| a.wrapping_add(d as u64))
    }

    /// The vertices of a shortest path from the source to `t` (both included), or `None` when `t` was
    /// not reached or predecessors were not computed.
    pub fn path_to(&self, graph: &Csr<u32>, t: u32) -> Option<Vec<u32>> {
        let pred = self.pred_arc.as_ref()?;
        self.distance(t)?;
        let mut path = vec![t];
        let mut v = t;
        while v != self.source {
            let a = pred[v as usize];
            if a == NO_ARC || path.len() > self.dist.len() {
                return None;
            }
            v = tail_of(graph, a);
            path.push(v);
        }
        path.reverse();
        Some(path)
    }
}

/// Tail of arc `a` (binary search in the offsets).
pub fn tail_of<W: graph_core::Weight>(graph: &Csr<W>, a: u32) -> u32 {
    graph.offsets().partition_point(|&o| o <= a) as u32 - 1
}

/// `a + b` saturating at [`SATURATED`], with [`UNREACHABLE`] absorbing.
#[inline]
pub fn sat_add(a: u32, b: u32) -> u32 {
    if a == UNREACHABLE {
        UNREACHABLE
    } else if a >= SATURATED - b.min(SATURATED) {
        SATURATED
    } else {
        a + b
    }
}

/// Checks that `r` holds shortest distances (no arc relaxable) and, if present, that its predecessors
/// form a shortest-path tree rooted at the source.
pub fn check_shortest_path_tree(graph: &Csr<u32>, r: &ShortestPaths) -> Result<(), SsspError> {
    let s = r.source;
    if r.dist[s as usize] != 0 {
        return Err(SsspError::NotAShortestPathTree(TreeIssue::BadSource));
    }
    for (a, (u, v, w)) in graph.arcs().enumerate() {
        if sat_add(r.dist[u as usize], w) < r.dist[v as usize] {
            return Err(SsspError::NotAShortestPathTree(TreeIssue::NotShortest(a as u32)));
        }
    }
    let Some(pred) = &r.pred_arc else { return Ok(()) };
    if pred[s as usize] != NO_ARC {
        return Err(SsspError::NotAShortestPathTree(TreeIssue::BadSource));
    }
    for v in 0..graph.num_vertices() {
        if v == s {
            continue;
        }
        let a = pred[v as usize];
        let reached = r.dist[v as usize] != UNREACHABLE;
        if (a == NO_ARC) == reached {
            return Err(SsspError::NotAShortestPathTree(TreeIssue::MissingPredecessor(v)));
        }
        if !reached {
            continue;
        }
        let u = tail_of(graph, a);
        let ok = graph.targets()[a as usize] == v
            && sat_add(r.dist[u as usize], graph.weights()[a as usize]) == r.dist[v as usize];
        if !ok {
            return Err(SsspError::NotAShortestPathTree(TreeIssue::NotTight(v)));
        }
    }
    // Every reached vertex leads back to the source within n steps.
    let n = graph.num_vertices() as usize;
    let mut state = vec![0u8; n]; // 0 unknown, 1 on stack, 2 good
    state[s as usize] = 2;
    for v in 0..n as u32 {
        if r.dist[v as usize] == UNREACHABLE || state[v as usize] == 2 {
            continue;
        }
        let mut chain = vec![];
        let mut x = v;
        while state[x as usize] == 0 {
            state[x as usize] = 1;
            chain.push(x);
            x = tail_of(graph, pred[x as usize]);
        }
        if state[x as usize] == 1 {
            return Err(SsspError::NotAShortestPathTree(TreeIssue::Cycle(v)));
        }
        for c in chain {
            state[c as usize] = 2;
        }
    }
    Ok(())
}
