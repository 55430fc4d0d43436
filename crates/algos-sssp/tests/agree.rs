//! Every algorithm returns exactly Dijkstra's distances, and predecessors form the canonical
//! shortest-path tree, on random graphs, closed forms and real road graphs, on the CPU and on every GPU
//! adapter (lavapipe in CI).

use algos_sssp::gpu::{GpuAlgorithm, GpuSssp, SettleRule, sssp_frontier_mirror};
use algos_sssp::pred::canonical_predecessors;
use algos_sssp::{Algorithm, Query, SATURATED, SsspError, UNREACHABLE, check_shortest_path_tree, solve};
use gpu_runtime::Backend;
use gpu_runtime::testing::for_each_context;
use graph_core::datasets::data_path;
use graph_core::generators::random_graph_with;
use graph_core::io::{ReadOptions, read_graph};
use graph_core::rng::SplitMix64;
use graph_core::{Csr, GraphBuilder, generators};
use proptest::prelude::*;

const CPU_ALGOS: [Algorithm; 3] =
    [Algorithm::DeltaStepping(None), Algorithm::BellmanFord, Algorithm::DeltaStepping(Some(1))];
const GPU_ALGOS: [Algorithm; 8] = [
    Algorithm::Harish,
    Algorithm::Martin,
    Algorithm::CrauserOut,
    Algorithm::CrauserInOut,
    Algorithm::NearFar(None),
    Algorithm::Lbr(4),
    Algorithm::Lbr(1),
    Algorithm::Jradi,
];

fn reference(g: &Csr<u32>, s: u32) -> algos_sssp::ShortestPaths {
    let q = Query { source: s, predecessors: true, ..Default::default() };
    let r = solve(g, &q, Algorithm::Dijkstra, Backend::Cpu).unwrap();
    check_shortest_path_tree(g, &r).unwrap();
    r
}

/// Random multigraph with zero weights, parallel arcs, self-loops and unreachable parts.
fn random_graph(seed: u64) -> Csr<u32> {
    let mut rng = SplitMix64::new(!seed);
    let n = 1 + rng.below(120) as u32;
    let m = rng.below(4 * n as u64 + 1) as u32;
    let heavy = rng.below(4) == 0;
    // Zero and unit weights (ties), and in one graph of four arcs heavy enough to need 64-bit sums.
    random_graph_with(seed, n, m, |r| match r.below(5) {
        0 => 0,
        1 => 1,
        2 if heavy => 1_000_000 + r.below(1_000_000) as u32,
        _ => 1 + r.below(100) as u32,
    })
    .unwrap()
}

fn arb_graph() -> impl Strategy<Value = Csr<u32>> {
    any::<u64>().prop_map(random_graph)
}

proptest! {
    #[test]
    fn cpu_algorithms_equal_dijkstra(g in arb_graph(), s in any::<u32>()) {
        let s = s % g.num_vertices();
        let want = reference(&g, s);
        for a in CPU_ALGOS {
            let q = Query { source: s, predecessors: true, ..Default::default() };
            let r = solve(&g, &q, a, Backend::Cpu).unwrap();
            prop_assert_eq!(&r.dist, &want.dist, "{}", a);
            prop_assert_eq!(&r.pred_arc, &want.pred_arc, "{}", a);
        }
    }

    #[test]
    fn early_exit_and_cutoff_agree_on_what_they_report(g in arb_graph(), s in any::<u32>(), t in any::<u32>()) {
        let n = g.num_vertices();
        let (s, t) = (s % n, t % n);
        let full = reference(&g, s);
        let q = Query { source: s, targets: Some(vec![t]), ..Default::default() };
        let r = solve(&g, &q, Algorithm::Dijkstra, Backend::Cpu).unwrap();
        prop_assert_eq!(r.dist[t as usize], full.dist[t as usize]);
        for (a, b) in r.dist.iter().zip(&full.dist) {
            prop_assert!(*a == UNREACHABLE || a == b);
        }
        let cutoff = full.dist[t as usize].min(500);
        let q = Query { source: s, cutoff: Some(cutoff), ..Default::default() };
        let c = solve(&g, &q, Algorithm::Dijkstra, Backend::Cpu).unwrap();
        for (a, b) in c.dist.iter().zip(&full.dist) {
            prop_assert_eq!(*a, if *b <= cutoff { *b } else { UNREACHABLE });
        }
    }
}

