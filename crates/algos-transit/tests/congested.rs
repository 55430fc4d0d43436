//! Congested transit assignment (effective frequencies, Cepeda, Cominetti & Florian 2006) against
//! equilibria solved independently: two common lines, and a line whose through riders take the room
//! of the boarders downstream, each solved by bisection on its equilibrium condition (flows split in
//! proportion to the effective frequencies); three common lines, one with through riders, solved by
//! scipy (`scripts/fixtures/congested_common_lines.py`, fixtures in `tests/fixtures/congested`). Plus: unlimited capacity is the uncongested assignment
//! bit for bit, flow conservation and thread-count independence on a grid city, vehicle capacities per
//! line, and the refusals.

use std::path::{Path, PathBuf};

use algos_transit::strategies::{
    CongestionOptions, EdgeKind, HyperpathGraph, StrategyOptions, TransitDemand, Zones, assign,
    assign_congested, effective_frequency, line_capacities, line_capacities_by_line, read_vehicle_capacities,
};

const INF: f64 = f64::INFINITY;

fn city6() -> (HyperpathGraph, Zones, TransitDemand) {
    let dir: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/strategies/city6");
    let g = HyperpathGraph::read_csv(dir.join("edges.csv")).unwrap();
    let zones = Zones::read_csv(dir.join("zones.csv"), &g).unwrap();
    let demand = TransitDemand::read_csv(dir.join("demand.csv"), &zones).unwrap();
    (g, zones, demand)
}

/// From 0 to 1: line A (board 0 → 2, every 10 min, ride 10 min) or line B (0 → 3, every 10 min, ride
/// 14 min); 60 trips. Minutes, frequencies per minute.
fn two_common_lines() -> (HyperpathGraph, Zones, TransitDemand) {
    let g = HyperpathGraph::from_edges(
        4,
        &[(0, 2, 0.0, 0.1), (2, 1, 10.0, INF), (0, 3, 0.0, 0.1), (3, 1, 14.0, INF)],
    )
    .unwrap()
    .with_kinds([EdgeKind::Boarding, EdgeKind::OnBoard, EdgeKind::Boarding, EdgeKind::OnBoard])
    .unwrap();
    let zones = Zones::every_vertex(&g);
    let demand = TransitDemand::new(&zones, [(0, 1, 60.0)]).unwrap();
    (g, zones, demand)
}

/// The root of `f` on `[lo, hi]` (`f(lo) > 0 > f(hi)`) by bisection, to the last bit.
fn bisect(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    assert!(f(lo) > 0.0 && f(hi) < 0.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 { lo = mid } else { hi = mid }
    }
    0.5 * (lo + hi)
}

/// Tight options, for the default β and for a steep one.
fn tight() -> [CongestionOptions; 2] {
    let opts = CongestionOptions { relative_gap: 1e-7, max_iterations: 20_000, ..Default::default() };
    [opts, CongestionOptions { beta: 4.0, ..opts }]
}

#[test]
fn two_common_lines_reach_the_analytic_equilibrium() {
    // From 0 to 1: line A (every 10 min, ride 10 min, 20 trips of capacity over the period) and line B
    // (every 10 min, ride 14 min, unlimited). Both stay attractive at any load (B's 14 min beat A alone,
    // 1/f_A + 10 ≥ 20), so at equilibrium the 60 trips split as the effective frequencies:
    // x = 60 f_A(x) / (f_A(x) + 0.1), with f_A(x) = 0.1 (1 − (x / 20)^β).
    let (g, zones, demand) = two_common_lines();
    for opts in tight() {
        let fa = |x: f64| 0.1 * (1.0 - (x / 20.0).powf(opts.beta));
        let x = bisect(|x| 60.0 * fa(x) / (fa(x) + 0.1) - x, 0.0, 20.0);
        let capacity = [20.0, INF, INF, INF];
        let r = assign_congested(&g, &zones, &demand, &capacity, &StrategyOptions::default(), &opts, &|_| {})
            .unwrap();
        assert!(r.converged, "gap {:?}", r.iterations.last());
        let v = &r.assignment.volumes;
        assert!((v[0] - x).abs() < 1e-3 * x, "line A carries {}, the equilibrium {x}", v[0]);
        assert!((v[0] + v[2] - 60.0).abs() < 1e-9, "every trip boards one line");
        assert_eq!(v[0].to_bits(), v[1].to_bits());
        assert!((r.effective_frequency[0] - fa(x)).abs() < 1e-3 * fa(x));
        assert_eq!(r.effective_frequency[2], 0.1);
        assert_eq!(r.effective_frequency[1], INF);
        // Uncongested, the two lines share equally: iteration 0 is that assignment.
        assert!(r.iterations[0].gap.is_infinite());
        let first_gap = r.iterations[1].relative_gap;
        assert!(first_gap > 0.01 && r.iterations.last().unwrap().relative_gap <= 1e-7, "{first_gap}");
    }
}

