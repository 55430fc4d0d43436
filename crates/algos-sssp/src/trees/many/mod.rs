//! Many sources at once: shortest-path trees streamed to a callback in blocks, and distance matrices.
//!
//! CPU: rayon over the sources of a block, each thread reusing its own distance row and radix heap.
//! GPU: one source per workgroup ([`GpuBatchSssp`](crate::gpu::GpuBatchSssp), `shaders/sssp_batch.wgsl`), as many sources at once
//! as the device's memory and binding limits allow. [`Schedule::Auto`] (the default) chooses the CPU,
//! the GPU or both from measured rates ([`crate::auto`]).
//!
//! The module follows a run's life, each step a type of its own: this file holds the API (options,
//! statistics, entry points); [`measure()`] takes what the automatic choices need on this machine
//! ([`Measurements`]), [`plan()`] only decides ([`Plan`]), [`Plan::run`] only executes (`run`, with
//! the work in `schedule`, `gpu_schedule` and `phast`). The entry points below are these three steps
//! in a row. Distance matrices are [`crate::matrix`]'s (its trees engine runs here).

#[cfg(feature = "gpu")]
mod gpu_schedule;
mod measure;
mod measured;
mod phast;
mod plan;
mod run;
mod schedule;

use gpu_runtime::{Backend, GpuContext};
use graph_core::Csr;
use rayon::prelude::*;

pub use measure::measure;
pub use measured::{CpuProbe, Measurements, TunedGpu};
/// Sources per GPU PHAST pass for a graph of `n` vertices on a device (what the many-source PHAST
/// runs use; consumers that reduce trees on the device size their passes by it).
#[cfg(feature = "gpu")]
pub use phast::gpu_pass as gpu_pass_lanes;
pub use plan::{Placement, Plan, plan};
use schedule::trees_into;

use crate::error::SsspError;
use crate::gpu::BatchConfig;
use crate::paths::{SATURATED, SsspStats};
use crate::pred::canonical_predecessors;

/// Sources per CPU block (rows handed to the sink at once).
pub const CPU_BLOCK: usize = 64;

/// A block of shortest-path trees: row `i` (`n` entries) belongs to `sources[i]`.
#[derive(Debug)]
pub struct TreeBlock<'a> {
    /// Index of the block's first source in the caller's source list.
    pub first: usize,
    /// The block's sources.
    pub sources: &'a [u32],
    /// Number of vertices (row length).
    pub n: usize,
    /// Distances, row-major (`UNREACHABLE` for unreached vertices).
    pub dist: &'a [u32],
    /// Canonical predecessor arcs, row-major, when asked for.
    pub pred: Option<&'a [u32]>,
}

impl TreeBlock<'_> {
    /// Distances of tree `i` of the block.
    pub fn dist_row(&self, i: usize) -> &[u32] {
        &self.dist[i * self.n..(i + 1) * self.n]
    }
}

fn check(graph: &Csr<u32>, sources: &[u32]) -> Result<(), SsspError> {
    let n = graph.num_vertices();
    if let Some(&s) = sources.iter().find(|&&s| s >= n) {
        return Err(SsspError::SourceOutOfRange { vertex: s, n });
    }
    if let Some((arc, &weight)) = graph.weights().iter().enumerate().find(|(_, w)| **w >= SATURATED) {
        return Err(SsspError::WeightTooLarge { arc: arc as u32, weight });
    }
    Ok(())
}

