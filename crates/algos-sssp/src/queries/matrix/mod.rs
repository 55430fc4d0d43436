//! Distance matrices, origins × destinations: one entry point, [`distance_matrix`], for every engine and
//! weight type. The engine is chosen inside ([`Engine::Auto`]) and the result says which ran and why.
//!
//! | engine | how | [`Engine::Auto`] takes it |
//! |---|---|---|
//! | [`Engine::Trees`] | one shortest-path tree per origin ([`crate::many`]: the CPU, the GPUs or both by measured rate), the destinations' columns picked | when too few origins pay for a hierarchy ([`crate::auto::matrix_hierarchy_pays`]), or the graph has no small separators |
//! | [`Engine::Buckets`] | a customisable hierarchy (given, or its order from the cache folder, or built): one backward walk per destination fills buckets, one forward walk per origin scans them, all cores | with a hierarchy at hand, or enough origins to pay for one |
//! | [`Engine::MinPlus`] | the same walks, their min-plus product on a GPU (`shaders/cch_matrix.wgsl`) | where Buckets would run and a GPU is named ([`Backend::Gpu`]), or under [`Backend::Auto`] where this machine's GPU is predicted clearly faster from its measured profile ([`auto`]): on the one-GPU H200 host 1.9–2.1× the buckets end to end at 10,000 × 10,000, 1.4–1.7× slower at 1,000 × 1,000 (the device's start) |
//! | [`Engine::FloydWarshall`] | blocked Floyd–Warshall over all pairs ([`crate::floyd`]; CPU or GPU), the rows and columns picked | never (small dense graphs, when asked) |
//!
//! Every engine gives Dijkstra's distances, bit for bit. Real weights (`f32`, `f64`) run exact `f64`
//! trees on the CPU, or with [`MatrixOptions::resolution`] (or a GPU) the many-source engines on rounded
//! weights, re-summed in `f64` along each path with the error bound reported ([`RealMatrix`]).
//!
//! ```
//! use urbanflow::sssp::matrix::{Engine, MatrixOptions, distance_matrix};
//! let g = urbanflow::graph::generators::grid_2d(4, 4); // unit weights, vertex = row * 4 + column
//! let run = distance_matrix(&g, &[0, 5], &[15, 3], &MatrixOptions::default())?;
//! assert_eq!(run.matrix.data, [6, 3, 4, 3]);
//! assert_eq!(run.engine, Engine::Trees); // two origins: no hierarchy pays
//! let buckets = MatrixOptions { engine: Engine::Buckets, ..Default::default() };
//! assert_eq!(distance_matrix(&g, &[0, 5], &[15, 3], &buckets)?.matrix, run.matrix);
//! # Ok::<(), urbanflow::sssp::SsspError>(())
//! ```

pub mod auto;
mod table;

use std::time::Instant;

use gpu_runtime::{Backend, GpuContext, Resolved};
use graph_core::{Csr, Weight};
use rayon::prelude::*;

use crate::auto::HierarchyCost;
use crate::ch::ContractionHierarchy;
use crate::error::SsspError;
use crate::many::{ManyOptions, Method, Schedule, many_to_all_shared};
pub use crate::real::RealMatrix;
pub use table::{DistanceMatrix, Matrix};

/// How a matrix is computed (see the [module](self) table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// Chosen from the input and this machine, with the reason in [`MatrixRun::reason`].
    #[default]
    Auto,
    /// One shortest-path tree per origin.
    Trees,
    /// Bucket walks on a customisable hierarchy, on the CPU.
    Buckets,
    /// The hierarchy's walks as a min-plus product on a GPU.
    MinPlus,
    /// Blocked Floyd–Warshall over all pairs.
    FloydWarshall,
}

impl Engine {
    /// The engine's name as commands print and parse it.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Auto => "auto",
            Engine::Trees => "trees",
            Engine::Buckets => "buckets",
            Engine::MinPlus => "min-plus",
            Engine::FloydWarshall => "floyd-warshall",
        }
    }
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Engine {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Self::Auto),
            "trees" | "dijkstra" => Ok(Self::Trees),
            "buckets" => Ok(Self::Buckets),
            "min-plus" | "minplus" => Ok(Self::MinPlus),
            "floyd-warshall" | "floyd" => Ok(Self::FloydWarshall),
            o => Err(format!(
                "unknown matrix engine `{o}`: expected auto, trees, buckets, min-plus or floyd-warshall"
            )),
        }
    }
}

