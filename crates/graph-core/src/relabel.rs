//! Vertex relabelling for memory locality (BFS and reverse Cuthill–McKee orders) that keeps the mapping,
//! so results computed on the relabelled graph come back in the caller's ids.

use std::collections::VecDeque;

use crate::VertexId;
use crate::builder::DuplicatePolicy;
use crate::csr::Csr;
use crate::weight::Weight;

/// A bijection between the caller's vertex ids ("old") and a new numbering.
///
/// ```
/// use urbanflow::graph::{generators, Permutation};
/// let g = generators::grid_2d(4, 5);
/// let p = Permutation::rcm(&g);
/// let h = g.relabel(&p);
/// // A per-vertex result on `h` (here: out-degrees) maps back to the caller's ids.
/// let deg_new: Vec<u32> = (0..h.num_vertices()).map(|v| h.out_degree(v)).collect();
/// let deg_old = p.to_old_order(&deg_new);
/// assert!((0..g.num_vertices()).all(|v| deg_old[v as usize] == g.out_degree(v)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permutation {
    new_of_old: Vec<VertexId>,
    old_of_new: Vec<VertexId>,
}

impl Permutation {
    /// The identity on `n` vertices.
    pub fn identity(n: u32) -> Self {
        let ids: Vec<u32> = (0..n).collect();
        Self { new_of_old: ids.clone(), old_of_new: ids }
    }

    /// From `old_of_new` (the old id of each new position); `None` if it is not a permutation.
    pub fn from_old_of_new(old_of_new: Vec<VertexId>) -> Option<Self> {
        let n = old_of_new.len();
        let mut new_of_old = vec![u32::MAX; n];
        for (new, &old) in old_of_new.iter().enumerate() {
            if old as usize >= n || new_of_old[old as usize] != u32::MAX {
                return None;
            }
            new_of_old[old as usize] = new as u32;
        }
        Some(Self { new_of_old, old_of_new })
    }

    /// Breadth-first order over the undirected structure, each component started from its lowest id.
    pub fn bfs<W: Weight>(g: &Csr<W>) -> Self {
        let und = g.symmetrise(DuplicatePolicy::KeepFirst).0;
        let order = traverse(&und, |_| 0, false);
        Self::from_old_of_new(order).expect("a traversal visits every vertex once")
    }

    /// Reverse Cuthill–McKee order over the undirected structure: each component starts from a
    /// pseudo-peripheral vertex (found by repeated BFS), neighbours are visited by increasing degree, and
    /// the whole order is reversed. Small bandwidth means neighbours sit close in memory.
    pub fn rcm<W: Weight>(g: &Csr<W>) -> Self {
        let und = g.symmetrise(DuplicatePolicy::KeepFirst).0;
        let deg: Vec<u32> = (0..und.num_vertices()).map(|v| und.out_degree(v)).collect();
        let mut order = traverse(&und, |v| deg[v as usize], true);
        order.reverse();
        Self::from_old_of_new(order).expect("a traversal visits every vertex once")
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.old_of_new.len()
    }

    /// True for the permutation of no vertices.
    pub fn is_empty(&self) -> bool {
        self.old_of_new.is_empty()
    }

    /// New id of an old vertex.
    pub fn to_new(&self, old: VertexId) -> VertexId {
        self.new_of_old[old as usize]
    }

    /// Old id of a new vertex.
    pub fn to_old(&self, new: VertexId) -> VertexId {
        self.old_of_new[new as usize]
    }

    /// The whole old → new table.
    pub fn new_of_old(&self) -> &[VertexId] {
        &self.new_of_old
    }

    /// The whole new → old table.
    pub fn old_of_new(&self) -> &[VertexId] {
        &self.old_of_new
    }

    /// Reorders a per-vertex array indexed by new ids into the caller's (old) order.
    pub fn to_old_order<T: Copy>(&self, by_new: &[T]) -> Vec<T> {
        assert_eq!(by_new.len(), self.len(), "one value per vertex");
        self.new_of_old.iter().map(|&new| by_new[new as usize]).collect()
    }

