//! K shortest loopless paths: MPS, its iterator and reused target preparation, and Yen, all against
//! brute force (every simple path by DFS, sorted by cost then arc sequence) and closed forms.

use algos_sssp::SsspError;
use algos_sssp::ksp::{MpsTarget, Path, TargetDistances, ksp_batch_cpu, ksp_batch_cpu_with, mps, yen};
use graph_core::rng::SplitMix64;
use graph_core::{Csr, GraphBuilder, generators};
use proptest::prelude::*;

/// Every simple s→t path, in (cost, arc sequence) order.
fn brute_force(g: &Csr<u32>, s: u32, t: u32) -> Vec<Path> {
    fn dfs(
        g: &Csr<u32>,
        v: u32,
        t: u32,
        on: &mut Vec<bool>,
        arcs: &mut Vec<u32>,
        cost: u64,
        out: &mut Vec<Path>,
    ) {
        if v == t {
            out.push(Path { cost, arcs: arcs.clone(), source: 0 });
            return;
        }
        for a in g.arc_range(v) {
            let h = g.targets()[a];
            if !on[h as usize] {
                on[h as usize] = true;
                arcs.push(a as u32);
                dfs(g, h, t, on, arcs, cost + g.weights()[a] as u64, out);
                arcs.pop();
                on[h as usize] = false;
            }
        }
    }
    let mut out = Vec::new();
    let mut on = vec![false; g.num_vertices() as usize];
    on[s as usize] = true;
    dfs(g, s, t, &mut on, &mut Vec::new(), 0, &mut out);
    out.iter_mut().for_each(|p| p.source = s);
    out.sort();
    out
}

/// A random graph: directed or with both arcs per edge, parallel arcs and self-loops possible,
/// weights in `lo..=hi`.
fn random_graph(seed: u64, n: u32, arcs: u32, undirected: bool, lo: u32, hi: u32) -> Csr<u32> {
    if undirected {
        generators::random_undirected_graph(seed, n, arcs, lo..=hi).unwrap()
    } else {
        generators::random_graph(seed, n, arcs, lo..=hi).unwrap()
    }
}

/// MPS, the iterator, a shared target and Yen all return brute force's first `k` paths.
fn check_all(g: &Csr<u32>, s: u32, t: u32, k: usize) {
    let all = brute_force(g, s, t);
    let want = &all[..k.min(all.len())];
    let (got, stats) = mps(g, s, t, k).unwrap();
    assert_eq!(got, want, "mps s={s} t={t} k={k}");
    assert!(stats.pops >= got.len() as u64);
    let target = MpsTarget::new(g, t).unwrap();
    let lazy: Vec<Path> = target.iter(s).unwrap().take(k).collect();
    assert_eq!(lazy, want, "iterator");
    if k >= all.len() {
        // The pool empties: every pop that was not output looped.
        let mut it = target.iter(s).unwrap();
        let n = it.by_ref().count() as u64;
        let st = it.stats();
        assert_eq!(n, all.len() as u64);
        assert_eq!(st.looped_pops, st.pops - n);
    }
    let (by_yen, _) = yen(g, s, t, k).unwrap();
    assert_eq!(by_yen, want, "yen s={s} t={t} k={k}");
    for p in want {
        let vs = p.vertices(g);
        assert_eq!((vs[0], *vs.last().unwrap()), (s, t));
    }
}

#[test]
fn random_small_graphs_equal_brute_force() {
    let mut checked = 0;
    for seed in 0..300u64 {
        let mut rng = SplitMix64::new(seed ^ 0xC0FFEE);
        let n = 5 + rng.below(5) as u32;
        let undirected = seed % 2 == 1;
        let arcs = n + rng.below(2 * n as u64) as u32;
        let g = random_graph(seed, n, arcs, undirected, 1, 9);
        let (s, t) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
        let total = brute_force(&g, s, t).len();
        check_all(&g, s, t, total.min(50));
        check_all(&g, s, t, 3);
        checked += 1;
    }
    assert_eq!(checked, 300);
}

