//! GPU all-or-nothing loading against its CPU mirror (bit-identical fixed-point loads) and against the
//! f64 CPU path (same SPTT up to the quantisation), on every adapter.

use algos_tap::fixed::{link_flows, tap_aon_mirror};
use algos_tap::gpu::GpuAon;
use algos_tap::{
    AssignOptions, Backend, CostFactors, Demand, Link, Network, Stop, assign, evaluate, standard_network,
};
use gpu_runtime::testing::for_each_context;
use graph_core::datasets::data_path;
use graph_core::rng::SplitMix64;

/// A random directed network with some blocked zones and random demand between them.
fn random_case(seed: u64) -> (Network, Demand, Vec<f64>) {
    let mut rng = SplitMix64::new(seed);
    let n = 3 + (rng.next_u64() % 60) as u32;
    let zones = 1 + (rng.next_u64() % n as u64) as u32;
    let m = (rng.next_u64() % (4 * n as u64)) as usize + n as usize;
    let mut links = Vec::new();
    for _ in 0..m {
        let from = (rng.next_u64() % n as u64) as u32;
        let to = (rng.next_u64() % n as u64) as u32;
        if from != to {
            links.push(Link {
                from,
                to,
                capacity: 100.0,
                length: 1.0,
                // Integer times with many ties: the canonical tie rule is exercised.
                free_flow_time: (1 + rng.next_u64() % 5) as f64,
                b: 0.15,
                power: 4.0,
                toll: 0.0,
            });
        }
    }
    let blocked = if seed.is_multiple_of(2) { zones } else { 0 };
    let net = Network::new(n, &links, blocked, CostFactors::default()).unwrap();
    // Demand only between mutually reachable pairs: test the loads, not the error.
    let mut pairs = Vec::new();
    for o in 0..zones {
        for d in 0..zones {
            if o != d && !rng.next_u64().is_multiple_of(3) {
                pairs.push((o, d, (rng.next_u64() % 1000) as f64 / 8.0));
            }
        }
    }
    let demand = Demand::from_pairs(&net, pairs).unwrap();
    let demand = reachable_only(&net, &demand);
    let costs: Vec<f64> = (0..net.num_links()).map(|_| (1 + rng.next_u64() % 7) as f64).collect();
    (net, demand, costs)
}

/// The demand restricted to pairs with a path (found with the CPU evaluation's error).
fn reachable_only(net: &Network, demand: &Demand) -> Demand {
    let mut pairs = Vec::new();
    for i in 0..demand.num_origins() {
        let o = demand.origins()[i];
        let (dests, flows) = demand.from_origin(i);
        for (&d, &f) in dests.iter().zip(flows) {
            let single = Demand::from_pairs(net, [(o, d, f)]).unwrap();
            if evaluate(net, &single, &vec![0.0; net.num_links()], false).is_ok() {
                pairs.push((o, d, f));
            }
        }
    }
    Demand::from_pairs(net, pairs).unwrap()
}

#[test]
fn gpu_loads_equal_the_cpu_mirror_on_random_networks() {
    for_each_context("gpu_loads_equal_the_cpu_mirror_on_random_networks", |ctx| {
        for seed in 0..24 {
            let (net, demand, costs) = random_case(seed);
            if demand.num_pairs() == 0 {
                continue;
            }
            let mut gpu = GpuAon::new(ctx, &net, &demand, false).unwrap();
            let got = gpu.loads(&net, &demand, &costs).unwrap();
            let (weights, _) = gpu.graph().quantise(&costs);
            let want = tap_aon_mirror(&net, gpu.graph(), &weights, &demand).unwrap();
            assert_eq!(got, want, "seed {seed} on {}", ctx.describe());
            // Integer costs scale exactly: the f64 CPU loading gives the same SPTT.
            let flows = link_flows(gpu.graph(), &got, net.num_links());
            let sptt_gpu: f64 = flows.iter().zip(&costs).map(|(y, c)| y * c).sum();
            let sptt_cpu = cpu_sptt(&net, &demand, &costs);
            assert!(
                (sptt_gpu - sptt_cpu).abs() <= 1e-9 * sptt_cpu.max(1.0),
                "seed {seed}: {sptt_gpu} vs {sptt_cpu}"
            );
        }
    });
}

