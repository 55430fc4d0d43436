//! K shortest loopless paths on road graphs: MPS, our Yen and `pathfinding::yen` on the same fixed
//! random pairs, and the batch over many pairs (16-core CPU, and the GPU when `--gpu` is given). One
//! JSON line per (graph, K, solver); path costs asserted equal between solvers.
//!
//! ```text
//! cargo bench --bench ksp -- --graph ../shared/data/road/osm-small/bremen_dist.gr.gz --k 10,100 \
//!     --pairs 1000 --yen-pairs 5 --seed 1 [--gpu]
//! ```
//! `--yen-pairs` (default 5; 0 skips them) pairs go through both Yens (each spur is a Dijkstra: seconds
//! per query on road graphs); MPS runs those pairs too, for the ratio, and then all `--pairs` one at a
//! time (`--no-sequential` skips that) and as one batch on all cores. `KSP_CONFIGS=8:16:256,16:32:128`
//! runs the GPU batch once per capacity setting (GiB per batch : candidates : arcs per pop).

#[allow(dead_code)]
mod common;

use std::time::Instant;

use common::{arg, flag};
use urbanflow::graph::builder::{DuplicatePolicy, GraphBuilder, SelfLoopPolicy};
use urbanflow::graph::io::{LoadOptions, load_graph};
use urbanflow::graph::rng::SplitMix64;
use urbanflow::sssp::ksp::{Path, ksp_batch_cpu, mps, yen};

fn main() {
    let path = arg("--graph").expect("--graph FILE");
    let ks: Vec<usize> =
        arg("--k").unwrap_or("10,100".into()).split(',').map(|s| s.parse().unwrap()).collect();
    let pairs: usize = arg("--pairs").map_or(1000, |s| s.parse().unwrap());
    let yen_pairs: usize = arg("--yen-pairs").map_or(5, |s| s.parse().unwrap());
    let seed: u64 = arg("--seed").map_or(1, |s| s.parse().unwrap());
    let loaded = load_graph(&path, &LoadOptions::default()).expect("graph");
    // pathfinding ranks vertex sequences, so parallel arcs would count once there and several times
    // here: every solver gets the graph with the lightest of each parallel group and no self-loops.
    let mut b = GraphBuilder::new(loaded.graph.num_vertices())
        .duplicates(DuplicatePolicy::KeepMin)
        .self_loops(SelfLoopPolicy::Drop);
    for (u, v, w) in loaded.graph.arcs() {
        b.add_arc(u, v, w);
    }
    let (simple, report) = b.build().expect("graph");
    eprintln!(
        "{path}: {} parallel arcs and {} self-loops dropped",
        report.parallel_arcs_dropped, report.self_loops_dropped
    );
    let g = &simple;
    let n = g.num_vertices();
    let mut rng = SplitMix64::new(seed);
    // Pairs whose target is reachable (random pairs on a strongly connected road graph nearly always are).
    let queries: Vec<(u32, u32)> =
        (0..pairs).map(|_| (rng.below(n as u64) as u32, rng.below(n as u64) as u32)).collect();
    let name = std::path::Path::new(&path).file_name().unwrap().to_string_lossy().to_string();
    let costs = |p: &[Path]| p.iter().map(|p| p.cost).collect::<Vec<_>>();
    let succ = |v: &u32| -> Vec<(u32, u64)> { g.out_arcs(*v).map(|(h, w)| (h, w as u64)).collect() };
    for &k in &ks {
        // Yen (ours and pathfinding's) against MPS on the first pairs.
        let few = &queries[..yen_pairs.min(pairs)];
        let (mut t_mps, mut t_yen, mut t_pf, mut pf_missed) = (0.0, 0.0, 0.0, 0);
        for &(s, t) in few {
            let c = Instant::now();
            let (a, _) = mps(g, s, t, k).unwrap();
            t_mps += c.elapsed().as_secs_f64();
            let c = Instant::now();
            let (b, _) = yen(g, s, t, k).unwrap();
            t_yen += c.elapsed().as_secs_f64();
            assert_eq!(a, b, "{name} ({s},{t}) K={k}: Yen differs from MPS");
            let c = Instant::now();
            let pf = pathfinding::directed::yen::yen(&s, succ, |v| *v == t, k);
            t_pf += c.elapsed().as_secs_f64();
            // pathfinding ranks vertex sequences (parallel arcs merge), so compare costs.
            let pf_costs: Vec<u64> = pf.iter().map(|(_, c)| *c).collect();
            // Where the lists differ, every path of ours is checked (loopless, cost = sum of its
            // weights) and counted when pathfinding did not return it.
            if costs(&a) != pf_costs {
                for p in &a {
                    let vs = p.vertices(g);
                    let mut distinct = vs.clone();
                    distinct.sort_unstable();
                    distinct.dedup();
                    let sum: u64 = p.arcs.iter().map(|&x| g.weights()[x as usize] as u64).sum();
                    assert!(distinct.len() == vs.len() && sum == p.cost && vs.last() == Some(&t));
                    if !pf.iter().any(|(pv, _)| *pv == vs) {
                        pf_missed += 1;
                    }
                }
            }
        }
        let q = few.len().max(1) as f64;
        if !few.is_empty() {
            println!(
                "{{\"graph\":{name:?},\"k\":{k},\"pairs\":{},\"mps_s_per_query\":{:.6},\"yen_s_per_query\":{:.6},\"pathfinding_yen_s_per_query\":{:.6},\"mps_vs_pathfinding\":{:.1},\"mps_vs_yen\":{:.1},\"paths_pathfinding_missed\":{pf_missed}}}",
                few.len(),
                t_mps / q,
                t_yen / q,
                t_pf / q,
                t_pf / t_mps,
                t_yen / t_mps
            );
        }
        // MPS one query at a time on all pairs (prep and ranking apart), then the batch.
        let (mut prep, mut total, mut pops, mut looped, mut found) = (0.0, 0.0, 0u64, 0u64, 0usize);
        let mut single = Vec::with_capacity(queries.len());
        let one_at_a_time = if flag("--no-sequential") { &queries[..0] } else { &queries[..] };
        for &(s, t) in one_at_a_time {
            let c = Instant::now();
            let (p, st) = mps(g, s, t, k).unwrap();
            total += c.elapsed().as_secs_f64();
            prep += st.prep_time.as_secs_f64();
            pops += st.pops;
            looped += st.looped_pops;
            found += p.len();
            single.push(costs(&p));
        }
        let c = Instant::now();
        let (batch, bst) = ksp_batch_cpu(g, &queries, k).unwrap();
        let batch_s = c.elapsed().as_secs_f64();
        for (i, p) in single.iter().enumerate() {
            assert_eq!(&costs(&batch[i]), p, "batch differs at query {i}");
        }
        println!(
            "{{\"graph\":{name:?},\"k\":{k},\"pairs\":{},\"paths\":{found},\"mps_sequential_s\":{total:.3},\"prep_s\":{prep:.3},\"ranking_s\":{:.3},\"pops\":{pops},\"looped_pops\":{looped},\"cpu_batch_s\":{batch_s:.3},\"threads\":{},\"cpu_queries_per_s\":{:.1}}}",
            queries.len(),
            total - prep,
            rayon::current_num_threads(),
            queries.len() as f64 / batch_s
        );
        if flag("--gpu") {
            gpu_rows(g, &queries, k, &name, &batch, bst.time.as_secs_f64());
        }
    }
}

