//! The simple undirected graph the enumeration runs on, built with an explicit policy for what real
//! files hold (directed arcs, both directions of each edge, self-loops, parallel edges).

use graph_core::{Csr, Weight};

use crate::CyclesError;

/// What to do with input that is not a simple undirected graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Simplify {
    /// Take every arc as an undirected edge, drop self-loops, merge parallel edges; say what changed.
    #[default]
    Repair,
    /// Refuse input with self-loops or repeated edges (each undirected edge given once).
    Reject,
}

/// What [`SimpleGraph`]'s constructors changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SimplifyReport {
    /// Self-loops dropped.
    pub self_loops: u64,
    /// Edges given more than once, merged (an edge given as `u v` and `v u` counts once here: the usual
    /// way road graphs store both directions).
    pub repeated: u64,
    /// Arcs `u → v` whose reverse was absent: taken as undirected edges all the same.
    pub one_way: u64,
}

/// A simple undirected graph: symmetric adjacency, sorted, no loops, no repeated edges.
///
/// ```
/// use urbanflow::cycles::{SimpleGraph, Simplify};
/// // Both directions of each edge, as road files store them, and one self-loop.
/// let (g, report) = SimpleGraph::from_edges(3, &[(0, 1), (1, 0), (1, 2), (2, 2)], Simplify::Repair).unwrap();
/// assert_eq!((g.num_vertices(), g.num_edges()), (3, 2));
/// assert_eq!((report.repeated, report.self_loops), (1, 1));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleGraph {
    offsets: Vec<u32>,
    adj: Vec<u32>,
}

impl SimpleGraph {
    /// From an edge list over vertices `0..n`.
    pub fn from_edges(
        n: u32,
        edges: &[(u32, u32)],
        policy: Simplify,
    ) -> Result<(Self, SimplifyReport), CyclesError> {
        let mut report = SimplifyReport::default();
        let mut pairs: Vec<(u32, u32, usize)> = Vec::with_capacity(edges.len());
        for (index, &(u, v)) in edges.iter().enumerate() {
            if u >= n || v >= n {
                return Err(CyclesError::VertexOutOfRange { index, u, v, n });
            }
            if u == v {
                if policy == Simplify::Reject {
                    return Err(CyclesError::NotSimple { what: "a self-loop", index, u, v });
                }
                report.self_loops += 1;
                continue;
            }
            pairs.push((u.min(v), u.max(v), index));
        }
        // Directions, for the one-way count: an unordered pair given only as u → v (u ≠ v).
        let mut directed: Vec<(u32, u32)> =
            edges.iter().filter(|(u, v)| u != v && *u < n && *v < n).copied().collect();
        directed.sort_unstable();
        directed.dedup();
        pairs.sort_unstable();
        let mut unique: Vec<(u32, u32)> = Vec::with_capacity(pairs.len());
        for &(u, v, index) in &pairs {
            if unique.last() == Some(&(u, v)) {
                if policy == Simplify::Reject {
                    return Err(CyclesError::NotSimple { what: "a repeated edge", index, u, v });
                }
                report.repeated += 1;
            } else {
                unique.push((u, v));
            }
        }
        report.one_way = unique
            .iter()
            .filter(|&&(u, v)| {
                directed.binary_search(&(u, v)).is_err() || directed.binary_search(&(v, u)).is_err()
            })
            .count() as u64;
        if policy == Simplify::Repair {
            // An edge given once in one direction is not "one way" in an undirected edge list; it is when
            // the input mixes both-direction pairs with single arcs. Report single arcs only then.
            let both = unique.len() as u64 - report.one_way;
            if both == 0 {
                report.one_way = 0;
            }
        }
        // Offsets are u32: both directions of every edge must fit.
        if unique.len() as u64 * 2 > u32::MAX as u64 {
            return Err(CyclesError::TooManyEdges { edges: unique.len() as u64, max: u32::MAX as u64 / 2 });
        }
        let mut degree = vec![0u32; n as usize + 1];
        for &(u, v) in &unique {
            degree[u as usize] += 1;
            degree[v as usize] += 1;
        }
        let mut offsets = vec![0u32; n as usize + 1];
        for k in 0..n as usize {
            offsets[k + 1] = offsets[k] + degree[k];
        }
        let mut fill = offsets.clone();
        let mut adj = vec![0u32; 2 * unique.len()];
        for &(u, v) in &unique {
            adj[fill[u as usize] as usize] = v;
            fill[u as usize] += 1;
            adj[fill[v as usize] as usize] = u;
            fill[v as usize] += 1;
        }
        for k in 0..n as usize {
            adj[offsets[k] as usize..offsets[k + 1] as usize].sort_unstable();
        }
        Ok((Self { offsets, adj }, report))
    }

    /// From any graph-core graph, every arc taken as an undirected edge (weights ignored).
    pub fn from_csr<W: Weight>(g: &Csr<W>, policy: Simplify) -> Result<(Self, SimplifyReport), CyclesError> {
        let edges: Vec<(u32, u32)> =
            (0..g.num_vertices()).flat_map(|u| g.targets_of(u).iter().map(move |&v| (u, v))).collect();
        Self::from_edges(g.num_vertices(), &edges, policy)
    }

    /// Vertices.
    pub fn num_vertices(&self) -> u32 {
        (self.offsets.len() - 1) as u32
    }

    /// Undirected edges.
    pub fn num_edges(&self) -> u64 {
        self.adj.len() as u64 / 2
    }

    /// Neighbours of `v`, ascending.
    pub fn neighbours(&self, v: u32) -> &[u32] {
        &self.adj[self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize]
    }

    /// Whether `u` and `v` are adjacent (binary search in the shorter list).
    pub fn adjacent(&self, u: u32, v: u32) -> bool {
        let (a, b) = if self.degree(u) <= self.degree(v) { (u, v) } else { (v, u) };
        self.neighbours(a).binary_search(&b).is_ok()
    }

    /// Offsets and adjacency arrays (neighbours of `v` at `adj[offsets[v]..offsets[v + 1]]`).
    pub(crate) fn raw(&self) -> (&[u32], &[u32]) {
        (&self.offsets, &self.adj)
    }

    /// Degree of `v`.
    pub fn degree(&self, v: u32) -> u32 {
        self.offsets[v as usize + 1] - self.offsets[v as usize]
    }

    /// The same graph with vertex `v` renamed `new_of[v]`; `new_of` must be a permutation of `0..n`
    /// (anything else is refused as out of range or repeated edges).
    pub fn relabelled(&self, new_of: &[u32]) -> Result<Self, CyclesError> {
        let n = self.num_vertices();
        let edges: Vec<(u32, u32)> = (0..n)
            .flat_map(|u| self.neighbours(u).iter().filter(move |&&v| u < v).map(move |&v| (u, v)))
            .map(|(u, v)| {
                (new_of.get(u as usize).copied().unwrap_or(n), new_of.get(v as usize).copied().unwrap_or(n))
            })
            .collect();
        Self::from_edges(n, &edges, Simplify::Reject).map(|(g, _)| g)
    }
}
