//! Matrix estimation's passes over the routes on the GPU (`shaders/bush_passes.wgsl`) against their CPU
//! twins (`BushSolver::od_mean_costs`, `BushSolver::route_flows`) on every adapter: congested grids with
//! the bushes in one block and in several, both classes of a cars-and-trucks equilibrium, and whole
//! estimations on Sioux Falls.

mod support;

use std::path::Path;

use algos_tap::multiclass::UserClass;
use algos_tap::odme::{
    CountUnits, EquilibriumRoutes, LinkCounts, OdmeOptions, estimate_od_classes, perturbed,
};
use algos_tap::{CostFactors, Demand, Network, Stop};
use gpu_runtime::Backend;
use gpu_runtime::testing::for_each_context;
use graph_core::rng::SplitMix64;
use support::grid_network;

/// The largest difference relative to the largest magnitude of `b`.
fn relative_difference(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    let top = b.iter().fold(0.0f64, |m, x| m.max(x.abs())).max(f64::MIN_POSITIVE);
    a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs())) / top
}

/// Both passes of every class on the CPU and on `ctx` (in blocks of `block_bytes`), with seeded
/// link costs of both signs and seeded pair values.
fn passes_agree(
    ctx: &gpu_runtime::GpuContext,
    net: &Network,
    routes: &EquilibriumRoutes,
    block_bytes: Option<usize>,
    seed: u64,
) {
    let mut rng = SplitMix64::new(seed);
    for class in 0..routes.num_classes() {
        let cpu = routes.passes(Backend::Cpu, class).unwrap();
        let gpu = routes.passes_in_blocks(Backend::Gpu(ctx), class, block_bytes).unwrap();
        assert!(gpu.on_gpu() && !cpu.on_gpu());
        let cost: Vec<f64> = (0..net.num_links()).map(|_| 100.0 * rng.unit_f64() - 40.0).collect();
        let (want, got) = (cpu.od_mean_costs(net, &cost).unwrap(), gpu.od_mean_costs(net, &cost).unwrap());
        let dm = relative_difference(&got, &want);
        assert!(dm < 1e-9, "class {class}: mean costs differ by {dm:e} on {}", ctx.describe());
        let pairs = want.len();
        let values: Vec<f64> = (0..pairs).map(|_| 50.0 * rng.unit_f64() - 10.0).collect();
        let (want, got) = (cpu.route_flows(net, &values).unwrap(), gpu.route_flows(net, &values).unwrap());
        let d = relative_difference(&got, &want);
        assert!(d < 1e-9, "class {class}: route flows differ by {d:e} on {}", ctx.describe());
        eprintln!("class {class}: mean costs within {dm:e}, route flows within {d:e} of the CPU's");
        // Refused like the CPU's: a vector of the wrong length.
        assert!(gpu.route_flows(net, &values[1..]).is_err());
        assert!(gpu.od_mean_costs(net, &cost[1..]).is_err());
    }
}

#[test]
fn gpu_passes_equal_the_cpu_on_congested_grids_in_one_block_and_several() {
    for_each_context("gpu_passes_equal_the_cpu_on_congested_grids_in_one_block_and_several", |ctx| {
        // Any routes do: the passes need bushes with split flows, not a converged equilibrium.
        let stop = Stop { relative_gap: 1e-5, max_iterations: 200, ..Stop::default() };
        if !ctx.features().f64 {
            let (net, demand) = grid_network(4, 1, 10.0);
            let (routes, _) = EquilibriumRoutes::solve(&net, &demand, stop, false, None).unwrap();
            let err = routes.passes(Backend::Gpu(ctx), 0).err().expect("needs f64");
            assert!(err.to_string().contains("f64"), "{err}");
            return;
        }
        for (seed, side, scale) in [(3u64, 5u32, 20.0), (7, 7, 12.0), (11, 9, 8.0)] {
            let (net, demand) = grid_network(side, seed, scale);
            let (routes, _) = EquilibriumRoutes::solve(&net, &demand, stop, false, None).unwrap();
            passes_agree(ctx, &net, &routes, None, seed);
        }
        // 192 origins: three chunks of bushes, each in its own block, sums carried across blocks.
        let (net, demand) = grid_network(24, 5, 3.0);
        assert!(demand.num_origins() > 128);
        let (routes, _) = EquilibriumRoutes::solve(&net, &demand, stop, false, None).unwrap();
        passes_agree(ctx, &net, &routes, None, 5);
        passes_agree(ctx, &net, &routes, Some(1 << 20), 6);
        // Too small a block for one chunk of bushes is an error, not a wrong answer.
        let err = routes.passes_in_blocks(Backend::Gpu(ctx), 0, Some(4096)).err().expect("too small");
        assert!(err.to_string().contains("exceed a block"), "{err}");
    });
}

