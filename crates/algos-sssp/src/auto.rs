//! Automatic choices that never make a call slower than the CPU: which algorithm [`Algorithm::Auto`]
//! runs for one source, and where [`crate::many::Schedule::Auto`] computes many trees.
//!
//! **One source.** A single [`crate::solve`] call on a GPU pays for what a warm benchmark does not:
//! the device (when the process has none yet), pipeline compilation, the graph's upload and scratch
//! allocation. `Auto` runs Dijkstra on the CPU on every machine: on the H100, per process and per
//! call (docs/benchmarks.md, "Automatic choices"), the GPU wins on generated road-like graphs from 2M vertices (LBR 2.6× warm,
//! 1.1× cold) but loses 3× on the real Florida network at 1.07M vertices (LBR 225 ms against
//! Dijkstra's 77 ms: long chains of degree-2 vertices make many dependent phases), so a vertex-count
//! rule would make real road networks slower. Repeated queries on one graph belong on
//! [`crate::gpu::GpuSssp`] (uploaded once), many sources on [`crate::many`].
//!
//! **Many sources.** Measured, not recorded: the first trees are computed on the CPU (they are part of
//! the answer) and time the CPU. When the CPU would need less than [`MIN_CPU_SECONDS_FOR_GPU`] for
//! the rest, the CPU does it. Otherwise the GPU's rate comes from [`crate::tuning::tune_for`] (the
//! portable default timed once per graph and machine, the other candidates within a tenth of the
//! expected GPU time, all cached across processes). The GPU is used only when it is measured faster;
//! the CPU threads join it (work queue) only when they add at least [`WORK_QUEUE_MIN_CPU_SHARE`] of the
//! GPU's rate, below which the measured work queue was slower than the GPU alone (NY: 2,446 vs 2,702
//! trees/s; bremen 10,510 vs 10,841).

use gpu_runtime::{Backend, Resolved};
use graph_core::Csr;

use crate::algorithm::Algorithm;

/// What [`Algorithm::Auto`] runs for one source of `graph` on `backend`, and where, with the reason:
/// Dijkstra on the CPU, whatever the adapter. A single search on a GPU pays for what the CPU does not
/// (pipelines, the graph's upload, scratch buffers) and then runs as many dependent phases as the
/// tree is deep; on real road networks that lost to Dijkstra at every size measured (Florida, 1.07 M
/// vertices: LBR 225 ms against 77 ms on the H100 host, docs/benchmarks.md "Automatic choices"), and
/// no per-device measurement can change the phase count. Name a GPU algorithm to run one; many
/// sources go to [`crate::many`], whose Auto measures this machine.
///
/// ```
/// use urbanflow::sssp::{Algorithm, auto::single_source_choice};
/// use urbanflow::gpu::Backend;
/// let g = urbanflow::graph::generators::grid_2d(10, 10);
/// let (algorithm, _backend, why) = single_source_choice(&g, Backend::Auto);
/// assert_eq!(algorithm, Algorithm::Dijkstra);
/// assert!(why.contains("phases"), "{why}");
/// ```
pub fn single_source_choice<'a>(graph: &Csr<u32>, backend: Backend<'a>) -> (Algorithm, Resolved<'a>, String) {
    let why = match backend {
        Backend::Cpu => "the CPU backend was asked for".to_string(),
        _ => format!(
            "one source on {} vertices: Dijkstra on the CPU (a GPU search runs as many dependent phases as \
             the tree is deep, and lost to Dijkstra on every real road network measured)",
            graph.num_vertices()
        ),
    };
    (Algorithm::Dijkstra, Resolved::Cpu, why)
}

/// Least share of the GPU's rate the CPU threads must add before they work beside it.
pub const WORK_QUEUE_MIN_CPU_SHARE: f64 = 0.45;

/// Least estimated CPU time for the remaining trees before the GPU is considered at all: below it the
/// GPU's fixed costs (a device when the process has none, about 0.07–0.1 s on the H100 host; pipeline
/// compilation; row buffers; and, once per graph and machine, timing the default launch settings,
/// 0.1 s on bremen to 0.7 s on NY) cannot pay off reliably.
pub const MIN_CPU_SECONDS_FOR_GPU: f64 = 2.0;

/// With several GPUs, `Schedule::Auto` spreads the trees over all of them only when the first GPU
/// alone would need at least this long: every further device pays its own buffers (on NY about a
/// gigabyte of rows on the device and twice that pinned on the host) before its first tree. Measured on
/// the two-H100 machine (docs/benchmarks.md, "Several GPUs"): bremen_time, 1.5 s on one GPU, took
/// 1.9–2.0 s on two; NY, 6.3 s on one, 4.7–5.2 s on two.
pub const MIN_GPU_SECONDS_FOR_MORE_GPUS: f64 = 3.0;

/// Where the rest of a many-source run goes, from measured rates (trees per second).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// The CPU alone.
    Cpu,
    /// The GPU alone.
    Gpu,
    /// GPU and CPU threads from one work queue.
    Both,
}

