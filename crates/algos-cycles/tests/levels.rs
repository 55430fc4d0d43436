//! The level-synchronous expansion: its CPU mirror finds exactly the depth-first cycles, under any
//! memory budget; the GPU writes the mirror's cycles in the mirror's order (lavapipe in CI).

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use algos_cycles::{
    ChordlessOptions, CycleStats, CyclesError, LevelsConfig, SimpleGraph, chordless_cycles,
    chordless_cycles_gpu_with, cycles_levels_mirror,
};
use gpu_runtime::testing::for_each_context;
use graph_core::generators;
use graph_core::rng::SplitMix64;

mod common;
use common::{from, gnp, normalise};

fn collect(
    run: impl FnOnce(&mut dyn FnMut(&[u32]) -> ControlFlow<()>) -> Result<CycleStats, CyclesError>,
) -> (CycleStats, Vec<Vec<u32>>) {
    let mut all = Vec::new();
    let stats = run(&mut |c: &[u32]| {
        all.push(c.to_vec());
        ControlFlow::Continue(())
    })
    .unwrap();
    (stats, all)
}

fn dfs(g: &SimpleGraph, opts: &ChordlessOptions) -> (CycleStats, Vec<Vec<u32>>) {
    collect(|sink| chordless_cycles(g, opts, sink))
}

fn mirror(g: &SimpleGraph, opts: &ChordlessOptions, cfg: &LevelsConfig) -> (CycleStats, Vec<Vec<u32>>) {
    collect(|sink| cycles_levels_mirror(g, opts, cfg, sink))
}

fn set(cycles: &[Vec<u32>]) -> BTreeSet<Vec<u32>> {
    let s: BTreeSet<Vec<u32>> = cycles.iter().map(|c| normalise(c)).collect();
    assert_eq!(s.len(), cycles.len(), "a cycle was reported twice");
    s
}

/// Budgets small enough that levels are cut into chunks, the cycle buffer fills, windows are short.
fn tiny(g: &SimpleGraph) -> LevelsConfig {
    let row_bytes = 4 * (3 + g.num_vertices().div_ceil(32) as u64);
    let degree = (0..g.num_vertices()).map(|v| g.degree(v)).max().unwrap_or(0) as u64;
    LevelsConfig {
        path_bytes: Some(2 * 64.max(8 * degree) * row_bytes),
        cycle_bytes: Some(64 * row_bytes),
        window_rows: Some(7),
        steps_per_submit: 16,
    }
}

fn graphs() -> Vec<(&'static str, SimpleGraph)> {
    vec![
        ("grid 4x5", from(&generators::grid_2d(4, 5))),
        ("grid 5x5", from(&generators::grid_2d(5, 5))),
        ("Q4", from(&generators::hypercube(4).unwrap())),
        ("Petersen", from(&generators::petersen())),
        ("K6,7", from(&generators::complete_bipartite(6, 7))),
        ("K7", from(&generators::complete(7))),
        ("3x3x3", from(&generators::grid_3d(3, 3, 3))),
        ("wheel 12", from(&generators::wheel(12).unwrap())),
        ("dodecahedral", from(&generators::lcf(&[10, 7, 4, -4, -7, 10, -4, 7, -7, 4], 2).unwrap())),
        ("G(40, 0.12)", gnp(40, 0.12, 7)),
        ("G(70, 0.05)", gnp(70, 0.05, 3)),
    ]
}

#[test]
fn mirror_finds_the_depth_first_cycles_under_any_budget() {
    let opts = ChordlessOptions::default();
    for (name, g) in graphs() {
        let (want_stats, want) = dfs(&g, &opts);
        let want = set(&want);
        for cfg in [LevelsConfig::default(), tiny(&g)] {
            let (stats, got) = mirror(&g, &opts, &cfg);
            assert_eq!(set(&got), want, "{name} {cfg:?}");
            assert_eq!((stats.total, &stats.by_length), (want_stats.total, &want_stats.by_length), "{name}");
            let count = ChordlessOptions { count_only: true, ..opts };
            let (counted, none) = mirror(&g, &count, &cfg);
            assert!(none.is_empty());
            assert_eq!(
                (counted.total, &counted.by_length),
                (want_stats.total, &want_stats.by_length),
                "{name}"
            );
        }
    }
    // 6x6 grid with max_len 8: 25 four-cycles and 16 eight-cycles.
    let g = from(&generators::grid_2d(6, 6));
    let opts = ChordlessOptions { max_len: Some(8), ..Default::default() };
    assert_eq!(mirror(&g, &opts, &tiny(&g)).0.total, 41);
    let opts = ChordlessOptions { min_len: 6, max_len: Some(8), count_only: true, ..Default::default() };
    assert_eq!(mirror(&g, &opts, &LevelsConfig::default()).0.total, 16);
}

