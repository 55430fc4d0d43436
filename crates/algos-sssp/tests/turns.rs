//! Turn-aware routing (issue 36): on random road graphs with random turn costs, banned turns and banned
//! or mandatory three-arc sequences (via-way restrictions), Dijkstra, contraction hierarchies, CCH and
//! PHAST on the [`TurnGraph`] equal a brute-force oracle that never builds it — a Dijkstra over (previous
//! arc, current arc) states that matches sequences directly — and their paths use no banned turn and
//! add up to their cost. On the OSM fixture, routes change exactly where the restrictions say.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use algos_sssp::cch::{Cch, CchQuery};
use algos_sssp::ch::ContractionHierarchy;
use algos_sssp::cpu::bidirectional::BidirectionalQuery;
use algos_sssp::cpu::dijkstra::{Stop, dijkstra};
use graph_core::generators::random_graph;
use graph_core::osm::{OsmGraph, OsmOptions, Profile, RestrictionKind, import};
use graph_core::rng::SplitMix64;
use graph_core::turns::{TurnGraph, TurnOptions};
use graph_core::{Csr, VertexId};
use proptest::prelude::*;

/// A random road graph's turn rules: a cost per turn (0..=9), some banned turns, and three-arc chains.
struct Rules {
    cost: std::collections::HashMap<(u32, u32), u32>,
    banned: std::collections::HashSet<(u32, u32)>,
    chains: Vec<(RestrictionKind, Vec<u32>)>,
}

impl Rules {
    fn random(g: &Csr<u32>, seed: u64) -> Self {
        let mut rng = SplitMix64::new(seed);
        let (mut cost, mut banned) = (std::collections::HashMap::new(), std::collections::HashSet::new());
        for a in 0..g.num_arcs() {
            for b in g.arc_range(g.targets()[a as usize]) {
                cost.insert((a, b as u32), rng.below(10) as u32);
                if rng.below(6) == 0 {
                    banned.insert((a, b as u32));
                }
            }
        }
        // Chains a0 → a1 → b: one per from-arc; no from-arc lies on another chain's via arc (the turn
        // graph's stated precondition).
        let mut chains: Vec<(RestrictionKind, Vec<u32>)> = Vec::new();
        for a0 in 0..g.num_arcs() {
            if rng.below(4) != 0 {
                continue;
            }
            let exits = g.arc_range(g.targets()[a0 as usize]);
            if exits.is_empty() {
                continue;
            }
            let a1 = (exits.start + rng.below(exits.len() as u64) as usize) as u32;
            let next = g.arc_range(g.targets()[a1 as usize]);
            if next.is_empty() {
                continue;
            }
            let b = (next.start + rng.below(next.len() as u64) as usize) as u32;
            let clash = chains.iter().any(|(_, c)| c[1] == a0 || c[0] == a1 || c[0] == a0);
            if !clash {
                let kind = if rng.below(2) == 0 { RestrictionKind::No } else { RestrictionKind::Only };
                chains.push((kind, vec![a0, a1, b]));
            }
        }
        Self { cost, banned, chains }
    }

    fn turn(&self, a: u32, b: u32) -> Option<u32> {
        (!self.banned.contains(&(a, b))).then(|| self.cost[&(a, b)])
    }

    /// May a route that arrived over `prev` then `cur` go on with `next`?
    fn allows(&self, prev: Option<u32>, cur: u32, next: u32) -> bool {
        if self.banned.contains(&(cur, next)) {
            return false;
        }
        self.chains.iter().all(|(kind, c)| {
            if prev != Some(c[0]) || cur != c[1] {
                return true;
            }
            match kind {
                RestrictionKind::No => next != c[2],
                RestrictionKind::Only => next == c[2],
            }
        })
    }

