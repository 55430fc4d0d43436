//! Many sources at once: shortest-path trees streamed to a callback in blocks, and distance matrices.
//!
//! CPU: rayon over the sources of a block, each thread reusing its own distance row and radix heap.
//! GPU: one source per workgroup ([`GpuBatchSssp`], `shaders/sssp_batch.wgsl`), as many sources at once
//! as the device's memory and binding limits allow. [`Schedule::Auto`] (the default) chooses the CPU,
//! the GPU or both from measured rates ([`crate::auto`]).

use gpu_runtime::{Backend, GpuContext, Resolved};
use graph_core::Csr;
use rayon::prelude::*;

use crate::cpu::dijkstra::dijkstra_into;
use crate::cpu::radix_heap::RadixHeap;
use crate::error::SsspError;
use crate::gpu::{BatchConfig, GpuBatchSssp};
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
/// use algos_sssp::many::many_to_all;
/// use graph_core::generators;
/// use gpu_runtime::Backend;
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
    /// PHAST when enough sources pay for the contraction ([`crate::auto::phast_pays`]), else trees.
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
    /// Seconds spent contracting the graph for PHAST in this call (0 when a hierarchy was given).
    pub preprocess_s: f64,
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
    many_impl(graph, sources, opts, &mut emit, None)
}

/// [`many_to_all_with`] with a sink every worker may call at once (`Fn + Sync`: atomics, a lock, or
/// disjoint writes): with several GPUs each GPU's thread hands its rows to the sink straight from its
/// readback buffer, where [`many_to_all_with`] copies them to the calling thread. Blocks arrive in any
/// order and on any thread.
///
/// ```
/// use algos_sssp::many::{ManyOptions, many_to_all_shared};
/// use gpu_runtime::Backend;
/// use std::sync::atomic::{AtomicU64, Ordering};
/// let g = graph_core::generators::grid_2d(4, 4);
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
    many_impl(graph, sources, opts, &mut emit, Some(&shared))
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

/// The schedules behind both entry points: `emit` runs on the calling thread; `shared`, when given,
/// may run on any worker's thread.
fn many_impl(
    graph: &Csr<u32>,
    sources: &[u32],
    opts: &ManyOptions<'_>,
    emit: &mut RowSink<'_>,
    shared: Option<&SharedSink<'_>>,
) -> Result<ManyStats, SsspError> {
    let mut out = ManyStats::default();
    if let Some(phast) = phast_plan(graph, sources, opts) {
        return run_phast(graph, sources, opts, phast, &mut out, emit).map(|()| out);
    }
    let (placement, done) = match (opts.backend, opts.schedule) {
        (Backend::Cpu, _) => (Plan::Cpu, 0),
        (backend, Schedule::Auto) => auto_plan(graph, sources, backend, opts, &mut out, emit)?,
        (backend, schedule) => match devices_of(backend, opts) {
            gpus if gpus.is_empty() => (Plan::Cpu, 0),
            gpus => (Plan::Gpu(gpus.into_iter().map(|g| (g, opts.gpu)).collect(), schedule), 0),
        },
    };
    let rest = &sources[done..];
    let mut emit_rest = |first: usize, block: &[u32], dist: &[u32]| emit(done + first, block, dist);
    match placement {
        Plan::Cpu => {
            out.schedule = Schedule::Single;
            cpu_blocks(graph, rest, &mut out, &mut emit_rest)?;
        }
        Plan::Gpu(gpus, schedule) => {
            let mut tuned = Vec::with_capacity(gpus.len());
            for (ctx, config) in gpus {
                let config = match config {
                    Some(c) => c,
                    None => {
                        let t = crate::tuning::tune_for(ctx, graph, rest.len())?;
                        out.tune_s += t.tune_s;
                        t.config
                    }
                };
                tuned.push((ctx, config));
            }
            out.schedule = schedule;
            out.gpu_config = Some(tuned[0].1);
            out.gpu_trees_per_device = vec![0; tuned.len()];
            if rest.is_empty() {
                return Ok(out);
            }
            if schedule == Schedule::Single && tuned.len() == 1 {
                let mut solver = gpu_solver(tuned[0].0, graph, tuned[0].1, rest.len())?;
                let stats =
                    solver.for_each_block(rest, |first, block, dist| emit_rest(first, block, dist))?;
                out.stats.phases += stats.phases;
                out.stats.dispatches += stats.dispatches;
                out.stats.readbacks += stats.readbacks;
                out.gpu_trees += rest.len();
                out.gpu_trees_per_device[0] += rest.len();
            } else {
                let threads = match schedule {
                    Schedule::Single => 0,
                    _ => opts.cpu_threads.unwrap_or(rayon::current_num_threads().saturating_sub(1)).max(1),
                };
                let shared = shared.map(|f| (f, done));
                hetero(graph, rest, &tuned, schedule, threads, &mut out, &mut emit_rest, shared)?;
            }
        }
    }
    Ok(out)
}

