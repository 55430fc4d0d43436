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
    let n = graph.num_vertices() as usize;
    let predecessors = opts.predecessors;
    let mut emit = |first: usize, block: &[u32], dist: &[u32]| {
        let pred: Option<Vec<u32>> = predecessors.then(|| {
            block
                .par_iter()
                .enumerate()
                .flat_map_iter(|(i, &s)| canonical_predecessors(graph, s, &dist[i * n..(i + 1) * n]))
                .collect()
        });
        sink(TreeBlock { first, sources: block, n, dist, pred: pred.as_deref() });
    };
    let mut out = ManyStats::default();
    let (placement, done) = match (opts.backend, opts.schedule) {
        (Backend::Cpu, _) => (Plan::Cpu, 0),
        (backend, Schedule::Auto) => auto_plan(graph, sources, backend, opts, &mut out, &mut emit)?,
        (backend, schedule) => match backend.resolve() {
            Resolved::Cpu => (Plan::Cpu, 0),
            Resolved::Gpu(ctx) => (Plan::Gpu(ctx, schedule, opts.gpu), 0),
        },
    };
    let rest = &sources[done..];
    let mut emit_rest = |first: usize, block: &[u32], dist: &[u32]| emit(done + first, block, dist);
    match placement {
        Plan::Cpu => {
            out.schedule = Schedule::Single;
            cpu_blocks(graph, rest, &mut out, &mut emit_rest)?;
        }
        Plan::Gpu(ctx, schedule, config) => {
            let config = match config {
                Some(c) => c,
                None => {
                    let t = crate::tuning::tune_for(ctx, graph, rest.len())?;
                    out.tune_s += t.tune_s;
                    t.config
                }
            };
            out.schedule = schedule;
            out.gpu_config = Some(config);
            if rest.is_empty() {
                return Ok(out);
            }
            if schedule == Schedule::Single {
                let mut solver = gpu_solver(ctx, graph, config, rest.len())?;
                let stats =
                    solver.for_each_block(rest, |first, block, dist| emit_rest(first, block, dist))?;
                out.stats.phases += stats.phases;
                out.stats.dispatches += stats.dispatches;
                out.stats.readbacks += stats.readbacks;
                out.gpu_trees += rest.len();
            } else {
                let threads =
                    opts.cpu_threads.unwrap_or(rayon::current_num_threads().saturating_sub(1)).max(1);
                hetero(graph, rest, ctx, config, schedule, threads, &mut out, &mut emit_rest)?;
            }
        }
    }
    Ok(out)
}

