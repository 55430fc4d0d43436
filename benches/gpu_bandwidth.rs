//! Bandwidth probe: device-to-device copy through `copy_buffer_to_buffer` and through the WGSL copy
//! kernel, for several sizes, on the chosen adapter. One JSON object per line on stdout.
//!
//! ```text
//! cargo bench --bench gpu_bandwidth -- [--sizes-mib 16,64,256,1024] [--reps 20]
//! ```
//! GB/s = 2 × bytes / time (each byte is read once and written once), 1 GB = 10^9 B. Kernel times come
//! from GPU timestamps when available; wall times include submission and the wait.
//!
//! `--readback` instead measures the path streamed rows take to the host (issue 23): device buffer →
//! `MAP_READ` staging buffer (copy, map, wait: GB/s = bytes / time), then reading the mapped bytes on one
//! thread and on all cores; on every GPU alone, then on all GPUs at once (one thread each).

use std::time::Instant;

use gpu_runtime::{GpuBuffer, GpuContext, GpuTimer, ReadbackRing, Recording, copy};

fn arg<T: std::str::FromStr>(name: &str) -> Option<T> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok())
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    xs[xs.len() / 2]
}

fn main() {
    let sizes: Vec<u64> = arg::<String>("--sizes-mib")
        .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![16, 64, 256, 1024]);
    let reps: usize = arg("--reps").unwrap_or(20);
    if std::env::args().any(|a| a == "--readback") {
        readback(&sizes, reps);
        return;
    }
    let ctx = match GpuContext::new() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("SKIP gpu_bandwidth: {e}");
            return;
        }
    };
    eprintln!("adapter: {}", ctx.describe());
    println!(
        "{{\"adapter\":\"{}\",\"backend\":\"{:?}\",\"driver\":\"{} {}\",\"max_storage_binding\":{},\"max_buffer\":{},\"features\":\"{}\"}}",
        ctx.info.name,
        ctx.info.backend,
        ctx.info.driver,
        ctx.info.driver_info,
        ctx.limits.max_storage_buffer_binding_size,
        ctx.limits.max_buffer_size,
        ctx.features().names().join(",")
    );
    for mib in sizes {
        let words = (mib << 20) as usize / 4;
        if (words * 4) as u64 > ctx.limits.max_storage_buffer_binding_size {
            eprintln!("skip {mib} MiB: above the storage binding limit");
            continue;
        }
        let data: Vec<u32> = (0..words as u32).collect();
        let src = GpuBuffer::from_slice(&ctx, "src", &data).unwrap();
        let dst = GpuBuffer::<u32>::zeroed(&ctx, "dst", words).unwrap();
        for method in ["copy_buffer_to_buffer", "wgsl_copy_kernel"] {
            let mut wall = Vec::new();
            let mut kernel = Vec::new();
            for rep in 0..reps + 2 {
                let mut timer = GpuTimer::new(&ctx, 1);
                let mut rec = Recording::new(method);
                if method == "copy_buffer_to_buffer" {
                    // Timestamps need a pass; an empty pass brackets nothing, so report wall time only.
                    rec.copy(src.buffer(), 0, dst.buffer(), 0, (words * 4) as u64);
                } else {
                    rec.timed_pass(&mut timer);
                    copy::record_copy(&ctx, &mut rec, &src, &dst, words).unwrap();
                    rec.resolve_timer(&timer);
                }
                let t = Instant::now();
                ctx.submit(&rec).unwrap();
                ctx.wait().unwrap();
                let w = t.elapsed().as_secs_f64();
                if rep >= 2 {
                    wall.push(w);
                    if let Some(ns) = timer.read_ns(&ctx).unwrap().and_then(|v| v.first().copied()) {
                        kernel.push(ns * 1e-9);
                    }
                }
            }
            assert_eq!(dst.read_range(&ctx, words - 1, 1).unwrap()[0], words as u32 - 1);
            let bytes = 2.0 * (words * 4) as f64;
            let wall_s = median(&mut wall);
            let kernel_s = (!kernel.is_empty()).then(|| median(&mut kernel));
            println!(
                "{{\"method\":\"{method}\",\"mib\":{mib},\"reps\":{reps},\"wall_ms\":{:.4},\"wall_gbps\":{:.1},\"kernel_ms\":{},\"kernel_gbps\":{}}}",
                wall_s * 1e3,
                bytes / wall_s / 1e9,
                kernel_s.map_or("null".into(), |k| format!("{:.4}", k * 1e3)),
                kernel_s.map_or("null".into(), |k| format!("{:.1}", bytes / k / 1e9)),
            );
        }
    }
}

