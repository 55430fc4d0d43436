//! Seeded, deterministic graph generators.
//!
//! Every generator returns the same graph for the same arguments on every machine. Unweighted families
//! get unit weights; [`random_weights`] gives any graph seeded integer weights.

use rayon::prelude::*;

use crate::builder::GraphBuilder;
use crate::csr::Csr;
use crate::error::GraphError;
use crate::rng::{SplitMix64, mix};
use crate::weight::Weight;

fn build(b: GraphBuilder<u32>) -> Csr<u32> {
    b.build().expect("generators only emit valid arcs").0
}

fn undirected(n: u32, edges: impl IntoIterator<Item = (u32, u32)>) -> Csr<u32> {
    let mut b = GraphBuilder::new(n);
    for (u, v) in edges {
        b.add_edge(u, v, 1);
    }
    build(b)
}

/// A `rows × cols` 4-neighbour lattice, both directions, unit weights; vertex `r * cols + c`.
pub fn grid_2d(rows: u32, cols: u32) -> Csr<u32> {
    let n = rows * cols;
    let id = |r: u32, c: u32| r * cols + c;
    let mut edges = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            if c + 1 < cols {
                edges.push((id(r, c), id(r, c + 1)));
            }
            if r + 1 < rows {
                edges.push((id(r, c), id(r + 1, c)));
            }
        }
    }
    undirected(n, edges)
}

/// An `a × b × c` 6-neighbour lattice, both directions, unit weights; vertex `(x · b + y) · c + z`.
///
/// ```
/// let g = urbanflow::graph::generators::grid_3d(2, 3, 4);
/// assert_eq!((g.num_vertices(), g.num_arcs()), (24, 2 * (12 + 16 + 18)));
/// ```
pub fn grid_3d(a: u32, b: u32, c: u32) -> Csr<u32> {
    let id = |x: u32, y: u32, z: u32| (x * b + y) * c + z;
    let mut edges = Vec::new();
    for x in 0..a {
        for y in 0..b {
            for z in 0..c {
                if x + 1 < a {
                    edges.push((id(x, y, z), id(x + 1, y, z)));
                }
                if y + 1 < b {
                    edges.push((id(x, y, z), id(x, y + 1, z)));
                }
                if z + 1 < c {
                    edges.push((id(x, y, z), id(x, y, z + 1)));
                }
            }
        }
    }
    undirected(a * b * c, edges)
}

/// Erdős–Rényi G(n, p), undirected: each of the n(n−1)/2 pairs is an edge with probability `p`
/// (both directions, unit weights), drawn in pair order from the seed.
pub fn gnp_undirected(n: u32, p: f64, seed: u64) -> Csr<u32> {
    let mut rng = SplitMix64::new(seed);
    let mut edges = Vec::new();
    for u in 0..n {
        for v in u + 1..n {
            if rng.unit_f64() < p {
                edges.push((u, v));
            }
        }
    }
    undirected(n, edges)
}

/// The complete directed graph on `n` vertices (every ordered pair, no self-loops), unit weights.
pub fn complete(n: u32) -> Csr<u32> {
    let mut b = GraphBuilder::new(n);
    for u in 0..n {
        for v in 0..n {
            if u != v {
                b.add_arc(u, v, 1);
            }
        }
    }
    build(b)
}

/// The complete bipartite graph K(a, b): parts `0..a` and `a..a+b`, both directions, unit weights.
pub fn complete_bipartite(a: u32, b: u32) -> Csr<u32> {
    undirected(a + b, (0..a).flat_map(|u| (a..a + b).map(move |v| (u, v))))
}

/// The `d`-dimensional hypercube: 2^d vertices, `u` and `v` adjacent when they differ in one bit.
pub fn hypercube(d: u32) -> Result<Csr<u32>, GraphError> {
    if d > 26 {
        return Err(GraphError::InvalidParameter(format!("hypercube dimension {d} > 26")));
    }
    let n = 1u32 << d;
    Ok(undirected(n, (0..n).flat_map(|u| (0..d).map(move |k| (u, u ^ (1 << k))).filter(|&(u, v)| u < v))))
}

/// The wheel W(n): hub 0 joined to a cycle `1..n`; needs `n >= 4`.
pub fn wheel(n: u32) -> Result<Csr<u32>, GraphError> {
    if n < 4 {
        return Err(GraphError::InvalidParameter(format!("a wheel needs at least 4 vertices, got {n}")));
    }
    let rim = n - 1;
    let spokes = (1..n).map(|v| (0, v));
    let cycle = (0..rim).map(|i| (1 + i, 1 + (i + 1) % rim));
    Ok(undirected(n, spokes.chain(cycle)))
}

