//! Blocked Floyd–Warshall equals repeated Dijkstra; the GPU gives the CPU twin's distances and next
//! hops exactly; every reconstructed path is a real path of the stated length.

use algos_sssp::floyd::{NO_HOP, floyd_warshall};
use algos_sssp::{Algorithm, Query, SsspError, UNREACHABLE, solve};
use gpu_runtime::Backend;
use gpu_runtime::testing::for_each_context;
use graph_core::rng::SplitMix64;
use graph_core::{Csr, GraphBuilder};

/// Random graphs with parallel arcs, zero weights and ties (small weights), sizes across tile edges.
fn random_graph(seed: u64, n: u32) -> Csr<u32> {
    let m = SplitMix64::new(!seed).below(5 * n as u64 + 1) as u32;
    graph_core::generators::random_graph(seed, n, m, 0..=7).unwrap()
}

fn check_paths(g: &Csr<u32>, apsp: &algos_sssp::floyd::Apsp, label: &str) {
    let n = g.num_vertices();
    for i in 0..n {
        let want = solve(g, &Query::from(i), Algorithm::Dijkstra, Backend::Cpu).unwrap().dist;
        for j in 0..n {
            assert_eq!(apsp.get(i, j), want[j as usize], "{label}: distance {i} -> {j}");
            match apsp.path(i, j) {
                None => assert_eq!(want[j as usize], UNREACHABLE, "{label}: path {i} -> {j} missing"),
                Some(p) => {
                    assert_eq!((p[0], *p.last().unwrap()), (i, j));
                    let len: u64 = p
                        .windows(2)
                        .map(|w| {
                            g.out_arcs(w[0]).filter(|&(v, _)| v == w[1]).map(|(_, w)| w as u64).min().unwrap()
                        })
                        .sum();
                    assert_eq!(len, want[j as usize] as u64, "{label}: path {i} -> {j} {p:?}");
                }
            }
        }
    }
}

#[test]
fn floyd_warshall_equals_dijkstra_and_gpu_equals_cpu() {
    floyd_warshall_on_a_road_like_grid_and_errors();
    for (seed, n) in [(1, 1), (2, 5), (3, 31), (4, 32), (5, 33), (6, 70), (7, 97)] {
        let g = random_graph(seed, n);
        let cpu = floyd_warshall(&g, Backend::Cpu, true).unwrap();
        check_paths(&g, &cpu, &format!("cpu n={n}"));
        let plain = floyd_warshall(&g, Backend::Cpu, false).unwrap();
        assert_eq!(plain.dist, cpu.dist);
        assert!(plain.next.is_none() && plain.path(0, 0).is_none());
        for_each_context("floyd_warshall_equals_dijkstra_and_gpu_equals_cpu", |ctx| {
            let gpu = floyd_warshall(&g, Backend::Gpu(ctx), true).unwrap();
            assert!(gpu == cpu, "n = {n}: GPU distances and next hops equal the CPU twin's");
            let gpu_plain = floyd_warshall(&g, Backend::Gpu(ctx), false).unwrap();
            assert_eq!(gpu_plain.dist, cpu.dist);
        });
    }
}

// One test function on purpose: two GPU tests at once oversubscribe lavapipe, whose workgroup
// barriers then crawl (the pair took minutes instead of seconds).
fn floyd_warshall_on_a_road_like_grid_and_errors() {
    // A 12 × 12 grid: n = 144 (4.5 tiles), every vertex reaches every other.
    let g = graph_core::generators::grid_2d(12, 12);
    let cpu = floyd_warshall(&g, Backend::Cpu, true).unwrap();
    assert!(cpu.dist.iter().all(|&d| d != UNREACHABLE));
    assert!(cpu.next.as_ref().unwrap().iter().all(|&h| h != NO_HOP));
    check_paths(&g, &cpu, "grid");
    for_each_context("floyd_warshall_on_a_road_like_grid_and_errors", |ctx| {
        assert!(floyd_warshall(&g, Backend::Gpu(ctx), true).unwrap() == cpu);
    });
    // Weights that could overflow u32 in a sum are refused, not truncated.
    let mut b = GraphBuilder::new(3);
    b.add_arc(0, 1, u32::MAX / 3).add_arc(1, 2, u32::MAX / 3);
    let err = floyd_warshall(&b.build().unwrap().0, Backend::Cpu, false).unwrap_err();
    assert!(matches!(err, SsspError::InvalidParameter(ref m) if m.contains("max weight")), "{err}");
    // Too many vertices for a dense matrix: refused before allocating it.
    let big = GraphBuilder::<u32>::new(algos_sssp::floyd::MAX_VERTICES as u32 + 1).build().unwrap().0;
    let err = floyd_warshall(&big, Backend::Cpu, false).unwrap_err();
    assert!(matches!(err, SsspError::InvalidParameter(ref m) if m.contains("many_to_all_with")), "{err}");
}
