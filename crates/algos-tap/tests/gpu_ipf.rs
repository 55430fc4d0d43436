//! IPF on the GPU (`shaders/ipf.wgsl`) against its CPU twin, `matrix::ipf`, on every adapter: random
//! seeds with zero cells, rectangular shapes, the seed split over several device blocks, and
//! AequilibraE's Sioux Falls result.

use std::path::Path;

use algos_tap::matrix::{IpfOptions, ZoneMatrix, ZoneTotals, ipf, ipf_gpu};
use gpu_runtime::testing::for_each_context;
use graph_core::rng::SplitMix64;

fn largest_difference(a: &[f64], b: &[f64]) -> f64 {
    let top = b.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs())) / top
}

#[test]
fn gpu_ipf_equals_the_cpu_on_random_seeds_and_blocks() {
    for_each_context("gpu_ipf_equals_the_cpu_on_random_seeds_and_blocks", |ctx| {
        if !ctx.features().f64 {
            let err = ipf_gpu(ctx, vec![1.0; 4], &[1.0, 1.0], &[1.0, 1.0], &IpfOptions::default(), None)
                .unwrap_err();
            assert!(err.to_string().contains("f64"), "{err}");
            return;
        }
        let mut rng = SplitMix64::new(11);
        for case in 0..12 {
            let n = 1 + (rng.next_u64() % 200) as usize;
            let m = 1 + (rng.next_u64() % 180) as usize;
            let seed: Vec<f64> = (0..n * m)
                .map(|_| {
                    if rng.next_u64().is_multiple_of(5) {
                        0.0
                    } else {
                        (rng.next_u64() % 1000) as f64 / 7.0 + 0.1
                    }
                })
                .collect();
            // Targets from the seed's own sums, reshaped: always reachable.
            let rows: Vec<f64> = (0..n)
                .map(|i| seed[i * m..(i + 1) * m].iter().sum::<f64>() * (0.5 + (i % 3) as f64 * 0.4))
                .collect();
            let mut cols: Vec<f64> = (0..m)
                .map(|j| (0..n).map(|i| seed[i * m + j]).sum::<f64>() * (0.7 + (j % 4) as f64 * 0.2))
                .collect();
            let scale = rows.iter().sum::<f64>() / cols.iter().sum::<f64>();
            cols.iter_mut().for_each(|c| *c *= scale);
            let opts = IpfOptions { tolerance: 1e-11, ..IpfOptions::default() };
            let cpu = ipf(&seed, &rows, &cols, &opts).unwrap();
            // Every third case in blocks of 64 rows (several bindings), the others in one.
            let blocks = (case % 3 == 0).then_some(64);
            let gpu = ipf_gpu(ctx, seed.clone(), &rows, &cols, &opts, blocks).unwrap();
            assert_eq!(gpu.converged, cpu.converged, "case {case} ({n} × {m}) on {}", ctx.describe());
            assert!(
                gpu.iterations.abs_diff(cpu.iterations) <= 1,
                "case {case}: {} vs {}",
                gpu.iterations,
                cpu.iterations
            );
            let d = largest_difference(&gpu.matrix, &cpu.matrix);
            assert!(d < 1e-10, "case {case} ({n} × {m}): differs by {d:e} on {}", ctx.describe());
            assert!(gpu.row_residual < 1e-9 && gpu.column_residual < 1e-9, "{gpu:?}");
        }
        // The CPU's refusals, on the GPU too.
        let err =
            ipf_gpu(ctx, vec![1.0, 0.0, 0.0, 0.0], &[1.0, 1.0], &[1.0, 1.0], &IpfOptions::default(), None)
                .unwrap_err();
        assert!(err.to_string().contains("row 1 has target 1 but its seed row is all zero"), "{err}");
    });
}

#[test]
fn gpu_ipf_equals_aequilibrae() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/distribution");
    let rows = ZoneTotals::read_csv(dir.join("rows.csv")).unwrap();
    let cols = ZoneTotals::read_csv(dir.join("cols.csv")).unwrap().in_order_of(&rows.zones, "cols").unwrap();
    let seed = ZoneMatrix::read_csv(dir.join("seed.csv"), &rows.zones, 0.0).unwrap();
    let theirs = ZoneMatrix::read_csv(dir.join("ipf.csv"), &rows.zones, 0.0).unwrap();
    for_each_context("gpu_ipf_equals_aequilibrae", |ctx| {
        if !ctx.features().f64 {
            return;
        }
        let opts = IpfOptions { tolerance: 1e-13, ..IpfOptions::default() };
        let b = ipf_gpu(ctx, seed.values().to_vec(), &rows.totals, &cols, &opts, None).unwrap();
        let d = largest_difference(&b.matrix, theirs.values());
        assert!(b.converged && d < 1e-9, "differs from AequilibraE by {d:e} on {}", ctx.describe());
    });
}