/// The rule of [`crate::many::Schedule::Auto`], given the CPU's rate (all threads), the GPU's (none
/// when it could not be measured) and the estimated remaining time on the CPU.
///
/// ```
/// use urbanflow::sssp::auto::{Placement, place};
/// assert_eq!(place(500.0, None), Placement::Cpu);            // unmeasured GPU: never chosen
/// assert_eq!(place(500.0, Some(450.0)), Placement::Cpu);     // measured slower
/// assert_eq!(place(500.0, Some(2_500.0)), Placement::Gpu);   // CPU adds only 20%
/// assert_eq!(place(1_000.0, Some(2_000.0)), Placement::Both); // CPU adds 50%
/// ```
pub fn place(cpu_trees_per_s: f64, gpu_trees_per_s: Option<f64>) -> Placement {
    match gpu_trees_per_s {
        // A 10% margin: the GPU rate comes from a sample batch, the CPU's from the first trees.
        Some(g) if g > 1.1 * cpu_trees_per_s => {
            if cpu_trees_per_s >= WORK_QUEUE_MIN_CPU_SHARE * g {
                Placement::Both
            } else {
                Placement::Gpu
            }
        }
        _ => Placement::Cpu,
    }
}

/// What a hierarchy costs the call that wants PHAST.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HierarchyCost {
    /// The caller passed one: nothing.
    AtHand,
    /// Its metric-independent part is in the cache folder ([`crate::cch::Cch::is_cached`]): read and
    /// customised (NY 0.15–0.19 s on 16 cores, 0.14–0.17 s on two).
    Cached,
    /// To be ordered and built first (NY 0.9–1.0 s on 16 cores, 1.3–1.4 s on two).
    ToBuild,
}

impl HierarchyCost {
    /// How the hierarchy of `graph` would be had: at hand when `given`, else cached or to build.
    pub fn of<W: graph_core::Weight>(graph: &Csr<W>, given: bool) -> Self {
        if given {
            Self::AtHand
        } else if crate::cch::Cch::is_cached(graph) {
            Self::Cached
        } else {
            Self::ToBuild
        }
    }

    /// Words for a decision's reason.
    pub fn describe(self) -> &'static str {
        match self {
            Self::AtHand => "a hierarchy given",
            Self::Cached => "the hierarchy's order in the cache folder",
            Self::ToBuild => "the hierarchy built first",
        }
    }
}

/// Whether PHAST (a customisable hierarchy first, paid as `hierarchy` says, then sweeps) beats one
/// search per source for `sources` trees on a graph of `vertices` vertices and `arcs` arcs, on
/// `threads` CPU threads or on a GPU: `sources` ≥ [`phast_threshold`]. Road networks (2.1–2.8 arcs per
/// vertex); denser graphs have no small separators, so above [`PHAST_MAX_ARCS_PER_VERTEX`] the answer is
/// no unless a hierarchy is at hand, with which PHAST always pays.
///
/// ```
/// use urbanflow::sssp::auto::{HierarchyCost, phast_pays};
/// let (n, m) = (264_346, 730_100); // NY
/// let build = HierarchyCost::ToBuild;
/// assert!(!phast_pays(n, m, 1_000, 16, false, build)); // 1,000 trees on 16 cores: Dijkstra
/// assert!(phast_pays(n, m, 4_096, 16, false, build)); // 4,096: build the hierarchy first
/// assert!(phast_pays(n, m, 4_096, 16, true, build)); // on a GPU too
/// assert!(phast_pays(n, m, 1_000, 16, false, HierarchyCost::Cached)); // its order cached: PHAST
/// assert!(!phast_pays(n, 10 * n, 20_000, 16, false, build)); // not road-like: no hierarchy
/// assert!(phast_pays(n, m, 10, 16, true, HierarchyCost::AtHand)); // a hierarchy at hand: always
/// ```
pub fn phast_pays(
    vertices: u32,
    arcs: u32,
    sources: usize,
    threads: usize,
    gpu: bool,
    hierarchy: HierarchyCost,
) -> bool {
    if hierarchy == HierarchyCost::AtHand {
        return true;
    }
    if !road_like(vertices, arcs) {
        return false;
    }
    sources >= phast_threshold(threads, gpu, hierarchy)
}

