//! Traffic assignment with turns (issue 36): the expansion leaves a turn-free model unchanged, a banned
//! turn carries nothing, turning flows add up at every junction, the equilibrium holds on the expanded
//! network by an independent shortest-path check, a penalty never attracts flow, the two-route case
//! has its closed form, and bad turn files are refused with file and line.

use std::path::{Path, PathBuf};

use algos_sssp::real::dijkstra_real;
use algos_tap::turns::{Split, TurnNetwork, TurnTable, UTurns};
use algos_tap::{Algorithm, AssignOptions, Demand, Link, Network, TapError, assign};
use graph_core::Csr;

fn bundled(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data").join(name)
}

fn sioux_falls() -> (Network, Demand) {
    let net = Network::read_tntp(bundled("SiouxFalls_net.tntp"), Default::default()).unwrap();
    let demand = Demand::read_tntp(bundled("SiouxFalls_trips.tntp"), &net).unwrap();
    (net, demand)
}

fn table(net: &Network, text: &str) -> Result<TurnTable, TapError> {
    TurnTable::parse(text, Path::new("test_turns.tntp"), net)
}

/// Relative gap of `flows` on `net` computed here: TSTT from the costs, SPTT by a Dijkstra per origin on
/// a copy of the network whose zones are split into a source and a sink (so no path passes a zone).
fn independent_gap(net: &Network, demand: &Demand, flows: &[f64]) -> f64 {
    let mut costs = vec![0.0; net.num_links()];
    net.costs(flows, &mut costs);
    let tstt: f64 = flows.iter().zip(&costs).map(|(x, c)| x * c).sum();
    let n = net.num_nodes() as u32;
    let sink = |v: u32| if net.can_pass_through(v) { v } else { n + v };
    let arcs: Vec<(u32, u32, f64)> =
        net.links().iter().zip(&costs).map(|(l, &c)| (l.from, sink(l.to), c)).collect();
    let g = Csr::from_edges(2 * n, arcs).unwrap();
    let mut sptt = 0.0;
    for (k, &o) in demand.origins().iter().enumerate() {
        let dist = dijkstra_real(&g, o, false).unwrap().dist;
        let (dests, trips) = demand.from_origin(k);
        for (&d, &f) in dests.iter().zip(trips) {
            sptt += f * dist[sink(d) as usize];
        }
    }
    (tstt - sptt) / tstt
}

#[test]
fn free_turns_give_the_turn_free_assignment() {
    let (net, demand) = sioux_falls();
    // No entries, or only zero penalties: no junction is split, the model is the network itself, and
    // every loader's iterates are bit for bit the turn-free ones.
    for text in ["<END OF METADATA>\n", "<U-TURNS> 0\n<END OF METADATA>\n1,3 3,4 0 ;\n2,6 6,8 0.0 ;\n"] {
        let expanded = TurnNetwork::build(&net, &table(&net, text).unwrap()).unwrap();
        assert_eq!(expanded.network.num_nodes(), net.num_nodes());
        assert!(expanded.turns().is_empty());
        for trees in [algos_sssp::many::Method::Trees, algos_sssp::many::Method::Phast] {
            let opts =
                AssignOptions { trees, ..AssignOptions::default().with_gap(0.0).with_max_iterations(20) };
            let plain = assign(&net, &demand, &opts).unwrap();
            let turned = assign(&expanded.network, &demand, &opts).unwrap();
            assert_eq!(expanded.link_flows(&turned.flows), &plain.flows[..], "{trees:?}");
            assert_eq!(turned.last().relative_gap, plain.last().relative_gap);
        }
    }
    // Every junction split: the same equilibrium (unique link flows), other iterates.
    let everywhere =
        TurnNetwork::build_with(&net, &table(&net, "<END OF METADATA>\n").unwrap(), Split::Everywhere)
            .unwrap();
    // 24 zones kept as terminals; an in- and an out-port per link end at the 24 junctions.
    assert_eq!(everywhere.network.num_nodes(), 24 + 2 * 76);
    assert_eq!(
        everywhere.turns().len(),
        net.links().iter().map(|l| net.out_links(l.to).len()).sum::<usize>()
    );
    for algorithm in [Algorithm::BiconjugateFw, Algorithm::AlgorithmB] {
        let opts =
            AssignOptions { algorithm, ..AssignOptions::default().with_gap(1e-6).with_max_iterations(5000) };
        let plain = assign(&net, &demand, &opts).unwrap();
        let turned = assign(&everywhere.network, &demand, &opts).unwrap();
        for (a, (x, y)) in everywhere.link_flows(&turned.flows).iter().zip(&plain.flows).enumerate() {
            assert!((x - y).abs() <= 1e-2 * y.max(1.0), "{algorithm:?} link {a}: {x} vs {y}");
        }
        let (t, p) = (turned.last(), plain.last());
        assert!((t.tstt - p.tstt).abs() <= 1e-4 * p.tstt, "{algorithm:?} TSTT {} vs {}", t.tstt, p.tstt);
    }
}

