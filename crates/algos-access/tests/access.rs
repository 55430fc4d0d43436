//! Accessibility, closeness, nearest points and betweenness against brute force: a full Dijkstra per
//! source evaluated point by point, and path enumeration for betweenness. Every engine (bounded
//! searches, CPU sweeps, the GPU on every adapter) is compared; counts, least and greatest weights
//! and flat sums agree bit for bit.

use algos_access::{
    AccessOptions, Accessibility, BetweennessOptions, Decay, Engine, Opportunities, accessibility,
    betweenness, closeness, nearest,
};
use algos_sssp::UNREACHABLE;
use algos_sssp::cpu::dijkstra::{Stop, dijkstra};
use gpu_runtime::Backend;
use graph_core::Csr;
use graph_core::generators::{random_graph, random_graph_with};
use graph_core::rng::SplitMix64;
use proptest::prelude::*;

/// Full trees from every source.
fn trees(g: &Csr<u32>, sources: &[u32]) -> Vec<Vec<u32>> {
    sources.iter().map(|&s| dijkstra(g, s, &Stop::default()).unwrap().0).collect()
}

fn random_points(seed: u64, n: u32, count: usize) -> Vec<(u32, f64)> {
    let mut rng = SplitMix64::new(seed ^ 0xabc);
    // Few distinct weights (ties in min/max), some zero, points sharing vertices.
    (0..count).map(|_| (rng.below(n as u64) as u32, (rng.below(7) as f64) * 0.75)).collect()
}

/// The brute-force cell of one source and cutoff: (count, sum, min, max) point by point.
fn brute(
    dist: &[u32],
    points: &[(u32, f64)],
    cut: u32,
    decay: Decay,
) -> (u32, f64, Option<f64>, Option<f64>) {
    let mut out = (0, 0.0, None::<f64>, None::<f64>);
    for &(v, w) in points {
        let d = dist[v as usize];
        if d != UNREACHABLE && d <= cut {
            out.0 += 1;
            out.1 += w * decay.factor(d, cut);
            out.2 = Some(out.2.map_or(w, |m| m.min(w)));
            out.3 = Some(out.3.map_or(w, |m| m.max(w)));
        }
    }
    out
}

fn check_against_brute(
    a: &Accessibility,
    trees: &[Vec<u32>],
    points: &[(u32, f64)],
    total: f64,
    tolerance: f64,
    what: &str,
) {
    for (i, dist) in trees.iter().enumerate() {
        for (c, &cut) in a.cutoffs.iter().enumerate() {
            let (count, sum, min, max) = brute(dist, points, cut, a.decay);
            assert_eq!(a.count(i, c), count, "{what}: source {i} cutoff {cut}: count");
            assert_eq!((a.min(i, c), a.max(i, c)), (min, max), "{what}: source {i} cutoff {cut}: min/max");
            let err = (a.sum(i, c) - sum).abs();
            assert!(
                err <= tolerance * (sum.abs() + total * 1e-6) + 1e-12,
                "{what}: source {i} cutoff {cut} ({}): sum {} against {sum}",
                a.decay,
                a.sum(i, c)
            );
        }
    }
}

fn same_cells(a: &Accessibility, b: &Accessibility, bitwise_sums: bool, what: &str) {
    for i in 0..a.sources.len() {
        for c in 0..a.cutoffs.len() {
            assert_eq!(a.count(i, c), b.count(i, c), "{what}: source {i} cutoff {c}: count");
            assert_eq!((a.min(i, c), a.max(i, c)), (b.min(i, c), b.max(i, c)), "{what}: min/max");
            if bitwise_sums {
                assert_eq!(a.sum_units(i, c), b.sum_units(i, c), "{what}: source {i} cutoff {c}: sum");
            } else {
                let (x, y) = (a.sum(i, c), b.sum(i, c));
                assert!((x - y).abs() <= 2e-6 * x.abs().max(y.abs()) + 1e-9, "{what}: sum {x} against {y}");
            }
        }
    }
}

