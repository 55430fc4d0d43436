//! One-to-all trees by PHAST on a contraction hierarchy (issue 21) against Dijkstra, side by side in
//! one run: contraction time, one-thread Dijkstra per tree, one-thread PHAST per tree, rayon PHAST and
//! rayon Dijkstra trees per second; every PHAST tree compared with Dijkstra's. One JSON line per graph.
//!
//! ```text
//! cargo bench --bench phast -- --graphs ../shared/data/road/weighted/NY.gr.xz,../shared/data/road/osm-small/bremen_time.gr.gz --sources 1024
//! ```

#[allow(dead_code)]
mod common;

use std::time::Instant;

use common::arg;
use rayon::prelude::*;
use urbanflow::graph::io::{ReadOptions, read_graph};
use urbanflow::sssp::ch::ContractionHierarchy;
use urbanflow::sssp::cpu::dijkstra::{Stop, dijkstra};

fn main() {
    let graphs = arg("--graphs").expect("--graphs F[,F…]");
    let n_sources: usize = arg("--sources").map_or(1024, |s| s.parse().expect("--sources"));
    let n_dijkstra: usize = arg("--dijkstra-sources").map_or(64, |s| s.parse().expect("--dijkstra-sources"));
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    for path in graphs.split(',') {
        let g: urbanflow::Csr<u32> = read_graph(path, ReadOptions::default()).expect("graph");
        let n = g.num_vertices();
        let sources: Vec<u32> =
            (0..n_sources as u64).map(|i| ((i * 2_654_435_761) % n as u64) as u32).collect();
        let t = Instant::now();
        let ch = one.install(|| ContractionHierarchy::build(&g)).expect("contraction");
        let build_s = t.elapsed().as_secs_f64();
        // One thread: Dijkstra and PHAST per tree.
        let few = &sources[..n_dijkstra.min(sources.len())];
        let t = Instant::now();
        let want: Vec<Vec<u32>> =
            few.iter().map(|&s| dijkstra(&g, s, &Stop::default()).expect("dijkstra").0).collect();
        let dijkstra_1 = t.elapsed().as_secs_f64() / few.len() as f64;
        let t = Instant::now();
        let got = one.install(|| ch.phast_serial(few)).expect("phast");
        let phast_1 = t.elapsed().as_secs_f64() / few.len() as f64;
        assert_eq!(got, want, "PHAST differs from Dijkstra on {path}");
        // All cores.
        let t = Instant::now();
        let rows = ch.phast(&sources).expect("phast");
        let phast_all = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let dij: Vec<Vec<u32>> =
            sources.par_iter().map(|&s| dijkstra(&g, s, &Stop::default()).expect("dijkstra").0).collect();
        let dijkstra_all = t.elapsed().as_secs_f64();
        let agree = rows == dij;
        let mut gpu_json = String::new();
        if common::flag("--gpu")
            && let Some(ctx) = urbanflow::gpu::GpuContext::shared()
        {
            for lanes in arg("--lanes").unwrap_or("32,64".into()).split(',') {
                let k: u32 = lanes.parse().expect("--lanes");
                let t = Instant::now();
                let mut gp = urbanflow::sssp::ch::gpu::GpuPhast::new(ctx, &ch, k).expect("gpu phast");
                gp.run(&sources[..k as usize]).expect("warm-up");
                ctx.wait().expect("wait");
                let setup_s = t.elapsed().as_secs_f64();
                // Trees left on the device (the consumer reads or reduces them there).
                let t = Instant::now();
                for chunk in sources.chunks(k as usize) {
                    gp.run(chunk).expect("pass");
                }
                ctx.wait().expect("wait");
                let resident = t.elapsed().as_secs_f64();
                // Trees streamed to the host in original vertex order; the consumer reads every word
                // (a checksum, as a reducer would). Checked against Dijkstra's afterwards, untimed.
                let t = Instant::now();
                let mut checksum = 0u64;
                gp.for_each_block(&sources, |_, rows| {
                    checksum = checksum.wrapping_add(rows.iter().map(|&d| d as u64).sum::<u64>());
                })
                .expect("stream");
                let streamed = t.elapsed().as_secs_f64();
                std::hint::black_box(checksum);
                let streamed_rows = gp.trees(&sources).expect("trees");
                gpu_json.push_str(&format!(
                    ",\"gpu_k{k}\":{{\"levels\":{},\"setup_s\":{setup_s:.3},\"resident_trees_per_s\":{:.1},\"streamed_trees_per_s\":{:.1},\"resident_vs_phast_cpu\":{:.2},\"resident_vs_dijkstra_cpu\":{:.2},\"agree\":{}}}",
                    gp.num_levels(),
                    sources.len() as f64 / resident,
                    sources.len() as f64 / streamed,
                    phast_all / resident,
                    dijkstra_all / resident,
                    streamed_rows == dij
                ));
            }
            gpu_json.push_str(&format!(",\"adapter\":\"{}\"", ctx.info.name));
        }
        println!(
            "{{\"graph\":\"{}\",\"vertices\":{n},\"arcs\":{},\"shortcuts\":{},\"up_arcs\":{},\"down_arcs\":{},\"contract_s\":{build_s:.2},\"sources\":{},\"dijkstra_1t_ms\":{:.3},\"phast_1t_ms\":{:.3},\"phast_vs_dijkstra_1t\":{:.2},\"phast_trees_per_s\":{:.1},\"dijkstra_trees_per_s\":{:.1},\"phast_vs_dijkstra\":{:.2},\"threads\":{},\"agree\":{agree}{gpu_json}}}",
            std::path::Path::new(path).file_name().unwrap().to_string_lossy(),
            g.num_arcs(),
            ch.shortcuts,
            ch.up.num_arcs(),
            ch.down.num_arcs(),
            sources.len(),
            dijkstra_1 * 1e3,
            phast_1 * 1e3,
            dijkstra_1 / phast_1,
            sources.len() as f64 / phast_all,
            sources.len() as f64 / dijkstra_all,
            dijkstra_all / phast_all,
            rayon::current_num_threads(),
        );
    }
}