#[test]
fn a_banned_turn_carries_nothing_and_flows_add_up_at_junctions() {
    let (net, demand) = sioux_falls();
    let l = |a: u64, b: u64| net.link_between(a, b).unwrap();
    // Ban two turns at 10, penalise one at 16; U-turns banned where not listed.
    let text = "<NUMBER OF TURNS> 3\n<U-TURNS> ban\n<END OF METADATA>\n\
                9,10 10,15 ban ;\n15,10 10,11 ban ;\n17,16 16,8 2.5 ;\n";
    let t = table(&net, text).unwrap();
    assert_eq!(t.u_turns, UTurns::Ban);
    let expanded = TurnNetwork::build(&net, &t).unwrap();
    for algorithm in [Algorithm::BiconjugateFw, Algorithm::AlgorithmB] {
        let opts =
            AssignOptions { algorithm, ..AssignOptions::default().with_gap(1e-5).with_max_iterations(5000) };
        let r = assign(&expanded.network, &demand, &opts).unwrap();
        let turns = expanded.turn_flows(&r.flows);
        assert!(!turns.iter().any(|t| (t.from_link, t.to_link) == (l(9, 10), l(10, 15))), "banned turn kept");
        assert!(
            !turns
                .iter()
                .any(|t| net.links()[t.to_link as usize].to == net.links()[t.from_link as usize].from)
        );
        assert!(turns.iter().any(|t| (t.from_link, t.to_link, t.penalty) == (l(17, 16), l(16, 8), 2.5)));
        // Conservation: at a junction, the turns out of a link add up to its flow, and the turns onto
        // a link to its flow, less what zones start and end there (every Sioux Falls node is a zone,
        // so the connectors' flows take part).
        let links = expanded.link_flows(&r.flows);
        let m = net.num_links();
        let connectors = &r.flows[m + turns.len()..];
        let mut out_of = vec![0.0; m];
        let mut onto = vec![0.0; m];
        for t in &turns {
            out_of[t.from_link as usize] += t.volume;
            onto[t.to_link as usize] += t.volume;
        }
        // Connector order: per split zone, into its links' out-ports, then from its in-links' in-ports.
        let mut k = 0;
        for z in (0..net.num_zones()).filter(|&z| expanded.is_split(z)) {
            for &b in net.out_links(z) {
                onto[b as usize] += connectors[k];
                k += 1;
            }
            for (a, link) in net.links().iter().enumerate() {
                if link.to == z {
                    out_of[a] += connectors[k];
                    k += 1;
                }
            }
        }
        assert_eq!(k, connectors.len());
        // The U-turn ban splits every Sioux Falls node (all have two-way links).
        assert!((0..net.num_nodes() as u32).all(|v| expanded.is_split(v)));
        for a in 0..m {
            let scale = links[a].max(1.0);
            assert!((out_of[a] - links[a]).abs() <= 1e-9 * scale, "{algorithm:?}: out of {a}");
            assert!((onto[a] - links[a]).abs() <= 1e-9 * scale, "{algorithm:?}: onto {a}");
        }
        // The gap the solver reports is the expanded network's, as computed here independently.
        let gap = independent_gap(&expanded.network, &demand, &r.flows);
        assert!(
            gap <= 1.01e-5 && (gap - r.last().relative_gap).abs() <= 1e-9,
            "{algorithm:?}: {gap} vs {}",
            r.last().relative_gap
        );
    }
}

