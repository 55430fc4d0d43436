//! CVRP pricing DPs (issue 18): one q-path call, one ng-path call and a 20-call sequence with changing
//! duals (the pricing use case), on VRPLIB instances. ng engines side by side: the reachable-state DP
//! with subset dominance and the dense-table mirror, each serial and on all rayon threads, and the GPU
//! (`--gpu`; dense tables resident on the device, only arc costs uploaded per call). Every engine's
//! least reduced cost over the sequence must agree. One JSON line per instance.
//!
//! ```text
//! cargo bench --bench vrp -- --instances ../shared/data/vrp/X/X-n101-k25.vrp,../shared/data/vrp/X/X-n401-k29.vrp --delta 8 --gpu
//! ```

#[allow(dead_code)]
mod common;

use std::time::Instant;

use common::{arg, flag};
use gpu_runtime::GpuContext;
use urbanflow::dp::vrp::vrplib::{Rounding, read_vrplib};
use urbanflow::dp::vrp::{
    ArcCosts, Costs, Cvrp, GpuNgPricer, GpuQPaths, NgPlan, NgSets, ng_paths_dominated, q_paths, vrp_ng_mirror,
};
use urbanflow::graph::rng::SplitMix64;

/// Seconds of `f`, and its result.
fn timed<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let t = Instant::now();
    let r = f();
    (t.elapsed().as_secs_f64(), r)
}

/// Random duals of the size a pricing round sees: each customer's dual up to its round trip from the depot.
fn random_duals(inst: &Cvrp, seed: u64) -> Vec<f64> {
    let mut rng = SplitMix64::new(seed);
    (1..=inst.customers()).map(|i| rng.unit_f64() * (inst.cost(0, i) + inst.cost(i, 0))).collect()
}

/// One ng engine: a call on arc costs → the least route cost (the pricing answer).
type Engine<'a> = Box<dyn FnMut(&ArcCosts) -> f64 + Send + 'a>;