#[test]
fn zero_weights_and_ties_equal_brute_force() {
    // Weights 0..2: zero-weight cycles, many ties.
    for seed in 0..200u64 {
        let mut rng = SplitMix64::new(seed ^ 0xBEEF);
        let n = 5 + rng.below(4) as u32;
        let g = random_graph(seed + 1000, n, 2 * n, seed % 3 == 0, 0, 2);
        let (s, t) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
        check_all(&g, s, t, 40);
    }
}

#[test]
fn unit_grid_ties_identical_everywhere() {
    let g = graph_core::generators::grid_2d(4, 4);
    check_all(&g, 0, 15, 200);
    check_all(&g, 5, 10, 60);
}

#[test]
fn complete_digraph_closed_form() {
    // K_n, unit weights: cost j + 1 comes (n−2)!/(n−2−j)! times.
    let n = 7u32;
    let mut b = GraphBuilder::new(n);
    for u in 0..n {
        for v in 0..n {
            if u != v {
                b.add_arc(u, v, 1);
            }
        }
    }
    let g = b.build().unwrap().0;
    let target = MpsTarget::new(&g, n - 1).unwrap();
    let costs: Vec<u64> = target.iter(0).unwrap().map(|p| p.cost).collect();
    let mut want = Vec::new();
    let mut count = 1u64;
    for j in 0..=(n - 2) as u64 {
        want.extend(std::iter::repeat_n(j + 1, count as usize));
        count *= (n - 2) as u64 - j;
    }
    assert_eq!(costs, want);
    assert_eq!(costs.len(), 326); // Σ_j 5!/(5−j)! = 1 + 5 + 20 + 60 + 120 + 120
    let (y, _) = yen(&g, 0, n - 1, 1000).unwrap();
    assert_eq!(y.len(), 326);
}

#[test]
fn one_path_on_a_tree_for_any_k() {
    let mut b = GraphBuilder::new(6);
    b.add_arc(0, 1, 3).add_arc(1, 2, 1).add_arc(1, 3, 4).add_arc(3, 4, 2).add_arc(3, 5, 1);
    let g = b.build().unwrap().0;
    for k in [1, 2, 100] {
        let (p, _) = mps(&g, 0, 4, k).unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].vertices(&g), [0, 1, 3, 4]);
        assert_eq!(p[0].cost, 9);
        assert_eq!(yen(&g, 0, 4, k).unwrap().0, p);
    }
}

#[test]
fn edge_cases() {
    let mut b = GraphBuilder::new(4);
    b.add_arc(0, 1, 2).add_arc(1, 2, 2).add_arc(0, 2, 5);
    let g = b.build().unwrap().0;
    // s = t: one empty path.
    let (p, _) = mps(&g, 1, 1, 5).unwrap();
    assert_eq!(p, [Path { cost: 0, arcs: vec![], source: 1 }]);
    assert_eq!(yen(&g, 1, 1, 5).unwrap().0, p);
    // Unreachable target, and K = 0: nothing.
    assert!(mps(&g, 0, 3, 5).unwrap().0.is_empty());
    assert!(yen(&g, 0, 3, 5).unwrap().0.is_empty());
    assert!(mps(&g, 2, 0, 5).unwrap().0.is_empty());
    assert!(mps(&g, 0, 2, 0).unwrap().0.is_empty());
    assert!(yen(&g, 0, 2, 0).unwrap().0.is_empty());
    // Out of range: typed errors.
    assert_eq!(mps(&g, 9, 2, 1).unwrap_err(), SsspError::SourceOutOfRange { vertex: 9, n: 4 });
    assert_eq!(mps(&g, 0, 4, 1).unwrap_err(), SsspError::TargetOutOfRange { target: 4, n: 4 });
    assert!(matches!(yen(&g, 0, 7, 1), Err(SsspError::TargetOutOfRange { .. })));
    let target = MpsTarget::new(&g, 2).unwrap();
    assert!(matches!(target.iter(5), Err(SsspError::SourceOutOfRange { .. })));
    // A reverse graph of the wrong size is refused.
    let other = graph_core::generators::grid_2d(2, 2);
    assert!(matches!(MpsTarget::with_reverse(&g, &other, 2), Err(SsspError::NotTheReverse { .. })));
    // Distances beyond u32 are an error, never a wrong ranking.
    let mut b = GraphBuilder::new(3);
    b.add_arc(0, 1, u32::MAX - 2).add_arc(1, 2, u32::MAX - 2);
    let big = b.build().unwrap().0;
    assert!(matches!(mps(&big, 0, 2, 1), Err(SsspError::WeightOverflow { .. })));
}

