//! Oracle tests: bounds against the exact LP, closed forms, weak duality, warm starts, and every DIST
//! engine against its twin (rayon = serial bit for bit; the GPU against its f32 mirror on every adapter).

use algos_overlay::generator::{Family, generate};
use algos_overlay::{
    CpuEngine, DistEngine, DistParams, Edge, GpuDistOptions, GpuEngine, MopInstance, OverlayDistMirror,
    Silent, StdParams, check_primal, greedy_primal, lp_bound_exact, subgradient_dist, subgradient_dist_with,
    subgradient_std, z_lr, z_lr_value,
};
use gpu_runtime::Backend;
use graph_core::rng::SplitMix64;
use proptest::prelude::*;

fn rel(a: f64, b: f64) -> f64 {
    (a - b) / b.abs().max(1e-12)
}

/// A random sparse instance: n peers, each pair a candidate with probability `density`.
fn random_sparse(n: usize, density: f64, seed: u64) -> MopInstance {
    let mut rng = SplitMix64::new(seed);
    let p: Vec<f64> = (0..n).map(|_| 0.05 + 0.95 * rng.unit_f64()).collect();
    let b: Vec<f64> = (0..n).map(|_| 10.0 + 500.0 * rng.unit_f64()).collect();
    let mut edges = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            if rng.unit_f64() < density {
                let upper = 5.0 + 250.0 * rng.unit_f64();
                edges.push(Edge {
                    i: i as u32,
                    j: j as u32,
                    value: p[i] * p[j],
                    upper,
                    lower: upper * rng.unit_f64(),
                });
            }
        }
    }
    MopInstance::new((0..n as u64).map(|k| 1000 + 7 * k).collect(), p, b, edges).unwrap()
}

#[test]
fn loose_capacities_give_the_sum_of_all_edges() {
    // b_i ≥ Σ_j u_ij: λ = 0 is optimal and z_LP = Σ p_ij u_ij.
    let n = 30;
    let mut rng = SplitMix64::new(3);
    let p: Vec<f64> = (0..n).map(|_| rng.unit_f64()).collect();
    let inst =
        MopInstance::complete((0..n as u64).collect(), p, vec![256.0 * n as f64; n], 256.0, 14.0).unwrap();
    let all: f64 = inst.edges().iter().map(|e| e.value * e.upper).sum();
    assert!(rel(lp_bound_exact(&inst).unwrap(), all).abs() < 1e-9);
    let s = subgradient_std(&inst, &StdParams::default(), None).unwrap();
    let d = subgradient_dist(&inst, &DistParams::default(), None, Backend::Cpu).unwrap();
    assert!(rel(s.bound, all).abs() < 1e-9, "STD {} vs {all}", s.bound);
    assert!(rel(d.bound, all).abs() < 1e-9, "DIST {} vs {all}", d.bound);
    assert!(rel(s.primal.unwrap().value, all).abs() < 1e-9, "greedy takes every edge");
}

#[test]
fn a_star_with_a_binding_centre_is_a_fractional_knapsack() {
    let leaves = 12;
    let mut rng = SplitMix64::new(11);
    let mut edges = Vec::new();
    let mut items = Vec::new();
    for j in 1..=leaves {
        let (value, upper) = (rng.unit_f64(), 10.0 + 90.0 * rng.unit_f64());
        edges.push(Edge { i: 0, j, value, upper, lower: 1.0 });
        items.push((value, upper));
    }
    let capacity = 250.0;
    let mut b = vec![1e6; leaves as usize + 1];
    b[0] = capacity;
    let inst =
        MopInstance::new((0..=leaves as u64).collect(), vec![1.0; leaves as usize + 1], b, edges).unwrap();
    items.sort_by(|a, b| b.0.total_cmp(&a.0));
    let (mut left, mut knapsack) = (capacity, 0.0);
    for (v, u) in items {
        let take = u.min(left);
        knapsack += v * take;
        left -= take;
    }
    assert!(rel(lp_bound_exact(&inst).unwrap(), knapsack).abs() < 1e-9);
    let s = subgradient_std(&inst, &StdParams::default(), None).unwrap();
    assert!(s.bound >= knapsack * (1.0 - 1e-12));
    assert!(rel(s.bound, knapsack) < 1e-6, "STD {} vs {knapsack}", s.bound);
    let d = subgradient_dist(&inst, &DistParams::default(), None, Backend::Cpu).unwrap();
    assert!(d.bound >= knapsack * (1.0 - 1e-12));
    assert!(rel(d.bound, knapsack) < 1e-4, "DIST {} vs {knapsack}", d.bound);
}