#[test]
fn a_higher_penalty_never_attracts_flow() {
    let (net, demand) = sioux_falls();
    let opts = AssignOptions { algorithm: Algorithm::AlgorithmB, ..AssignOptions::default().with_gap(1e-9) };
    let mut last = f64::INFINITY;
    for p in [0.0, 0.5, 1.0, 2.0, 4.0, 8.0] {
        let t = table(&net, &format!("<END OF METADATA>\n10,16 16,17 {p} ;\n")).unwrap();
        // Split everywhere, so that the turn is a link at penalty 0 too.
        let expanded = TurnNetwork::build_with(&net, &t, Split::Everywhere).unwrap();
        let r = assign(&expanded.network, &demand, &opts).unwrap();
        let turn = expanded
            .turn_flows(&r.flows)
            .into_iter()
            .find(|t| {
                t.penalty == p
                    && net.node_id(t.node) == 16
                    && net.node_id(net.links()[t.from_link as usize].from) == 10
                    && net.node_id(net.links()[t.to_link as usize].to) == 17
            })
            .unwrap();
        assert!(turn.volume <= last + 1e-6 * last.max(1.0), "penalty {p}: {} after {last}", turn.volume);
        last = turn.volume;
    }
    assert!(last < 1e3, "an 8-minute penalty leaves little flow on the turn ({last})");
}

/// Two routes from zone 1 to zone 2 with linear costs a_i + b_i·x_i; a penalty p on the turn of route
/// 1 gives x₁ = (a₂ − a₁ − p + b₂·D)/(b₁ + b₂), clipped to [0, D].
#[test]
fn two_routes_closed_form() {
    // Nodes 1, 2 zones; route 1: 1 → 3 → 2, route 2: 1 → 4 → 2. BPR power 1: t = t0·(1 + B·x/c).
    let link = |from, to, t0: f64, slope: f64| Link {
        from,
        to,
        capacity: 1.0,
        length: 0.0,
        free_flow_time: t0,
        b: if t0 > 0.0 { slope / t0 } else { 0.0 },
        power: 1.0,
        toll: 0.0,
    };
    let (a1, b1, a2, b2, demand) = (10.0, 0.02, 15.0, 0.01, 1000.0);
    let links = [link(0, 2, a1, b1), link(2, 1, 0.0, 0.0), link(0, 3, a2, b2), link(3, 1, 0.0, 0.0)];
    let net = Network::new(4, &links, 2, Default::default()).unwrap();
    let trips = Demand::from_pairs(&net, [(0, 1, demand)]).unwrap();
    for p in [0.0, 2.0, 5.0, 30.0] {
        let t = table(&net, &format!("<END OF METADATA>\n1,3 3,2 {p} ;\n")).unwrap();
        let expanded = TurnNetwork::build(&net, &t).unwrap();
        let opts =
            AssignOptions { algorithm: Algorithm::AlgorithmB, ..AssignOptions::default().with_gap(1e-12) };
        let r = assign(&expanded.network, &trips, &opts).unwrap();
        let want = ((a2 - a1 - p + b2 * demand) / (b1 + b2)).clamp(0.0, demand);
        let x1 = expanded.link_flows(&r.flows)[0];
        assert!((x1 - want).abs() <= 1e-6 * demand, "p = {p}: {x1} vs {want}");
    }
}

#[test]
fn bad_turn_files_name_file_and_line() {
    let (net, _) = sioux_falls();
    let cases = [
        ("<END OF METADATA>\n1,2 3,4 1 ;\n", 2, "not a turn"),
        ("<END OF METADATA>\n1,2 2,99 1 ;\n", 2, "no link 2→99"),
        ("<END OF METADATA>\n1,2 2,6 -1 ;\n", 2, "expected a number ≥ 0 or ban"),
        ("<END OF METADATA>\n1,2 2,6 x ;\n", 2, "expected a number ≥ 0 or ban"),
        ("<END OF METADATA>\n1,2 2,6 ;\n", 2, "expected from_link to_link"),
        ("<END OF METADATA>\n1,2 2,6 1 ;\n\n1,2 2,6 ban ;\n", 4, "second time (first on line 2)"),
        ("<NUMBER OF TURNS> 2\n<END OF METADATA>\n1,2 2,6 1 ;\n", 1, "declares 2 but the file lists 1"),
        ("<U-TURNS> sometimes\n<END OF METADATA>\n", 1, "expected allow, ban or a penalty"),
        ("1,2 2,6 1 ;\n", 1, "expected <KEY> value metadata"),
        ("<NUMBER OF TURNS> 0\n", 1, "no <END OF METADATA>"),
        ("<END OF METADATA>\n1,2#2 2,6 1 ;\n", 2, "there are 1 links 1→2, not 2"),
    ];
    for (text, line, says) in cases {
        let err = table(&net, text).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.starts_with(&format!("test_turns.tntp:{line}: ")) && msg.contains(says),
            "{text:?}: {msg}"
        );
    }
    // The same turn for two classes, and one class, is fine.
    let t = table(&net, "<END OF METADATA>\n1,2 2,6 1 ;\n1,2 2,6 ban truck ;\n").unwrap();
    assert_eq!(t.entries.len(), 2);
    assert_eq!(t.entries[1].class.as_deref(), Some("truck"));
}