fn sioux_falls_classes() -> (Network, [UserClass; 2]) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data");
    let net = Network::read_tntp(dir.join("SiouxFalls_net.tntp"), CostFactors::default()).unwrap();
    let trips = Demand::read_tntp(dir.join("SiouxFalls_trips.tntp"), &net).unwrap();
    let cars = trips.scaled(0.85);
    let trucks = trips.scaled(0.15);
    let trucks = UserClass { banned: vec![20, 45], ..UserClass::new("trucks", trucks) }
        .with_pce(2.5)
        .with_factors(&net, 0.0, 0.3);
    (net, [UserClass::new("cars", cars), trucks])
}

#[test]
fn gpu_estimates_equal_the_cpu_on_sioux_falls_cars_and_trucks() {
    for_each_context("gpu_estimates_equal_the_cpu_on_sioux_falls_cars_and_trucks", |ctx| {
        if !ctx.features().f64 {
            return;
        }
        let (net, truth) = sioux_falls_classes();
        let stop = Stop { relative_gap: 1e-8, max_iterations: 2_000, ..Stop::default() };
        let (routes, _) = EquilibriumRoutes::solve_classes(&net, &truth, stop, false, None).unwrap();
        passes_agree(ctx, &net, &routes, None, 9);
        // Counts of all classes (PCE units) on every second link, of trucks on every third.
        let (pce, trucks) = (routes.flows().to_vec(), routes.class_flows(1));
        let rows = (0..net.num_links()).step_by(2).map(|a| (a as u32, pce[a], 1.0, None)).chain(
            (0..net.num_links()).step_by(3).map(|a| (a as u32, trucks[a], 1.0, Some("trucks".to_string()))),
        );
        let counts = LinkCounts::by_class(&net, rows).unwrap();
        let seeds: Vec<UserClass> = truth
            .iter()
            .enumerate()
            .map(|(k, c)| UserClass {
                demand: perturbed(&c.demand, 0.5, 42 + k as u64).unwrap(),
                ..c.clone()
            })
            .collect();
        let inner = Stop { relative_gap: 1e-6, ..Stop::default() };
        let opts = |backend| OdmeOptions {
            outer_iterations: 4,
            inner,
            all_counts: Some(CountUnits::Pce),
            backend,
            ..Default::default()
        };
        let cpu = estimate_od_classes(&net, &seeds, &counts, &opts(Backend::Cpu), |_| {}).unwrap();
        let gpu = estimate_od_classes(&net, &seeds, &counts, &opts(Backend::Gpu(ctx)), |_| {}).unwrap();
        assert_eq!(cpu.passes_on, "cpu");
        assert!(gpu.passes_on.starts_with("gpu ("), "{}", gpu.passes_on);
        assert_eq!(cpu.history.len(), gpu.history.len());
        for (c, g) in cpu.history.iter().zip(&gpu.history) {
            let d = (c.fit.objective - g.fit.objective).abs() / c.fit.objective;
            assert!(d < 1e-9, "objective {} vs {} on {}", c.fit.objective, g.fit.objective, ctx.describe());
            assert_eq!(c.halvings, g.halvings);
        }
        assert!(cpu.last().fit.objective < 0.5 * cpu.history[0].fit.objective);
        for (c, g) in cpu.classes.iter().zip(&gpu.classes) {
            let d = relative_difference(g.demand.flows(), c.demand.flows());
            assert!(d < 1e-9, "class {}: estimates differ by {d:e}", c.name);
        }
    });
}
