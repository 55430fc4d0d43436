//! Choosing where the enumeration runs.
//!
//! How many cycles a graph has cannot be told from its size (a 6 × 10 grid: 60 vertices, 800,139
//! cycles), so `Auto` asks the graph: a sequential probe enumerates up to [`PROBE_CYCLES`] cycles. A
//! graph that has fewer is done (the probe is the answer, faster than starting a GPU or a thread
//! pool); a graph with more goes to a GPU on which the level-synchronous expansion was measured faster
//! than the 16-core CPU ([`GPU_MEASURED_ON`], docs/benchmarks.md), else to the CPU.

use std::ops::ControlFlow;

use gpu_runtime::{Backend, Resolved};

use crate::enumerate::{ChordlessOptions, CycleStats, chordless_cycles, count_chordless_cycles_rayon};
use crate::gpu::chordless_cycles_gpu;
use crate::graph::{CyclesError, SimpleGraph};

/// Cycles the automatic choice enumerates sequentially before deciding the graph is large.
pub const PROBE_CYCLES: u64 = 1 << 17;

/// Adapters (name substrings) on which `Auto` may choose the GPU for large graphs.
pub const GPU_MEASURED_ON: &[&str] = &["NVIDIA H100"];

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
/// use algos_cycles::{ChordlessOptions, Ran, SimpleGraph, Simplify, chordless_cycles_on};
/// let (g, _) = SimpleGraph::from_csr(&graph_core::generators::grid_2d(4, 4), Simplify::Repair).unwrap();
/// let opts = ChordlessOptions { count_only: true, ..Default::default() };
/// let auto = gpu_runtime::Backend::Auto;
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
            // The probe: the sequential search, stopped after PROBE_CYCLES cycles (kept, to be passed
            // on if it finishes, so a small graph is enumerated once).
            let cap = PROBE_CYCLES.min(opts.limit.unwrap_or(u64::MAX));
            let mut kept: Vec<Vec<u32>> = Vec::new();
            let probe_opts = ChordlessOptions { limit: Some(cap), ..*opts };
            let probe = chordless_cycles(g, &probe_opts, &mut |c| {
                kept.push(c.to_vec());
                ControlFlow::Continue(())
            })?;
            if !probe.stopped_early || opts.limit.is_some_and(|l| l <= PROBE_CYCLES) {
                let mut stats = probe;
                if let Some(stop) = kept.iter().position(|c| sink(c).is_break()) {
                    // The sink stopped here: the stats count what it saw.
                    stats = CycleStats { stopped_early: true, ..Default::default() };
                    for c in &kept[..=stop] {
                        stats.add_cycle(c.len());
                    }
                }
                return Ok((stats, Ran::Serial));
            }
            drop(kept);
            let auto = gpu_runtime::context::auto_adapter();
            let measured =
                auto.chosen.is_some_and(|i| GPU_MEASURED_ON.iter().any(|m| auto.found[i].name.contains(m)));
            match (measured, backend.resolve()) {
                (true, Resolved::Gpu(ctx)) => Ok((chordless_cycles_gpu(ctx, g, opts, sink)?, Ran::Gpu)),
                _ => cpu(sink),
            }
        }
    }
}
