//! Solver tests on networks with closed-form equilibria, plus determinism, monotonicity and errors.

mod support;
use support::grid_network;

use algos_tap::{
    Algorithm, AssignOptions, CostFactors, Demand, Link, Network, Objective, Stop, TapError, assign, evaluate,
};

/// A link with BPR power 1: `t = t0 (1 + b x / cap)`.
fn linear(from: u32, to: u32, t0: f64, b: f64) -> Link {
    Link { from, to, capacity: 1.0, length: 0.0, free_flow_time: t0, b, power: 1.0, toll: 0.0 }
}

/// `t = a + s x` as a BPR link (t0 = a, b = s / a), or `≈ s x` when a = 0 (t0 = 1e-8).
fn affine(from: u32, to: u32, a: f64, s: f64) -> Link {
    let t0 = if a == 0.0 { 1e-8 } else { a };
    linear(from, to, t0, s / t0)
}

fn options(algorithm: Algorithm, gap: f64) -> AssignOptions<'static> {
    AssignOptions {
        algorithm,
        stop: Stop { relative_gap: gap, max_iterations: 5_000, ..Stop::default() },
        ..AssignOptions::default()
    }
}

#[test]
fn braess_user_equilibrium() {
    // Nodes 1..4 as 0..3; D = 6 from 1 to 2.
    let links = [
        affine(0, 2, 0.0, 10.0),
        affine(0, 3, 50.0, 1.0),
        affine(2, 1, 50.0, 1.0),
        affine(2, 3, 10.0, 1.0),
        affine(3, 1, 0.0, 10.0),
    ];
    let net = Network::new(4, &links, 0, CostFactors::default()).unwrap();
    let demand = Demand::from_pairs(&net, [(0, 1, 6.0)]).unwrap();
    for alg in [Algorithm::FrankWolfe, Algorithm::ConjugateFw, Algorithm::BiconjugateFw] {
        let r = assign(&net, &demand, &options(alg, 1e-10)).unwrap();
        let expect = [4.0, 2.0, 2.0, 2.0, 4.0];
        for (a, (&x, e)) in r.flows.iter().zip(expect).enumerate() {
            assert!((x - e).abs() < 1e-4, "{alg}: link {a} flow {x}, expected {e}");
        }
        // All three paths cost 92.
        assert!((r.costs[0] + r.costs[2] - 92.0).abs() < 1e-3, "{alg}: {:?}", r.costs);
        assert!((r.last().tstt - 552.0).abs() < 1e-2);
    }
    // Without the bridge 3→4: 3 vehicles per path at cost 83.
    let net = Network::new(4, &[links[0], links[1], links[2], links[4]], 0, CostFactors::default()).unwrap();
    let demand = Demand::from_pairs(&net, [(0, 1, 6.0)]).unwrap();
    let r = assign(&net, &demand, &options(Algorithm::BiconjugateFw, 1e-10)).unwrap();
    assert!(r.flows.iter().all(|&x| (x - 3.0).abs() < 1e-4), "{:?}", r.flows);
    assert!((r.costs[0] + r.costs[2] - 83.0).abs() < 1e-3);
}

#[test]
fn pigou_user_equilibrium_system_optimum_and_price_of_anarchy() {
    // t1 = 1, t2 = x (≈), D = 1.
    let links = [Link { b: 0.0, ..linear(0, 1, 1.0, 0.0) }, affine(0, 1, 0.0, 1.0)];
    let net = Network::new(2, &links, 0, CostFactors::default()).unwrap();
    let demand = Demand::from_pairs(&net, [(0, 1, 1.0)]).unwrap();
    let ue = assign(&net, &demand, &options(Algorithm::FrankWolfe, 1e-9)).unwrap();
    assert!((ue.flows[1] - 1.0).abs() < 1e-6, "{:?}", ue.flows);
    assert!((ue.last().tstt - 1.0).abs() < 1e-6);
    let so_opts =
        AssignOptions { objective: Objective::SystemOptimum, ..options(Algorithm::FrankWolfe, 1e-9) };
    let so = assign(&net, &demand, &so_opts).unwrap();
    assert!((so.flows[1] - 0.5).abs() < 1e-6, "{:?}", so.flows);
    assert!((so.last().tstt - 0.75).abs() < 1e-6);
    let price_of_anarchy = ue.last().tstt / so.last().tstt;
    assert!((price_of_anarchy - 4.0 / 3.0).abs() < 1e-5);
}