fn check_gpu_on(
    ctx: &gpu_runtime::GpuContext,
    g: &Csr<u32>,
    sources: &[u32],
    algos: &[Algorithm],
    label: &str,
) {
    for &s in sources {
        let want = reference(g, s);
        for &a in algos {
            let q = Query { source: s, predecessors: true, ..Default::default() };
            let r = solve(g, &q, a, Backend::Gpu(ctx)).unwrap_or_else(|e| panic!("{label} {a} s={s}: {e}"));
            assert!(r.dist == want.dist, "{label}: {a} from {s} differs from Dijkstra on {}", ctx.info.name);
            assert!(r.pred_arc == want.pred_arc, "{label}: {a} from {s}: predecessors differ");
        }
    }
}

#[test]
fn gpu_algorithms_equal_dijkstra_on_random_graphs() {
    for_each_context("gpu_algorithms_equal_dijkstra_on_random_graphs", |ctx| {
        for seed in 0..40 {
            let g = random_graph(seed);
            let s = (seed as u32 * 7) % g.num_vertices();
            check_gpu_on(ctx, &g, &[s], &GPU_ALGOS, &format!("random seed {seed}"));
        }
        // One vertex, no arcs.
        check_gpu_on(ctx, &Csr::empty(1), &[0], &GPU_ALGOS, "single vertex");
    });
}

#[test]
fn lbr_every_depth_is_exact() {
    for_each_context("lbr_every_depth_is_exact", |ctx| {
        for seed in 200..212 {
            let g = random_graph(seed);
            let want = reference(&g, 0);
            let mut solver = GpuSssp::new(ctx, &g).unwrap();
            for k in 1..=6 {
                let r = solver.run(0, GpuAlgorithm::Lbr(k), false).unwrap();
                assert_eq!(r.dist, want.dist, "k = {k} seed {seed}");
            }
            let harish = solver.run(0, GpuAlgorithm::Harish, false).unwrap();
            let lbr4 = solver.run(0, GpuAlgorithm::Lbr(4), false).unwrap();
            assert!(lbr4.stats.phases <= harish.stats.phases, "launches <= Harish phases (seed {seed})");
        }
        let g = random_graph(1);
        assert!(matches!(
            GpuSssp::new(ctx, &g).unwrap().run(0, GpuAlgorithm::Lbr(9), false),
            Err(SsspError::InvalidParameter(_))
        ));
    });
}

#[test]
fn frontier_phase_counts_match_the_cpu_mirror() {
    for_each_context("frontier_phase_counts_match_the_cpu_mirror", |ctx| {
        for seed in 100..110 {
            let g = random_graph(seed);
            let mut solver = GpuSssp::new(ctx, &g).unwrap();
            for rule in [SettleRule::MinOnly, SettleRule::Out, SettleRule::InOut] {
                let (dist, phases) = sssp_frontier_mirror(&g, 0, rule);
                let r = solver.run(0, GpuAlgorithm::Frontier(rule), false).unwrap();
                assert_eq!(r.dist, dist);
                assert_eq!(r.stats.phases, phases, "{rule:?} seed {seed}");
            }
        }
    });
}