/// One device's readback loop: `reps` times copy `mib` MiB to a staging buffer, map and wait, then read
/// it (`threads` 1 = one thread, else all cores). Returns (transfer seconds, read seconds), medians.
fn readback_loop(ctx: &GpuContext, mib: u64, reps: usize, parallel: bool) -> (f64, f64) {
    use rayon::prelude::*;
    let words = (mib << 20) as usize / 4;
    let data: Vec<u32> = (0..words as u32).collect();
    let src = GpuBuffer::from_slice(ctx, "src", &data).unwrap();
    let mut readback = ReadbackRing::new(ctx, "bandwidth probe");
    let (mut transfer, mut read) = (Vec::new(), Vec::new());
    for rep in 0..reps + 2 {
        let t = Instant::now();
        let copy = readback.start(src.buffer(), (words * 4) as u64).unwrap();
        let (t_transfer, t_read, sum) = readback
            .read(copy, |rows: &[u32]| {
                let t_transfer = t.elapsed().as_secs_f64();
                let t = Instant::now();
                let sum: u64 = if parallel {
                    rows.par_chunks(1 << 16).map(|c| c.iter().map(|&x| x as u64).sum::<u64>()).sum()
                } else {
                    rows.iter().map(|&x| x as u64).sum()
                };
                (t_transfer, t.elapsed().as_secs_f64(), sum)
            })
            .unwrap();
        assert_eq!(sum, (words as u64) * (words as u64 - 1) / 2);
        if rep >= 2 {
            transfer.push(t_transfer);
            read.push(t_read);
        }
    }
    (median(&mut transfer), median(&mut read))
}

fn readback(sizes: &[u64], reps: usize) {
    let devices = gpu_runtime::devices::open(&Default::default(), &Default::default()).unwrap_or_default();
    if devices.is_empty() {
        eprintln!("SKIP readback: no hardware GPU");
        return;
    }
    for &mib in sizes {
        let gb = (mib << 20) as f64 / 1e9;
        for (i, ctx) in devices.iter().enumerate() {
            let (t1, r1) = readback_loop(ctx, mib, reps, false);
            let (t2, r2) = readback_loop(ctx, mib, reps, true);
            println!(
                "{{\"readback\":\"{}\",\"device\":{i},\"mib\":{mib},\"transfer_gbps\":{:.2},\"read_1_thread_gbps\":{:.2},\"read_all_cores_gbps\":{:.2},\"transfer_gbps_2\":{:.2}}}",
                ctx.info.name,
                gb / t1,
                gb / r1,
                gb / r2,
                gb / t2
            );
        }
        if devices.len() > 1 {
            let t = Instant::now();
            let per: Vec<(f64, f64)> = std::thread::scope(|s| {
                let h: Vec<_> =
                    devices.iter().map(|c| s.spawn(move || readback_loop(c, mib, reps, true))).collect();
                h.into_iter().map(|h| h.join().unwrap()).collect()
            });
            let wall = t.elapsed().as_secs_f64();
            let transfer: Vec<f64> = per.iter().map(|p| gb / p.0).collect();
            let read: Vec<f64> = per.iter().map(|p| gb / p.1).collect();
            println!(
                "{{\"readback_all\":{},\"mib\":{mib},\"transfer_gbps_each\":{transfer:?},\"read_all_cores_gbps_each\":{read:?},\"wall_s\":{wall:.3}}}",
                devices.len()
            );
        }
    }
}
