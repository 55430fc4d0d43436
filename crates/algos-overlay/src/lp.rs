//! The exact LP bound, the oracle the subgradient bounds are measured against.
//!
//! `z_LP = max Σ p_ij x_ij  s.t.  Σ_j x_ij ≤ b_i,  0 ≤ x_ij ≤ u_ij` (a fractional b-matching), solved by
//! [microlp](https://docs.rs/microlp): a pure-Rust sparse revised simplex, chosen over a hand-written
//! min-cost flow on the bipartite double cover (spec §5) because it needs no C/C++ toolchain, answers
//! with a feasibility-checked optimum, and is the LP engine the VRP column generation shares. Its
//! tolerances (1e-7 absolute on each constraint) make the value exact to about 1e-9 relative on the
//! generated instances; n ≤ 250 solves in seconds.

use microlp::{ComparisonOp, OptimizationDirection, Problem};

use crate::error::OverlayError;
use crate::instance::MopInstance;

/// The LP optimum `z_LP` (equal to the Lagrangean dual's minimum).
///
/// ```
/// use urbanflow::overlay::{Edge, MopInstance, lp_bound_exact};
/// // A star whose centre (capacity 100) binds: fill by decreasing value, 64 at 0.9 then 36 at 0.5.
/// let e = |j, value| Edge { i: 0, j, value, upper: 64.0, lower: 14.0 };
/// let inst = MopInstance::new(vec![0, 1, 2], vec![1.0; 3], vec![100.0, 64.0, 64.0], vec![e(1, 0.9), e(2, 0.5)])?;
/// let z = lp_bound_exact(&inst)?;
/// assert!((z - (0.9 * 64.0 + 0.5 * 36.0)).abs() < 1e-6);
/// # Ok::<(), urbanflow::overlay::OverlayError>(())
/// ```
pub fn lp_bound_exact(inst: &MopInstance) -> Result<f64, OverlayError> {
    let mut lp = Problem::new(OptimizationDirection::Maximize);
    let vars: Vec<_> = inst.edges().iter().map(|e| lp.add_var(e.value, (0.0, e.upper))).collect();
    for h in 0..inst.n() {
        let row: Vec<_> = inst.arcs(h).iter().map(|a| (vars[a.edge as usize], 1.0)).collect();
        if !row.is_empty() {
            lp.add_constraint(row.as_slice(), ComparisonOp::Le, inst.b()[h]);
        }
    }
    let outcome = lp.solve().map_err(|e| OverlayError::Lp(e.to_string()))?;
    let solution =
        outcome.into_solution().map_err(|e| OverlayError::Lp(format!("stopped before an optimum: {e:?}")))?;
    Ok(solution.objective())
}
