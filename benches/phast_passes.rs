//! GPU PHAST's passes taken apart (issue 62): on one device, per pass, the sweep alone, the gather
//! alone and the copy of the rows into a mapped staging buffer alone (each waited for), then the
//! streamed pipeline as `urbanflow trees` runs it — rows read in place by a no-op sink and by the
//! command's checksum — at readback depths 2 and 3. Tells whether the device overlaps the copy of one
//! pass with the sweep of the next (pipelined time per pass ≈ the larger of the two) or runs them in
//! turn (≈ their sum). One JSON line.
//!
//! ```text
//! cargo bench --bench phast_passes -- --graph ../shared/data/road/weighted/NY.gr.xz --sources 20480
//! ```

#[allow(dead_code)]
mod common;

use std::time::Instant;

use common::arg;
use rayon::prelude::*;
use urbanflow::gpu::GpuContext;
use urbanflow::gpu::readback::ReadbackRing;
use urbanflow::graph::io::{ReadOptions, read_graph};
use urbanflow::sssp::cch::Cch;
use urbanflow::sssp::ch::gpu::GpuPhast;
use urbanflow::sssp::many::gpu_pass_lanes;

fn checksum(rows: &[u32]) -> u64 {
    rows.par_chunks(4096)
        .map(|c| c.iter().filter(|&&d| d != u32::MAX).fold(0u64, |s, &d| s.wrapping_add(d as u64)))
        .reduce(|| 0, u64::wrapping_add)
}

fn main() {
    let path = arg("--graph").expect("--graph F");
    let count: usize = arg("--sources").map_or(20480, |s| s.parse().expect("--sources"));
    let g: urbanflow::Csr<u32> = read_graph(&path, ReadOptions::default()).expect("graph");
    let n = g.num_vertices() as usize;
    let (cch, _) = Cch::build_cached(&g).expect("cch");
    let ch = cch.customise(g.weights()).expect("customise");
    let ctx = GpuContext::shared().expect("a GPU");
    let k = gpu_pass_lanes(ctx, n);
    let sources: Vec<u32> = (0..count as u64).map(|i| ((i * 2_654_435_761) % n as u64) as u32).collect();
    let passes = count.div_ceil(k);
    // What a run pays before its first rows: the solver (hierarchy upload, labels and rows on the
    // device, pipelines), then a first pass (which allocates the pinned staging buffers).
    let t = Instant::now();
    let mut phast = GpuPhast::new(ctx, &ch, k as u32).expect("phast");
    let new_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    phast.for_each_block(&sources[..(2 * k).min(count)], |_, _| {}).expect("warm-up");
    let first_two_passes_s = t.elapsed().as_secs_f64();
    // Each stage alone.
    let (mut sweep, mut gather, mut copy) = (0.0, 0.0, 0.0);
    let mut ring = ReadbackRing::new(ctx, "probe");
    for chunk in sources.chunks(k) {
        let t = Instant::now();
        phast.run(chunk).expect("sweep");
        ctx.wait().expect("wait");
        sweep += t.elapsed().as_secs_f64();
        let t = Instant::now();
        phast.gather(chunk.len()).expect("gather");
        ctx.wait().expect("wait");
        gather += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let p = ring.start(phast.rows_buffer().buffer(), (chunk.len() * n * 4) as u64).expect("copy");
        ring.read(p, |_: &[u32]| ()).expect("read");
        copy += t.elapsed().as_secs_f64();
    }
    drop(ring);
    let mut streamed = serde_json::Map::new();
    for depth in [2usize, 3] {
        phast.set_readback_depth(depth);
        for (name, sum) in [("noop", false), ("checksum", true)] {
            let t = Instant::now();
            let mut total = 0u64;
            phast
                .for_each_block(&sources, |_, rows| {
                    if sum {
                        total = total.wrapping_add(checksum(rows));
                    }
                })
                .expect("stream");
            let s = t.elapsed().as_secs_f64();
            streamed.insert(format!("depth{depth}_{name}_s"), s.into());
            streamed.insert(format!("depth{depth}_{name}_trees_per_s"), (count as f64 / s).into());
        }
    }
    let per = |x: f64| x / passes as f64 * 1e3;
    let json = serde_json::json!({
        "graph": path, "adapter": ctx.info.name, "n": n, "sources": count, "lanes": k, "passes": passes,
        "pass_bytes": k * n * 4,
        "new_s": new_s, "first_two_passes_s": first_two_passes_s,
        "sweep_ms_per_pass": per(sweep), "gather_ms_per_pass": per(gather), "copy_ms_per_pass": per(copy),
        "copy_gb_per_s": (count * n * 4) as f64 / copy / 1e9,
        "isolated_trees_per_s": count as f64 / (sweep + gather + copy),
        "sweep_only_trees_per_s": count as f64 / (sweep + gather),
        "streamed": streamed,
    });
    println!("{json}");
}