/// Where PHAST runs when the method says PHAST: `Some(None)` on the CPU, `Some(Some(ctx))` on that
/// GPU, `None` when the trees are computed one per source.
fn phast_plan<'a>(
    graph: &Csr<u32>,
    sources: &[u32],
    opts: &ManyOptions<'a>,
) -> Option<Option<&'a GpuContext>> {
    if opts.method == Method::Trees {
        return None;
    }
    // Looked up only now: resolving `Auto` may create the process's device.
    let gpu = devices_of(opts.backend, opts).into_iter().next().filter(|ctx| {
        // `Auto` never takes a software adapter (slower than the CPU); an explicit one is taken.
        !ctx.is_software() || !matches!(opts.backend, Backend::Auto)
    });
    match opts.method {
        Method::Trees => None,
        Method::Phast => Some(gpu),
        Method::Auto => {
            let threads = rayon::current_num_threads();
            let pays = crate::auto::phast_pays(
                graph.num_vertices(),
                graph.num_arcs(),
                sources.len(),
                threads,
                gpu.is_some(),
                opts.hierarchy.is_some(),
            );
            pays.then_some(gpu)
        }
    }
}

/// [`Method::Phast`]: the hierarchy (given or built, timed), then sweeps on the CPU or passes on the GPU,
/// rows handed to `emit` in source order.
fn run_phast(
    graph: &Csr<u32>,
    sources: &[u32],
    opts: &ManyOptions<'_>,
    gpu: Option<&GpuContext>,
    out: &mut ManyStats,
    emit: &mut RowSink<'_>,
) -> Result<(), SsspError> {
    use crate::ch::ContractionHierarchy;
    out.method = Method::Phast;
    out.schedule = Schedule::Single;
    let built;
    let ch = match opts.hierarchy {
        Some(ch) => {
            if ch.num_vertices() != graph.num_vertices() {
                return Err(SsspError::InvalidParameter(format!(
                    "the hierarchy has {} vertices, the graph {}",
                    ch.num_vertices(),
                    graph.num_vertices()
                )));
            }
            ch
        }
        None => {
            let t = std::time::Instant::now();
            built = ContractionHierarchy::build(graph)?;
            out.preprocess_s = t.elapsed().as_secs_f64();
            &built
        }
    };
    let n = graph.num_vertices() as usize;
    match gpu {
        Some(ctx) => {
            let mut phast = crate::ch::gpu::GpuPhast::new(ctx, ch, 128)?;
            phast.for_each_block(sources, |first, rows| {
                let count = rows.len() / n.max(1);
                emit(first, &sources[first..first + count], rows)
            })?;
            out.gpu_trees = sources.len();
            out.gpu_trees_per_device = vec![sources.len()];
        }
        None => {
            // Blocks of a few sweeps per thread: each sweep serves 16 sources.
            let block = (crate::ch::LANES * rayon::current_num_threads() * 4).max(crate::ch::LANES);
            let mut rows = Vec::new();
            for (b, chunk) in sources.chunks(block).enumerate() {
                let trees = ch.phast(chunk)?;
                rows.clear();
                for t in &trees {
                    rows.extend_from_slice(t);
                }
                emit(b * block, chunk, &rows);
            }
            out.cpu_trees = sources.len();
        }
    }
    Ok(())
}

/// The GPUs a backend stands for: [`ManyOptions::devices`] when given, else the backend's one GPU
/// (none for the CPU).
fn devices_of<'a>(backend: Backend<'a>, opts: &ManyOptions<'a>) -> Vec<&'a GpuContext> {
    if matches!(backend, Backend::Cpu) {
        return Vec::new();
    }
    if !opts.devices.is_empty() {
        return opts.devices.iter().collect();
    }
    match backend.resolve() {
        Resolved::Cpu => Vec::new(),
        Resolved::Gpu(ctx) => vec![ctx],
    }
}

