//! IPF on the CPU (rayon, every core) and on the GPU (`ipf_gpu`: the seed uploaded once, each pass on
//! the device) side by side in one process, on the same seeded matrices. One JSON object per case.
//!
//! ```text
//! cargo bench --bench ipf -- [--zones 5000,20000] [--reps 3]
//! ```
//! Two cases per size: `easy` (uniform seed with 20 % zero cells, totals reshaped by U(0.5, 1.5): a few
//! iterations) and `hard` (log-normal seed, σ = 2, totals reshaped by U(0.2, 5): many iterations), both to
//! 1e-12. `setup_s` is the device's creation (once); `gpu_s` and `cpu_s` are whole calls (best of
//! `--reps`; each owns its copy of the seed, made outside the timing), the GPU's upload included;
//! `*_one_iteration_s` the same calls stopped after one iteration (the fixed costs: checks, upload,
//! the final scaling).

use std::time::Instant;

use urbanflow::gpu::GpuContext;
use urbanflow::graph::rng::SplitMix64;
use urbanflow::tap::matrix::{IpfOptions, ipf_gpu, ipf_owned};

#[allow(dead_code)]
mod common;
use common::arg;

fn case(n: usize, hard: bool) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut rng = SplitMix64::new(n as u64 + u64::from(hard));
    let mut unit = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let seed: Vec<f64> = (0..n * n)
        .map(|_| {
            if hard {
                // exp(N(0, 2²)) by Box–Muller.
                let (u, v) = (unit().max(1e-300), unit());
                (2.0 * (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()).exp()
            } else if unit() < 0.2 {
                0.0
            } else {
                unit() * 100.0
            }
        })
        .collect();
    let (lo, hi) = if hard { (0.2, 5.0) } else { (0.5, 1.5) };
    let rows: Vec<f64> = seed.chunks(n).map(|r| r.iter().sum::<f64>() * (lo + (hi - lo) * unit())).collect();
    let mut cols: Vec<f64> = vec![0.0; n];
    for r in seed.chunks(n) {
        cols.iter_mut().zip(r).for_each(|(c, x)| *c += x);
    }
    cols.iter_mut().for_each(|c| *c *= lo + (hi - lo) * unit());
    let scale = rows.iter().sum::<f64>() / cols.iter().sum::<f64>();
    cols.iter_mut().for_each(|c| *c *= scale);
    (seed, rows, cols)
}

fn main() {
    let zones: Vec<usize> =
        arg("--zones").unwrap_or("2000,5000".into()).split(',').filter_map(|z| z.parse().ok()).collect();
    let reps: usize = arg("--reps").and_then(|r| r.parse().ok()).unwrap_or(3);
    let t = Instant::now();
    let ctx = GpuContext::new().expect("a GPU adapter");
    let setup_s = t.elapsed().as_secs_f64();
    let opts = IpfOptions { tolerance: 1e-12, max_iterations: 100_000, scale_columns: false };
    for &n in &zones {
        for hard in [false, true] {
            let (seed, rows, cols) = case(n, hard);
            let best = |f: &mut dyn FnMut() -> (f64, urbanflow::tap::matrix::Balanced)| {
                (0..reps).map(|_| f()).min_by(|a, b| a.0.total_cmp(&b.0)).expect("one rep")
            };
            // Both are given the seed to own (copied outside the timing), as `urbanflow.ipf` does.
            let (cpu_s, cpu) = best(&mut || {
                let s = seed.clone();
                let t = Instant::now();
                let b = ipf_owned(s, &rows, &cols, &opts).expect("cpu ipf");
                (t.elapsed().as_secs_f64(), b)
            });
            let one = IpfOptions { max_iterations: 1, ..opts };
            let (one_cpu_s, _) = best(&mut || {
                let s = seed.clone();
                let t = Instant::now();
                let b = ipf_owned(s, &rows, &cols, &one).expect("cpu ipf");
                (t.elapsed().as_secs_f64(), b)
            });
            let (one_gpu_s, _) = best(&mut || {
                let s = seed.clone();
                let t = Instant::now();
                let b = ipf_gpu(&ctx, s, &rows, &cols, &one, None).expect("gpu ipf");
                (t.elapsed().as_secs_f64(), b)
            });
            let (gpu_s, gpu) = best(&mut || {
                let s = seed.clone();
                let t = Instant::now();
                let b = ipf_gpu(&ctx, s, &rows, &cols, &opts, None).expect("gpu ipf");
                (t.elapsed().as_secs_f64(), b)
            });
            let top = cpu.matrix.iter().fold(0.0f64, |m, x| m.max(*x));
            let diff =
                gpu.matrix.iter().zip(&cpu.matrix).fold(0.0f64, |m, (a, b)| m.max((a - b).abs())) / top;
            println!(
                "{{\"adapter\":\"{}\",\"zones\":{n},\"case\":\"{}\",\"threads\":{},\"cpu_s\":{cpu_s:.4},\"cpu_iterations\":{},\"gpu_s\":{gpu_s:.4},\"gpu_iterations\":{},\"cpu_one_iteration_s\":{one_cpu_s:.4},\"gpu_one_iteration_s\":{one_gpu_s:.4},\"setup_s\":{setup_s:.3},\"ratio\":{:.2},\"max_relative_difference\":{diff:.2e}}}",
                ctx.info.name,
                if hard { "hard" } else { "easy" },
                rayon::current_num_threads(),
                cpu.iterations,
                gpu.iterations,
                cpu_s / gpu_s
            );
        }
    }
}
