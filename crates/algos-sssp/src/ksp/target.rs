//! What an MPS ranking needs that depends on the target alone: distances to the target (π), and every
//! vertex's out-arcs sorted by reduced cost (the *sorted forward star*), whose first arc defines the
//! shortest-path tree towards the target.

use crate::SsspError;
use std::time::{Duration, Instant};

use graph_core::Csr;
use rayon::prelude::*;

use super::check_vertex;
use crate::cpu::dijkstra::{Stop, dijkstra};
use crate::paths::UNREACHABLE;

/// Vertices per parallel task when picking the tree arcs (road graphs: a few arcs each).
const TREE_BLOCK: usize = 4096;

/// No tree arc.
const NO_ARC: u32 = u32::MAX;

/// Distances to one target and the sorted forward star, reusable for any number of sources.
///
/// Building it costs one Dijkstra on the reverse graph (or distances given,
/// [`with_distances`](Self::with_distances)) and one pass over the arcs for every vertex's tree arc;
/// every [`query`](Self::query) or [`iter`](Self::iter) towards the same target then costs only the
/// ranking, which sorts the stars of the vertices it deviates at.
///
/// The star orders each vertex `v`'s arcs `v → h` with `π(h) < ∞` by reduced cost
/// `c̄ = w + π(h) − π(v)`, then by arc id. The first arc of the star (`c̄ = 0`) is `v`'s arc in the
/// tree towards the target. **Zero-weight arcs**: a cycle of zero-weight arcs could make that rule
/// point round the cycle forever, so on graphs with a zero-weight arc the order is (c̄, tight hops
/// from `h` to the target, arc id): the tree arc then always leads one hop closer. The star order
/// decides only how candidates are generated, never which paths come out or in what order: that is
/// fixed by (cost, arc sequence) alone. (With zero-weight arcs a path can then be found after an
/// equal-cost path that it precedes in arc order, so the iterator collects each cost class before
/// giving it out.)
///
/// ```
/// use urbanflow::sssp::ksp::MpsTarget;
/// use urbanflow::graph::GraphBuilder;
/// let mut b = GraphBuilder::new(3);
/// b.add_arc(0, 2, 5).add_arc(0, 1, 1).add_arc(1, 2, 1).add_arc(1, 0, 1);
/// let g = b.build().unwrap().0;
/// let to2 = MpsTarget::new(&g, 2).unwrap();
/// assert_eq!(to2.distance(0), Some(2));
/// // Every source reuses the same preparation.
/// let from0: Vec<u64> = to2.iter(0).unwrap().map(|p| p.cost).collect();
/// let from1: Vec<u64> = to2.iter(1).unwrap().map(|p| p.cost).collect();
/// assert_eq!(from0, [2, 5]);
/// assert_eq!(from1, [1, 6]);
/// ```
#[derive(Debug, Clone)]
pub struct MpsTarget<'g> {
    pub(crate) g: &'g Csr<u32>,
    pub(crate) t: u32,
    pub(crate) pi: Vec<u32>,
    /// Every vertex's tree arc, the first of its star ([`NO_ARC`] at the target and where it cannot
    /// be reached). The rest of a star is sorted only when a ranking deviates there
    /// ([`Self::star_into`]): a ranking visits a few thousand vertices, and sorting every vertex's
    /// star for every target cost more than NY's distances by PHAST (docs/benchmarks.md).
    pub(crate) tree: Vec<u32>,
    /// Fewest tight arcs to the target, on graphs with a zero-weight arc (the stars' second key).
    pub(crate) hops: Option<Vec<u32>>,
    pub(crate) prep_time: Duration,
    /// The graph has a zero-weight arc (stars ordered with hops; see the type's docs).
    pub(crate) zero_weights: bool,
}

impl<'g> MpsTarget<'g> {
    /// Prepares rankings towards `t` (builds the reverse graph itself: for many targets on one graph,
    /// use [`with_reverse`](Self::with_reverse) with one [`Csr::transpose`]).
    pub fn new(g: &'g Csr<u32>, t: u32) -> Result<Self, SsspError> {
        check_vertex(g, "target", t)?;
        let start = Instant::now();
        let rev = g.transpose().graph;
        let mut target = Self::with_reverse(g, &rev, t)?;
        target.prep_time = start.elapsed();
        Ok(target)
    }

