//! Traffic-assignment benchmark driver: time to relative gaps on the standard TNTP networks.
//!
//! ```text
//! cargo bench --bench tap -- [--networks SiouxFalls,Chicago-Sketch] [--algorithms bfw,fw]
//!     [--threads 2] [--demand-scale 2] [--gap 1e-6] [--max-seconds 120]
//! ```
//! Prints one JSON object per (network, algorithm): load time, and the solve time and iteration at which
//! `TSTT/SPTT − 1` (the gap of the anchors' peers) first fell below 1e-2 … 1e-12, plus the final gap and
//! objective. Timings include every iteration's all-or-nothing loading and line search, not the file read.
//! `--backend gpu` loads on the GPU; `--trees dijkstra|phast|auto` picks how trees are grown. `--aon R`
//! instead times all-or-nothing loading alone, R repetitions at free-flow costs, side by side: the CPU
//! (f64 Dijkstra, rayon, all threads), the CPU on a CCH (PHAST sweeps, fixed point), the GPU with the
//! batched kernel and the GPU with PHAST on the CCH (customisation included in every call), with their
//! SPTTs and whether the fixed-point loaders' loads are equal.

#[allow(dead_code)]
mod common;

use std::time::{Duration, Instant};

use algos_tap::gpu::GpuAon;
use algos_tap::{
    Algorithm, AssignOptions, Backend, Demand, Network, STANDARD_NETWORKS, Stop, assign, evaluate,
};
use common::arg;
use gpu_runtime::GpuContext;
use graph_core::datasets::data_root;

fn main() {
    let root = data_root().expect("shared data (set URBANFLOW_DATA)");
    if let Some(t) = arg("--threads") {
        rayon::ThreadPoolBuilder::new().num_threads(t.parse().expect("--threads N")).build_global().unwrap();
    }
    let names = arg("--networks").unwrap_or_else(|| {
        "SiouxFalls,Anaheim,Barcelona,Winnipeg,Chicago-Sketch,Eastern-Massachusetts,Berlin-Center".into()
    });
    let algorithms = arg("--algorithms").unwrap_or_else(|| "bfw".into());
    let scale: f64 = arg("--demand-scale").map_or(1.0, |s| s.parse().expect("--demand-scale X"));
    let gap: f64 = arg("--gap").map_or(1e-6, |s| s.parse().expect("--gap G"));
    let max_seconds: f64 = arg("--max-seconds").map_or(120.0, |s| s.parse().expect("--max-seconds S"));
    let thresholds = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-10, 1e-12];
    let gpu = arg("--backend").is_some_and(|b| b == "gpu");
    let ctx = (gpu || arg("--aon").is_some()).then(|| GpuContext::new().expect("a GPU adapter"));
    let backend = match (&ctx, gpu) {
        (Some(c), true) => Backend::Gpu(c),
        _ => Backend::Cpu,
    };
    let aon_reps: Option<usize> = arg("--aon").map(|r| r.parse().expect("--aon R"));
    let trees: algos_tap::gpu::Method =
        arg("--trees").map_or(algos_tap::gpu::Method::Auto, |t| t.parse().expect("--trees"));
    for name in names.split(',') {
        let s = STANDARD_NETWORKS
            .iter()
            .find(|n| n.name.eq_ignore_ascii_case(name))
            .unwrap_or_else(|| panic!("unknown network {name}"));
        let (net_path, trips) = s.files(&root);
        let t = Instant::now();
        let net = Network::read_tntp(&net_path, s.factors).expect("network");
        let demand = match trips {
            Some(t) => Demand::read_tntp(t, &net).expect("demand").scaled(scale),
            // No published demand (Chicago-Regional): one trip between every pair of zones, the
            // zone-to-zone trees of a skim (loading alone only: its flows are not an assignment).
            None => {
                let z = net.num_zones();
                let pairs = (0..z).flat_map(|o| (0..z).filter(move |&d| d != o).map(move |d| (o, d, scale)));
                Demand::from_pairs(&net, pairs).expect("zone pairs")
            }
        };
        let load_s = t.elapsed().as_secs_f64();
        if let (Some(reps), Some(ctx)) = (aon_reps, &ctx) {
            time_aon(s.name, &net, &demand, ctx, reps);
            continue;
        }
        for alg in algorithms.split(',') {
            let algorithm: Algorithm = alg.parse().unwrap();
            let opts = AssignOptions {
                algorithm,
                stop: Stop {
                    relative_gap: gap,
                    max_iterations: 1_000_000,
                    max_time: Some(Duration::from_secs_f64(max_seconds)),
                    ..Stop::default()
                },
                backend,
                trees,
                ..AssignOptions::default()
            };
            let r = assign(&net, &demand, &opts).expect("assignment");
            let reached: Vec<String> = thresholds
                .iter()
                .map(|&g| match r.history.iter().find(|h| h.relative_gap_sptt <= g) {
                    Some(h) => format!(
                        "\"{g:e}\": {{\"seconds\": {:.6}, \"iteration\": {}}}",
                        h.seconds, h.iteration
                    ),
                    None => format!("\"{g:e}\": null"),
                })
                .collect();
            let last = r.last();
            println!(
                "{{\"network\": \"{}\", \"demand_scale\": {scale}, \"algorithm\": \"{algorithm}\", \"backend\": \"{}\", \"trees\": \"{trees:?}\", \"threads\": {}, \
                 \"load_s\": {load_s:.4}, \"iterations\": {}, \"seconds\": {:.4}, \"relative_gap_sptt\": {:e}, \
                 \"objective\": {:.6}, \"reached\": {{{}}}}}",
                s.name,
                backend.resolve(),
                rayon::current_num_threads(),
                r.history.len(),
                last.seconds,
                last.relative_gap_sptt,
                last.objective,
                reached.join(", ")
            );
        }
    }
}

