//! Point-to-point queries on a customised CCH: the elimination-tree query (Bauer, Columbus, Rutter,
//! Wagner 2016). Every upward path from a vertex stays on its ancestors in the elimination tree, so the
//! forward search from `s` and the backward search from `t` are walks up two tree paths in rank order —
//! no priority queue, no stalling — and the distance is the best sum where the two paths meet. The path
//! comes back in input arcs: each hierarchy arc on it is replaced by the input arc or the lower
//! triangle that realised it during customisation ([`Unpacking`]), recursively.
//!
//! [`CchQuery`] keeps its arrays between queries (no allocation per query); one per thread answers
//! batches (see [`CchQuery::distances`]). The buckets engine of [`crate::matrix`] gives the distances
//! between S sources and T targets without a search per pair: one backward walk per target leaves `(target, distance)`
//! entries in buckets at the ranks it reaches; one forward walk per source reads the buckets of its
//! ranks (Knopp, Sanders, Schultes, Schulz, Wagner 2007, on the elimination tree).
//!
//! ```
//! use urbanflow::sssp::cch::{Cch, CchQuery};
//! use urbanflow::graph::GraphBuilder;
//! let mut b = GraphBuilder::new(4);
//! b.add_arc(0, 1, 4).add_arc(0, 2, 1).add_arc(2, 1, 2).add_arc(1, 3, 5);
//! let g = b.build().unwrap().0;
//! let cch = Cch::build(&g).unwrap();
//! let (ch, unpacking) = cch.customise_with_unpacking(g.weights()).unwrap();
//! let mut q = CchQuery::new(&ch).unwrap();
//! assert_eq!(q.distance(&ch, 0, 3).unwrap(), Some(8));
//! let (d, arcs) = q.path(&ch, &unpacking, 0, 3).unwrap().unwrap();
//! assert_eq!(d, 8);
//! assert_eq!(arcs.iter().map(|&a| g.targets()[a as usize]).collect::<Vec<_>>(), [2, 1, 3]);
//! assert_eq!(q.distance(&ch, 3, 0).unwrap(), None); // no arc leaves 3
//! assert!(q.distance(&ch, 0, 9).is_err()); // 9 is not a vertex
//! ```

use rayon::prelude::*;

use crate::ch::ContractionHierarchy;
use crate::error::SsspError;
use crate::matrix::DistanceMatrix;
use crate::paths::{SATURATED, UNREACHABLE};

use super::Unpacking;

/// No predecessor arc.
const NO_ARC: u32 = u32::MAX;

/// One query state per worker thread, made on the thread's first use, for work spread over all cores.
/// (`map_with` clones its state for every piece rayon splits the work into: 16 bytes a vertex, 4 MB on
/// NY, hundreds of times on a 32-core host — measured as most of the walks' time before the GPU matrix.)
pub(super) struct QueryPool<'c> {
    ch: &'c ContractionHierarchy,
    states: Vec<std::sync::Mutex<Option<CchQuery>>>,
}

impl<'c> QueryPool<'c> {
    /// Room for a state per thread of the current rayon pool; `ch` must be a customised CCH (checked).
    pub(super) fn new(ch: &'c ContractionHierarchy) -> Result<Self, SsspError> {
        // The check of `CchQuery::new`, without allocating a state the workers would not use.
        if ch.elimination_tree.is_none() {
            CchQuery::new(ch)?;
        }
        let states = (0..rayon::current_num_threads().max(1)).map(|_| std::sync::Mutex::new(None)).collect();
        Ok(Self { ch, states })
    }

    /// Runs `f` with this thread's state (the calling thread, outside the pool, shares the first).
    pub(super) fn with<R>(&self, f: impl FnOnce(&mut CchQuery) -> R) -> R {
        let i = rayon::current_thread_index().unwrap_or(0) % self.states.len();
        let mut slot = self.states[i].lock().unwrap_or_else(|e| e.into_inner());
        let q = slot.get_or_insert_with(|| CchQuery::new(self.ch).expect("checked in QueryPool::new"));
        f(q)
    }
}

