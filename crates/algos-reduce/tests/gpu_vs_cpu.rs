//! Every GPU operation against its CPU twin (and the f32 paths against the CPU mirror of the launch),
//! on every adapter (lavapipe in CI), with and without subgroups.

use algos_reduce::{
    Element, GpuReducer, Predicate, ReduceConfig, SubgroupMode, Variant, argmax, argmin, compact_indices,
    compact_values, count, exclusive_scan, inclusive_scan, max, min, mirror, sum,
};
use gpu_runtime::testing::for_each_context;
use gpu_runtime::{Backend, GpuBuffer, GpuContext};
use proptest::prelude::*;

fn lengths() -> Vec<usize> {
    let mut v = vec![0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 255, 256, 257, 1023, 1024, 1025, 4093, 65_521];
    for k in [12, 16, 18, 20] {
        v.extend([(1 << k) - 1, (1 << k) + 1]);
    }
    v
}

fn data_u32(n: usize, seed: u32) -> Vec<u32> {
    (0..n as u32).map(|i| (i ^ seed).wrapping_mul(2_654_435_761).rotate_left(7)).collect()
}

fn data_i32(n: usize, seed: u32) -> Vec<i32> {
    data_u32(n, seed).into_iter().map(|x| x as i32 >> 3).collect()
}

fn data_f32(n: usize, seed: u32) -> Vec<f32> {
    data_u32(n, seed).into_iter().map(|x| (x % 20_001) as f32 / 100.0 - 100.0).collect()
}

fn sum_bound(xs: &[f32]) -> f64 {
    xs.len() as f64 * 2f64.powi(-24) * xs.iter().map(|x| x.abs() as f64).sum::<f64>() + 1e-30
}

fn check_all<E: Element>(ctx: &GpuContext, xs: &[E], exact_sum: bool) {
    let gpu = Backend::Gpu(ctx);
    let n = xs.len();
    let (gs, cs) = (sum(gpu, xs).unwrap(), sum(Backend::Cpu, xs).unwrap());
    if exact_sum {
        assert_eq!(gs, cs, "sum n={n}");
    } else {
        let exact: f64 = xs.iter().map(|x| x.to_f64()).sum();
        let bound = n as f64 * 2f64.powi(-24) * xs.iter().map(|x| x.to_f64().abs()).sum::<f64>() + 1e-30;
        assert!((gs.to_f64() - exact).abs() <= bound, "f32 sum n={n}: {gs:?} vs {exact}");
        assert!((cs.to_f64() - exact).abs() <= bound, "cpu f32 sum n={n}");
    }
    assert_eq!(min(gpu, xs).unwrap(), min(Backend::Cpu, xs).unwrap(), "min n={n}");
    assert_eq!(max(gpu, xs).unwrap(), max(Backend::Cpu, xs).unwrap(), "max n={n}");
    assert_eq!(argmin(gpu, xs).unwrap(), argmin(Backend::Cpu, xs).unwrap(), "argmin n={n}");
    assert_eq!(argmax(gpu, xs).unwrap(), argmax(Backend::Cpu, xs).unwrap(), "argmax n={n}");
    if let Some(&pivot) = xs.get(n / 2) {
        for p in [
            Predicate::Lt(pivot),
            Predicate::Eq(pivot),
            Predicate::InRange(pivot, E::highest()),
            Predicate::NonZero,
        ] {
            assert_eq!(count(gpu, xs, p).unwrap(), count(Backend::Cpu, xs, p).unwrap(), "count {p:?} n={n}");
        }
    }
}

#[test]
fn every_op_and_type_matches_the_cpu_twin() {
    for_each_context("every_op_and_type_matches_the_cpu_twin", |ctx| {
        for n in lengths() {
            check_all(ctx, &data_u32(n, 1), true);
            check_all(ctx, &data_i32(n, 2), true);
            check_all(ctx, &data_f32(n, 3), false);
        }
    });
}

#[test]
fn large_inputs_up_to_2_pow_24() {
    for_each_context("large_inputs_up_to_2_pow_24", |ctx| {
        let n = (1 << 24) + 1;
        let xs: Vec<u32> = (0..n as u32).collect();
        // Sum of 0..n-1 wraps modulo 2^32 (documented): compare with the u64 formula.
        let want = ((n as u64 * (n as u64 - 1) / 2) % (1u64 << 32)) as u32;
        assert_eq!(sum(Backend::Gpu(ctx), &xs).unwrap(), want);
        assert_eq!(argmax(Backend::Gpu(ctx), &xs).unwrap(), Some((n - 1, n as u32 - 1)));
        let mut perm: Vec<u32> = data_u32(n - 1, 9).into_iter().map(|x| x | 1).collect();
        perm[12_345_678] = 0;
        perm[12_345_679] = 0;
        assert_eq!(argmin(Backend::Gpu(ctx), &perm).unwrap(), Some((12_345_678, 0)), "lowest index wins");
    });
}