const DECAYS: [Decay; 5] = [Decay::Flat, Decay::Linear, Decay::Exp(0.05), Decay::Power(1.5), Decay::Harmonic];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Bounded searches and CPU sweeps equal the brute force (sums to 1e-12) and each other (sums
    /// bit for bit), for every decay, with zero weights and unreachable vertices.
    #[test]
    fn cpu_engines_equal_brute_force(seed in 0u64..10_000, n in 2u32..60, density in 1u32..4, points in 1usize..40) {
        let g = random_graph(seed, n, density * n, 0..=9).unwrap();
        let pts = random_points(seed, n, points);
        let o = Opportunities::new(n, &pts).unwrap();
        let sources: Vec<u32> = (0..n).step_by(1 + (seed % 3) as usize).collect();
        let all = trees(&g, &sources);
        let cutoffs = [3 + (seed % 5) as u32, 12, 40];
        for decay in DECAYS {
            let opts = AccessOptions { cutoffs: &cutoffs, decay, backend: Backend::Cpu, ..Default::default() };
            let search = accessibility(&g, &o, &sources, &AccessOptions { engine: Engine::Search, ..opts }).unwrap();
            let sweep = accessibility(&g, &o, &sources, &AccessOptions { engine: Engine::Sweep, ..opts }).unwrap();
            check_against_brute(&search, &all, &pts, o.total_weight(), 1e-12, "search");
            same_cells(&search, &sweep, true, "sweep against search");
        }
    }

    /// The k nearest points equal the brute force: points sorted by (distance, vertex), cut at k.
    #[test]
    fn nearest_equals_brute_force(seed in 0u64..10_000, n in 2u32..50, k in 1usize..6, bound in 0u32..30) {
        let g = random_graph(seed, n, 3 * n, 0..=9).unwrap();
        let pts = random_points(seed, n, 12);
        let o = Opportunities::new(n, &pts).unwrap();
        let sources: Vec<u32> = (0..n).collect();
        let max = (seed % 2 == 0).then_some(bound);
        let near = nearest(&g, &o, &sources, k, max).unwrap();
        for (i, dist) in trees(&g, &sources).iter().enumerate() {
            let mut want: Vec<(u32, u32)> = pts
                .iter()
                .filter(|p| dist[p.0 as usize] != UNREACHABLE && max.is_none_or(|m| dist[p.0 as usize] <= m))
                .map(|p| (dist[p.0 as usize], p.0))
                .collect();
            want.sort_unstable();
            want.truncate(k);
            let got: Vec<(u32, u32)> = near.of(i).map(|(v, d)| (d, v)).collect();
            prop_assert_eq!(got, want, "source {}", i);
        }
    }
}

/// The GPU engine on every adapter (lavapipe in CI) equals the CPU sweeps: counts, least and greatest
/// weights and flat sums bit for bit, decayed sums to f32 precision; several passes, partial passes and
/// more point vertices than one invocation takes.
#[cfg(feature = "gpu")]
#[test]
fn gpu_engine_equals_cpu() {
    gpu_runtime::testing::for_each_context("gpu_engine_equals_cpu", |ctx| {
        for seed in 0..3u64 {
            let n = 300 + 97 * seed as u32;
            let g = random_graph(seed, n, 3 * n, 0..=20).unwrap();
            let pts = random_points(seed, n, if seed % 2 == 0 { 900 } else { 40 });
            let o = Opportunities::new(n, &pts).unwrap();
            // 64 lanes per pass on small graphs: 150 sources are three passes, the last partial.
            let sources: Vec<u32> = (0..150u32).map(|i| (i * 7 + seed as u32) % n).collect();
            let cutoffs = [5, 20, 60, 1_000];
            for decay in DECAYS {
                let opts = AccessOptions { cutoffs: &cutoffs, decay, ..Default::default() };
                let cpu = accessibility(
                    &g,
                    &o,
                    &sources,
                    &AccessOptions { engine: Engine::Sweep, backend: Backend::Cpu, ..opts },
                )
                .unwrap();
                let gpu = accessibility(
                    &g,
                    &o,
                    &sources,
                    &AccessOptions { engine: Engine::Gpu, backend: Backend::Gpu(ctx), ..opts },
                )
                .unwrap();
                assert_eq!(gpu.stats.sources_by_engine, [0, 0, sources.len()]);
                same_cells(&gpu, &cpu, decay == Decay::Flat, &format!("seed {seed} {decay}"));
            }
        }
    });
}