/// All-or-nothing alone at free-flow costs: CPU (f64, rayon) against the GPU (fixed point), best of
/// `reps` each after one warm-up.
fn time_aon(name: &str, net: &Network, demand: &Demand, ctx: &GpuContext, reps: usize) {
    let zero = vec![0.0; net.num_links()];
    let mut costs = vec![0.0; net.num_links()];
    net.costs(&zero, &mut costs);
    let mut cpu_s = f64::INFINITY;
    let mut cpu_sptt = 0.0;
    for _ in 0..=reps {
        let t = Instant::now();
        cpu_sptt = evaluate(net, demand, &zero, false).expect("cpu aon").sptt;
        cpu_s = cpu_s.min(t.elapsed().as_secs_f64());
    }
    let t = Instant::now();
    let mut gpu = GpuAon::new(ctx, net, demand, false).expect("gpu upload");
    let upload_s = t.elapsed().as_secs_f64();
    let mut gpu_s = f64::INFINITY;
    let mut gpu_sptt = 0.0;
    for _ in 0..=reps {
        let t = Instant::now();
        let loads = gpu.loads(net, demand, &costs).expect("gpu aon");
        let y = algos_tap::fixed::link_flows(gpu.graph(), &loads, net.num_links());
        gpu_s = gpu_s.min(t.elapsed().as_secs_f64());
        gpu_sptt = y.iter().zip(&costs).map(|(a, b)| a * b).sum();
    }
    // PHAST on a CCH, on the GPU and on the CPU cores (issue 21): the same fixed-point loads.
    let t = Instant::now();
    let all = 0..demand.num_origins();
    let mut phast = GpuAon::with_method(ctx, net, demand, false, all, algos_tap::gpu::Method::Phast)
        .expect("gpu phast setup");
    let phast_setup_s = t.elapsed().as_secs_f64();
    let want = gpu.loads(net, demand, &costs).expect("gpu aon");
    let (mut phast_s, mut phast_split_s, mut phast_times) =
        (f64::INFINITY, f64::INFINITY, Default::default());
    let mut phast_loads = Vec::new();
    // The user's calls (steps back to back), then as many with a wait after each step, for the split.
    for split in [false, true] {
        phast.split_phast_times(split);
        for _ in 0..=reps {
            let t = Instant::now();
            phast_loads = phast.loads(net, demand, &costs).expect("gpu phast aon");
            let _y = algos_tap::fixed::link_flows(phast.graph(), &phast_loads, net.num_links());
            let s = t.elapsed().as_secs_f64();
            if !split {
                phast_s = phast_s.min(s);
            } else if s < phast_split_s {
                (phast_split_s, phast_times) = (s, phast.phast_times().unwrap_or_default());
            }
        }
    }
    // Tie choices differ from the canonical trees: the fixed-point shortest-path total must not.
    let (weights, _) = gpu.graph().quantise(&costs);
    let fixed_cost = |l: &[u64]| l.iter().zip(&weights).map(|(&a, &w)| a as u128 * w as u128).sum::<u128>();
    let phast_same = fixed_cost(&phast_loads) == fixed_cost(&want);
    let t = Instant::now();
    let cch = algos_tap::hierarchy::CchAon::new(net, demand, false).expect("cch setup");
    let cch_setup_s = t.elapsed().as_secs_f64();
    let (mut cch_s, mut cch_same) = (f64::INFINITY, true);
    for _ in 0..=reps {
        let t = Instant::now();
        let loads = cch.loads(net, demand, &costs).expect("cpu cch aon");
        let _y = algos_tap::fixed::link_flows(cch.graph(), &loads, net.num_links());
        cch_s = cch_s.min(t.elapsed().as_secs_f64());
        cch_same &= loads == phast_loads;
    }
    // Every hardware GPU at once (issue 23), when there are several: same loads, origins split.
    let devices = gpu_runtime::devices::open(&Default::default(), &Default::default()).unwrap_or_else(|e| {
        eprintln!("several GPUs: {e}");
        Vec::new()
    });
    let (mut multi_s, mut multi_same) = (f64::NAN, true);
    if devices.len() >= 2 {
        let refs: Vec<&GpuContext> = devices.iter().collect();
        let mut multi = algos_tap::loader::GpuLoader::new(&refs, net, demand, false).expect("gpus upload");
        let want = gpu.loads(net, demand, &costs).expect("gpu aon");
        multi_s = f64::INFINITY;
        for _ in 0..=reps {
            let t = Instant::now();
            let loads = multi.loads(net, demand, &costs).expect("gpus aon");
            let _y = multi.flows(net, &loads);
            multi_s = multi_s.min(t.elapsed().as_secs_f64());
            multi_same &= loads == want;
        }
    }
    println!(
        "{{\"aon\": \"{name}\", \"origins\": {}, \"nodes\": {}, \"links\": {}, \"threads\": {}, \
         \"cpu_s\": {cpu_s:.6}, \"gpu_s\": {gpu_s:.6}, \"gpu_upload_s\": {upload_s:.4}, \"speedup\": {:.3}, \
         \"gpu_phast_s\": {phast_s:.6}, \"gpu_phast_setup_s\": {phast_setup_s:.4}, \"gpu_phast_over_cpu\": {:.3}, \
         \"gpu_phast_split_s\": {phast_split_s:.6}, \"gpu_phast_times\": \"{phast_times:?}\", \"gpu_phast_fixed_sptt_equal\": {phast_same}, \"cpu_cch_s\": {cch_s:.6}, \"cpu_cch_setup_s\": {cch_setup_s:.4}, \
         \"cpu_cch_over_cpu\": {:.3}, \"cpu_cch_loads_equal_gpu_phast\": {cch_same}, \"cch_edges\": {}, \"cch_triangles\": {}, \
         \"gpus\": {}, \"gpus_s\": {multi_s:.6}, \"gpus_over_one\": {:.3}, \"gpus_loads_equal_one\": {multi_same}, \
         \"cpu_sptt\": {cpu_sptt:.6}, \"gpu_sptt\": {gpu_sptt:.6}, \"device\": \"{}\"}}",
        demand.num_origins(),
        net.num_nodes(),
        net.num_links(),
        rayon::current_num_threads(),
        cpu_s / gpu_s,
        cpu_s / phast_s,
        cpu_s / cch_s,
        cch.cch().num_edges(),
        cch.cch().num_triangles(),
        devices.len(),
        gpu_s / multi_s,
        ctx.describe()
    );
}
