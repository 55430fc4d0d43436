//! Choosing where the enumeration runs.
//!
//! How many cycles a graph has cannot be told from its size (a 6 × 10 grid: 60 vertices, 800,139
//! cycles), nor from a count of early cycles (on an 8 × 10 grid the sequential search takes two seconds
//! to find its first 131,072), so `Auto` asks the clock, in two rounds:
//!
//! 1. The sequential search runs for up to [`PROBE_TIME`]. A graph it finishes is done, with no
//!    thread pool or GPU started.
//! 2. Counting a larger graph: rayon counts; after [`GPU_QUIET_TIME`] a thread takes the automatic
//!    adapter (any hardware GPU: software adapters are never chosen automatically) and starts it
//!    (device, pipelines: about 0.2 s on an H100). When the GPU is ready, and rayon has had at least
//!    [`GPU_HEAD_START`] (the GPU's own fixed cost per run), the GPU counts from the start. Whether
//!    rayon stops for it is measured on this machine, never read from the adapter's name: every count
//!    the GPU finishes records its time over rayon's (estimated) whole count in the tuning cache, keyed
//!    by adapter and driver ([`GpuRecord`]). On an adapter that has no such record, or whose record
//!    says it is not clearly faster, both count and the first count to finish is the answer (a race:
//!    never slower than rayon but for the GPU thread's share of the host). Where the record predicts
//!    the GPU alone finishing well before rayon, and rayon has more than [`GPU_TAKEOVER_LEFT`] to go,
//!    rayon stops and the GPU counts with the host to itself ([`gpu_takes_over`]). Where the record
//!    predicts the GPU's count taking longer than rayon's time left, it does not count at all
//!    ([`gpu_may_win`]).
//!
//! Listing, and counting with a limit, stay on the CPU. The GPU lists the 7 × 10 grid 2.5× faster
//! than the sequential search on an H100 (the host decodes and hands over every cycle), but a listing
//! cannot be raced (the sink has seen what the CPU found), and on graphs the CPU lists in under a few
//! tenths of a second starting the GPU alone costs more.

use std::ops::ControlFlow;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use gpu_runtime::{Backend, GpuContext};

use crate::CyclesError;
use crate::enumerate::{
    ChordlessOptions, CycleStats, RayonProgress, chordless_cycles, chordless_cycles_until,
    count_chordless_cycles_rayon, count_rayon_until,
};
use crate::gpu::{chordless_cycles_gpu, count_gpu_until, warm_up};
use crate::graph::SimpleGraph;

/// How long the automatic choice searches sequentially before deciding the graph is large.
pub const PROBE_TIME: Duration = Duration::from_millis(5);

/// How long rayon counts alone before the GPU is looked for at all. Once the driver is creating a
/// device it cannot be stopped, and the process must not exit under it ([`settle`]): a 6 × 10 grid,
/// which rayon counts in 36–48 ms on the H100 host, then exited 0.7 s after its answer with 40 ms here.
pub const GPU_QUIET_TIME: Duration = Duration::from_millis(80);

/// How long rayon counts before a ready GPU starts counting (alone or beside it, [`GPU_TAKEOVER_LEFT`]):
/// about what one GPU run costs whatever the graph (buffers, first submissions: 50–100 ms on an H100),
/// so graphs rayon finishes sooner stay on it.
pub const GPU_HEAD_START: Duration = Duration::from_millis(100);

/// When the GPU is ready, rayon stops for it only if it has more than this left to count (by its
/// progress so far) and this machine's record says the GPU is clearly faster ([`gpu_takes_over`]). A
/// GPU count beside rayon's 16 threads ran 0.1–0.15 s slower on a 6-cube than alone (H100 host); on a
/// 7 × 10 grid, which rayon finishes soon after the GPU is ready, racing cost rayon 0.13 s on the H200
/// host.
pub const GPU_TAKEOVER_LEFT: Duration = Duration::from_millis(300);

/// The tuning cache's name for the race's record ([`GpuRecord`]), with its version: a change to what is
/// recorded changes it.
const RECORD_KERNEL: &str = "chordless cycles: GPU count over rayon's v1";

/// What this machine measured of the GPU against rayon, per adapter: the GPU's counting time over
/// rayon's whole count on the same graph, from the last count the GPU finished (a race it won, or a
/// takeover), raised to the bound a race it then lost gives (its share of rayon's time in that race).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuRecord {
    /// GPU seconds ÷ rayon seconds (below 1: the GPU was faster).
    pub gpu_over_rayon: f64,
}

