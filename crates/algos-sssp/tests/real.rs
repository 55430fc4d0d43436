//! Real-valued weights: the exact f64 Dijkstra equals Bellman–Ford; the scaled engines (Δ-stepping on
//! the CPU, near–far on every GPU adapter) report true path lengths within their error bound; f32
//! weights; a resolution too fine for u32 is an error.

use algos_sssp::Algorithm;
use algos_sssp::real::{RealPaths, RealQuery, dijkstra_real, solve_real};
use gpu_runtime::Backend;
use graph_core::generators::random_graph_with;
use graph_core::rng::SplitMix64;
use graph_core::{Csr, GraphBuilder};

fn random_graph(rng: &mut SplitMix64, n: u32) -> Csr<f64> {
    let m = rng.below(4 * n as u64 + 1) as u32;
    // Some zero weights and a wide range of magnitudes.
    random_graph_with(rng.next_u64(), n, m, |r| {
        if r.below(8) == 0 { 0.0 } else { (r.below(1_000_000) as f64 / 1e4).powi(2) / 100.0 }
    })
    .unwrap()
}

/// Bellman–Ford in f64.
fn bellman_ford(g: &Csr<f64>, s: u32) -> Vec<f64> {
    let mut d = vec![f64::INFINITY; g.num_vertices() as usize];
    d[s as usize] = 0.0;
    for _ in 0..g.num_vertices() {
        let mut changed = false;
        for (u, v, w) in g.arcs() {
            if d[u as usize] + w < d[v as usize] {
                d[v as usize] = d[u as usize] + w;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    d
}

/// The reported distance is the length of the reported path, and within the bound of the optimum.
fn check_scaled(g: &Csr<f64>, exact: &[f64], r: &RealPaths, label: &str) {
    let pred = r.pred_arc.as_ref().unwrap();
    for v in 0..g.num_vertices() {
        let (d, e) = (r.dist[v as usize], exact[v as usize]);
        assert_eq!(d.is_finite(), e.is_finite(), "{label}: reachability of {v}");
        if !d.is_finite() {
            continue;
        }
        let tol = 1e-9 * e.max(1.0);
        assert!(d >= e - tol, "{label}: {v}: {d} below the optimum {e}");
        assert!(d <= e + r.error_bound(v) + tol, "{label}: {v}: {d} vs {e} + {}", r.error_bound(v));
        // Walk the path back: its length is the reported distance.
        let (mut len, mut x, mut arcs) = (0.0, v, 0);
        while x != r.source {
            let a = pred[x as usize] as usize;
            len += g.weights()[a];
            x = g.offsets().partition_point(|&o| o as usize <= a) as u32 - 1;
            arcs += 1;
        }
        assert_eq!(arcs, r.hops[v as usize], "{label}");
        assert!((len - d).abs() <= tol, "{label}: path length {len} vs {d}");
    }
}

#[test]
fn exact_dijkstra_equals_bellman_ford_and_scaled_engines_stay_within_bound() {
    let mut rng = SplitMix64::new(21);
    for case in 0..80 {
        let n = 1 + rng.below(40) as u32;
        let g = random_graph(&mut rng, n);
        let s = rng.below(n as u64) as u32;
        let exact = dijkstra_real(&g, s, true).unwrap();
        let bf = bellman_ford(&g, s);
        for (&d, &b) in exact.dist.iter().zip(&bf) {
            assert_eq!(d.is_finite(), b.is_finite());
            if b.is_finite() {
                assert!((d - b).abs() <= 1e-9 * b.max(1.0), "case {case}");
            }
        }
        assert_eq!(exact.error_bound(0), 0.0);
        for resolution in [Some(1e-3), Some(0.5), None] {
            let q = RealQuery { source: s, predecessors: true, resolution };
            let r = solve_real(&g, &q, Algorithm::DeltaStepping(None), Backend::Cpu).unwrap();
            check_scaled(&g, &exact.dist, &r, &format!("case {case} delta {resolution:?}"));
        }
    }
}

#[test]
fn gpu_scaled_engine_within_bound() {
    gpu_runtime::testing::for_each_context("gpu_scaled_engine_within_bound", |ctx| {
        let mut rng = SplitMix64::new(5);
        for case in 0..6 {
            let n = 2 + rng.below(60) as u32;
            let g = random_graph(&mut rng, n);
            let exact = dijkstra_real(&g, 0, false).unwrap();
            let q = RealQuery { source: 0, predecessors: true, resolution: Some(1e-2) };
            let r = solve_real(&g, &q, Algorithm::NearFar(None), Backend::Gpu(ctx)).unwrap();
            check_scaled(&g, &exact.dist, &r, &format!("gpu case {case}"));
        }
    });
}

#[test]
fn f32_weights_and_errors() {
    let mut b = GraphBuilder::<f32>::new(3);
    b.add_arc(0, 1, 0.1).add_arc(1, 2, 0.2).add_arc(0, 2, 0.5);
    let (g, _) = b.build().unwrap();
    let r = solve_real(&g, &RealQuery::from(0), Algorithm::Dijkstra, Backend::Cpu).unwrap();
    assert_eq!(r.dist[2], 0.1f32 as f64 + 0.2f32 as f64);
    // 1e6 at a resolution of 1e-6 is 10^12 steps: refused, with a way out.
    let mut b = GraphBuilder::<f64>::new(2);
    b.add_arc(0, 1, 1e6);
    let (g, _) = b.build().unwrap();
    let q = RealQuery { resolution: Some(1e-6), ..RealQuery::from(0) };
    let err = solve_real(&g, &q, Algorithm::DeltaStepping(None), Backend::Cpu).unwrap_err().to_string();
    assert!(err.contains("coarser resolution"), "{err}");
    // Long paths whose integer sum passes u32 are refused, not wrapped.
    let mut b = GraphBuilder::<f64>::new(4);
    b.add_arc(0, 1, 3e3).add_arc(1, 2, 3e3).add_arc(2, 3, 3e3);
    let (g, _) = b.build().unwrap();
    let q = RealQuery { resolution: Some(1e-6), ..RealQuery::from(0) };
    let err = solve_real(&g, &q, Algorithm::DeltaStepping(None), Backend::Cpu).unwrap_err().to_string();
    assert!(err.contains("coarser resolution"), "{err}");
}

#[test]
fn distance_matrices_exact_and_scaled() {
    use algos_sssp::matrix::{Engine, MatrixOptions, distance_matrix};
    use algos_sssp::real::RealMatrix;
    // Real weights through the one matrix API: exact on the CPU by default, rounded with a resolution.
    fn distance_matrix_real(
        g: &graph_core::Csr<f64>,
        sources: &[u32],
        targets: &[u32],
        backend: Backend,
        resolution: Option<f64>,
    ) -> Result<RealMatrix, algos_sssp::SsspError> {
        let run = distance_matrix(
            g,
            sources,
            targets,
            &MatrixOptions { backend, resolution, ..Default::default() },
        )?;
        assert_eq!(run.engine, Engine::Trees);
        assert_eq!(run.reason.contains("exact"), resolution.is_none(), "{}", run.reason);
        Ok(run.matrix)
    }
    let mut rng = SplitMix64::new(33);
    for case in 0..20 {
        let n = 2 + rng.below(40) as u32;
        let g = random_graph(&mut rng, n);
        let sources: Vec<u32> = (0..5).map(|_| rng.below(n as u64) as u32).collect();
        let targets: Vec<u32> = (0..7).map(|_| rng.below(n as u64) as u32).collect();
        let exact = distance_matrix_real(&g, &sources, &targets, Backend::Cpu, None).unwrap();
        assert_eq!(exact.error_bound, 0.0);
        let scaled = distance_matrix_real(&g, &sources, &targets, Backend::Cpu, Some(0.05)).unwrap();
        for (i, &s) in sources.iter().enumerate() {
            let row = dijkstra_real(&g, s, false).unwrap();
            for (j, &t) in targets.iter().enumerate() {
                let (e, d) = (exact.data[i * targets.len() + j], scaled.data[i * targets.len() + j]);
                assert_eq!(e, row.dist[t as usize], "case {case}");
                assert_eq!(e.is_finite(), d.is_finite());
                if e.is_finite() {
                    let tol = 1e-9 * e.max(1.0);
                    assert!(d >= e - tol && d <= e + scaled.error_bound + tol, "case {case}: {d} vs {e}");
                }
            }
        }
    }
    gpu_runtime::testing::for_each_context("distance_matrices_exact_and_scaled", |ctx| {
        let mut rng = SplitMix64::new(8);
        let g = random_graph(&mut rng, 30);
        let (sources, targets) = (vec![0, 3, 7], vec![1, 2, 29]);
        let exact = distance_matrix_real(&g, &sources, &targets, Backend::Cpu, None).unwrap();
        let gpu = distance_matrix_real(&g, &sources, &targets, Backend::Gpu(ctx), Some(0.01)).unwrap();
        for (e, d) in exact.data.iter().zip(&gpu.data) {
            assert_eq!(e.is_finite(), d.is_finite());
            if e.is_finite() {
                assert!(*d >= e - 1e-9 && *d <= e + gpu.error_bound + 1e-9, "{d} vs {e}");
            }
        }
    });
}