#[test]
fn mirror_is_breadth_first_when_levels_fit() {
    // With room for every level, cycles come out by length.
    let g = from(&generators::grid_2d(5, 6));
    let (stats, got) = mirror(&g, &ChordlessOptions::default(), &LevelsConfig::default());
    assert!(got.windows(2).all(|w| w[0].len() <= w[1].len()));
    assert_eq!(stats.total, 749);
    assert!(stats.levels > 0 && stats.peak_paths > 0);
}

#[test]
fn limit_and_break_stop_early() {
    let g = from(&generators::grid_2d(5, 5));
    for count_only in [false, true] {
        let opts = ChordlessOptions { limit: Some(100), count_only, ..Default::default() };
        let (stats, got) = mirror(&g, &opts, &tiny(&g));
        assert_eq!(stats.total, 100);
        assert!(stats.stopped_early);
        assert_eq!(got.len(), if count_only { 0 } else { 100 });
    }
    let mut seen = 0;
    let stats = cycles_levels_mirror(&g, &ChordlessOptions::default(), &tiny(&g), &mut |_| {
        seen += 1;
        if seen == 10 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    })
    .unwrap();
    assert_eq!((seen, stats.total, stats.stopped_early), (10, 10, true));
}

#[test]
fn a_budget_below_one_path_is_a_typed_error() {
    let g = from(&generators::grid_2d(5, 5));
    let cfg = LevelsConfig { path_bytes: Some(2 * 16), ..Default::default() };
    let err =
        cycles_levels_mirror(&g, &ChordlessOptions::default(), &cfg, &mut |_| ControlFlow::Continue(()));
    assert!(matches!(err, Err(CyclesError::MemoryBudget { .. })), "{err:?}");
}

#[test]
fn gpu_writes_the_mirrors_cycles_in_the_mirrors_order() {
    // Software GPUs are slow: a subset of the graphs, with small buffers (a default one zero-fills
    // megabytes per call).
    let small = LevelsConfig { path_bytes: Some(1 << 20), cycle_bytes: Some(1 << 16), ..Default::default() };
    let picked: Vec<_> = graphs().into_iter().step_by(2).collect();
    for_each_context("gpu_writes_the_mirrors_cycles_in_the_mirrors_order", |ctx| {
        // The second (baseline-feature) context runs the windowed configuration only: both configurations
        // on both contexts took 80 s of the test suite on lavapipe.
        let first = std::ptr::eq(ctx, &gpu_runtime::testing::contexts()[0]);
        for (name, g) in &picked {
            let configs = if first { vec![small, tiny(g)] } else { vec![tiny(g)] };
            for cfg in configs {
                let opts = ChordlessOptions::default();
                let (want_stats, want) = mirror(g, &opts, &cfg);
                let (stats, got) = collect(|sink| chordless_cycles_gpu_with(ctx, g, &opts, &cfg, sink));
                assert_eq!(got, want, "{name} {cfg:?}");
                assert_eq!(stats, want_stats, "{name} {cfg:?}");
                let count = ChordlessOptions { count_only: true, ..opts };
                let (counted, _) = collect(|sink| chordless_cycles_gpu_with(ctx, g, &count, &cfg, sink));
                assert_eq!(
                    (counted.total, &counted.by_length),
                    (want_stats.total, &want_stats.by_length),
                    "{name}"
                );
            }
        }
        let g = from(&generators::grid_2d(5, 5));
        let cfg = LevelsConfig { path_bytes: Some(2 * 16), ..Default::default() };
        let err = chordless_cycles_gpu_with(ctx, &g, &ChordlessOptions::default(), &cfg, &mut |_| {
            ControlFlow::Continue(())
        });
        assert!(matches!(err, Err(CyclesError::MemoryBudget { .. })), "{err:?}");
    });
}

#[test]
fn random_graphs_gpu_and_mirror_equal_depth_first() {
    let mut rng = SplitMix64::new(2026);
    let cases: Vec<SimpleGraph> = (0..6)
        .map(|_| {
            let n = 8 + (rng.next_u64() % 24) as u32;
            let p = 0.05 + (rng.next_u64() % 30) as f64 / 100.0;
            gnp(n, p, rng.next_u64())
        })
        .collect();
    let opts = ChordlessOptions::default();
    let wants: Vec<_> = cases.iter().map(|g| set(&dfs(g, &opts).1)).collect();
    for (g, want) in cases.iter().zip(&wants) {
        assert_eq!(&set(&mirror(g, &opts, &tiny(g)).1), want);
    }
    for_each_context("random_graphs_gpu_and_mirror_equal_depth_first", |ctx| {
        for (g, want) in cases.iter().zip(&wants) {
            let (_, got) = collect(|sink| chordless_cycles_gpu_with(ctx, g, &opts, &tiny(g), sink));
            assert_eq!(&set(&got), want);
        }
    });
}
