//! What a many-source run's plan is decided from: the results of [`measure`](super::measure())'s
//! steps, kept apart from the steps so that [`plan`](super::plan()) reads them without running any.

use gpu_runtime::GpuContext;

use super::ManyStats;
use crate::auto::HierarchyCost;
use crate::gpu::BatchConfig;

/// What [`measure`](super::measure()) found, the input of [`plan`](super::plan()). `Default` is "nothing measured":
/// every automatic choice then keeps the CPU.
#[derive(Debug, Clone, Default)]
pub struct Measurements<'a> {
    /// The GPUs the backend stands for, opened (empty when the options leave no GPU to consider).
    pub devices: Vec<&'a GpuContext>,
    /// How the graph's hierarchy would be had, looked up when [`Method::Auto`](super::Method::Auto) weighs PHAST.
    pub hierarchy: Option<HierarchyCost>,
    /// The automatic schedule's timing of the CPU on the first sources.
    pub probe: Option<CpuProbe>,
    /// The GPUs' launch settings and rates, in device order (under [`Schedule::Auto`](super::Schedule::Auto) a short job
    /// measures only the first GPU: more would not pay for their set-up).
    pub gpus: Vec<TunedGpu<'a>>,
    /// The probe's work counters and trees, and the tuning's seconds (a run's statistics start from
    /// them).
    pub stats: ManyStats,
}

/// The CPU timed on the first sources of a run (their trees are part of the result).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpuProbe {
    /// Trees computed: the first `trees` sources.
    pub trees: usize,
    /// Trees per second on all threads.
    pub trees_per_s: f64,
}

/// A GPU's launch settings and its measured rate.
#[derive(Debug, Clone, Copy)]
pub struct TunedGpu<'a> {
    /// The device.
    pub device: &'a GpuContext,
    /// Its launch settings (the caller's [`ManyOptions::gpu`](super::ManyOptions::gpu), else tuned).
    pub config: BatchConfig,
    /// Trees per second of the tuning sample, when measured (now or in an earlier run).
    pub trees_per_s: Option<f64>,
}

impl Measurements<'_> {
    /// The tuned settings of `ctx`, when it was measured.
    pub(super) fn tuned_config(&self, ctx: &GpuContext) -> Option<BatchConfig> {
        self.gpus.iter().find(|t| std::ptr::eq(t.device, ctx)).map(|t| t.config)
    }
}
