//! Shortest paths on real-valued arc weights (`f32` or `f64`: travel times in seconds, lengths in
//! metres), without the caller scaling anything.
//!
//! Two ways, both reporting distances as `f64` sums of the graph's own weights:
//! - **Exact**, [`dijkstra_real`]: Dijkstra with `f64` labels on the CPU. `Algorithm::Dijkstra` and
//!   `Algorithm::Auto` on the CPU in [`solve_real`] run it.
//! - **Scaled**, every other algorithm and backend of [`crate::solve`] (Δ-stepping, the GPU kernels):
//!   each weight `w` becomes the integer `round(w / resolution)`, the integer engine finds a shortest
//!   path tree, and the distances are then re-summed in `f64` along that tree, so every reported
//!   distance is the exact length of a real path. Rounding can make that path longer than the true
//!   shortest one by at most `resolution / 2` per arc of either path; [`RealPaths::error_bound`] gives
//!   that bound per vertex (from the path's arcs and, with positive weights, the most arcs a shorter path
//!   could have). Distances beyond the integer range are an error naming a coarser resolution, never a
//!   wrong answer.
//!
//! ```
//! use urbanflow::graph::GraphBuilder;
//! use urbanflow::sssp::{Algorithm, real::{RealQuery, solve_real}};
//! let mut b = GraphBuilder::<f64>::new(3);
//! b.add_arc(0, 1, 0.25).add_arc(1, 2, 0.5).add_arc(0, 2, 1.0);
//! let (g, _) = b.build().unwrap();
//! let exact = solve_real(&g, &RealQuery::from(0), Algorithm::Dijkstra, urbanflow::gpu::Backend::Cpu).unwrap();
//! assert_eq!(exact.dist[2], 0.75);
//! let scaled = solve_real(&g, &RealQuery { resolution: Some(1e-3), ..RealQuery::from(0) },
//!                         Algorithm::DeltaStepping(None), urbanflow::gpu::Backend::Cpu).unwrap();
//! assert_eq!(scaled.dist[2], 0.75);
//! assert!(scaled.error_bound(2) <= 2e-3);
//! ```

use gpu_runtime::Backend;
use graph_core::{Csr, Weight};

use crate::algorithm::Algorithm;
use crate::api::{Query, solve};
use crate::cpu::queue::LazyHeap;
use crate::cpu::search::{RealWeights, Settle, Workspace, dijkstra_search};
use crate::error::SsspError;
use crate::paths::{NO_ARC, SATURATED, tail_of};

/// A real-valued query.
#[derive(Debug, Clone, Default)]
pub struct RealQuery {
    /// The source vertex.
    pub source: u32,
    /// Compute predecessor arcs.
    pub predecessors: bool,
    /// Weight units per integer step for the scaled engines (default: the largest weight / 2¹²).
    pub resolution: Option<f64>,
}

impl RealQuery {
    /// All distances from `source`.
    pub fn from(source: u32) -> Self {
        Self { source, ..Default::default() }
    }
}

/// Real-valued distances from one source.
#[derive(Debug, Clone, PartialEq)]
pub struct RealPaths {
    /// The source.
    pub source: u32,
    /// Length of the path found to each vertex (`f64::INFINITY` when unreachable).
    pub dist: Vec<f64>,
    /// Predecessor arc per vertex (`NO_ARC` for the source and unreached vertices), when asked for
    /// (the scaled engines always compute it).
    pub pred_arc: Option<Vec<u32>>,
    /// Arcs on the path found to each vertex (scaled engines; empty for the exact one).
    pub hops: Vec<u32>,
    /// `None`: exact. `Some(r)`: the scaled engines ran at resolution `r`.
    pub resolution: Option<f64>,
    /// Smallest positive weight (for the error bound).
    min_positive: f64,
    /// Vertices (the most arcs any simple path has, without a positive weight to bound it).
    n: u32,
    /// The algorithm that ran.
    pub algorithm: Algorithm,
}

