//! Autotuned launch settings of the batched many-source kernel ([`crate::gpu::GpuBatchSssp`]).
//!
//! On first use per adapter and graph, a sample batch of sources is timed under each combination of
//! workgroup size (128, 256, 512) and near–far window (4, 8, 16 × the mean arc weight); the fastest
//! per tree is cached for the process ([`gpu_runtime::tuning`]). Software adapters and
//! `URBANFLOW_TUNE=off` take the portable defaults ([`BatchConfig::for_graph`]) without measuring.
//! Callers who know better pass their own [`BatchConfig`].

use std::time::Instant;

use gpu_runtime::GpuContext;
use gpu_runtime::tuning::{LaunchConfig, adapter_key, tuned};
use graph_core::Csr;

use crate::error::SsspError;
use crate::gpu::{BatchConfig, GpuBatchSssp};

/// Sources timed per candidate (or fewer when the batch or the graph is smaller).
pub const SAMPLE: usize = 256;

/// The launch settings for `graph` on `ctx`: tuned on first use, then cached.
pub fn batch_config(ctx: &GpuContext, graph: &Csr<u32>) -> Result<BatchConfig, SsspError> {
    if ctx.is_software() {
        return Ok(BatchConfig::for_graph(ctx, graph));
    }
    measured_batch_config(ctx, graph)
}

/// [`batch_config`] measured on any adapter, software ones included (tests, or a caller who wants
/// the measurement anyway); cached like it.
pub fn measured_batch_config(ctx: &GpuContext, graph: &Csr<u32>) -> Result<BatchConfig, SsspError> {
    let base = BatchConfig::for_graph(ctx, graph);
    let mean = crate::gpu::mean_weight(graph);
    let mut candidates = vec![LaunchConfig {
        workgroup_size: base.workgroup_size,
        batch: base.slots as u32,
        param: base.delta,
    }];
    for wg in [128u32, 256, 512] {
        for factor in [4.0, 8.0, 16.0] {
            let c = LaunchConfig {
                workgroup_size: wg,
                batch: base.slots as u32,
                param: ((factor * mean) as u32).max(1),
            };
            if !candidates.contains(&c) && wg <= ctx.limits.max_compute_invocations_per_workgroup {
                candidates.push(c);
            }
        }
    }
    let n = graph.num_vertices();
    let sample_len = SAMPLE.min(base.slots).min(n as usize);
    // Evenly spread sample sources: trees of different sizes, the same for every candidate.
    let sample: Vec<u32> =
        (0..sample_len as u64).map(|i| (i * n as u64 / sample_len.max(1) as u64) as u32).collect();
    let problem = format!("n={n} m={} mean={mean:.3} slots={}", graph.num_arcs(), base.slots);
    let best = tuned((&adapter_key(ctx), "sssp_batch", &problem), &candidates, |c| {
        let config = BatchConfig {
            workgroup_size: c.workgroup_size,
            slots: sample_len.max(1),
            delta: c.param,
            ..base
        };
        let mut solver = GpuBatchSssp::new(ctx, graph, config)?;
        solver.run(&sample[..sample_len.min(8)])?; // warm-up: pipeline and first-touch costs
        let t = Instant::now();
        solver.run(&sample)?;
        Ok::<f64, SsspError>(t.elapsed().as_secs_f64() / sample_len.max(1) as f64)
    })?;
    Ok(BatchConfig { workgroup_size: best.workgroup_size, delta: best.param, ..base })
}