#[test]
fn through_riders_take_the_room_of_boarders() {
    // Line L: stop 0 → stop 1 → stop 2 (vertices 3, 4, 5 on board; 10 min a leg, every 10 min,
    // capacity 20 over the period). 15 trips ride it from 0 to 2: at stop 1 they leave only 5 places.
    // 30 trips from 1 to 2 choose between L and line B (every 10 min, 14 min, unlimited):
    // x = 30 f(x) / (f(x) + 0.1) with f(x) = 0.1 (1 − (x / (20 − (15 + x) + x))^β).
    let edges = [
        (0, 3, 0.0, 0.1, EdgeKind::Boarding),
        (3, 4, 10.0, INF, EdgeKind::OnBoard),
        (1, 4, 0.0, 0.1, EdgeKind::Boarding),
        (4, 5, 10.0, INF, EdgeKind::OnBoard),
        (5, 2, 0.0, INF, EdgeKind::Alighting),
        (1, 6, 0.0, 0.1, EdgeKind::Boarding),
        (6, 2, 14.0, INF, EdgeKind::OnBoard),
    ];
    let plain: Vec<_> = edges.iter().map(|e| (e.0, e.1, e.2, e.3)).collect();
    let g = HyperpathGraph::from_edges(7, &plain).unwrap().with_kinds(edges.iter().map(|e| e.4)).unwrap();
    let zones = Zones::every_vertex(&g);
    let demand = TransitDemand::new(&zones, [(0, 2, 15.0), (1, 2, 30.0)]).unwrap();
    for opts in tight() {
        let f = |x: f64| 0.1 * (1.0 - (x / 5.0).powf(opts.beta));
        let x = bisect(|x| 30.0 * f(x) / (f(x) + 0.1) - x, 0.0, 5.0);
        let mut capacity = line_capacities(&g, 20.0, 10.0); // 0.1 per min × 20 per vehicle × 10 min = 20 trips
        assert_eq!((capacity[0], capacity[1], capacity[5]), (20.0, INF, 20.0));
        capacity[5] = INF; // line B
        let r = assign_congested(&g, &zones, &demand, &capacity, &StrategyOptions::default(), &opts, &|_| {})
            .unwrap();
        assert!(r.converged, "{:?}", r.iterations.last());
        let v = &r.assignment.volumes;
        assert!((v[2] - x).abs() < 1e-3 * x, "boarders at stop 1: {}, the equilibrium {x}", v[2]);
        assert!((v[0] - 15.0).abs() < 1e-9 && (v[3] - 15.0 - v[2]).abs() < 1e-9);
        assert!((r.on_board[2] - v[3]).abs() < 1e-12, "on board leaving stop 1: through riders and boarders");
        let upstream = effective_frequency(0.1, 15.0, 15.0, 20.0, opts.beta);
        assert!((r.effective_frequency[0] - upstream).abs() < 1e-12);
        assert!(v[3] <= 20.0 + 1e-6, "the line stays within its capacity: {}", v[3]);
    }
}