#[test]
fn sorted_star_follows_reduced_costs() {
    // The spec's corrected example (after seed 004, Fig. 3), 1-based tails: reduced costs
    // 1: (2:21, 3:20, 4:48); 2: (1:21, 4:50, 5:19, 6:20); 3: (1:20, 4:22); 4: (1:48, 2:50, 3:22,
    // 5:36, 7:52). With π ≡ 0 at every vertex (all reach t = 0 through a free arc), c̄ = w.
    let arcs: &[(u32, &[(u32, u32)])] = &[
        (1, &[(2, 21), (3, 20), (4, 48)]),
        (2, &[(1, 21), (4, 50), (5, 19), (6, 20)]),
        (3, &[(1, 20), (4, 22)]),
        (4, &[(1, 48), (2, 50), (3, 22), (5, 36), (7, 52)]),
    ];
    let mut b = GraphBuilder::new(8);
    for &(tail, out) in arcs {
        for &(head, w) in out {
            b.add_arc(tail, head, w);
        }
    }
    // Vertex 0 is the target; every vertex 1..7 reaches it at cost 0, so π ≡ 0 and c̄ = w.
    for v in 1..8 {
        b.add_arc(v, 0, 0);
    }
    let g = b.build().unwrap().0;
    let target = MpsTarget::new(&g, 0).unwrap();
    let heads = |v: u32| -> Vec<u32> { target.star(v).iter().map(|&a| g.targets()[a as usize]).collect() };
    assert_eq!(heads(1), [0, 3, 2, 4]);
    assert_eq!(heads(2), [0, 5, 6, 1, 4]);
    assert_eq!(heads(3), [0, 1, 4]);
    assert_eq!(heads(4), [0, 3, 5, 1, 2, 7]);
    assert_eq!(target.reduced_cost(4, target.star(4)[1]), 22);
}

#[test]
fn zero_weight_cycle_tree_reaches_the_target() {
    // 0 ↔ 1 with weight 0 both ways, both reaching t = 2 at cost 1: the tree must not circle.
    let mut b = GraphBuilder::new(3);
    b.add_arc(0, 1, 0).add_arc(1, 0, 0).add_arc(0, 2, 1).add_arc(1, 2, 1);
    let g = b.build().unwrap().0;
    let (p, _) = mps(&g, 0, 2, 10).unwrap();
    assert_eq!(p, brute_force(&g, 0, 2));
    assert_eq!(p.len(), 2);
}

#[test]
fn one_target_many_sources() {
    let g = random_graph(7, 60, 240, true, 1, 20);
    let rev = g.transpose();
    let target = MpsTarget::with_reverse(&g, &rev.graph, 5).unwrap();
    let queries: Vec<(u32, u32)> = (0..60).map(|s| (s, 5)).collect();
    let (batch, stats) = ksp_batch_cpu(&g, &queries, 8).unwrap();
    assert_eq!(stats.targets, 1);
    for s in 0..60 {
        let (shared, _) = target.query(s, 8).unwrap();
        assert_eq!(shared, mps(&g, s, 5, 8).unwrap().0, "source {s}");
        assert_eq!(shared, yen(&g, s, 5, 8).unwrap().0, "source {s}");
        assert_eq!(shared, batch[s as usize], "batch, source {s}");
    }
}

/// Random queries with repeated targets, unreachable ones and s = t, on `n` vertices.
fn random_queries(seed: u64, n: u32, count: usize) -> Vec<(u32, u32)> {
    let mut rng = SplitMix64::new(seed);
    let mut queries: Vec<(u32, u32)> =
        (0..count).map(|_| (rng.below(n as u64) as u32, rng.below(n as u64) as u32)).collect();
    queries.push((2, 2));
    queries.push((queries[0].0 ^ 1, queries[0].1));
    queries
}

