//! Reduction benchmark: every GPU variant side by side with a device copy of the same size, in one run,
//! plus rayon vs a sequential iterator on the CPU. One JSON object per line on stdout.
//!
//! ```text
//! cargo bench --bench reduce -- --gpu [--sizes 20,22,24,26,28] [--reps 20] [--sweep]
//! cargo bench --bench reduce -- --cpu [--sizes 20,22,24,26]
//! ```
//! GB/s = bytes read (reduction) or read + written (copy) per second, 1 GB = 10^9 B. `kernel_ms` comes
//! from GPU timestamps around the pass; `wall_ms` adds submission and the wait.

use std::time::Instant;

use rayon::prelude::*;
use urbanflow::gpu::{GpuBuffer, GpuContext, GpuTimer, Recording, copy};
use urbanflow::reduce::{GpuReducer, Operation, ReduceConfig, SubgroupMode, Variant};

mod common;
use common::{arg, flag, median};

fn sizes(default: &str) -> Vec<usize> {
    let mut out: Vec<usize> = arg("--sizes")
        .unwrap_or(default.into())
        .split(',')
        .filter_map(|k| k.parse::<u32>().ok())
        .map(|k| 1usize << k)
        .collect();
    if flag("--seed-size") {
        out.insert(0, 5_533_214);
    }
    out
}

/// Median kernel and wall seconds of `reps` runs of `record`.
fn time_gpu(ctx: &GpuContext, reps: usize, mut record: impl FnMut(&mut Recording)) -> (f64, f64) {
    let mut kernel = Vec::new();
    let mut wall = Vec::new();
    for rep in 0..reps + 5 {
        let mut timer = GpuTimer::new(ctx, 1);
        let mut rec = Recording::new("reduce bench");
        rec.timed_pass(&mut timer);
        record(&mut rec);
        rec.resolve_timer(&timer);
        let t = Instant::now();
        ctx.submit(&rec).unwrap();
        ctx.wait().unwrap();
        let w = t.elapsed().as_secs_f64();
        if rep >= 5 {
            wall.push(w);
            if let Some(ns) = timer.read_ns(ctx).unwrap().and_then(|v| v.first().copied()) {
                kernel.push(ns * 1e-9);
            }
        }
    }
    (if kernel.is_empty() { f64::NAN } else { median(kernel) }, median(wall))
}

fn label(c: &ReduceConfig) -> String {
    let sg = if c.subgroups == SubgroupMode::Off { "" } else { "+subgroup" };
    match c.variant {
        Variant::GridStride { items_per_invocation: f, vec4, workgroups } => format!(
            "gridstride F={f}{} G={} WG={}{sg}",
            if vec4 { " vec4" } else { "" },
            workgroups.map_or(format!("auto<={}", c.max_workgroups), |g| g.to_string()),
            c.workgroup_size
        ),
        Variant::Harris7 => format!("harris7 WG={}{sg}", c.workgroup_size),
        Variant::TwoStage { workgroups } => {
            format!(
                "two-stage G={} WG={}{sg}",
                workgroups.map_or("1024".into(), |g| g.to_string()),
                c.workgroup_size
            )
        }
    }
}