#[test]
fn bounds_against_the_lp_oracle_on_generated_instances() {
    for (n, family, l, seed) in
        [(30, Family::A, 14.0, 1), (40, Family::B, 128.0, 2), (60, Family::A, 128.0, 3)]
    {
        let inst = generate(n, family, l, seed);
        let lp = lp_bound_exact(&inst).unwrap();
        let s = subgradient_std(&inst, &StdParams::default(), None).unwrap();
        let d = subgradient_dist(&inst, &DistParams::default(), None, Backend::Cpu).unwrap();
        let seed_dist = subgradient_dist(&inst, &DistParams::seed(), None, Backend::Cpu).unwrap();
        let primal = s.primal.as_ref().unwrap();
        assert!(rel(check_primal(&inst, &primal.x).unwrap(), primal.value).abs() < 1e-12);
        for (name, r) in [("STD", &s), ("DIST", &d), ("DIST seed", &seed_dist)] {
            assert!(r.bound >= lp * (1.0 - 1e-9), "{name} {} below the LP {lp}", r.bound);
            assert_eq!(r.bound, z_lr_value(&inst, &r.lambda).unwrap(), "{name}: the bound is z_LR at λ");
            assert!(r.primal.as_ref().unwrap().value <= lp * (1.0 + 1e-9));
        }
        // Measured: STD 1e-11–5e-9, DIST up to 7e-4 at these sizes (it stalls at coordinate-wise minima).
        assert!(rel(s.bound, lp) < 1e-6, "n={n}: STD {:.3e} above the LP", rel(s.bound, lp));
        assert!(rel(d.bound, lp) < 2e-3, "n={n}: DIST {:.3e} above the LP", rel(d.bound, lp));
        assert!(d.bound <= seed_dist.bound, "the corrected DIST is no worse than the seed's");
    }
}

#[test]
fn warm_starts_are_never_worse() {
    let inst = generate(80, Family::B, 14.0, 4);
    let short = DistParams { ext_iters: 40, ..DistParams::default() };
    let first = subgradient_dist(&inst, &short, None, Backend::Cpu).unwrap();
    let again = subgradient_dist(&inst, &short, Some(&first.lambda), Backend::Cpu).unwrap();
    assert!(again.bound <= first.bound);
    let std =
        subgradient_std(&inst, &StdParams { max_iter: 300, ..StdParams::default() }, Some(&first.lambda))
            .unwrap();
    assert!(std.bound <= first.bound);
    // A perturbed instance (a peer's capacity halves): warm start from the old multipliers.
    let mut b = inst.b().to_vec();
    b[3] /= 2.0;
    let changed = MopInstance::complete(inst.ids().to_vec(), inst.p().to_vec(), b, 256.0, 14.0).unwrap();
    let warm = subgradient_dist(&changed, &short, Some(&first.lambda), Backend::Cpu).unwrap();
    assert!(warm.bound <= z_lr_value(&changed, &first.lambda).unwrap());
}

#[test]
fn rayon_equals_serial_bit_for_bit() {
    let inst = random_sparse(120, 0.3, 5);
    let p = DistParams { ext_iters: 60, ..DistParams::default() };
    let run =
        |engine: &mut dyn DistEngine| subgradient_dist_with(&inst, &p, None, engine, &mut Silent).unwrap();
    let a = run(&mut CpuEngine::serial(&inst, &p));
    let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    let b = pool.install(|| run(&mut CpuEngine::rayon(&inst, &p)));
    assert_eq!(a.bound.to_bits(), b.bound.to_bits());
    assert_eq!(a.lambda, b.lambda);
    assert_eq!(a.local_sum, b.local_sum);
}