/// A cubic Hamiltonian graph from LCF notation `[shifts]^repeats`: the cycle `0 — 1 — … — n−1 — 0`
/// (`n = shifts.len() × repeats`) plus, at each vertex `i`, the chord to `i + shifts[i mod len]` (mod
/// `n`). The chords must pair up: the notation of a valid cubic graph names each chord from both ends.
///
/// ```
/// // The Heawood graph: [5, −5]^7, 14 vertices, 21 edges.
/// let g = urbanflow::graph::generators::lcf(&[5, -5], 7).unwrap();
/// assert_eq!((g.num_vertices(), g.num_arcs()), (14, 42));
/// ```
pub fn lcf(shifts: &[i32], repeats: u32) -> Result<Csr<u32>, GraphError> {
    let n = shifts.len() as u64 * repeats as u64;
    if n < 4 || n > u32::MAX as u64 {
        return Err(GraphError::InvalidParameter(format!(
            "LCF notation gives {n} vertices (4 or more needed)"
        )));
    }
    let n = n as i64;
    let target = |i: i64| (i + shifts[(i as usize) % shifts.len()] as i64).rem_euclid(n);
    let mut edges: Vec<(u32, u32)> = (0..n).map(|i| (i as u32, ((i + 1) % n) as u32)).collect();
    for i in 0..n {
        let j = target(i);
        if target(j) != i || j == i || j == (i + 1) % n || i == (j + 1) % n {
            return Err(GraphError::InvalidParameter(format!(
                "LCF shift {} at vertex {i} does not name a chord back from vertex {j}",
                shifts[i as usize % shifts.len()]
            )));
        }
        if i < j {
            edges.push((i as u32, j as u32));
        }
    }
    Ok(undirected(n as u32, edges))
}

/// The Petersen graph: outer 5-cycle `0..5`, inner pentagram `5..10`, spokes `i — i+5`.
pub fn petersen() -> Csr<u32> {
    let outer = (0..5).map(|i| (i, (i + 1) % 5));
    let inner = (0..5).map(|i| (5 + i, 5 + (i + 2) % 5));
    let spokes = (0..5).map(|i| (i, i + 5));
    undirected(10, outer.chain(inner).chain(spokes))
}

/// Erdős–Rényi G(n, m): `m` distinct directed arcs drawn uniformly among the `n(n-1)` ordered pairs
/// (no self-loops), unit weights. Uses Floyd's sampling, so dense requests cost O(m) too.
pub fn gnm(n: u32, m: u64, seed: u64) -> Result<Csr<u32>, GraphError> {
    let pairs = n as u64 * (n as u64).saturating_sub(1);
    if m > pairs {
        return Err(GraphError::InvalidParameter(format!(
            "G(n, m) with n = {n} has {pairs} possible arcs, {m} requested"
        )));
    }
    if m > u32::MAX as u64 {
        return Err(GraphError::TooManyArcs { arcs: m, max: u32::MAX as u64 });
    }
    let mut rng = SplitMix64::new(seed);
    let mut chosen = std::collections::HashSet::with_capacity(m as usize);
    let mut order = Vec::with_capacity(m as usize);
    for j in pairs - m..pairs {
        let t = rng.below(j + 1);
        let pick = if chosen.insert(t) {
            t
        } else {
            chosen.insert(j);
            j
        };
        order.push(pick);
    }
    let mut b = GraphBuilder::new(n).with_capacity(m as usize);
    for k in order {
        let u = (k / (n as u64 - 1)) as u32;
        let r = (k % (n as u64 - 1)) as u32;
        b.add_arc(u, r + (r >= u) as u32, 1);
    }
    Ok(build(b))
}

/// The same graph with every arc given a seeded weight, uniform in `lo..=hi`. Arc `a` gets a weight that
/// depends only on `(seed, a)`.
pub fn random_weights(g: &Csr<u32>, lo: u32, hi: u32, seed: u64) -> Result<Csr<u32>, GraphError> {
    if lo > hi {
        return Err(GraphError::InvalidParameter(format!("weight range {lo}..={hi} is empty")));
    }
    let span = (hi - lo) as u64 + 1;
    let weights: Vec<u32> = (0..g.num_arcs() as u64)
        .into_par_iter()
        .map(|a| lo + ((mix(seed ^ mix(a)) as u128 * span as u128) >> 64) as u32)
        .collect();
    let (offsets, targets, _) = g.clone().into_parts();
    Csr::from_parts(offsets, targets, weights)
}