/// Whether rayon stops for the GPU when it is ready: only where this adapter's record predicts the GPU
/// alone finishing in at most 0.8 of the time rayon still needs, and rayon needs more than
/// [`GPU_TAKEOVER_LEFT`]. Without a record, or without an estimate of rayon's time left yet, both count
/// (the race decides, and records). A pure function of the measurements, for tests.
///
/// ```
/// use std::time::Duration;
/// use urbanflow::cycles::{GpuRecord, gpu_takes_over};
/// let s = Duration::from_secs_f64;
/// let fast = Some(GpuRecord { gpu_over_rayon: 0.14 }); // as measured on an 8 x 10 grid
/// assert!(gpu_takes_over(fast, s(0.2), Some(s(6.0))));
/// assert!(!gpu_takes_over(fast, s(0.2), Some(s(0.1)))); // rayon is nearly done
/// assert!(!gpu_takes_over(None, s(0.2), Some(s(6.0)))); // never measured here: race
/// assert!(!gpu_takes_over(Some(GpuRecord { gpu_over_rayon: 1.3 }), s(0.2), Some(s(6.0))));
/// ```
pub fn gpu_takes_over(
    record: Option<GpuRecord>,
    rayon_elapsed: Duration,
    rayon_left: Option<Duration>,
) -> bool {
    let (Some(record), Some(left)) = (record, rayon_left) else { return false };
    let predicted_gpu = (rayon_elapsed + left).mul_f64(record.gpu_over_rayon);
    left > GPU_TAKEOVER_LEFT && predicted_gpu <= left.mul_f64(0.8)
}

/// Whether the GPU counts beside rayon (when it does not take over): unless this adapter's record
/// predicts its count taking longer than rayon's time left. Without a record, or an estimate, it races
/// (and the race records).
///
/// ```
/// use std::time::Duration;
/// use urbanflow::cycles::{GpuRecord, gpu_may_win};
/// let s = Duration::from_secs_f64;
/// let record = Some(GpuRecord { gpu_over_rayon: 0.35 });
/// assert!(!gpu_may_win(record, s(0.3), Some(s(0.07)))); // a 7 x 10 grid: rayon is nearly done
/// assert!(gpu_may_win(record, s(0.3), Some(s(4.5))));
/// assert!(gpu_may_win(None, s(0.3), Some(s(0.07))));
/// ```
pub fn gpu_may_win(record: Option<GpuRecord>, rayon_elapsed: Duration, rayon_left: Option<Duration>) -> bool {
    match (record, rayon_left) {
        (Some(record), Some(left)) => (rayon_elapsed + left).mul_f64(record.gpu_over_rayon) < left,
        _ => true,
    }
}

/// The record of `ctx`'s adapter in the tuning cache, if this machine measured one.
fn stored_record(ctx: &GpuContext) -> Option<GpuRecord> {
    let key = gpu_runtime::tuning::adapter_key(ctx);
    let t = gpu_runtime::tuning::stored_measurement((&key, RECORD_KERNEL, "any graph"), &RECORD_SLOT)?;
    Some(GpuRecord { gpu_over_rayon: t })
}

/// Keeps `record` for `ctx`'s adapter (this process and the tuning cache file).
fn store_record(ctx: &GpuContext, record: GpuRecord) {
    if record.gpu_over_rayon.is_finite() && record.gpu_over_rayon > 0.0 {
        let key = gpu_runtime::tuning::adapter_key(ctx);
        gpu_runtime::tuning::store_measurement(
            (&key, RECORD_KERNEL, "any graph"),
            &RECORD_SLOT,
            record.gpu_over_rayon,
        );
    }
}

/// The tuning cache keys measurements by launch setting too; the record has one slot.
const RECORD_SLOT: gpu_runtime::tuning::LaunchConfig =
    gpu_runtime::tuning::LaunchConfig { workgroup_size: 0, batch: 0, param: 0 };

/// Where an enumeration ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ran {
    /// The sequential depth-first search (listing, or a graph the probe finished).
    Serial,
    /// The depth-first search on rayon's threads (counting).
    Rayon,
    /// The level-synchronous expansion on the GPU.
    Gpu,
}

