//! Tree loading on PHAST sweeps ([`algos_tap::phast_load`]): flows sent along a CCH's trees are
//! shortest-path flows. The GPU twin is compared with the CPU in `gpu_aon.rs`.

use algos_sssp::cch::Cch;
use algos_sssp::ch::{LANES, PhastWorkspace};
use algos_sssp::cpu::dijkstra::{Stop, dijkstra};
use algos_tap::phast_load::PhastLoad;
use graph_core::generators::random_graph;
use graph_core::rng::SplitMix64;

/// Flows sent along PHAST trees on the hierarchy's arcs and unpacked to input arcs are shortest-path
/// flows: at every vertex inflow − outflow is what arrives minus what leaves, and `Σ load · weight`
/// equals `Σ amount · distance` (so every unit travels a shortest path). Weights ≥ 1, as loading needs.
/// The same loads whether the loader scans for tight arcs (after `sweep`) or follows the parents a
/// `sweep_with_parents` kept.
#[test]
fn tree_loads_are_shortest_path_flows() {
    for seed in 0..60u64 {
        let n = 2 + (seed as u32 * 7) % 70;
        let g = random_graph(seed, n, 3 * n, 0..=9).unwrap();
        let metric = g.with_weights(g.weights().iter().map(|&w| w + 1).collect()).unwrap();
        let cch = Cch::build(&g).unwrap();
        let (ch, unpacking) = cch.customise_with_unpacking(metric.weights()).unwrap();
        let mut rng = SplitMix64::new(seed);
        let sources: Vec<u32> = (0..n.min(LANES as u32 + 3)).collect();
        let mut slot_loads = vec![0u64; 2 * cch.num_edges()];
        let mut net = vec![0i128; n as usize];
        let mut cost = 0u128;
        let mut ws = PhastWorkspace::new(n);
        let mut kept = PhastWorkspace::new(n);
        let mut loader = PhastLoad::new();
        let mut kept_loads = vec![0u64; 2 * cch.num_edges()];
        for chunk in sources.chunks(LANES) {
            ws.sweep(&ch, chunk);
            kept.sweep_with_parents(&ch, chunk);
            assert_eq!(ws.labels(), kept.labels(), "seed {seed}: labels with and without parents");
            let demands: Vec<Vec<(u32, u64)>> = chunk
                .iter()
                .enumerate()
                .map(|(lane, &s)| {
                    let row = dijkstra(&metric, s, &Stop::default()).unwrap().0;
                    let mut list = Vec::new();
                    for t in 0..n {
                        if row[t as usize] == u32::MAX || rng.below(2) == 0 {
                            continue;
                        }
                        assert_eq!(ws.label(&ch, t, lane), row[t as usize]);
                        let amount = 1 + rng.below(1 << 40);
                        net[t as usize] += amount as i128;
                        net[s as usize] -= amount as i128;
                        cost += amount as u128 * row[t as usize] as u128;
                        list.push((t, amount));
                    }
                    list
                })
                .collect();
            loader.load(&ch, &ws, &demands, &mut slot_loads);
            // The parents the sweep kept give the loads the scan for tight arcs gives.
            loader.load(&ch, &kept, &demands, &mut kept_loads);
            assert_eq!(slot_loads, kept_loads, "seed {seed}: loads along kept parents");
        }
        let loads = unpacking.arc_loads(slot_loads);
        let mut flow = vec![0i128; n as usize];
        let mut got_cost = 0u128;
        for (a, (u, v, w)) in metric.arcs().enumerate() {
            flow[v as usize] += loads[a] as i128;
            flow[u as usize] -= loads[a] as i128;
            got_cost += loads[a] as u128 * w as u128;
        }
        assert_eq!(flow, net, "seed {seed}: conservation");
        assert_eq!(got_cost, cost, "seed {seed}: Σ load·weight");
    }
}