#[test]
fn two_parallel_links_closed_form() {
    // t1 = a1 + b1 x, t2 = a2 + b2 x: x1 = (a2 − a1 + b2 D) / (b1 + b2).
    let (a1, b1, a2, b2, d) = (10.0, 0.02, 15.0, 0.01, 1000.0);
    let net =
        Network::new(2, &[affine(0, 1, a1, b1), affine(0, 1, a2, b2)], 0, CostFactors::default()).unwrap();
    let demand = Demand::from_pairs(&net, [(0, 1, d)]).unwrap();
    let r = assign(&net, &demand, &options(Algorithm::BiconjugateFw, 1e-11)).unwrap();
    let x1 = (a2 - a1 + b2 * d) / (b1 + b2);
    assert!((r.flows[0] - x1).abs() < 1e-4, "{} vs {x1}", r.flows[0]);
    // SO equalises a + 2 b x.
    let so = AssignOptions { objective: Objective::SystemOptimum, ..options(Algorithm::FrankWolfe, 1e-11) };
    let r = assign(&net, &demand, &so).unwrap();
    let x1 = (a2 - a1 + 2.0 * b2 * d) / (2.0 * (b1 + b2));
    assert!((r.flows[0] - x1).abs() < 1e-4, "{} vs {x1}", r.flows[0]);
}

#[test]
fn flows_do_not_depend_on_the_thread_count() {
    let (net, demand) = grid_network(12, 11, 1.0);
    // Algorithm B updates its bushes in parallel and measures gaps beside its next iteration.
    for (algorithm, gap) in [(Algorithm::BiconjugateFw, 1e-6), (Algorithm::AlgorithmB, 1e-11)] {
        let run = |threads| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| assign(&net, &demand, &options(algorithm, gap)).unwrap())
        };
        let one = run(1);
        let four = run(4);
        assert!(one.converged || algorithm != Algorithm::AlgorithmB, "B did not converge");
        assert_eq!(one.flows, four.flows, "{algorithm}: flows differ between 1 and 4 threads");
        assert_eq!(one.history.len(), four.history.len());
        let three = run(3);
        assert_eq!(one.flows, three.flows, "{algorithm}: flows differ between 1 and 3 threads");
    }
}

#[test]
fn lower_bound_never_falls_and_objective_never_rises() {
    let (net, demand) = grid_network(10, 11, 1.0);
    for alg in [Algorithm::FrankWolfe, Algorithm::ConjugateFw, Algorithm::BiconjugateFw] {
        // The Frank–Wolfe family tails off sublinearly; the conjugate variants later.
        let gap = match alg {
            Algorithm::FrankWolfe => 1e-4,
            Algorithm::ConjugateFw => 1e-5,
            _ => 1e-6,
        };
        let r = assign(&net, &demand, &options(alg, gap)).unwrap();
        assert!(r.converged, "{alg}");
        for w in r.history.windows(2) {
            assert!(w[1].lower_bound >= w[0].lower_bound, "{alg}: lower bound fell");
            assert!(w[1].objective <= w[0].objective * (1.0 + 1e-12), "{alg}: objective rose {:?}", w);
        }
        let last = r.last();
        assert!(last.lower_bound <= last.objective);
        // The evaluation of the returned flows agrees with the last log entry.
        let e = evaluate(&net, &demand, &r.flows, false).unwrap();
        assert!((e.objective - last.objective).abs() <= 1e-9 * last.objective);
    }
}

#[test]
fn msa_converges_slowly_but_surely() {
    let (net, demand) = grid_network(8, 11, 1.0);
    let r = assign(&net, &demand, &options(Algorithm::Msa, 1e-3)).unwrap();
    assert!(r.converged);
    let bfw = assign(&net, &demand, &options(Algorithm::BiconjugateFw, 1e-3)).unwrap();
    assert!(bfw.history.len() <= r.history.len());
}

#[test]
fn warm_start_continues_from_given_flows() {
    let (net, demand) = grid_network(10, 11, 1.0);
    let first = assign(&net, &demand, &options(Algorithm::BiconjugateFw, 1e-4)).unwrap();
    let warm =
        AssignOptions { warm_start: Some(first.flows.clone()), ..options(Algorithm::BiconjugateFw, 1e-4) };
    let again = assign(&net, &demand, &warm).unwrap();
    assert_eq!(again.history.len(), 1, "already converged flows need one iteration to confirm");
    let bad = AssignOptions { warm_start: Some(vec![1.0; 3]), ..AssignOptions::default() };
    assert!(matches!(assign(&net, &demand, &bad), Err(TapError::BadFlows { found: 3, .. })));
}