#[test]
fn launch_shapes_all_agree() {
    for_each_context("launch_shapes_all_agree", |ctx| {
        let xs = data_u32(100_003, 5);
        let fs = data_f32(100_003, 6);
        let mut ties = vec![7u32; 50_000];
        ties[33_333] = 3;
        ties[44_444] = 3;
        let mut configs = vec![];
        for wg in [32, 96, 160, 256] {
            for f in [1, 2, 8] {
                for vec4 in [false, true] {
                    for workgroups in [Some(1), Some(7), None] {
                        configs.push(
                            Variant::GridStride { items_per_invocation: f, vec4, workgroups }.with_wg(wg),
                        );
                    }
                }
            }
            configs.push(Variant::Harris7.with_wg(wg));
            configs.push(Variant::TwoStage { workgroups: Some(37) }.with_wg(wg));
        }
        for cfg in configs {
            for sg in [SubgroupMode::Off, SubgroupMode::Auto] {
                let cfg = ReduceConfig { subgroups: sg, ..cfg };
                let r = GpuReducer::new(ctx, cfg).unwrap();
                let bx = GpuBuffer::from_slice(ctx, "x", &xs).unwrap();
                assert_eq!(r.sum(&bx, xs.len()).unwrap(), sum(Backend::Cpu, &xs).unwrap(), "{cfg:?}");
                let bt = GpuBuffer::from_slice(ctx, "t", &ties).unwrap();
                assert_eq!(r.argmin(&bt, ties.len()).unwrap(), Some((33_333, 3)), "{cfg:?}");
                let bf = GpuBuffer::from_slice(ctx, "f", &fs).unwrap();
                let gs = r.sum(&bf, fs.len()).unwrap();
                if sg == SubgroupMode::Off {
                    // The tree variant follows a fixed order: bit-identical to the CPU mirror.
                    assert_eq!(gs.to_bits(), mirror::reduce_mirror(&fs, &cfg).unwrap().to_bits(), "{cfg:?}");
                } else {
                    let exact: f64 = fs.iter().map(|&x| x as f64).sum();
                    assert!((gs as f64 - exact).abs() <= sum_bound(&fs), "{cfg:?}");
                }
            }
        }
    });
}

trait WithWg {
    fn with_wg(self, wg: u32) -> ReduceConfig;
}

impl WithWg for Variant {
    fn with_wg(self, wg: u32) -> ReduceConfig {
        ReduceConfig {
            workgroup_size: wg,
            variant: self,
            subgroups: SubgroupMode::Off,
            ..ReduceConfig::default()
        }
    }
}

#[test]
fn poisoned_tail_past_len_is_never_read() {
    for_each_context("poisoned_tail_past_len_is_never_read", |ctx| {
        for n in [0usize, 1, 5, 1000, 4099] {
            let mut fs = data_f32(n, 4);
            fs.extend([f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -1e30, 1e30, f32::NAN, 0.0]);
            let mut us = data_u32(n, 4);
            us.extend([u32::MAX, 0, u32::MAX, 0, 1, 2, 3, 4]);
            let bf = GpuBuffer::from_slice(ctx, "f", &fs).unwrap();
            let bu = GpuBuffer::from_slice(ctx, "u", &us).unwrap();
            for cfg in [
                ReduceConfig::default(),
                Variant::Harris7.with_wg(64),
                Variant::TwoStage { workgroups: None }.with_wg(128),
            ] {
                let r = GpuReducer::new(ctx, cfg).unwrap();
                assert_eq!(r.min(&bf, n).unwrap(), min(Backend::Cpu, &fs[..n]).unwrap());
                assert_eq!(r.max(&bf, n).unwrap(), max(Backend::Cpu, &fs[..n]).unwrap());
                assert_eq!(r.argmin(&bu, n).unwrap(), argmin(Backend::Cpu, &us[..n]).unwrap());
                assert_eq!(r.sum(&bu, n).unwrap(), sum(Backend::Cpu, &us[..n]).unwrap());
                assert!(!r.sum(&bf, n).unwrap().is_nan());
            }
        }
    });
}