/// The test and fuzzing workhorse: `m` arcs whose ends are drawn uniformly among `n` vertices
/// (self-loops and parallel arcs included, as real inputs have them), weights uniform in `weights`.
/// For `n = 0` the graph is empty whatever `m` says. An empty weight range, or one reaching the
/// reserved weights, is an error.
///
/// ```
/// use urbanflow::graph::generators::random_graph;
/// let g = random_graph(7, 100, 400, 0..=50).unwrap();
/// assert_eq!((g.num_vertices(), g.num_arcs()), (100, 400));
/// assert!(g.weights().iter().all(|&w| w <= 50));
/// assert_eq!(g, random_graph(7, 100, 400, 0..=50).unwrap());
/// assert!(random_graph(7, 10, 10, 5..=4).is_err());
/// ```
pub fn random_graph(
    seed: u64,
    n: u32,
    m: u32,
    weights: std::ops::RangeInclusive<u32>,
) -> Result<Csr<u32>, GraphError> {
    let (lo, hi) = checked_range(&weights)?;
    let span = (hi - lo) as u64 + 1;
    random_graph_with(seed, n, m, |rng| lo + rng.below(span) as u32)
}

fn checked_range(weights: &std::ops::RangeInclusive<u32>) -> Result<(u32, u32), GraphError> {
    let (lo, hi) = (*weights.start(), *weights.end());
    if lo > hi {
        return Err(GraphError::InvalidParameter(format!("weight range {lo}..={hi} is empty")));
    }
    Ok((lo, hi))
}

/// [`random_graph`] with each weight drawn by `weight` (any [`Weight`] type: mixes of zeros and
/// heavy arcs, real values). The stream is: for each arc its tail, its head, then its weight. Weights
/// the builder refuses (negative, NaN, reserved) are its error.
pub fn random_graph_with<W: Weight>(
    seed: u64,
    n: u32,
    m: u32,
    mut weight: impl FnMut(&mut SplitMix64) -> W,
) -> Result<Csr<W>, GraphError> {
    let mut rng = SplitMix64::new(seed);
    let mut b = GraphBuilder::<W>::new(n);
    if n > 0 {
        for _ in 0..m {
            let u = rng.below(n as u64) as u32;
            let v = rng.below(n as u64) as u32;
            let w = weight(&mut rng);
            b.add_arc(u, v, w);
        }
    }
    Ok(b.build()?.0)
}

/// [`random_graph`] with both directions of each of `m` edges (`2m` arcs, same weight each way).
pub fn random_undirected_graph(
    seed: u64,
    n: u32,
    m: u32,
    weights: std::ops::RangeInclusive<u32>,
) -> Result<Csr<u32>, GraphError> {
    let (lo, hi) = checked_range(&weights)?;
    let mut rng = SplitMix64::new(seed);
    let mut b = GraphBuilder::new(n);
    if n > 0 {
        for _ in 0..m {
            let (u, v) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
            b.add_edge(u, v, lo + rng.below((hi - lo) as u64 + 1) as u32);
        }
    }
    Ok(b.build()?.0)
}

/// A generated road-like network: the graph and a plane position for every vertex.
#[derive(Debug, Clone)]
pub struct RoadNetwork {
    /// Both directions of every road, travel-time-like integer weights.
    pub graph: Csr<u32>,
    /// `[x, y]` of every vertex, in lattice units.
    pub coords: Vec<[f32; 2]>,
}

