//! Many sources at once: shortest-path trees streamed to a callback in blocks, and distance matrices.
//!
//! CPU: rayon over the sources of a block, each thread reusing its own distance row and radix heap.
//! GPU: batched locality-based relaxation (`shaders/sssp_lbr.wgsl`), one invocation per
//! (source, vertex) pair, so a whole block of trees advances in every launch; the block size comes from
//! the device's storage-binding limit ([`GpuSssp::max_batch`]).

use gpu_runtime::{Backend, Resolved};
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
    /// [`Schedule::WorkQueue`] when the backend resolves to a hardware GPU, [`Schedule::Single`]
    /// otherwise (a software adapter runs on the very cores the CPU threads would use).
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
    /// GPU launch configuration (default: [`crate::tuning::batch_config`], autotuned on first use).
    pub gpu: Option<BatchConfig>,
    /// CPU threads working beside the GPU (default: rayon's thread count − 1, at least 1).
    pub cpu_threads: Option<usize>,
}

/// What [`many_to_all_with`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ManyStats {
    /// Work counters summed over all trees.
    pub stats: SsspStats,
    /// Trees computed on the GPU.
    pub gpu_trees: usize,
    /// Trees computed on the CPU.
    pub cpu_trees: usize,
    /// The schedule that ran (never `Auto`).
    pub schedule: Schedule,
}

/// [`many_to_all`] with every option; under [`Schedule::Equitable`] or [`Schedule::WorkQueue`] with a
/// GPU, CPU threads and the GPU work at once and blocks arrive in any order (each names its position,
/// [`TreeBlock::first`]); the rows themselves never depend on the schedule. `sink` runs on the calling
/// thread.
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
    let resolved = opts.backend.resolve();
    let schedule = match (opts.schedule, resolved) {
        (_, Resolved::Cpu) => Schedule::Single,
        (Schedule::Auto, Resolved::Gpu(ctx)) if ctx.is_software() => Schedule::Single,
        (Schedule::Auto, _) => Schedule::WorkQueue,
        (s, _) => s,
    };
    let mut out = ManyStats { schedule, ..Default::default() };
    match (resolved, schedule) {
        (Resolved::Cpu, _) => {
            let mut dist = vec![0u32; CPU_BLOCK * n];
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
            out.cpu_trees = sources.len();
        }
        (Resolved::Gpu(ctx), Schedule::Single) => {
            let mut solver = gpu_solver(ctx, graph, opts, sources.len())?;
            out.stats = solver.for_each_block(sources, |first, block, dist| emit(first, block, dist))?;
            out.gpu_trees = sources.len();
        }
        (Resolved::Gpu(ctx), _) => {
            let threads = opts.cpu_threads.unwrap_or(rayon::current_num_threads().saturating_sub(1)).max(1);
            hetero(graph, sources, ctx, opts, schedule, threads, &mut out, &mut emit)?;
        }
    }
    Ok(out)
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
    opts: &ManyOptions<'_>,
    sources: usize,
) -> Result<GpuBatchSssp<'a>, SsspError> {
    let config = match opts.gpu {
        Some(c) => c,
        None => crate::tuning::batch_config(ctx, graph)?,
    };
    GpuBatchSssp::new(ctx, graph, BatchConfig { slots: config.slots.min(sources.max(1)), ..config })
}

/// Receives `(first, sources, rows)` of a block on the calling thread.
type RowSink<'s> = dyn FnMut(usize, &[u32], &[u32]) + 's;

/// A block computed by a worker thread, sent to the calling thread.
struct OwnedBlock {
    first: usize,
    sources: Vec<u32>,
    dist: Vec<u32>,
    stats: SsspStats,
    on_gpu: bool,
}

/// CPU threads and the GPU at once. Workers send finished blocks over a bounded channel; the calling
/// thread hands them to the sink, so the sink needs neither `Send` nor a lock.
#[allow(clippy::too_many_arguments)]
fn hetero(
    graph: &Csr<u32>,
    sources: &[u32],
    ctx: &gpu_runtime::GpuContext,
    opts: &ManyOptions<'_>,
    schedule: Schedule,
    cpu_threads: usize,
    out: &mut ManyStats,
    emit: &mut RowSink<'_>,
) -> Result<(), SsspError> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let n = graph.num_vertices() as usize;
    let total = sources.len();
    let cursor = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // Equitable shares: worker 0 is the GPU, workers 1..=cpu_threads the CPU threads.
    let workers = cpu_threads + 1;
    let share = |w: usize| {
        let (q, r) = (total / workers, total % workers);
        let start = w * q + w.min(r);
        start..start + q + usize::from(w < r)
    };
    // The next range for a worker wanting up to `want` sources, within `own` under Equitable.
    let grab = |own: &mut std::ops::Range<usize>, want: usize| -> Option<std::ops::Range<usize>> {
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
                let start = cursor.fetch_add(want, Ordering::Relaxed).min(total);
                start..(start + want).min(total)
            }
        };
        (!r.is_empty()).then_some(r)
    };
    let (tx, rx) = std::sync::mpsc::sync_channel::<Result<OwnedBlock, SsspError>>(2 * workers);
    std::thread::scope(|scope| {
        let gpu_tx = tx.clone();
        let (grab, stop) = (&grab, &stop);
        scope.spawn(move || {
            let result = (|| {
                let mut solver = gpu_solver(ctx, graph, opts, total)?;
                let slots = solver.slots();
                let mut own = share(0);
                solver.for_each_fed_block(
                    || grab(&mut own, slots).map(|r| (r.start, sources[r].to_vec())),
                    |first, block, rows| {
                        let b = OwnedBlock {
                            first,
                            sources: block.to_vec(),
                            dist: rows.to_vec(),
                            stats: SsspStats::default(),
                            on_gpu: true,
                        };
                        let _ = gpu_tx.send(Ok(b));
                    },
                )
            })();
            match result {
                Ok(stats) => {
                    let _ = gpu_tx.send(Ok(OwnedBlock {
                        first: 0,
                        sources: Vec::new(),
                        dist: Vec::new(),
                        stats,
                        on_gpu: true,
                    }));
                }
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    let _ = gpu_tx.send(Err(e));
                }
            }
        });
        for w in 1..=cpu_threads {
            let tx = tx.clone();
            scope.spawn(move || {
                let mut own = share(w);
                let mut heap = RadixHeap::new();
                while let Some(r) = grab(&mut own, CPU_CHUNK) {
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
                    let b =
                        OwnedBlock { first: r.start, sources: block.to_vec(), dist, stats, on_gpu: false };
                    if tx.send(Ok(b)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        let mut error = None;
        for msg in rx {
            match msg {
                Ok(b) => {
                    out.stats.phases += b.stats.phases;
                    out.stats.dispatches += b.stats.dispatches;
                    out.stats.readbacks += b.stats.readbacks;
                    if b.sources.is_empty() {
                        continue;
                    }
                    if b.on_gpu {
                        out.gpu_trees += b.sources.len();
                    } else {
                        out.cpu_trees += b.sources.len();
                    }
                    if error.is_none() {
                        emit(b.first, &b.sources, &b.dist);
                    }
                }
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    error.get_or_insert(e);
                }
            }
        }
        error.map_or(Ok(()), Err)
    })
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
