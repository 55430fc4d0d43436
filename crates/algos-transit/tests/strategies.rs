//! Optimal-strategies transit assignment against independent answers: the 1989 paper's example
//! (published costs and volumes), AequilibraE 1.7.2's volumes on Coquimbo and a seeded grid city
//! (fixtures generated with it), and a brute-force strategy evaluator on random small graphs; plus
//! conservation, thread-count independence and the refusals of bad input.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use algos_transit::TdError;
use algos_transit::strategies::{
    HyperpathGraph, StrategyAssignment, StrategyOptions, TIME_FLOOR, TransitDemand, Zones, assign,
};
use graph_core::datasets::data_path;
use proptest::prelude::*;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/strategies")
}

/// `link_id → value` of a two-column CSV (value parsed from column `col`).
fn column(path: &Path, col: usize) -> HashMap<i64, f64> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].parse().unwrap(), f[col].parse().unwrap())
        })
        .collect()
}

fn run(
    g: &HyperpathGraph,
    zones: &Zones,
    demand: &TransitDemand,
    opts: StrategyOptions,
) -> StrategyAssignment {
    assign(g, zones, demand, &opts, &|_, _| {}).unwrap()
}

/// Every edge's volume equals the reference to 1e-9 relative, or 1e-9 absolute (AequilibraE's 1e20
/// stand-in for an infinite frequency leaves ~1e-22 where exact arithmetic has 0).
fn assert_volumes(g: &HyperpathGraph, r: &StrategyAssignment, want: &HashMap<i64, f64>, what: &str) {
    assert_eq!(want.len(), g.num_edges(), "{what}: one reference volume per edge");
    for e in 0..g.num_edges() {
        let (ours, theirs) = (r.volumes[e], want[&g.link_id(e)]);
        assert!(
            (ours - theirs).abs() <= 1e-9 * theirs.abs().max(1.0),
            "{what}: link {} volume {ours}, AequilibraE {theirs}",
            g.link_id(e)
        );
    }
}

#[test]
fn spiess_florian_1989_costs_and_volumes() {
    let Some(dir) = data_path("transit/spiess-florian-1989", "strategies test") else { return };
    let g = HyperpathGraph::read_csv(dir.join("edges.csv")).unwrap();
    let zones = Zones::every_vertex(&g);
    let demand = TransitDemand::new(&zones, [(0, 12, 1.0)]).unwrap();
    let r = run(&g, &zones, &demand, StrategyOptions { skims: true, ..Default::default() });
    // u at every vertex (expected time to B), against the paper's values as AequilibraE computes them.
    let skims = r.skims.as_ref().unwrap();
    let n = g.num_vertices() as usize;
    for (v, u) in column(&dir.join("expected_u.csv"), 2) {
        let ours = skims.total[v as usize * n + 12];
        assert!((ours - u).abs() <= 1e-9 * u.max(1.0), "u({v}) = {ours}, expected {u}");
    }
    assert!((skims.total[12] - 1665.0).abs() < 1e-9, "u(A) = 27.75 min");
    assert_volumes(&g, &r, &column(&dir.join("expected_volumes.csv"), 2), "1989 example");
    // Line boardings at Y: L3 1/12, L4 5/12 (tie-free, whichever strategy).
    let at_y = |line: &str| -> f64 {
        // Boarding edges carry the line's id, transfers `FROM>TO`.
        let boards = |e: usize| g.line(e) == line || g.line(e).ends_with(&format!(">{line}"));
        (0..g.num_edges())
            .filter(|&e| boards(e) && g.edge(e).3.is_finite() && g.stop(e) == "Y")
            .map(|e| r.volumes[e])
            .sum()
    };
    assert!((at_y("L3") - 1.0 / 12.0).abs() < 1e-12 && (at_y("L4") - 5.0 / 12.0).abs() < 1e-12);
    // Skims at A: 0.5 on L1 (25 min) and 0.5 on L2 to Y (13 min) then 1/12 L3 (4) and 5/12 L4 (10).
    let ivt = 0.5 * 1500.0 + 0.5 * (420.0 + 360.0) + (1.0 / 12.0) * 240.0 + (5.0 / 12.0) * 600.0;
    assert!((skims.in_vehicle[12] - ivt).abs() < 1e-6, "in-vehicle {} against {ivt}", skims.in_vehicle[12]);
    // Waits: 1/(1/360 + 1/360) = 180 s at A, then at Y (half of the travellers) 1/(1/900 + 1/180) = 150 s.
    assert!((skims.waiting[12] - (180.0 + 0.5 * 150.0)).abs() < 1e-6, "waiting {}", skims.waiting[12]);
    assert!((skims.boardings[12] - 1.5).abs() < 1e-9, "boardings {}", skims.boardings[12]);
}