#[test]
fn unreachable_demand_and_bad_links_are_errors() {
    let net = Network::new(3, &[affine(0, 1, 1.0, 1.0)], 0, CostFactors::default()).unwrap();
    let demand = Demand::from_pairs(&net, [(0, 1, 1.0), (0, 2, 5.0)]).unwrap();
    let err = assign(&net, &demand, &AssignOptions::default()).unwrap_err();
    assert!(matches!(err, TapError::DemandUnreachable { pairs: 1, origin: 1, destination: 3, .. }), "{err}");

    let negative = Link { free_flow_time: -1.0, ..affine(0, 1, 1.0, 1.0) };
    let err = Network::new(2, &[negative], 0, CostFactors::default()).unwrap_err();
    assert!(err.to_string().contains("free_flow_time"), "{err}");
    let zero_cap = Link { capacity: 0.0, ..affine(0, 1, 1.0, 1.0) };
    assert!(Network::new(2, &[zero_cap], 0, CostFactors::default()).is_err());
}

#[test]
fn zones_are_not_passed_through() {
    // 0 → 1 → 2 is cheap but 1 is a zone; the only legal path is 0 → 3 → 2.
    let links =
        [affine(0, 1, 1.0, 0.0), affine(1, 2, 1.0, 0.0), affine(0, 3, 5.0, 0.0), affine(3, 2, 5.0, 0.0)];
    let blocked = Network::new(4, &links, 2, CostFactors::default()).unwrap();
    let demand = Demand::from_pairs(&blocked, [(0, 2, 1.0)]).unwrap();
    let r = assign(&blocked, &demand, &AssignOptions::default()).unwrap();
    assert_eq!(r.flows, vec![0.0, 0.0, 1.0, 1.0]);
    let open = AssignOptions { allow_zone_transit: true, ..AssignOptions::default() };
    let r = assign(&blocked, &demand, &open).unwrap();
    assert_eq!(r.flows, vec![1.0, 1.0, 0.0, 0.0]);
}

#[test]
fn pet_gyn_network_of_all_twelve_types_assigns_by_diagonalisation() {
    use algos_tap::petgyn::{PetGyn, PetGynLink};
    use std::sync::Arc;
    let side = 6u32;
    let id = |r: u32, c: u32| r * side + c;
    let mut ends = Vec::new();
    for r in 0..side {
        for c in 0..side {
            if r + 1 < side {
                ends.extend([(id(r, c), id(r + 1, c)), (id(r + 1, c), id(r, c))]);
            }
            if c + 1 < side {
                ends.extend([(id(r, c), id(r, c + 1)), (id(r, c + 1), id(r, c))]);
            }
        }
    }
    let links: Vec<Link> = ends
        .iter()
        .map(|&(from, to)| Link {
            from,
            to,
            capacity: 1.0,
            length: 0.0,
            free_flow_time: 1.0,
            b: 0.0,
            power: 0.0,
            toll: 0.0,
        })
        .collect();
    let find = |from: u32, to: u32| ends.iter().position(|&e| e == (from, to)).map(|a| a as u32);
    let pet: Vec<PetGynLink> = ends
        .iter()
        .enumerate()
        .map(|(a, &(from, to))| {
            // Partners: the reverse link, and the other links entering the head.
            let others: Vec<u32> = ends
                .iter()
                .enumerate()
                .filter(|(_, e)| e.1 == to && e.0 != from)
                .map(|(b, _)| b as u32)
                .collect();
            let other = |i: usize| others.get(i).copied().or(find(to, from));
            PetGynLink {
                length_m: 200.0 + 37.0 * (a % 7) as f64,
                speed_kmh: [30.0, 40.0, 60.0, 80.0][a % 4],
                lanes: 1.0 + (a % 3) as f64,
                arc_type: (a % 12) as u8 + 1,
                signal: 0.1 * (a % 5) as f64,
                reverse: find(to, from),
                cross: [other(0), other(1)],
                circ: [other(0), other(1), other(2)],
            }
        })
        .collect();
    let net = Network::new(side * side, &links, 0, CostFactors::default())
        .unwrap()
        .with_vdf(Arc::new(PetGyn::new(pet).unwrap()))
        .unwrap();
    let corners = [id(0, 0), id(0, side - 1), id(side - 1, 0), id(side - 1, side - 1)];
    let pairs: Vec<_> = corners
        .iter()
        .flat_map(|&o| corners.iter().map(move |&d| (o, d, 400.0)))
        .filter(|p| p.0 != p.1)
        .collect();
    let demand = Demand::from_pairs(&net, pairs).unwrap();
    let opts = AssignOptions {
        stop: Stop { relative_gap: 0.0, max_iterations: 40, ..Stop::default() },
        ..options(Algorithm::BiconjugateFw, 0.0)
    };
    let r = assign(&net, &demand, &opts).unwrap();
    let gaps: Vec<f64> = r.history.iter().map(|h| h.relative_gap).collect();
    assert!(gaps[39] < gaps[1] / 10.0, "the VI gap should fall: {gaps:?}");
    assert!(r.last().objective.is_nan(), "no Beckmann objective for non-separable costs");
    // Algorithm B and system optimum need separable costs.
    let b = AssignOptions { algorithm: Algorithm::AlgorithmB, ..AssignOptions::default() };
    assert!(matches!(assign(&net, &demand, &b), Err(TapError::InvalidOption(_))));
}

