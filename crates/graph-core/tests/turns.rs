//! Turn restrictions and the turn graph on the hand-made fixture (`tests/data/restrictions.osm` and its
//! PBF twin, written by `scripts/fixtures/restrictions_osm.py`, whose header draws the map and names
//! what each relation tests).

use std::collections::BTreeMap;
use std::path::PathBuf;

use graph_core::VertexId;
use graph_core::osm::{OsmGraph, OsmOptions, Profile, RestrictionReport, SkipReason, import};
use graph_core::turns::{TurnCost, TurnGraph, TurnOptions, UTurns};

fn fixture(ext: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/restrictions.{ext}"))
}

fn load(profile: Profile, ext: &str) -> OsmGraph {
    import(fixture(ext), &OsmOptions { largest_component: false, ..OsmOptions::new(profile) }).unwrap()
}

/// Node ids of the fixture: letters in the generator's order.
const LETTERS: &str = "abcdefghikpqrstu";

fn v(g: &OsmGraph, letter: char) -> VertexId {
    let id = 1 + LETTERS.find(letter).unwrap() as i64;
    g.osm_ids.binary_search(&id).unwrap() as VertexId
}

fn arc(g: &OsmGraph, pair: &str) -> u32 {
    let c: Vec<char> = pair.chars().collect();
    g.arc(v(g, c[0]), v(g, c[1])).unwrap_or_else(|| panic!("no arc {pair}")) as u32
}

/// The arc vertices `from` may turn onto (terminals left out).
fn exits(t: &TurnGraph, from: u32) -> Vec<u32> {
    let mut e: Vec<u32> =
        t.graph.targets_of(from).iter().copied().filter(|&x| (x as usize) < t.base_arc.len()).collect();
    e.sort_unstable();
    e
}

fn arcs_of(g: &OsmGraph, pairs: &[&str]) -> Vec<u32> {
    let mut a: Vec<u32> = pairs.iter().map(|p| arc(g, p)).collect();
    a.sort_unstable();
    a
}