#[test]
fn nan_policy() {
    let xs = [f32::NAN, 2.0, -1.0, f32::NAN, -1.0];
    let nans = [f32::NAN; 3];
    let mut backends = vec![Backend::Cpu];
    for_each_context("nan_policy", |_| {});
    let ctxs = gpu_runtime::testing::contexts();
    backends.extend(ctxs.iter().map(Backend::Gpu));
    for b in backends {
        assert_eq!(min(b, &xs).unwrap(), Some(-1.0));
        assert_eq!(max(b, &xs).unwrap(), Some(2.0));
        assert_eq!(argmin(b, &xs).unwrap(), Some((2, -1.0)));
        assert_eq!(argmax(b, &xs).unwrap(), Some((1, 2.0)));
        assert!(sum(b, &xs).unwrap().is_nan(), "sums propagate NaN");
        assert_eq!(min(b, &nans).unwrap(), Some(f32::INFINITY), "all-NaN min is the identity");
        assert_eq!(argmin(b, &nans).unwrap(), None);
        assert_eq!(count(b, &xs, Predicate::Ne(2.0)).unwrap(), 4, "NaN satisfies only Ne");
        assert_eq!(min::<u32>(b, &[]).unwrap(), None);
        assert_eq!(sum::<u32>(b, &[]).unwrap(), 0);
        assert_eq!(argmax::<i32>(b, &[]).unwrap(), None);
    }
}

#[test]
fn scans_match() {
    for_each_context("scans_match", |ctx| {
        let gpu = Backend::Gpu(ctx);
        for n in [0usize, 1, 2, 255, 2047, 2048, 2049, 100_000, (1 << 20) + 3, 2048 * 2048 + 1] {
            let us = data_u32(n, 7);
            assert_eq!(
                exclusive_scan(gpu, &us).unwrap(),
                exclusive_scan(Backend::Cpu, &us).unwrap(),
                "n={n}"
            );
            assert_eq!(
                inclusive_scan(gpu, &us).unwrap(),
                inclusive_scan(Backend::Cpu, &us).unwrap(),
                "n={n}"
            );
            if n <= 100_000 {
                let is = data_i32(n, 8);
                assert_eq!(inclusive_scan(gpu, &is).unwrap(), inclusive_scan(Backend::Cpu, &is).unwrap());
                let fs = data_f32(n, 9);
                for inclusive in [false, true] {
                    let g =
                        if inclusive { inclusive_scan(gpu, &fs) } else { exclusive_scan(gpu, &fs) }.unwrap();
                    let m = mirror::scan_mirror(&fs, 256, 8, inclusive);
                    let gb: Vec<u32> = g.iter().map(|x| x.to_bits()).collect();
                    let mb: Vec<u32> = m.iter().map(|x| x.to_bits()).collect();
                    assert!(gb == mb, "f32 scan n={n} differs from the CPU mirror");
                }
            }
        }
    });
}

#[test]
fn compaction_matches() {
    for_each_context("compaction_matches", |ctx| {
        let gpu = Backend::Gpu(ctx);
        for n in [0usize, 1, 3, 2049, 70_001] {
            let us = data_u32(n, 11);
            let fs = data_f32(n, 12);
            for p in [Predicate::Lt(u32::MAX / 3), Predicate::Ge(0), Predicate::Eq(5)] {
                assert_eq!(
                    compact_indices(gpu, &us, p).unwrap(),
                    compact_indices(Backend::Cpu, &us, p).unwrap()
                );
                assert_eq!(
                    compact_values(gpu, &us, p).unwrap(),
                    compact_values(Backend::Cpu, &us, p).unwrap()
                );
            }
            let p = Predicate::InRange(-10.0, 10.0);
            assert_eq!(compact_values(gpu, &fs, p).unwrap(), compact_values(Backend::Cpu, &fs, p).unwrap());
        }
    });
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn random_inputs_and_configs(xs in prop::collection::vec(any::<u32>(), 0..5000),
                                 wg in prop::sample::select(vec![32u32, 64, 96, 160, 256]),
                                 f in prop::sample::select(vec![1u32, 2, 4, 8, 16]),
                                 vec4 in any::<bool>(), g in 1u32..300) {
        let cfg = Variant::GridStride { items_per_invocation: f, vec4, workgroups: Some(g) }.with_wg(wg);
        let fs: Vec<f32> = xs.iter().map(|&x| (x >> 8) as f32 * 1e-3 - 5000.0).collect();
        for ctx in gpu_runtime::testing::contexts() {
            let r = GpuReducer::new(ctx, cfg).unwrap();
            let b = GpuBuffer::from_slice(ctx, "x", &xs).unwrap();
            prop_assert_eq!(r.sum(&b, xs.len()).unwrap(), sum(Backend::Cpu, &xs).unwrap());
            prop_assert_eq!(r.argmax(&b, xs.len()).unwrap(), argmax(Backend::Cpu, &xs).unwrap());
            let bf = GpuBuffer::from_slice(ctx, "f", &fs).unwrap();
            prop_assert_eq!(r.sum(&bf, fs.len()).unwrap().to_bits(), mirror::reduce_mirror(&fs, &cfg).unwrap().to_bits());
        }
    }
}
