//! [`Method::Phast`] for a many-source run: a hierarchy (given; else a customisable one, its order
//! cached), then downward sweeps on the CPU or passes on the GPU.

use gpu_runtime::GpuContext;
use graph_core::Csr;

use super::{ManyOptions, ManyStats, Method, RowSink, Schedule, SharedSink};
use crate::error::SsspError;

/// [`Method::Phast`]: the hierarchy (given or built, timed), then sweeps on the CPU or passes on the
/// GPUs (`gpus`; empty: the CPU), rows handed to `emit` (with several GPUs in any order, or to
/// `shared` on each GPU's own thread where given).
pub(super) fn run_phast(
    graph: &Csr<u32>,
    sources: &[u32],
    opts: &ManyOptions<'_>,
    gpus: &[&GpuContext],
    out: &mut ManyStats,
    emit: &mut RowSink<'_>,
    shared: Option<&SharedSink<'_>>,
) -> Result<(), SsspError> {
    out.method = Method::Phast;
    out.schedule = Schedule::Single;
    let mut built = None;
    let ch = std::thread::scope(|scope| {
        // The GPUs' pinned readback buffers are allocated while the hierarchy is prepared (each takes
        // about as long as a customisation on NY); the scope ends, so they are ready, before a sweep.
        #[cfg(feature = "gpu")]
        if opts.hierarchy.is_none() {
            let n = graph.num_vertices() as usize;
            let pass = gpus.iter().map(|ctx| gpu_pass(ctx, n)).min().unwrap_or(64);
            // Each device's share of the passes, rounded up (the ring allocates no more than it uses).
            let passes = sources.len().div_ceil(pass).div_ceil(gpus.len().max(1));
            for &ctx in gpus {
                scope.spawn(move || crate::ch::gpu::GpuPhast::prepare_readback(ctx, n, pass, passes));
            }
        }
        #[cfg(not(feature = "gpu"))]
        let _ = scope;
        hierarchy(graph, opts, out, &mut built)
    })?;
    match gpus {
        #[cfg(not(feature = "gpu"))]
        [ctx, ..] => {
            let _ = shared;
            ctx.unbuilt()
        }
        #[cfg(feature = "gpu")]
        [_, _, ..] => {
            out.schedule = Schedule::WorkQueue;
            out.gpu_trees_per_device = sweep_on_gpus(ch, gpus, sources, emit, shared)?;
            out.gpu_trees = sources.len();
        }
        #[cfg(feature = "gpu")]
        [ctx] => {
            let n = graph.num_vertices() as usize;
            let mut phast = crate::ch::gpu::GpuPhast::new(ctx, ch, gpu_pass(ctx, n) as u32)?;
            phast.for_each_block(sources, |first, rows| {
                let count = rows.len() / n.max(1);
                emit(first, &sources[first..first + count], rows)
            })?;
            out.gpu_trees = sources.len();
            out.gpu_trees_per_device = vec![sources.len()];
        }
        [] => {
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

/// The hierarchy of a PHAST run: the given one (checked), else a customisable one, its order from the
/// cache folder or built (timed in `out.preprocess_s`), kept in `built`.
fn hierarchy<'h>(
    graph: &Csr<u32>,
    opts: &ManyOptions<'h>,
    out: &mut ManyStats,
    built: &'h mut Option<crate::ch::ContractionHierarchy>,
) -> Result<&'h crate::ch::ContractionHierarchy, SsspError> {
    match opts.hierarchy {
        Some(ch) => {
            out.hierarchy = "given".into();
            if ch.num_vertices() != graph.num_vertices() {
                return Err(SsspError::InvalidParameter(format!(
                    "the hierarchy has {} vertices, the graph {}",
                    ch.num_vertices(),
                    graph.num_vertices()
                )));
            }
            Ok(ch)
        }
        None => {
            // A customisable hierarchy, CPU or GPU: its order comes from the cache folder when this
            // graph was prepared before, else is built on all cores (NY on the 16-core host: 0.77-0.81
            // s, against 9.8-13.2 s for a contraction on one thread). On the CPU it sweeps about as
            // fast as a contraction (NY, 16 threads: 3,633 vs 4,246 trees/s); on a GPU its deeper DAG
            // sweeps slower than a contraction's, which pays only past hundreds of thousands of
            // sources (docs/benchmarks.md "Many sources on the CCH").
            // (`cch::perfect::thin_downward` halves the downward arcs but took longer than it saved
            // here: docs/benchmarks.md "GPU PHAST: sources per pass".)
            let t = std::time::Instant::now();
            let (customised, how) = crate::cch::Cch::prepare_cached(graph)?;
            out.preprocess_s = t.elapsed().as_secs_f64();
            out.hierarchy = how;
            Ok(built.insert(customised))
        }
    }
}

/// Bytes of labels a GPU PHAST pass may hold: passes of `k` sources keep `n · k` u32 labels (and as
/// many rows read back). Measured on the H100 (docs/benchmarks.md "GPU PHAST: sources per pass"): NY
/// (264,346 vertices) swept fastest at k = 512 (541 MB; 60,000 sources 2.91 s against 4.90 s at
/// k = 128) and FLA (1,070,376) at k = 128 (548 MB; k = 256 was 10 % slower).
#[cfg(feature = "gpu")]
const PASS_LABEL_BYTES: u64 = 600_000_000;

/// Sources per GPU PHAST pass on `ctx` for a graph of `n` vertices: the largest power of two from 64
/// to 512 whose labels fit 600 MB of labels (`PASS_LABEL_BYTES`) and one storage binding; `URBANFLOW_PHAST_LANES`
/// overrides it (for measurements).
#[cfg(feature = "gpu")]
pub fn gpu_pass(ctx: &GpuContext, n: usize) -> usize {
    if let Some(k) =
        std::env::var("URBANFLOW_PHAST_LANES").ok().and_then(|v| v.parse().ok()).filter(|&k| k > 0)
    {
        return k;
    }
    let row = 4 * n.max(1) as u64;
    let budget = PASS_LABEL_BYTES.min(ctx.limits.max_storage_buffer_binding_size);
    let mut k = 512u64;
    while k > 64 && k * row > budget {
        k /= 2;
    }
    k as usize
}

/// PHAST passes on several GPUs at once: each device holds the hierarchy, sweeps the pass of its own
/// index first, then takes the next [`gpu_pass`] sources from one shared cursor when it finishes a
/// pass (a faster device takes more),
/// the first device driven from the calling thread, the others from their own. Rows reach `shared` on
/// the device's thread where given, else travel (copied into reused buffers) to the calling thread's
/// `emit`. Returns the trees per device.
#[cfg(feature = "gpu")]
fn sweep_on_gpus(
    ch: &crate::ch::ContractionHierarchy,
    gpus: &[&GpuContext],
    sources: &[u32],
    emit: &mut RowSink<'_>,
    shared: Option<&SharedSink<'_>>,
) -> Result<Vec<usize>, SsspError> {
    use rayon::prelude::*;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let total = sources.len();
    // One pass size for all, so no device holds more than its budget.
    let n = ch.num_vertices() as usize;
    let pass = gpus.iter().map(|ctx| gpu_pass(ctx, n)).min().unwrap_or(64);
    // Device d's first pass is the d-th (each starts at once, none is left idle by a quick neighbour);
    // after that, the next pass from one shared cursor.
    let cursor = AtomicUsize::new(gpus.len() * pass);
    let stop = AtomicBool::new(false);
    let next_for = |d: usize| {
        let (cursor, stop) = (&cursor, &stop);
        let mut first = true;
        move || -> Option<(usize, Vec<u32>)> {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let start =
                if std::mem::take(&mut first) { d * pass } else { cursor.fetch_add(pass, Ordering::Relaxed) };
            let (start, end) = (start.min(total), (start + pass).min(total));
            (start < end).then(|| (start, sources[start..end].to_vec()))
        }
    };
    let counts: Vec<AtomicUsize> = gpus.iter().map(|_| AtomicUsize::new(0)).collect();
    // Rows of a pass are up to hundreds of MB on a road network: buffers go back to the pool once
    // emitted rather than being allocated (and page-faulted) per pass.
    let pool: Mutex<Vec<Vec<u32>>> = Mutex::new(Vec::new());
    type Rows = (usize, Vec<u32>, Vec<u32>);
    let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Rows, SsspError>>(gpus.len());
    let mut error: Option<SsspError> = None;
    let take = |msg: Result<Rows, SsspError>, emit: &mut RowSink<'_>, error: &mut Option<SsspError>| match msg
    {
        Ok((first, block, rows)) => {
            if error.is_none() {
                emit(first, &block, &rows);
            }
            pool.lock().unwrap_or_else(|e| e.into_inner()).push(rows);
        }
        Err(e) => {
            stop.store(true, Ordering::Relaxed);
            error.get_or_insert(e);
        }
    };
    std::thread::scope(|scope| {
        let (next_for, counts, pool, stop) = (&next_for, &counts, &pool, &stop);
        for (d, &ctx) in gpus.iter().enumerate().skip(1) {
            let tx = tx.clone();
            scope.spawn(move || {
                let run = || -> Result<(), SsspError> {
                    let mut phast = crate::ch::gpu::GpuPhast::new(ctx, ch, pass as u32)?;
                    phast.for_each_fed_block(next_for(d), |first, block, rows| {
                        counts[d].fetch_add(block.len(), Ordering::Relaxed);
                        if let Some(sink) = shared {
                            sink(first, block, rows);
                            return;
                        }
                        let mut buf =
                            pool.lock().unwrap_or_else(|e| e.into_inner()).pop().unwrap_or_default();
                        buf.resize(rows.len(), 0);
                        buf.par_chunks_mut(1 << 16)
                            .zip(rows.par_chunks(1 << 16))
                            .for_each(|(b, r)| b.copy_from_slice(r));
                        let _ = tx.send(Ok((first, block.to_vec(), buf)));
                    })
                };
                if let Err(e) = run() {
                    stop.store(true, Ordering::Relaxed);
                    let _ = tx.send(Err(e));
                }
            });
        }
        drop(tx);
        let first_device = crate::ch::gpu::GpuPhast::new(gpus[0], ch, pass as u32).and_then(|mut phast| {
            phast.for_each_fed_block(next_for(0), |first, block, rows| {
                counts[0].fetch_add(block.len(), Ordering::Relaxed);
                if error.is_none() {
                    emit(first, block, rows);
                }
                // The other devices' rows, as they come, so none waits on a full channel for long.
                while let Ok(msg) = rx.try_recv() {
                    take(msg, emit, &mut error);
                }
            })
        });
        if let Err(e) = first_device {
            stop.store(true, Ordering::Relaxed);
            error.get_or_insert(e);
        }
        for msg in rx {
            take(msg, emit, &mut error);
        }
    });
    match error {
        Some(e) => Err(e),
        None => Ok(counts.into_iter().map(AtomicUsize::into_inner).collect()),
    }
}