/// SPTT of the f64 CPU loading at fixed link costs (a network whose VDF is constant would do; here we
/// read it off a one-iteration assignment's log instead).
fn cpu_sptt(net: &Network, demand: &Demand, costs: &[f64]) -> f64 {
    let mut sum = 0.0;
    // Dijkstra per origin on the given costs through the public API: a network with those costs as
    // free-flow times and no congestion.
    let links: Vec<Link> =
        net.links().iter().zip(costs).map(|(l, &c)| Link { free_flow_time: c, b: 0.0, ..*l }).collect();
    let blocked = (0..net.num_nodes() as u32).take_while(|&v| !net.can_pass_through(v)).count() as u32;
    let flat = Network::new(net.num_nodes() as u32, &links, blocked, CostFactors::default()).unwrap();
    let e = evaluate(&flat, demand, &vec![0.0; net.num_links()], false).unwrap();
    sum += e.sptt;
    sum
}

/// Network and demand of a standard network, if its files are there.
fn standard(name: &str, what: &str) -> Option<(Network, Demand, Option<f64>)> {
    let s = standard_network(name).unwrap();
    let net = Network::read_tntp(data_path(s.net, what)?, s.factors).unwrap();
    let demand = Demand::read_tntp(data_path(s.trips?, what)?, &net).unwrap();
    Some((net, demand, s.best_objective))
}

#[test]
fn gpu_loads_equal_the_cpu_mirror_on_tntp_networks() {
    for name in ["SiouxFalls", "Anaheim", "Barcelona", "Winnipeg", "Chicago-Sketch"] {
        let Some((net, demand, _)) = standard(name, "GPU loading test") else { continue };
        let mut costs = vec![0.0; net.num_links()];
        net.costs(&vec![0.0; net.num_links()], &mut costs);
        for_each_context("gpu_loads_equal_the_cpu_mirror_on_tntp_networks", |ctx| {
            let mut gpu = GpuAon::new(ctx, &net, &demand, false).unwrap();
            let got = gpu.loads(&net, &demand, &costs).unwrap();
            let (weights, _) = gpu.graph().quantise(&costs);
            assert_eq!(got, tap_aon_mirror(&net, gpu.graph(), &weights, &demand).unwrap(), "{name}");
        });
    }
}

#[test]
fn gpu_assignment_reaches_the_golden_objective() {
    for name in ["SiouxFalls", "Anaheim", "Barcelona", "Winnipeg", "Chicago-Sketch"] {
        let Some((net, demand, best)) = standard(name, "GPU assignment test") else { continue };
        let best = best.unwrap();
        // The two small networks on every context; the larger ones on the first (full-feature) context
        // only, to keep software-Vulkan CI time down (the baseline context's loading is checked bit for
        // bit against the mirror above).
        let small = matches!(name, "SiouxFalls" | "Anaheim");
        for_each_context("gpu_assignment_reaches_the_golden_objective", |ctx| {
            if !small && !std::ptr::eq(ctx, &gpu_runtime::testing::contexts()[0]) {
                return;
            }
            let opts = AssignOptions {
                backend: Backend::Gpu(ctx),
                stop: Stop { relative_gap: 1e-5, max_iterations: 2000, ..Stop::default() },
                ..AssignOptions::default()
            };
            let r = assign(&net, &demand, &opts).unwrap();
            assert!(r.converged, "{name} on the GPU");
            // The GPU's flows, evaluated exactly on the CPU, are as good as the GPU said.
            let e = evaluate(&net, &demand, &r.flows, false).unwrap();
            assert!(e.relative_gap < 2e-5, "{name}: exact gap {} of the GPU flows", e.relative_gap);
            assert!((e.objective - best).abs() < 1e-5 * best, "{name}: Z {} vs {best}", e.objective);
        });
    }
}

