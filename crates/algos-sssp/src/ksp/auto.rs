//! Where a K-shortest-paths batch runs under `Backend::Auto`: the faster of the CPU and this machine's
//! GPU as predicted from the batch (queries, K, vertices) and the measured constants of both
//! ([`gpu_runtime::profile`]), never from an adapter's name.
//!
//! The models, fitted on the H200 host (16 threads) on NY (264,346 vertices) at 100–3,000 queries and
//! K = 10 and 100 (docs/benchmarks.md, "Auto: predicted and measured"): the targets' distances cost
//! both backends the same (a PHAST sweep or searches on the CPU); a query then costs the CPU a
//! deviation search per path, proportional to the vertices and to K^0.37 (later paths share their
//! prefixes), at its reference rate; the GPU ranks a query's K paths in rounds whose cost grows
//! almost linearly in K (K^0.94), at a rate proportional to its memory bandwidth, after its start.
//!
//! ```
//! use urbanflow::sssp::ksp::auto::{predict_cpu, predict_gpu, targets_s};
//! use urbanflow::gpu::profile::{CpuProfile, DeviceProfile};
//! let (cpu, gpu) = (CpuProfile::synthetic(16), DeviceProfile::synthetic_discrete());
//! let ny = 264_346;
//! let t = targets_s(ny, &cpu);
//! assert!(predict_gpu(3_000, 10, ny, t, &gpu, false).seconds < predict_cpu(3_000, 10, ny, &cpu).seconds);
//! assert!(predict_gpu(30, 10, ny, t, &gpu, false).seconds > predict_cpu(30, 10, ny, &cpu).seconds);
//! ```

use gpu_runtime::predict::Estimate;
use gpu_runtime::profile::{CpuProfile, DeviceProfile};

/// Seconds per vertex of the targets' distances on the fit host (both backends; NY: 0.3 s), scaled by
/// [`CpuProfile::slowdown`].
pub const TARGETS_S_PER_VERTEX: f64 = 1.13e-6;
/// CPU: seconds per vertex per query at K = 1 on the fit host, all threads (NY, K = 10: 0.72 ms a
/// query), scaled by [`CpuProfile::slowdown`].
pub const CPU_S_PER_VERTEX_QUERY: f64 = 1.15e-9;
/// CPU: the exponent of K in a query's cost.
pub const CPU_K_EXPONENT: f64 = 0.37;
/// GPU: pipelines compiled by a batch.
pub const GPU_PIPELINES: u32 = 6;
/// GPU: bytes of device bandwidth per vertex per query, at K = 1 (NY, K = 10: 0.12 ms a query at 2.8 TB/s).
pub const GPU_BYTES_PER_VERTEX_QUERY: f64 = 150.0;
/// GPU: the exponent of K in a query's cost.
pub const GPU_K_EXPONENT: f64 = 0.94;

/// The targets' distances, on the CPU's threads for either backend.
pub fn targets_s(vertices: usize, cpu: &CpuProfile) -> f64 {
    TARGETS_S_PER_VERTEX * vertices as f64 * cpu.slowdown()
}

/// The CPU's predicted seconds for `queries` queries of `k` paths on `vertices` vertices.
pub fn predict_cpu(queries: usize, k: usize, vertices: usize, cpu: &CpuProfile) -> Estimate {
    let targets = targets_s(vertices, cpu);
    let per =
        CPU_S_PER_VERTEX_QUERY * vertices as f64 * (k.max(1) as f64).powf(CPU_K_EXPONENT) * cpu.slowdown();
    Estimate::new(
        targets + queries as f64 * per,
        format!("targets {targets:.2} s + {queries} × {:.2} ms on {} threads", per * 1e3, cpu.threads),
    )
}

/// The GPU's predicted seconds, start included unless `warm`, the targets' distances (`targets_s`,
/// on the CPU) included.
pub fn predict_gpu(
    queries: usize,
    k: usize,
    vertices: usize,
    targets_s: f64,
    d: &DeviceProfile,
    warm: bool,
) -> Estimate {
    let start = d.start_s(warm, GPU_PIPELINES);
    let per = GPU_BYTES_PER_VERTEX_QUERY * vertices as f64 * (k.max(1) as f64).powf(GPU_K_EXPONENT)
        / d.device_bytes_per_s;
    Estimate::new(
        start + targets_s + queries as f64 * per,
        format!("{start:.2} s start + targets {targets_s:.2} s + {queries} × {:.3} ms", per * 1e3),
    )
}

/// Auto's choice for a batch on this machine, with both predictions.
pub fn choose(queries: usize, k: usize, vertices: usize) -> gpu_runtime::predict::Choice {
    let cpu = gpu_runtime::profile::cpu_profile(rayon::current_num_threads());
    let targets = targets_s(vertices, &cpu);
    gpu_runtime::predict::auto_choice(predict_cpu(queries, k, vertices, &cpu), |d, warm| {
        predict_gpu(queries, k, vertices, targets, d, warm)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_runtime::predict::{Verdict, choose};

    #[test]
    fn batches_on_synthetic_machines() {
        let cpu = CpuProfile::synthetic(16);
        let ny = 264_346;
        let on = |q: usize, k: usize, d: &DeviceProfile| {
            let t = targets_s(ny, &cpu);
            choose(predict_cpu(q, k, ny, &cpu), Ok(predict_gpu(q, k, ny, t, d, false))).verdict
        };
        assert_ne!(on(3_000, 10, &DeviceProfile::synthetic_discrete()), Verdict::Cpu);
        assert_eq!(on(100, 10, &DeviceProfile::synthetic_discrete()), Verdict::Cpu);
        assert_eq!(on(3_000, 10, &DeviceProfile::synthetic_integrated()), Verdict::Cpu);
        assert_eq!(on(3_000, 10, &DeviceProfile::synthetic_software()), Verdict::Cpu);
        // K grows the GPU's rounds faster than the CPU's deviations.
        let ratio = |k| {
            let t = targets_s(ny, &cpu);
            predict_gpu(1_000, k, ny, t, &DeviceProfile::synthetic_discrete(), true).seconds
                / predict_cpu(1_000, k, ny, &cpu).seconds
        };
        assert!(ratio(100) > ratio(10));
    }
}