fn main() {
    let instances = arg("--instances").expect("--instances F[,F…]");
    let delta: usize = arg("--delta").map_or(8, |s| s.parse().expect("--delta"));
    let calls: u64 = arg("--calls").map_or(20, |s| s.parse().expect("--calls"));
    let serial_max: usize = arg("--serial-max").map_or(usize::MAX, |s| s.parse().expect("--serial-max"));
    let ctx = flag("--gpu").then(|| GpuContext::new().expect("a GPU adapter"));
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    eprintln!("threads: {}", rayon::current_num_threads());
    if let Some(ctx) = &ctx {
        eprintln!("gpu: {}", ctx.describe());
    }
    for path in instances.split(',') {
        let inst = read_vrplib(path, Rounding::Nint).expect("instance");
        let ng = NgSets::nearest(&inst, delta).expect("Δ");
        let plan = NgPlan::new(&inst, &ng).expect("plan");
        let raw = ArcCosts::new(&inst, &Costs::Raw).expect("costs");
        let (q_serial, _) = one.install(|| timed(|| q_paths(&inst, &raw, false)));
        let (q_rayon, _) = timed(|| q_paths(&inst, &raw, true));
        let q_gpu = ctx.as_ref().map(|ctx| {
            let mut g = GpuQPaths::new(ctx, &inst).expect("GPU q-paths");
            g.fill(&raw).expect("GPU q-paths"); // warm-up
            timed(|| g.fill(&raw).expect("GPU q-paths")).0
        });
        let duals: Vec<ArcCosts> = (0..calls)
            .map(|k| ArcCosts::new(&inst, &Costs::Reduced(&random_duals(&inst, k + 1))).expect("duals"))
            .collect();
        let mut engines: Vec<(&str, bool, Engine)> = vec![
            (
                "dominated",
                false,
                Box::new(|a: &ArcCosts| {
                    let t = ng_paths_dominated(&inst, a, &ng, false, usize::MAX).expect("ng");
                    t.best_routes(&inst, a, 1, f64::INFINITY).first().map_or(0.0, |r| r.cost)
                }),
            ),
            (
                "dominated",
                true,
                Box::new(|a: &ArcCosts| {
                    let t = ng_paths_dominated(&inst, a, &ng, true, usize::MAX).expect("ng");
                    t.best_routes(&inst, a, 1, f64::INFINITY).first().map_or(0.0, |r| r.cost)
                }),
            ),
            (
                "dense",
                false,
                Box::new(|a: &ArcCosts| {
                    let t = vrp_ng_mirror(&inst, a, &plan, false, usize::MAX).expect("ng");
                    t.best_routes(&inst, a, 1, f64::INFINITY).first().map_or(0.0, |r| r.cost)
                }),
            ),
            (
                "dense",
                true,
                Box::new(|a: &ArcCosts| {
                    let t = vrp_ng_mirror(&inst, a, &plan, true, usize::MAX).expect("ng");
                    t.best_routes(&inst, a, 1, f64::INFINITY).first().map_or(0.0, |r| r.cost)
                }),
            ),
        ];
        let (mut gpu_setup, mut gpu_bytes) = (None, None);
        if let Some(ctx) = &ctx {
            let (s, mut pricer) = timed(|| GpuNgPricer::new(ctx, &inst, &ng).expect("GPU pricer"));
            gpu_setup = Some(s);
            gpu_bytes = Some(pricer.device_bytes());
            // Warm-up call (pipelines compile once per device).
            pricer.price(&raw, 1, f64::INFINITY).expect("GPU call");
            engines.push((
                "gpu",
                true,
                Box::new(move |a: &ArcCosts| {
                    let p = pricer.price(a, 1, f64::INFINITY).expect("GPU call");
                    p.routes.first().map_or(0.0, |r| r.cost)
                }),
            ));
        }
        let mut fields = vec![
            format!("\"instance\":{:?}", inst.name()),
            format!("\"n\":{}", inst.customers()),
            format!("\"capacity\":{}", inst.capacity()),
            format!("\"delta\":{delta}"),
            format!("\"threads\":{}", rayon::current_num_threads()),
            format!("\"near_pairs\":{}", plan.records.len() / 9),
            format!("\"q_serial_s\":{q_serial:.4}"),
            format!("\"q_rayon_s\":{q_rayon:.4}"),
        ];
        if let Some(t) = q_gpu {
            fields.push(format!("\"q_gpu_s\":{t:.4}"));
        }
        let mut answer: Option<f64> = None;
        for (name, parallel, engine) in &mut engines {
            let tag = if *name == "gpu" {
                name.to_string()
            } else if *parallel {
                format!("{name}_rayon")
            } else {
                format!("{name}_serial")
            };
            if !*parallel && inst.customers() > serial_max {
                continue;
            }
            let mut run = |a: &ArcCosts| if *parallel { engine(a) } else { one.install(|| engine(a)) };
            if *parallel {
                run(&raw); // warm-up: rayon's workers, the GPU's clocks
            }
            let (one_s, _) = timed(|| run(&raw));
            fields.push(format!("\"ng_{tag}_s\":{one_s:.4}"));
            // The dense mirror's serial sequence only repeats its one call (minutes on 400 customers).
            if *name == "dense" && !*parallel {
                continue;
            }
            let (seq_s, min) = timed(|| duals.iter().map(&mut run).fold(f64::INFINITY, f64::min));
            match answer {
                None => answer = Some(min),
                Some(a) => assert_eq!(a.to_bits(), min.to_bits(), "{tag} disagrees on {}", inst.name()),
            }
            fields.push(format!("\"seq_{tag}_s\":{seq_s:.3}"));
        }
        if let (Some(s), Some(b)) = (gpu_setup, gpu_bytes) {
            fields.push(format!("\"gpu_setup_s\":{s:.3}"));
            fields.push(format!("\"gpu_device_mb\":{:.1}", b as f64 / 1e6));
        }
        fields.push(format!("\"calls\":{calls}"));
        fields.push(format!("\"seq_min_reduced_cost\":{:.3}", answer.unwrap_or(f64::NAN)));
        println!("{{{}}}", fields.join(","));
    }
}