/// Shortest-path trees from every source, handed to `sink` block by block in source order (an n × n
/// result never has to exist at once), on one backend. Returns work counters summed over all trees.
/// [`many_to_all_with`] also runs the CPU and the GPU together.
///
/// ```
/// use urbanflow::sssp::many::many_to_all;
/// use urbanflow::graph::generators;
/// use urbanflow::gpu::Backend;
/// let g = generators::grid_2d(4, 4);
/// let mut total = 0u64;
/// many_to_all(&g, &[0, 5, 15], Backend::Cpu, false, |b| {
///     total += b.dist.iter().map(|&d| d as u64).sum::<u64>();
/// })
/// .unwrap();
/// assert_eq!(total, 3 * 48 - 16); // corner sums are 48, the inner vertex 5 sums to 32
/// ```
pub fn many_to_all(
    graph: &Csr<u32>,
    sources: &[u32],
    backend: Backend,
    predecessors: bool,
    sink: impl FnMut(TreeBlock<'_>),
) -> Result<SsspStats, SsspError> {
    let opts = ManyOptions { backend, predecessors, schedule: Schedule::Single, ..Default::default() };
    Ok(many_to_all_with(graph, sources, &opts, sink)?.stats)
}

/// Who computes which trees when a GPU is there (spec batched-apsp.md §3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Schedule {
    /// The resolved backend alone: blocks arrive in source order.
    Single,
    /// CPU threads and the GPU together, each with an equal share of the sources fixed in advance
    /// (seed 003's ES policy; ignores device speed).
    Equitable,
    /// CPU threads and the GPU together, taking chunks from one shared cursor: one GPU batch at a
    /// time, [`CPU_CHUNK`] sources per CPU grab (seed 003's WS policy).
    WorkQueue,
    /// Measured: the CPU alone, the GPU alone or both from a work queue, whichever the measured rates
    /// say is fastest ([`crate::auto::place`]); never the GPU unless it is measured faster than the
    /// CPU. The first trees are computed on the CPU to time it. Use [`Schedule::Single`] to force the
    /// GPU.
    #[default]
    Auto,
}

impl std::str::FromStr for Schedule {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "single" => Ok(Self::Single),
            "equitable" => Ok(Self::Equitable),
            "work-queue" | "workqueue" => Ok(Self::WorkQueue),
            "auto" => Ok(Self::Auto),
            o => Err(format!("unknown schedule `{o}`: expected single, equitable, work-queue or auto")),
        }
    }
}

/// How each tree is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Method {
    /// One search per source: Dijkstra on the CPU, the batched kernel on a GPU; no preprocessing.
    #[default]
    Trees,
    /// PHAST ([`crate::ch`]): a contraction hierarchy ([`ManyOptions::hierarchy`], or built first and
    /// timed as preprocessing), then sweeps — 16 sources per sweep on the CPU cores, 128 per pass on the
    /// first GPU, rows streamed. The same distances as [`Method::Trees`].
    Phast,
    /// PHAST when enough sources pay for the hierarchy ([`crate::auto::phast_pays`]), else trees.
    Auto,
}

impl std::str::FromStr for Method {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "trees" | "dijkstra" | "batch" => Ok(Self::Trees),
            "phast" => Ok(Self::Phast),
            "auto" => Ok(Self::Auto),
            o => Err(format!("unknown method `{o}`: expected dijkstra (or batch), phast or auto")),
        }
    }
}

/// Sources a CPU thread takes per grab under [`Schedule::WorkQueue`].
pub const CPU_CHUNK: usize = 16;

/// Options of [`many_to_all_with`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ManyOptions<'a> {
    /// Where the trees are computed.
    pub backend: Backend<'a>,
    /// Canonical predecessor arcs with every row.
    pub predecessors: bool,
    /// CPU and GPU together or not.
    pub schedule: Schedule,
    /// GPU launch configuration (default: [`crate::tuning`], measured on first use and cached).
    pub gpu: Option<BatchConfig>,
    /// CPU threads working beside the GPU (default: rayon's thread count − 1, at least 1).
    pub cpu_threads: Option<usize>,
    /// Several GPUs ([`gpu_runtime::devices::open`]): when not empty and the backend is not `Cpu`,
    /// these devices replace the backend's one GPU and share the trees by measured rate (work queue
    /// with a tail guard; `Single` = the GPUs without CPU threads). Rows never depend on the split.
    pub devices: &'a [GpuContext],
    /// One search per source, PHAST, or the choice by source count ([`Method`]; default trees).
    pub method: Method,
    /// A contraction hierarchy of the graph for [`Method::Phast`] (built when needed and not given).
    pub hierarchy: Option<&'a crate::ch::ContractionHierarchy>,
}

