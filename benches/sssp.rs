//! Single-source shortest-path benchmark. One JSON object per line on stdout.
//!
//! ```text
//! # CPU peers, side by side, on this machine:
//! cargo bench --bench sssp -- --cpu --graphs ../shared/data/road/weighted/NY.gr.xz,...
//! # every GPU algorithm vs our CPU Dijkstra and Δ-stepping (all cores), plus a generated road graph:
//! cargo bench --bench sssp -- --gpu --graphs ... --generate 20000000 [--budget-s 20]
//! ```
//! Sources: the first 8 values x of SplitMix64(seed 1), source = x mod n (0-based; the anchors'
//! `1 + x mod n` in 1-based ids). Times are medians of the library call only (graph loaded and, for
//! the GPU, uploaded and pipelines compiled beforehand; the upload is reported separately).

use std::time::Instant;

use urbanflow::gpu::{Backend, GpuContext};
use urbanflow::graph::Csr;
use urbanflow::graph::generators;
use urbanflow::graph::io::{ReadOptions, read_graph};
use urbanflow::graph::rng::SplitMix64;
use urbanflow::sssp::gpu::{GpuAlgorithm, GpuSssp, SettleRule};
use urbanflow::sssp::{Algorithm, Query, ShortestPaths, solve};

mod common;
use common::{arg, flag, median};

fn sources(n: u32, k: usize) -> Vec<u32> {
    let mut rng = SplitMix64::new(1);
    (0..k).map(|_| (rng.next_u64() % n as u64) as u32).collect()
}

fn checksum(dist: impl Iterator<Item = u64>) -> u64 {
    dist.fold(0u64, |a, d| a.wrapping_add(d))
}

fn graphs() -> Vec<(String, Csr<u32>)> {
    let mut out = Vec::new();
    for path in arg("--graphs").unwrap_or_default().split(',').filter(|s| !s.is_empty()) {
        let g: Csr<u32> = read_graph(path, ReadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        let name = std::path::Path::new(path)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .split('.')
            .next()
            .unwrap()
            .to_string();
        out.push((name, g));
    }
    if let Some(n) = arg("--generate").and_then(|s| s.parse::<u32>().ok()) {
        let t = Instant::now();
        let g = generators::road_like(n, 1).unwrap().graph;
        eprintln!("generated road_like({n}, 1) in {:.1?}", t.elapsed());
        out.push((format!("road_like_{n}"), g));
    }
    out
}

fn cpu() {
    let k: usize = arg("--sources").and_then(|s| s.parse().ok()).unwrap_or(8);
    for (name, g) in graphs() {
        let srcs = sources(g.num_vertices(), k);
        let n = g.num_vertices() as usize;
        // petgraph's fastest graph type, built once outside the timing.
        let mut edges: Vec<(u32, u32, u32)> = g.arcs().collect();
        // petgraph's Csr takes no parallel arcs: keep the lightest (same distances).
        edges.sort_unstable();
        edges.dedup_by_key(|e| (e.0, e.1));
        let pg = petgraph::csr::Csr::<(), u32, petgraph::Directed, u32>::from_sorted_edges(&edges).unwrap();
        let mut rows: Vec<(&str, Vec<f64>, u64)> = vec![];
        let mut time = |label: &'static str, f: &dyn Fn(u32) -> u64| {
            let mut ts = vec![];
            let mut sum = 0u64;
            for (i, &s) in srcs.iter().enumerate() {
                let t = Instant::now();
                let c = f(s);
                ts.push(t.elapsed().as_secs_f64() * 1e3);
                if i == 0 {
                    sum = c;
                }
            }
            rows.push((label, ts, sum));
        };
        time("urbanflow dijkstra", &|s| {
            solve(&g, &Query::from(s), Algorithm::Dijkstra, Backend::Cpu).unwrap().checksum()
        });
        time("urbanflow delta-stepping (all cores)", &|s| {
            solve(&g, &Query::from(s), Algorithm::DeltaStepping(None), Backend::Cpu).unwrap().checksum()
        });
        time("petgraph 0.8 Csr dijkstra", &|s| {
            let m = petgraph::algo::dijkstra(&pg, s, None, |e| *e.weight());
            checksum(m.values().map(|&d| d as u64))
        });
        time("pathfinding 4 dijkstra_all", &|s| {
            let m = pathfinding::directed::dijkstra::dijkstra_all(&s, |&u| g.out_arcs(u).collect::<Vec<_>>());
            checksum(m.values().map(|&(_, c)| c as u64))
        });
        let base = median(rows[2].1.clone());
        for (label, ts, sum) in &rows {
            let med = median(ts.clone());
            println!(
                "{{\"graph\":\"{name}\",\"n\":{n},\"m\":{},\"impl\":\"{label}\",\"threads\":{},\"median_ms\":{med:.3},\"min_ms\":{:.3},\"max_ms\":{:.3},\"petgraph_over_this\":{:.2},\"checksum_first_source\":{sum}}}",
                g.num_arcs(),
                rayon::current_num_threads(),
                ts.iter().cloned().fold(f64::INFINITY, f64::min),
                ts.iter().cloned().fold(0.0, f64::max),
                base / med
            );
        }
        let sums: Vec<u64> = rows.iter().map(|r| r.2).collect();
        assert!(sums.windows(2).all(|w| w[0] == w[1]), "{name}: checksums differ: {sums:?}");
    }
}