/// Reusable state of point-to-point queries on one customised CCH (any metric of the same [`super::Cch`]).
#[derive(Debug, Clone)]
pub struct CchQuery {
    /// Forward and backward tentative distances by rank (`UNREACHABLE` outside a query's two paths).
    forward: Vec<u32>,
    backward: Vec<u32>,
    /// The hierarchy arc (edge index) each rank was reached by, per direction.
    forward_arc: Vec<u32>,
    backward_arc: Vec<u32>,
}

impl CchQuery {
    /// Query state for hierarchies of `ch`'s size; `ch` must come from [`super::Cch::customise`] (it
    /// carries the elimination tree the query walks).
    pub fn new(ch: &ContractionHierarchy) -> Result<Self, SsspError> {
        if ch.elimination_tree.is_none() {
            return Err(SsspError::InvalidParameter(
                "point-to-point queries walk the elimination tree of a CCH: customise a Cch".into(),
            ));
        }
        let n = ch.rank.len();
        Ok(Self {
            forward: vec![UNREACHABLE; n],
            backward: vec![UNREACHABLE; n],
            forward_arc: vec![NO_ARC; n],
            backward_arc: vec![NO_ARC; n],
        })
    }

    /// The shortest-path distance from `s` to `t` (input vertex ids), `None` when `t` cannot be
    /// reached. Equal to Dijkstra's: a vertex outside the graph, or a distance that reaches the
    /// saturation bound `u32::MAX − 1`, is an error.
    pub fn distance(&mut self, ch: &ContractionHierarchy, s: u32, t: u32) -> Result<Option<u32>, SsspError> {
        check_ends(ch, s, t)?;
        let found = self.search_keeping(ch, s, t);
        self.reset(ch, s, t);
        checked(found).map(|f| f.map(|(d, _)| d))
    }

    /// The distance and the path from `s` to `t` as input arc ids (of the graph the CCH was built
    /// from, in its arc order), `None` when `t` cannot be reached. `unpacking` must come from the same
    /// customisation as `ch` ([`super::Cch::customise_with_unpacking`]).
    pub fn path(
        &mut self,
        ch: &ContractionHierarchy,
        unpacking: &Unpacking<'_>,
        s: u32,
        t: u32,
    ) -> Result<Option<(u32, Vec<u32>)>, SsspError> {
        check_ends(ch, s, t)?;
        unpacking.check_fits(ch)?;
        let found = self.search_keeping(ch, s, t);
        let Some((d, meet)) = checked(found).inspect_err(|_| self.reset(ch, s, t))? else {
            self.reset(ch, s, t);
            return Ok(None);
        };
        let mut arcs = Vec::new();
        let parent = ch.elimination_tree.as_deref().expect("checked in new");
        let mut walk = Vec::new();
        // s up to the meeting rank: the forward arcs, collected from the top and reversed.
        let mut slots = Vec::new();
        for_each_arc_down(&ch.up, parent, ch.rank[s as usize], meet, &self.forward_arc, &mut walk, |f| {
            slots.push(unpacking.slot(f, false))
        });
        slots.reverse();
        // The meeting rank down to t: the backward arcs, in path order.
        for_each_arc_down(&ch.down, parent, ch.rank[t as usize], meet, &self.backward_arc, &mut walk, |f| {
            slots.push(unpacking.slot(f, true))
        });
        unpacking.unpack_slots(&slots, &mut arcs);
        self.reset(ch, s, t);
        Ok(Some((d, arcs)))
    }

