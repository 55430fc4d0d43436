//! Nested-dissection vertex order (George 1973), the metric-independent order a CCH needs: split the
//! graph by a small vertex separator, order both sides recursively, the separator last. Bisections come
//! from [`Bisector::Multilevel`] (pure Rust, `cch::bisect`; the default) or, with the `metis` feature,
//! [`Bisector::Metis`] (the `metis` crate: the partitioner road-network CCH implementations use,
//! vendored C); each edge cut becomes the minimum vertex cover of its cut edges (König), usually
//! smaller than either side's boundary.

use std::collections::VecDeque;

use crate::error::SsspError;

#[cfg(feature = "metis")]
/// Serialises METIS calls (its random generator is a process-wide global).
static METIS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Parts at most this small are not split further: their order barely changes the fill.
const LEAF: usize = 16;

/// Undirected simple graph (symmetric adjacency, no self-loops, no duplicates).
pub(super) struct Undirected {
    pub offsets: Vec<u32>,
    pub adj: Vec<u32>,
}

impl Undirected {
    /// The undirected simple graph under `graph`'s arcs (weights not read).
    pub fn of<W: graph_core::Weight>(graph: &graph_core::Csr<W>) -> Self {
        Self::from_arcs(graph.num_vertices() as usize, graph.arcs().map(|(u, v, _)| (u, v)))
    }

