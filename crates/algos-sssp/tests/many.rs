//! Many-source trees and distance matrices equal repeated Dijkstra, on the CPU and every GPU adapter.

use algos_sssp::many::{distance_matrix, many_to_all};
use algos_sssp::{Algorithm, Query, SsspError, solve};
use gpu_runtime::Backend;
use gpu_runtime::testing::for_each_context;
use graph_core::datasets::data_path;
use graph_core::io::{ReadOptions, read_graph};
use graph_core::rng::SplitMix64;
use graph_core::{Csr, GraphBuilder};

fn random_graph(seed: u64) -> Csr<u32> {
    let mut rng = SplitMix64::new(seed);
    let n = 1 + rng.below(90) as u32;
    let m = rng.below(4 * n as u64 + 1);
    let mut b = GraphBuilder::new(n);
    for _ in 0..m {
        let u = rng.below(n as u64) as u32;
        let v = rng.below(n as u64) as u32;
        b.add_arc(u, v, if rng.below(6) == 0 { 0 } else { 1 + rng.below(50) as u32 });
    }
    b.build().unwrap().0
}

fn check(g: &Csr<u32>, sources: &[u32], backend: Backend, label: &str) {
    let mut seen = 0;
    many_to_all(g, sources, backend, true, |block| {
        for (i, &s) in block.sources.iter().enumerate() {
            assert_eq!(s, sources[block.first + i], "{label}: blocks arrive in source order");
            let q = Query { source: s, predecessors: true, ..Default::default() };
            let want = solve(g, &q, Algorithm::Dijkstra, Backend::Cpu).unwrap();
            assert!(block.dist_row(i) == want.dist.as_slice(), "{label}: tree from {s}");
            let pred = &block.pred.unwrap()[i * block.n..(i + 1) * block.n];
            assert!(pred == want.pred_arc.as_deref().unwrap(), "{label}: predecessors from {s}");
            seen += 1;
        }
    })
    .unwrap();
    assert_eq!(seen, sources.len(), "{label}: every source delivered once");
}

#[test]
fn many_to_all_equals_repeated_dijkstra() {
    for seed in 0..20 {
        let g = random_graph(seed);
        let n = g.num_vertices();
        let sources: Vec<u32> = (0..n).chain(0..n.min(3)).collect();
        check(&g, &sources, Backend::Cpu, &format!("cpu seed {seed}"));
    }
    for_each_context("many_to_all_equals_repeated_dijkstra", |ctx| {
        for seed in 0..20 {
            let g = random_graph(seed);
            let n = g.num_vertices();
            let sources: Vec<u32> = (0..n).rev().collect();
            check(&g, &sources, Backend::Gpu(ctx), &format!("gpu seed {seed}"));
        }
        // More sources than one GPU batch holds.
        let g = random_graph(3);
        let sources: Vec<u32> = (0..600).map(|i| i % g.num_vertices()).collect();
        check(&g, &sources, Backend::Gpu(ctx), "gpu, several batches");
    });
}

#[test]
fn distance_matrix_and_errors() {
    let g = random_graph(7);
    let n = g.num_vertices();
    let sources: Vec<u32> = (0..n).step_by(3).collect();
    let targets: Vec<u32> = (0..n).rev().step_by(2).collect();
    let m = distance_matrix(&g, &sources, &targets, Backend::Cpu).unwrap();
    for (i, &s) in sources.iter().enumerate() {
        let d = solve(&g, &Query::from(s), Algorithm::Dijkstra, Backend::Cpu).unwrap().dist;
        for (j, &t) in targets.iter().enumerate() {
            assert_eq!(m.get(i, j), d[t as usize]);
        }
    }
    assert!(matches!(
        distance_matrix(&g, &[n], &targets, Backend::Cpu),
        Err(SsspError::SourceOutOfRange { .. })
    ));
    assert!(matches!(distance_matrix(&g, &[0], &[n], Backend::Cpu), Err(SsspError::TargetOutOfRange { .. })));
    for_each_context("distance_matrix_and_errors", |ctx| {
        assert_eq!(distance_matrix(&g, &sources, &targets, Backend::Gpu(ctx)).unwrap(), m);
    });
}

#[test]
fn many_sources_on_a_road_graph() {
    let Some(path) = data_path("road/osm-small/bremen_time.gr.gz", "many_sources_on_a_road_graph") else {
        return;
    };
    let g: Csr<u32> = read_graph(&path, ReadOptions::default()).unwrap();
    let sources: Vec<u32> = (0..12).map(|k| k * 3371 % g.num_vertices()).collect();
    let cpu = distance_matrix(&g, &sources, &sources, Backend::Cpu).unwrap();
    for_each_context("many_sources_on_a_road_graph", |ctx| {
        assert_eq!(distance_matrix(&g, &sources, &sources, Backend::Gpu(ctx)).unwrap(), cpu);
    });
}