#[test]
fn closed_forms() {
    // Unit grid: Manhattan distances.
    let (rows, cols) = (7u32, 9u32);
    let g = generators::grid_2d(rows, cols);
    let r = reference(&g, 0);
    for v in 0..rows * cols {
        assert_eq!(r.dist[v as usize], v / cols + v % cols);
    }
    // Directed path: MinOnly and OUT settle one vertex per phase.
    let n = 30;
    let mut b = GraphBuilder::new(n);
    for v in 0..n - 1 {
        b.add_arc(v, v + 1, 3);
    }
    let path = b.build().unwrap().0;
    assert_eq!(sssp_frontier_mirror(&path, 0, SettleRule::MinOnly).1, n as u64 - 1);
    assert_eq!(sssp_frontier_mirror(&path, 0, SettleRule::Out).1, n as u64 - 1);
    // Out-star: OUT settles every leaf at once; MinOnly needs one phase per distinct weight.
    let mut b = GraphBuilder::new(6);
    for (v, w) in [(1, 5), (2, 3), (3, 9), (4, 3), (5, 7)] {
        b.add_arc(0, v, w);
    }
    let star = b.build().unwrap().0;
    assert_eq!(sssp_frontier_mirror(&star, 0, SettleRule::Out).1, 1);
    assert_eq!(sssp_frontier_mirror(&star, 0, SettleRule::MinOnly).1, 4);
    // The Crauser example (spec sssp.md §7.3): OUT settles a, b, c in the first phase, MinOnly only b.
    let (s, a, bb, c, t) = (0, 1, 2, 3, 4);
    let mut b = GraphBuilder::new(5);
    b.add_arc(s, a, 2)
        .add_arc(s, bb, 1)
        .add_arc(s, c, 3)
        .add_arc(bb, a, 3)
        .add_arc(bb, c, 3)
        .add_arc(a, t, 5);
    let ex = b.build().unwrap().0;
    assert_eq!(sssp_frontier_mirror(&ex, s, SettleRule::Out).1, 2);
    assert_eq!(sssp_frontier_mirror(&ex, s, SettleRule::MinOnly).1, 4);
}

#[test]
fn overflow_is_an_error_not_unreachable() {
    let mut b = GraphBuilder::new(4);
    b.add_arc(0, 1, SATURATED - 10).add_arc(1, 2, 20).add_arc(2, 3, 1);
    let g = b.build().unwrap().0;
    for a in [Algorithm::Dijkstra, Algorithm::DeltaStepping(None), Algorithm::BellmanFord] {
        let r = solve(&g, &Query::from(0), a, Backend::Cpu);
        assert!(matches!(r, Err(SsspError::WeightOverflow { .. })), "{a}: {r:?}");
    }
    let mut b = GraphBuilder::new(2);
    b.add_arc(0, 1, u32::MAX);
    let too_big = b.build().unwrap().0;
    assert!(matches!(
        solve(&too_big, &Query::from(0), Algorithm::Dijkstra, Backend::Cpu),
        Err(SsspError::WeightTooLarge { .. })
    ));
    assert!(matches!(
        solve(&g, &Query::from(9), Algorithm::Dijkstra, Backend::Cpu),
        Err(SsspError::SourceOutOfRange { .. })
    ));
    assert!(matches!(
        solve(&g, &Query::from(0), Algorithm::Harish, Backend::Cpu),
        Err(SsspError::WrongBackend { .. })
    ));
    for_each_context("overflow_is_an_error_not_unreachable", |ctx| {
        for a in GPU_ALGOS {
            let r = solve(&g, &Query::from(0), a, Backend::Gpu(ctx));
            assert!(matches!(r, Err(SsspError::WeightOverflow { .. })), "{a}: {r:?}");
        }
    });
}

/// Every road graph of the shared data set.
const ROAD_GRAPHS: [&str; 9] = [
    "road/osm-small/bremen_time.gr.gz",
    "road/osm-small/bremen_dist.gr.gz",
    "road/osm-small/south_seattle_car.gr.gz",
    "road/osm-small/graph_ballard.gr.gz",
    "road/osm-small/graph_23rd.gr.gz",
    "road/dimacs-rome99/rome99.gr.gz",
    "road/weighted/NY.gr.xz",
    "road/weighted/COL.gr.xz",
    "road/weighted/FLA.gr.xz",
];

fn road(rel: &str) -> Option<Csr<u32>> {
    let path = data_path(rel, "algos-sssp road data")?;
    Some(read_graph(&path, ReadOptions::default()).unwrap())
}