#[test]
fn xml_and_pbf_read_the_same() {
    for profile in [Profile::Car, Profile::Bike, Profile::Walk] {
        let (x, p) = (load(profile, "osm"), load(profile, "osm.pbf"));
        assert_eq!(x.graph.arcs().collect::<Vec<_>>(), p.graph.arcs().collect::<Vec<_>>(), "{profile}");
        assert_eq!((&x.osm_ids, &x.way_ids), (&p.osm_ids, &p.way_ids), "{profile}");
        // PBF stores coordinates in units of 1e-7 degrees, decoded with other roundings.
        for (a, b) in x.coords.iter().zip(&p.coords) {
            assert!((a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9, "{profile}: {a:?} {b:?}");
        }
        assert_eq!(x.turn_rules, p.turn_rules, "{profile}");
        assert_eq!(x.report, p.report, "{profile}");
    }
}

fn skipped(pairs: &[(SkipReason, u64)]) -> BTreeMap<SkipReason, u64> {
    pairs.iter().copied().collect()
}

#[test]
fn every_relation_is_applied_or_skipped_with_its_reason() {
    use SkipReason::*;
    let car = load(Profile::Car, "osm").turn_rules.report;
    let want = RestrictionReport {
        relations: 19, // relation 120 is a multipolygon: not counted
        via_node_no: 4,
        via_node_only: 3,
        via_way: 1,
        only_conflicts: 1,
        skipped: skipped(&[
            (NotForProfile, 1),
            (Except, 1),
            (Conditional, 1),
            (UnknownValue, 1),
            (Malformed, 1),
            (MultiFromTo, 1),
            (MemberMissing, 1),
            (NotRoutable, 1),
            (NotSplit, 1),
            (NotAtVia, 1),
            (WrongDirection, 1),
        ]),
    };
    assert_eq!(car, want);
    assert_eq!(car.applied() + car.skipped_total(), car.relations);
    // Bicycles obey relation 105 (`except=psv;motorcar`).
    let bike = load(Profile::Bike, "osm").turn_rules.report;
    assert_eq!((bike.via_node_no, bike.skipped.get(&Except)), (5, None));
    // Pedestrians obey only `restriction:foot`: relation 107's conditional is not theirs either.
    let walk = load(Profile::Walk, "osm").turn_rules.report;
    assert_eq!((walk.applied(), walk.skipped_total()), (0, 19));
    assert_eq!(walk.skipped, skipped(&[(NotForProfile, 19)]));
}

#[test]
fn banned_turns_are_absent_from_the_turn_graph() {
    let g = load(Profile::Car, "osm");
    let t = TurnGraph::from_osm(&g, &TurnOptions::for_profile(Profile::Car)).unwrap();
    // 101 no_left_turn h→e→d; U-turns at e are gone by the dead-end rule.
    assert_eq!(exits(&t, arc(&g, "he")), arcs_of(&g, &["eb", "ef"]));
    // 102 only_straight_on f→e→d: every other exit gone, the U-turn too.
    assert_eq!(exits(&t, arc(&g, "fe")), arcs_of(&g, &["ed"]));
    // 104 no_entry onto i→k from h and from f.
    assert_eq!(exits(&t, arc(&g, "hi")), arcs_of(&g, &["if"]));
    assert_eq!(exits(&t, arc(&g, "fi")), arcs_of(&g, &["ih"]));
    // 108 no_left_turn b→e→f (a conditional `none` beside a plain value does not lift it); 105 is
    // not for cars, so b→e→d stays.
    assert_eq!(exits(&t, arc(&g, "be")), arcs_of(&g, &["ed", "eh"]));
    // 118 and 119: two only_* on d→e: their union.
    assert_eq!(exits(&t, arc(&g, "de")), arcs_of(&g, &["eb", "ef"]));
    // Unrestricted arcs keep every exit but the U-turn.
    assert_eq!(exits(&t, arc(&g, "ef")), arcs_of(&g, &["fc", "fi"]));
    // The dead end a keeps its U-turn.
    assert_eq!(exits(&t, arc(&g, "ba")), arcs_of(&g, &["ab"]));
    // 117 via way: p→q continues onto a copy of q→t whose only way on is not t→s; q→t itself may.
    let copy =
        *exits(&t, arc(&g, "pq")).iter().find(|&&x| x as usize >= g.graph.num_arcs() as usize).unwrap();
    assert_eq!(t.base_arc[copy as usize], arc(&g, "qt"));
    assert_eq!(exits(&t, arc(&g, "pq")), vec![arc(&g, "qr"), copy]);
    assert!(exits(&t, copy).is_empty(), "the copy's only exits are t→s (banned) and the U-turn t→q");
    assert!(t.graph.targets_of(copy).contains(&t.target(v(&g, 't'))), "a route may still end at t");
    assert_eq!(exits(&t, arc(&g, "qt")), arcs_of(&g, &["ts"]));
    assert_eq!(t.report.copies, 1);

    // U-turns everywhere: 103 still bans c→b→c, while b→c→b is free to take.
    let everywhere = TurnOptions { u_turns: UTurns::Everywhere, ..TurnOptions::for_profile(Profile::Car) };
    let t = TurnGraph::from_osm(&g, &everywhere).unwrap();
    assert!(!exits(&t, arc(&g, "cb")).contains(&arc(&g, "bc")));
    assert!(exits(&t, arc(&g, "bc")).contains(&arc(&g, "cb")));
    // Restrictions off: only the U-turn rule remains.
    let free = TurnOptions { restrictions: false, ..TurnOptions::for_profile(Profile::Car) };
    let t = TurnGraph::from_osm(&g, &free).unwrap();
    assert_eq!(exits(&t, arc(&g, "he")), arcs_of(&g, &["eb", "ed", "ef"]));
    assert_eq!((t.report.banned_by_restrictions, t.report.copies), (0, 0));

    // Bicycles obey 105: b→e→d is gone for them.
    let bike = load(Profile::Bike, "osm");
    let t = TurnGraph::from_osm(&bike, &TurnOptions::for_profile(Profile::Bike)).unwrap();
    assert_eq!(exits(&t, arc(&bike, "be")), arcs_of(&bike, &["eh"]));
}

#[test]
fn turn_costs_follow_the_profile() {
    use graph_core::turns::profile_turn_seconds as secs;
    // The spec's table (seconds, rounded to two decimals where it gives two).
    for (theta, right, left) in [(30.0, 0.052, 0.178), (90.0, 2.11, 5.40), (150.0, 7.17, 7.47)] {
        assert!((secs(Profile::Car, theta, false) - right).abs() < 0.006, "car right {theta}");
        assert!((secs(Profile::Car, -theta, false) - left).abs() < 0.006, "car left {theta}");
    }
    assert!((secs(Profile::Car, 180.0, true) - 27.46).abs() < 0.01);
    assert!((secs(Profile::Bike, 90.0, false) - 4.29).abs() < 0.01);
    assert!((secs(Profile::Bike, -90.0, false) - 8.40).abs() < 0.01);
    assert_eq!(secs(Profile::Walk, 90.0, true), 0.0);

    // On the fixture: h→e→f is a left turn at a junction (the map's north is up, east right).
    let g = load(Profile::Car, "osm");
    let t = TurnGraph::from_osm(&g, &TurnOptions::for_profile(Profile::Car)).unwrap();
    let weight = |from: &str, to: &str| {
        let (a, b) = (arc(&g, from), arc(&g, to));
        let k = t.graph.targets_of(a).iter().position(|&x| x == b).unwrap();
        t.graph.weights_of(a)[k] - g.graph.weights()[b as usize]
    };
    assert_eq!(weight("he", "ef"), (secs(Profile::Car, 90.0, false) * 1000.0).round() as u32, "right turn");
    assert_eq!(weight("he", "eb"), (secs(Profile::Car, 0.0, false) * 1000.0).round() as u32, "straight on");
    assert_eq!(weight("ed", "dg"), 0, "d has two car neighbours: a bend, not a junction");
    assert_eq!(weight("ba", "ab"), (secs(Profile::Car, 180.0, true) * 1000.0).round() as u32, "U-turn");
    // A custom function, and free turns.
    let custom = TurnOptions {
        cost: TurnCost::Custom(std::sync::Arc::new(|turn| if turn.angle_deg < -45.0 { 60_000 } else { 0 })),
        ..TurnOptions::for_profile(Profile::Car)
    };
    let t = TurnGraph::from_osm(&g, &custom).unwrap();
    let k = t.graph.targets_of(arc(&g, "de")).iter().position(|&x| x == arc(&g, "eb")).unwrap();
    assert_eq!(t.graph.weights_of(arc(&g, "de"))[k], g.graph.weights()[arc(&g, "eb") as usize] + 60_000);
    let free = TurnOptions { cost: TurnCost::Free, ..TurnOptions::for_profile(Profile::Car) };
    let t = TurnGraph::from_osm(&g, &free).unwrap();
    for a in 0..g.graph.num_arcs() {
        for (&b, &w) in t.graph.targets_of(a).iter().zip(t.graph.weights_of(a)) {
            if (b as usize) < t.base_arc.len() {
                assert_eq!(w, g.graph.weights()[t.base_arc[b as usize] as usize]);
            }
        }
    }
}

#[test]
fn paths_map_back_to_nodes_and_arcs() {
    let g = load(Profile::Car, "osm");
    let t = TurnGraph::from_osm(&g, &TurnOptions::for_profile(Profile::Car)).unwrap();
    let (h, e, d) = (v(&g, 'h'), v(&g, 'e'), v(&g, 'd'));
    let path = [t.source(h), arc(&g, "he"), arc(&g, "eb"), t.target(v(&g, 'b'))];
    assert_eq!(t.path_arcs(&path), vec![arc(&g, "he"), arc(&g, "eb")]);
    assert_eq!(t.path_nodes(&path), vec![h, e, v(&g, 'b')]);
    assert_eq!(t.path_nodes(&[t.source(d), t.target(d)]), vec![d]);
    assert_eq!(g.way_ids[arc(&g, "he") as usize], 4);
    // A route from a node to itself is free; every node's target is reachable from its source.
    let from = t.graph.targets_of(t.source(d));
    assert!(from.contains(&t.target(d)));
}

/// Porto's restriction counts as `specs/turns.md` §1.3 checked them (car, the graph as imported), the
/// turn graph's size (§2.4) and the arcs the U-turn rule and the restrictions cut off (§1.4: 444 and 463
/// beyond the node graph's own components).
#[test]
fn porto_restrictions_and_turn_graph() {
    use SkipReason::*;
    let Some(p) = graph_core::datasets::data_path("osm/porto/porto_portugal.osm.pbf", "porto_restrictions")
    else {
        return;
    };
    let g = import(&p, &OsmOptions { largest_component: false, ..OsmOptions::new(Profile::Car) }).unwrap();
    let r = &g.turn_rules.report;
    assert_eq!(
        (r.relations, r.via_node_no, r.via_node_only, r.via_way, r.only_conflicts),
        (357, 261, 68, 1, 0)
    );
    assert_eq!(r.skipped, skipped(&[(Malformed, 14), (MultiFromTo, 5), (NotRoutable, 6), (NotAtVia, 2)]));
    let t = TurnGraph::from_osm(&g, &TurnOptions::for_profile(Profile::Car)).unwrap();
    assert_eq!((t.report.road_arcs, t.report.banned_by_restrictions, t.report.copies), (521_580, 360, 1));
    assert_eq!((t.report.u_turns_kept, t.report.turns), (10_148, 646_297));
    let node_scc_outside = 521_580 - 517_350;
    assert_eq!(t.report.arcs_outside_largest_component, node_scc_outside + 463);
    let free = TurnOptions { restrictions: false, ..TurnOptions::for_profile(Profile::Car) };
    let t = TurnGraph::from_osm(&g, &free).unwrap();
    assert_eq!((t.report.turns, t.report.arcs_outside_largest_component), (646_623, node_scc_outside + 444));
    // The default import keeps the largest component: three relations lose an arc to it.
    let g = import(&p, &OsmOptions::new(Profile::Car)).unwrap();
    assert_eq!(g.graph.num_arcs(), 517_350);
    assert_eq!(g.turn_rules.report.skipped.get(&WrongDirection), Some(&3));
    assert_eq!(g.turn_rules.report.applied(), 258 + 68 + 1);
}

/// Damaged inputs: restrictions whose from-way has a single node or none are skipped (not a panic), and
/// coordinates outside the globe are refused, naming the XML line or the element.
#[test]
fn damaged_restrictions_and_coordinates_are_refused_or_skipped() {
    use graph_core::GraphError;
    use graph_core::osm::{Member, MemberKind, OsmElement, import_elements};
    let tags = |kv: &[(&str, &str)]| kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let node = |id, lon| OsmElement::Node { id, lat: 41.15, lon };
    let road = |id, refs: Vec<i64>| OsmElement::Way { id, refs, tags: tags(&[("highway", "residential")]) };
    let member = |kind, id, role: &str| Member { kind, id, role: role.into() };
    let elements = vec![
        node(1, -8.61),
        node(2, -8.609),
        node(3, -8.608),
        road(10, vec![1, 2]),
        road(11, vec![2, 3]),
        road(12, vec![2]),
        OsmElement::Relation {
            id: 100,
            tags: tags(&[("type", "restriction"), ("restriction", "no_u_turn")]),
            members: vec![
                member(MemberKind::Way, 12, "from"),
                member(MemberKind::Node, 2, "via"),
                member(MemberKind::Way, 11, "to"),
            ],
        },
        road(13, vec![]),
        OsmElement::Relation {
            id: 101,
            tags: tags(&[("type", "restriction"), ("restriction", "no_left_turn")]),
            members: vec![
                member(MemberKind::Way, 13, "from"),
                member(MemberKind::Way, 12, "via"),
                member(MemberKind::Way, 11, "to"),
            ],
        },
    ];
    let options = OsmOptions { largest_component: false, ..OsmOptions::new(Profile::Car) };
    let g = import_elements(&elements, &options).unwrap();
    assert_eq!(g.turn_rules.report.skipped.get(&SkipReason::NotAtVia), Some(&1));
    assert_eq!(g.turn_rules.report.skipped.get(&SkipReason::NotRoutable), Some(&1));
    let bad = vec![OsmElement::Node { id: 1, lat: f64::NAN, lon: 0.0 }, road(10, vec![1, 1])];
    assert!(matches!(import_elements(&bad, &options).unwrap_err(), GraphError::BadCoordinate { .. }));
    let dir = std::env::temp_dir().join(format!("urbanflow-osm-turns-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let xml = dir.join("bad.osm");
    std::fs::write(&xml, "<?xml version='1.0'?>\n<osm>\n<node id='1' lat='95' lon='2'/>\n</osm>\n").unwrap();
    let err = import(&xml, &options).unwrap_err().to_string();
    assert!(err.contains("bad.osm") && err.contains("line 3") && err.contains("not a latitude"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