    /// Reorders a per-vertex array indexed by old ids into the new order.
    pub fn to_new_order<T: Copy>(&self, by_old: &[T]) -> Vec<T> {
        assert_eq!(by_old.len(), self.len(), "one value per vertex");
        self.old_of_new.iter().map(|&old| by_old[old as usize]).collect()
    }

    /// The inverse permutation.
    pub fn inverse(&self) -> Self {
        Self { new_of_old: self.old_of_new.clone(), old_of_new: self.new_of_old.clone() }
    }
}

/// Visits every vertex breadth-first; `by_key` orders each vertex's unvisited neighbours (when `sorted`)
/// and, with `peripheral`, each component starts from a pseudo-peripheral vertex.
fn traverse(und: &Csr<impl Weight>, key: impl Fn(VertexId) -> u32, peripheral: bool) -> Vec<VertexId> {
    let n = und.num_vertices() as usize;
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut queue = VecDeque::new();
    let mut nbrs = Vec::new();
    for root in 0..n as u32 {
        if seen[root as usize] {
            continue;
        }
        let start = if peripheral { pseudo_peripheral(und, root) } else { root };
        seen[start as usize] = true;
        queue.push_back(start);
        while let Some(u) = queue.pop_front() {
            order.push(u);
            nbrs.clear();
            nbrs.extend(und.targets_of(u).iter().copied().filter(|&v| !seen[v as usize]));
            if peripheral {
                nbrs.sort_by_key(|&v| (key(v), v));
            }
            for &v in &nbrs {
                if !seen[v as usize] {
                    seen[v as usize] = true;
                    queue.push_back(v);
                }
            }
        }
    }
    order
}

/// George–Liu heuristic: BFS from `v`, restart from a farthest vertex of smallest degree while the
/// eccentricity grows (at most a few rounds).
fn pseudo_peripheral(und: &Csr<impl Weight>, mut v: VertexId) -> VertexId {
    let mut best_ecc = 0;
    let mut dist: Vec<u32> = vec![u32::MAX; und.num_vertices() as usize];
    let mut touched = Vec::new();
    for _ in 0..8 {
        for &t in &touched {
            dist[t as usize] = u32::MAX;
        }
        touched.clear();
        let mut queue = VecDeque::from([v]);
        dist[v as usize] = 0;
        touched.push(v);
        let mut far = v;
        while let Some(u) = queue.pop_front() {
            let du = dist[u as usize];
            let better = du > dist[far as usize]
                || (du == dist[far as usize] && und.out_degree(u) < und.out_degree(far));
            if better {
                far = u;
            }
            for &w in und.targets_of(u) {
                if dist[w as usize] == u32::MAX {
                    dist[w as usize] = du + 1;
                    touched.push(w);
                    queue.push_back(w);
                }
            }
        }
        let ecc = dist[far as usize];
        if ecc <= best_ecc {
            break;
        }
        best_ecc = ecc;
        v = far;
    }
    v
}

impl<W: Weight> Csr<W> {
    /// The same graph with vertex `old` renamed `perm.to_new(old)`. Each vertex keeps its arcs in the
    /// same order, so arc `k` of old vertex `u` is arc `k` of new vertex `perm.to_new(u)`.
    pub fn relabel(&self, perm: &Permutation) -> Csr<W> {
        assert_eq!(perm.len(), self.num_vertices() as usize, "permutation size must equal n");
        let n = self.num_vertices() as usize;
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0u32);
        let mut targets = Vec::with_capacity(self.num_arcs() as usize);
        let mut weights = Vec::with_capacity(self.num_arcs() as usize);
        for new in 0..n as u32 {
            let old = perm.to_old(new);
            targets.extend(self.targets_of(old).iter().map(|&h| perm.to_new(h)));
            weights.extend_from_slice(self.weights_of(old));
            offsets.push(targets.len() as u32);
        }
        Csr::from_parts_unchecked(offsets, targets, weights)
    }

    /// Bandwidth: the largest `|u - v|` over arcs; a locality measure that RCM reduces.
    pub fn bandwidth(&self) -> u32 {
        self.arcs().map(|(u, v, _)| u.abs_diff(v)).max().unwrap_or(0)
    }
}