/// Auto measures, chooses, and says why; its answer is the same whatever it chose.
#[test]
fn auto_says_why_and_agrees() {
    let g = random_graph(3, 2_000, 6_000, 1..=9).unwrap();
    let o = Opportunities::new(2_000, &random_points(3, 2_000, 300)).unwrap();
    let sources: Vec<u32> = (0..2_000).collect();
    let cutoffs = [10, 30];
    let opts = AccessOptions { cutoffs: &cutoffs, backend: Backend::Cpu, ..Default::default() };
    let auto = accessibility(&g, &o, &sources, &opts).unwrap();
    assert!(auto.stats.why.contains("/s"), "{}", auto.stats.why);
    assert_eq!(auto.stats.sources_by_engine.iter().sum::<usize>(), sources.len());
    let search = accessibility(&g, &o, &sources, &AccessOptions { engine: Engine::Search, ..opts }).unwrap();
    same_cells(&auto, &search, true, "auto against search");
}

/// Harmonic closeness equals Σ 1/d over the brute-force tree (pairs at distance 0 skipped), gravity
/// closeness Σ e^(−βd); counts are the vertices reached.
#[test]
fn closeness_equals_brute_force() {
    for seed in 0..20u64 {
        let n = 10 + 13 * seed as u32;
        let g = random_graph(seed, n, 3 * n, 0..=5).unwrap();
        let sources: Vec<u32> = (0..n).collect();
        let all = trees(&g, &sources);
        let opts = AccessOptions { backend: Backend::Cpu, ..Default::default() };
        let h = closeness(&g, &sources, &opts).unwrap();
        let grav = closeness(&g, &sources, &AccessOptions { decay: Decay::Exp(0.2), cutoffs: &[7], ..opts })
            .unwrap();
        for (i, dist) in all.iter().enumerate() {
            let reached: Vec<u32> = dist.iter().copied().filter(|&d| d != UNREACHABLE).collect();
            let harmonic: f64 = reached.iter().filter(|&&d| d > 0).map(|&d| 1.0 / d as f64).sum();
            let gravity: f64 = reached.iter().filter(|&&d| d <= 7).map(|&d| (-0.2 * d as f64).exp()).sum();
            assert_eq!(h.count(i, 0) as usize, reached.len());
            assert!((h.sum(i, 0) - harmonic).abs() <= 1e-12 * harmonic.max(1.0), "seed {seed} source {i}");
            assert!((grav.sum(i, 0) - gravity).abs() <= 1e-12 * gravity.max(1.0), "seed {seed} source {i}");
        }
    }
}

/// Betweenness by enumerating every simple shortest path: for each pair (s, t), each vertex strictly
/// inside gets its share of the pair's shortest paths. Independent of Brandes entirely.
fn betweenness_by_paths(g: &Csr<u32>, cutoff: Option<u32>) -> Vec<f64> {
    let n = g.num_vertices() as usize;
    let dist: Vec<Vec<u32>> = trees(g, &(0..n as u32).collect::<Vec<_>>());
    let mut bc = vec![0.0; n];
    for (s, row) in dist.iter().enumerate() {
        for (t, &d) in row.iter().enumerate() {
            if s == t || d == UNREACHABLE || cutoff.is_some_and(|c| d > c) {
                continue;
            }
            let mut through = vec![0u64; n];
            let mut paths = 0u64;
            let mut path = vec![s as u32];
            let mut on = vec![false; n];
            on[s] = true;
            fn walk(
                g: &Csr<u32>,
                t: u32,
                left: u32,
                path: &mut Vec<u32>,
                on: &mut [bool],
                paths: &mut u64,
                through: &mut [u64],
            ) {
                let u = *path.last().unwrap();
                if u == t {
                    if left == 0 {
                        *paths += 1;
                        for &v in &path[1..path.len() - 1] {
                            through[v as usize] += 1;
                        }
                    }
                    return;
                }
                for (v, w) in g.out_arcs(u) {
                    if w <= left && !on[v as usize] {
                        on[v as usize] = true;
                        path.push(v);
                        walk(g, t, left - w, path, on, paths, through);
                        path.pop();
                        on[v as usize] = false;
                    }
                }
            }
            walk(g, t as u32, d, &mut path, &mut on, &mut paths, &mut through);
            for v in 0..n {
                bc[v] += through[v] as f64 / paths as f64;
            }
        }
    }
    bc
}

