//! Matrix estimation from counts: the gradient against finite differences, the true matrix as a fixed
//! point, known matrices recovered from their counts, and count files that are refused with file:line.

mod support;

use std::path::{Path, PathBuf};

use algos_tap::multiclass::{UserClass, assign_classes};
use algos_tap::odme::{
    CountUnits, EquilibriumRoutes, LinkCounts, OdmeOptions, estimate_od, estimate_od_classes, perturbed,
};
use algos_tap::{Algorithm, AssignOptions, CostFactors, Demand, Link, Network, Stop, TapError, assign};
use graph_core::datasets::data_path;
use graph_core::rng::SplitMix64;
use proptest::prelude::*;
use support::grid_network;

fn tight() -> Stop {
    Stop { relative_gap: 1e-11, max_iterations: 5_000, ..Stop::default() }
}

/// `½ Σ w (v − ĉ)²` of flows `v` against `counts`.
fn objective(counts: &LinkCounts, v: &[f64]) -> f64 {
    counts
        .links()
        .iter()
        .zip(counts.counts())
        .zip(counts.weights())
        .map(|((&a, &c), &w)| 0.5 * w * (v[a as usize] - c).powi(2))
        .sum()
}

/// Counts on about a third of the links: the equilibrium flow times a seeded factor in [0.7, 1.3],
/// weights in [0.5, 2].
fn noisy_counts(net: &Network, flows: &[f64], seed: u64) -> LinkCounts {
    let mut rng = SplitMix64::new(seed);
    let mut rows = Vec::new();
    for a in 0..net.num_links() as u32 {
        if rng.below(3) == 0 {
            rows.push((a, flows[a as usize] * (0.7 + 0.6 * rng.unit_f64()), 0.5 + 1.5 * rng.unit_f64()));
        }
    }
    LinkCounts::new(net, rows).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Spiess's gradient is the derivative of the objective with the equilibrium's route proportions
    /// held: central differences of `Z` along single cells (flows by the backward pass, which is
    /// linear, so the differences are exact but for rounding) equal the forward pass's mean error
    /// costs, on congested grids where pairs split over several routes.
    #[test]
    fn gradient_equals_finite_differences_with_routes_held(seed in 0u64..1_000, side in 4u32..7, scale in 5.0f64..25.0) {
        let (net, demand) = grid_network(side, seed, scale);
        let (routes, solved) = EquilibriumRoutes::solve(&net, &demand, tight(), false, None).unwrap();
        prop_assert!(solved.converged);
        let counts = noisy_counts(&net, routes.flows(), seed + 1);
        let mut error = vec![0.0; net.num_links()];
        for ((&a, &c), &w) in counts.links().iter().zip(counts.counts()).zip(counts.weights()) {
            error[a as usize] = w * (routes.flows()[a as usize] - c);
        }
        let gradient = routes.od_mean_costs(&net, &error).unwrap();
        let scale_of = gradient.iter().fold(0.0f64, |m, g| m.max(g.abs())).max(1e-12);
        let g = demand.flows().to_vec();
        let mut rng = SplitMix64::new(seed + 2);
        for _ in 0..8 {
            let k = rng.below(g.len() as u64) as usize;
            let h = 1e-3 * g[k];
            let at = |delta: f64| {
                let mut v = g.clone();
                v[k] += delta;
                objective(&counts, &routes.route_flows(&net, &v).unwrap())
            };
            let fd = (at(h) - at(-h)) / (2.0 * h);
            prop_assert!((fd - gradient[k]).abs() <= 1e-6 * scale_of, "pair {k}: {fd} vs {}", gradient[k]);
        }
    }
}