    /// [`Self::path`] as vertices: `s`, then the head of each arc of the path in `graph` (the graph the
    /// CCH was built from), ending at `t`. `None` when `t` cannot be reached.
    ///
    /// ```
    /// use urbanflow::sssp::cch::{Cch, CchQuery};
    /// use urbanflow::graph::GraphBuilder;
    /// let mut b = GraphBuilder::new(4);
    /// b.add_arc(0, 1, 4).add_arc(0, 2, 1).add_arc(2, 1, 2).add_arc(1, 3, 5);
    /// let g = b.build().unwrap().0;
    /// let cch = Cch::build(&g).unwrap();
    /// let (ch, unpacking) = cch.customise_with_unpacking(g.weights()).unwrap();
    /// let mut q = CchQuery::new(&ch).unwrap();
    /// assert_eq!(q.path_vertices(&ch, &unpacking, &g, 0, 3).unwrap(), Some((8, vec![0, 2, 1, 3])));
    /// assert_eq!(q.path_vertices(&ch, &unpacking, &g, 3, 0).unwrap(), None);
    /// ```
    pub fn path_vertices<W: graph_core::Weight>(
        &mut self,
        ch: &ContractionHierarchy,
        unpacking: &Unpacking<'_>,
        graph: &graph_core::Csr<W>,
        s: u32,
        t: u32,
    ) -> Result<Option<(u32, Vec<u32>)>, SsspError> {
        if graph.num_vertices() as usize != ch.rank.len() {
            return Err(SsspError::InvalidParameter(format!(
                "path_vertices: the graph has {} vertices but the hierarchy {}: pass the graph it was built from",
                graph.num_vertices(),
                ch.rank.len()
            )));
        }
        let Some((d, arcs)) = self.path(ch, unpacking, s, t)? else { return Ok(None) };
        let mut vertices = Vec::with_capacity(arcs.len() + 1);
        vertices.push(s);
        for a in arcs {
            let head = graph.targets().get(a as usize).copied().ok_or_else(|| {
                SsspError::InvalidParameter(format!(
                    "path_vertices: arc {a} is not an arc of the graph: pass the graph the hierarchy was built from"
                ))
            })?;
            vertices.push(head);
        }
        Ok(Some((d, vertices)))
    }

    /// Distances for many `(source, target)` pairs on all cores, one query state per thread.
    pub fn distances(ch: &ContractionHierarchy, pairs: &[(u32, u32)]) -> Result<Vec<Option<u32>>, SsspError> {
        let pool = QueryPool::new(ch)?;
        pairs.par_iter().map(|&(s, t)| pool.with(|q| q.distance(ch, s, t))).collect()
    }

    /// [`Engine::Buckets`](crate::matrix::Engine::Buckets): the distance from every source to every
    /// target (input vertex ids), `UNREACHABLE` where none, on all cores: one backward walk per target
    /// fills buckets, one forward walk per source scans them (no search per pair). Equal to Dijkstra's
    /// rows; a distance that reaches the saturation bound `u32::MAX − 1` is an error, as in Dijkstra.
    pub(crate) fn matrix(
        ch: &ContractionHierarchy,
        sources: &[u32],
        targets: &[u32],
    ) -> Result<DistanceMatrix, SsspError> {
        let pool = QueryPool::new(ch)?;
        check_all_ends(ch, sources, targets)?;
        let n = ch.rank.len() as u32;
        // Backward walks, one per target: the (rank, distance) pairs each reaches.
        let reached: Vec<Vec<(u32, u32)>> = targets
            .par_iter()
            .map(|&t| {
                let mut out = Vec::new();
                pool.with(|q| q.walk_labels(ch, t, false, &mut out));
                out.retain(|&(_, d)| d != UNREACHABLE);
                out
            })
            .collect();
        // Buckets by rank, as one array: the targets (column index) and distances reaching each rank.
        let mut start = vec![0u32; n as usize + 1];
        for &(x, _) in reached.iter().flatten() {
            start[x as usize + 1] += 1;
        }
        for x in 0..n as usize {
            start[x + 1] += start[x];
        }
        let total = start[n as usize] as usize;
        let (mut column, mut dist) = (vec![0u32; total], vec![0u32; total]);
        let mut fill = start.clone();
        for (j, list) in reached.iter().enumerate() {
            for &(x, d) in list {
                let k = fill[x as usize] as usize;
                (column[k], dist[k]) = (j as u32, d);
                fill[x as usize] += 1;
            }
        }
        drop(reached);
        // Forward walks, one per source, each scanning the buckets of the ranks it reaches.
        let width = targets.len();
        let mut data = vec![UNREACHABLE; sources.len() * width];
        if width > 0 {
            data.par_chunks_mut(width).zip(sources).for_each_with(Vec::new(), |up, (row, &s)| {
                pool.with(|q| q.walk_labels(ch, s, true, up));
                for &(x, f) in up.iter().filter(|&&(_, f)| f != UNREACHABLE) {
                    let range = start[x as usize] as usize..start[x as usize + 1] as usize;
                    for (&j, &b) in column[range.clone()].iter().zip(&dist[range]) {
                        let sum = (f as u64 + b as u64).min(SATURATED as u64) as u32;
                        let cell = &mut row[j as usize];
                        *cell = (*cell).min(sum);
                    }
                }
            });
        }
        if data.contains(&SATURATED) {
            return Err(SsspError::WeightOverflow { bound: SATURATED });
        }
        Ok(DistanceMatrix { sources: sources.to_vec(), targets: targets.to_vec(), data })
    }

