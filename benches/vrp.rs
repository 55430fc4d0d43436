//! CVRP pricing DPs (issue 18): one q-path call, one ng-path call (exact states and with subset
//! dominance) and a 20-call sequence with changing duals (the pricing use case), serial against rayon,
//! on VRPLIB instances. One JSON line per instance. The GPU versions are not built yet.
//!
//! ```text
//! cargo bench --bench vrp -- --instances ../shared/data/vrp/X/X-n101-k25.vrp,../shared/data/vrp/X/X-n401-k29.vrp --delta 8
//! ```

#[allow(dead_code)]
mod common;

use std::time::Instant;

use common::arg;
use urbanflow::dp::vrp::vrplib::{Rounding, read_vrplib};
use urbanflow::dp::vrp::{ArcCosts, Costs, Cvrp, NgSets, ng_paths, ng_paths_dominated, q_paths};
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

fn main() {
    let instances = arg("--instances").expect("--instances F[,F…]");
    let delta: usize = arg("--delta").map_or(8, |s| s.parse().expect("--delta"));
    let calls: u64 = arg("--calls").map_or(20, |s| s.parse().expect("--calls"));
    let exact_max: usize = arg("--exact-max").map_or(usize::MAX, |s| s.parse().expect("--exact-max"));
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    eprintln!("threads: {}", rayon::current_num_threads());
    for path in instances.split(',') {
        let inst = read_vrplib(path, Rounding::Nint).expect("instance");
        let ng = NgSets::nearest(&inst, delta).expect("Δ");
        let raw = ArcCosts::new(&inst, &Costs::Raw).expect("costs");
        let (q_serial, _) = one.install(|| timed(|| q_paths(&inst, &raw, false)));
        let (q_rayon, _) = timed(|| q_paths(&inst, &raw, true));
        let (ng_serial, labels) = one
            .install(|| timed(|| ng_paths_dominated(&inst, &raw, &ng, false, usize::MAX).expect("ng").len()));
        let (ng_rayon, _) = timed(|| ng_paths_dominated(&inst, &raw, &ng, true, usize::MAX).expect("ng"));
        let (exact_rayon, exact_labels) = if inst.customers() <= exact_max {
            let (s, t) = timed(|| ng_paths(&inst, &raw, &ng, true, usize::MAX).expect("ng").len());
            (Some(s), Some(t))
        } else {
            (None, None)
        };
        // The pricing sequence: new duals each call.
        let duals: Vec<Vec<f64>> = (0..calls).map(|k| random_duals(&inst, k + 1)).collect();
        let seq = |parallel: bool| {
            timed(|| {
                let mut best = 0.0f64;
                for u in &duals {
                    let arcs = ArcCosts::new(&inst, &Costs::Reduced(u)).expect("duals");
                    let t = ng_paths_dominated(&inst, &arcs, &ng, parallel, usize::MAX).expect("ng");
                    best = best
                        .min(t.best_routes(&inst, &arcs, 1, f64::INFINITY).first().map_or(0.0, |r| r.cost));
                }
                best
            })
        };
        let (seq_serial, min_serial) = one.install(|| seq(false));
        let (seq_rayon, min_rayon) = seq(true);
        assert_eq!(min_serial, min_rayon, "serial and rayon disagree");
        let f = |x: Option<f64>| x.map_or("null".into(), |v| format!("{v:.4}"));
        let g = |x: Option<usize>| x.map_or("null".into(), |v| v.to_string());
        println!(
            "{{\"instance\":{:?},\"n\":{},\"capacity\":{},\"delta\":{delta},\"threads\":{},\"q_serial_s\":{q_serial:.4},\"q_rayon_s\":{q_rayon:.4},\"ng_labels\":{labels},\"ng_serial_s\":{ng_serial:.4},\"ng_rayon_s\":{ng_rayon:.4},\"ng_exact_labels\":{},\"ng_exact_rayon_s\":{},\"calls\":{calls},\"seq_serial_s\":{seq_serial:.3},\"seq_rayon_s\":{seq_rayon:.3},\"seq_min_reduced_cost\":{min_rayon:.3}}}",
            inst.name(),
            inst.customers(),
            inst.capacity(),
            rayon::current_num_threads(),
            g(exact_labels),
            f(exact_rayon),
        );
    }
}
