//! Tuned launch settings of the batched many-source kernel ([`crate::gpu::GpuBatchSssp`]).
//!
//! Candidates (workgroup size 128, 256, 512 × near–far window 4, 8, 16 × the mean arc weight, the
//! default of [`BatchConfig::for_graph`] first) are timed on a sample batch of sources. Each measurement is remembered
//! across processes ([`gpu_runtime::tuning`]: a cache file keyed by adapter, driver, kernel source and
//! a fingerprint of the graph), so a second run of the same graph measures nothing. Under a time budget
//! ([`tune`]) the search stops early and the next run goes on from there. `URBANFLOW_TUNE=off` takes
//! the portable defaults ([`BatchConfig::for_graph`]); `refresh` measures again.

use std::time::{Duration, Instant};

use gpu_runtime::GpuContext;
use gpu_runtime::tuning::{LaunchConfig, adapter_key, fingerprint_words, kernel_version, tune_within};
use graph_core::Csr;

use crate::error::SsspError;
use crate::gpu::{BatchConfig, GpuBatchSssp};

/// Sources timed per candidate (or fewer when the batch or the graph is smaller).
pub const SAMPLE: usize = 256;

/// The tuned launch settings and what is known of the GPU's speed with them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TunedBatch {
    /// The settings to run with.
    pub config: BatchConfig,
    /// Trees per second of the sample batch with `config`, when measured (now or in an earlier run).
    pub trees_per_s: Option<f64>,
    /// Time this call spent measuring (0 when everything came from the cache).
    pub tune_s: f64,
    /// Candidates not measured yet (the budget ran out or tuning is off).
    pub unmeasured: usize,
}

/// The launch settings for `graph` on `ctx`, measuring every candidate not measured before. Software
/// adapters take the portable defaults (their timings say nothing about a GPU).
pub fn batch_config(ctx: &GpuContext, graph: &Csr<u32>) -> Result<BatchConfig, SsspError> {
    if ctx.is_software() {
        return Ok(BatchConfig::for_graph(ctx, graph));
    }
    tune(ctx, graph, None).map(|t| t.config)
}

/// [`batch_config`] measured on any adapter, software ones included (tests, or a caller who wants
/// the measurement anyway).
pub fn measured_batch_config(ctx: &GpuContext, graph: &Csr<u32>) -> Result<BatchConfig, SsspError> {
    tune(ctx, graph, None).map(|t| t.config)
}

/// The candidates, most promising first (the portable default, then the workgroup sizes at the default
/// window, then the windows), so a search cut short by its budget has tried the likeliest ones.
fn candidates(ctx: &GpuContext, base: &BatchConfig, mean: f64) -> Vec<LaunchConfig> {
    let with = |wg: u32, factor: f64| LaunchConfig {
        workgroup_size: wg,
        batch: base.slots as u32,
        param: ((factor * mean) as u32).max(1),
    };
    let mut out = vec![LaunchConfig {
        workgroup_size: base.workgroup_size,
        batch: base.slots as u32,
        param: base.delta,
    }];
    // Narrow windows and wide workgroups measured best on the H100 (NY, bremen): those first.
    let order =
        [(512, 4.0), (128, 4.0), (256, 8.0), (512, 8.0), (128, 8.0), (256, 16.0), (512, 16.0), (128, 16.0)];
    for (wg, factor) in order {
        let c = with(wg, factor);
        if !out.contains(&c) && wg <= ctx.limits.max_compute_invocations_per_workgroup {
            out.push(c);
        }
    }
    out
}

/// Share of the expected GPU time for the trees asked for that [`tune_for`] may spend measuring.
pub const SHARE_OF_WORK: f64 = 0.1;