/// A road-like network of about `n_target` vertices (exactly `rows × cols`, the smallest near-square
/// lattice with at least that many).
///
/// Model (all choices seeded, so the graph depends only on `(n_target, seed)`):
/// - vertices sit on a jittered square lattice (each coordinate moved by up to ±0.35);
/// - candidate roads join lattice neighbours; a random spanning tree of the lattice (Kruskal on random
///   keys) keeps the network connected, and each remaining candidate road is kept with probability 0.3;
/// - every 10th row and column is an arterial: all its roads are kept and are 2.5× faster;
/// - a road's weight is its Euclidean length × 1000 / speed, rounded, at least 1 (like DIMACS travel
///   times); both directions get the same weight.
///
/// The result is planar, connected, has out-degrees 1–4 (mean about 2.7, like the DIMACS USA graphs)
/// and long shortest paths (diameter in hops ≈ rows + cols), the features that make road graphs hard for
/// frontier-based GPU algorithms. Memory peaks near 70 bytes per vertex: 25 M vertices take under 2 GiB.
pub fn road_like(n_target: u32, seed: u64) -> Result<RoadNetwork, GraphError> {
    if n_target < 2 {
        return Err(GraphError::InvalidParameter("a road network needs at least 2 vertices".into()));
    }
    let rows = (n_target as f64).sqrt().floor().max(1.0) as u32;
    let cols = n_target.div_ceil(rows);
    let n = rows as u64 * cols as u64;
    if n > u32::MAX as u64 / 2 {
        return Err(GraphError::InvalidParameter(format!("{n_target} vertices is too many")));
    }
    let n = n as u32;
    const ARTERIAL_EVERY: u32 = 10;
    const KEEP_EXTRA: f64 = 0.3;
    let coords: Vec<[f32; 2]> = (0..n)
        .into_par_iter()
        .map(|v| {
            let (r, c) = (v / cols, v % cols);
            let h = mix(seed ^ 0xC00D ^ mix(v as u64));
            let jx = ((h & 0xFFFF) as f32 / 65535.0 - 0.5) * 0.7;
            let jy = (((h >> 16) & 0xFFFF) as f32 / 65535.0 - 0.5) * 0.7;
            [c as f32 + jx, r as f32 + jy]
        })
        .collect();
    // Candidate edge e: e < n is "right of v = e" (if any), e >= n is "below v = e - n" (if any).
    let endpoints = |e: u32| -> Option<(u32, u32, bool)> {
        if e < n {
            let (r, c) = (e / cols, e % cols);
            (c + 1 < cols).then_some((e, e + 1, r % ARTERIAL_EVERY == 0))
        } else {
            let v = e - n;
            let (r, c) = (v / cols, v % cols);
            (r + 1 < rows).then_some((v, v + cols, c % ARTERIAL_EVERY == 0))
        }
    };
    let mut keyed: Vec<(u32, u32)> = (0..2 * n)
        .into_par_iter()
        .filter(|&e| endpoints(e).is_some())
        .map(|e| ((mix(seed ^ mix(e as u64 + 1)) >> 32) as u32, e))
        .collect();
    keyed.par_sort_unstable();
    let mut parent: Vec<u32> = (0..n).collect();
    fn find(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            let p = parent[parent[x as usize] as usize];
            parent[x as usize] = p;
            x = p;
        }
        x
    }
    let mut b = GraphBuilder::new(n).with_capacity((2.8 * n as f64) as usize);
    let mut extra = SplitMix64::new(seed ^ 0xE57A);
    for &(_, e) in &keyed {
        let (u, v, arterial) = endpoints(e).expect("filtered");
        let (ru, rv) = (find(&mut parent, u), find(&mut parent, v));
        let joins = ru != rv;
        if joins {
            parent[ru as usize] = rv;
        }
        if joins || arterial || extra.unit_f64() < KEEP_EXTRA {
            let [x0, y0] = coords[u as usize];
            let [x1, y1] = coords[v as usize];
            let len = ((x1 - x0) as f64).hypot((y1 - y0) as f64);
            let speed = if arterial { 2.5 } else { 1.0 };
            let w = ((len * 1000.0 / speed).round() as u32).max(1);
            b.add_edge(u, v, w);
        }
    }
    drop(keyed);
    drop(parent);
    Ok(RoadNetwork { graph: build(b), coords })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edges(g: &Csr<u32>) -> usize {
        g.num_arcs() as usize / 2
    }

    #[test]
    fn classic_families_have_known_counts() {
        assert_eq!(edges(&petersen()), 15);
        assert!((0..10).all(|v| petersen().out_degree(v) == 3));
        assert_eq!(edges(&wheel(6).unwrap()), 10);
        assert!(wheel(3).is_err());
        assert_eq!(edges(&hypercube(4).unwrap()), 32);
        assert_eq!(edges(&complete_bipartite(3, 4)), 12);
        assert_eq!(complete(5).num_arcs(), 20);
        assert_eq!(edges(&grid_2d(3, 4)), 3 * 3 + 2 * 4);
    }

    #[test]
    fn gnm_is_simple_seeded_and_exact() {
        let g = gnm(50, 600, 9).unwrap();
        assert_eq!(g.num_arcs(), 600);
        assert_eq!(g, gnm(50, 600, 9).unwrap());
        assert_ne!(g, gnm(50, 600, 10).unwrap());
        assert_eq!(g.degree_stats().self_loops, 0);
        let (_, r) = g.symmetrise(crate::DuplicatePolicy::KeepAll);
        assert_eq!(r.parallel_arcs_dropped, 0);
        assert_eq!(gnm(6, 30, 1).unwrap().num_arcs(), 30);
        assert!(gnm(6, 31, 1).is_err());
    }

    #[test]
    fn road_like_is_connected_and_road_shaped() {
        let net = road_like(10_000, 3).unwrap();
        let g = &net.graph;
        assert_eq!(g.num_vertices(), 10_000);
        let s = g.degree_stats();
        assert!(s.min_out >= 1 && s.max_out <= 4, "{s:?}");
        assert!(s.mean_out > 2.3 && s.mean_out < 3.2, "{s:?}");
        // Connected: a BFS order from vertex 0 reaches everyone in one component.
        let mut seen = vec![false; g.num_vertices() as usize];
        let mut stack = vec![0u32];
        seen[0] = true;
        while let Some(u) = stack.pop() {
            for &v in g.targets_of(u) {
                if !std::mem::replace(&mut seen[v as usize], true) {
                    stack.push(v);
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(g, &road_like(10_000, 3).unwrap().graph);
    }
}