/// What [`many_to_all_with`] did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ManyStats {
    /// Work counters summed over all trees.
    pub stats: SsspStats,
    /// Trees computed on the GPU.
    pub gpu_trees: usize,
    /// Trees computed on the CPU.
    pub cpu_trees: usize,
    /// Trees computed on each GPU, in the order of the devices used.
    pub gpu_trees_per_device: Vec<usize>,
    /// The method that ran (never `Auto`).
    pub method: Method,
    /// Seconds spent preparing the hierarchy for PHAST in this call (0 when a hierarchy was given).
    pub preprocess_s: f64,
    /// Which hierarchy PHAST swept and where it came from (empty when PHAST did not run).
    pub hierarchy: String,
    /// The schedule that ran (never `Auto`; `Single` on the CPU when `Auto` chose the CPU).
    pub schedule: Schedule,
    /// The GPU launch settings used, when the GPU ran.
    pub gpu_config: Option<BatchConfig>,
    /// Seconds spent measuring GPU launch settings in this call.
    pub tune_s: f64,
    /// Under [`Schedule::Auto`]: the measured rates and the reason for the choice.
    pub decision: Option<AutoDecision>,
}

/// How [`Schedule::Auto`] decided.
#[derive(Debug, Clone, PartialEq)]
pub struct AutoDecision {
    /// Trees timed on the CPU first (part of the result).
    pub probe_trees: usize,
    /// Trees per second on the CPU (all threads), from those.
    pub cpu_trees_per_s: f64,
    /// Trees per second of the GPU's tuning sample, when measured (now or in an earlier run).
    pub gpu_trees_per_s: Option<f64>,
    /// One sentence.
    pub reason: String,
}