/// Where the trees go after the automatic choice.
enum Plan<'a> {
    Cpu,
    Gpu(&'a GpuContext, Schedule, Option<BatchConfig>),
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
    opts: &ManyOptions<'_>,
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
    if let Backend::Gpu(ctx) = backend
        && ctx.is_software()
    {
        decision.reason = format!("`{}` is a software adapter: slower than the CPU", ctx.info.name);
        return cpu(decision, out);
    }
    if cpu_seconds < MIN_CPU_SECONDS_FOR_GPU {
        decision.reason = format!(
            "the CPU needs about {cpu_seconds:.2} s for the rest: too little for a GPU's fixed costs to pay off"
        );
        return cpu(decision, out);
    }
    let ctx = match backend {
        Backend::Auto if gpu_runtime::context::auto_adapter().chosen.is_none() => {
            decision.reason = gpu_runtime::context::auto_adapter().reason.clone();
            return cpu(decision, out);
        }
        b => match b.resolve() {
            Resolved::Gpu(ctx) => ctx,
            Resolved::Cpu => {
                decision.reason = "no GPU could be opened".into();
                return cpu(decision, out);
            }
        },
    };
    if ctx.is_software() {
        decision.reason = format!("`{}` is a software adapter: slower than the CPU", ctx.info.name);
        return cpu(decision, out);
    }
    let (config, gpu_rate) = match opts.gpu {
        // Caller-given settings: nothing is measured, so there is no GPU rate to weigh the CPU
        // threads against; the caller chose this GPU, which runs alone.
        Some(c) => (c, None),
        None => {
            let tuned = crate::tuning::tune_for(ctx, graph, rest)?;
            out.tune_s += tuned.tune_s;
            (tuned.config, tuned.trees_per_s)
        }
    };
    decision.gpu_trees_per_s = gpu_rate;
    let placement = if opts.gpu.is_some() { Placement::Gpu } else { place(cpu_rate, gpu_rate) };
    decision.reason = match (placement, gpu_rate) {
        (_, None) if opts.gpu.is_some() => "launch settings were given: the GPU runs alone".into(),
        (_, None) => "the GPU could not be measured: the CPU runs".into(),
        (Placement::Cpu, Some(g)) => format!("GPU {g:.0} trees/s is not faster than CPU {cpu_rate:.0}"),
        (Placement::Gpu, Some(g)) => format!(
            "GPU {g:.0} trees/s; the CPU's {cpu_rate:.0} adds less than {:.0}% of that",
            crate::auto::WORK_QUEUE_MIN_CPU_SHARE * 100.0
        ),
        (Placement::Both, Some(g)) => {
            format!("GPU {g:.0} trees/s and CPU {cpu_rate:.0} together (work queue)")
        }
    };
    out.decision = Some(decision);
    Ok(match placement {
        Placement::Cpu => (Plan::Cpu, probe),
        Placement::Gpu => (Plan::Gpu(ctx, Schedule::Single, Some(config)), probe),
        Placement::Both => (Plan::Gpu(ctx, Schedule::WorkQueue, Some(config)), probe),
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

/// A block computed by a CPU worker thread, sent to the calling thread.
struct OwnedBlock {
    first: usize,
    sources: Vec<u32>,
    dist: Vec<u32>,
    stats: SsspStats,
}

/// CPU threads and the GPU at once. The calling thread drives the GPU and hands its rows to the sink
/// straight from the readback buffer; CPU workers send their blocks over a bounded channel, drained
/// by the calling thread between GPU batches, so the sink needs neither `Send` nor a lock.
///
/// Under the work queue a CPU worker takes a chunk only while the GPU, at the rate it has shown so
/// far, would need longer than that chunk takes on one CPU thread for the sources left: otherwise
/// the CPU would finish its last chunk after the GPU has run dry (a GPU much faster than the CPU
/// then does nearly everything, which is the right split). The GPU always takes what is left.
#[allow(clippy::too_many_arguments)]
fn hetero(
    graph: &Csr<u32>,
    sources: &[u32],
    ctx: &gpu_runtime::GpuContext,
    config: BatchConfig,
    schedule: Schedule,
    cpu_threads: usize,
    out: &mut ManyStats,
    emit: &mut RowSink<'_>,
) -> Result<(), SsspError> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::time::Instant;
    let n = graph.num_vertices() as usize;
    let total = sources.len();
    let cursor = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // Seconds per tree on the GPU (whole batches) and on one CPU thread, once measured.
    let gpu_rate: Mutex<Option<f64>> = Mutex::new(None);
    let cpu_rate: Mutex<Option<f64>> = Mutex::new(None);
    // Equitable shares: worker 0 is the GPU, workers 1..=cpu_threads the CPU threads.
    let workers = cpu_threads + 1;
    let share = |w: usize| {
        let (q, r) = (total / workers, total % workers);
        let start = w * q + w.min(r);
        start..start + q + usize::from(w < r)
    };
    let grab =
        |own: &mut std::ops::Range<usize>, want: usize, is_cpu: bool| -> Option<std::ops::Range<usize>> {
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
                    if is_cpu {
                        let left = total.saturating_sub(cursor.load(Ordering::Relaxed));
                        let g = *gpu_rate.lock().unwrap_or_else(|e| e.into_inner());
                        let c = *cpu_rate.lock().unwrap_or_else(|e| e.into_inner());
                        if let (Some(g), Some(c)) = (g, c)
                            && (left as f64) * g < want as f64 * c
                        {
                            return None;
                        }
                    }
                    let start = cursor.fetch_add(want, Ordering::Relaxed).min(total);
                    start..(start + want).min(total)
                }
            };
            (!r.is_empty()).then_some(r)
        };
    let (tx, rx) = std::sync::mpsc::sync_channel::<Result<OwnedBlock, SsspError>>(2 * workers);
    let mut error: Option<SsspError> = None;
    let take = |msg: Result<OwnedBlock, SsspError>,
                out: &mut ManyStats,
                error: &mut Option<SsspError>,
                emit: &mut RowSink<'_>| match msg {
        Ok(b) => {
            out.stats.phases += b.stats.phases;
            out.cpu_trees += b.sources.len();
            if error.is_none() {
                emit(b.first, &b.sources, &b.dist);
            }
        }
        Err(e) => {
            stop.store(true, Ordering::Relaxed);
            error.get_or_insert(e);
        }
    };
    std::thread::scope(|scope| {
        let (grab, stop, cpu_rate) = (&grab, &stop, &cpu_rate);
        for w in 1..=cpu_threads {
            let tx = tx.clone();
            scope.spawn(move || {
                let mut own = share(w);
                let mut heap = RadixHeap::new();
                while let Some(r) = grab(&mut own, CPU_CHUNK, true) {
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
                    let per_tree = t.elapsed().as_secs_f64() / block.len() as f64;
                    cpu_rate.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(per_tree);
                    let b = OwnedBlock { first: r.start, sources: block.to_vec(), dist, stats };
                    if tx.send(Ok(b)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        // The GPU, driven from this thread.
        let gpu = (|| {
            let mut solver = gpu_solver(ctx, graph, config, total)?;
            let slots = solver.slots();
            let mut own = share(0);
            let started = Instant::now();
            solver.for_each_fed_block(
                || grab(&mut own, slots, false).map(|r| (r.start, sources[r].to_vec())),
                |first, block, rows| {
                    out.gpu_trees += block.len();
                    let per_tree = started.elapsed().as_secs_f64() / out.gpu_trees as f64;
                    *gpu_rate.lock().unwrap_or_else(|e| e.into_inner()) = Some(per_tree);
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
        // What the CPU threads still hold, and, under the work queue, what nobody took.
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
    let n = graph.num_vertices();
    if let Some(&t) = targets.iter().find(|&&t| t >= n) {
        return Err(SsspError::TargetOutOfRange { target: t, n });
    }
    let cols = targets.len();
    let mut data = vec![0u32; sources.len() * cols];
    many_to_all(graph, sources, backend, false, |block| {
        for i in 0..block.sources.len() {
            let row = block.dist_row(i);
            let out = &mut data[(block.first + i) * cols..(block.first + i + 1) * cols];
            for (o, &t) in out.iter_mut().zip(targets) {
                *o = row[t as usize];
            }
        }
    })?;
    Ok(DistanceMatrix { sources: sources.to_vec(), targets: targets.to_vec(), data })
}