    /// The symmetric closure of `arcs` (self-loops and duplicates dropped) on `n` vertices.
    pub fn from_arcs(n: usize, arcs: impl Iterator<Item = (u32, u32)>) -> Self {
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for (u, v) in arcs {
            if u != v {
                pairs.push((u, v));
                pairs.push((v, u));
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut offsets = vec![0u32; n + 1];
        for &(u, _) in &pairs {
            offsets[u as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        Self { offsets, adj: pairs.into_iter().map(|p| p.1).collect() }
    }

    #[cfg(test)]
    fn neighbours(&self, v: u32) -> &[u32] {
        &self.adj[self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize]
    }
}

/// One part of the dissection: its ranks, and the two sides it was split into (their ranks come
/// first, then the separator's). No edge joins the two sides, so they can be customised apart.
#[derive(Debug, Clone)]
pub(super) struct Part {
    pub ranks: std::ops::Range<u32>,
    pub sides: Option<[usize; 2]>,
}

/// Where the bisections of a nested-dissection order come from.
///
/// The default is [`Bisector::Multilevel`]: on a 16-core host it orders NY in 0.50–0.52 s against
/// METIS's 2.0 s and Florida in 1.9–2.1 s against 8.6–8.9 s (METIS calls are serialised by its global
/// random generator, the pure-Rust bisections run in parallel), and its hierarchies customise and answer
/// as fast or faster (docs/benchmarks.md "Cargo features"). On one thread METIS orders faster (NY 1.7–1.8
/// s against 3.3–3.4 s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Bisector {
    /// The pure-Rust multilevel bisection (`cch::bisect`: heavy-edge matching, region growing,
    /// Fiduccia–Mattheyses refinement); deterministic, the same order on any number of threads.
    #[default]
    Multilevel,
    /// METIS's multilevel recursive bisection (feature `metis`; vendored C).
    #[cfg(feature = "metis")]
    Metis,
}

impl Bisector {
    /// The name used in cache file names and reports: `multilevel` or `metis`.
    pub fn name(self) -> &'static str {
        match self {
            Bisector::Multilevel => "multilevel",
            #[cfg(feature = "metis")]
            Bisector::Metis => "metis",
        }
    }
}

/// Parts larger than this dissect their two sides on two threads (rayon's join); smaller ones on one.
const PARALLEL_MIN: usize = 2_000;

/// Vertices in contraction order (first = lowest rank) by nested dissection, and the dissection tree
/// (part 0 is the whole graph, then each part's side-a subtree before its side-b subtree). The two
/// sides of a separator share no edge, so they are dissected in parallel; the order is the same on any
/// number of threads (each bisection sees the same part, and METIS calls are serialised and reseeded).
pub(super) fn nested_dissection(
    g: &Undirected,
    bisector: Bisector,
) -> Result<(Vec<u32>, Vec<Part>), SsspError> {
    let whole = PartGraph {
        ids: (0..g.offsets.len() as u32 - 1).collect(),
        xadj: g.offsets.iter().map(|&o| o as i32).collect(),
        adj: g.adj.iter().map(|&w| w as i32).collect(),
    };
    let tree = dissect(whole, bisector)?;
    Ok((tree.order, tree.parts))
}

/// A part of the graph: its vertices (graph ids, in the order the dissection met them) and the
/// subgraph they induce, in local indices (METIS's layout).
struct PartGraph {
    ids: Vec<u32>,
    xadj: Vec<i32>,
    adj: Vec<i32>,
}

impl PartGraph {
    fn len(&self) -> usize {
        self.ids.len()
    }

    fn neighbours(&self, v: usize) -> &[i32] {
        &self.adj[self.xadj[v] as usize..self.xadj[v + 1] as usize]
    }

    /// The subgraph induced by `members` (local indices, increasing), adjacency order kept.
    fn induce(&self, members: &[u32]) -> PartGraph {
        let mut local = vec![u32::MAX; self.len()];
        for (i, &m) in members.iter().enumerate() {
            local[m as usize] = i as u32;
        }
        let mut xadj = Vec::with_capacity(members.len() + 1);
        let mut adj = Vec::new();
        xadj.push(0);
        for &m in members {
            adj.extend(self.neighbours(m as usize).iter().filter_map(|&w| match local[w as usize] {
                u32::MAX => None,
                l => Some(l as i32),
            }));
            xadj.push(adj.len() as i32);
        }
        PartGraph { ids: members.iter().map(|&m| self.ids[m as usize]).collect(), xadj, adj }
    }
}

/// The order and dissection tree of one part (ranks and part indices relative to it).
struct Dissected {
    order: Vec<u32>,
    parts: Vec<Part>,
}

fn dissect(pg: PartGraph, bisector: Bisector) -> Result<Dissected, SsspError> {
    let len = pg.len() as u32;
    let leaf = |order: Vec<u32>| Dissected { order, parts: vec![Part { ranks: 0..len, sides: None }] };
    if pg.len() <= LEAF {
        return Ok(leaf(by_degree(&pg).iter().map(|&v| pg.ids[v as usize]).collect()));
    }
    let (a, b, sep) = bisect(&pg, bisector)?;
    let sep: Vec<u32> = sep.iter().map(|&v| pg.ids[v as usize]).collect();
    if a.is_empty() && b.is_empty() {
        return Ok(leaf(sep));
    }
    let (side_a, side_b) = (pg.induce(&a), pg.induce(&b));
    let parallel = pg.len() > PARALLEL_MIN;
    drop(pg);
    let (da, db) = if parallel {
        rayon::join(|| dissect(side_a, bisector), || dissect(side_b, bisector))
    } else {
        (dissect(side_a, bisector), dissect(side_b, bisector))
    };
    let (da, db) = (da?, db?);
    let (first_b, a_len) = (1 + da.parts.len(), da.order.len() as u32);
    let mut parts = Vec::with_capacity(1 + da.parts.len() + db.parts.len());
    parts.push(Part { ranks: 0..len, sides: Some([1, first_b]) });
    parts.extend(
        da.parts.into_iter().map(|p| Part { ranks: p.ranks, sides: p.sides.map(|[x, y]| [x + 1, y + 1]) }),
    );
    parts.extend(db.parts.into_iter().map(|p| Part {
        ranks: p.ranks.start + a_len..p.ranks.end + a_len,
        sides: p.sides.map(|[x, y]| [x + first_b, y + first_b]),
    }));
    let mut order = da.order;
    order.extend(db.order);
    order.extend(sep);
    Ok(Dissected { order, parts })
}

/// A part's local indices by increasing degree inside it, ties by graph id (a cheap stand-in for
/// minimum degree).
fn by_degree(pg: &PartGraph) -> Vec<u32> {
    let mut local: Vec<u32> = (0..pg.len() as u32).collect();
    local.sort_unstable_by_key(|&v| (pg.neighbours(v as usize).len(), pg.ids[v as usize]));
    local
}

/// Two sides and the separator between them (local indices of the part).
type Dissection = (Vec<u32>, Vec<u32>, Vec<u32>);

/// Splits a part into (side a, side b, separator): no edge joins a and b.
fn bisect(pg: &PartGraph, bisector: Bisector) -> Result<Dissection, SsspError> {
    let (xadj, adjncy) = (&pg.xadj, &pg.adj);
    let n = pg.len();
    let mut part = vec![0i32; n];
    if !adjncy.is_empty() {
        match bisector {
            Bisector::Multilevel => super::bisect::multilevel_bisection(xadj, adjncy, &mut part),
            #[cfg(feature = "metis")]
            Bisector::Metis => metis_bisection(xadj, adjncy, &mut part)?,
        }
    } else {
        // No edges: any split is a dissection.
        part.iter_mut().skip(n / 2).for_each(|p| *p = 1);
    }
    let in_sep = vertex_cover_of_cut(xadj, adjncy, &part);
    let (mut a, mut b, mut sep) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..n {
        match (in_sep[i], part[i]) {
            (true, _) => sep.push(i as u32),
            (false, 0) => a.push(i as u32),
            _ => b.push(i as u32),
        }
    }
    // A degenerate split (everything on one side) would not terminate: order that part by degree.
    if a.is_empty() && b.is_empty() || sep.len() == n {
        return Ok((Vec::new(), Vec::new(), by_degree(pg)));
    }
    Ok((a, b, sep))
}

/// Splits a part's vertices into two halves (`part` 0 or 1) with few edges between them: METIS's
/// multilevel recursive bisection.
#[cfg(feature = "metis")]
fn metis_bisection(xadj: &[i32], adjncy: &[i32], part: &mut [i32]) -> Result<(), SsspError> {
    // METIS draws from one process-wide random generator, reseeded at the start of every call:
    // calls from two threads at once would interleave its draws and give orders (so tie choices,
    // so loads) that differ from run to run. One call at a time keeps every order reproducible.
    let _one_at_a_time = METIS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    metis::Graph::new(1, 2, xadj, adjncy)
        .map_err(|e| SsspError::InvalidParameter(format!("METIS refused a part: {e}")))?
        .part_recursive(part)
        .map_err(|e| SsspError::InvalidParameter(format!("METIS bisection failed: {e:?}")))?;
    Ok(())
}

/// The smallest set of vertices touching every cut edge (part 0 – part 1): a minimum vertex cover of
/// the bipartite cut graph, from a maximum matching (augmenting paths) and König's construction.
fn vertex_cover_of_cut(xadj: &[i32], adjncy: &[i32], part: &[i32]) -> Vec<bool> {
    let n = part.len();
    let cut = |u: usize| {
        adjncy[xadj[u] as usize..xadj[u + 1] as usize]
            .iter()
            .map(|&w| w as usize)
            .filter(move |&w| part[w] != part[u])
    };
    let left: Vec<usize> = (0..n).filter(|&u| part[u] == 0 && cut(u).next().is_some()).collect();
    let mut mate = vec![usize::MAX; n];
    for &u in &left {
        // Augmenting path from u by BFS over alternating paths.
        let mut prev = std::collections::HashMap::new();
        let mut queue = VecDeque::from([u]);
        let mut seen_left = std::collections::HashSet::from([u]);
        let mut end = None;
        'search: while let Some(x) = queue.pop_front() {
            for y in cut(x) {
                if prev.contains_key(&y) {
                    continue;
                }
                prev.insert(y, x);
                match mate[y] {
                    usize::MAX => {
                        end = Some(y);
                        break 'search;
                    }
                    z => {
                        if seen_left.insert(z) {
                            queue.push_back(z);
                        }
                    }
                }
            }
        }
        // Flip the path: y ← x … ← u.
        let mut y = end;
        while let Some(r) = y {
            let l = prev[&r];
            let next = mate[l];
            mate[r] = l;
            mate[l] = r;
            y = if l == u { None } else { Some(next) };
        }
    }
    // König: Z = vertices reachable from unmatched left vertices by alternating paths; cover =
    // (left \ Z) ∪ (right ∩ Z).
    let mut in_z = vec![false; n];
    let mut queue: VecDeque<usize> = left.iter().copied().filter(|&u| mate[u] == usize::MAX).collect();
    queue.iter().for_each(|&u| in_z[u] = true);
    while let Some(x) = queue.pop_front() {
        for y in cut(x) {
            if !in_z[y] && mate[x] != y {
                in_z[y] = true;
                let z = mate[y];
                if z != usize::MAX && !in_z[z] {
                    in_z[z] = true;
                    queue.push_back(z);
                }
            }
        }
    }
    let mut cover = vec![false; n];
    for &u in &left {
        cover[u] = !in_z[u];
    }
    for y in 0..n {
        if part[y] != 0 && in_z[y] {
            cover[y] = true;
        }
    }
    cover
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_cover(xadj: &[i32], adjncy: &[i32], part: &[i32], cover: &[bool]) {
        for u in 0..part.len() {
            for &w in &adjncy[xadj[u] as usize..xadj[u + 1] as usize] {
                if part[w as usize] != part[u] {
                    assert!(cover[u] || cover[w as usize], "cut edge {u}-{w} uncovered");
                }
            }
        }
    }

    #[test]
    fn cover_is_minimum_on_a_star_cut() {
        // Left 0 joined to right 1, 2, 3: one vertex (0) covers the cut.
        let xadj = [0, 3, 4, 5, 6];
        let adjncy = [1, 2, 3, 0, 0, 0];
        let part = [0, 1, 1, 1];
        let cover = vertex_cover_of_cut(&xadj, &adjncy, &part);
        check_cover(&xadj, &adjncy, &part, &cover);
        assert_eq!(cover.iter().filter(|&&c| c).count(), 1);
        assert!(cover[0]);
    }

    #[test]
    fn grid_order_is_a_permutation_with_separator_last() {
        let side = 20u32;
        let grid = graph_core::generators::grid_2d(side, side);
        let g = Undirected::from_arcs((side * side) as usize, grid.arcs().map(|(u, v, _)| (u, v)));
        let (order, parts) = nested_dissection(&g, Bisector::default()).unwrap();
        assert_eq!(parts[0].ranks, 0..side * side);
        // Sides come first, contiguous, and inside their parent.
        for p in &parts {
            if let Some([a, b]) = p.sides {
                assert_eq!(parts[a].ranks.start, p.ranks.start);
                assert_eq!(parts[a].ranks.end, parts[b].ranks.start);
                assert!(parts[b].ranks.end <= p.ranks.end);
            }
        }
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..side * side).collect::<Vec<_>>());
        // The last vertices separate the grid: removing the top ~side of them disconnects it.
        let top: std::collections::HashSet<u32> =
            order[order.len() - side as usize..].iter().copied().collect();
        let rest: Vec<u32> = order.iter().copied().filter(|v| !top.contains(v)).collect();
        let mut seen = std::collections::HashSet::from([rest[0]]);
        let mut stack = vec![rest[0]];
        while let Some(v) = stack.pop() {
            for &w in g.neighbours(v) {
                if !top.contains(&w) && seen.insert(w) {
                    stack.push(w);
                }
            }
        }
        assert!(seen.len() < rest.len(), "the top {side} ranks do not separate the grid");
    }
}