/// The GPU batch on the same queries: device start apart, then two runs (the first compiles the
/// pipelines); answers asserted equal to the CPU batch's.
fn gpu_rows(
    g: &urbanflow::graph::Csr<u32>,
    queries: &[(u32, u32)],
    k: usize,
    name: &str,
    cpu: &[Vec<Path>],
    cpu_s: f64,
) {
    use urbanflow::gpu::GpuContext;
    use urbanflow::sssp::ksp::{KspGpuOptions, ksp_batch_gpu};
    let c = Instant::now();
    let ctx = GpuContext::new().expect("a GPU");
    let start_s = c.elapsed().as_secs_f64();
    // `KSP_CONFIGS=GiB:candidates:arcs,...` (per pop) measures other capacities side by side.
    let configs: Vec<KspGpuOptions> = std::env::var("KSP_CONFIGS").map_or_else(
        |_| vec![KspGpuOptions::for_k(k)],
        |s| {
            s.split(',')
                .map(|c| {
                    let v: Vec<u64> = c.split(':').map(|x| x.parse().unwrap()).collect();
                    let d = KspGpuOptions::for_k(k);
                    KspGpuOptions {
                        memory: v[0] << 30,
                        pool: d.pops * v[1] as u32,
                        arena: d.pops * v[2] as u32,
                        ..d
                    }
                })
                .collect()
        },
    );
    for opts in configs {
        let mut times = Vec::new();
        let mut gpu_queries = 0;
        let mut overflows = [0; 6];
        for _ in 0..2 {
            let c = Instant::now();
            let (got, st) = ksp_batch_gpu(&ctx, g, queries, k, &opts).expect("GPU batch");
            times.push(c.elapsed().as_secs_f64());
            assert!(got == cpu, "{name} K={k}: GPU answers differ from the CPU's");
            gpu_queries = st.gpu_queries;
            overflows = st.gpu_overflows;
        }
        println!(
            "{{\"graph\":{name:?},\"k\":{k},\"pairs\":{},\"adapter\":{:?},\"gpu_start_s\":{start_s:.3},\"gpu_first_s\":{:.3},\"gpu_s\":{:.3},\"gpu_queries\":{gpu_queries},\"overflows_pool_pops_arena_cost_ties_gather\":{overflows:?},\"gpu_queries_per_s\":{:.1},\"cpu_batch_s\":{cpu_s:.3},\"gpu_vs_cpu_batch\":{:.2}}}",
            queries.len(),
            ctx.info.name,
            times[0],
            times[1],
            queries.len() as f64 / times[1],
            cpu_s / times[1]
        );
        eprintln!("config {opts:?}");
    }
}