#[test]
fn coquimbo_volumes_equal_aequilibrae() {
    let Some(dir) = data_path("transit/coquimbo", "strategies test") else { return };
    let g = HyperpathGraph::read_csv(dir.join("edges.csv")).unwrap();
    let zones = Zones::read_csv(dir.join("zones.csv"), &g).unwrap();
    let demand = TransitDemand::read_csv(dir.join("demand.csv"), &zones).unwrap();
    // 103 of its 133 zones have no connector: refused unless asked to assign the rest.
    let refused = assign(&g, &zones, &demand, &StrategyOptions::default(), &|_, _| {}).unwrap_err();
    assert!(refused.to_string().contains("103 zones with demand have no connector"), "{refused}");
    let opts = StrategyOptions { allow_unconnected: true, ..Default::default() };
    let r = run(&g, &zones, &demand, opts);
    assert_volumes(&g, &r, &column(&fixtures().join("coquimbo_volumes.csv"), 1), "Coquimbo");
    // The README's accounting: 870 trips between connected zones, 133 intrazonal, 16,686 unassigned.
    assert_eq!((r.assigned, r.intrazonal, r.unassigned), (870.0, 133.0, 16_686.0));
}

#[test]
fn grid_city_volumes_equal_aequilibrae() {
    let dir = fixtures().join("city6");
    let g = HyperpathGraph::read_csv(dir.join("edges.csv")).unwrap();
    let zones = Zones::read_csv(dir.join("zones.csv"), &g).unwrap();
    let demand = TransitDemand::read_csv(dir.join("demand.csv"), &zones).unwrap();
    let r = run(&g, &zones, &demand, StrategyOptions::default());
    assert_volumes(&g, &r, &column(&dir.join("aequilibrae_volumes.csv"), 1), "city6");
    assert_eq!(r.unassigned, 0.0);
    assert!((r.assigned - demand.total()).abs() < 1e-9);
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let dir = fixtures().join("city6");
    let g = HyperpathGraph::read_csv(dir.join("edges.csv")).unwrap();
    let zones = Zones::read_csv(dir.join("zones.csv"), &g).unwrap();
    let demand = TransitDemand::read_csv(dir.join("demand.csv"), &zones).unwrap();
    let opts = StrategyOptions { skims: true, ..Default::default() };
    let on = |threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| run(&g, &zones, &demand, opts))
    };
    let (one, four) = (on(1), on(4));
    assert!(one.volumes.iter().zip(&four.volumes).all(|(a, b)| a.to_bits() == b.to_bits()));
    assert_eq!(one.skims, four.skims);
}