/// Distances to the targets by PHAST on the reversed hierarchy give the searches' paths exactly: one
/// way (a wrong direction would rank from distances *from* the target), zero-weight arcs (the star's
/// hop order), more distinct targets than one round of sweeps holds, and targets nobody reaches.
#[test]
fn phast_distances_give_the_searches_paths() {
    for seed in 0..8u64 {
        let n = 40 + 10 * seed as u32;
        let lo = if seed % 4 == 3 { 0 } else { 1 };
        let mut g = random_graph(seed + 900, n, 3 * n, seed % 2 == 1, lo, 25);
        if seed == 4 {
            // A vertex with no in-arcs: a target nobody reaches.
            let mut b = GraphBuilder::new(n + 1);
            for v in 0..n {
                for a in g.arc_range(v) {
                    b.add_arc(v, g.targets()[a], g.weights()[a]);
                }
            }
            b.add_arc(n, 0, 3);
            g = b.build().unwrap().0;
        }
        let queries = random_queries(seed, g.num_vertices(), 4 * n as usize);
        let k = 1 + (seed as usize * 5) % 17;
        let (want, searched) = ksp_batch_cpu_with(&g, &queries, k, TargetDistances::Searches).unwrap();
        let (got, swept) = ksp_batch_cpu_with(&g, &queries, k, TargetDistances::Phast).unwrap();
        assert_eq!(
            (searched.distances, swept.distances),
            (TargetDistances::Searches, TargetDistances::Phast)
        );
        assert!(
            swept.targets > 32,
            "seed {seed}: {} targets, fewer than two rounds on two threads",
            swept.targets
        );
        assert_eq!(got, want, "seed {seed} k {k}");
        assert_eq!((swept.pops, swept.looped_pops), (searched.pops, searched.looped_pops));
        for (&(s, t), paths) in queries.iter().zip(&got).take(12) {
            assert_eq!(paths, &mps(&g, s, t, k).unwrap().0, "seed {seed}: {s} → {t}");
        }
    }
}

