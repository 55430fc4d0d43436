//! `shortest_paths`: one entry point for every algorithm and backend.

use gpu_runtime::{Backend, Resolved};
use graph_core::Csr;

use crate::algorithm::Algorithm;
use crate::cpu::{bellman_ford::bellman_ford, delta, dijkstra};
use crate::error::SsspError;
#[cfg(feature = "gpu")]
use crate::gpu::{GpuAlgorithm, GpuSssp};
use crate::paths::{SATURATED, ShortestPaths, UNREACHABLE};
use crate::pred::canonical_predecessors;

/// What to compute besides distances.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// The source vertex (the graph's 0-based id).
    pub source: u32,
    /// Stop once these are settled (Dijkstra only; other algorithms compute everything). Vertices not
    /// settled by then are reported unreachable.
    pub targets: Option<Vec<u32>>,
    /// Do not report vertices farther than this (Dijkstra stops there; other algorithms mask).
    pub cutoff: Option<u32>,
    /// Compute predecessor arcs (the canonical tree, identical on every backend).
    pub predecessors: bool,
}

impl Query {
    /// All distances from `source`, no predecessors.
    pub fn from(source: u32) -> Self {
        Self { source, ..Default::default() }
    }
}

/// Checks the source, targets and weights against the graph.
pub fn validate(graph: &Csr<u32>, q: &Query) -> Result<(), SsspError> {
    let n = graph.num_vertices();
    if q.source >= n {
        return Err(SsspError::SourceOutOfRange { vertex: q.source, n });
    }
    if let Some(&target) = q.targets.iter().flatten().find(|&&t| t >= n) {
        return Err(SsspError::TargetOutOfRange { target, n });
    }
    if let Some((arc, &weight)) = graph.weights().iter().enumerate().find(|(_, w)| **w >= SATURATED) {
        return Err(SsspError::WeightTooLarge { arc: arc as u32, weight });
    }
    Ok(())
}

/// Shortest paths from `source` with `algorithm` on `backend`; distances only.
///
/// ```
/// use urbanflow::sssp::{shortest_paths, Algorithm};
/// use urbanflow::graph::generators;
/// use urbanflow::gpu::Backend;
/// let g = generators::grid_2d(3, 3);
/// let r = shortest_paths(&g, 0, Algorithm::Dijkstra, Backend::Cpu).unwrap();
/// assert_eq!(r.distance(8), Some(4));
/// ```
pub fn shortest_paths(
    graph: &Csr<u32>,
    source: u32,
    algorithm: Algorithm,
    backend: Backend,
) -> Result<ShortestPaths, SsspError> {
    solve(graph, &Query::from(source), algorithm, backend)
}

/// Shortest paths for a full [`Query`] (targets, cutoff, predecessors).
pub fn solve(
    graph: &Csr<u32>,
    q: &Query,
    algorithm: Algorithm,
    backend: Backend,
) -> Result<ShortestPaths, SsspError> {
    validate(graph, q)?;
    // CPU algorithms never touch the GPU: resolving `Auto` would create a device for nothing. `Auto`
    // weighs what this one call pays (device, compilation, upload) against the CPU (crate::auto).
    let (algorithm, resolved) = match algorithm {
        Algorithm::Auto => {
            let (a, r, _why) = crate::auto::single_source_choice(graph, backend);
            (a, r)
        }
        a if a.is_gpu() => (a, backend.resolve()),
        a => (a, Resolved::Cpu),
    };
    let (mut dist, stats) = match (algorithm, resolved) {
        (Algorithm::Dijkstra, _) => {
            let stop = dijkstra::Stop { targets: q.targets.as_deref(), cutoff: q.cutoff };
            dijkstra::dijkstra(graph, q.source, &stop)?
        }
        (Algorithm::DeltaStepping(d), _) => {
            delta::delta_stepping(graph, q.source, d.unwrap_or_else(|| delta::default_delta(graph)))?
        }
        (Algorithm::BellmanFord, _) => bellman_ford(graph, q.source)?,
        #[cfg(not(feature = "gpu"))]
        (_, Resolved::Gpu(ctx)) => ctx.unbuilt(),
        #[cfg(feature = "gpu")]
        (gpu_algo, Resolved::Gpu(ctx)) => {
            let which = GpuAlgorithm::from_algorithm(gpu_algo).expect("CPU algorithms handled above");
            let mut solver = GpuSssp::new(ctx, graph)?;
            let r = solver.run(q.source, which, q.predecessors)?;
            return Ok(finish(graph, q, r.dist, r.pred_arc, r.stats, false, algorithm));
        }
        (gpu_algo, Resolved::Cpu) => {
            let why = match backend {
                Backend::Auto => format!(
                    ": the automatic backend chose the CPU because {} (ask for the GPU with --backend gpu / \
                     Backend::Gpu)",
                    gpu_runtime::context::auto_adapter().reason
                ),
                _ => String::new(),
            };
            return Err(SsspError::WrongBackend { algorithm: gpu_algo.name(), backend: "cpu", why });
        }
    };
    if let Some(c) = q.cutoff {
        dist.iter_mut().filter(|d| **d > c).for_each(|d| *d = UNREACHABLE);
    }
    Ok(finish(graph, q, dist, None, stats, true, algorithm))
}

fn finish(
    graph: &Csr<u32>,
    q: &Query,
    mut dist: Vec<u32>,
    pred: Option<Vec<u32>>,
    stats: crate::paths::SsspStats,
    cutoff_done: bool,
    algorithm: Algorithm,
) -> ShortestPaths {
    if !cutoff_done && let Some(c) = q.cutoff {
        dist.iter_mut().filter(|d| **d > c).for_each(|d| *d = UNREACHABLE);
    }
    let pred_arc = q.predecessors.then(|| match pred {
        Some(p) if q.cutoff.is_none() => p,
        _ => canonical_predecessors(graph, q.source, &dist),
    });
    ShortestPaths { source: q.source, dist, pred_arc, stats, algorithm }
}