/// Two GPUs (two devices on one adapter here) each loading half the origins: the summed loads, and a
/// whole assignment, equal one device's bit for bit.
#[test]
fn two_gpus_load_exactly_what_one_does() {
    use algos_tap::loader::{AllOrNothing, GpuLoader};
    gpu_runtime::testing::with_two_devices("two_gpus_load_exactly_what_one_does", |devices| {
        for seed in 30..36 {
            let (net, demand, costs) = random_case(seed);
            if demand.num_pairs() == 0 {
                continue;
            }
            let mut one = GpuLoader::new(&[&devices[0]], &net, &demand, false).unwrap();
            let mut two = GpuLoader::new(&[&devices[0], &devices[1]], &net, &demand, false).unwrap();
            assert_eq!(two.num_devices(), 2);
            assert_eq!(one.loads(&net, &demand, &costs).unwrap(), two.loads(&net, &demand, &costs).unwrap());
            let (mut y1, mut y2) = (vec![0.0; net.num_links()], vec![0.0; net.num_links()]);
            let s1 = one.load(&net, &demand, &costs, &mut y1).unwrap();
            let s2 = two.load(&net, &demand, &costs, &mut y2).unwrap();
            assert_eq!((s1.to_bits(), y1), (s2.to_bits(), y2), "seed {seed}");
        }
        let Some((net, demand, _)) = standard("SiouxFalls", "two-GPU assignment test") else { return };
        let stop = Stop { relative_gap: 1e-6, max_iterations: 300, ..Stop::default() };
        let one = AssignOptions { backend: Backend::Gpu(&devices[0]), stop, ..AssignOptions::default() };
        let two = AssignOptions { devices, ..one.clone() };
        let (a, b) = (assign(&net, &demand, &one).unwrap(), assign(&net, &demand, &two).unwrap());
        assert_eq!(a.flows, b.flows);
        assert_eq!(a.history.len(), b.history.len());
    });
}

/// `Σ load · weight` over search arcs: the fixed-point shortest-path total, the same for every
/// shortest-path loading whatever its tie choices.
fn fixed_cost(loads: &[u64], weights: &[u32]) -> u128 {
    loads.iter().zip(weights).map(|(&l, &w)| l as u128 * w as u128).sum()
}

/// PHAST on a CCH (issue 21): the GPU loads equal the CPU twin's bit for bit, and both are shortest-path
/// loadings (their fixed-point total equals the mirror's, which walks canonical trees).
#[test]
fn phast_loads_equal_the_cpu_cch_twin() {
    use algos_sssp::many::Method;
    use algos_tap::hierarchy::CchAon;
    for_each_context("phast_loads_equal_the_cpu_cch_twin", |ctx| {
        for seed in 0..24 {
            let (net, demand, costs) = random_case(seed);
            if demand.num_pairs() == 0 {
                continue;
            }
            let all = 0..demand.num_origins();
            let mut gpu = GpuAon::with_method(ctx, &net, &demand, false, all, Method::Phast).unwrap();
            let cpu = CchAon::new(&net, &demand, false).unwrap();
            // Twice: the second call re-customises a hierarchy already on the device.
            for round in 0..2 {
                let costs: Vec<f64> = costs.iter().map(|c| c * (1.0 + round as f64 * 0.37)).collect();
                let got = gpu.loads(&net, &demand, &costs).unwrap();
                let want = cpu.loads(&net, &demand, &costs).unwrap();
                assert_eq!(got, want, "seed {seed} round {round} on {}", ctx.describe());
                let (weights, _) = gpu.graph().quantise(&costs);
                let mirror = tap_aon_mirror(&net, gpu.graph(), &weights, &demand).unwrap();
                assert_eq!(fixed_cost(&got, &weights), fixed_cost(&mirror, &weights), "seed {seed}");
            }
        }
        for name in ["SiouxFalls", "Anaheim", "Chicago-Sketch"] {
            let Some((net, demand, _)) = standard(name, "GPU PHAST loading test") else { continue };
            let mut costs = vec![0.0; net.num_links()];
            net.costs(&vec![0.0; net.num_links()], &mut costs);
            let all = 0..demand.num_origins();
            let mut gpu = GpuAon::with_method(ctx, &net, &demand, false, all, Method::Phast).unwrap();
            let cpu = CchAon::new(&net, &demand, false).unwrap();
            // Three calls at different costs on one loader: nothing a call leaves on the device
            // (labels, seeds, carried amounts, up arcs, the hierarchy's weights) may leak into the next.
            for round in 0..3 {
                let costs: Vec<f64> =
                    costs.iter().enumerate().map(|(a, c)| c * (1.0 + ((a + round) % 3) as f64)).collect();
                let got = gpu.loads(&net, &demand, &costs).unwrap();
                assert_eq!(got, cpu.loads(&net, &demand, &costs).unwrap(), "{name} round {round}");
                let (weights, _) = gpu.graph().quantise(&costs);
                let mirror = tap_aon_mirror(&net, gpu.graph(), &weights, &demand).unwrap();
                assert_eq!(fixed_cost(&got, &weights), fixed_cost(&mirror, &weights), "{name} round {round}");
            }
        }
    });
}