/// Distances that are not a target's refused with a typed error, not ranked from.
#[test]
fn wrong_distances_are_refused() {
    let g = generators::grid_2d(3, 3);
    let rev = g.transpose().graph;
    assert!(MpsTarget::with_distances(&g, &rev, 8, vec![0; 8]).is_err(), "too short");
    assert!(MpsTarget::with_distances(&g, &rev, 8, vec![1; 9]).is_err(), "not 0 at the target");
    assert!(MpsTarget::with_distances(&g, &g.transpose().graph, 9, vec![0; 9]).is_err(), "no such target");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn mps_equals_yen_on_larger_random_graphs(seed in 0u64..1_000_000, k in 1usize..60) {
        let g = random_graph(seed, 40, 160, seed % 2 == 0, 1, 30);
        let mut rng = SplitMix64::new(seed);
        let (s, t) = (rng.below(40) as u32, rng.below(40) as u32);
        let (a, _) = mps(&g, s, t, k).unwrap();
        let (b, _) = yen(&g, s, t, k).unwrap();
        prop_assert_eq!(a, b);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn zero_weight_graphs_equal_brute_force(seed in 0u64..1_000_000, n in 4u32..10, k in 1usize..80) {
        let g = random_graph(seed, n, 2 * n + (seed % 7) as u32, seed % 2 == 0, 0, 3);
        let mut rng = SplitMix64::new(seed ^ 99);
        let (s, t) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
        let all = brute_force(&g, s, t);
        let want = &all[..k.min(all.len())];
        prop_assert_eq!(&mps(&g, s, t, k).unwrap().0, want);
        prop_assert_eq!(&yen(&g, s, t, k).unwrap().0, want);
    }
}

#[test]
fn target_reached_only_through_the_source() {
    // t hangs off s alone: the only loopless path is the direct arc, while every walk around the
    // dense rest comes back through s. MPS alone would expand exponentially many looped candidates;
    // the guard hands over to Yen, which finds nothing more at once.
    let n = 40u32;
    let mut rng = SplitMix64::new(9);
    let mut b = GraphBuilder::new(n + 1);
    for _ in 0..300 {
        let (u, v) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
        b.add_arc(u, v, 1 + rng.below(30) as u32);
    }
    b.add_arc(0, n, 8);
    let g = b.build().unwrap().0;
    let target = MpsTarget::new(&g, n).unwrap();
    let mut it = target.iter(0).unwrap();
    let paths: Vec<Path> = it.by_ref().take(5).collect();
    assert_eq!(paths.len(), 1);
    assert_eq!(paths[0].cost, 8);
    assert!(it.stats().switched_to_yen);
    assert_eq!(yen(&g, 0, n, 5).unwrap().0, paths);
}

/// The GPU batch (lavapipe in CI) equals the CPU on random graphs with ties, unreachable targets,
/// s = t and several batches; tiny capacities force the CPU fallback for some queries, still equal.
#[test]
fn gpu_batch_equals_cpu() {
    use algos_sssp::ksp::{KspGpuOptions, ksp_batch_gpu};
    gpu_runtime::testing::for_each_context("gpu_batch_equals_cpu", |ctx| {
        let mut fell_back = 0;
        for seed in 0..6u64 {
            let n = 12 + 6 * seed as u32;
            let g = random_graph(seed + 500, n, 3 * n, seed % 2 == 0, 1, if seed < 3 { 3 } else { 40 });
            let mut rng = SplitMix64::new(seed);
            let mut queries: Vec<(u32, u32)> =
                (0..20).map(|_| (rng.below(n as u64) as u32, rng.below(n as u64) as u32)).collect();
            queries.push((3, 3));
            let k = 1 + (seed as usize * 7) % 30;
            let (want, _) = ksp_batch_cpu(&g, &queries, k).unwrap();
            // Both ways to the targets' distances: the batched searches and PHAST passes.
            for distances in [TargetDistances::Searches, TargetDistances::Phast] {
                // The split timing's wait changes nothing but the clocks.
                let split_times = distances == TargetDistances::Phast;
                let roomy = KspGpuOptions { slots: 7, distances, split_times, ..KspGpuOptions::for_k(k) };
                let (got, st) = ksp_batch_gpu(ctx, &g, &queries, k, &roomy).unwrap();
                assert_eq!(got, want, "seed {seed} k {k} {distances:?}");
                assert_eq!(st.distances, distances);
                assert_eq!(st.gpu_queries, queries.len(), "seed {seed}: every query on the GPU");
            }
            let tight = KspGpuOptions {
                slots: 5,
                pool: 12,
                pops: 6,
                arena: 40,
                budget: 1,
                ..KspGpuOptions::for_k(k)
            };
            let (got, st) = ksp_batch_gpu(ctx, &g, &queries, k, &tight).unwrap();
            assert_eq!(got, want, "seed {seed} k {k}, tight capacities");
            fell_back += queries.len() - st.gpu_queries;
        }
        assert!(fell_back > 0, "tight capacities sent some queries to the CPU");
        // A candidate cost beyond u32 (distances fit): that query goes to the CPU, still equal.
        let mut b = GraphBuilder::new(4);
        b.add_arc(0, 1, 1).add_arc(1, 2, 1).add_arc(0, 2, u32::MAX - 5).add_arc(0, 3, 10).add_arc(
            3,
            2,
            u32::MAX - 5,
        );
        let g = b.build().unwrap().0;
        let (got, st) = ksp_batch_gpu(ctx, &g, &[(0, 2)], 3, &KspGpuOptions::for_k(3)).unwrap();
        assert_eq!(got, ksp_batch_cpu(&g, &[(0, 2)], 3).unwrap().0);
        assert_eq!(got[0].len(), 3);
        assert_eq!((st.gpu_queries, st.gpu_overflows[3]), (0, 1), "the cost overflow is reported");
        // Zero-weight arcs: answered by the CPU, still equal.
        let g = random_graph(77, 10, 30, true, 0, 2);
        let queries = [(0, 9), (2, 5)];
        let (got, st) = ksp_batch_gpu(ctx, &g, &queries, 10, &KspGpuOptions::for_k(10)).unwrap();
        assert_eq!(got, ksp_batch_cpu(&g, &queries, 10).unwrap().0);
        assert_eq!(st.gpu_queries, 0);
    });
}
