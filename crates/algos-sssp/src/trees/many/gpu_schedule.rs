//! Running the planned trees on GPUs: one GPU, or CPU threads and several GPUs at once under a static
//! split or a work queue (the heterogeneous scheduler).

use gpu_runtime::GpuContext;
use graph_core::Csr;
use rayon::prelude::*;

use super::{CPU_CHUNK, ManyStats, RowSink, Schedule, SharedSink};
use crate::cpu::dijkstra::dijkstra_into;
use crate::cpu::radix_heap::RadixHeap;
use crate::error::SsspError;
use crate::gpu::{BatchConfig, GpuBatchSssp};
use crate::paths::SsspStats;

pub(super) fn gpu_solver<'a>(
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

/// A block computed by a worker thread (a CPU thread or a GPU other than the first), sent to the
/// calling thread.
pub(super) struct OwnedBlock {
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
pub(super) struct Rates(Vec<std::sync::atomic::AtomicU64>);

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
pub(super) fn hetero(
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