#[test]
fn unlimited_capacity_is_the_uncongested_assignment_bit_for_bit() {
    let (g, zones, demand) = city6();
    let plain = assign(&g, &zones, &demand, &StrategyOptions::default(), &|_, _| {}).unwrap();
    let capacity = vec![INF; g.num_edges()];
    let r = assign_congested(
        &g,
        &zones,
        &demand,
        &capacity,
        &StrategyOptions::default(),
        &CongestionOptions::default(),
        &|_| {},
    )
    .unwrap();
    assert!(r.converged && r.iterations.len() == 2, "{:?}", r.iterations);
    assert!(plain.volumes.iter().zip(&r.assignment.volumes).all(|(a, b)| a.to_bits() == b.to_bits()));
    assert_eq!((plain.assigned, plain.unassigned), (r.assignment.assigned, r.assignment.unassigned));
}

#[test]
fn a_congested_grid_city_conserves_flow_and_ignores_the_thread_count() {
    let (g, zones, demand) = city6();
    // Small vehicles so that lines fill: the gap must fall, flow must be conserved at every vertex.
    let capacity = line_capacities(&g, 2.0, 3600.0);
    let opts = CongestionOptions { max_iterations: 30, relative_gap: 0.0, ..Default::default() };
    let on = |threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let skims = StrategyOptions { skims: true, ..Default::default() };
            assign_congested(&g, &zones, &demand, &capacity, &skims, &opts, &|_| {}).unwrap()
        })
    };
    let (one, four) = (on(1), on(4));
    // The same bits on 1 and 4 threads (times aside).
    assert!(
        one.assignment.volumes.iter().zip(&four.assignment.volumes).all(|(a, b)| a.to_bits() == b.to_bits())
    );
    assert_eq!(one.effective_frequency, four.effective_frequency);
    assert_eq!(one.assignment.skims, four.assignment.skims);
    let gaps_of = |r: &algos_transit::strategies::CongestedAssignment| -> Vec<u64> {
        r.iterations.iter().map(|i| i.gap.to_bits()).collect()
    };
    assert_eq!(gaps_of(&one), gaps_of(&four));
    let r = one;
    let gaps: Vec<f64> = r.iterations.iter().skip(1).map(|i| i.relative_gap).collect();
    assert!(gaps[0] > 0.05, "the small vehicles congest the city: first gap {}", gaps[0]);
    assert!(*gaps.last().unwrap() < 0.2 * gaps[0], "the gap falls: {gaps:?}");
    assert!(!r.converged && r.iterations.len() == 30);
    let congested_lines = (0..g.num_edges()).filter(|&e| r.effective_frequency[e] < g.edge(e).3).count();
    assert!(congested_lines > 0);
    // Conservation: at every vertex, what enters plus what starts there equals what leaves plus what ends.
    let n = g.num_vertices() as usize;
    let mut balance = vec![0.0; n];
    for e in 0..g.num_edges() {
        let (t, h, _, _) = g.edge(e);
        balance[t as usize] -= r.assignment.volumes[e];
        balance[h as usize] += r.assignment.volumes[e];
    }
    for &(o, d, trips) in demand.pairs() {
        if o != d {
            balance[zones.origin(o as usize) as usize] += trips;
            balance[zones.destination(d as usize) as usize] -= trips;
        }
    }
    let worst = balance.iter().fold(0.0f64, |m, b| m.max(b.abs()));
    assert!(worst < 1e-6 * demand.total(), "flow is conserved: worst imbalance {worst}");
    let skims = r.assignment.skims.expect("skims");
    assert!(skims.total.iter().all(|t| !t.is_nan()));
}

#[test]
fn bad_capacities_and_unlabelled_graphs_are_refused() {
    let (g, zones, demand) = city6();
    let none = StrategyOptions::default();
    let opts = CongestionOptions::default();
    let short = assign_congested(&g, &zones, &demand, &[1.0], &none, &opts, &|_| {}).unwrap_err();
    assert!(short.to_string().contains("capacities for"), "{short}");
    let mut negative = vec![INF; g.num_edges()];
    negative[3] = -1.0;
    let e = assign_congested(&g, &zones, &demand, &negative, &none, &opts, &|_| {}).unwrap_err();
    assert!(e.to_string().contains("capacity -1"), "{e}");
    let bad_beta = CongestionOptions { beta: 0.0, ..opts };
    let cap = vec![INF; g.num_edges()];
    assert!(assign_congested(&g, &zones, &demand, &cap, &none, &bad_beta, &|_| {}).is_err());
    // Without link types a boarding edge's line load cannot be known.
    let bare = HyperpathGraph::from_edges(3, &[(0, 2, 0.0, 0.1), (2, 1, 10.0, INF)]).unwrap();
    let z = Zones::every_vertex(&bare);
    let d = TransitDemand::new(&z, [(0, 1, 1.0)]).unwrap();
    let e = assign_congested(&bare, &z, &d, &[5.0, INF], &none, &opts, &|_| {}).unwrap_err();
    assert!(e.to_string().contains("no in-vehicle edge"), "{e}");
}