#[test]
fn real_road_graphs_on_the_cpu() {
    for rel in ROAD_GRAPHS {
        let Some(g) = road(rel) else { return };
        let n = g.num_vertices();
        let big = n > 100_000;
        let sources: Vec<u32> = (0..if big { 2 } else { 10 }).map(|k| (k * 7919 + 1) % n).collect();
        for &s in &sources {
            let want = reference(&g, s);
            let algos: &[Algorithm] = if big { &CPU_ALGOS[..1] } else { &CPU_ALGOS[..2] };
            for &a in algos {
                let q = Query { source: s, predecessors: true, ..Default::default() };
                let r = solve(&g, &q, a, Backend::Cpu).unwrap();
                assert!(r.dist == want.dist, "{rel}: {a} from {s}");
                assert!(r.pred_arc == want.pred_arc, "{rel}: {a} from {s}: predecessors");
            }
        }
    }
}

#[test]
fn real_road_graphs_on_the_gpu() {
    let graphs: Vec<(String, Csr<u32>)> = [
        "road/osm-small/bremen_time.gr.gz",
        "road/osm-small/south_seattle_car.gr.gz",
        "road/osm-small/graph_23rd.gr.gz",
        "road/dimacs-rome99/rome99.gr.gz",
    ]
    .iter()
    .filter_map(|rel| road(rel).map(|g| (rel.to_string(), g)))
    .collect();
    for_each_context("real_road_graphs_on_the_gpu", |ctx| {
        // One source on the second (baseline-feature) context: two on both took 75 s on lavapipe.
        let first = std::ptr::eq(ctx, &gpu_runtime::testing::contexts()[0]);
        for (rel, g) in &graphs {
            let n = g.num_vertices();
            // Martín settles one distance value per phase and Jradi one vertex per iteration: only on the
            // small graphs here.
            let algos: Vec<Algorithm> = GPU_ALGOS
                .iter()
                .copied()
                .filter(|a| n < 5_000 || !matches!(a, Algorithm::Martin | Algorithm::Jradi))
                .collect();
            let sources = if first { vec![n / 2, n - 1] } else { vec![n - 1] };
            check_gpu_on(ctx, g, &sources, &algos, rel);
        }
    });
}

#[test]
fn zero_weight_arcs_give_a_valid_tree() {
    // Two vertices joined by zero-weight arcs both ways: the smallest-tight-arc rule would loop.
    let mut b = GraphBuilder::new(4);
    b.add_arc(0, 1, 5).add_arc(1, 2, 0).add_arc(2, 1, 0).add_arc(0, 2, 5).add_arc(2, 3, 1);
    let g = b.build().unwrap().0;
    let r = reference(&g, 0);
    let pred = canonical_predecessors(&g, 0, &r.dist);
    assert_eq!(pred, r.pred_arc.clone().unwrap());
    // Level rule: 1 and 2 are both one tight hop from 0, so 2 hangs from 0 directly, not from 1.
    assert_eq!(r.path_to(&g, 3), Some(vec![0, 2, 3]));
    assert_eq!(r.path_to(&g, 1), Some(vec![0, 1]));
}

/// Every GPU algorithm on every shared road graph (NY, COL, FLA included), two sources each. Too slow for
/// lavapipe, so it runs only with `URBANFLOW_FULL_GPU_TESTS=1` (done on the H100; see docs/benchmarks.md).
#[test]
fn every_road_graph_every_gpu_algorithm() {
    if std::env::var("URBANFLOW_FULL_GPU_TESTS").map_or(true, |v| v != "1") {
        eprintln!(
            "SKIP every_road_graph_every_gpu_algorithm: set URBANFLOW_FULL_GPU_TESTS=1 (real GPU only)"
        );
        return;
    }
    let rels = ROAD_GRAPHS;
    let graphs: Vec<(&str, Csr<u32>)> = rels.iter().filter_map(|r| road(r).map(|g| (*r, g))).collect();
    assert_eq!(graphs.len(), rels.len(), "all road graphs present");
    for_each_context("every_road_graph_every_gpu_algorithm", |ctx| {
        for (rel, g) in &graphs {
            let n = g.num_vertices();
            check_gpu_on(ctx, g, &[0, n / 3], &GPU_ALGOS, rel);
            eprintln!("{rel}: all {} GPU algorithms equal Dijkstra on {}", GPU_ALGOS.len(), ctx.info.name);
        }
    });
}