fn gpu() {
    let ctx = match GpuContext::new() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("SKIP sssp gpu bench: {e}");
            return;
        }
    };
    eprintln!("adapter: {}", ctx.describe());
    let k: usize = arg("--sources").and_then(|s| s.parse().ok()).unwrap_or(5);
    let budget: f64 = arg("--budget-s").and_then(|s| s.parse().ok()).unwrap_or(20.0);
    let algos = [
        ("harish", GpuAlgorithm::Harish),
        ("martin", GpuAlgorithm::Frontier(SettleRule::MinOnly)),
        ("crauser-out", GpuAlgorithm::Frontier(SettleRule::Out)),
        ("crauser-inout", GpuAlgorithm::Frontier(SettleRule::InOut)),
        ("near-far", GpuAlgorithm::NearFar(None)),
        ("lbr k=2", GpuAlgorithm::Lbr(2)),
        ("lbr k=4", GpuAlgorithm::Lbr(4)),
        ("lbr k=6", GpuAlgorithm::Lbr(6)),
        ("jradi (1 workgroup)", GpuAlgorithm::Jradi),
    ];
    let only: Option<String> = arg("--only");
    let algos: Vec<_> = algos
        .into_iter()
        .filter(|(l, _)| only.as_ref().is_none_or(|o| o.split(',').any(|x| l.starts_with(x))))
        .collect();
    let mut too_slow: Vec<&str> = vec![];
    for (name, g) in graphs() {
        let (n, m) = (g.num_vertices(), g.num_arcs());
        let srcs = sources(n, k);
        let emit = |label: &str, ts: &[f64], extra: String| {
            let med = median(ts.to_vec());
            println!(
                "{{\"graph\":\"{name}\",\"n\":{n},\"m\":{m},\"impl\":\"{label}\",\"runs\":{},\"median_ms\":{med:.3},\"mteps\":{:.1}{extra}}}",
                ts.len(),
                m as f64 / med / 1e3
            );
            med
        };
        let mut reference: Vec<ShortestPaths> = vec![];
        let mut ts = vec![];
        for &s in &srcs {
            let t = Instant::now();
            reference.push(solve(&g, &Query::from(s), Algorithm::Dijkstra, Backend::Cpu).unwrap());
            ts.push(t.elapsed().as_secs_f64() * 1e3);
        }
        emit("cpu dijkstra (1 thread)", &ts, String::new());
        let mut ts = vec![];
        for &s in &srcs {
            let t = Instant::now();
            let r = solve(&g, &Query::from(s), Algorithm::DeltaStepping(None), Backend::Cpu).unwrap();
            ts.push(t.elapsed().as_secs_f64() * 1e3);
            assert_eq!(r.dist, reference[ts.len() - 1].dist);
        }
        emit(&format!("cpu delta-stepping ({} threads)", rayon::current_num_threads()), &ts, String::new());
        let t = Instant::now();
        let mut solver = match GpuSssp::new(&ctx, &g) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{name}: cannot upload: {e}");
                continue;
            }
        };
        let upload_ms = t.elapsed().as_secs_f64() * 1e3;
        for &(label, algo) in &algos {
            if too_slow.contains(&label) {
                continue;
            }
            // Warm-up (compiles pipelines, allocates queues), not timed.
            let w = Instant::now();
            if let Err(e) = solver.run(srcs[0], algo, false) {
                eprintln!("{name} {label}: {e}");
                continue;
            }
            let warm_s = w.elapsed().as_secs_f64();
            let mut ts = vec![];
            let mut stats = None;
            for (i, &s) in srcs.iter().enumerate() {
                if warm_s * (i as f64 + 1.0) > budget {
                    break;
                }
                let t = Instant::now();
                let r = solver.run(s, algo, false).unwrap();
                ts.push(t.elapsed().as_secs_f64() * 1e3);
                assert!(r.dist == reference[i].dist, "{name} {label} from {s}: wrong distances");
                stats.get_or_insert(r.stats);
            }
            if warm_s > budget {
                too_slow.push(label);
                println!(
                    "{{\"graph\":\"{name}\",\"impl\":\"gpu {label}\",\"skipped\":\"one run took {warm_s:.1} s > budget {budget} s; skipped on larger graphs\"}}"
                );
                continue;
            }
            let s = stats.unwrap_or_default();
            emit(
                &format!("gpu {label}"),
                &ts,
                format!(
                    ",\"phases\":{},\"dispatches\":{},\"readbacks\":{},\"upload_ms\":{upload_ms:.1}",
                    s.phases, s.dispatches, s.readbacks
                ),
            );
        }
    }
}