    /// Node-to-node distances from `s` by a Dijkstra over (previous arc, current arc) states.
    fn oracle(&self, g: &Csr<u32>, s: u32) -> Vec<u64> {
        let n = g.num_vertices() as usize;
        let mut best = vec![u64::MAX; n];
        best[s as usize] = 0;
        let mut seen = std::collections::HashMap::<(Option<u32>, u32), u64>::new();
        let mut heap = BinaryHeap::new();
        for a in g.arc_range(s) {
            heap.push(Reverse((g.weights()[a] as u64, None, a as u32)));
        }
        while let Some(Reverse((d, prev, cur))) = heap.pop() {
            if seen.contains_key(&(prev, cur)) {
                continue;
            }
            seen.insert((prev, cur), d);
            let head = g.targets()[cur as usize];
            best[head as usize] = best[head as usize].min(d);
            for b in g.arc_range(head) {
                let b = b as u32;
                if self.allows(prev, cur, b) {
                    let nd = d + g.weights()[b as usize] as u64 + self.cost[&(cur, b)] as u64;
                    heap.push(Reverse((nd, Some(cur), b)));
                }
            }
        }
        best
    }

    /// Checks that a road-arc sequence obeys the rules and costs `want`.
    fn check_path(&self, g: &Csr<u32>, s: u32, t: u32, arcs: &[u32], want: u64) {
        let tails = g.arc_tails();
        if arcs.is_empty() {
            assert_eq!((s, want), (t, 0));
            return;
        }
        assert_eq!((tails[arcs[0] as usize], g.targets()[*arcs.last().unwrap() as usize]), (s, t));
        let mut cost = g.weights()[arcs[0] as usize] as u64;
        for k in 1..arcs.len() {
            assert_eq!(tails[arcs[k] as usize], g.targets()[arcs[k - 1] as usize], "{arcs:?} is not a walk");
            let prev = (k >= 2).then(|| arcs[k - 2]);
            assert!(self.allows(prev, arcs[k - 1], arcs[k]), "{arcs:?} breaks a rule at {k}");
            cost += g.weights()[arcs[k] as usize] as u64 + self.cost[&(arcs[k - 1], arcs[k])] as u64;
        }
        assert_eq!(cost, want, "{arcs:?}");
    }
}

/// Row of node distances from a turn-graph tree (u32, MAX unreachable) as u64.
fn node_row(t: &TurnGraph, row: &[u32]) -> Vec<u64> {
    t.node_row(row).iter().map(|&d| if d == u32::MAX { u64::MAX } else { d as u64 }).collect()
}

/// K shortest paths on the turn graph: loopless there means no arc vertex twice, so a route may pass a
/// junction twice (round a block to make up for a banned left turn), and through a via-way copy even a
/// road arc twice. Each path obeys the rules and adds up, costs never decrease, and the first costs the
/// oracle's distance.
fn check_ksp(g: &Csr<u32>, t: &TurnGraph, rules: &Rules, s: u32, target: u32, want: u64) {
    let (paths, _) = algos_sssp::ksp::mps(&t.graph, t.source(s), t.target(target), 6).unwrap();
    if want == u64::MAX {
        assert!(paths.is_empty());
        return;
    }
    assert_eq!(paths.first().map(|p| p.cost), Some(want), "{s} -> {target}");
    for w in paths.windows(2) {
        assert!(w[0].cost <= w[1].cost);
    }
    for p in &paths {
        let mut vertices = vec![t.source(s)];
        vertices.extend(p.arcs.iter().map(|&a| t.graph.targets()[a as usize]));
        let mut seen = vertices.clone();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), vertices.len(), "a turn-graph vertex twice: {vertices:?}");
        rules.check_path(g, s, target, &t.path_arcs(&vertices), p.cost);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn engines_on_the_turn_graph_equal_the_oracle(seed in any::<u64>(), n in 2u32..13, density in 1u32..4) {
        let g = random_graph(seed, n, n * density, 1..=9).unwrap();
        let rules = Rules::random(&g, seed ^ 0x5eed);
        let t = TurnGraph::new(&g, |a, b| rules.turn(a, b), &rules.chains).unwrap();
        let sources: Vec<u32> = (0..n).map(|s| t.source(s)).collect();
        let cch = Cch::build(&t.graph).unwrap();
        let (cch_metric, unpacking) = cch.customise_with_unpacking(t.graph.weights()).unwrap();
        let cch_trees = cch_metric.phast(&sources).unwrap();
        let ch_trees = ContractionHierarchy::build(&t.graph).unwrap().phast(&sources).unwrap();
        let mut q = CchQuery::new(&cch_metric).unwrap();
        for s in 0..n {
            let want = rules.oracle(&g, s);
            let (d, _) = dijkstra(&t.graph, t.source(s), &Stop::default()).unwrap();
            prop_assert_eq!(&node_row(&t, &d), &want, "Dijkstra from {}", s);
            prop_assert_eq!(&node_row(&t, &cch_trees[s as usize]), &want, "CCH PHAST from {}", s);
            prop_assert_eq!(&node_row(&t, &ch_trees[s as usize]), &want, "CH PHAST from {}", s);
            for target in 0..n.min(4) {
                check_ksp(&g, &t, &rules, s, target, want[target as usize]);
            }
            for target in 0..n {
                match q.path(&cch_metric, &unpacking, t.source(s), t.target(target)).unwrap() {
                    None => prop_assert_eq!(want[target as usize], u64::MAX),
                    Some((d, path)) => {
                        prop_assert_eq!(d as u64, want[target as usize]);
                        let mut vertices = vec![t.source(s)];
                        vertices.extend(path.iter().map(|&a| t.graph.targets()[a as usize]));
                        let road = t.path_arcs(&vertices);
                        rules.check_path(&g, s, target, &road, d as u64);
                        let nodes = t.path_nodes(&vertices);
                        prop_assert_eq!((nodes[0], *nodes.last().unwrap()), (s, target));
                    }
                }
            }
        }
    }
}

