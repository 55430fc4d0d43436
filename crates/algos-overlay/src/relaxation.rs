//! The Lagrangean relaxation of the node-capacity constraints, in closed form (spec overlay.md §1).
//!
//! For multipliers λ ≥ 0, `z_LR(λ) = Σ_i b_i λ_i + Σ_(i,j) u_ij · max(0, p_ij − λ_i − λ_j)` is an upper
//! bound on the optimum of SMOP, and `min_λ≥0 z_LR(λ)` equals the LP bound exactly (the convex hull of
//! `{0} ∪ [l, u]` is `[0, u]`). Every bound this crate reports is this function evaluated in `f64`
//! at the final multipliers, over all edges at once: never a sum of per-node estimates.

use rayon::prelude::*;

use crate::error::OverlayError;
use crate::instance::{Edge, MopInstance};

/// The reduced value `p_ij − λ_i − λ_j`, subtracting the far end's multiplier first: every backend
/// (and the GPU kernel) forms it in this order, so their roundings agree.
#[inline]
pub(crate) fn reduced(value: f64, lambda_near: f64, lambda_far: f64) -> f64 {
    (value - lambda_far) - lambda_near
}

#[inline]
fn edge_term(e: &Edge, lambda: &[f64]) -> f64 {
    let d = reduced(e.value, lambda[e.i as usize], lambda[e.j as usize]);
    if d > 0.0 { d * e.upper } else { 0.0 }
}

/// `z_LR(λ)` and the capacity violation `g_i = Σ_j x_ij − b_i` of the relaxation's maximiser (`x_ij =
/// u_ij` where the reduced value is positive, else 0), in one O(|E|) pass. `−g` is a subgradient of
/// `z_LR` at λ, so `λ + α g` (projected on λ ≥ 0) is a descent step.
///
/// ```
/// use urbanflow::overlay::{MopInstance, z_lr};
/// let inst = MopInstance::complete(vec![0, 1], vec![1.0, 0.5], vec![100.0, 20.0], 256.0, 14.0)?;
/// // λ = 0: the single edge (u = 20, p = 0.5) is used fully.
/// let (z, g) = z_lr(&inst, &[0.0, 0.0])?;
/// assert_eq!(z, 10.0);
/// assert_eq!(g, vec![20.0 - 100.0, 20.0 - 20.0]);
/// # Ok::<(), urbanflow::overlay::OverlayError>(())
/// ```
pub fn z_lr(inst: &MopInstance, lambda: &[f64]) -> Result<(f64, Vec<f64>), OverlayError> {
    inst.check_multipliers(lambda)?;
    let mut g: Vec<f64> = inst.b().iter().map(|&b| -b).collect();
    let nodes: f64 = inst.b().iter().zip(lambda).map(|(b, l)| b * l).sum();
    // Summed in the blocks of `z_lr_value`, so both give the same bits.
    let mut blocks = 0.0;
    for block in inst.edges().chunks(BLOCK) {
        let mut z = 0.0;
        for e in block {
            let d = reduced(e.value, lambda[e.i as usize], lambda[e.j as usize]);
            if d > 0.0 {
                z += d * e.upper;
                g[e.i as usize] += e.upper;
                g[e.j as usize] += e.upper;
            }
        }
        blocks += z;
    }
    Ok((nodes + blocks, g))
}

/// Edges per parallel block of [`z_lr_value`]: fixed, so the sum's order (and value) does not depend
/// on the number of threads.
const BLOCK: usize = 16_384;

/// `z_LR(λ)` alone, on all cores, the same value for any thread count: the certified upper bound.
pub fn z_lr_value(inst: &MopInstance, lambda: &[f64]) -> Result<f64, OverlayError> {
    inst.check_multipliers(lambda)?;
    let nodes: f64 = inst.b().iter().zip(lambda).map(|(b, l)| b * l).sum();
    let blocks: Vec<f64> =
        inst.edges().par_chunks(BLOCK).map(|c| c.iter().fold(0.0, |z, e| z + edge_term(e, lambda))).collect();
    Ok(nodes + blocks.iter().fold(0.0, |z, b| z + b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generator::{Family, generate};

    #[test]
    fn value_and_subgradient_match_a_direct_evaluation() {
        let inst = generate(40, Family::A, 14.0, 3);
        let mut rng = graph_core::rng::SplitMix64::new(1);
        for _ in 0..20 {
            let lambda: Vec<f64> = (0..inst.n()).map(|_| rng.unit_f64() * 0.6).collect();
            let (z, g) = z_lr(&inst, &lambda).unwrap();
            // Direct: the relaxation's maximiser x, then its value with the penalty.
            let mut x = vec![0.0; inst.edges().len()];
            for (k, e) in inst.edges().iter().enumerate() {
                if e.value - lambda[e.i as usize] - lambda[e.j as usize] > 0.0 {
                    x[k] = e.upper;
                }
            }
            let mut direct: f64 = inst.edges().iter().zip(&x).map(|(e, x)| e.value * x).sum();
            for h in 0..inst.n() {
                let load: f64 = inst.arcs(h).iter().map(|a| x[a.edge as usize]).sum();
                direct += lambda[h] * (inst.b()[h] - load);
                assert!((g[h] - (load - inst.b()[h])).abs() < 1e-9);
            }
            assert!((z - direct).abs() <= 1e-9 * direct.abs().max(1.0), "{z} vs {direct}");
            assert_eq!(z_lr_value(&inst, &lambda).unwrap().to_bits(), z.to_bits());
        }
    }

    #[test]
    fn subgradient_matches_finite_differences_where_differentiable() {
        let inst = generate(25, Family::B, 14.0, 9);
        let mut rng = graph_core::rng::SplitMix64::new(4);
        let lambda: Vec<f64> = (0..inst.n()).map(|_| 0.01 + rng.unit_f64() * 0.1).collect();
        let (z, g) = z_lr(&inst, &lambda).unwrap();
        let h = 1e-7;
        for node in 0..inst.n() {
            let mut up = lambda.clone();
            up[node] += h;
            let (zu, _) = z_lr(&inst, &up).unwrap();
            // The reduced values are far from 0 for random λ: the slope is −g.
            assert!(((zu - z) / h + g[node]).abs() < 1e-3 * g[node].abs().max(1.0), "node {node}");
        }
    }

    #[test]
    fn negative_or_missing_multipliers_are_refused() {
        let inst = generate(5, Family::A, 14.0, 1);
        assert!(matches!(z_lr(&inst, &[0.0; 4]), Err(OverlayError::BadMultiplier { .. })));
        assert!(matches!(
            z_lr_value(&inst, &[0.0, -1.0, 0.0, 0.0, 0.0]),
            Err(OverlayError::BadMultiplier { node: 1, .. })
        ));
    }
}