/// Many-source throughput: trees per second of `many_to_all` on the CPU (all cores) and on the GPU,
/// the same sources, checksums compared.
fn many() {
    let k: usize = arg("--many").and_then(|s| s.parse().ok()).unwrap_or(1000);
    let ctx = GpuContext::new().ok();
    if let Some(c) = &ctx {
        eprintln!("adapter: {}", c.describe());
    }
    for (name, g) in graphs() {
        let srcs = sources(g.num_vertices(), k);
        let run = |label: String, backend: Backend| {
            let mut sum = 0u64;
            let t = Instant::now();
            let stats = urbanflow::sssp::many::many_to_all(&g, &srcs, backend, false, |b| {
                sum = b.dist.iter().filter(|&&d| d != u32::MAX).fold(sum, |a, &d| a.wrapping_add(d as u64));
            })
            .unwrap();
            let secs = t.elapsed().as_secs_f64();
            println!(
                "{{\"graph\":\"{name}\",\"n\":{},\"sources\":{k},\"impl\":\"{label}\",\"solve_s\":{secs:.3},\"trees_per_s\":{:.1},\"phases\":{},\"dispatches\":{},\"checksum\":{sum}}}",
                g.num_vertices(),
                k as f64 / secs,
                stats.phases,
                stats.dispatches
            );
            sum
        };
        let cpu = run(format!("cpu many_to_all ({} threads)", rayon::current_num_threads()), Backend::Cpu);
        if let Some(c) = &ctx {
            let gpu = run(format!("gpu many_to_all (batched LBR k=4) on {}", c.info.name), Backend::Gpu(c));
            assert_eq!(cpu, gpu, "{name}: checksums differ");
        }
    }
}

fn main() {
    if flag("--many") {
        many();
    } else if flag("--gpu") {
        gpu();
    } else {
        cpu();
    }
}