#[test]
fn vehicle_capacities_per_line_are_read_and_checked() {
    let (g, _, _) = city6();
    let dir = std::env::temp_dir().join(format!("uf-congested-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("vehicles.csv");
    std::fs::write(&file, "line_id,vehicle_capacity\nL1a,2\n").unwrap();
    let per_line = read_vehicle_capacities(&file).unwrap();
    assert_eq!(per_line, [("L1a".to_string(), 2.0)]);
    for others in [None, Some(5.0)] {
        let capacity = line_capacities_by_line(&g, &per_line, others, 3600.0).unwrap();
        for (e, &got) in capacity.iter().enumerate() {
            let f = g.edge(e).3;
            let want = match (f.is_finite(), g.line(e), others) {
                (false, _, _) => INF,
                (true, "L1a", _) => f * 2.0 * 3600.0,
                (true, _, None) => INF,
                (true, _, Some(c)) => f * c * 3600.0,
            };
            assert_eq!(got, want, "edge {e} of line {}", g.line(e));
        }
    }
    let misspelt = [("L1z".to_string(), 2.0)];
    let e = line_capacities_by_line(&g, &misspelt, None, 3600.0).unwrap_err();
    assert!(e.to_string().contains("line `L1z`, but no boarding edge"), "{e}");
    for (text, want) in [
        ("line_id,vehicle_capacity\nL1a,-3\n", ":2: vehicle capacity `-3` of line `L1a`"),
        ("line_id,vehicle_capacity\nL1a,3\nL1a,4\n", ":3: line `L1a` repeats line 2"),
        ("route,seats\nL1a,3\n", ":1: expected the columns line_id,vehicle_capacity"),
    ] {
        std::fs::write(&file, text).unwrap();
        let e = read_vehicle_capacities(&file).unwrap_err().to_string();
        assert!(e.contains(want), "{e}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The scipy fixture's network: stops U (0), S (1), D (2); line A rides U → S → D, lines B and C ride
/// S → D; `h` trips U → D stay on A through S, `g` trips S → D split over A, B and C.
#[test]
fn three_common_lines_equal_scipys_equilibrium() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/congested");
    for name in ["common_lines_beta0.5.json", "common_lines_beta4.json"] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let case: serde_json::Value = serde_json::from_str(&text).unwrap();
        let num = |v: &serde_json::Value| v.as_f64().unwrap();
        let (mu, ride) = (&case["mu"], &case["ride"]);
        let edges = [
            (0, 3, 0.0, num(&mu["A"]), EdgeKind::Boarding),
            (3, 4, 8.0, INF, EdgeKind::OnBoard),
            (1, 4, 0.0, num(&mu["A"]), EdgeKind::Boarding),
            (4, 2, num(&ride["A"]), INF, EdgeKind::OnBoard),
            (1, 5, 0.0, num(&mu["B"]), EdgeKind::Boarding),
            (5, 2, num(&ride["B"]), INF, EdgeKind::OnBoard),
            (1, 6, 0.0, num(&mu["C"]), EdgeKind::Boarding),
            (6, 2, num(&ride["C"]), INF, EdgeKind::OnBoard),
        ];
        let plain: Vec<_> = edges.iter().map(|e| (e.0, e.1, e.2, e.3)).collect();
        let g = HyperpathGraph::from_edges(7, &plain).unwrap().with_kinds(edges.iter().map(|e| e.4)).unwrap();
        let zones = Zones::every_vertex(&g);
        let demand = TransitDemand::new(&zones, [(0, 2, num(&case["h"])), (1, 2, num(&case["g"]))]).unwrap();
        let (za, zb) = (num(&case["zA"]), num(&case["zB"]));
        let capacity = [za, INF, za, INF, zb, INF, INF, INF];
        let opts =
            CongestionOptions { beta: num(&case["beta"]), relative_gap: 1e-10, max_iterations: 200_000 };
        let r = assign_congested(&g, &zones, &demand, &capacity, &StrategyOptions::default(), &opts, &|_| {})
            .unwrap();
        assert!(r.converged, "{name}: {:?}", r.iterations.last());
        let want = &case["volumes"];
        for (line, edge) in [("A", 2), ("B", 4), ("C", 6)] {
            let (ours, theirs) = (r.assignment.volumes[edge], num(&want[line]));
            assert!(
                (ours - theirs).abs() <= 1e-4 * theirs,
                "{name}: line {line} boards {ours} at S, scipy {theirs}"
            );
            let f = num(&case["effective_frequency"][line]);
            assert!((r.effective_frequency[edge] - f).abs() <= 1e-3 * f, "{name}: line {line}'s frequency");
        }
        assert!((r.assignment.volumes[3] - num(&case["h"]) - r.assignment.volumes[2]).abs() < 1e-9);
    }
}

/// The congested loop on the GPU (strategies, loads and every destination's flows on the device)
/// against the CPU's: the same iterations and gaps to rounding, the same volumes and frequencies; on
/// the congested grid city (30 iterations) and the two common lines to convergence.
#[test]
fn the_gpu_congested_loop_equals_the_cpu() {
    use algos_transit::strategies::gpu::assign_congested_gpu;
    let (g, zones, demand) = city6();
    let capacity = line_capacities(&g, 2.0, 3600.0);
    let opts = CongestionOptions { max_iterations: 30, relative_gap: 0.0, ..Default::default() };
    let cpu = assign_congested(&g, &zones, &demand, &capacity, &StrategyOptions::default(), &opts, &|_| {})
        .unwrap();
    let (lines, line_zones, line_demand) = two_common_lines();
    let line_capacity = [20.0, INF, INF, INF];
    let [tight, _] = tight();
    let line_cpu = assign_congested(
        &lines,
        &line_zones,
        &line_demand,
        &line_capacity,
        &StrategyOptions::default(),
        &tight,
        &|_| {},
    )
    .unwrap();
    gpu_runtime::testing::for_each_context("congested the_gpu_congested_loop_equals_the_cpu", |ctx| {
        let gpu = assign_congested_gpu(
            ctx,
            &g,
            &zones,
            &demand,
            &capacity,
            &StrategyOptions::default(),
            &opts,
            &|_| {},
        );
        if !ctx.features().f64 {
            assert!(gpu.unwrap_err().to_string().contains("f64"));
            return;
        }
        let gpu = gpu.unwrap();
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        assert_eq!(gpu.iterations.len(), cpu.iterations.len());
        for (x, y) in gpu.iterations.iter().zip(&cpu.iterations).skip(1) {
            assert!(close(x.gap, y.gap) && close(x.strategy_cost, y.strategy_cost), "{x:?} against {y:?}");
        }
        for e in 0..g.num_edges() {
            let (a, b) = (gpu.assignment.volumes[e], cpu.assignment.volumes[e]);
            assert!(close(a, b), "edge {e}: GPU {a}, CPU {b}");
            assert!(
                close(gpu.effective_frequency[e], cpu.effective_frequency[e])
                    || gpu.effective_frequency[e] == cpu.effective_frequency[e]
            );
        }
        assert!(close(gpu.assignment.assigned, cpu.assignment.assigned));
        let line_gpu = assign_congested_gpu(
            ctx,
            &lines,
            &line_zones,
            &line_demand,
            &line_capacity,
            &StrategyOptions::default(),
            &tight,
            &|_| {},
        )
        .unwrap();
        assert!(line_gpu.converged && line_gpu.iterations.len().abs_diff(line_cpu.iterations.len()) <= 1);
        assert!(close(line_gpu.assignment.volumes[0], line_cpu.assignment.volumes[0]));
    });
}