/// Every chordless cycle on `backend`: `Cpu` counts on rayon's threads (count-only without a limit)
/// or lists sequentially, `Gpu` runs [`chordless_cycles_gpu`], `Auto` probes (module docs). Also says
/// where it ran.
///
/// ```
/// use std::ops::ControlFlow;
/// use urbanflow::cycles::{ChordlessOptions, Ran, SimpleGraph, Simplify, chordless_cycles_on};
/// let (g, _) = SimpleGraph::from_csr(&urbanflow::graph::generators::grid_2d(4, 4), Simplify::Repair).unwrap();
/// let opts = ChordlessOptions { count_only: true, ..Default::default() };
/// let auto = urbanflow::gpu::Backend::Auto;
/// let (stats, ran) = chordless_cycles_on(&g, &opts, auto, &mut |_| ControlFlow::Continue(())).unwrap();
/// assert_eq!((stats.total, ran), (24, Ran::Serial)); // the probe was enough
/// ```
pub fn chordless_cycles_on(
    g: &SimpleGraph,
    opts: &ChordlessOptions,
    backend: Backend<'_>,
    sink: &mut dyn FnMut(&[u32]) -> ControlFlow<()>,
) -> Result<(CycleStats, Ran), CyclesError> {
    let cpu = |sink: &mut dyn FnMut(&[u32]) -> ControlFlow<()>| -> Result<(CycleStats, Ran), CyclesError> {
        if opts.count_only && opts.limit.is_none() {
            Ok((count_chordless_cycles_rayon(g, opts)?, Ran::Rayon))
        } else {
            Ok((chordless_cycles(g, opts, sink)?, Ran::Serial))
        }
    };
    match backend {
        Backend::Cpu => cpu(sink),
        Backend::Gpu(ctx) => Ok((chordless_cycles_gpu(ctx, g, opts, sink)?, Ran::Gpu)),
        Backend::Auto => {
            if !opts.count_only || opts.limit.is_some() {
                return cpu(sink);
            }
            let deadline = Instant::now() + PROBE_TIME;
            if let Some(stats) = chordless_cycles_until(g, opts, sink, Some(deadline))? {
                return Ok((stats, Ran::Serial));
            }
            race(g, opts, hardware_gpu)
        }
    }
}

/// The shared context of the automatic adapter (a hardware GPU: software adapters are never chosen
/// automatically). Looking for adapters is itself slow (tens of milliseconds), so only the racing
/// thread calls this.
fn hardware_gpu() -> Option<&'static GpuContext> {
    gpu_runtime::context::auto_adapter().chosen?;
    GpuContext::auto()
}

/// Race threads whose count was not needed (the CPU won) and that may still be inside the GPU
/// driver: creating the device or compiling pipelines cannot be interrupted. [`settle`] joins them.
static LOSERS: std::sync::Mutex<Vec<std::thread::JoinHandle<()>>> = std::sync::Mutex::new(Vec::new());

/// Waits for the GPU work an automatic choice started and then did not need: a race the CPU won can
/// leave its thread creating the device for up to a few tenths of a second. Call it before the
/// process exits after [`chordless_cycles_on`] with `Backend::Auto`. A process that tears down while
/// a thread is still inside the GPU driver can crash: NVIDIA's Vulkan driver segfaulted at exit in
/// every such run measured on the H100 (docs/benchmarks.md). A long-lived process need not call it.
///
/// ```
/// urbanflow::cycles::settle(); // nothing started: returns at once
/// ```
pub fn settle() {
    let losers = std::mem::take(&mut *LOSERS.lock().unwrap_or_else(|e| e.into_inner()));
    for thread in losers {
        let _ = thread.join();
    }
}

/// Sleeps until `deadline`, or less once `done` is set (the race's main thread unparks this one).
fn nap_until(deadline: Instant, done: &AtomicBool) {
    while !done.load(Ordering::Relaxed) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        std::thread::park_timeout(left);
    }
}