/// What [`distance_matrix`] is asked.
#[derive(Debug, Clone, Copy, Default)]
pub struct MatrixOptions<'a> {
    /// Where: [`Backend::Auto`] (the default) lets the engines place their work by measurement; a named
    /// GPU runs the GPU engines there.
    pub backend: Backend<'a>,
    /// The engine (default: chosen).
    pub engine: Engine,
    /// A customised hierarchy of the graph, when one is at hand: the bucket and min-plus engines use it
    /// (and its metric, which may differ from the graph's weights) instead of preparing one.
    pub hierarchy: Option<&'a ContractionHierarchy>,
    /// Several GPUs for [`Engine::Trees`] ([`ManyOptions::devices`]).
    pub devices: &'a [GpuContext],
    /// Real weights only: round them to this resolution and run the integer engines (default: exact
    /// `f64` trees on the CPU, or the largest weight / 2¹² on a GPU).
    pub resolution: Option<f64>,
}

/// A matrix with how it was made.
#[derive(Debug, Clone)]
pub struct MatrixRun<M> {
    /// The distances.
    pub matrix: M,
    /// The engine that ran (never [`Engine::Auto`]).
    pub engine: Engine,
    /// Why this engine (one sentence; "asked for" when the options named it).
    pub reason: String,
    /// The adapter that computed the matrix, when a GPU did.
    pub device: Option<String>,
    /// Where the hierarchy came from ("given", "cch, order loaded from …"; empty without one).
    pub hierarchy: String,
    /// Seconds preparing: the hierarchy's order and customisation (0 when given or not needed).
    pub preprocess_s: f64,
    /// Seconds computing the matrix after the preparation.
    pub solve_s: f64,
    /// The min-plus engine's time split (upload, device, readback) and result bytes.
    pub gpu_times: Option<GpuMatrixTimes>,
}

/// Where the min-plus engine spent its time (seconds, wall clock on the host).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct GpuMatrixTimes {
    /// The walks computed on the CPU.
    pub walks_s: f64,
    /// Buffers created and the walks written.
    pub upload_s: f64,
    /// Waiting for the device: the kernels and the copies of blocks over the bus, where they were not
    /// hidden behind the host's copying of the block before.
    pub kernel_s: f64,
    /// Copying mapped blocks into the result on all cores (the overflow check rides along).
    pub readback_s: f64,
    /// Bytes of the result that came back.
    pub bytes: u64,
}

impl GpuMatrixTimes {
    /// The rate at which the result reached host memory once uploaded: bytes over the kernels and the
    /// readback together (GB/s; 0 for an empty matrix).
    pub fn result_gb_per_s(&self) -> f64 {
        let s = self.kernel_s + self.readback_s;
        if s > 0.0 { self.bytes as f64 / s / 1e9 } else { 0.0 }
    }
}

/// The weight types [`distance_matrix`] takes, each with the table it returns: `u32` gives exact
/// [`DistanceMatrix`] from every engine, `f32` and `f64` give [`RealMatrix`].
pub trait MatrixWeight: Weight {
    /// The table of this weight's distances.
    type Matrix: Matrix;
    /// [`distance_matrix`] for this weight.
    fn matrix(
        graph: &Csr<Self>,
        origins: &[u32],
        destinations: &[u32],
        opts: &MatrixOptions<'_>,
    ) -> Result<MatrixRun<Self::Matrix>, SsspError>;
}

