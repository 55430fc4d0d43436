//! Multi-class assignment against the single-class solver where they must agree (one class, two equal
//! halves, PCE scaling, fixed costs as network tolls), and class rules (bans, PCE) on Sioux Falls with a
//! per-class equilibrium check.

use std::path::PathBuf;

use algos_sssp::many::Method;
use algos_tap::multiclass::{UserClass, assign_classes};
use algos_tap::skim::shortest_path;
use algos_tap::{Algorithm, AssignOptions, CostFactors, Demand, Network, Stop, TapError, assign};

fn bundled(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data").join(name)
}

fn sioux_falls(factors: CostFactors) -> (Network, Demand) {
    let net = Network::read_tntp(bundled("SiouxFalls_net.tntp"), factors).unwrap();
    let demand = Demand::read_tntp(bundled("SiouxFalls_trips.tntp"), &net).unwrap();
    (net, demand)
}

fn opts(algorithm: Algorithm, gap: f64) -> AssignOptions<'static> {
    AssignOptions {
        algorithm,
        stop: Stop { relative_gap: gap, max_iterations: 5000, ..Stop::default() },
        ..AssignOptions::default()
    }
}

#[test]
fn reduces_to_the_single_class_solver() {
    let (net, demand) = sioux_falls(CostFactors::default());
    for algorithm in [Algorithm::Msa, Algorithm::FrankWolfe, Algorithm::ConjugateFw, Algorithm::BiconjugateFw]
    {
        let o = AssignOptions {
            stop: Stop { relative_gap: 1e-4, max_iterations: 300, ..Stop::default() },
            ..opts(algorithm, 1e-4)
        };
        let single = assign(&net, &demand, &o).unwrap();
        // One class: the same iterations, bit for bit.
        let one = assign_classes(&net, &[UserClass::new("all", demand.clone())], &o).unwrap();
        assert_eq!(one.pce_flows, single.flows, "{algorithm}: one class");
        assert_eq!(one.classes[0].vehicles, single.flows);
        assert_eq!(one.history.len(), single.history.len());
        // Two equal halves: the same totals (halving and doubling are exact in binary).
        let half = demand.scaled(0.5);
        let two = [UserClass::new("a", half.clone()), UserClass::new("b", half.clone())];
        let r = assign_classes(&net, &two, &o).unwrap();
        assert_eq!(r.pce_flows, single.flows, "{algorithm}: two halves");
        // Half the vehicles at PCE 2: the same PCE flows, half of them in vehicles.
        let r = assign_classes(&net, &[UserClass::new("big", half).with_pce(2.0)], &o).unwrap();
        assert_eq!(r.pce_flows, single.flows, "{algorithm}: PCE 2");
        let veh: Vec<f64> = single.flows.iter().map(|f| f / 2.0).collect();
        assert_eq!(r.classes[0].vehicles, veh);
    }
}

#[test]
fn fixed_costs_equal_network_tolls() {
    // A class paying 0.5 per unit of length equals the single-class network with distance factor 0.5.
    let (tolled, demand) = sioux_falls(CostFactors { toll: 0.0, distance: 0.5 });
    let (plain, _) = sioux_falls(CostFactors::default());
    let o = opts(Algorithm::BiconjugateFw, 1e-6);
    let single = assign(&tolled, &demand, &o).unwrap();
    let class = UserClass::new("paying", demand).with_factors(&plain, 0.0, 0.5);
    let r = assign_classes(&plain, &[class], &o).unwrap();
    let gaps = (r.history.last().unwrap().relative_gap, single.history.last().unwrap().relative_gap);
    assert!(r.converged && single.converged, "gaps {gaps:?}");
    let max = single.flows.iter().cloned().fold(0.0, f64::max);
    for (a, (x, y)) in r.pce_flows.iter().zip(&single.flows).enumerate() {
        assert!((x - y).abs() <= 1e-3 * max, "link {a}: {x} vs {y}");
    }
    let (zr, zs) = (r.history.last().unwrap().objective, single.history.last().unwrap().objective);
    assert!((zr - zs).abs() <= 1e-7 * zs, "{zr} vs {zs}");
}

#[test]
fn one_class_on_the_hierarchy_is_the_single_class_solver_on_it() {
    let (net, demand) = sioux_falls(CostFactors::default());
    let o = AssignOptions { trees: Method::Phast, ..opts(Algorithm::BiconjugateFw, 1e-5) };
    let single = assign(&net, &demand, &o).unwrap();
    let one = assign_classes(&net, &[UserClass::new("all", demand.clone())], &o).unwrap();
    assert_eq!(one.history.len(), single.history.len());
    assert_eq!(one.pce_flows, single.flows);
}