#[test]
fn bad_input_is_refused_with_file_and_line() {
    let dir = std::env::temp_dir().join(format!("uf-strategies-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        ("tail,head,trav_time,freq\n0,1,5,inf\n1,2,-1,inf\n", ":3: travel time -1"),
        ("tail,head,trav_time,freq\n0,1,5,0\n", ":2: frequency 0"),
        ("tail,head,trav_time,freq\n0,x,5,inf\n", ":2: head `x`"),
        ("tail,head,trav_time\n0,1,5\n", ":1: no `freq` column"),
        (
            "link_id,tail,head,trav_time,freq\n7,0,1,5,inf\n7,1,0,5,inf\n",
            ":3: link_id 7 repeats the edge of line 2",
        ),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let path = dir.join(format!("edges{i}.csv"));
        std::fs::write(&path, text).unwrap();
        let err = HyperpathGraph::read_csv(&path).unwrap_err();
        assert!(matches!(err, TdError::TableFile { .. }) && err.to_string().contains(want), "{err}");
    }
    let g = HyperpathGraph::from_edges(3, &[(0, 1, 1.0, f64::INFINITY)]).unwrap();
    let zones_file = dir.join("zones.csv");
    std::fs::write(&zones_file, "zone_id,vertex\n1,0\n2,9\n").unwrap();
    let err = Zones::read_csv(&zones_file, &g).unwrap_err().to_string();
    assert!(err.contains("zones.csv:3: vertex 9 is not in the graph"), "{err}");
    let zones = Zones::every_vertex(&g);
    let demand_file = dir.join("demand.csv");
    std::fs::write(&demand_file, "origin,destination,demand\n0,1,2\n0,1,3\n").unwrap();
    let err = TransitDemand::read_csv(&demand_file, &zones).unwrap_err().to_string();
    assert!(err.contains("demand.csv:3: the pair 0 → 1 is given twice (first at line 2)"), "{err}");
    std::fs::write(&demand_file, "origin,destination,demand\n0,5,2\n").unwrap();
    let err = TransitDemand::read_csv(&demand_file, &zones).unwrap_err().to_string();
    assert!(err.contains("demand.csv:2: zone 5 is not among the 3 zones"), "{err}");
    // Vertex 2 has no edge: demand to it cannot be assigned.
    let demand = TransitDemand::new(&zones, [(0, 2, 1.0)]).unwrap();
    let err = assign(&g, &zones, &demand, &StrategyOptions::default(), &|_, _| {}).unwrap_err().to_string();
    assert!(err.contains("1 zones with demand have no connector") && err.contains("zones 2"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The optimal strategy's cost from every vertex to `dest` by value iteration over every subset of
/// each vertex's out-edges: a single edge without wait (`c + u_j`), or a set of waiting edges
/// (`(1 + Σ f (c + u_j)) / Σ f`). Independent of the label-setting order.
fn brute_force_u(n: usize, edges: &[(u32, u32, f64, f64)], dest: usize) -> Vec<f64> {
    let mut u = vec![f64::INFINITY; n];
    u[dest] = 0.0;
    for _ in 0..4 * n + 10 {
        let mut changed = false;
        for i in (0..n).filter(|&i| i != dest) {
            let out: Vec<_> = edges.iter().filter(|e| e.0 as usize == i).collect();
            let mut best = u[i];
            for e in out.iter().filter(|e| e.3.is_infinite()) {
                best = best.min(e.2.max(TIME_FLOOR) + u[e.1 as usize]);
            }
            let waiting: Vec<_> =
                out.iter().filter(|e| e.3.is_finite() && u[e.1 as usize].is_finite()).collect();
            for mask in 1u32..(1 << waiting.len()) {
                let (mut f, mut s) = (0.0, 1.0);
                for (_, e) in waiting.iter().enumerate().filter(|(k, _)| mask >> k & 1 == 1) {
                    f += e.3;
                    s += e.3 * (e.2.max(TIME_FLOOR) + u[e.1 as usize]);
                }
                best = best.min(s / f);
            }
            if best < u[i] - 1e-12 * u[i].min(1e12) {
                u[i] = best;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    u
}

fn random_graph() -> impl Strategy<Value = (usize, Vec<(u32, u32, f64, f64)>)> {
    (3usize..8)
        .prop_flat_map(|n| {
            let edge = (0..n as u32, 0..n as u32, 0u32..20, prop_oneof![Just(0.0f64), 0.05f64..1.0]);
            (Just(n), prop::collection::vec(edge, 2..(3 * n)))
        })
        .prop_map(|(n, raw)| {
            // Frequency 0 draws stand for "no wait" (∞); times on a coarse grid so that ties happen.
            let edges = raw
                .into_iter()
                .filter(|e| e.0 != e.1)
                .map(|(t, h, c, f)| (t, h, c as f64 * 0.5, if f == 0.0 { f64::INFINITY } else { f }))
                .collect();
            (n, edges)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The label-setting strategy costs what the best strategy found by brute force costs, and the
    /// loading conserves flow: every trip leaves its origin and arrives at its destination.
    #[test]
    fn strategies_are_optimal_and_loads_conserve_flow((n, edges) in random_graph(), dest_pick in 0usize..8, trips in 1.0f64..50.0) {
        prop_assume!(!edges.is_empty());
        let dest = dest_pick % n;
        let g = HyperpathGraph::from_edges(n as u32, &edges).unwrap();
        let zones = Zones::every_vertex(&g);
        let want = brute_force_u(n, &edges, dest);
        let origins: Vec<usize> = (0..n).filter(|&o| o != dest && want[o].is_finite()).collect();
        let demand = TransitDemand::new(&zones, origins.iter().map(|&o| (o as i64, dest as i64, trips))).unwrap();
        let opts = StrategyOptions { skims: true, allow_unconnected: true };
        let r = assign(&g, &zones, &demand, &opts, &|_, _| {}).unwrap();
        let skims = r.skims.unwrap();
        for (o, &best) in want.iter().enumerate().filter(|&(o, _)| o != dest) {
            let ours = skims.total[o * n + dest];
            prop_assert!(
                (ours.is_infinite() && best.is_infinite()) || (ours - best).abs() <= 1e-9 * best.max(1.0),
                "u({}) = {} by label setting, {} by brute force", o, ours, best
            );
        }
        // Conservation: at every vertex, in + its own demand = out, and the destination absorbs it all.
        let mut balance = vec![0.0f64; n];
        for &o in &origins { balance[o] += trips; }
        for (e, &v) in r.volumes.iter().enumerate() {
            let (t, h, _, _) = g.edge(e);
            balance[t as usize] -= v;
            balance[h as usize] += v;
        }
        for (v, b) in balance.iter().enumerate() {
            let want_b = if v == dest { trips * origins.len() as f64 } else { 0.0 };
            prop_assert!((b - want_b).abs() <= 1e-9 * (trips * n as f64), "vertex {}: balance {} against {}", v, b, want_b);
        }
        prop_assert!((r.assigned - trips * origins.len() as f64).abs() < 1e-9);
    }
}

#[test]
fn a_gtfs_feed_becomes_lines_with_the_window_frequencies() {
    use algos_transit::strategies::{EdgeKind, GtfsGraphOptions, graph_from_gtfs};
    let feed = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mini_gtfs");
    // 07:00–09:00 on a Tuesday: the red line's `slow` (08:00) and `fast` (08:05) trips share a pattern,
    // two trips in two hours; `late` and the blue bus (10:00–11:00) fall outside.
    let opts = GtfsGraphOptions::default();
    let built = graph_from_gtfs(&feed, "2025-04-08", None, &opts).unwrap();
    let g = &built.graph;
    assert_eq!((built.stations.len(), built.patterns, built.trips), (4, 1, 2));
    let boarding: Vec<usize> = (0..g.num_edges()).filter(|&e| g.kind(e) == EdgeKind::Boarding).collect();
    assert_eq!(boarding.len(), 2, "boarding at S1 and S2 (not at the last stop)");
    for &e in &boarding {
        assert!((g.edge(e).3 - 2.0 / 7200.0).abs() < 1e-15 && g.edge(e).2 == 15.0);
    }
    // Rides: S1 → S2 averages slow's interpolated 15 min and fast's 5 min; S2 → S3 15 and 10 min.
    let rides: Vec<f64> =
        (0..g.num_edges()).filter(|&e| g.kind(e) == EdgeKind::OnBoard).map(|e| g.edge(e).2).collect();
    assert_eq!(rides, vec![600.0, 750.0]);
    // Walking between S3 and S4 (about 27 m apart), both ways, nothing else within 200 m.
    let walks: Vec<(u32, u32)> = (0..g.num_edges())
        .filter(|&e| g.kind(e) == EdgeKind::Walking)
        .map(|e| (g.edge(e).0, g.edge(e).1))
        .collect();
    assert_eq!(walks.len(), 2);
    // From S1 (zone 1) to S4 (zone 4): wait a full combined headway (3,600 s), board, ride, alight, walk.
    let demand = TransitDemand::new(&built.zones, [(1, 4, 10.0)]).unwrap();
    let r = run(g, &built.zones, &demand, StrategyOptions { skims: true, ..Default::default() });
    let walk = (0..g.num_edges()).find(|&e| g.kind(e) == EdgeKind::Walking && g.edge(e).1 == 3).unwrap();
    let want = 15.0 + 3600.0 + 600.0 + 750.0 + 15.0 + g.edge(walk).2;
    let total = r.skims.as_ref().unwrap().total[3];
    assert!((total - want).abs() < 1e-9, "{total} against {want}");
    assert_eq!(r.volumes[walk], 10.0);
    // A window without trips is an error that says so.
    let empty = GtfsGraphOptions { window: (12 * 3600, 13 * 3600), ..GtfsGraphOptions::default() };
    let err = graph_from_gtfs(&feed, "2025-04-08", None, &empty).unwrap_err().to_string();
    assert!(err.contains("no trip leaves its first stop between 12:00 and 13:00"), "{err}");
    // Zones as points: each joins its nearest station when none is within the radius.
    let points = [(100, [48.8501, 2.3501]), (200, [48.8703, 2.3503])];
    let with_zones = graph_from_gtfs(&feed, "2025-04-08", Some(&points), &opts).unwrap();
    assert_eq!(with_zones.zones.len(), 2);
    let demand = TransitDemand::new(&with_zones.zones, [(100, 200, 1.0)]).unwrap();
    let r = run(&with_zones.graph, &with_zones.zones, &demand, StrategyOptions::default());
    assert_eq!((r.assigned, r.unassigned), (1.0, 0.0));
}

#[test]
fn dwelling_trips_charge_riders_through_and_not_those_who_alight() {
    use algos_transit::strategies::{EdgeKind, GtfsGraphOptions, graph_from_gtfs};
    // The mini feed with the `fast` trip dwelling 2 minutes at S2 (arrives 08:10, leaves 08:12).
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mini_gtfs");
    let feed = std::env::temp_dir().join(format!("urbanflow-dwell-gtfs-{}", std::process::id()));
    std::fs::create_dir_all(&feed).unwrap();
    for entry in std::fs::read_dir(&from).unwrap() {
        let entry = entry.unwrap();
        let text = std::fs::read_to_string(entry.path()).unwrap();
        let text = text.replace("fast,08:10:00,08:10:00,S2", "fast,08:10:00,08:12:00,S2");
        std::fs::write(feed.join(entry.file_name()), text).unwrap();
    }
    let built = graph_from_gtfs(&feed, "2025-04-08", None, &GtfsGraphOptions::default()).unwrap();
    let g = &built.graph;
    let of = |kind| (0..g.num_edges()).filter(move |&e| g.kind(e) == kind);
    // Rides depart to arrive: S1 → S2 as before (15 and 5 min), S2 → S3 now 15 and 8 min; the dwell at
    // S2 is the mean of 0 (slow) and 120 s (fast).
    assert_eq!(of(EdgeKind::OnBoard).map(|e| g.edge(e).2).collect::<Vec<_>>(), vec![600.0, 690.0]);
    assert_eq!(of(EdgeKind::Dwell).map(|e| g.edge(e).2).collect::<Vec<_>>(), vec![60.0]);
    // Every edge of the red line's pattern names its GTFS route.
    assert!(of(EdgeKind::Boarding).all(|e| g.line(e) == "R"));
    let demand = TransitDemand::new(&built.zones, [(1, 2, 1.0), (1, 3, 1.0)]).unwrap();
    let r = run(g, &built.zones, &demand, StrategyOptions { skims: true, ..Default::default() });
    let skims = r.skims.as_ref().unwrap();
    // To S2: wait, ride, alight — no dwell. To S3: through S2, dwell included (in-vehicle 1,350 s).
    assert!((skims.total[1] - (15.0 + 3600.0 + 600.0 + 15.0)).abs() < 1e-9, "{}", skims.total[1]);
    assert!((skims.total[2] - (15.0 + 3600.0 + 1350.0 + 15.0)).abs() < 1e-9, "{}", skims.total[2]);
    assert!((skims.in_vehicle[2] - 1350.0).abs() < 1e-9, "{}", skims.in_vehicle[2]);
    let dwell = of(EdgeKind::Dwell).next().unwrap();
    assert_eq!(r.volumes[dwell], 1.0);
}

// The GPU path (`strategies::gpu`): its CPU twin against the label setting and AequilibraE, and the
// device against its twin.

use algos_transit::strategies::gpu::{GpuStrategyConfig, assign_gpu_with, transit_strategies_mirror};

/// Largest difference between two volume vectors, relative to max(|b|, 1).
fn max_relative_difference(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs() / y.abs().max(1.0)).fold(0.0, f64::max)
}

/// A graph, its zones and demand, and the volumes AequilibraE or the paper gives.
struct Case {
    what: String,
    g: HyperpathGraph,
    zones: Zones,
    demand: TransitDemand,
    want: HashMap<i64, f64>,
}

/// city6, Coquimbo and the 1989 example (the last two where the data is), with the demand they ship.
fn gpu_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    let dir = fixtures().join("city6");
    let g = HyperpathGraph::read_csv(dir.join("edges.csv")).unwrap();
    let zones = Zones::read_csv(dir.join("zones.csv"), &g).unwrap();
    let demand = TransitDemand::read_csv(dir.join("demand.csv"), &zones).unwrap();
    let want = column(&dir.join("aequilibrae_volumes.csv"), 1);
    cases.push(Case { what: "city6".into(), g, zones, demand, want });
    if let Some(dir) = data_path("transit/coquimbo", "strategies GPU test") {
        let g = HyperpathGraph::read_csv(dir.join("edges.csv")).unwrap();
        let zones = Zones::read_csv(dir.join("zones.csv"), &g).unwrap();
        let demand = TransitDemand::read_csv(dir.join("demand.csv"), &zones).unwrap();
        let want = column(&fixtures().join("coquimbo_volumes.csv"), 1);
        cases.push(Case { what: "Coquimbo".into(), g, zones, demand, want });
    }
    if let Some(dir) = data_path("transit/spiess-florian-1989", "strategies GPU test") {
        let g = HyperpathGraph::read_csv(dir.join("edges.csv")).unwrap();
        let zones = Zones::every_vertex(&g);
        let demand = TransitDemand::new(&zones, [(0, 12, 1.0)]).unwrap();
        let want = column(&dir.join("expected_volumes.csv"), 2);
        cases.push(Case { what: "1989 example".into(), g, zones, demand, want });
    }
    cases
}

const UNCONNECTED: StrategyOptions = StrategyOptions { skims: false, allow_unconnected: true };

#[test]
fn gpu_mirror_volumes_equal_the_label_setting_and_aequilibrae() {
    for Case { what, g, zones, demand, want } in gpu_cases() {
        // Batches of 3 destinations: the batch sums are exercised.
        let (mirror, _) = transit_strategies_mirror(
            &g,
            &zones,
            &demand,
            &UNCONNECTED,
            GpuStrategyConfig { batch: 3, ..Default::default() },
        )
        .unwrap();
        let cpu = run(&g, &zones, &demand, UNCONNECTED);
        let diff = max_relative_difference(&mirror.volumes, &cpu.volumes);
        assert!(diff <= 1e-12, "{what}: mirror and label setting differ by {diff}");
        assert!((mirror.unassigned - cpu.unassigned).abs() <= 1e-9 * cpu.unassigned.max(1.0), "{what}");
        assert!((mirror.assigned - cpu.assigned).abs() <= 1e-9 * cpu.assigned.max(1.0), "{what}");
        assert_eq!(
            (mirror.unassigned_pairs, mirror.destinations),
            (cpu.unassigned_pairs, cpu.destinations),
            "{what}"
        );
        assert_volumes(&g, &mirror, &want, &format!("{what} (GPU mirror)"));
    }
}

#[test]
fn gpu_volumes_equal_the_mirror() {
    let cases = gpu_cases();
    gpu_runtime::testing::for_each_context("strategies gpu_volumes_equal_the_mirror", |ctx| {
        for Case { what, g, zones, demand, want } in &cases {
            let config = GpuStrategyConfig { batch: 3, ..Default::default() };
            let gpu = assign_gpu_with(ctx, g, zones, demand, &UNCONNECTED, config, &|_, _| {});
            if !ctx.features().f64 {
                let e = gpu.unwrap_err();
                assert!(matches!(e, TdError::Gpu(_)) && e.to_string().contains("f64"), "{e}");
                continue;
            }
            let (gpu, sweeps) = gpu.unwrap();
            assert!(sweeps.labels_max >= 2 && sweeps.batches >= 1, "{what}: {sweeps}");
            let (mirror, mirror_sweeps) =
                transit_strategies_mirror(g, zones, demand, &UNCONNECTED, config).unwrap();
            // The device skips vertices whose heads did not change; the mirror evaluates them all.
            assert_eq!(sweeps, mirror_sweeps, "{what}");
            let diff = max_relative_difference(&gpu.volumes, &mirror.volumes);
            assert!(diff <= 1e-12, "{what}: GPU and mirror differ by {diff}");
            assert_eq!((gpu.unassigned, gpu.unassigned_pairs), (mirror.unassigned, mirror.unassigned_pairs));
            assert_volumes(g, &gpu, want, &format!("{what} (GPU)"));
        }
        if !ctx.features().f64 {
            return;
        }
        // Skims stay on the CPU: asked of the GPU, a clear refusal.
        let Case { g, zones, demand, .. } = &cases[0];
        let opts = StrategyOptions { skims: true, allow_unconnected: true };
        let e = assign_gpu_with(
            ctx,
            g,
            zones,
            demand,
            &opts,
            GpuStrategyConfig { batch: 3, ..Default::default() },
            &|_, _| {},
        )
        .unwrap_err();
        assert!(e.to_string().contains("skims"), "{e}");
    });
}

/// Every vertex to every other with `trips`.
fn all_pairs(zones: &Zones, n: usize, trips: f64) -> TransitDemand {
    let pairs =
        (0..n).flat_map(|d| (0..n).filter(move |&o| o != d).map(move |o| (o as i64, d as i64, trips)));
    TransitDemand::new(zones, pairs).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// The GPU's twin gives the label setting's volumes on random graphs full of ties.
    #[test]
    fn gpu_mirror_equals_the_label_setting_on_random_graphs((n, edges) in random_graph(), trips in 1.0f64..50.0) {
        prop_assume!(!edges.is_empty());
        let g = HyperpathGraph::from_edges(n as u32, &edges).unwrap();
        let zones = Zones::every_vertex(&g);
        let demand = all_pairs(&zones, n, trips);
        let (mirror, _) = transit_strategies_mirror(&g, &zones, &demand, &UNCONNECTED, GpuStrategyConfig { batch: 2, ..Default::default() }).unwrap();
        let cpu = assign(&g, &zones, &demand, &UNCONNECTED, &|_, _| {}).unwrap();
        let diff = max_relative_difference(&mirror.volumes, &cpu.volumes);
        prop_assert!(diff <= 1e-12, "mirror and label setting differ by {}", diff);
        // Unreached trips are added in another order: equal to rounding.
        prop_assert!((mirror.unassigned - cpu.unassigned).abs() <= 1e-9 * cpu.unassigned.max(1.0));
        prop_assert_eq!((mirror.unassigned_pairs, mirror.destinations), (cpu.unassigned_pairs, cpu.destinations));
    }
}

/// The device against its twin on random graphs full of ties (few cases: each runs the device).
#[test]
fn gpu_volumes_equal_the_mirror_on_random_graphs() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    type Edges = Vec<(u32, u32, f64, f64)>;
    let mut cases: Vec<(usize, Edges)> = (0..24)
        .map(|_| random_graph().new_tree(&mut runner).unwrap().current())
        .filter(|c| !c.1.is_empty())
        .collect();
    // A hub with more out-edges than the shader sorts in private memory (it scans them instead): 24
    // lines from vertex 0, in four groups of equal ride times, to vertex 25 and on to 26.
    let mut hub: Edges = Vec::new();
    for k in 0..24u32 {
        hub.push((0, k + 1, 0.0, 0.01 * f64::from(k % 5 + 1)));
        hub.push((k + 1, 25, 60.0 * f64::from(k % 4 + 1), f64::INFINITY));
        hub.push((k + 1, 26, 90.0, f64::INFINITY));
    }
    hub.push((25, 26, 30.0, 0.05));
    cases.push((27, hub));
    gpu_runtime::testing::for_each_context(
        "strategies gpu_volumes_equal_the_mirror_on_random_graphs",
        |ctx| {
            if !ctx.features().f64 {
                return;
            }
            for (n, edges) in &cases {
                let g = HyperpathGraph::from_edges(*n as u32, edges).unwrap();
                let zones = Zones::every_vertex(&g);
                let demand = all_pairs(&zones, *n, 7.5);
                let config = GpuStrategyConfig { batch: 3, ..Default::default() };
                let (gpu, sweeps) =
                    assign_gpu_with(ctx, &g, &zones, &demand, &UNCONNECTED, config, &|_, _| {}).unwrap();
                let (mirror, mirror_sweeps) =
                    transit_strategies_mirror(&g, &zones, &demand, &UNCONNECTED, config).unwrap();
                assert_eq!(sweeps, mirror_sweeps, "{edges:?}");
                let diff = max_relative_difference(&gpu.volumes, &mirror.volumes);
                assert!(diff <= 1e-12, "GPU and mirror differ by {diff} on {edges:?}");
                assert_eq!(gpu.unassigned_pairs, mirror.unassigned_pairs);
            }
        },
    );
}

/// A GTFS-built city full of exact ties (equal walking and connector times, lines of equal
/// frequency): the NYC subway feed of shared/data, every station a zone, one trip between a seventh of
/// the pairs. The GPU's twin and the device (where there is one) give the label
/// setting's volumes: the one multiply-add of the strategy rule is fused explicitly on both sides, so
/// no compiler's contraction moves a tie.
#[test]
fn gtfs_city_with_ties_agrees_on_every_path() {
    let Some(feed) = data_path("transit/nyc_subway_gtfs.zip", "strategies GPU test") else { return };
    let opts = algos_transit::strategies::GtfsGraphOptions { window: (25_200, 32_400), ..Default::default() };
    let built = algos_transit::strategies::graph_from_gtfs(&feed, "2024-12-16", None, &opts).unwrap();
    let (g, zones) = (built.graph, built.zones);
    let n = zones.len() as i64;
    let pairs = (0..n * n)
        .filter(|k| k % 7 == 3 && k / n != k % n)
        .map(|k| (zones.id((k / n) as usize), zones.id((k % n) as usize), 1.0));
    let demand = TransitDemand::new(&zones, pairs).unwrap();
    let cpu = run(&g, &zones, &demand, UNCONNECTED);
    let config = GpuStrategyConfig { batch: 32, ..Default::default() };
    let (mirror, mirror_sweeps) =
        transit_strategies_mirror(&g, &zones, &demand, &UNCONNECTED, config).unwrap();
    let diff = max_relative_difference(&mirror.volumes, &cpu.volumes);
    assert!(diff <= 1e-12, "mirror and label setting differ by {diff}");
    gpu_runtime::testing::for_each_context("strategies gtfs_city_with_ties_agrees_on_every_path", |ctx| {
        if !ctx.features().f64 {
            return;
        }
        let (gpu, sweeps) =
            assign_gpu_with(ctx, &g, &zones, &demand, &UNCONNECTED, config, &|_, _| {}).unwrap();
        assert_eq!(sweeps, mirror_sweeps);
        let diff = max_relative_difference(&gpu.volumes, &cpu.volumes);
        assert!(diff <= 1e-12, "GPU and label setting differ by {diff}");
    });
}