/// The GPU loaders (batched trees and PHAST on the hierarchy) take the expanded network as any other:
/// zero-cost connectors and constant-cost turn links quantise to fixed point, a banned turn carries
/// nothing, and the equilibrium is the CPU's.
#[test]
fn gpu_loaders_on_the_expanded_network() {
    let (net, demand) = sioux_falls();
    let text = "<U-TURNS> ban\n<END OF METADATA>\n9,10 10,15 ban ;\n17,16 16,8 2.5 ;\n";
    let expanded = TurnNetwork::build(&net, &table(&net, text).unwrap()).unwrap();
    let cpu = assign(&expanded.network, &demand, &AssignOptions::default().with_gap(1e-4)).unwrap();
    gpu_runtime::testing::for_each_context("gpu_loaders_on_the_expanded_network", |ctx| {
        for trees in [algos_sssp::many::Method::Trees, algos_sssp::many::Method::Phast] {
            let opts = AssignOptions {
                trees,
                backend: gpu_runtime::Backend::Gpu(ctx),
                ..AssignOptions::default().with_gap(1e-4)
            };
            let r = assign(&expanded.network, &demand, &opts).unwrap();
            assert!(r.converged, "{trees:?} on {}", ctx.describe());
            let turns = expanded.turn_flows(&r.flows);
            let l = |a: u64, b: u64| net.link_between(a, b).unwrap();
            assert!(!turns.iter().any(|t| (t.from_link, t.to_link) == (l(9, 10), l(10, 15))));
            for (a, (x, y)) in
                expanded.link_flows(&r.flows).iter().zip(expanded.link_flows(&cpu.flows)).enumerate()
            {
                assert!((x - y).abs() <= 5e-2 * y.max(100.0), "{trees:?} link {a}: {x} vs {y}");
            }
        }
    });
}

/// Per-class turns: a ban for trucks keeps trucks off that turn while cars take it; a class penalty
/// shows as that class's cost on the turn link; the turn's total is the classes' sum.
#[test]
fn class_turns_bind_their_class() {
    use algos_tap::multiclass::{UserClass, assign_classes};
    let (net, demand) = sioux_falls();
    let text = "<END OF METADATA>\n15,10 10,9 ban truck ;\n11,10 10,16 0.5 ;\n11,10 10,16 3.0 truck ;\n";
    let expanded = TurnNetwork::build(&net, &table(&net, text).unwrap()).unwrap();
    assert_eq!(expanded.class_names(), vec!["truck"]);
    let classes = [
        UserClass::new("car", demand.scaled(0.8)),
        UserClass::new("truck", demand.scaled(0.2)).with_pce(2.0),
    ];
    let classes: Vec<UserClass> = classes.iter().map(|c| expanded.class(c)).collect();
    let r = assign_classes(&expanded.network, &classes, &AssignOptions::default().with_gap(1e-4)).unwrap();
    let find = |from: (u64, u64), to: (u64, u64)| {
        let (a, b) = (net.link_between(from.0, from.1).unwrap(), net.link_between(to.0, to.1).unwrap());
        net.num_links() + expanded.turns().iter().position(|t| (t.0, t.1) == (a, b)).unwrap()
    };
    let banned = find((15, 10), (10, 9));
    let (car, truck) = (&r.classes[0], &r.classes[1]);
    assert_eq!(truck.vehicles[banned], 0.0);
    assert!(car.vehicles[banned] > 0.0, "cars still turn 15 → 10 → 9");
    assert_eq!(truck.costs[banned], f64::INFINITY);
    let penalised = find((11, 10), (10, 16));
    assert!((truck.costs[penalised] - car.costs[penalised] - 3.0).abs() < 1e-9);
    assert!((car.costs[penalised] - 0.5).abs() < 1e-9, "the all-class penalty: {}", car.costs[penalised]);
    let total = car.vehicles[banned] + 2.0 * truck.vehicles[banned];
    assert!((r.pce_flows[banned] - total).abs() <= 1e-9 * total.max(1.0));
}
