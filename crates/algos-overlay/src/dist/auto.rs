//! Where DIST runs under `Backend::Auto`: the faster of the CPU and this machine's GPU as predicted
//! from the instance's size and the measured constants of both ([`gpu_runtime::profile`]), never from
//! an adapter's name.
//!
//! The models, fitted on the H200 host (16 threads) at n = 100–2,000 (docs/benchmarks.md, "Auto:
//! predicted and measured"): per external iteration the CPU pays a rayon synchronisation and the
//! edges' inner steps at a rate proportional to its reference rate; the GPU pays its start (device
//! unless it exists, [`GPU_PIPELINES`] pipelines), one dispatch per external iteration and a round
//! trip per certificate, and the edges' steps at a rate proportional to its memory bandwidth.
//!
//! ```
//! use urbanflow::overlay::dist::auto::{predict_cpu, predict_gpu};
//! use urbanflow::overlay::DistParams;
//! use urbanflow::gpu::profile::{CpuProfile, DeviceProfile};
//! let (cpu, gpu, p) = (CpuProfile::synthetic(16), DeviceProfile::synthetic_discrete(), DistParams::default());
//! // n = 2,000 (1.4 M edges): the GPU; n = 100 (3,916 edges): the CPU.
//! assert!(predict_gpu(1_380_291, &p, &gpu, false).seconds < predict_cpu(1_380_291, &p, &cpu).seconds);
//! assert!(predict_gpu(3_916, &p, &gpu, false).seconds > predict_cpu(3_916, &p, &cpu).seconds);
//! ```

use gpu_runtime::predict::{Choice, Estimate};
use gpu_runtime::profile::{CpuProfile, DeviceProfile};

use super::DistParams;

/// CPU: one rayon synchronisation per external iteration.
pub const CPU_SYNC_S: f64 = 25e-6;
/// CPU: seconds of an edge step (an edge in one external iteration at 20 inner steps) on the fit host,
/// all threads (n = 2,000: 1.38 M edges × 500 iterations in 2.8 s), scaled by [`CpuProfile::slowdown`].
pub const CPU_EDGE_STEP_S: f64 = 4.1e-9;
/// GPU: pipelines compiled by an engine.
pub const GPU_PIPELINES: u32 = 6;
/// GPU: bytes of device bandwidth one edge step costs (n = 1,000 → 2,000: 0.57 s more for 5.2 × 10⁸
/// more edge steps at 2.8 TB/s).
pub const GPU_BYTES_PER_EDGE_STEP: f64 = 3090.0;

/// Edge steps of a run: edges × external iterations, scaled by the inner steps (20 measured).
fn edge_steps(edges: usize, p: &DistParams) -> f64 {
    edges as f64 * f64::from(p.ext_iters) * f64::from(p.inner_iters.max(1)) / 20.0
}

/// The CPU's predicted seconds for `edges` edges.
pub fn predict_cpu(edges: usize, p: &DistParams, cpu: &CpuProfile) -> Estimate {
    let sync = f64::from(p.ext_iters) * CPU_SYNC_S;
    let work = edge_steps(edges, p) * CPU_EDGE_STEP_S * cpu.slowdown();
    Estimate::new(
        sync + work,
        format!("{} iterations of {edges} edges on {} threads", p.ext_iters, cpu.threads),
    )
}

/// The GPU's predicted seconds, start included unless `warm`.
pub fn predict_gpu(edges: usize, p: &DistParams, d: &DeviceProfile, warm: bool) -> Estimate {
    let start = d.start_s(warm, GPU_PIPELINES);
    let trips = f64::from(p.ext_iters) * d.dispatch_s
        + f64::from(p.ext_iters.div_ceil(p.check_every.max(1))) * d.submit_s;
    let work = edge_steps(edges, p) * GPU_BYTES_PER_EDGE_STEP / d.device_bytes_per_s;
    Estimate::new(
        start + trips + work,
        format!("{start:.2} s start + dispatches {trips:.3} s + edges {work:.3} s"),
    )
}

/// Auto's choice for an instance of `edges` edges on this machine, with both predictions.
pub fn choose(edges: usize, p: &DistParams) -> Choice {
    let cpu = gpu_runtime::profile::cpu_profile(rayon::current_num_threads());
    gpu_runtime::predict::auto_choice(predict_cpu(edges, p, &cpu), |d, warm| predict_gpu(edges, p, d, warm))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_runtime::predict::{Verdict, choose};

    #[test]
    fn dist_on_synthetic_machines() {
        let (p, cpu) = (DistParams::default(), CpuProfile::synthetic(16));
        let on = |edges: usize, d: &DeviceProfile, warm: bool| {
            choose(predict_cpu(edges, &p, &cpu), Ok(predict_gpu(edges, &p, d, warm))).verdict
        };
        let big = 1_380_291;
        assert_ne!(on(big, &DeviceProfile::synthetic_discrete(), false), Verdict::Cpu);
        assert_eq!(on(big, &DeviceProfile::synthetic_software(), false), Verdict::Cpu);
        assert_eq!(on(3_916, &DeviceProfile::synthetic_discrete(), false), Verdict::Cpu);
        // Once the device exists its start is not counted: a smaller instance pays.
        let cold = predict_gpu(33_153, &p, &DeviceProfile::synthetic_discrete(), false).seconds;
        let warm = predict_gpu(33_153, &p, &DeviceProfile::synthetic_discrete(), true).seconds;
        assert!(warm < cold - 0.1, "{warm} vs {cold}");
    }
}