    /// Prepares rankings towards `t`, given `rev`, the reverse of `g` (its arc ids do not matter).
    pub fn with_reverse(g: &'g Csr<u32>, rev: &Csr<u32>, t: u32) -> Result<Self, SsspError> {
        check_vertex(g, "target", t)?;
        check_reverse(g, rev)?;
        let start = Instant::now();
        let (pi, _) = dijkstra(rev, t, &Stop::default())?;
        let mut target = Self::with_distances(g, rev, t, pi)?;
        target.prep_time = start.elapsed();
        Ok(target)
    }

    /// Prepares rankings towards `t` from `pi`, every vertex's distance to `t` in `g` (`UNREACHABLE`
    /// where there is none) computed elsewhere — PHAST on a reversed hierarchy
    /// ([`crate::ch::ContractionHierarchy::reversed`]) gives many targets' at once. `rev` is the
    /// reverse of `g`, read only on graphs with zero-weight arcs. `pi` must be exact: the rankings'
    /// reduced costs assume it.
    ///
    /// ```
    /// use urbanflow::sssp::ch::ContractionHierarchy;
    /// use urbanflow::sssp::ksp::MpsTarget;
    /// let g = urbanflow::graph::generators::grid_2d(3, 3);
    /// let rev = g.transpose().graph;
    /// let pi = ContractionHierarchy::build(&g).unwrap().reversed().phast(&[8]).unwrap().remove(0);
    /// let to8 = MpsTarget::with_distances(&g, &rev, 8, pi).unwrap();
    /// let costs: Vec<u64> = to8.iter(0).unwrap().take(3).map(|p| p.cost).collect();
    /// assert_eq!(costs, [4, 4, 4]);
    /// ```
    pub fn with_distances(g: &'g Csr<u32>, rev: &Csr<u32>, t: u32, pi: Vec<u32>) -> Result<Self, SsspError> {
        check_vertex(g, "target", t)?;
        check_reverse(g, rev)?;
        if pi.len() != g.num_vertices() as usize || pi[t as usize] != 0 {
            return Err(SsspError::InvalidParameter(format!(
                "distances to target {t}: {} entries for {} vertices, {} at the target (expected 0)",
                pi.len(),
                g.num_vertices(),
                pi.get(t as usize).map_or("none".to_string(), |d| d.to_string())
            )));
        }
        let start = Instant::now();
        let zero_weights = g.weights().contains(&0);
        let hops = zero_weights.then(|| tight_hops(rev, &pi, t));
        let tree = tree_arcs(g, &pi, hops.as_deref(), t);
        Ok(Self { g, t, pi, tree, hops, prep_time: start.elapsed(), zero_weights })
    }

    /// The target.
    pub fn target(&self) -> u32 {
        self.t
    }

    /// The graph.
    pub fn graph(&self) -> &'g Csr<u32> {
        self.g
    }

    /// Distance from `v` to the target, `None` if the target cannot be reached (or `v` is no vertex).
    pub fn distance(&self, v: u32) -> Option<u32> {
        self.pi.get(v as usize).copied().filter(|&d| d != UNREACHABLE)
    }

    /// Time spent building this preparation (reverse graph, distances, stars).
    pub fn prep_time(&self) -> Duration {
        self.prep_time
    }

    /// `v`'s out-arcs in star order (arcs whose head cannot reach the target left out).
    pub fn star(&self, v: u32) -> Vec<u32> {
        let mut star = Vec::new();
        self.star_into(v, &mut Vec::new(), &mut star);
        star
    }

    /// [`Self::star`] into `star`, with `keyed` as scratch (what a ranking reuses per deviation).
    pub(crate) fn star_into(&self, v: u32, keyed: &mut Vec<(u64, u32, u32)>, star: &mut Vec<u32>) {
        star.clear();
        keyed.clear();
        if self.pi[v as usize] == UNREACHABLE {
            return;
        }
        keyed.extend(star_keys(self.g, &self.pi, self.hops.as_deref(), v));
        keyed.sort_unstable();
        star.extend(keyed.iter().map(|&(_, _, a)| a));
    }

    /// The tree arc out of `v` (first of its star); `None` at the target or where the target cannot
    /// be reached.
    pub fn tree_arc(&self, v: u32) -> Option<u32> {
        self.tree.get(v as usize).copied().filter(|&a| a != NO_ARC)
    }

    /// Reduced cost of arc `a` (tail `v`): `w + π(head) − π(v)`; only for arcs in a star.
    pub fn reduced_cost(&self, v: u32, a: u32) -> u64 {
        let h = self.g.targets()[a as usize];
        self.g.weights()[a as usize] as u64 + self.pi[h as usize] as u64 - self.pi[v as usize] as u64
    }
}