/// [`many_to_all`] with every option; under [`Schedule::Equitable`] or [`Schedule::WorkQueue`] (or
/// [`Schedule::Auto`] choosing both) CPU threads and the GPU work at once and blocks arrive in any order
/// (each names its position, [`TreeBlock::first`]); the rows themselves never depend on the schedule.
/// `sink` runs on the calling thread.
pub fn many_to_all_with(
    graph: &Csr<u32>,
    sources: &[u32],
    opts: &ManyOptions<'_>,
    mut sink: impl FnMut(TreeBlock<'_>),
) -> Result<ManyStats, SsspError> {
    check(graph, sources)?;
    let mut emit = |first: usize, block: &[u32], dist: &[u32]| {
        deliver(graph, opts.predecessors, first, block, dist, &mut sink)
    };
    let measured = measure::measure_with(graph, sources, opts, &mut emit)?;
    plan(graph, sources, opts, &measured).execute(graph, sources, &mut emit, None)
}

/// [`many_to_all_with`] with a sink every worker may call at once (`Fn + Sync`: atomics, a lock, or
/// disjoint writes): with several GPUs each GPU's thread hands its rows to the sink straight from its
/// readback buffer, where [`many_to_all_with`] copies them to the calling thread. Blocks arrive in any
/// order and on any thread.
///
/// ```
/// use urbanflow::sssp::many::{ManyOptions, many_to_all_shared};
/// use urbanflow::gpu::Backend;
/// use std::sync::atomic::{AtomicU64, Ordering};
/// let g = urbanflow::graph::generators::grid_2d(4, 4);
/// let total = AtomicU64::new(0);
/// let opts = ManyOptions { backend: Backend::Cpu, ..Default::default() };
/// many_to_all_shared(&g, &[0, 5, 15], &opts, |b| {
///     total.fetch_add(b.dist.iter().map(|&d| d as u64).sum::<u64>(), Ordering::Relaxed);
/// })
/// .unwrap();
/// assert_eq!(total.into_inner(), 3 * 48 - 16);
/// ```
pub fn many_to_all_shared(
    graph: &Csr<u32>,
    sources: &[u32],
    opts: &ManyOptions<'_>,
    sink: impl Fn(TreeBlock<'_>) + Sync,
) -> Result<ManyStats, SsspError> {
    check(graph, sources)?;
    let shared = |first: usize, block: &[u32], dist: &[u32]| {
        deliver(graph, opts.predecessors, first, block, dist, &sink)
    };
    let mut emit = |first: usize, block: &[u32], dist: &[u32]| shared(first, block, dist);
    let measured = measure::measure_with(graph, sources, opts, &mut emit)?;
    plan(graph, sources, opts, &measured).execute(graph, sources, &mut emit, Some(&shared))
}

/// [`many_to_all_with`] writing every row into `rows` (`sources.len() × n`, row `i` from `sources[i]`),
/// for callers that keep all the rows (the Python binding's arrays): where the plan is one tree per
/// source on the CPU, the threads grow their trees in place (no block buffer, no copy); otherwise the
/// blocks are copied in as they arrive. Predecessors are not written (use [`many_to_all_with`]).
///
/// ```
/// use urbanflow::sssp::many::{ManyOptions, many_to_all_into};
/// use urbanflow::gpu::Backend;
/// let g = urbanflow::graph::generators::grid_2d(4, 4);
/// let mut rows = vec![0; 2 * 16];
/// many_to_all_into(&g, &[0, 15], &ManyOptions { backend: Backend::Cpu, ..Default::default() }, &mut rows).unwrap();
/// assert_eq!((rows[0], rows[15], rows[16 + 15]), (0, 6, 0));
/// ```
pub fn many_to_all_into(
    graph: &Csr<u32>,
    sources: &[u32],
    opts: &ManyOptions<'_>,
    rows: &mut [u32],
) -> Result<ManyStats, SsspError> {
    check(graph, sources)?;
    let n = graph.num_vertices() as usize;
    if rows.len() != sources.len() * n {
        return Err(SsspError::InvalidParameter(format!(
            "many_to_all_into: {} row entries for {} sources × {n} vertices",
            rows.len(),
            sources.len()
        )));
    }
    let opts = ManyOptions { predecessors: false, ..*opts };
    // Blocks other than CPU trees (the probe's, PHAST's, the GPUs') are copied in as they arrive.
    let mut emit = |first: usize, _: &[u32], dist: &[u32]| {
        rows[first * n..first * n + dist.len()].copy_from_slice(dist);
    };
    let measured = measure::measure_with(graph, sources, &opts, &mut emit)?;
    let plan = plan(graph, sources, &opts, &measured);
    if plan.is_cpu_trees() {
        let mut out =
            ManyStats { schedule: Schedule::Single, decision: plan.decision.clone(), ..measured.stats };
        trees_into(graph, &sources[plan.done..], &mut rows[plan.done * n..], &mut out)?;
        return Ok(out);
    }
    plan.execute(graph, sources, &mut emit, None)
}

/// Hands a block's rows to `sink` as a [`TreeBlock`], with canonical predecessor arcs when asked for.
fn deliver(
    graph: &Csr<u32>,
    predecessors: bool,
    first: usize,
    block: &[u32],
    dist: &[u32],
    sink: impl FnOnce(TreeBlock<'_>),
) {
    let n = graph.num_vertices() as usize;
    let pred: Option<Vec<u32>> = predecessors.then(|| {
        block
            .par_iter()
            .enumerate()
            .flat_map_iter(|(i, &s)| canonical_predecessors(graph, s, &dist[i * n..(i + 1) * n]))
            .collect()
    });
    sink(TreeBlock { first, sources: block, n, dist, pred: pred.as_deref() });
}

/// Receives `(first, sources, rows)` of a block on the calling thread.
type RowSink<'s> = dyn FnMut(usize, &[u32], &[u32]) + 's;

/// Receives `(first, sources, rows)` of a block on any thread.
type SharedSink<'s> = dyn Fn(usize, &[u32], &[u32]) + Sync + 's;