fn gpu() {
    let ctx = match GpuContext::new() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("SKIP reduce bench: {e}");
            return;
        }
    };
    let reps: usize = arg("--reps").and_then(|r| r.parse().ok()).unwrap_or(20);
    eprintln!("adapter: {}", ctx.describe());
    let sg = if ctx.features().subgroup { SubgroupMode::On } else { SubgroupMode::Off };
    let cfg = |variant, wg, subgroups| ReduceConfig {
        workgroup_size: wg,
        variant,
        subgroups,
        ..ReduceConfig::default()
    };
    let mut configs = vec![
        // The seed's F = 1 baseline: one element per invocation per trip, a grid covering the input.
        cfg(
            Variant::GridStride { items_per_invocation: 1, vec4: false, workgroups: Some(u32::MAX) },
            256,
            SubgroupMode::Off,
        ),
        cfg(Variant::Harris7, 256, SubgroupMode::Off),
        cfg(Variant::TwoStage { workgroups: None }, 256, SubgroupMode::Off),
        cfg(
            Variant::GridStride { items_per_invocation: 8, vec4: false, workgroups: None },
            256,
            SubgroupMode::Off,
        ),
        cfg(
            Variant::GridStride { items_per_invocation: 4, vec4: true, workgroups: None },
            256,
            SubgroupMode::Off,
        ),
        cfg(Variant::GridStride { items_per_invocation: 4, vec4: true, workgroups: None }, 256, sg),
        ReduceConfig::tuned(&ctx),
    ];
    if flag("--sweep") {
        for f in [1, 2, 4, 8, 16] {
            for vec4 in [false, true] {
                for wg in [128, 256, 512] {
                    for g in [264, 528, 1056, 2112, 4224] {
                        for s in [SubgroupMode::Off, sg] {
                            configs.push(cfg(
                                Variant::GridStride { items_per_invocation: f, vec4, workgroups: Some(g) },
                                wg,
                                s,
                            ));
                        }
                    }
                }
            }
        }
        configs.dedup();
    }
    for n in sizes("20,22,24,26,28") {
        let data: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 8).collect();
        let want: u32 = data.iter().fold(0u32, |a, &b| a.wrapping_add(b));
        let input = GpuBuffer::from_slice(&ctx, "input", &data).unwrap();
        let dst = GpuBuffer::<u32>::zeroed(&ctx, "copy dst", n).unwrap();
        let out = GpuBuffer::<u32>::zeroed(&ctx, "out", 2).unwrap();
        let bytes = 4.0 * n as f64;
        // The copy runs before and after the variants (clocks settle); the faster one is the ceiling.
        let copy_time = || time_gpu(&ctx, reps, |rec| copy::record_copy(&ctx, rec, &input, &dst, n).unwrap());
        let (ck, cw) = copy_time();
        let copy_gbps = 2.0 * bytes / ck / 1e9;
        println!(
            "{{\"size\":{n},\"mib\":{},\"variant\":\"device copy kernel\",\"kernel_ms\":{:.4},\"wall_ms\":{:.4},\"gbps\":{:.1}}}",
            n >> 18,
            ck * 1e3,
            cw * 1e3,
            copy_gbps
        );
        for c in &configs {
            let mut c = *c;
            if let Variant::GridStride { workgroups: Some(u32::MAX), .. } = c.variant {
                c.variant = Variant::GridStride {
                    items_per_invocation: 1,
                    vec4: false,
                    workgroups: Some(n.div_ceil(256).min(65_535 * 64) as u32),
                };
            }
            let r = GpuReducer::new(&ctx, c).unwrap();
            assert_eq!(r.sum(&input, n).unwrap(), want, "{}", label(&c));
            for (op_name, op) in [("sum_u32", Operation::Sum), ("argmin_u32", Operation::ArgMin)] {
                if op_name == "argmin_u32" && !flag("--argmin") {
                    continue;
                }
                let (k, w) = time_gpu(&ctx, reps, |rec| r.record(rec, &input, n, op, &out, 0).unwrap());
                println!(
                    "{{\"size\":{n},\"mib\":{},\"op\":\"{op_name}\",\"variant\":\"{}\",\"kernel_ms\":{:.4},\"wall_ms\":{:.4},\"gbps\":{:.1},\"of_copy\":{:.3}}}",
                    n >> 18,
                    label(&c),
                    k * 1e3,
                    w * 1e3,
                    bytes / k / 1e9,
                    (bytes / k / 1e9) / copy_gbps
                );
            }
        }
        let (ck2, _) = copy_time();
        println!(
            "{{\"size\":{n},\"mib\":{},\"variant\":\"device copy kernel (after)\",\"kernel_ms\":{:.4},\"gbps\":{:.1}}}",
            n >> 18,
            ck2 * 1e3,
            2.0 * bytes / ck2 / 1e9
        );
    }
}

fn cpu() {
    let reps: usize = arg("--reps").and_then(|r| r.parse().ok()).unwrap_or(10);
    for n in sizes("20,22,24,26") {
        let data: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 8).collect();
        let time = |f: &dyn Fn() -> u32| {
            let mut ts = Vec::new();
            for _ in 0..reps + 2 {
                let t = Instant::now();
                std::hint::black_box(f());
                ts.push(t.elapsed().as_secs_f64());
            }
            median(ts[2..].to_vec())
        };
        let seq = time(&|| data.iter().fold(0u32, |a, &b| a.wrapping_add(b)));
        let ray = time(&|| urbanflow::reduce::cpu::sum(&data));
        let ray_plain = time(&|| data.par_iter().copied().reduce(|| 0, u32::wrapping_add));
        println!(
            "{{\"size\":{n},\"threads\":{},\"sequential_ms\":{:.3},\"algos_reduce_cpu_ms\":{:.3},\"rayon_par_iter_ms\":{:.3},\"speedup_vs_sequential\":{:.2}}}",
            rayon::current_num_threads(),
            seq * 1e3,
            ray * 1e3,
            ray_plain * 1e3,
            seq / ray
        );
    }
}

fn main() {
    if flag("--cpu") {
        cpu();
    } else {
        gpu();
    }
}