/// Where the trees go after the automatic choice.
enum Plan<'a> {
    Cpu,
    /// These GPUs (launch settings when already known), under this schedule.
    Gpu(Vec<(&'a GpuContext, Option<BatchConfig>)>, Schedule),
}

/// The CPU path: rayon over blocks of [`CPU_BLOCK`] sources, each thread with its own heap.
fn cpu_blocks(
    graph: &Csr<u32>,
    sources: &[u32],
    out: &mut ManyStats,
    emit: &mut RowSink<'_>,
) -> Result<(), SsspError> {
    let n = graph.num_vertices() as usize;
    let mut dist = vec![0u32; CPU_BLOCK.min(sources.len()) * n];
    for (b, block) in sources.chunks(CPU_BLOCK).enumerate() {
        let rows = &mut dist[..block.len() * n];
        let stats: Vec<SsspStats> = rows
            .par_chunks_mut(n.max(1))
            .zip(block.par_iter())
            .map_init(RadixHeap::new, |heap, (row, &s)| dijkstra_into(graph, s, row, heap))
            .collect::<Result<_, _>>()?;
        for s in stats {
            out.stats.phases += s.phases;
        }
        emit(b * CPU_BLOCK, block, &dist[..block.len() * n]);
    }
    out.cpu_trees += sources.len();
    Ok(())
}

/// [`Schedule::Auto`]: time the first trees on the CPU (delivered as part of the result), then place
/// the rest by measured rates ([`crate::auto`]). Returns the plan and how many sources are done.
fn auto_plan<'a>(
    graph: &Csr<u32>,
    sources: &[u32],
    backend: Backend<'a>,
    opts: &ManyOptions<'a>,
    out: &mut ManyStats,
    emit: &mut RowSink<'_>,
) -> Result<(Plan<'a>, usize), SsspError> {
    use crate::auto::{MIN_CPU_SECONDS_FOR_GPU, Placement, place};
    let threads = rayon::current_num_threads();
    let probe = sources.len().min((threads * 4).clamp(8, CPU_BLOCK));
    let t = std::time::Instant::now();
    cpu_blocks(graph, &sources[..probe], out, emit)?;
    let cpu_rate = probe as f64 / t.elapsed().as_secs_f64().max(1e-9);
    let rest = sources.len() - probe;
    let cpu_seconds = rest as f64 / cpu_rate;
    let mut decision = AutoDecision {
        probe_trees: probe,
        cpu_trees_per_s: cpu_rate,
        gpu_trees_per_s: None,
        reason: String::new(),
    };
    let cpu = |decision: AutoDecision, out: &mut ManyStats| {
        out.decision = Some(decision);
        Ok((Plan::Cpu, probe))
    };
    if rest == 0 {
        decision.reason = "every source was computed while timing the CPU".into();
        return cpu(decision, out);
    }
    let software =
        |ctx: &GpuContext| format!("`{}` is a software adapter: slower than the CPU", ctx.info.name);
    if let Some(ctx) = opts.devices.iter().find(|c| c.is_software()) {
        decision.reason = software(ctx);
        return cpu(decision, out);
    }
    if let Backend::Gpu(ctx) = backend
        && ctx.is_software()
        && opts.devices.is_empty()
    {
        decision.reason = software(ctx);
        return cpu(decision, out);
    }
    if cpu_seconds < MIN_CPU_SECONDS_FOR_GPU {
        decision.reason = format!(
            "the CPU needs about {cpu_seconds:.2} s for the rest: too little for a GPU's fixed costs to pay off"
        );
        return cpu(decision, out);
    }
    if matches!(backend, Backend::Auto)
        && opts.devices.is_empty()
        && gpu_runtime::context::auto_adapter().chosen.is_none()
    {
        decision.reason = gpu_runtime::context::auto_adapter().reason.clone();
        return cpu(decision, out);
    }
    let gpus = devices_of(backend, opts);
    if gpus.is_empty() {
        decision.reason = "no GPU could be opened".into();
        return cpu(decision, out);
    }
    if let Some(ctx) = gpus.iter().find(|c| c.is_software()) {
        decision.reason = software(ctx);
        return cpu(decision, out);
    }
    let mut placed = Vec::with_capacity(gpus.len());
    // The GPUs' combined rate; unknown when any of them could not be measured.
    let mut gpu_rate = Some(0.0);
    let mut first_rate = None;
    for ctx in gpus {
        // A short job stays on the first GPU: each further device's set-up would cost more than it
        // saves (crate::auto::MIN_GPU_SECONDS_FOR_MORE_GPUS).
        if let Some(r) = first_rate
            && (rest as f64) / r < crate::auto::MIN_GPU_SECONDS_FOR_MORE_GPUS
        {
            break;
        }
        match opts.gpu {
            // Caller-given settings: nothing is measured, so there is no GPU rate to weigh the CPU
            // threads against; the caller chose these GPUs, which run alone.
            Some(c) => {
                placed.push((ctx, Some(c)));
                gpu_rate = None;
            }
            None => {
                let tuned = crate::tuning::tune_for(ctx, graph, rest)?;
                out.tune_s += tuned.tune_s;
                placed.push((ctx, Some(tuned.config)));
                if first_rate.is_none() {
                    first_rate = tuned.trees_per_s;
                }
                gpu_rate = match (gpu_rate, tuned.trees_per_s) {
                    (Some(a), Some(b)) => Some(a + b),
                    _ => None,
                };
            }
        }
    }
    decision.gpu_trees_per_s = gpu_rate;
    let placement = if opts.gpu.is_some() { Placement::Gpu } else { place(cpu_rate, gpu_rate) };
    let which = if placed.len() == 1 { "GPU".to_string() } else { format!("{} GPUs", placed.len()) };
    decision.reason = match (placement, gpu_rate) {
        (_, None) if opts.gpu.is_some() => format!("launch settings were given: the {which} run alone"),
        (_, None) => "the GPU could not be measured: the CPU runs".into(),
        (Placement::Cpu, Some(g)) => format!("{which} {g:.0} trees/s is not faster than CPU {cpu_rate:.0}"),
        (Placement::Gpu, Some(g)) => format!(
            "{which} {g:.0} trees/s; the CPU's {cpu_rate:.0} adds less than {:.0}% of that",
            crate::auto::WORK_QUEUE_MIN_CPU_SHARE * 100.0
        ),
        (Placement::Both, Some(g)) => {
            format!("{which} {g:.0} trees/s and CPU {cpu_rate:.0} together (work queue)")
        }
    };
    out.decision = Some(decision);
    Ok(match placement {
        Placement::Cpu => (Plan::Cpu, probe),
        Placement::Gpu => (Plan::Gpu(placed, Schedule::Single), probe),
        Placement::Both => (Plan::Gpu(placed, Schedule::WorkQueue), probe),
    })
}