    /// One walk from input vertex `v` (`forward`: up the upward arcs, as a source; else up the reversed
    /// downward arcs, as a target): the label of every rank on its elimination-tree path, from `v`'s
    /// rank up to the root, `UNREACHABLE` where the walk did not reach; the arrays are left clean.
    pub(super) fn walk_labels(
        &mut self,
        ch: &ContractionHierarchy,
        v: u32,
        forward: bool,
        out: &mut Vec<(u32, u32)>,
    ) {
        let parent = ch.elimination_tree.as_deref().expect("checked in new");
        let (csr, dist, arc) = if forward {
            (&ch.up, &mut self.forward, &mut self.forward_arc)
        } else {
            (&ch.down, &mut self.backward, &mut self.backward_arc)
        };
        let r = ch.rank[v as usize];
        walk(csr, parent, r, dist, arc);
        out.clear();
        let mut x = r;
        while x != u32::MAX {
            out.push((x, dist[x as usize]));
            dist[x as usize] = UNREACHABLE;
            arc[x as usize] = NO_ARC;
            x = parent[x as usize];
        }
    }

    /// Both walks; the distance and the meeting rank, the arrays left set for [`Self::path`].
    ///
    /// The two walks go up in rank order side by side until they reach their lowest common ancestor;
    /// from there on they share every rank, and a rank whose label already reaches the best sum found
    /// below it relaxes none of its arcs (pruning: every path through it is at least that long). The
    /// top separators, where the cliques and so most of the arcs are, are skipped this way on most
    /// queries. The distance, the meeting rank and the arcs that lead to it are those of the unpruned
    /// walks: a pruned arc can only give a sum at least the best one, and the best is kept at its
    /// lowest rank, which lies below the pruned ranks whenever they tie it.
    fn search_keeping(&mut self, ch: &ContractionHierarchy, s: u32, t: u32) -> Option<(u32, u32)> {
        let parent = ch.elimination_tree.as_deref().expect("checked in new");
        let (mut xs, mut xt) = (ch.rank[s as usize], ch.rank[t as usize]);
        self.forward[xs as usize] = 0;
        self.backward[xt as usize] = 0;
        // Below the lowest common ancestor: the lower of the two ranks steps (a root is u32::MAX, so a
        // walk that ends waits for the other, which ends too when the two trees differ).
        while xs != xt {
            if xs < xt {
                relax(&ch.up, xs, &mut self.forward, &mut self.forward_arc, SATURATED as u64 + 1);
                xs = parent[xs as usize];
            } else {
                relax(&ch.down, xt, &mut self.backward, &mut self.backward_arc, SATURATED as u64 + 1);
                xt = parent[xt as usize];
            }
        }
        // The shared ranks, pruned by the best sum so far. Sums at or past the saturation bound count
        // as the bound: reported as an overflow (by the callers) unless a shorter meeting exists.
        let mut best: Option<(u32, u32)> = None;
        let mut x = xs;
        while x != u32::MAX {
            let (f, b) = (self.forward[x as usize], self.backward[x as usize]);
            if f != UNREACHABLE && b != UNREACHABLE {
                let sum = (f as u64 + b as u64).min(SATURATED as u64) as u32;
                if best.is_none_or(|(d, _)| sum < d) {
                    best = Some((sum, x));
                }
            }
            let bound = best.map_or(SATURATED as u64 + 1, |(d, _)| d as u64);
            relax(&ch.up, x, &mut self.forward, &mut self.forward_arc, bound);
            relax(&ch.down, x, &mut self.backward, &mut self.backward_arc, bound);
            x = parent[x as usize];
        }
        best
    }