/// Sources from which PHAST pays ([`phast_pays`]) on a road network. Measured on NY, whole processes
/// (docs/benchmarks.md "Many sources on the CCH" and "Where PHAST pays with the hierarchy cached").
/// With the hierarchy to build, on the 16-core H100 host, PHAST on the GPU took 1.85 s for 4,096
/// sources on a first run against 3.02 s for the batched kernel (2.15 vs 2.02 s at 1,024), so
/// [`PHAST_GPU_MIN_SOURCES`]; on 16 CPU threads 4.07 s against 8.69 s for Dijkstra per source at 4,096
/// (2.65 vs 2.50 s at 1,024), so [`PHAST_CPU_MIN_SOURCES_PER_THREAD`] per thread. With the order cached
/// the hierarchy costs 0.13–0.25 s: on the GPU PHAST was never slower from 256 sources (1.22–1.24 s
/// against 1.26–2.01 s; 1,024: 1.31–1.47 against 1.76–2.46 s), so [`PHAST_GPU_MIN_SOURCES_CACHED`]; on
/// the CPU Dijkstra per source scales with threads better than PHAST's sweeps: from 16 sources on two
/// threads, but still slower up to 256 on 16 (1.08–1.22 against 1.01–1.13 s), so
/// [`PHAST_CPU_MIN_SOURCES_PER_THREAD_CACHED`] per thread, the larger of the two.
pub fn phast_threshold(threads: usize, gpu: bool, hierarchy: HierarchyCost) -> usize {
    match (hierarchy, gpu) {
        (HierarchyCost::AtHand, _) => 0,
        (HierarchyCost::Cached, true) => PHAST_GPU_MIN_SOURCES_CACHED,
        (HierarchyCost::Cached, false) => PHAST_CPU_MIN_SOURCES_PER_THREAD_CACHED * threads.max(1),
        (HierarchyCost::ToBuild, true) => PHAST_GPU_MIN_SOURCES,
        (HierarchyCost::ToBuild, false) => PHAST_CPU_MIN_SOURCES_PER_THREAD * threads.max(1),
    }
}

/// Whether a distance matrix from `origins` origins pays for a customisable hierarchy (then bucket
/// walks, [`crate::matrix::Engine::Buckets`]) rather than one tree per origin: always with the hierarchy
/// at hand; on a road network from [`MATRIX_MIN_ORIGINS_CACHED`] origins when its order is in the cache
/// folder and from [`MATRIX_MIN_ORIGINS_TO_BUILD`] when it must be built; never on denser graphs (no
/// small separators). Measured on NY, 2 cores (docs/benchmarks.md "Python: routes and matrices"): the
/// order loaded and customised cost 0.25 s, ~12 trees at 21 ms; built, 2.0 s, ~95 trees; the buckets
/// then answer 200 × 200 in 0.02 s against 4.15 s of trees. The buckets do far less per origin than
/// PHAST's sweep of every vertex, hence thresholds below [`phast_threshold`]'s.
///
/// ```
/// use urbanflow::sssp::auto::{HierarchyCost, matrix_hierarchy_pays};
/// let (n, m) = (264_346, 730_100); // NY
/// assert!(!matrix_hierarchy_pays(n, m, 100, HierarchyCost::ToBuild)); // trees
/// assert!(matrix_hierarchy_pays(n, m, 100, HierarchyCost::Cached)); // load the order: buckets
/// assert!(matrix_hierarchy_pays(n, m, 1, HierarchyCost::AtHand));
/// ```
pub fn matrix_hierarchy_pays(vertices: u32, arcs: u32, origins: usize, hierarchy: HierarchyCost) -> bool {
    match hierarchy {
        HierarchyCost::AtHand => true,
        _ if !road_like(vertices, arcs) => false,
        HierarchyCost::Cached => origins >= MATRIX_MIN_ORIGINS_CACHED,
        HierarchyCost::ToBuild => origins >= MATRIX_MIN_ORIGINS_TO_BUILD,
    }
}

/// Origins from which a matrix loads a cached hierarchy order ([`matrix_hierarchy_pays`]).
pub const MATRIX_MIN_ORIGINS_CACHED: usize = 16;

/// Origins from which a matrix builds a hierarchy ([`matrix_hierarchy_pays`]).
pub const MATRIX_MIN_ORIGINS_TO_BUILD: usize = 128;

/// Most arcs per vertex for which [`phast_pays`] trusts the road-network hierarchy costs.
pub const PHAST_MAX_ARCS_PER_VERTEX: f64 = 4.0;

/// Whether a graph of `vertices` and `arcs` is sparse enough for the road-network hierarchy costs the
/// automatic PHAST rules were measured with (at most [`PHAST_MAX_ARCS_PER_VERTEX`] arcs a vertex).
pub fn road_like(vertices: u32, arcs: u32) -> bool {
    arcs as f64 <= PHAST_MAX_ARCS_PER_VERTEX * vertices.max(1) as f64
}

/// Sources per CPU thread from which a hierarchy and PHAST beat Dijkstra per source (see [`phast_pays`]).
pub const PHAST_CPU_MIN_SOURCES_PER_THREAD: usize = 128;

/// Sources from which a hierarchy and streamed GPU PHAST beat the batched GPU kernel (see [`phast_pays`]).
pub const PHAST_GPU_MIN_SOURCES: usize = 2_048;

/// [`PHAST_CPU_MIN_SOURCES_PER_THREAD`] with the hierarchy's order cached (see [`phast_threshold`]).
pub const PHAST_CPU_MIN_SOURCES_PER_THREAD_CACHED: usize = 32;

/// [`PHAST_GPU_MIN_SOURCES`] with the hierarchy's order cached (see [`phast_threshold`]).
pub const PHAST_GPU_MIN_SOURCES_CACHED: usize = 256;