/// All-pairs shortest paths streamed to `sink`: [`many_to_all_with`] from every vertex.
pub fn all_pairs(
    graph: &Csr<u32>,
    opts: &ManyOptions<'_>,
    sink: impl FnMut(TreeBlock<'_>),
) -> Result<ManyStats, SsspError> {
    let sources: Vec<u32> = (0..graph.num_vertices()).collect();
    many_to_all_with(graph, &sources, opts, sink)
}

fn gpu_solver<'a>(
    ctx: &'a gpu_runtime::GpuContext,
    graph: &'a Csr<u32>,
    config: BatchConfig,
    sources: usize,
) -> Result<GpuBatchSssp<'a>, SsspError> {
    let mut slots = config.slots.min(sources.max(1));
    loop {
        match GpuBatchSssp::new(ctx, graph, BatchConfig { slots, ..config }) {
            // Fewer rows at once rather than no answer when the device is short of memory.
            Err(SsspError::Gpu(gpu_runtime::GpuError::OutOfMemory(_))) if slots > 1 => slots /= 2,
            other => return other,
        }
    }
}

/// Receives `(first, sources, rows)` of a block on the calling thread.
type RowSink<'s> = dyn FnMut(usize, &[u32], &[u32]) + 's;

/// Receives `(first, sources, rows)` of a block on any thread.
type SharedSink<'s> = dyn Fn(usize, &[u32], &[u32]) + Sync + 's;

/// A block computed by a worker thread (a CPU thread or a GPU other than the first), sent to the
/// calling thread.
struct OwnedBlock {
    first: usize,
    sources: Vec<u32>,
    dist: Vec<u32>,
    stats: SsspStats,
    /// The GPU that computed it (index into the device list), or `None` for a CPU thread.
    device: Option<usize>,
    /// Already handed to a shared sink on the worker's thread (only counted here).
    delivered: bool,
}