/// Zero turn costs, no restrictions, U-turns everywhere: the turn graph's distances are the node
/// graph's, exactly; with costs and bans they are never shorter.
#[test]
fn free_turns_give_node_distances() {
    for seed in 0..20u64 {
        let n = 3 + (seed % 10) as u32;
        let g = random_graph(seed, n, 3 * n, 0..=20).unwrap();
        let free = TurnGraph::new(&g, |_, _| Some(0), &[]).unwrap();
        let rules = Rules::random(&g, seed);
        let costly = TurnGraph::new(&g, |a, b| rules.turn(a, b), &rules.chains).unwrap();
        for s in 0..n {
            let (plain, _) = dijkstra(&g, s, &Stop::default()).unwrap();
            let (d, _) = dijkstra(&free.graph, free.source(s), &Stop::default()).unwrap();
            assert_eq!(free.node_row(&d), &plain[..], "seed {seed} source {s}");
            let (c, _) = dijkstra(&costly.graph, costly.source(s), &Stop::default()).unwrap();
            for (x, y) in costly.node_row(&c).iter().zip(&plain) {
                assert!(x >= y, "seed {seed}: turns made a route shorter");
            }
        }
    }
}

fn fixture(profile: Profile) -> OsmGraph {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../graph-core/tests/data/restrictions.osm.pbf");
    import(path, &OsmOptions { largest_component: false, ..OsmOptions::new(profile) }).unwrap()
}

fn node(g: &OsmGraph, letter: char) -> VertexId {
    let id = 1 + "abcdefghikpqrstu".find(letter).unwrap() as i64;
    g.osm_ids.binary_search(&id).unwrap() as VertexId
}

/// A route on the fixture as node letters, with free turns so that only the restrictions move it.
fn route(g: &OsmGraph, t: &TurnGraph, from: char, to: char) -> Option<String> {
    let (s, target) = (node(g, from), node(g, to));
    let mut q = BidirectionalQuery::new(&t.graph);
    let path = q.path(t.source(s), t.target(target)).unwrap()?.vertices;
    let letters: Vec<char> = "abcdefghikpqrstu".chars().collect();
    Some(t.path_nodes(&path).iter().map(|&v| letters[(g.osm_ids[v as usize] - 1) as usize]).collect())
}