/// `rev` has `g`'s vertex and arc counts (what a reverse must have; its arcs are not compared).
fn check_reverse(g: &Csr<u32>, rev: &Csr<u32>) -> Result<(), SsspError> {
    if rev.num_vertices() != g.num_vertices() || rev.num_arcs() != g.num_arcs() {
        return Err(SsspError::NotTheReverse {
            vertices: (g.num_vertices(), rev.num_vertices()),
            arcs: (g.num_arcs(), rev.num_arcs()),
        });
    }
    Ok(())
}

/// Fewest arcs from each vertex to `t` over tight arcs (`π(v) = w + π(h)`); `u32::MAX` where `π` is
/// infinite. Every vertex that reaches `t` has a tight path (its shortest path), so the count is finite.
fn tight_hops(rev: &Csr<u32>, pi: &[u32], t: u32) -> Vec<u32> {
    let mut hops = vec![u32::MAX; pi.len()];
    let mut queue = std::collections::VecDeque::from([t]);
    hops[t as usize] = 0;
    while let Some(x) = queue.pop_front() {
        for (y, w) in rev.out_arcs(x) {
            let (py, px) = (pi[y as usize], pi[x as usize]);
            if py != UNREACHABLE && hops[y as usize] == u32::MAX && px as u64 + w as u64 == py as u64 {
                hops[y as usize] = hops[x as usize] + 1;
                queue.push_back(y);
            }
        }
    }
    hops
}

/// `v`'s out-arcs whose heads reach the target (`π` finite), keyed for the star order: (reduced
/// cost `w + π(h) − π(v)`, hops from `h` where given, else 0, arc id). `π(v)` must be finite.
fn star_keys<'a>(
    g: &'a Csr<u32>,
    pi: &'a [u32],
    hops: Option<&'a [u32]>,
    v: u32,
) -> impl Iterator<Item = (u64, u32, u32)> + 'a {
    let (heads, weights) = (g.targets(), g.weights());
    let pv = pi[v as usize] as u64;
    g.arc_range(v).filter_map(move |a| {
        let h = heads[a] as usize;
        (pi[h] != UNREACHABLE)
            .then(|| (weights[a] as u64 + pi[h] as u64 - pv, hops.map_or(0, |hp| hp[h]), a as u32))
    })
}

/// Every vertex's tree arc, the least of its star keys ([`NO_ARC`] at `t` and where `π` is
/// infinite), on all cores.
fn tree_arcs(g: &Csr<u32>, pi: &[u32], hops: Option<&[u32]>, t: u32) -> Vec<u32> {
    let mut tree = vec![NO_ARC; g.num_vertices() as usize];
    tree.par_chunks_mut(TREE_BLOCK).enumerate().for_each(|(b, block)| {
        for (i, arc) in block.iter_mut().enumerate() {
            let v = (b * TREE_BLOCK + i) as u32;
            if v != t && pi[v as usize] != UNREACHABLE {
                *arc = star_keys(g, pi, hops, v).min().map_or(NO_ARC, |(_, _, a)| a);
            }
        }
    });
    tree
}