    /// Puts the arrays back to `UNREACHABLE` / no arc along both paths.
    fn reset(&mut self, ch: &ContractionHierarchy, s: u32, t: u32) {
        let parent = ch.elimination_tree.as_deref().expect("checked in new");
        for (start, dist, arc) in [
            (ch.rank[s as usize], &mut self.forward, &mut self.forward_arc),
            (ch.rank[t as usize], &mut self.backward, &mut self.backward_arc),
        ] {
            let mut x = start;
            while x != u32::MAX {
                dist[x as usize] = UNREACHABLE;
                arc[x as usize] = NO_ARC;
                x = parent[x as usize];
            }
        }
    }
}

/// `s` and `t` must be vertices of the graph.
/// Every source and target a vertex of `ch` (the matrices' check).
pub(super) fn check_all_ends(
    ch: &ContractionHierarchy,
    sources: &[u32],
    targets: &[u32],
) -> Result<(), SsspError> {
    let n = ch.rank.len() as u32;
    if let Some(&vertex) = sources.iter().find(|&&s| s >= n) {
        return Err(SsspError::SourceOutOfRange { vertex, n });
    }
    if let Some(&target) = targets.iter().find(|&&t| t >= n) {
        return Err(SsspError::TargetOutOfRange { target, n });
    }
    Ok(())
}

fn check_ends(ch: &ContractionHierarchy, s: u32, t: u32) -> Result<(), SsspError> {
    let n = ch.rank.len() as u32;
    if s >= n {
        return Err(SsspError::SourceOutOfRange { vertex: s, n });
    }
    if t >= n {
        return Err(SsspError::TargetOutOfRange { target: t, n });
    }
    Ok(())
}

/// A meeting whose distance reached the saturation bound is an error (as in Dijkstra), never a
/// distance.
fn checked(found: Option<(u32, u32)>) -> Result<Option<(u32, u32)>, SsspError> {
    match found {
        Some((d, _)) if d >= SATURATED => Err(SsspError::WeightOverflow { bound: SATURATED }),
        other => Ok(other),
    }
}

/// One direction: from rank `start` up its elimination-tree path in rank order, relaxing the arcs of
/// `csr` (upward arcs for the forward search, the reversed downward arcs for the backward one). Every
/// arc leads to an ancestor, so the path's ranks are final when reached.
fn walk(csr: &graph_core::Csr<u32>, parent: &[u32], start: u32, dist: &mut [u32], arc: &mut [u32]) {
    dist[start as usize] = 0;
    let mut x = start;
    while x != u32::MAX {
        relax(csr, x, dist, arc, SATURATED as u64 + 1);
        x = parent[x as usize];
    }
}

/// Relaxes the arcs of rank `x` in `csr` when its label is below `bound` (a reached rank whose label
/// is at least the best sum found leads nowhere shorter).
#[inline]
fn relax(csr: &graph_core::Csr<u32>, x: u32, dist: &mut [u32], arc: &mut [u32], bound: u64) {
    let dx = dist[x as usize];
    if dx == UNREACHABLE || dx as u64 >= bound {
        return;
    }
    for f in csr.arc_range(x) {
        let w = csr.weights()[f];
        if w == UNREACHABLE {
            continue;
        }
        let y = csr.targets()[f] as usize;
        // Saturating at `u32::MAX − 1`: a label past it stays reachable and makes the answer an
        // overflow error, never "unreachable".
        let nd = (dx as u64 + w as u64).min(SATURATED as u64) as u32;
        if nd < dist[y] {
            dist[y] = nd;
            arc[y] = f as u32;
        }
    }
}