/// The backward pass with the solved demand gives the solved flows back (the warm start moves
/// nothing), and the grids used above do split pairs over several routes.
#[test]
fn routes_reproduce_their_flows_and_split_pairs() {
    let (net, demand) = grid_network(6, 3, 20.0);
    let (routes, _) = EquilibriumRoutes::solve(&net, &demand, tight(), false, None).unwrap();
    let again = routes.route_flows(&net, demand.flows()).unwrap();
    let top = routes.flows().iter().fold(0.0f64, |m, &x| m.max(x));
    for (a, (x, y)) in routes.flows().iter().zip(&again).enumerate() {
        assert!((x - y).abs() <= 1e-9 * top, "link {a}: {x} vs {y}");
    }
    // One pair at a time: some link carries a share strictly between 0 and 1.
    let split = (0..demand.num_pairs()).any(|k| {
        let mut one = vec![0.0; demand.num_pairs()];
        one[k] = 1.0;
        routes.route_flows(&net, &one).unwrap().iter().any(|&p| p > 1e-3 && p < 1.0 - 1e-3)
    });
    assert!(split, "no pair uses two routes: the gradient tests would not test proportions");
}

/// What the gradient is not: the equilibrium's own response. Two roads, t1 = 10 + x/100 and t2 = 20:
/// 3000 trips split 1000 / 2000; one more trip goes wholly to road 2 (road 1's time is pinned at 20),
/// while the gradient spreads it a third / two thirds. Counting road 1 at 900: the gradient is
/// (1000 − 900) / 3, the equilibrium's derivative 0. docs/odme.md explains why the method holds the
/// proportions.
#[test]
fn gradient_holds_proportions_not_the_equilibrium_response() {
    let road = |t0, b| Link {
        from: 0,
        to: 1,
        capacity: 1000.0,
        length: 0.0,
        free_flow_time: t0,
        b,
        power: 1.0,
        toll: 0.0,
    };
    let net = Network::new(2, &[road(10.0, 1.0), road(20.0, 0.0)], 0, CostFactors::default()).unwrap();
    let demand = Demand::from_pairs(&net, [(0, 1, 3000.0)]).unwrap();
    let (routes, _) = EquilibriumRoutes::solve(&net, &demand, tight(), false, None).unwrap();
    let counts = LinkCounts::new(&net, [(0, 900.0, 1.0)]).unwrap();
    let error = [routes.flows()[0] - 900.0, 0.0];
    let gradient = routes.od_mean_costs(&net, &error).unwrap()[0];
    assert!((gradient - 100.0 / 3.0).abs() < 1e-6, "{gradient}");
    let resolved = |d: f64| {
        let demand = Demand::from_pairs(&net, [(0, 1, d)]).unwrap();
        let (r, _) = EquilibriumRoutes::solve(&net, &demand, tight(), false, None).unwrap();
        objective(&counts, r.flows())
    };
    let response = (resolved(3010.0) - resolved(2990.0)) / 20.0;
    assert!(response.abs() < 1e-6, "{response}");
}

fn sioux_falls() -> (Network, Demand) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data");
    let net = Network::read_tntp(dir.join("SiouxFalls_net.tntp"), CostFactors::default()).unwrap();
    let demand = Demand::read_tntp(dir.join("SiouxFalls_trips.tntp"), &net).unwrap();
    (net, demand)
}

/// Counts on every `every`-th link, made by assigning `truth` to a relative gap of 1e-10.
fn counts_of(net: &Network, truth: &Demand, every: usize) -> LinkCounts {
    let opts = AssignOptions { algorithm: Algorithm::AlgorithmB, ..Default::default() }.with_gap(1e-10);
    let flows = assign(net, truth, &opts).unwrap().flows;
    LinkCounts::new(net, (0..net.num_links() as u32).step_by(every).map(|a| (a, flows[a as usize], 1.0)))
        .unwrap()
}

#[test]
fn the_true_matrix_is_a_fixed_point() {
    let (net, truth) = sioux_falls();
    let counts = counts_of(&net, &truth, 3);
    let opts = OdmeOptions { outer_iterations: 5, inner: tight(), ..Default::default() };
    let result = estimate_od(&net, &truth, &counts, &opts, |_| {}).unwrap();
    for it in &result.history[1..] {
        assert!(it.min_factor > 1.0 - 1e-6 && it.max_factor < 1.0 + 1e-6, "{it:?}");
    }
    for (g, t) in result.demand.flows().iter().zip(truth.flows()) {
        assert!((g - t).abs() <= 1e-6 * t, "{g} vs {t}");
    }
    assert!(result.last().fit.rmse < 1e-3, "{:?}", result.last().fit);
}

