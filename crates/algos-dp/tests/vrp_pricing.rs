//! Pricing engines against each other: the dense ng tables (the GPU's layout) against the
//! reachable-state DP, and every GPU table against its CPU mirror, bit for bit.

mod vrp_common;

use algos_dp::DpError;
use algos_dp::vrp::{
    ArcCosts, BoundOptions, Costs, Cvrp, GpuNgPricer, GpuQPaths, LoadSemantics, NO_LABEL, NgPlan, NgSets,
    Relaxation, ng_paths, q_paths, root_bound, root_bound_with, through_q, vrp_ng_mirror,
};
use graph_core::rng::SplitMix64;
use vrp_common::random;

/// Duals that make many reduced costs negative, with ties (integers) or without (fractions).
fn duals(n: usize, seed: u64, fractional: bool) -> Vec<f64> {
    let mut rng = SplitMix64::new(seed ^ 0x5eed);
    (0..n)
        .map(|_| if fractional { rng.below(25_000) as f64 / 1000.0 } else { rng.below(25) as f64 })
        .collect()
}

fn cases() -> Vec<(Cvrp, usize, Vec<f64>)> {
    let mut rng = SplitMix64::new(99);
    (0..24)
        .map(|c| {
            let n = 3 + rng.below(12) as usize;
            let cap = 3 + rng.below(12) as u32;
            let inst = random(n, cap, c % 3 == 0, 1000 + c);
            let delta = 1 + rng.below(n.min(10) as u64) as usize;
            let u = duals(n, c, c % 2 == 0);
            (inst, delta, u)
        })
        .collect()
}

#[test]
fn dense_tables_hold_the_reachable_labels() {
    for (inst, delta, u) in cases() {
        let ng = NgSets::nearest(&inst, delta).unwrap();
        let arcs = ArcCosts::new(&inst, &Costs::Reduced(&u)).unwrap();
        let sparse = ng_paths(&inst, &arcs, &ng, false, 1 << 24).unwrap();
        let plan = NgPlan::new(&inst, &ng).unwrap();
        let dense = vrp_ng_mirror(&inst, &arcs, &plan, false, 1 << 24).unwrap();
        assert_eq!(dense, vrp_ng_mirror(&inst, &arcs, &plan, true, 1 << 24).unwrap(), "rayon = serial");
        let (m, s) = (inst.customers() + 1, plan.masks);
        for q in 1..=inst.capacity() {
            for i in 1..m {
                let states = sparse.states(q, i);
                let reached = (0..s).filter(|&t| dense.label(q, i, t).1 != NO_LABEL).count();
                assert_eq!(reached, states.len(), "{} Δ={delta} ({q}, {i}): label count", inst.name());
                for st in states {
                    let t = (st.mask >> 1) as usize;
                    let (v, p) = dense.label(q, i, t);
                    assert_eq!(v.to_bits(), st.value.to_bits(), "{} ({q}, {i}, {t}) value", inst.name());
                    assert_eq!(p >> 16, st.pred, "{} ({q}, {i}, {t}) predecessor", inst.name());
                    if st.pred != 0 {
                        let prev = q - inst.demands()[i];
                        let from = sparse.states(prev, st.pred as usize)[st.pred_state as usize].mask >> 1;
                        assert_eq!(p & 0xFFFF, from, "{} ({q}, {i}, {t}) predecessor memory", inst.name());
                    }
                }
                assert_eq!(dense.value(q, i).to_bits(), sparse.value(q, i).to_bits());
            }
        }
        let k = 40;
        assert_eq!(
            dense.best_routes(&inst, &arcs, k, f64::INFINITY),
            sparse.best_routes(&inst, &arcs, k, f64::INFINITY),
            "{} Δ={delta}: routes",
            inst.name()
        );
    }
}

#[test]
fn gpu_ng_tables_equal_the_mirror() {
    gpu_runtime::testing::for_each_context("gpu_ng_tables_equal_the_mirror", |ctx| {
        if !ctx.features().f64 {
            let inst = random(4, 5, true, 1);
            let err = GpuNgPricer::new(ctx, &inst, &NgSets::nearest(&inst, 2).unwrap()).err();
            assert!(
                matches!(err, Some(DpError::Gpu(gpu_runtime::GpuError::MissingFeature { .. }))),
                "without f64: {err:?}"
            );
            return;
        }
        for (inst, delta, u) in cases() {
            let ng = NgSets::nearest(&inst, delta).unwrap();
            let plan = NgPlan::new(&inst, &ng).unwrap();
            let mut gpu = GpuNgPricer::new(ctx, &inst, &ng).unwrap();
            // Two calls on the same resident tables: raw costs, then reduced ones.
            for costs in [Costs::Raw, Costs::Reduced(&u)] {
                let arcs = ArcCosts::new(&inst, &costs).unwrap();
                let cpu = vrp_ng_mirror(&inst, &arcs, &plan, true, 1 << 24).unwrap();
                let priced = gpu.price(&arcs, 30, f64::INFINITY).unwrap();
                let table = gpu.table().unwrap();
                assert!(table == cpu, "{} Δ={delta}: GPU tables differ from the mirror", inst.name());
                assert_eq!(
                    priced.routes,
                    cpu.best_routes(&inst, &arcs, 30, f64::INFINITY),
                    "{}",
                    inst.name()
                );
            }
        }
    });
}