impl RealPaths {
    /// How much longer than the true shortest distance `dist[v]` can be: 0 when exact; else
    /// `resolution / 2 ×` (arcs on the path found + the most arcs a path no longer than it can have).
    pub fn error_bound(&self, v: u32) -> f64 {
        let Some(r) = self.resolution else { return 0.0 };
        let d = self.dist[v as usize];
        if !d.is_finite() {
            return 0.0;
        }
        let found = self.hops[v as usize] as f64;
        // A shorter path has length ≤ d, so at most d / (smallest positive weight) positive arcs; zero
        // arcs (rounded to zero too) add no error.
        let other =
            if self.min_positive > 0.0 { (d / self.min_positive).floor() } else { self.n as f64 - 1.0 };
        0.5 * r * (found + other.min(self.n as f64 - 1.0))
    }
}

/// Weights, checked: finite and non-negative; also the largest and smallest positive.
fn check_weights<W: Weight>(g: &Csr<W>) -> Result<(f64, f64), SsspError> {
    let mut max = 0.0f64;
    let mut min_positive = f64::INFINITY;
    for (a, w) in g.weights().iter().enumerate() {
        let w = w.to_f64();
        if !(w.is_finite() && w >= 0.0) {
            return Err(SsspError::InvalidParameter(format!(
                "arc {a} has weight {w}: expected a finite, non-negative number"
            )));
        }
        max = max.max(w);
        if w > 0.0 {
            min_positive = min_positive.min(w);
        }
    }
    Ok((max, if min_positive.is_finite() { min_positive } else { 0.0 }))
}

/// The graph with each weight rounded to a multiple of `resolution` (default: the largest weight /
/// 2¹²), and the resolution used; weights beyond u32 at that resolution are an error naming the arc.
fn scale_weights<W: Weight>(
    g: &Csr<W>,
    resolution: Option<f64>,
    max: f64,
) -> Result<(Csr<u32>, f64), SsspError> {
    let resolution = resolution.unwrap_or(if max > 0.0 { max / 4096.0 } else { 1.0 });
    if !(resolution.is_finite() && resolution > 0.0) {
        return Err(SsspError::InvalidParameter(format!(
            "resolution {resolution}: expected a positive number"
        )));
    }
    let scaled = g
        .map_weights(|w| {
            let s = (w.to_f64() / resolution).round();
            if s < SATURATED as f64 { s as u32 } else { SATURATED }
        })
        .map_err(|e| SsspError::InvalidParameter(e.to_string()))?;
    if let Some(a) = scaled.weights().iter().position(|&w| w >= SATURATED) {
        return Err(SsspError::InvalidParameter(format!(
            "arc {a} is {} steps of the resolution {resolution}: beyond u32; choose a coarser resolution",
            (g.weights()[a].to_f64() / resolution).round()
        )));
    }
    Ok((scaled, resolution))
}

/// An integer engine's overflow, said in the caller's terms.
fn overflow_hint(e: SsspError, resolution: f64) -> SsspError {
    match e {
        SsspError::WeightOverflow { .. } => SsspError::InvalidParameter(format!(
            "distances exceed u32 at resolution {resolution}: choose a coarser resolution (e.g. {})",
            resolution * 16.0
        )),
        other => other,
    }
}

/// Exact Dijkstra with `f64` labels ([`crate::cpu::search`]; a binary heap on the labels' bits:
/// non-negative `f64`s order like their bit patterns).
pub fn dijkstra_real<W: Weight>(g: &Csr<W>, source: u32, predecessors: bool) -> Result<RealPaths, SsspError> {
    let n = g.num_vertices();
    if source >= n {
        return Err(SsspError::SourceOutOfRange { vertex: source, n });
    }
    let (_, min_positive) = check_weights(g)?;
    let mut dist = vec![f64::INFINITY; n as usize];
    let mut ws = Workspace::new(LazyHeap::with_capacity(1024));
    if predecessors {
        ws = ws.with_predecessors(n as usize);
    }
    dijkstra_search(&RealWeights(g), source, &mut dist, &mut ws, |_, _| Settle::Expand);
    let pred = ws.pred().to_vec();
    Ok(RealPaths {
        source,
        dist,
        pred_arc: predecessors.then_some(pred),
        hops: Vec::new(),
        resolution: None,
        min_positive,
        n,
        algorithm: Algorithm::Dijkstra,
    })
}

