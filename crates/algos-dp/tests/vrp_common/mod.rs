//! Shared by the CVRP test files.

use algos_dp::vrp::Cvrp;
use graph_core::rng::SplitMix64;

/// A random instance: n customers, demands 1..=3, integer costs 1..=20 (asymmetric unless `sym`).
pub fn random(n: usize, cap: u32, sym: bool, seed: u64) -> Cvrp {
    let mut rng = SplitMix64::new(seed);
    let m = n + 1;
    let mut cost = vec![0.0; m * m];
    for i in 0..m {
        for j in 0..m {
            if i != j && (!sym || i < j) {
                let c = 1.0 + rng.below(20) as f64;
                cost[i * m + j] = c;
                if sym {
                    cost[j * m + i] = c;
                }
            }
        }
    }
    let demand = std::iter::once(0).chain((0..n).map(|_| 1 + rng.below(3) as u32)).collect();
    Cvrp::new(format!("random{seed}"), demand, cap, cost).unwrap()
}