#[test]
fn cars_and_trucks_each_at_equilibrium() {
    // The same equilibrium from f64 trees and from the shared hierarchy's fixed-point trees.
    let mut by_trees = Vec::new();
    for trees in [Method::Trees, Method::Phast] {
        let r = cars_and_trucks(trees);
        by_trees.push(r.pce_flows);
    }
    let max = by_trees[0].iter().cloned().fold(0.0, f64::max);
    for (a, (x, y)) in by_trees[0].iter().zip(&by_trees[1]).enumerate() {
        assert!((x - y).abs() <= 2e-3 * max, "link {a}: dijkstra {x} vs phast {y}");
    }
}

fn cars_and_trucks(trees: Method) -> algos_tap::multiclass::MultiAssignment {
    let (net, demand) = sioux_falls(CostFactors::default());
    let banned = vec![20u32, 45];
    let cars = UserClass::new("cars", demand.scaled(0.9));
    let trucks =
        UserClass { banned: banned.clone(), ..UserClass::new("trucks", demand.scaled(0.1)) }.with_pce(2.5);
    let o = AssignOptions { trees, ..opts(Algorithm::BiconjugateFw, 1e-6) };
    let r = assign_classes(&net, &[cars, trucks], &o).unwrap();
    assert!(r.converged, "{trees:?}");
    for &a in &banned {
        assert_eq!(r.classes[1].vehicles[a as usize], 0.0);
        assert!(r.classes[1].costs[a as usize].is_infinite());
    }
    each_class_at_equilibrium(&net, &r, &[demand.scaled(0.9), demand.scaled(0.1)], 1e-4);
    r
}

/// Totals are the PCE-weighted (1 and 2.5) sum of the two classes, and each class's own gap at its own
/// costs is below `gap`: its flows cost no more than its shortest paths, to that share.
fn each_class_at_equilibrium(
    net: &Network,
    r: &algos_tap::multiclass::MultiAssignment,
    demands: &[Demand],
    gap: f64,
) {
    for a in 0..net.num_links() {
        let sum = r.classes[0].vehicles[a] + 2.5 * r.classes[1].vehicles[a];
        assert!((sum - r.pce_flows[a]).abs() <= 1e-9 * r.pce_flows[a].max(1.0));
    }
    for (c, d) in r.classes.iter().zip(demands) {
        let cost_of_flows: f64 =
            c.vehicles.iter().zip(&c.costs).filter(|(v, _)| **v > 0.0).map(|(v, k)| v * k).sum();
        let mut shortest = 0.0;
        for (o, dd, f) in d.pairs() {
            let route = shortest_path(net, &c.costs, o, dd).unwrap();
            shortest += f * route.iter().map(|&a| c.costs[a]).sum::<f64>();
        }
        let class_gap = (cost_of_flows - shortest) / cost_of_flows;
        assert!((-1e-12..gap).contains(&class_gap), "{}: gap {class_gap}", c.name);
    }
}

#[test]
fn bad_classes_are_refused() {
    let (net, demand) = sioux_falls(CostFactors::default());
    let bad = |classes: &[UserClass], o: &AssignOptions| {
        matches!(assign_classes(&net, classes, o), Err(TapError::InvalidOption(_)))
    };
    let o = AssignOptions::default();
    assert!(bad(&[], &o));
    assert!(bad(&[UserClass::new("x", demand.clone()).with_pce(0.0)], &o));
    assert!(bad(&[UserClass { banned: vec![76], ..UserClass::new("x", demand.clone()) }], &o));
    assert!(bad(&[UserClass { fixed_cost: vec![1.0; 3], ..UserClass::new("x", demand.clone()) }], &o));
    assert!(bad(
        &[UserClass::new("x", demand.clone())],
        &AssignOptions { objective: algos_tap::Objective::SystemOptimum, ..AssignOptions::default() }
    ));
    // Banning both links out of zone 1 leaves its trips no route: an error naming the class and the
    // pair, from either kind of trees (on the hierarchy such a pair saturates; the f64 trees name it).
    for trees in [Method::Trees, Method::Phast] {
        let cut = UserClass { banned: vec![0, 1], ..UserClass::new("stuck", demand.clone()) };
        let err =
            assign_classes(&net, &[cut], &AssignOptions { trees, ..o.clone() }).unwrap_err().to_string();
        assert!(err.contains("class stuck") && err.contains("no path (first: 1 → 2)"), "{trees:?}: {err}");
    }
}