/// Counts on rayon while a thread gets a GPU from `gpu` and starts it; once rayon has had its head
/// start, and unless rayon is nearly done, the GPU counts from the start (on its own copy of the
/// graph): alone, rayon stopped, where [`gpu_takes_over`] says so, else beside rayon, the first count
/// to finish winning. Every GPU count that finishes updates this adapter's [`GpuRecord`].
/// A CPU win does not wait for the thread: it wakes from its naps, and a GPU count under way stops at
/// its next submission, but a device being created finishes first, so the thread is kept for
/// [`settle`]; the context it made stays for later calls.
fn race(
    g: &SimpleGraph,
    opts: &ChordlessOptions,
    gpu: fn() -> Option<&'static GpuContext>,
) -> Result<(CycleStats, Ran), CyclesError> {
    // Set by the GPU's thread when rayon is to stop: its count is in the channel, or it takes over.
    let stop_rayon = Arc::new(AtomicBool::new(false));
    // Set when rayon finished: the GPU's thread gives up where it can.
    let cpu_done = Arc::new(AtomicBool::new(false));
    let progress = Arc::new(RayonProgress::default());
    // The GPU's count, or `None` when it took over and failed (rayon then counts after all).
    let (tx, rx) = mpsc::channel::<Option<CycleStats>>();
    let start = Instant::now();
    let (stop, finished, seen, graph, opts_gpu) =
        (Arc::clone(&stop_rayon), Arc::clone(&cpu_done), Arc::clone(&progress), g.clone(), *opts);
    let thread = std::thread::spawn(move || {
        // Graphs rayon finishes in tens of milliseconds never touch a GPU driver (looking for
        // adapters alone costs ~90 ms of CPU time, and would be taken from rayon).
        nap_until(start + GPU_QUIET_TIME, &finished);
        if finished.load(Ordering::Relaxed) {
            return;
        }
        let Some(ctx) = gpu().filter(|ctx| warm_up(ctx).is_ok()) else { return };
        nap_until(start + GPU_HEAD_START, &finished);
        if finished.load(Ordering::Relaxed) {
            return;
        }
        // Rayon's whole count as its progress predicts it now (from the race's start).
        let rayon_total = |left: Option<Duration>| left.map(|l| start.elapsed() + l);
        let left = seen.time_left();
        let record = stored_record(ctx);
        let gpu_start = Instant::now();
        if gpu_takes_over(record, start.elapsed(), left) {
            let predicted = rayon_total(left);
            stop.store(true, Ordering::Relaxed);
            let never = AtomicBool::new(false);
            let counted = count_gpu_until(ctx, &graph, &opts_gpu, &never).ok().flatten();
            if let (Some(_), Some(total)) = (&counted, predicted) {
                let gpu_over_rayon = gpu_start.elapsed().as_secs_f64() / total.as_secs_f64();
                store_record(ctx, GpuRecord { gpu_over_rayon });
            }
            let _ = tx.send(counted);
            return;
        }
        // A GPU this machine measured too slow to finish before rayon does not count: beside rayon it
        // would only take host time from it (a 7 × 10 grid, which rayon counts in 0.45–0.49 s on the
        // H200 host, took 0.59–0.62 s with the GPU racing). Rayon's early estimates run low on some
        // graphs (an 8 × 10 grid's said under 0.3 s left of 5), so without a record the GPU races.
        if !gpu_may_win(record, start.elapsed(), left) {
            return;
        }
        // A GPU that fails (memory) leaves the count to rayon; one that rayon beat stops at its next
        // submission.
        match count_gpu_until(ctx, &graph, &opts_gpu, &finished) {
            Ok(Some(stats)) => {
                if let Some(total) = rayon_total(seen.time_left()) {
                    let gpu_over_rayon = gpu_start.elapsed().as_secs_f64() / total.as_secs_f64();
                    store_record(ctx, GpuRecord { gpu_over_rayon });
                }
                let _ = tx.send(Some(stats));
                stop.store(true, Ordering::Relaxed);
            }
            // Rayon won: the GPU needed more than the time it had, at least that share of rayon's
            // whole count. A record that promised less is raised to that bound (setting it to "no
            // faster" would keep the GPU off graphs it wins by 9×: one lost 7 × 10 grid did that to
            // the next 8 × 10). Without a record nothing is stored (the next run races too).
            Ok(None) => {
                let lower = gpu_start.elapsed().as_secs_f64() / start.elapsed().as_secs_f64().max(1e-9);
                if record.is_some_and(|r| r.gpu_over_rayon < lower) {
                    store_record(ctx, GpuRecord { gpu_over_rayon: lower });
                }
            }
            Err(_) => {}
        }
    });
    let counted = count_rayon_until(g, opts, &stop_rayon, &progress);
    if !matches!(counted, Ok(None)) {
        // The CPU finished (or failed): the GPU's thread winds down without being waited for.
        cpu_done.store(true, Ordering::Relaxed);
        thread.thread().unpark();
        LOSERS.lock().unwrap_or_else(|e| e.into_inner()).push(thread);
        return Ok((counted?.expect("matched above"), Ran::Rayon));
    }
    // Rayon stopped: the GPU's count is sent, or coming.
    let gpu_count = rx.recv().ok().flatten();
    let _ = thread.join();
    match gpu_count {
        Some(stats) => Ok((stats, Ran::Gpu)),
        None => Ok((count_chordless_cycles_rayon(g, opts)?, Ran::Rayon)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Simplify;

    /// The race gives the exact count whichever side wins (without a GPU, rayon runs alone; on
    /// lavapipe rayon wins, where the rule before this one stopped it for the slower software GPU).
    #[test]
    fn race_counts_exactly_whoever_wins() {
        let (g, _) =
            SimpleGraph::from_csr(&graph_core::generators::grid_2d(6, 10), Simplify::Repair).unwrap();
        let opts = ChordlessOptions { count_only: true, ..Default::default() };
        // Started beforehand, the GPU is ready when rayon's head start ends (0.1 s; two cores need
        // about 0.15 s), so the GPU's side runs too.
        if let Some(ctx) = GpuContext::shared() {
            warm_up(ctx).unwrap();
        }
        for gpu in [|| None, GpuContext::shared] {
            let (stats, ran) = race(&g, &opts, gpu).unwrap();
            eprintln!("ran on {ran:?}");
            assert_eq!(stats.total, 800_139, "ran on {ran:?}");
            assert!(!stats.stopped_early);
        }
        // The threads of races the CPU won are joined, wherever they were.
        settle();
        assert!(LOSERS.lock().unwrap().is_empty());
    }
}