/// Trees per second of each worker, as f64 bits (0 until measured), for the tail guard.
struct Rates(Vec<std::sync::atomic::AtomicU64>);

impl Rates {
    fn new(workers: usize) -> Self {
        Self((0..workers).map(|_| std::sync::atomic::AtomicU64::new(0)).collect())
    }
    fn set(&self, w: usize, trees_per_s: f64) {
        self.0[w].store(trees_per_s.to_bits(), std::sync::atomic::Ordering::Relaxed);
    }
    fn get(&self, w: usize) -> f64 {
        f64::from_bits(self.0[w].load(std::sync::atomic::Ordering::Relaxed))
    }
    /// Whether worker `w` should leave the last `left` sources to the others rather than take `want`
    /// of them: true when the others, at their measured rates, finish all of them sooner than `w`
    /// finishes its chunk (so `w` would be the one the run waits for).
    fn leave_tail(&self, w: usize, left: usize, want: usize) -> bool {
        let mine = self.get(w);
        let others: f64 = (0..self.0.len()).filter(|&o| o != w).map(|o| self.get(o)).sum();
        mine > 0.0 && others > 0.0 && (left as f64) / others < want.min(left) as f64 / mine
    }
}

/// CPU threads and one or more GPUs at once. The calling thread drives the first GPU and hands its
/// rows to the sink straight from the readback buffer; every other GPU and every CPU thread works on
/// its own thread and sends its blocks over a bounded channel, drained by the calling thread between
/// its GPU batches, so the sink needs neither `Send` nor a lock.
///
/// Under the work queue every worker but the first GPU takes a chunk only while the others, at the
/// rates they have shown so far, would need longer for the sources left than this chunk takes on this
/// worker ([`Rates::leave_tail`]): otherwise it would finish its last chunk after the rest have run
/// dry. The first GPU always takes what is left.
#[allow(clippy::too_many_arguments)]
fn hetero(
    graph: &Csr<u32>,
    sources: &[u32],
    gpus: &[(&GpuContext, BatchConfig)],
    schedule: Schedule,
    cpu_threads: usize,
    out: &mut ManyStats,
    emit: &mut RowSink<'_>,
    shared: Option<(&SharedSink<'_>, usize)>,
) -> Result<(), SsspError> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::time::Instant;
    let n = graph.num_vertices() as usize;
    let total = sources.len();
    let cursor = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // Workers 0..gpus.len() are the GPUs, then the CPU threads.
    let workers = gpus.len() + cpu_threads;
    let rates = Rates::new(workers);
    // Equitable shares, by worker.
    let share = |w: usize| {
        let (q, r) = (total / workers, total % workers);
        let start = w * q + w.min(r);
        start..start + q + usize::from(w < r)
    };
    let grab = |w: usize, own: &mut std::ops::Range<usize>, want: usize| -> Option<std::ops::Range<usize>> {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let r = match schedule {
            Schedule::Equitable => {
                let end = (own.start + want).min(own.end);
                let r = own.start..end;
                own.start = end;
                r
            }
            _ => {
                let left = total.saturating_sub(cursor.load(Ordering::Relaxed));
                if w != 0 && rates.leave_tail(w, left, want) {
                    return None;
                }
                let start = cursor.fetch_add(want, Ordering::Relaxed).min(total);
                start..(start + want).min(total)
            }
        };
        (!r.is_empty()).then_some(r)
    };
    // One message in flight per worker: a GPU's block is up to a gigabyte, and every block waiting here
    // is one more row buffer to allocate.
    let (tx, rx) = std::sync::mpsc::sync_channel::<Result<OwnedBlock, SsspError>>(workers);
    // Row buffers of the GPUs after the first, handed back once their rows reached the sink: a batch is
    // up to a gigabyte on a road network, and a fresh allocation per batch spends its time in page faults
    // (serialised in the kernel), which held the second GPU to half speed.
    let rows_pool: std::sync::Mutex<Vec<Vec<u32>>> = std::sync::Mutex::new(Vec::new());
    let mut error: Option<SsspError> = None;
    let take = |msg: Result<OwnedBlock, SsspError>,
                out: &mut ManyStats,
                error: &mut Option<SsspError>,
                emit: &mut RowSink<'_>| match msg {
        Ok(b) => {
            out.stats.phases += b.stats.phases;
            out.stats.dispatches += b.stats.dispatches;
            out.stats.readbacks += b.stats.readbacks;
            match b.device {
                Some(d) => {
                    out.gpu_trees += b.sources.len();
                    out.gpu_trees_per_device[d] += b.sources.len();
                }
                None => out.cpu_trees += b.sources.len(),
            }
            if error.is_none() && !b.sources.is_empty() && !b.delivered {
                emit(b.first, &b.sources, &b.dist[..b.sources.len() * n]);
            }
            if b.device.is_some() && !b.dist.is_empty() {
                rows_pool.lock().unwrap_or_else(|e| e.into_inner()).push(b.dist);
            }
        }
        Err(e) => {
            stop.store(true, Ordering::Relaxed);
            error.get_or_insert(e);
        }
    };
    std::thread::scope(|scope| {
        let (grab, stop, rates, rows_pool) = (&grab, &stop, &rates, &rows_pool);
        for w in gpus.len()..workers {
            let tx = tx.clone();
            scope.spawn(move || {
                let mut own = share(w);
                let mut heap = RadixHeap::new();
                while let Some(r) = grab(w, &mut own, CPU_CHUNK) {
                    let t = Instant::now();
                    let block = &sources[r.clone()];
                    let mut dist = vec![0u32; block.len() * n];
                    let mut stats = SsspStats::default();
                    for (row, &s) in dist.chunks_mut(n.max(1)).zip(block) {
                        match dijkstra_into(graph, s, row, &mut heap) {
                            Ok(st) => stats.phases += st.phases,
                            Err(e) => {
                                stop.store(true, Ordering::Relaxed);
                                let _ = tx.send(Err(e));
                                return;
                            }
                        }
                    }
                    rates.set(w, block.len() as f64 / t.elapsed().as_secs_f64().max(1e-9));
                    let b = OwnedBlock {
                        first: r.start,
                        sources: block.to_vec(),
                        dist,
                        stats,
                        device: None,
                        delivered: false,
                    };
                    if tx.send(Ok(b)).is_err() {
                        return;
                    }
                }
            });
        }
        // GPUs after the first, each driven from its own thread; rows are copied out of the readback
        // buffer to travel to the calling thread.
        for (w, &(ctx, config)) in gpus.iter().enumerate().skip(1) {
            let tx = tx.clone();
            scope.spawn(move || {
                let run = || -> Result<SsspStats, SsspError> {
                    let mut solver = gpu_solver(ctx, graph, config, total)?;
                    let slots = solver.slots();
                    let mut own = share(w);
                    let started = Instant::now();
                    let mut done = 0usize;
                    solver.for_each_fed_block(
                        || grab(w, &mut own, slots).map(|r| (r.start, sources[r].to_vec())),
                        |first, block, rows| {
                            done += block.len();
                            rates.set(w, done as f64 / started.elapsed().as_secs_f64().max(1e-9));
                            if let Some((sink, offset)) = shared {
                                // Straight from this GPU's readback buffer: no copy, no hand-over.
                                sink(offset + first, block, rows);
                                let b = OwnedBlock {
                                    first,
                                    sources: block.to_vec(),
                                    dist: Vec::new(),
                                    stats: SsspStats::default(),
                                    device: Some(w),
                                    delivered: true,
                                };
                                let _ = tx.send(Ok(b));
                                return;
                            }
                            // Copied on all cores: the rows of a batch are hundreds of MB on a road
                            // network, and one thread copying them would pace this GPU.
                            let reused = rows_pool.lock().unwrap_or_else(|e| e.into_inner()).pop();
                            let mut dist = reused.unwrap_or_default();
                            if dist.len() < rows.len() {
                                dist.resize(rows.len(), 0);
                            }
                            dist[..rows.len()]
                                .par_chunks_mut(1 << 16)
                                .zip(rows.par_chunks(1 << 16))
                                .for_each(|(d, s)| d.copy_from_slice(s));
                            let b = OwnedBlock {
                                first,
                                sources: block.to_vec(),
                                dist,
                                stats: SsspStats::default(),
                                device: Some(w),
                                delivered: false,
                            };
                            let _ = tx.send(Ok(b));
                        },
                    )
                };
                match run() {
                    Ok(stats) => {
                        let b = OwnedBlock {
                            first: 0,
                            sources: Vec::new(),
                            dist: Vec::new(),
                            stats,
                            device: Some(w),
                            delivered: true,
                        };
                        let _ = tx.send(Ok(b));
                    }
                    Err(e) => {
                        stop.store(true, Ordering::Relaxed);
                        let _ = tx.send(Err(e));
                    }
                }
            });
        }
        drop(tx);
        // The first GPU, driven from this thread.
        let (ctx, config) = gpus[0];
        let gpu = (|| {
            let mut solver = gpu_solver(ctx, graph, config, total)?;
            let slots = solver.slots();
            let mut own = share(0);
            let started = Instant::now();
            solver.for_each_fed_block(
                || grab(0, &mut own, slots).map(|r| (r.start, sources[r].to_vec())),
                |first, block, rows| {
                    out.gpu_trees += block.len();
                    out.gpu_trees_per_device[0] += block.len();
                    let done = out.gpu_trees_per_device[0];
                    rates.set(0, done as f64 / started.elapsed().as_secs_f64().max(1e-9));
                    emit(first, block, rows);
                    while let Ok(msg) = rx.try_recv() {
                        take(msg, out, &mut error, emit);
                    }
                },
            )
        })();
        match gpu {
            Ok(stats) => {
                out.stats.dispatches += stats.dispatches;
                out.stats.readbacks += stats.readbacks;
                out.stats.phases += stats.phases;
            }
            Err(e) => {
                stop.store(true, Ordering::Relaxed);
                error.get_or_insert(e);
            }
        }
        // What the other workers still hold, and, under the work queue, what nobody took.
        for msg in rx.iter() {
            take(msg, out, &mut error, emit);
        }
    });
    if let Some(e) = error {
        return Err(e);
    }
    Ok(())
}