/// From a perturbed seed, counts made from the true matrix are reproduced: RMSE down by ≥ 90 %,
/// the objective never up between outer iterations.
fn recovers(net: &Network, truth: &Demand, every: usize, outer: u32, inner_gap: f64) {
    let counts = counts_of(net, truth, every);
    let seed = perturbed(truth, 0.5, 42).unwrap();
    let inner = Stop { relative_gap: inner_gap, ..Stop::default() };
    let opts = OdmeOptions { outer_iterations: outer, inner, ..Default::default() };
    let result = estimate_od(net, &seed, &counts, &opts, |_| {}).unwrap();
    let (first, last) = (result.history[0].fit, result.last().fit);
    assert!(last.rmse <= 0.1 * first.rmse, "RMSE {} → {}", first.rmse, last.rmse);
    for w in result.history.windows(2) {
        assert!(w[1].fit.objective <= w[0].fit.objective, "objective up: {:?} → {:?}", w[0], w[1]);
    }
    assert!(result.reached_target, "{last:?}");
}

#[test]
fn sioux_falls_counts_of_a_known_matrix_are_reproduced() {
    let (net, truth) = sioux_falls();
    recovers(&net, &truth, 2, 30, 1e-4);
}

#[test]
fn chicago_sketch_counts_of_a_known_matrix_are_reproduced() {
    let Some(dir) = data_path("tntp/Chicago-Sketch", "ODME on Chicago-Sketch") else { return };
    let net =
        Network::read_tntp(dir.join("ChicagoSketch_net.tntp"), CostFactors { toll: 0.02, distance: 0.04 })
            .unwrap();
    let truth = Demand::read_tntp(dir.join("ChicagoSketch_trips.tntp.xz"), &net).unwrap();
    recovers(&net, &truth, 8, 20, 1e-6);
}

#[test]
fn chicago_sketch_measured_counts_are_read_whole() {
    let Some(file) = data_path("counts/chicago-sketch/measurement.csv", "Chicago-Sketch counts") else {
        return;
    };
    let dir = file.parent().unwrap().join("../../tntp/Chicago-Sketch");
    let net = Network::read_tntp(dir.join("ChicagoSketch_net.tntp"), CostFactors::default()).unwrap();
    let counts = LinkCounts::read_csv(&file, &net).unwrap();
    assert_eq!(counts.len(), 374);
    assert!(counts.counts().iter().all(|&c| c > 0.0));
}

