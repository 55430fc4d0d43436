//! Automatic choices that never make a call slower than the CPU: which algorithm [`Algorithm::Auto`]
//! runs for one source, and where [`crate::many::Schedule::Auto`] computes many trees.
//!
//! **One source.** A single [`crate::solve`] call on a GPU pays for what a warm benchmark does not:
//! the device (when the process has none yet), pipeline compilation, the graph's upload and scratch
//! allocation. Measured per process on the H100 (docs/benchmarks.md, "Automatic choices"), these
//! costs exceed the CPU's whole Dijkstra on every graph below several million vertices. `Auto` takes
//! the GPU only on an adapter with a recorded [`Crossover`] and a graph at least that large; on any
//! other adapter (unmeasured, or software) it runs Dijkstra on the CPU.
//!
//! **Many sources.** Measured, not recorded: the first trees are computed on the CPU (they are part of
//! the answer) and time the CPU; the GPU's rate comes from the tuning measurements of
//! [`crate::tuning`] (cached across processes, bounded by a tenth of the CPU's estimated time for the
//! rest). The GPU is used only when it is measured faster; the CPU threads join it (work queue) only
//! when they add at least [`WORK_QUEUE_MIN_CPU_SHARE`] of the GPU's rate, below which the measured work
//! queue was slower than the GPU alone (NY: 2,106 vs 2,507 trees/s).

use std::time::Duration;

use gpu_runtime::context::auto_adapter;
use gpu_runtime::{Backend, GpuContext, Resolved};
use graph_core::Csr;

use crate::api::Algorithm;

/// Where a GPU single-source search starts paying off on one adapter, as measured per process
/// (device creation, compilation, upload and search all counted) against the CPU's Dijkstra on the
/// same host.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Crossover {
    /// A substring of the adapter's name.
    pub adapter: &'static str,
    /// The GPU algorithm that wins from there.
    pub algorithm: Algorithm,
    /// Fewest vertices for which the GPU wins when the process has not created its device yet.
    pub min_vertices_cold: u32,
    /// Fewest vertices for which the GPU wins once the device exists and the pipelines are compiled.
    pub min_vertices_warm: u32,
}

/// The recorded crossovers (docs/benchmarks.md, "Automatic choices", has the runs behind them).
pub const CROSSOVERS: &[Crossover] = &[];

/// The recorded crossover for an adapter name, if any.
pub fn crossover_for(adapter_name: &str) -> Option<&'static Crossover> {
    CROSSOVERS.iter().find(|c| adapter_name.contains(c.adapter))
}

/// What [`Algorithm::Auto`] runs for one source of `graph` on `backend`, and where, with the reason.
/// Decided without creating a device when the answer is the CPU.
///
/// ```
/// use algos_sssp::{Algorithm, auto::single_source_choice};
/// use gpu_runtime::Backend;
/// let g = graph_core::generators::grid_2d(10, 10);
/// let (algorithm, _backend, why) = single_source_choice(&g, Backend::Auto);
/// assert_eq!(algorithm, Algorithm::Dijkstra); // small graphs never pay for a GPU
/// assert!(!why.is_empty());
/// ```
pub fn single_source_choice<'a>(graph: &Csr<u32>, backend: Backend<'a>) -> (Algorithm, Resolved<'a>, String) {
    let n = graph.num_vertices();
    let cpu = |why: String| (Algorithm::Dijkstra, Resolved::Cpu, why);
    // Below every recorded crossover nothing needs to be known about the adapters (looking costs a
    // driver load).
    let smallest = CROSSOVERS.iter().map(|c| c.min_vertices_warm).min();
    if n < smallest.unwrap_or(u32::MAX) && !matches!(backend, Backend::Cpu) {
        return cpu(match smallest {
            Some(s) => format!(
                "{n} vertices: below every measured GPU crossover (the smallest is {s} vertices), Dijkstra \
                 on the CPU is faster"
            ),
            None => "no GPU crossover is recorded: Dijkstra on the CPU is the safe choice".into(),
        });
    }
    let (name, warm) = match backend {
        Backend::Cpu => return cpu("the CPU backend was asked for".into()),
        Backend::Gpu(ctx) => (ctx.info.name.clone(), true),
        Backend::Auto => {
            let auto = auto_adapter();
            match auto.chosen {
                None => return cpu(auto.reason.clone()),
                Some(i) => (auto.found[i].name.clone(), GpuContext::shared_is_created()),
            }
        }
    };
    let Some(c) = crossover_for(&name) else {
        return cpu(format!("no measured crossover for `{name}`: Dijkstra on the CPU is the safe choice"));
    };
    let min = if warm { c.min_vertices_warm } else { c.min_vertices_cold };
    if n < min {
        return cpu(format!(
            "{n} vertices < {min}, where {} on `{name}` starts beating the CPU ({}): Dijkstra on the CPU",
            c.algorithm,
            if warm { "device ready" } else { "device creation included" }
        ));
    }
    match backend.resolve() {
        Resolved::Gpu(ctx) => (
            c.algorithm,
            Resolved::Gpu(ctx),
            format!("{n} vertices ≥ {min}: {} on `{name}` is measured faster than the CPU", c.algorithm),
        ),
        Resolved::Cpu => cpu(format!("`{name}` could not be opened: Dijkstra on the CPU")),
    }
}

/// Least share of the GPU's rate the CPU threads must add before they work beside it.
pub const WORK_QUEUE_MIN_CPU_SHARE: f64 = 0.45;

/// Least estimated CPU time for the remaining trees before a device is created for them: below it,
/// creating a device, compiling and uploading cannot pay off (about 0.3–0.5 s on the H100 host).
pub const MIN_CPU_SECONDS_FOR_A_NEW_DEVICE: f64 = 1.0;

/// Share of the estimated CPU time that tuning may spend measuring the GPU.
pub const TUNING_SHARE: f64 = 0.1;

/// The tuning budget for work the CPU would finish in `cpu_seconds`.
pub fn tuning_budget(cpu_seconds: f64) -> Duration {
    Duration::from_secs_f64((cpu_seconds * TUNING_SHARE).max(0.0))
}

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
/// use algos_sssp::auto::{Placement, place};
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