/// The distance from every origin to every destination (graph vertices), `origins × destinations`,
/// by the engine the options name or the one chosen for this input on this machine (see the
/// [module](self)). Unreachable pairs are `UNREACHABLE` (`f64::INFINITY` for real weights); a distance
/// that reaches the saturation bound is an error, as in Dijkstra.
pub fn distance_matrix<W: MatrixWeight>(
    graph: &Csr<W>,
    origins: &[u32],
    destinations: &[u32],
    opts: &MatrixOptions<'_>,
) -> Result<MatrixRun<W::Matrix>, SsspError> {
    let n = graph.num_vertices();
    if let Some(&s) = origins.iter().find(|&&s| s >= n) {
        return Err(SsspError::SourceOutOfRange { vertex: s, n });
    }
    if let Some(&t) = destinations.iter().find(|&&t| t >= n) {
        return Err(SsspError::TargetOutOfRange { target: t, n });
    }
    if let Some(ch) = opts.hierarchy
        && ch.num_vertices() != n
    {
        return Err(SsspError::InvalidParameter(format!(
            "the hierarchy has {} vertices, the graph {n}",
            ch.num_vertices()
        )));
    }
    W::matrix(graph, origins, destinations, opts)
}

impl MatrixWeight for u32 {
    type Matrix = DistanceMatrix;
    fn matrix(
        graph: &Csr<u32>,
        origins: &[u32],
        destinations: &[u32],
        opts: &MatrixOptions<'_>,
    ) -> Result<MatrixRun<DistanceMatrix>, SsspError> {
        let (engine, reason) = engine_for(graph, origins.len(), opts);
        let mut run = MatrixRun {
            matrix: DistanceMatrix { sources: Vec::new(), targets: Vec::new(), data: Vec::new() },
            engine,
            reason,
            device: None,
            hierarchy: String::new(),
            preprocess_s: 0.0,
            solve_s: 0.0,
            gpu_times: None,
        };
        match engine {
            Engine::Trees => trees(graph, origins, destinations, opts, &mut run)?,
            Engine::Buckets | Engine::MinPlus => {
                let t = Instant::now();
                let (built, how) = match opts.hierarchy {
                    Some(_) => (None, "given".to_string()),
                    None => {
                        let (ch, how) = crate::cch::Cch::prepare_cached(graph)?;
                        (Some(ch), how)
                    }
                };
                run.hierarchy = how;
                let ch = opts.hierarchy.or(built.as_ref()).expect("a hierarchy given or built");
                run.preprocess_s = t.elapsed().as_secs_f64();
                let t = Instant::now();
                // Chosen by Auto on the CPU: the GPU's min-plus product where predicted clearly faster
                // from this machine's measured profiles, decided now that the tree's depth is known.
                let unnamed = opts.engine == Engine::Auto && matches!(opts.backend, Backend::Auto);
                if engine == Engine::Buckets && unnamed {
                    let choice = auto::choose((origins.len(), destinations.len()), ch);
                    if choice.gpu_clearly() {
                        run.engine = Engine::MinPlus;
                    }
                    run.reason = format!("{}: {} ({})", run.reason, run.engine, choice.why);
                }
                run.matrix = match run.engine {
                    Engine::Buckets => crate::cch::CchQuery::matrix(ch, origins, destinations)?,
                    _ => min_plus(ch, origins, destinations, opts.backend, &mut run)?,
                };
                run.solve_s = t.elapsed().as_secs_f64();
            }
            Engine::FloydWarshall => {
                let t = Instant::now();
                let apsp = crate::floyd::floyd_warshall(graph, opts.backend, false)?;
                let cols = destinations.len();
                let mut data = vec![0u32; origins.len() * cols];
                if cols > 0 {
                    data.par_chunks_mut(cols).zip(origins).for_each(|(row, &s)| {
                        for (cell, &d) in row.iter_mut().zip(destinations) {
                            *cell = apsp.get(s, d);
                        }
                    });
                }
                run.matrix =
                    DistanceMatrix { sources: origins.to_vec(), targets: destinations.to_vec(), data };
                run.device = gpu_name(opts.backend);
                run.solve_s = t.elapsed().as_secs_f64();
            }
            Engine::Auto => unreachable!("`engine_for` never returns Auto"),
        }
        Ok(run)
    }
}