/// Brandes (with and without a cutoff) equals path enumeration on small graphs with ties and zero
/// weights (zero arcs only from lower to higher vertex ids: no zero-weight cycle), and the result does
/// not depend on the thread count.
#[test]
fn betweenness_equals_path_enumeration() {
    for seed in 0..150u64 {
        let n = 3 + (seed % 7) as u32;
        let g = random_graph_with(seed, n, 2 * n + (seed % 5) as u32, |rng| rng.below(3) as u32).unwrap();
        // Zero arcs only upwards; others get 1 or 2.
        let tails = g.arc_tails();
        let weights: Vec<u32> = g
            .weights()
            .iter()
            .zip(tails.iter().zip(g.targets()))
            .map(|(&w, (&u, &v))| if w == 0 && u >= v { 1 } else { w })
            .collect();
        let g = g.with_weights(weights).unwrap();
        for cutoff in [None, Some(2), Some(3)] {
            let want = betweenness_by_paths(&g, cutoff);
            let got = betweenness(&g, &BetweennessOptions { cutoff, ..Default::default() }).unwrap();
            for (v, (&x, &y)) in got.value.iter().zip(&want).enumerate() {
                assert!(
                    (x - y).abs() <= 1e-9 * y.max(1.0),
                    "seed {seed} cutoff {cutoff:?} vertex {v}: {x} against {y}"
                );
            }
        }
    }
    let g = random_graph(7, 3_000, 9_000, 0..=9).unwrap();
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let a = one.install(|| betweenness(&g, &BetweennessOptions::default()).unwrap());
    let b = betweenness(&g, &BetweennessOptions::default()).unwrap();
    assert_eq!(a, b, "one thread against all");
}

/// A sample of every source is the exact answer; smaller samples estimate it within a few standard
/// errors; a zero-weight cycle is refused by name.
#[test]
fn sampled_betweenness_estimates_the_exact_one() {
    let g = random_graph(11, 800, 3_200, 1..=9).unwrap();
    let exact = betweenness(&g, &BetweennessOptions::default()).unwrap();
    let all = betweenness(&g, &BetweennessOptions { sample: Some(800), ..Default::default() }).unwrap();
    assert_eq!(all.value, exact.value);
    let est =
        betweenness(&g, &BetweennessOptions { sample: Some(200), seed: 5, ..Default::default() }).unwrap();
    let se = est.std_error.as_ref().unwrap();
    // Vertices that few sources pass through have skewed dependencies, whose sample spread understates
    // the error: the check is on the central ones, where estimates are used.
    let mut top: Vec<usize> = (0..800).collect();
    top.sort_by(|&a, &b| exact.value[b].total_cmp(&exact.value[a]));
    let within = top[..100].iter().filter(|&&v| (est.value[v] - exact.value[v]).abs() <= 3.0 * se[v]).count();
    assert!(within >= 95, "{within} of the 100 most central estimates within 3 standard errors");
    let total_exact: f64 = exact.value.iter().sum();
    let total_est: f64 = est.value.iter().sum();
    assert!((total_est / total_exact - 1.0).abs() < 0.1, "{total_est} against {total_exact}");

    let mut b = graph_core::GraphBuilder::new(3);
    b.add_arc(0, 1, 1).add_arc(1, 2, 0).add_arc(2, 1, 0);
    let cyc = b.build().unwrap().0;
    let err = betweenness(&cyc, &BetweennessOptions::default()).unwrap_err().to_string();
    assert!(err.contains("zero-weight"), "{err}");
}

/// Bad options are refused with what was expected.
#[test]
fn bad_options_are_refused() {
    let g = random_graph(1, 10, 30, 1..=5).unwrap();
    let o = Opportunities::new(10, &[(1, 1.0)]).unwrap();
    let err = |cutoffs: &[u32]| {
        let opts = AccessOptions { cutoffs, backend: Backend::Cpu, ..Default::default() };
        accessibility(&g, &o, &[0], &opts).unwrap_err().to_string()
    };
    assert!(err(&[5, 5]).contains("ascending"));
    assert!(err(&[1, 2, 3, 4, 5, 6, 7, 8, 9]).contains("at most 8"));
    assert!(err(&[u32::MAX]).contains("cutoff"));
    let opts = AccessOptions { backend: Backend::Cpu, ..Default::default() };
    assert!(accessibility(&g, &o, &[10], &opts).unwrap_err().to_string().contains("source 10"));
    let other = Opportunities::new(11, &[(1, 1.0)]).unwrap();
    assert!(accessibility(&g, &other, &[0], &opts).unwrap_err().to_string().contains("11 vertices"));
    let gpu = AccessOptions { engine: Engine::Gpu, backend: Backend::Cpu, ..Default::default() };
    assert!(accessibility(&g, &o, &[0], &gpu).unwrap_err().to_string().contains("GPU"));
    assert!(nearest(&g, &o, &[0], 0, None).is_err());
}
