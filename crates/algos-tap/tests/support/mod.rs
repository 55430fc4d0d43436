//! What the algos-tap tests share: the one test network generator.

use algos_tap::{CostFactors, Demand, Link, Network};

/// A `side × side` grid of two-way streets with seeded BPR links (free-flow times 1–11, capacities
/// 200–1000) and seeded demand (0–49 trips × `demand_scale`) between every third node.
pub fn grid_network(side: u32, seed: u64, demand_scale: f64) -> (Network, Demand) {
    let mut rng = graph_core::rng::SplitMix64::new(seed);
    let mut links = Vec::new();
    let id = |r: u32, c: u32| r * side + c;
    for r in 0..side {
        for c in 0..side {
            for (rr, cc) in [(r + 1, c), (r, c + 1)] {
                if rr < side && cc < side {
                    for (u, v) in [(id(r, c), id(rr, cc)), (id(rr, cc), id(r, c))] {
                        let t0 = 1.0 + (rng.next_u64() % 100) as f64 / 10.0;
                        let cap = 200.0 + (rng.next_u64() % 800) as f64;
                        links.push(Link {
                            from: u,
                            to: v,
                            capacity: cap,
                            length: 1.0,
                            free_flow_time: t0,
                            b: 0.15,
                            power: 4.0,
                            toll: 0.0,
                        });
                    }
                }
            }
        }
    }
    let net = Network::new(side * side, &links, 0, CostFactors::default()).unwrap();
    let zones: Vec<u32> = (0..side * side).step_by(3).collect();
    let pairs: Vec<_> = zones
        .iter()
        .flat_map(|&o| zones.iter().map(move |&d| (o, d)))
        .map(|(o, d)| (o, d, demand_scale * (rng.next_u64() % 50) as f64))
        .collect();
    let demand = Demand::from_pairs(&net, pairs).unwrap();
    (net, demand)
}