/// The engine [`distance_matrix`] runs for `origins` origins of `graph` under `opts`, and why (the
/// [module](self) table's last column), decided without computing anything: callers that keep their
/// own hierarchy (the Python package) ask it before preparing one.
///
/// ```
/// use urbanflow::sssp::matrix::{Engine, MatrixOptions, engine_for};
/// let g = urbanflow::graph::generators::grid_2d(30, 30);
/// assert_eq!(engine_for(&g, 3, &MatrixOptions::default()).0, Engine::Trees);
/// let named = MatrixOptions { engine: Engine::Buckets, ..Default::default() };
/// assert_eq!(engine_for(&g, 3, &named), (Engine::Buckets, "asked for".to_string()));
/// ```
pub fn engine_for(graph: &Csr<u32>, origins: usize, opts: &MatrixOptions<'_>) -> (Engine, String) {
    use crate::auto::{MATRIX_MIN_ORIGINS_CACHED, MATRIX_MIN_ORIGINS_TO_BUILD, matrix_hierarchy_pays};
    if opts.engine != Engine::Auto {
        return (opts.engine, "asked for".into());
    }
    let hierarchy_engine = |why: String| match opts.backend {
        Backend::Gpu(_) => {
            (Engine::MinPlus, format!("{why}; a GPU is named: the walks' min-plus product on it"))
        }
        Backend::Cpu => (Engine::Buckets, format!("{why}: buckets on all cores")),
        // `distance_matrix` settles it once the hierarchy is ready ([`auto::choose`]).
        Backend::Auto => (
            Engine::Buckets,
            format!("{why}: buckets on all cores unless this machine's GPU is predicted clearly faster"),
        ),
    };
    if opts.hierarchy.is_some() {
        return hierarchy_engine("a hierarchy at hand".into());
    }
    let cost = HierarchyCost::of(graph, false);
    let (n, m) = (graph.num_vertices(), graph.num_arcs());
    let threshold = match cost {
        HierarchyCost::Cached => MATRIX_MIN_ORIGINS_CACHED,
        _ => MATRIX_MIN_ORIGINS_TO_BUILD,
    };
    if matrix_hierarchy_pays(n, m, origins, cost) {
        hierarchy_engine(format!(
            "{origins} origins ≥ {threshold} with {} (auto::matrix_hierarchy_pays)",
            cost.describe()
        ))
    } else if !crate::auto::road_like(n, m) {
        (Engine::Trees, "a graph denser than road networks (no small separators): one tree per origin".into())
    } else {
        (
            Engine::Trees,
            format!(
                "{origins} origins, fewer than pay for {} ({threshold}, auto::matrix_hierarchy_pays): one tree \
                 per origin",
                cost.describe()
            ),
        )
    }
}

/// [`Engine::Trees`]: the many-source trees, each GPU's or CPU thread's rows picked into the matrix
/// straight from where they arrive (the lock is held only to store a block's picked columns).
fn trees(
    graph: &Csr<u32>,
    origins: &[u32],
    destinations: &[u32],
    opts: &MatrixOptions<'_>,
    run: &mut MatrixRun<DistanceMatrix>,
) -> Result<(), SsspError> {
    let t = Instant::now();
    let cols = destinations.len();
    let data = std::sync::Mutex::new(vec![0u32; origins.len() * cols]);
    // A named backend runs the trees (as asked); Auto places them by measured rates.
    let schedule = if matches!(opts.backend, Backend::Auto) { Schedule::Auto } else { Schedule::Single };
    let many = ManyOptions {
        backend: opts.backend,
        schedule,
        devices: opts.devices,
        method: Method::Trees,
        ..Default::default()
    };
    let stats = many_to_all_shared(graph, origins, &many, |block| {
        let mut picked = vec![0u32; block.sources.len() * cols];
        picked.par_chunks_mut(cols.max(1)).enumerate().for_each(|(i, out)| {
            let row = block.dist_row(i);
            for (o, &d) in out.iter_mut().zip(destinations) {
                *o = row[d as usize];
            }
        });
        let mut data = data.lock().unwrap_or_else(|e| e.into_inner());
        data[block.first * cols..(block.first + block.sources.len()) * cols].copy_from_slice(&picked);
    })?;
    if let Some(d) = &stats.decision {
        run.reason = format!("{}; placed: {}", run.reason, d.reason);
    }
    if stats.gpu_trees > 0 {
        run.device = match opts.devices {
            [] => gpu_name(opts.backend),
            devices => Some(devices.iter().map(|c| c.info.name.clone()).collect::<Vec<_>>().join(", ")),
        };
    }
    let data = data.into_inner().unwrap_or_else(|e| e.into_inner());
    run.matrix = DistanceMatrix { sources: origins.to_vec(), targets: destinations.to_vec(), data };
    run.solve_s = t.elapsed().as_secs_f64();
    Ok(())
}

