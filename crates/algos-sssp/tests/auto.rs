//! Automatic choices: never a software adapter, never the GPU unmeasured, every tree delivered once
//! whatever was chosen.

use std::time::Duration;

use algos_sssp::auto::single_source_choice;
use algos_sssp::many::{ManyOptions, Schedule, many_to_all_with};
use algos_sssp::tuning::tune;
use algos_sssp::{Algorithm, Query, SsspError, solve};
use gpu_runtime::testing::for_each_context;
use gpu_runtime::{Backend, Resolved};
use graph_core::generators;

fn grid() -> graph_core::Csr<u32> {
    generators::random_weights(&generators::grid_2d(12, 15), 1, 40, 3).unwrap()
}

/// Runs `many_to_all_with` and checks each tree against Dijkstra, each delivered once.
fn run_checked(
    g: &graph_core::Csr<u32>,
    sources: &[u32],
    opts: &ManyOptions<'_>,
) -> algos_sssp::many::ManyStats {
    let mut seen = vec![0u32; sources.len()];
    let out = many_to_all_with(g, sources, opts, |b| {
        for i in 0..b.sources.len() {
            let k = b.first + i;
            seen[k] += 1;
            assert_eq!(b.sources[i], sources[k]);
            let want = solve(g, &Query::from(sources[k]), Algorithm::Dijkstra, Backend::Cpu).unwrap();
            assert!(b.dist_row(i) == want.dist.as_slice(), "tree {k}");
        }
    })
    .unwrap();
    assert!(seen.iter().all(|&c| c == 1), "every tree exactly once: {seen:?}");
    assert_eq!(out.gpu_trees + out.cpu_trees, sources.len());
    out
}

#[test]
fn one_source_auto_runs_dijkstra_on_small_graphs_and_unmeasured_adapters() {
    let g = grid();
    let r = solve(&g, &Query::from(7), Algorithm::Auto, Backend::Auto).unwrap();
    assert_eq!(r.algorithm, Algorithm::Dijkstra);
    for_each_context("one_source_auto_unmeasured_adapter", |ctx| {
        // One source: Dijkstra on the CPU whatever the adapter (a GPU algorithm is run by naming it).
        let (a, where_, why) = single_source_choice(&g, Backend::Gpu(ctx));
        assert_eq!(a, Algorithm::Dijkstra, "{why}");
        assert!(matches!(where_, Resolved::Cpu));
        let r = solve(&g, &Query::from(7), Algorithm::Auto, Backend::Gpu(ctx)).unwrap();
        assert_eq!(r.algorithm, Algorithm::Dijkstra);
        // A GPU algorithm named with the automatic backend on a software-only machine: a clear error.
        if ctx.is_software() && gpu_runtime::context::auto_adapter().chosen.is_none() {
            match solve(&g, &Query::from(7), Algorithm::Lbr(4), Backend::Auto) {
                Err(e @ SsspError::WrongBackend { .. }) => {
                    assert!(e.to_string().contains("software"), "{e}")
                }
                other => panic!("expected WrongBackend, got {other:?}"),
            }
        }
    });
}

#[test]
fn many_source_auto_never_runs_on_a_software_adapter_and_delivers_every_tree() {
    let g = grid();
    let n = g.num_vertices();
    // More sources than the CPU probe takes, in an order that is not the vertex order.
    let sources: Vec<u32> = (0..150).map(|i| (i * 37 + 5) % n).collect();
    let cpu = run_checked(&g, &sources, &ManyOptions { backend: Backend::Auto, ..Default::default() });
    assert_eq!(cpu.gpu_trees, 0, "{cpu:?}");
    let d = cpu.decision.as_ref().expect("Auto records its decision");
    assert!(d.probe_trees > 0 && d.probe_trees < sources.len() && d.cpu_trees_per_s > 0.0, "{d:?}");
    for_each_context("many_source_auto_software", |ctx| {
        let out =
            run_checked(&g, &sources, &ManyOptions { backend: Backend::Gpu(ctx), ..Default::default() });
        if ctx.is_software() {
            assert_eq!(out.gpu_trees, 0, "{out:?}");
            let why = &out.decision.as_ref().unwrap().reason;
            assert!(why.contains("software"), "{why}");
        }
        // Forcing the GPU still works, and the probe's trees plus the GPU's cover every source once.
        let forced = run_checked(
            &g,
            &sources,
            &ManyOptions { backend: Backend::Gpu(ctx), schedule: Schedule::Single, ..Default::default() },
        );
        assert_eq!(forced.gpu_trees, sources.len());
    });
}

#[test]
fn tuning_within_a_zero_budget_measures_nothing_and_a_full_one_everything_once() {
    for_each_context("tuning_budget", |ctx| {
        // Weights drawn from the process id: a graph no earlier run has measured (the cache persists).
        let seed = std::process::id() as u64 ^ ctx.features().names().len() as u64;
        let g = generators::random_weights(&generators::grid_2d(6, 7), 1, 1000, seed).unwrap();
        let t = tune(ctx, &g, Some(Duration::ZERO)).unwrap();
        assert_eq!(t.trees_per_s, None);
        assert!(t.unmeasured >= 9, "{t:?}");
        let full = tune(ctx, &g, None).unwrap();
        assert_eq!(full.unmeasured, 0);
        assert!(full.trees_per_s.is_some_and(|r| r > 0.0));
        // Measured once: a second call reads the measurements and picks the same settings.
        let again = tune(ctx, &g, None).unwrap();
        assert_eq!((again.config, again.trees_per_s), (full.config, full.trees_per_s));
        assert!(again.tune_s < full.tune_s, "{again:?} vs {full:?}");
    });
}