/// A count file in a temporary folder.
fn count_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("urbanflow-odme-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn bad_count_files_are_refused_with_file_and_line() {
    let (net, _) = sioux_falls();
    let ok =
        LinkCounts::read_csv(count_file("ok.csv", "from,to,count,weight\n1,2,4494.6,2\n2,1,4518.0,\n"), &net)
            .unwrap();
    assert_eq!(
        (ok.links(), ok.counts(), ok.weights()),
        (&[0u32, 2][..], &[4494.6, 4518.0][..], &[2.0, 1.0][..])
    );
    let by_number = LinkCounts::read_csv(count_file("n.csv", "link,count\n76,10\n"), &net).unwrap();
    assert_eq!(by_number.links(), &[75]);
    let cases = [
        ("unknown.csv", "from,to,count\n1,2,5\n1,24,5\n", 3, "no link from node 1 to node 24"),
        ("negative.csv", "from,to,count\n1,2,-5\n", 2, "expected a finite count ≥ 0"),
        ("text.csv", "from,to,count\n1,2,many\n", 2, "count `many`: expected a number"),
        ("twice.csv", "from,to,count\n1,2,5\n1,3,5\n1,2,6\n", 4, "counted twice (first on line 2)"),
        ("header.csv", "a,b,c\n1,2,5\n", 1, "no count column"),
        ("nodes.csv", "from,count\n1,5\n", 1, "links named neither"),
        ("number.csv", "link,count\n77,5\n", 2, "expected a link number from 1 to 76"),
        (
            "class.csv",
            "from,to,count,class\n1,2,5,\n1,2,1,trucks\n1,2,2,trucks\n",
            4,
            "counted twice for class trucks (first on line 3)",
        ),
        (
            "zone.csv",
            "measurement_type,from_node_id,to_node_id,count\nproduction,1,2,5\n",
            2,
            "measurement_type",
        ),
        ("bound.csv", "from,to,count,upper_bound_flag\n1,2,5,1\n", 2, "upper_bound_flag"),
        ("weight.csv", "from,to,count,weight\n1,2,5,0\n", 2, "expected a finite weight > 0"),
        ("short.csv", "from,to,count\n1,2\n", 2, ""),
        ("empty.csv", "from,to,count\n", 1, "no counts"),
        ("mismatch.csv", "link,from,to,count\n1,1,3,5\n", 2, "link 1 runs from 1 to 2, not from 1 to 3"),
    ];
    for (name, text, line, message) in cases {
        let path = count_file(name, text);
        match LinkCounts::read_csv(&path, &net) {
            Err(e @ TapError::TableFile { .. }) => {
                let shown = e.to_string();
                assert!(shown.starts_with(&format!("{}:{line}: ", path.display())), "{name}: {shown}");
                assert!(shown.contains(message), "{name}: {shown}");
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[test]
fn parallel_links_must_be_named_by_number() {
    let road = |from, to| Link {
        from,
        to,
        capacity: 10.0,
        length: 1.0,
        free_flow_time: 1.0,
        b: 0.15,
        power: 4.0,
        toll: 0.0,
    };
    let net = Network::new(2, &[road(0, 1), road(0, 1)], 0, CostFactors::default()).unwrap();
    let err = LinkCounts::read_csv(count_file("parallel.csv", "from,to,count\n1,2,5\n"), &net).unwrap_err();
    assert!(err.to_string().contains("several links from 1 to 2"), "{err}");
    let counts = LinkCounts::read_csv(count_file("parallel-n.csv", "link,count\n2,5\n"), &net).unwrap();
    assert_eq!(counts.links(), &[1]);
    let counts =
        LinkCounts::read_csv(count_file("parallel-nodes.csv", "link,from,to,count\n2,1,2,5\n"), &net)
            .unwrap();
    assert_eq!(counts.links(), &[1]);
}

#[test]
fn options_out_of_range_are_errors() {
    let (net, demand) = sioux_falls();
    let counts = LinkCounts::new(&net, [(0, 100.0, 1.0)]).unwrap();
    for opts in [
        OdmeOptions { max_change: 1.0, ..Default::default() },
        OdmeOptions { target_geh_share: 1.5, ..Default::default() },
        OdmeOptions { inner: Stop { max_iterations: 0, ..Stop::default() }, ..Default::default() },
    ] {
        let err = estimate_od(&net, &demand, &counts, &opts, |_| {}).unwrap_err();
        assert!(matches!(err, TapError::InvalidOption(_)), "{err}");
    }
}

#[test]
fn estimates_do_not_depend_on_the_thread_count() {
    let (net, truth) = grid_network(8, 5, 15.0);
    let counts = counts_of(&net, &truth, 2);
    let seed = perturbed(&truth, 0.3, 9).unwrap();
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let opts = OdmeOptions { outer_iterations: 4, ..Default::default() };
        pool.install(|| estimate_od(&net, &seed, &counts, &opts, |_| {}).unwrap())
    };
    let (one, four) = (run(1), run(4));
    assert_eq!(one.demand, four.demand);
    assert_eq!(one.flows, four.flows);
}

#[test]
fn a_cancelled_estimate_returns_what_it_has() {
    let (net, truth) = sioux_falls();
    let counts = counts_of(&net, &truth, 3);
    let flag = std::sync::atomic::AtomicBool::new(true);
    let opts = OdmeOptions { cancel: Some(&flag), ..Default::default() };
    let seed = truth.scaled(1.2);
    let r = estimate_od(&net, &seed, &counts, &opts, |_| {}).unwrap();
    assert_eq!((r.stopped.as_str(), r.history.len()), ("cancelled", 1));
    assert_eq!(r.demand, seed);
}

/// Cars, and trucks at PCE 2.5 paying 0.3 per unit of length and banned from links 20 and 45.
fn cars_and_trucks(net: &Network, cars: Demand, trucks: Demand) -> [UserClass; 2] {
    let trucks = UserClass { banned: vec![20, 45], ..UserClass::new("trucks", trucks) }
        .with_pce(2.5)
        .with_factors(net, 0.0, 0.3);
    [UserClass::new("cars", cars), trucks]
}

/// Counts of all vehicles (in `units`) on every `every_all`-th link and of trucks (vehicles) on every
/// `every_truck`-th, made by assigning `classes` to a relative gap of 1e-10.
fn class_counts_of(
    net: &Network,
    classes: &[UserClass],
    (every_all, every_truck): (usize, usize),
    units: CountUnits,
) -> LinkCounts {
    let opts = AssignOptions { algorithm: Algorithm::AlgorithmB, ..Default::default() }.with_gap(1e-10);
    let r = assign_classes(net, classes, &opts).unwrap();
    let trucks = &r.classes[1].vehicles;
    let all = (0..net.num_links()).step_by(every_all).map(|a| {
        let count = match units {
            CountUnits::Pce => r.pce_flows[a],
            CountUnits::Vehicles => r.classes[0].vehicles[a] + trucks[a],
        };
        (a as u32, count, 1.0, None)
    });
    let by_truck = (0..net.num_links())
        .step_by(every_truck)
        .map(|a| (a as u32, trucks[a], 1.0, Some("trucks".to_string())));
    LinkCounts::by_class(net, all.chain(by_truck)).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    /// With several classes, each class's gradient is the derivative of the objective along its own
    /// cells with every class's routes held: counts of all vehicles see every class, counts of trucks
    /// only trucks (central differences, as for one class).
    #[test]
    fn class_gradients_equal_finite_differences_with_routes_held(seed in 0u64..1_000, side in 4u32..6, scale in 5.0f64..20.0) {
        let (net, demand) = grid_network(side, seed, scale);
        let classes = [
            UserClass::new("cars", demand.scaled(0.8)),
            UserClass::new("trucks", demand.scaled(0.2)).with_pce(2.5).with_factors(&net, 0.0, 0.5),
        ];
        let (routes, solved) = EquilibriumRoutes::solve_classes(&net, &classes, tight(), false, None).unwrap();
        prop_assert!(solved.converged);
        let vehicles = [routes.class_flows(0), routes.class_flows(1)];
        let mut rng = SplitMix64::new(seed + 1);
        let mut rows = Vec::new();
        for (a, (&cars, &trucks)) in vehicles[0].iter().zip(&vehicles[1]).enumerate() {
            let noise = 0.7 + 0.6 * rng.unit_f64();
            let weight = 0.5 + rng.unit_f64();
            match rng.below(4) {
                0 => rows.push((a as u32, (cars + trucks) * noise, weight, None)),
                1 => rows.push((a as u32, trucks * noise, weight, Some("trucks".to_string()))),
                _ => {}
            }
        }
        let counts = LinkCounts::by_class(&net, rows).unwrap();
        // Z from each class's vehicles along its held routes.
        let z = |v: [&[f64]; 2]| -> f64 {
            (0..counts.len())
                .map(|i| {
                    let a = counts.links()[i] as usize;
                    let flow = if counts.class_of(i).is_some() { v[1][a] } else { v[0][a] + v[1][a] };
                    0.5 * counts.weights()[i] * (flow - counts.counts()[i]).powi(2)
                })
                .sum()
        };
        let mut errors = [vec![0.0; net.num_links()], vec![0.0; net.num_links()]];
        for i in 0..counts.len() {
            let a = counts.links()[i] as usize;
            let trucks_only = counts.class_of(i).is_some();
            let flow = if trucks_only { vehicles[1][a] } else { vehicles[0][a] + vehicles[1][a] };
            let e = counts.weights()[i] * (flow - counts.counts()[i]);
            errors[1][a] += e;
            if !trucks_only {
                errors[0][a] += e;
            }
        }
        for k in 0..2 {
            let gradient = routes.class_od_mean_costs(&net, k, &errors[k]).unwrap();
            let scale_of = gradient.iter().fold(0.0f64, |m, g| m.max(g.abs())).max(1e-12);
            let g = classes[k].demand.flows().to_vec();
            let other = routes.class_route_flows(&net, 1 - k, classes[1 - k].demand.flows()).unwrap();
            for _ in 0..6 {
                let cell = rng.below(g.len() as u64) as usize;
                let h = 1e-3 * g[cell];
                let at = |delta: f64| {
                    let mut v = g.clone();
                    v[cell] += delta;
                    let mine = routes.class_route_flows(&net, k, &v).unwrap();
                    if k == 0 { z([&mine, &other]) } else { z([&other, &mine]) }
                };
                let fd = (at(h) - at(-h)) / (2.0 * h);
                prop_assert!((fd - gradient[cell]).abs() <= 1e-6 * scale_of, "class {k} pair {cell}: {fd} vs {}", gradient[cell]);
            }
        }
    }
}

#[test]
fn one_class_estimates_as_the_single_class_estimate() {
    let (net, truth) = sioux_falls();
    let counts = counts_of(&net, &truth, 3);
    let seed = perturbed(&truth, 0.3, 5).unwrap();
    let opts = OdmeOptions { outer_iterations: 3, ..Default::default() };
    let single = estimate_od(&net, &seed, &counts, &opts, |_| {}).unwrap();
    let classes = estimate_od_classes(&net, &[UserClass::new("all", seed)], &counts, &opts, |_| {}).unwrap();
    assert_eq!(
        (&single.demand, &single.flows, &single.counted),
        (&classes.demand, &classes.flows, &classes.counted)
    );
    let fits =
        |r: &algos_tap::odme::OdmeResult| r.history.iter().map(|h| (h.fit, h.step)).collect::<Vec<_>>();
    assert_eq!(fits(&single), fits(&classes));
}

#[test]
fn true_class_matrices_are_a_fixed_point() {
    let (net, truth) = sioux_falls();
    let classes = cars_and_trucks(&net, truth.scaled(0.85), truth.scaled(0.15));
    let counts = class_counts_of(&net, &classes, (3, 5), CountUnits::Pce);
    let opts = OdmeOptions {
        outer_iterations: 4,
        inner: tight(),
        all_counts: Some(CountUnits::Pce),
        ..Default::default()
    };
    let result = estimate_od_classes(&net, &classes, &counts, &opts, |_| {}).unwrap();
    for it in &result.history[1..] {
        assert!(it.min_factor > 1.0 - 1e-6 && it.max_factor < 1.0 + 1e-6, "{it:?}");
    }
    for (estimate, class) in result.classes.iter().zip(&classes) {
        for (g, t) in estimate.demand.flows().iter().zip(class.demand.flows()) {
            assert!((g - t).abs() <= 1e-6 * t, "{}: {g} vs {t}", class.name);
        }
    }
    assert!(result.last().fit.rmse < 1e-3, "{:?}", result.last().fit);
}

/// From seeds perturbed by σ = 0.5, counts of all classes (every second link) and of trucks (every
/// third) made from known class matrices are reproduced: in PCE units to the GEH target in 40 outer
/// iterations; in vehicles, where steps of all classes together stall (docs/odme.md), by steps of one
/// class at a time, RMSE down ≥ 90 % in 30. The objective never rises.
#[test]
fn class_counts_of_known_matrices_are_reproduced() {
    let (net, truth) = sioux_falls();
    let classes = cars_and_trucks(&net, truth.scaled(0.85), truth.scaled(0.15));
    let seeds = cars_and_trucks(
        &net,
        perturbed(&classes[0].demand, 0.5, 42).unwrap(),
        perturbed(&classes[1].demand, 0.5, 43).unwrap(),
    );
    for (units, outer) in [(CountUnits::Pce, 40), (CountUnits::Vehicles, 30)] {
        let counts = class_counts_of(&net, &classes, (2, 3), units);
        let opts = OdmeOptions { outer_iterations: outer, all_counts: Some(units), ..Default::default() };
        let result = estimate_od_classes(&net, &seeds, &counts, &opts, |_| {}).unwrap();
        let (first, last) = (result.history[0].fit, result.last().fit);
        assert!(last.rmse <= 0.1 * first.rmse, "{units:?}: RMSE {} → {}", first.rmse, last.rmse);
        for w in result.history.windows(2) {
            assert!(w[1].fit.objective <= w[0].fit.objective, "objective up: {:?} → {:?}", w[0], w[1]);
        }
        assert!(units == CountUnits::Vehicles || result.reached_target, "{last:?}");
        // Banned links carry no trucks; counted flows are the classes' vehicles.
        let trucks = &result.classes[1].vehicles;
        assert_eq!((trucks[20], trucks[45]), (0.0, 0.0));
        let pce = if units == CountUnits::Pce { 2.5 } else { 1.0 };
        for c in &result.counted {
            let a = c.link as usize;
            let expected = match c.class.as_deref() {
                Some("trucks") => trucks[a],
                None => result.classes[0].vehicles[a] + pce * trucks[a],
                other => panic!("{other:?}"),
            };
            assert_eq!(c.flow, expected);
        }
    }
}

#[test]
fn class_counts_need_their_classes() {
    let (net, truth) = sioux_falls();
    let counts = LinkCounts::by_class(&net, [(0, 10.0, 1.0, Some("buses".to_string()))]).unwrap();
    let opts = OdmeOptions::default();
    let err = estimate_od(&net, &truth, &counts, &opts, |_| {}).unwrap_err();
    assert!(err.to_string().contains("counts of class buses"), "{err}");
    let classes = cars_and_trucks(&net, truth.scaled(0.9), truth.scaled(0.1));
    let err = estimate_od_classes(&net, &classes, &counts, &opts, |_| {}).unwrap_err();
    assert!(err.to_string().contains("not one of the classes (cars, trucks)"), "{err}");
    // Counts of all classes beside a class of PCE 2.5: vehicles or PCE units must be said.
    let all = LinkCounts::new(&net, [(0, 10.0, 1.0)]).unwrap();
    let err = estimate_od_classes(&net, &classes, &all, &opts, |_| {}).unwrap_err();
    assert!(err.to_string().contains("say whether they count vehicles or PCE"), "{err}");
    let both = LinkCounts::read_csv(
        count_file("classes.csv", "from,to,count,class\n1,2,50,\n1,2,5,trucks\n2,1,7,all\n"),
        &net,
    )
    .unwrap();
    assert_eq!(
        (both.len(), both.class_of(0), both.class_of(1), both.class_of(2)),
        (3, None, Some("trucks"), None)
    );
}

#[test]
fn a_class_without_demand_stays_without() {
    // A class scaled to nothing (a class file's share 0) keeps its pairs at zero: its cells are never
    // moved, and the other class fits the counts alone.
    let (net, truth) = sioux_falls();
    let counts = counts_of(&net, &truth, 3);
    let classes =
        [UserClass::new("cars", truth.scaled(1.2)), UserClass::new("buses", truth.scaled(0.0)).with_pce(3.0)];
    let opts =
        OdmeOptions { outer_iterations: 5, all_counts: Some(CountUnits::Vehicles), ..Default::default() };
    let r = estimate_od_classes(&net, &classes, &counts, &opts, |_| {}).unwrap();
    assert!(r.classes[1].demand.flows().iter().all(|&g| g == 0.0));
    assert!(r.classes[1].vehicles.iter().all(|&v| v == 0.0));
    assert!(r.last().fit.rmse < 0.5 * r.history[0].fit.rmse, "{:?}", r.last().fit);
}