/// [`Engine::MinPlus`]: the walks on the CPU, their product on the backend's GPU.
#[cfg(feature = "gpu")]
fn min_plus(
    ch: &ContractionHierarchy,
    origins: &[u32],
    destinations: &[u32],
    backend: Backend<'_>,
    run: &mut MatrixRun<DistanceMatrix>,
) -> Result<DistanceMatrix, SsspError> {
    use crate::cch::gpu_matrix::{READBACK_WORDS, Walks, cch_matrix_gpu_blocks};
    let Resolved::Gpu(ctx) = backend.resolve() else {
        return Err(SsspError::InvalidParameter(
            "the min-plus engine runs on a GPU, and the backend has none (name one, or use the buckets)"
                .into(),
        ));
    };
    let t = Instant::now();
    let walks = Walks::new(ch, origins, destinations)?;
    let walks_s = t.elapsed().as_secs_f64();
    let (m, mut times) = cch_matrix_gpu_blocks(ctx, &walks, READBACK_WORDS)?;
    times.walks_s = walks_s;
    run.gpu_times = Some(times);
    run.device = Some(ctx.info.name.clone());
    Ok(m)
}

/// Without the `gpu` feature there is no GPU to run the product on.
#[cfg(not(feature = "gpu"))]
fn min_plus(
    _ch: &ContractionHierarchy,
    _origins: &[u32],
    _destinations: &[u32],
    _backend: Backend<'_>,
    _run: &mut MatrixRun<DistanceMatrix>,
) -> Result<DistanceMatrix, SsspError> {
    Err(SsspError::InvalidParameter(
        "the min-plus engine runs on a GPU, and this build has none (the `gpu` feature is off)".into(),
    ))
}

/// The adapter a backend names, when it resolves to a GPU.
fn gpu_name(backend: Backend<'_>) -> Option<String> {
    match backend {
        Backend::Cpu => None,
        b => match b.resolve() {
            Resolved::Cpu => None,
            Resolved::Gpu(ctx) => Some(ctx.info.name.clone()),
        },
    }
}

macro_rules! real_weight {
    ($t:ty) => {
        impl MatrixWeight for $t {
            type Matrix = RealMatrix;
            fn matrix(
                graph: &Csr<$t>,
                origins: &[u32],
                destinations: &[u32],
                opts: &MatrixOptions<'_>,
            ) -> Result<MatrixRun<RealMatrix>, SsspError> {
                real(graph, origins, destinations, opts)
            }
        }
    };
}
real_weight!(f32);
real_weight!(f64);

/// Real weights: exact `f64` trees on the CPU, or the integer trees on rounded weights.
fn real<W: Weight>(
    graph: &Csr<W>,
    origins: &[u32],
    destinations: &[u32],
    opts: &MatrixOptions<'_>,
) -> Result<MatrixRun<RealMatrix>, SsspError> {
    if !matches!(opts.engine, Engine::Auto | Engine::Trees) {
        return Err(SsspError::InvalidParameter(format!(
            "real weights run the trees engine (exact f64, or rounded with a resolution); `{}` needs u32 weights",
            opts.engine
        )));
    }
    // Exact unless a resolution is given or a GPU named: the automatic backend keeps the exact trees.
    let backend = match (opts.resolution, opts.backend) {
        (None, Backend::Auto) => Backend::Cpu,
        (_, b) => b,
    };
    let t = Instant::now();
    let matrix = crate::real::real_matrix(graph, origins, destinations, backend, opts.resolution)?;
    let reason = match matrix.resolution {
        None => "real weights: exact f64 trees on the CPU".to_string(),
        Some(r) => format!(
            "real weights rounded to {r} for the integer trees, each entry re-summed in f64 (error at most {:.3e})",
            matrix.error_bound
        ),
    };
    let device = matrix.resolution.and_then(|_| gpu_name(backend));
    Ok(MatrixRun {
        matrix,
        engine: Engine::Trees,
        reason,
        device,
        hierarchy: String::new(),
        preprocess_s: 0.0,
        solve_s: t.elapsed().as_secs_f64(),
        gpu_times: None,
    })
}