/// Shortest paths on real weights with any algorithm and backend (see the module documentation):
/// exact `f64` Dijkstra for `Dijkstra` (and `Auto` on the CPU), the scaled integer engines otherwise.
pub fn solve_real<W: Weight>(
    g: &Csr<W>,
    q: &RealQuery,
    algorithm: Algorithm,
    backend: Backend,
) -> Result<RealPaths, SsspError> {
    let exact = matches!(algorithm, Algorithm::Dijkstra)
        || (matches!(algorithm, Algorithm::Auto) && matches!(backend, Backend::Cpu));
    if exact {
        return dijkstra_real(g, q.source, q.predecessors);
    }
    let (max, min_positive) = check_weights(g)?;
    let (scaled, resolution) = scale_weights(g, q.resolution, max)?;
    let query = Query { source: q.source, predecessors: true, ..Default::default() };
    let mut r = solve(&scaled, &query, algorithm, backend).map_err(|e| overflow_hint(e, resolution))?;
    let pred = r.pred_arc.take().expect("asked for predecessors");
    // Re-sum along the tree in f64, parents before children (a child's integer distance is at least
    // its parent's; zero steps are ordered by the tree itself through the explicit traversal).
    let n = g.num_vertices() as usize;
    let mut children_start = vec![0u32; n + 1];
    let mut tail = vec![0u32; n];
    for v in 0..n {
        if pred[v] != NO_ARC {
            let a = pred[v];
            tail[v] = tail_of(g, a);
            children_start[tail[v] as usize + 1] += 1;
        }
    }
    for v in 0..n {
        children_start[v + 1] += children_start[v];
    }
    let mut fill = children_start.clone();
    let mut children = vec![0u32; children_start[n] as usize];
    for v in 0..n {
        if pred[v] != NO_ARC {
            let t = tail[v] as usize;
            children[fill[t] as usize] = v as u32;
            fill[t] += 1;
        }
    }
    let mut dist = vec![f64::INFINITY; n];
    let mut hops = vec![0u32; n];
    dist[q.source as usize] = 0.0;
    let mut stack = vec![q.source];
    let mut visited = 1usize;
    while let Some(v) = stack.pop() {
        for &c in &children[children_start[v as usize] as usize..children_start[v as usize + 1] as usize] {
            dist[c as usize] = dist[v as usize] + g.weights()[pred[c as usize] as usize].to_f64();
            hops[c as usize] = hops[v as usize] + 1;
            visited += 1;
            stack.push(c);
        }
    }
    // Every reached vertex hangs from the source in a predecessor tree; anything else is a bug to
    // report, not a distance to guess.
    if visited != r.reached() {
        return Err(SsspError::InvalidParameter(format!(
            "internal error: the predecessor tree of {} spans {visited} of {} reached vertices",
            r.algorithm,
            r.reached()
        )));
    }
    Ok(RealPaths {
        source: q.source,
        dist,
        pred_arc: q.predecessors.then_some(pred),
        hops,
        resolution: Some(resolution),
        min_positive,
        n: n as u32,
        algorithm: r.algorithm,
    })
}

/// Real-valued distances from every source to every target, row-major: what
/// [`crate::matrix::distance_matrix`] returns for `f32` and `f64` weights.
///
/// ```
/// use urbanflow::graph::GraphBuilder;
/// use urbanflow::sssp::matrix::{MatrixOptions, distance_matrix};
/// let mut b = GraphBuilder::<f64>::new(3);
/// b.add_arc(0, 1, 0.25).add_arc(1, 2, 0.5).add_arc(0, 2, 1.0);
/// let (g, _) = b.build().unwrap();
/// let run = distance_matrix(&g, &[0, 1], &[2], &MatrixOptions::default()).unwrap();
/// assert_eq!(run.matrix.data, vec![0.75, 0.5]);
/// assert_eq!(run.matrix.resolution, None); // exact
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct RealMatrix {
    /// Row vertices.
    pub sources: Vec<u32>,
    /// Column vertices.
    pub targets: Vec<u32>,
    /// `data[i * targets.len() + j]`: length of the path found from `sources[i]` to `targets[j]`
    /// (`f64::INFINITY` when unreachable).
    pub data: Vec<f64>,
    /// `None`: exact. `Some(r)`: the scaled engines ran at resolution `r`.
    pub resolution: Option<f64>,
    /// The largest excess of an entry over the true shortest distance (0 when exact), as
    /// [`RealPaths::error_bound`] gives it per entry.
    pub error_bound: f64,
}