#[test]
fn algorithm_b_with_one_class_is_the_single_class_solver() {
    let (net, demand) = sioux_falls(CostFactors::default());
    let o = opts(Algorithm::AlgorithmB, 1e-10);
    let single = assign(&net, &demand, &o).unwrap();
    let one = assign_classes(&net, &[UserClass::new("all", demand.clone())], &o).unwrap();
    assert_eq!(one.pce_flows, single.flows);
    assert_eq!(one.classes[0].vehicles, single.flows);
    assert_eq!(one.history.len(), single.history.len());
    // Half the vehicles at PCE 2: the same PCE flows (to rounding in the vehicle thresholds).
    let r = assign_classes(&net, &[UserClass::new("big", demand.scaled(0.5)).with_pce(2.0)], &o).unwrap();
    for (a, (x, y)) in r.pce_flows.iter().zip(&single.flows).enumerate() {
        assert!((x - y).abs() <= 1e-6 * y.max(1.0), "link {a}: {x} vs {y}");
        assert!((r.classes[0].vehicles[a] * 2.0 - x).abs() <= 1e-9 * x.max(1.0));
    }
}

/// AequilibraE 1.7.2's two-class equilibrium of Sioux Falls (cars 85 % at PCE 1, trucks 15 % at PCE 2.5;
/// its BFW to gap 1e-6: `scripts/fixtures/aequilibrae_multiclass.py`) against ours by Algorithm B and by
/// BFW: the same PCE flows to what its gap leaves (measured 9.8e-5 of the largest flow), and ours, the
/// tighter, a lower Beckmann objective by less than 1e-6 of it.
#[test]
fn cars_and_trucks_equal_aequilibrae() {
    let (net, demand) = sioux_falls(CostFactors::default());
    let fixture = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/multiclass/SiouxFalls_cars_trucks.csv");
    let text = std::fs::read_to_string(&fixture).unwrap();
    let mut theirs = vec![f64::NAN; net.num_links()];
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let (a, b) = (f[0].parse::<u64>().unwrap(), f[1].parse::<u64>().unwrap());
        let link = net
            .links()
            .iter()
            .position(|l| net.node_id(l.from) == a && net.node_id(l.to) == b)
            .expect("a link of the fixture");
        theirs[link] = f[2].parse().unwrap();
    }
    assert!(theirs.iter().all(|x| x.is_finite()), "every link in the fixture");
    let classes = [
        UserClass::new("cars", demand.scaled(0.85)),
        UserClass::new("trucks", demand.scaled(0.15)).with_pce(2.5),
    ];
    let largest = theirs.iter().cloned().fold(0.0, f64::max);
    for (algorithm, gap) in [(Algorithm::AlgorithmB, 1e-11), (Algorithm::BiconjugateFw, 1e-6)] {
        let ours = assign_classes(&net, &classes, &opts(algorithm, gap)).unwrap();
        for (a, (x, y)) in ours.pce_flows.iter().zip(&theirs).enumerate() {
            assert!((x - y).abs() <= 5e-4 * largest, "{algorithm}, link {a}: ours {x} vs AequilibraE {y}");
        }
        let (zo, zt) = (net.beckmann(&ours.pce_flows), net.beckmann(&theirs));
        if algorithm == Algorithm::AlgorithmB {
            assert!(zo <= zt, "{zo} vs {zt}");
        }
        assert!((zt - zo).abs() <= 1e-6 * zt, "{algorithm}: Beckmann {zo} vs AequilibraE's {zt}");
    }
}

#[test]
fn algorithm_b_cars_and_trucks_match_bfw_and_reach_tight_gaps() {
    let (net, demand) = sioux_falls(CostFactors::default());
    let banned = vec![20u32, 45];
    let trucks = UserClass { banned: banned.clone(), ..UserClass::new("trucks", demand.scaled(0.1)) }
        .with_pce(2.5)
        .with_factors(&net, 0.0, 0.3);
    let classes = [UserClass::new("cars", demand.scaled(0.9)), trucks];
    let b = assign_classes(&net, &classes, &opts(Algorithm::AlgorithmB, 1e-11)).unwrap();
    assert!(b.converged, "gap {}", b.history.last().unwrap().relative_gap);
    let bfw = assign_classes(&net, &classes, &opts(Algorithm::BiconjugateFw, 1e-6)).unwrap();
    let max = bfw.pce_flows.iter().cloned().fold(0.0, f64::max);
    for (a, (x, y)) in b.pce_flows.iter().zip(&bfw.pce_flows).enumerate() {
        assert!((x - y).abs() <= 2e-3 * max, "link {a}: B {x} vs BFW {y}");
    }
    // The same objective (unique at equilibrium), B's the lower.
    let (zb, zf) = (b.history.last().unwrap().objective, bfw.history.last().unwrap().objective);
    assert!(zb <= zf && zf - zb <= 1e-6 * zf, "{zb} vs {zf}");
    for &a in &banned {
        assert_eq!(b.classes[1].vehicles[a as usize], 0.0);
    }
    each_class_at_equilibrium(&net, &b, &[demand.scaled(0.9), demand.scaled(0.1)], 1e-9);
    // A class with no route it may use is named.
    let cut = UserClass { banned: vec![0, 1], ..UserClass::new("stuck", demand.scaled(0.1)) };
    let err = assign_classes(&net, &[classes[0].clone(), cut], &opts(Algorithm::AlgorithmB, 1e-6))
        .unwrap_err()
        .to_string();
    assert!(err.contains("class stuck"), "{err}");
}

