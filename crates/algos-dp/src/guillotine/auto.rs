//! Where [`super::solve_with`]'s automatic backend runs: the faster of the CPU and this machine's GPU
//! as predicted from the instance's size and the measured constants of both ([`gpu_runtime::profile`]),
//! never from an adapter's name.
//!
//! The models, fitted on the H200 host (16 threads) over gcut9–gcut13 (docs/benchmarks.md, "Auto:
//! predicted and measured"): the tiled wavefront costs a synchronisation per anti-diagonal of normal
//! positions (`xs + ys` of them) plus the candidate cuts at a rate proportional to the CPU's reference
//! rate; the GPU pays its start (device unless it exists, [`GPU_PIPELINES`] pipelines), three
//! dispatches per anti-diagonal, and the candidates at a rate proportional to its memory bandwidth.
//!
//! ```
//! use urbanflow::dp::guillotine::auto::{predict_cpu, predict_gpu};
//! use urbanflow::gpu::profile::{CpuProfile, DeviceProfile};
//! let cpu = CpuProfile::synthetic(16);
//! let gpu = DeviceProfile::synthetic_discrete();
//! // gcut13: 1,821 × 2,425 normal positions, 2.1 × 10⁹ candidate cuts: the GPU.
//! assert!(predict_gpu(4_246, 2_098_219_460, &gpu, false).seconds < predict_cpu(4_246, 2_098_219_460, &cpu).seconds);
//! // gcut12: 3.7 × 10⁶ candidates, the start alone outweighs the work: the CPU.
//! assert!(predict_gpu(761, 3_726_143, &gpu, false).seconds > predict_cpu(761, 3_726_143, &cpu).seconds);
//! ```

use gpu_runtime::predict::Estimate;
use gpu_runtime::profile::{CpuProfile, DeviceProfile};

/// CPU: one synchronisation of the tiled wavefront per anti-diagonal (rayon's join on 16 threads).
pub const CPU_SYNC_S: f64 = 30e-6;
/// CPU: candidate cuts a second on the fit host, all threads (gcut13: 2.1 × 10⁹ candidates in 0.55 s
/// of work), scaled by [`CpuProfile::slowdown`].
pub const CPU_CANDIDATES_PER_S: f64 = 3.84e9;
/// GPU: pipelines compiled by a solve.
pub const GPU_PIPELINES: u32 = 6;
/// GPU: dispatches per anti-diagonal.
pub const GPU_DISPATCHES_PER_DIAGONAL: f64 = 3.0;
/// GPU: bytes of device bandwidth one candidate cut costs (gcut13: 0.22 s of candidates at 2.8 TB/s).
pub const GPU_BYTES_PER_CANDIDATE: f64 = 290.0;

/// The CPU's predicted seconds for `diagonals` anti-diagonals (`xs + ys`) and `candidates` cuts.
pub fn predict_cpu(diagonals: usize, candidates: u64, cpu: &CpuProfile) -> Estimate {
    let sync = diagonals as f64 * CPU_SYNC_S;
    let work = candidates as f64 / CPU_CANDIDATES_PER_S * cpu.slowdown();
    Estimate::new(
        sync + work,
        format!("{diagonals} diagonals × 30 µs + {candidates} candidates on {} threads", cpu.threads),
    )
}

/// The GPU's predicted seconds, start included unless `warm`.
pub fn predict_gpu(diagonals: usize, candidates: u64, p: &DeviceProfile, warm: bool) -> Estimate {
    let start = p.start_s(warm, GPU_PIPELINES);
    let launches = diagonals as f64 * GPU_DISPATCHES_PER_DIAGONAL * p.dispatch_s + p.submit_s;
    let work = candidates as f64 * GPU_BYTES_PER_CANDIDATE / p.device_bytes_per_s;
    Estimate::new(
        start + launches + work,
        format!(
            "{:.2} s start + {diagonals} diagonals' dispatches {:.3} s + candidates {:.3} s",
            start, launches, work
        ),
    )
}

/// Auto's choice for `grid` on this machine, with both predictions (what [`super::solve_with`] does
/// for [`gpu_runtime::Backend::Auto`]; the examples print its `why`).
pub fn choose(grid: &super::Grid) -> gpu_runtime::predict::Choice {
    let diagonals = grid.xs.len() + grid.ys.len();
    let cpu = gpu_runtime::profile::cpu_profile(rayon::current_num_threads());
    gpu_runtime::predict::auto_choice(predict_cpu(diagonals, grid.candidates(), &cpu), |p, warm| {
        predict_gpu(diagonals, grid.candidates(), p, warm)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_runtime::predict::{Verdict, choose};

    /// gcut13's size on four machines: a fast discrete GPU takes it, a slow integrated one and a
    /// software adapter do not, and without a GPU the CPU runs with the reason.
    #[test]
    fn gcut13_on_synthetic_machines() {
        let (d, c) = (4_246, 2_098_219_460);
        let cpu = CpuProfile::synthetic(16);
        let on = |p: &DeviceProfile| choose(predict_cpu(d, c, &cpu), Ok(predict_gpu(d, c, p, false))).verdict;
        assert_ne!(on(&DeviceProfile::synthetic_discrete()), Verdict::Cpu);
        assert_eq!(on(&DeviceProfile::synthetic_integrated()), Verdict::Cpu);
        assert_eq!(on(&DeviceProfile::synthetic_software()), Verdict::Cpu);
        let none = choose(predict_cpu(d, c, &cpu), Err("no GPU adapter found".into()));
        assert!(none.verdict == Verdict::Cpu && none.why.contains("no GPU adapter"), "{}", none.why);
        // A CPU ten times slower than the fit host's makes even the integrated GPU worth it.
        let slow = CpuProfile { ops_per_s_all: cpu.ops_per_s_all / 10.0, ..cpu };
        let v = choose(
            predict_cpu(d, c, &slow),
            Ok(predict_gpu(d, c, &DeviceProfile::synthetic_integrated(), false)),
        );
        assert_ne!(v.verdict, Verdict::Cpu, "{}", v.why);
    }
}