impl RealMatrix {
    /// The length found from `sources[i]` to `targets[j]` (`f64::INFINITY` when unreachable), as
    /// [`crate::matrix::DistanceMatrix::get`] gives the exact u32 distances.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.data[i * self.targets.len() + j]
    }
}

impl crate::matrix::Matrix for RealMatrix {
    type Value = f64;
    fn sources(&self) -> &[u32] {
        &self.sources
    }
    fn targets(&self) -> &[u32] {
        &self.targets
    }
    fn row(&self, i: usize) -> &[f64] {
        let t = self.targets.len();
        &self.data[i * t..(i + 1) * t]
    }
    fn distance(&self, i: usize, j: usize) -> Option<f64> {
        let d = self.get(i, j);
        d.is_finite().then_some(d)
    }
}

/// [`crate::matrix::distance_matrix`] on real weights: exact `f64` Dijkstra on the CPU's threads when
/// `backend` is `Cpu` and no `resolution` is given; otherwise the many-source engines of
/// [`crate::many`] (any backend) on weights rounded to `resolution` (default: the largest weight /
/// 2¹²), each entry re-summed in `f64` along its tree, with the largest error bound reported.
pub(crate) fn real_matrix<W: Weight>(
    g: &Csr<W>,
    sources: &[u32],
    targets: &[u32],
    backend: Backend,
    resolution: Option<f64>,
) -> Result<RealMatrix, SsspError> {
    use rayon::prelude::*;
    let n = g.num_vertices();
    if let Some(&t) = targets.iter().find(|&&t| t >= n) {
        return Err(SsspError::TargetOutOfRange { target: t, n });
    }
    if let Some(&s) = sources.iter().find(|&&s| s >= n) {
        return Err(SsspError::SourceOutOfRange { vertex: s, n });
    }
    let (max, min_positive) = check_weights(g)?;
    let cols = targets.len();
    if matches!(backend, Backend::Cpu) && resolution.is_none() {
        let rows: Vec<Vec<f64>> = sources
            .par_iter()
            .map(|&s| {
                dijkstra_real(g, s, false).map(|r| targets.iter().map(|&t| r.dist[t as usize]).collect())
            })
            .collect::<Result<_, _>>()?;
        return Ok(RealMatrix {
            sources: sources.to_vec(),
            targets: targets.to_vec(),
            data: rows.concat(),
            resolution: None,
            error_bound: 0.0,
        });
    }
    let (scaled, resolution) = scale_weights(g, resolution, max)?;
    let mut data = vec![f64::INFINITY; sources.len() * cols];
    let mut worst_hops = 0.0f64;
    let mut longest = 0.0f64;
    crate::many::many_to_all(&scaled, sources, backend, true, |block| {
        let pred = block.pred.expect("asked for predecessors");
        for i in 0..block.sources.len() {
            let (row_pred, source) = (&pred[i * block.n..(i + 1) * block.n], block.sources[i]);
            for (j, &t) in targets.iter().enumerate() {
                if block.dist_row(i)[t as usize] == crate::paths::UNREACHABLE {
                    continue;
                }
                let (mut v, mut len, mut hops) = (t, 0.0, 0u32);
                while v != source {
                    let a = row_pred[v as usize];
                    len += g.weights()[a as usize].to_f64();
                    v = tail_of(g, a);
                    hops += 1;
                }
                data[(block.first + i) * cols + j] = len;
                worst_hops = worst_hops.max(hops as f64);
                longest = longest.max(len);
            }
        }
    })
    .map_err(|e| overflow_hint(e, resolution))?;
    // Per entry: resolution / 2 × (its arcs + the most arcs a path no longer than it can have).
    let other = if min_positive > 0.0 { (longest / min_positive).floor() } else { n as f64 - 1.0 };
    let error_bound = 0.5 * resolution * (worst_hops + other.min(n as f64 - 1.0));
    Ok(RealMatrix {
        sources: sources.to_vec(),
        targets: targets.to_vec(),
        data,
        resolution: Some(resolution),
        error_bound,
    })
}
