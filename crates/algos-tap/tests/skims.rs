//! Skims after an assignment: each entry equals the attribute summed along the pair's route, the cost
//! skims reproduce the shortest-path total, and the CSV holds every pair.

use std::path::PathBuf;

use algos_tap::output::write_link_results_csv;
use algos_tap::skim::{shortest_path, skims, write_skims_csv};
use algos_tap::{AssignOptions, CostFactors, Demand, Network, Stop, assign};

fn bundled(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data").join(name)
}

#[test]
fn skims_are_sums_along_the_equilibrium_routes() {
    // A distance term makes the generalised cost differ from the travel time.
    let factors = CostFactors { toll: 0.0, distance: 0.5 };
    let net = Network::read_tntp(bundled("SiouxFalls_net.tntp"), factors).unwrap();
    let demand = Demand::read_tntp(bundled("SiouxFalls_trips.tntp"), &net).unwrap();
    let opts =
        AssignOptions { stop: Stop { relative_gap: 1e-5, ..Stop::default() }, ..AssignOptions::default() };
    let r = assign(&net, &demand, &opts).unwrap();
    let s = skims(&net, &r.flows, &r.costs).unwrap();
    let z = s.zones;
    assert_eq!(z, 24);
    let mut times = vec![0.0; net.num_links()];
    net.vdf().times(&r.flows, &mut times);
    for o in 0..z {
        assert_eq!(s.cost[o * z + o], 0.0);
        for d in (0..z).filter(|&d| d != o) {
            let route = shortest_path(&net, &r.costs, o as u32, d as u32).unwrap();
            let sum = |attr: &dyn Fn(usize) -> f64| route.iter().fold(0.0, |acc, &a| acc + attr(a));
            let k = o * z + d;
            assert_eq!(s.time[k], sum(&|a| times[a]), "{o}→{d}");
            assert_eq!(s.distance[k], sum(&|a| net.links()[a].length), "{o}→{d}");
            assert_eq!(s.cost[k], sum(&|a| r.costs[a]), "{o}→{d}");
            assert_eq!(s.toll[k], 0.0);
            // The generalised cost is time plus half the distance, link by link.
            assert!((s.cost[k] - (s.time[k] + 0.5 * s.distance[k])).abs() <= 1e-9 * s.cost[k]);
            // The route starts at o, ends at d and is connected.
            assert_eq!(net.links()[route[0]].from, o as u32);
            assert_eq!(net.links()[*route.last().unwrap()].to, d as u32);
        }
    }
    // Demand-weighted cost skims = the shortest-path total at the final costs.
    let mut sptt = 0.0;
    for (i, &o) in demand.origins().iter().enumerate() {
        let (dests, flows) = demand.from_origin(i);
        for (&d, &f) in dests.iter().zip(flows) {
            sptt += f * s.cost[o as usize * z + d as usize];
        }
    }
    let eval = algos_tap::evaluate(&net, &demand, &r.flows, false).unwrap();
    assert!((sptt - eval.sptt).abs() <= 1e-9 * eval.sptt, "{sptt} vs {}", eval.sptt);

    let dir = std::env::temp_dir().join(format!("urbanflow-skims-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("skims.csv");
    write_skims_csv(&path, &net, &s).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 1 + z * z);
    assert!(text.starts_with("origin,destination,time,distance,toll,cost\n1,1,0,0,0,0\n"));
    // Link results: V/C and delay per link, consistent with the flows and the volume-delay times.
    let links = dir.join("links.csv");
    write_link_results_csv(&links, &net, &r.flows, &r.costs).unwrap();
    let text = std::fs::read_to_string(&links).unwrap();
    let mut rows = text.lines();
    assert_eq!(rows.next(), Some("link,from,to,flow,cost,capacity,vc,free_flow_time,time,delay"));
    for (a, row) in rows.enumerate() {
        let f: Vec<f64> = row.split(',').map(|v| v.parse().unwrap()).collect();
        assert_eq!(f.len(), 10);
        assert_eq!((f[0] as usize, f[3], f[4]), (a + 1, r.flows[a], r.costs[a]));
        assert_eq!(f[6], r.flows[a] / net.links()[a].capacity);
        assert_eq!((f[8], f[9]), (times[a], times[a] - net.links()[a].free_flow_time));
    }
    std::fs::remove_dir_all(&dir).ok();
}
