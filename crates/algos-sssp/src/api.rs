//! `shortest_paths`: one entry point for every algorithm and backend.

use std::fmt;
use std::str::FromStr;

use gpu_runtime::{Backend, Resolved};
use graph_core::Csr;

use crate::cpu::{bellman_ford::bellman_ford, delta, dijkstra};
use crate::error::SsspError;
use crate::gpu::{GpuAlgorithm, GpuSssp};
use crate::paths::{SATURATED, ShortestPaths, UNREACHABLE};
use crate::pred::canonical_predecessors;

/// The shortest-path algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Algorithm {
    /// Chosen per call ([`crate::auto::single_source_choice`]): Dijkstra on the CPU unless the GPU is
    /// measured faster on this adapter for a graph this large, counting what the call pays (device,
    /// compilation, upload). [`crate::ShortestPaths::algorithm`] says what ran.
    #[default]
    Auto,
    /// Dijkstra, binary heap (CPU).
    Dijkstra,
    /// Δ-stepping on rayon (CPU); `None` picks [`delta::default_delta`].
    DeltaStepping(Option<u32>),
    /// Bellman–Ford–Moore (CPU reference).
    BellmanFord,
    /// Harish & Narayanan's vertex-parallel relaxation with the write-after-write race fixed (GPU).
    Harish,
    /// Martín et al.: settle every vertex at the minimum tentative distance each phase (GPU).
    Martin,
    /// Crauser et al. OUT criterion (GPU).
    CrauserOut,
    /// Crauser et al. OUT and IN criteria (GPU).
    CrauserInOut,
    /// Near–far frontier queues with the loop on the GPU; `None` picks Δ from the weights.
    NearFar(Option<u32>),
    /// Locality-based relaxation (seed 002) following improvements up to `k` hops, 1..=8 (GPU).
    Lbr(u32),
    /// Jradi's Dijkstra (seed 000 ch. 7) in one workgroup (GPU; a cross-check, slow on one source).
    Jradi,
}

impl Algorithm {
    /// The name used on command lines.
    pub fn name(&self) -> &'static str {
        match self {
            Algorithm::Auto => "auto",
            Algorithm::Dijkstra => "dijkstra",
            Algorithm::DeltaStepping(_) => "delta",
            Algorithm::BellmanFord => "bellman-ford",
            Algorithm::Harish => "harish",
            Algorithm::Martin => "martin",
            Algorithm::CrauserOut => "crauser",
            Algorithm::CrauserInOut => "crauser-in",
            Algorithm::NearFar(_) => "near-far",
            Algorithm::Lbr(_) => "lbr",
            Algorithm::Jradi => "jradi",
        }
    }

    /// True for the algorithms that run on a GPU.
    pub fn is_gpu(&self) -> bool {
        matches!(
            self,
            Algorithm::Harish
                | Algorithm::Martin
                | Algorithm::CrauserOut
                | Algorithm::CrauserInOut
                | Algorithm::NearFar(_)
                | Algorithm::Lbr(_)
                | Algorithm::Jradi
        )
    }

    /// Every named algorithm (for tests and benchmarks).
    pub const ALL: [Algorithm; 10] = [
        Algorithm::Dijkstra,
        Algorithm::DeltaStepping(None),
        Algorithm::BellmanFord,
        Algorithm::Harish,
        Algorithm::Martin,
        Algorithm::CrauserOut,
        Algorithm::CrauserInOut,
        Algorithm::NearFar(None),
        Algorithm::Lbr(4),
        Algorithm::Jradi,
    ];
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Algorithm {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let all = [Algorithm::Auto].into_iter().chain(Algorithm::ALL);
        all.clone().find(|a| a.name() == s).ok_or_else(|| {
            format!(
                "unknown algorithm `{s}`: expected one of {}",
                all.map(|a| a.name()).collect::<Vec<_>>().join(", ")
            )
        })
    }
}

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
/// use algos_sssp::{shortest_paths, Algorithm};
/// use graph_core::generators;
/// use gpu_runtime::Backend;
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
