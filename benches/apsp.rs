//! Blocked Floyd–Warshall, GPU vs the CPU twin, on road-like grids with random weights: one JSON line
//! per size.
//!
//! ```text
//! cargo bench --bench apsp -- --sizes 4096,8192,16384 --cpu-max 8192 [--next-hops]
//! ```
//! Sizes are grid graphs (64 × 64, 128 × 64, 128 × 128 ...: n = the size), weights 1..=1000 from a
//! fixed seed. The CPU runs only up to `--cpu-max` vertices (n³ work); where both run, their distance
//! matrices are compared.

use std::time::Instant;

use urbanflow::gpu::{Backend, GpuContext};
use urbanflow::graph::rng::SplitMix64;
use urbanflow::graph::{Csr, GraphBuilder};
use urbanflow::sssp::floyd::floyd_warshall;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

/// A `w × h` grid, both directions, weights from the seed.
fn grid(n: usize) -> Csr<u32> {
    let w = (n as f64).sqrt().ceil() as usize;
    let w = (w..=n).find(|&w| n.is_multiple_of(w)).unwrap_or(n);
    let h = n / w;
    let mut rng = SplitMix64::new(n as u64);
    let mut b = GraphBuilder::new(n as u32);
    for y in 0..h {
        for x in 0..w {
            let v = (y * w + x) as u32;
            if x + 1 < w {
                b.add_edge(v, v + 1, 1 + rng.below(1000) as u32);
            }
            if y + 1 < h {
                b.add_edge(v, v + w as u32, 1 + rng.below(1000) as u32);
            }
        }
    }
    b.build().unwrap().0
}

fn main() {
    let sizes: Vec<usize> = arg("--sizes")
        .unwrap_or("1024,2048".into())
        .split(',')
        .map(|s| s.trim().parse().expect("--sizes: numbers"))
        .collect();
    let cpu_max: usize = arg("--cpu-max").map_or(4096, |s| s.parse().expect("--cpu-max: a number"));
    let next = std::env::args().any(|a| a == "--next-hops");
    let ctx = GpuContext::shared();
    for n in sizes {
        let g = grid(n);
        let mut row = format!("{{\"n\":{n},\"arcs\":{},\"next_hops\":{next}", g.num_arcs());
        let mut gpu_dist = None;
        if let Some(ctx) = ctx {
            // Warm-up (pipeline compilation) on a small graph.
            floyd_warshall(&grid(64), Backend::Gpu(ctx), next).unwrap();
            let t = Instant::now();
            let r = floyd_warshall(&g, Backend::Gpu(ctx), next).unwrap();
            let s = t.elapsed().as_secs_f64();
            row += &format!(
                ",\"gpu\":{:?},\"gpu_s\":{s:.4},\"gpu_gcups\":{:.2}",
                ctx.info.name,
                (n as f64).powi(3) / s / 1e9
            );
            gpu_dist = Some(r.dist);
        }
        if n <= cpu_max {
            let t = Instant::now();
            let r = floyd_warshall(&g, Backend::Cpu, next).unwrap();
            let s = t.elapsed().as_secs_f64();
            row += &format!(
                ",\"cpu_threads\":{},\"cpu_s\":{s:.4},\"cpu_gcups\":{:.2}",
                rayon::current_num_threads(),
                (n as f64).powi(3) / s / 1e9
            );
            if let Some(d) = &gpu_dist {
                row += &format!(",\"equal\":{}", *d == r.dist);
            }
        }
        let sum: u64 = gpu_dist.iter().flatten().map(|&d| d as u64).sum();
        println!("{row},\"checksum\":{sum}}}");
    }
}
