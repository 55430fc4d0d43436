//! Select-link analysis: pair flows add up to the link flow for every method of the Frank–Wolfe family,
//! stay within each pair's demand, leave the assignment unchanged, and after one loading are exactly
//! the demand of the pairs whose route uses the link.

use std::path::PathBuf;

use algos_tap::skim::shortest_path;
use algos_tap::{Algorithm, AssignOptions, CostFactors, Demand, Network, Stop, TapError, assign};

fn bundled(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data").join(name)
}

fn sioux_falls() -> (Network, Demand) {
    let net = Network::read_tntp(bundled("SiouxFalls_net.tntp"), CostFactors::default()).unwrap();
    let demand = Demand::read_tntp(bundled("SiouxFalls_trips.tntp"), &net).unwrap();
    (net, demand)
}

#[test]
fn pair_flows_add_up_to_the_link_flows() {
    let (net, demand) = sioux_falls();
    let pairs: Vec<(u32, u32, f64)> = demand.pairs().collect();
    let selected = vec![0u32, 20, 47, 75];
    for algorithm in [Algorithm::Msa, Algorithm::FrankWolfe, Algorithm::ConjugateFw, Algorithm::BiconjugateFw]
    {
        let stop = Stop { relative_gap: 1e-4, max_iterations: 300, ..Stop::default() };
        let plain =
            assign(&net, &demand, &AssignOptions { algorithm, stop, ..AssignOptions::default() }).unwrap();
        let opts =
            AssignOptions { algorithm, stop, select_links: selected.clone(), ..AssignOptions::default() };
        let r = assign(&net, &demand, &opts).unwrap();
        assert_eq!(r.flows, plain.flows, "{algorithm}: select-link changed the assignment");
        assert_eq!(r.select_link.len(), selected.len());
        for s in &r.select_link {
            assert_eq!(s.pair_flows.len(), pairs.len());
            let total: f64 = s.pair_flows.iter().sum();
            let x = r.flows[s.link as usize];
            assert!((total - x).abs() <= 1e-9 * x.max(1.0), "{algorithm} link {}: {total} vs {x}", s.link);
            for (&f, &(_, _, demand)) in s.pair_flows.iter().zip(&pairs) {
                assert!(f >= -1e-9 && f <= demand * (1.0 + 1e-9) + 1e-9, "{algorithm}: {f} of {demand}");
            }
        }
    }
}

#[test]
fn one_loading_selects_the_pairs_routed_through_the_link() {
    let (net, demand) = sioux_falls();
    let stop = Stop { max_iterations: 1, ..Stop::default() };
    let opts = AssignOptions { stop, select_links: vec![3, 30], ..AssignOptions::default() };
    let r = assign(&net, &demand, &opts).unwrap();
    // The first loading is all-or-nothing at free-flow costs.
    let free: Vec<f64> =
        net.fixed_costs().iter().zip(net.links()).map(|(c, l)| c + l.free_flow_time).collect();
    let mut c0 = vec![0.0; net.num_links()];
    net.costs(&vec![0.0; net.num_links()], &mut c0);
    let _ = free;
    for s in &r.select_link {
        for ((o, d, f), &got) in demand.pairs().zip(&s.pair_flows) {
            let route = shortest_path(&net, &c0, o, d).unwrap();
            let want = if route.contains(&(s.link as usize)) { f } else { 0.0 };
            assert_eq!(got, want, "{o}→{d} on link {}", s.link);
        }
    }
}

#[test]
fn refused_where_it_cannot_be_exact() {
    let (net, demand) = sioux_falls();
    let bad = |opts: AssignOptions| matches!(assign(&net, &demand, &opts), Err(TapError::InvalidOption(_)));
    assert!(bad(AssignOptions {
        algorithm: Algorithm::AlgorithmB,
        select_links: vec![1],
        ..AssignOptions::default()
    }));
    assert!(bad(AssignOptions {
        warm_start: Some(vec![0.0; 76]),
        select_links: vec![1],
        ..AssignOptions::default()
    }));
    assert!(bad(AssignOptions { select_links: vec![76], ..AssignOptions::default() }));
    assert!(bad(AssignOptions { select_links: vec![5, 5], ..AssignOptions::default() }));
}