/// The transpose of an arc-cost matrix (backward DPs run forward on it).
fn transpose(arcs: &ArcCosts) -> ArcCosts {
    let m = arcs.size();
    ArcCosts::from_matrix(m, (0..m * m).map(|x| arcs.get(x % m, x / m)).collect())
}

#[test]
fn gpu_q_paths_and_through_q_equal_the_cpu() {
    gpu_runtime::testing::for_each_context("gpu_q_paths_and_through_q_equal_the_cpu", |ctx| {
        if !ctx.features().f64 {
            let err = GpuQPaths::new(ctx, &random(4, 5, true, 1)).err();
            assert!(
                matches!(err, Some(DpError::Gpu(gpu_runtime::GpuError::MissingFeature { .. }))),
                "{err:?}"
            );
            return;
        }
        for (inst, _, u) in cases() {
            let back = inst.transposed();
            let mut fw = GpuQPaths::new(ctx, &inst).unwrap();
            let mut bw = GpuQPaths::new(ctx, &back).unwrap();
            for costs in [Costs::Raw, Costs::Reduced(&u)] {
                let arcs = ArcCosts::new(&inst, &costs).unwrap();
                let arcs_bw = transpose(&arcs);
                let cpu_fw = q_paths(&inst, &arcs, false);
                let cpu_bw = q_paths(&back, &arcs_bw, false);
                let priced = fw.price(&arcs, 25, f64::INFINITY).unwrap();
                bw.fill(&arcs_bw).unwrap();
                let gpu_fw = fw.table().unwrap();
                assert!(gpu_fw == cpu_fw, "{}: forward q-path tables differ", inst.name());
                assert!(bw.table().unwrap() == cpu_bw, "{}: backward q-path tables differ", inst.name());
                assert_eq!(priced.routes, cpu_fw.best_routes(&inst, &arcs, 25, f64::INFINITY));
                for sem in [LoadSemantics::Exact, LoadSemantics::AtMost] {
                    let gpu = fw.through_q(&bw, sem).unwrap();
                    let cpu = through_q(&inst, &cpu_fw, &cpu_bw, sem);
                    let same = gpu.iter().zip(&cpu).all(|(a, b)| a.to_bits() == b.to_bits());
                    assert!(same && gpu.len() == cpu.len(), "{} {sem:?}: ψ differs", inst.name());
                }
            }
        }
    });
}

#[test]
fn gpu_priced_bounds_equal_the_cpu_ones() {
    gpu_runtime::testing::for_each_context("gpu_priced_bounds_equal_the_cpu_ones", |ctx| {
        if !ctx.features().f64 {
            return; // the typed error is checked by the table tests
        }
        for seed in 0..3 {
            let inst = random(9, 6, seed % 2 == 0, 500 + seed);
            for relaxation in [Relaxation::QRoute, Relaxation::NgRoute { delta: 4 }] {
                let opts = BoundOptions { relaxation, ..BoundOptions::default() };
                let cpu = root_bound(&inst, &opts, &mut |_| {}).unwrap();
                let gpu = match relaxation {
                    Relaxation::NgRoute { delta } => {
                        let mut p =
                            GpuNgPricer::new(ctx, &inst, &NgSets::nearest(&inst, delta).unwrap()).unwrap();
                        root_bound_with(&inst, &opts, &mut p, &mut |_| {}).unwrap()
                    }
                    Relaxation::QRoute => {
                        let mut p = GpuQPaths::new(ctx, &inst).unwrap();
                        root_bound_with(&inst, &opts, &mut p, &mut |_| {}).unwrap()
                    }
                };
                assert!(cpu.converged && gpu.converged, "{} {relaxation:?}", inst.name());
                let tol = 1e-6 * cpu.lower_bound.abs().max(1.0);
                assert!(
                    (cpu.lower_bound - gpu.lower_bound).abs() <= tol,
                    "{} {relaxation:?}: CPU {} GPU {}",
                    inst.name(),
                    cpu.lower_bound,
                    gpu.lower_bound
                );
            }
        }
    });
}