/// The CPU loader's origin blocks split anywhere and added in block order (as cluster ranks do) give
/// the whole loader's bits; a block range past the end is an error.
#[test]
fn cpu_loader_blocks_add_up_to_the_whole_load_bit_for_bit() {
    use algos_tap::loader::{AllOrNothing, CpuAon, LoadSum, origin_blocks};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data");
    let net = Network::read_tntp(format!("{dir}/SiouxFalls_net.tntp"), CostFactors::default()).unwrap();
    let demand = Demand::read_tntp(format!("{dir}/SiouxFalls_trips.tntp"), &net).unwrap();
    let mut costs = vec![0.0; net.num_links()];
    net.costs(&vec![3000.0; net.num_links()], &mut costs);
    let mut loader = CpuAon::new(&net, false);
    let mut whole = vec![0.0; net.num_links()];
    let sptt = loader.load(&net, &demand, &costs, &mut whole).unwrap();
    let blocks = origin_blocks(&demand);
    assert!(blocks > 3);
    for cut in [0, 1, blocks / 2, blocks - 1, blocks] {
        let mut sum = LoadSum::new(net.num_links());
        for range in [0..cut, cut..blocks] {
            for b in loader.load_blocks(&net, &demand, &costs, range).unwrap() {
                sum.add(&b);
            }
        }
        let mut y = vec![0.0; net.num_links()];
        assert_eq!(sum.finish(&net, &mut y).unwrap().to_bits(), sptt.to_bits());
        assert_eq!(y, whole, "cut at block {cut}");
    }
    assert!(loader.load_blocks(&net, &demand, &costs, 0..blocks + 1).is_err());
}

/// The last log entry measures the flows returned (IterationLog's promise): its TSTT is `Σ c(x) x` of
/// the result's own flows and costs, whether the solve converged or stopped at its cap, for every method.
#[test]
fn the_last_log_entry_measures_the_returned_flows() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data");
    let net = Network::read_tntp(format!("{dir}/SiouxFalls_net.tntp"), CostFactors::default()).unwrap();
    let demand = Demand::read_tntp(format!("{dir}/SiouxFalls_trips.tntp"), &net).unwrap();
    for algorithm in [Algorithm::Msa, Algorithm::FrankWolfe, Algorithm::BiconjugateFw, Algorithm::AlgorithmB]
    {
        for (gap, cap) in [(1e-3, 10_000), (1e-12, 3)] {
            let opts = AssignOptions {
                algorithm,
                stop: Stop { relative_gap: gap, max_iterations: cap, ..Stop::default() },
                ..AssignOptions::default()
            };
            let r = assign(&net, &demand, &opts).unwrap();
            let tstt: f64 = r.flows.iter().zip(&r.costs).map(|(x, c)| x * c).sum();
            let logged = r.last().tstt;
            assert!(
                (tstt - logged).abs() <= 1e-9 * tstt,
                "{algorithm:?} gap {gap}: {tstt} vs logged {logged}"
            );
            assert_eq!(r.history.len() as u32, r.last().iteration);
        }
    }
}