#[test]
fn gpu_rounds_match_the_f32_mirror() {
    // A complete instance, a sparse one, and a star whose centre's degree exceeds the kernel's
    // workgroup cache (2,048), so the uncached path runs too.
    let mut star_edges = Vec::new();
    for j in 1..=2100u32 {
        star_edges.push(Edge {
            i: 0,
            j,
            value: 0.1 + (j % 17) as f64 * 0.05,
            upper: 1.0 + (j % 5) as f64,
            lower: 0.0,
        });
    }
    let star =
        MopInstance::new((0..=2100).collect(), vec![1.0; 2101], vec![300.0; 2101], star_edges).unwrap();
    let cases = [generate(40, Family::A, 14.0, 6), random_sparse(60, 0.2, 8), star];
    gpu_runtime::testing::for_each_context("gpu_rounds_match_the_f32_mirror", |ctx| {
        for inst in &cases {
            let p = DistParams { ext_iters: 20, check_every: 10, ..DistParams::default() };
            let mut gpu = GpuEngine::new(ctx, inst, &p, &GpuDistOptions { workgroup: 64 }).unwrap();
            let mut mirror = OverlayDistMirror::<64>::new(inst, &p, false);
            // One external iteration from the same λ: equal up to fused multiply-adds.
            let lambda0: Vec<f64> = (0..inst.n()).map(|h| 0.01 * (h % 7) as f64).collect();
            gpu.start(&lambda0).unwrap();
            mirror.start(&lambda0).unwrap();
            gpu.rounds(1).unwrap();
            mirror.rounds(1).unwrap();
            let (lg, lm) = (gpu.lambda().unwrap(), mirror.lambda().unwrap());
            for h in 0..inst.n() {
                assert!(
                    (lg[h] - lm[h]).abs() <= 1e-5 * lm[h].abs().max(1e-3),
                    "node {h}: gpu {} mirror {}",
                    lg[h],
                    lm[h]
                );
            }
            if inst.n() > 1000 {
                continue; // the star: its one round covered the uncached path (lavapipe is slow)
            }
            // Whole runs: certified bounds agree closely, and both are bounds.
            let g = subgradient_dist_with(inst, &p, None, &mut gpu, &mut Silent).unwrap();
            let m = subgradient_dist_with(inst, &p, None, &mut mirror, &mut Silent).unwrap();
            assert!(rel(g.bound, m.bound).abs() < 1e-3, "gpu {} mirror {}", g.bound, m.bound);
            if inst.n() <= 100 {
                let lp = lp_bound_exact(inst).unwrap();
                assert!(g.bound >= lp * (1.0 - 1e-9));
            }
            // An odd number of rounds leaves λ in the other buffer: still read correctly.
            gpu.start(&lambda0).unwrap();
            mirror.start(&lambda0).unwrap();
            gpu.rounds(3).unwrap();
            mirror.rounds(3).unwrap();
            let (lg, lm) = (gpu.lambda().unwrap(), mirror.lambda().unwrap());
            let worst = (0..inst.n()).map(|h| (lg[h] - lm[h]).abs()).fold(0.0, f64::max);
            assert!(worst < 1e-4, "after 3 rounds: {worst}");
        }
    });
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Weak duality: z_LR(λ) ≥ z_LP ≥ any feasible overlay, for any λ ≥ 0.
    #[test]
    fn weak_duality(n in 3usize..25, density in 0.2f64..1.0, seed in 0u64..1000, scale in 0.0f64..2.0) {
        let inst = random_sparse(n, density, seed);
        let lp = lp_bound_exact(&inst).unwrap();
        let mut rng = SplitMix64::new(seed ^ 0xABCD);
        let lambda: Vec<f64> = (0..n).map(|_| scale * rng.unit_f64()).collect();
        let (z, _) = z_lr(&inst, &lambda).unwrap();
        prop_assert!(z >= lp * (1.0 - 1e-9) - 1e-9, "z_LR {} < LP {}", z, lp);
        let primal = greedy_primal(&inst, Some(&lambda)).unwrap();
        prop_assert!(rel(check_primal(&inst, &primal.x).unwrap(), primal.value).abs() < 1e-12);
        prop_assert!(primal.value <= lp * (1.0 + 1e-9) + 1e-9);
    }
}