#[test]
fn class_files() {
    use algos_tap::multiclass::read_classes;
    let (net, demand) = sioux_falls(CostFactors::default());
    let dir = std::env::temp_dir().join(format!("urbanflow-classes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trips = bundled("SiouxFalls_trips.tntp").canonicalize().unwrap();
    let file = dir.join("classes.txt");
    std::fs::write(
        &file,
        format!(
            "# name pce demand toll distance banned\ncars 1 0.9 0 0 -\n\ntrucks 2.5 0.1 0 0.04 10-15,15-10  # no trucks on 10-15\nbuses 3 {} 0 0 -\n",
            trips.display()
        ),
    )
    .unwrap();
    let classes = read_classes(&file, &net, &demand).unwrap();
    assert_eq!(classes.len(), 3);
    assert_eq!((classes[1].name.as_str(), classes[1].pce, classes[1].banned.len()), ("trucks", 2.5, 2));
    assert!((classes[0].demand.total() - 0.9 * demand.total()).abs() < 1e-6);
    assert_eq!(classes[2].demand.total(), demand.total());
    assert_eq!(classes[1].fixed_cost[0], 0.04 * net.links()[0].length);
    for (text, want) in [
        ("cars 1 0.9 0 0\n", "classes.txt:1: field `line`"),
        ("cars 0 0.9 0 0 -\n", "classes.txt:1: field `pce`"),
        ("# c\ncars 1 0.9 0 0 99-98\n", "classes.txt:2: field `banned`: found `99-98`"),
        ("cars 1 x.tntp 0 0 -\n", "x.tntp: cannot open"),
        ("# nothing\n", "classes.txt:1: empty file"),
    ] {
        std::fs::write(&file, text).unwrap();
        let e = read_classes(&file, &net, &demand).unwrap_err().to_string();
        assert!(e.contains(want), "got `{e}`, want `{want}`");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `AssignOptions::cancel` set from the progress callback (as another thread would) stops every method
/// at the end of that iteration, returns the flows so far as not converged, and the callback sees each
/// iteration of the history once, multi-class runs included.
#[test]
fn a_cancel_flag_stops_each_method_after_the_iteration_that_set_it() {
    use std::sync::atomic::{AtomicBool, Ordering};

    use algos_tap::assign_with_progress;
    use algos_tap::multiclass::assign_classes_with_progress;

    let (net, demand) = sioux_falls(CostFactors::default());
    let halves =
        [UserClass::new("a", demand.scaled(0.5)), UserClass::new("b", demand.scaled(0.5)).with_pce(2.0)];
    for algorithm in [Algorithm::Msa, Algorithm::BiconjugateFw, Algorithm::AlgorithmB] {
        for classes in [false, true] {
            let flag = AtomicBool::new(false);
            let o = AssignOptions { cancel: Some(&flag), ..opts(algorithm, 1e-12) };
            let mut seen = Vec::new();
            let progress = |log: &algos_tap::IterationLog| {
                seen.push(log.iteration);
                if log.iteration == 3 {
                    flag.store(true, Ordering::Relaxed);
                }
            };
            let (history, converged, flows) = if classes {
                let r = assign_classes_with_progress(&net, &halves, &o, progress).unwrap();
                (r.history, r.converged, r.pce_flows)
            } else {
                let r = assign_with_progress(&net, &demand, &o, progress).unwrap();
                (r.history, r.converged, r.flows)
            };
            assert_eq!(history.len(), 3, "{algorithm:?} classes={classes}");
            assert!(!converged);
            assert_eq!(seen, vec![1, 2, 3], "{algorithm:?} classes={classes}");
            assert!(flows.iter().sum::<f64>() > 0.0);
        }
    }
}