/// Tunes for a run of `sources` trees: the portable default is measured first (or read from the
/// cache), and the other candidates only while the time spent stays under [`SHARE_OF_WORK`] of what
/// the run would take at that rate. A small run measures little; a large one measures everything, once.
/// Software adapters take the portable defaults without measuring.
pub fn tune_for(ctx: &GpuContext, graph: &Csr<u32>, sources: usize) -> Result<TunedBatch, SsspError> {
    if ctx.is_software() {
        let config = BatchConfig::for_graph(ctx, graph);
        return Ok(TunedBatch { config, trees_per_s: None, tune_s: 0.0, unmeasured: 0 });
    }
    let started = Instant::now();
    let problem = Problem::new(ctx, graph);
    let first =
        search(ctx, graph, &problem, Some(Duration::ZERO), usize::MAX).and_then(|t| match t.trees_per_s {
            Some(_) => Ok(t),
            None => search(ctx, graph, &problem, None, 1), // the portable default alone
        })?;
    let expected = sources as f64 / first.trees_per_s.unwrap_or(f64::INFINITY);
    let budget =
        Duration::from_secs_f64((SHARE_OF_WORK * expected).max(0.0)).saturating_sub(started.elapsed());
    let mut t = search(ctx, graph, &problem, Some(budget), usize::MAX)?;
    t.tune_s = started.elapsed().as_secs_f64();
    Ok(t)
}

/// Tunes within `budget` (`None`: no limit) and reports the GPU's measured rate.
pub fn tune(ctx: &GpuContext, graph: &Csr<u32>, budget: Option<Duration>) -> Result<TunedBatch, SsspError> {
    search(ctx, graph, &Problem::new(ctx, graph), budget, usize::MAX)
}

/// What a search measures and the cache key naming it: computed once per tuning (the graph's
/// fingerprint reads every arc).
struct Problem {
    base: BatchConfig,
    candidates: Vec<LaunchConfig>,
    sample: Vec<u32>,
    adapter: String,
    kernel: String,
    key: String,
}

impl Problem {
    fn new(ctx: &GpuContext, graph: &Csr<u32>) -> Self {
        let base = BatchConfig::for_graph(ctx, graph);
        let candidates = candidates(ctx, &base, crate::gpu::mean_weight(graph));
        let n = graph.num_vertices();
        let sample_len = SAMPLE.min(base.slots).min(n as usize).max(1);
        // Evenly spread sample sources: trees of different sizes, the same for every candidate.
        let sample = (0..sample_len as u64).map(|i| (i * n as u64 / sample_len as u64) as u32).collect();
        let fingerprint = fingerprint_words(graph.offsets())
            ^ fingerprint_words(graph.targets()).rotate_left(21)
            ^ fingerprint_words(graph.weights()).rotate_left(42);
        let key = format!("n={n} m={} graph={fingerprint:016x} sample={sample_len}", graph.num_arcs());
        // The measurement includes reading the rows back, as a real run does (`readback` in the key:
        // the kernel-only measurements of earlier versions overstated the rate up to 3× on small graphs).
        let kernel = format!("sssp_batch+readback@{}", kernel_version(crate::gpu::batch::SOURCE));
        Self { base, candidates, sample, adapter: adapter_key(ctx), kernel, key }
    }
}

/// The first `limit` candidates, measured within `budget`.
fn search(
    ctx: &GpuContext,
    graph: &Csr<u32>,
    p: &Problem,
    budget: Option<Duration>,
    limit: usize,
) -> Result<TunedBatch, SsspError> {
    let started = Instant::now();
    let base = p.base;
    let sample = &p.sample;
    let candidates = &p.candidates[..limit.clamp(1, p.candidates.len())];
    let t = tune_within((&p.adapter, &p.kernel, &p.key), candidates, budget, |c| {
        let config =
            BatchConfig { workgroup_size: c.workgroup_size, slots: sample.len(), delta: c.param, ..base };
        let mut solver = GpuBatchSssp::new(ctx, graph, config)?;
        solver.run(&sample[..sample.len().min(8)])?; // warm-up: pipeline and first-touch costs
        let t = Instant::now();
        let mut checksum = 0u64; // touch the rows, as a caller would
        solver.for_each_block(sample, |_, _, rows| {
            checksum = checksum.wrapping_add(rows[rows.len() / 2] as u64)
        })?;
        std::hint::black_box(checksum);
        Ok::<f64, SsspError>(t.elapsed().as_secs_f64() / sample.len() as f64)
    })?;
    Ok(TunedBatch {
        config: BatchConfig { workgroup_size: t.config.workgroup_size, delta: t.config.param, ..base },
        trees_per_s: t.seconds_per_unit.map(|s| 1.0 / s),
        tune_s: started.elapsed().as_secs_f64(),
        unmeasured: t.unmeasured,
    })
}