#[test]
fn fixture_routes_obey_the_restrictions() {
    use graph_core::turns::TurnCost;
    let g = fixture(Profile::Car);
    let free = TurnOptions { cost: TurnCost::Free, ..TurnOptions::for_profile(Profile::Car) };
    let t = TurnGraph::from_osm(&g, &free).unwrap();
    let ignore = TurnGraph::from_osm(&g, &TurnOptions { restrictions: false, ..free.clone() }).unwrap();
    // 101 no_left_turn h→e→d: by g instead (as long; the only other way, round by i and f, is longer).
    assert_eq!(route(&g, &t, 'h', 'd').as_deref(), Some("hgd"));
    // 102 only_straight_on f→e→d: f→e→h is banned, so by i.
    assert_eq!(route(&g, &t, 'f', 'h').as_deref(), Some("fih"));
    // 118 + 119: from d→e only on to f or b; h by g.
    assert_eq!(route(&g, &t, 'd', 'h').as_deref(), Some("dgh"));
    // 104 no_entry onto i→k from both approaches: k is reachable only from i itself.
    assert_eq!(route(&g, &ignore, 'h', 'k').as_deref(), Some("hik"));
    assert_eq!(route(&g, &t, 'h', 'k'), None);
    assert_eq!(route(&g, &t, 'i', 'k').as_deref(), Some("ik"));
    // 117 via way: no U-turn p→q→t→s over the median; the long way round instead. Starting on the
    // connector is not restricted, and t itself stays reachable from p.
    assert_eq!(route(&g, &ignore, 'p', 's').as_deref(), Some("pqts"));
    assert_eq!(route(&g, &t, 'p', 's').as_deref(), Some("pqruts"));
    assert_eq!(route(&g, &t, 'q', 's').as_deref(), Some("qts"));
    assert_eq!(route(&g, &t, 'p', 't').as_deref(), Some("pqt"));
    // A node to itself.
    assert_eq!(route(&g, &t, 'e', 'e').as_deref(), Some("e"));
}

/// Every route between two nodes of the fixture (car, free turns) equals the brute-force oracle over
/// (previous arc, current arc) states, with the OSM rules spelt out here independently of the turn
/// graph: `no_*` pairs banned, `only_*` exits exclusive, U-turns only where no other exit remains, the
/// via-way chain matched on the last two arcs.
#[test]
fn fixture_routes_equal_the_oracle() {
    use graph_core::turns::TurnCost;
    let g = fixture(Profile::Car);
    let road = &g.graph;
    let tails = road.arc_tails();
    let rules_osm = &g.turn_rules;
    let mut rules = Rules {
        cost: Default::default(),
        banned: rules_osm.banned.iter().copied().collect(),
        chains: rules_osm.via_ways.clone(),
    };
    for a in 0..road.num_arcs() {
        let exits: Vec<u32> = road.arc_range(road.targets()[a as usize]).map(|b| b as u32).collect();
        for &b in &exits {
            rules.cost.insert((a, b), 0);
        }
        if let Some((_, only)) = rules_osm.only.iter().find(|o| o.0 == a) {
            rules.banned.extend(exits.iter().filter(|b| !only.contains(b)).map(|&b| (a, b)));
            continue;
        }
        let is_u = |b: u32| road.targets()[b as usize] == tails[a as usize];
        let others = exits.iter().any(|&b| !is_u(b) && !rules_osm.banned.contains(&(a, b)));
        if others {
            rules.banned.extend(exits.iter().filter(|&&b| is_u(b)).map(|&b| (a, b)));
        }
    }
    let free = TurnOptions { cost: TurnCost::Free, ..TurnOptions::for_profile(Profile::Car) };
    let t = TurnGraph::from_osm(&g, &free).unwrap();
    let mut q = BidirectionalQuery::new(&t.graph);
    for s in 0..road.num_vertices() {
        let want = rules.oracle(road, s);
        let (d, _) = dijkstra(&t.graph, t.source(s), &Stop::default()).unwrap();
        assert_eq!(node_row(&t, &d), want, "from {}", g.osm_ids[s as usize]);
        for target in 0..road.num_vertices() {
            if let Some(route) = q.path(t.source(s), t.target(target)).unwrap() {
                rules.check_path(road, s, target, &t.path_arcs(&route.vertices), route.distance as u64);
            }
        }
    }
}