/// Dense `sources × targets` distances (`UNREACHABLE` where no path), row-major.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DistanceMatrix {
    /// Row vertices.
    pub sources: Vec<u32>,
    /// Column vertices.
    pub targets: Vec<u32>,
    /// `data[i * targets.len() + j]` = distance from `sources[i]` to `targets[j]`.
    pub data: Vec<u32>,
}

impl DistanceMatrix {
    /// Distance from `sources[i]` to `targets[j]`.
    pub fn get(&self, i: usize, j: usize) -> u32 {
        self.data[i * self.targets.len() + j]
    }
}

/// The distances between every source and every target.
pub fn distance_matrix(
    graph: &Csr<u32>,
    sources: &[u32],
    targets: &[u32],
    backend: Backend,
) -> Result<DistanceMatrix, SsspError> {
    let opts = ManyOptions { backend, schedule: Schedule::Single, ..Default::default() };
    distance_matrix_with(graph, sources, targets, &opts)
}

/// [`distance_matrix`] with every option of [`many_to_all_with`]: several GPUs
/// ([`ManyOptions::devices`]), CPU threads beside them, the automatic schedule. Entries never depend on
/// where their row was computed.
pub fn distance_matrix_with(
    graph: &Csr<u32>,
    sources: &[u32],
    targets: &[u32],
    opts: &ManyOptions<'_>,
) -> Result<DistanceMatrix, SsspError> {
    let n = graph.num_vertices();
    if let Some(&t) = targets.iter().find(|&&t| t >= n) {
        return Err(SsspError::TargetOutOfRange { target: t, n });
    }
    let cols = targets.len();
    let data = std::sync::Mutex::new(vec![0u32; sources.len() * cols]);
    let opts = ManyOptions { predecessors: false, ..*opts };
    // Every GPU's thread picks its columns straight from its readback buffer; the lock is held only to
    // store a block's picked columns.
    many_to_all_shared(graph, sources, &opts, |block| {
        let mut picked = vec![0u32; block.sources.len() * cols];
        picked.par_chunks_mut(cols.max(1)).enumerate().for_each(|(i, out)| {
            let row = block.dist_row(i);
            for (o, &t) in out.iter_mut().zip(targets) {
                *o = row[t as usize];
            }
        });
        let mut data = data.lock().unwrap_or_else(|e| e.into_inner());
        data[block.first * cols..(block.first + block.sources.len()) * cols].copy_from_slice(&picked);
    })?;
    let data = data.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok(DistanceMatrix { sources: sources.to_vec(), targets: targets.to_vec(), data })
}