/// The arcs of one search's path from the meeting rank `meet` down to `start`, top first: `arc[x]` is
/// the arc of `csr` (the search's direction) that reached `x`, and its lower end is the highest rank
/// below `x` on `start`'s elimination-tree walk whose arc range holds it. The walk's ranks and their offsets were all just read
/// by the search (in cache), where a binary search over every rank's offsets missed the cache at each
/// of its ~18 steps, for each arc of the path (most of a NY path query's unpacking time).
fn for_each_arc_down(
    csr: &graph_core::Csr<u32>,
    parent: &[u32],
    start: u32,
    meet: u32,
    arc: &[u32],
    walk: &mut Vec<u32>,
    mut f: impl FnMut(u32),
) {
    walk.clear();
    let mut x = start;
    while x != meet && x != u32::MAX {
        walk.push(x);
        x = parent[x as usize];
    }
    let offsets = csr.offsets();
    let mut x = meet;
    let mut below = walk.len();
    while arc[x as usize] != NO_ARC {
        let e = arc[x as usize];
        f(e);
        // Ranks on the walk increase upward, so the lower ends of the path's arcs come in the walk's
        // order, top down: one pointer down the walk finds them all.
        loop {
            below -= 1;
            let z = walk[below];
            if offsets[z as usize] <= e && e < offsets[z as usize + 1] {
                x = z;
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cch::Cch;
    use graph_core::generators::random_graph;
    use graph_core::rng::SplitMix64;

    /// The unpruned search: both walks to the root, then the best sum at its lowest rank.
    fn unpruned(q: &mut CchQuery, ch: &ContractionHierarchy, s: u32, t: u32) -> Option<(u32, u32)> {
        let parent = ch.elimination_tree.as_deref().unwrap();
        let (rs, rt) = (ch.rank[s as usize], ch.rank[t as usize]);
        walk(&ch.up, parent, rs, &mut q.forward, &mut q.forward_arc);
        walk(&ch.down, parent, rt, &mut q.backward, &mut q.backward_arc);
        let mut best: Option<(u32, u32)> = None;
        let mut x = rt;
        while x != u32::MAX {
            let (f, b) = (q.forward[x as usize], q.backward[x as usize]);
            if f != UNREACHABLE && b != UNREACHABLE {
                let sum = (f as u64 + b as u64).min(SATURATED as u64) as u32;
                if best.is_none_or(|(d, _)| sum < d) {
                    best = Some((sum, x));
                }
            }
            x = parent[x as usize];
        }
        best
    }

    /// Pruning changes nothing a caller sees: the same distance, the same meeting rank, and the same
    /// arcs leading to it (so the same unpacked path), on random graphs with zero weights and ties.
    #[test]
    fn pruned_search_meets_where_the_full_walks_do() {
        let mut rng = SplitMix64::new(62);
        for seed in 0..60u64 {
            let n = 2 + rng.below(70) as u32;
            let max_w = [0, 1, 3, 40][seed as usize % 4];
            let g = random_graph(seed, n, n * (1 + rng.below(4) as u32), 0..=max_w).unwrap();
            let cch = Cch::build(&g).unwrap();
            let (ch, unpacking) = cch.customise_with_unpacking(g.weights()).unwrap();
            let (mut pruned, mut full) = (CchQuery::new(&ch).unwrap(), CchQuery::new(&ch).unwrap());
            let parent = ch.elimination_tree.as_deref().unwrap();
            for _ in 0..40 {
                let (s, t) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
                let got = pruned.search_keeping(&ch, s, t);
                assert_eq!(got, unpruned(&mut full, &ch, s, t), "seed {seed}: {s} → {t}");
                if let Some((_, meet)) = got {
                    let mut walk = Vec::new();
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    for (q, out) in [(&pruned, &mut a), (&full, &mut b)] {
                        for_each_arc_down(
                            &ch.up,
                            parent,
                            ch.rank[s as usize],
                            meet,
                            &q.forward_arc,
                            &mut walk,
                            |f| out.push(2 * f as usize),
                        );
                        for_each_arc_down(
                            &ch.down,
                            parent,
                            ch.rank[t as usize],
                            meet,
                            &q.backward_arc,
                            &mut walk,
                            |f| out.push(2 * f as usize + 1),
                        );
                    }
                    assert_eq!(a, b, "seed {seed}: the arcs to the meeting rank of {s} → {t}");
                    let (mut pa, mut pb) = (Vec::new(), Vec::new());
                    unpacking.unpack_slots(&a, &mut pa);
                    unpacking.unpack_slots(&b, &mut pb);
                    assert_eq!(pa, pb);
                }
                pruned.reset(&ch, s, t);
                full.reset(&ch, s, t);
                assert!(pruned.forward.iter().chain(&pruned.backward).all(|&d| d == UNREACHABLE));
            }
        }
    }
}
