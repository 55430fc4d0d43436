//! Feasible overlays (lower bounds on SMOP), so that every bound comes with a gap.

use crate::error::OverlayError;
use crate::instance::MopInstance;
use crate::relaxation::reduced;

/// A feasible solution: bandwidth per edge (index of [`MopInstance::edges`]) and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Primal {
    /// `Σ p_ij x_ij`.
    pub value: f64,
    /// Bandwidth per edge: 0 or within `[l, u]`.
    pub x: Vec<f64>,
}

/// Greedy overlay (spec overlay.md §3.3): edges in decreasing order of value (and, when multipliers
/// are given, also in decreasing order of reduced value `p_ij − λ_i − λ_j`; the better of the two is
/// kept), each given `min(u_ij, residual b_i, residual b_j)` if that reaches `l_ij`, else skipped.
///
/// ```
/// use urbanflow::overlay::{MopInstance, greedy_primal, check_primal};
/// let inst = MopInstance::complete(vec![0, 1, 2], vec![1.0, 0.8, 0.5], vec![200.0, 100.0, 100.0], 256.0, 14.0)?;
/// let sol = greedy_primal(&inst, None)?;
/// assert_eq!(check_primal(&inst, &sol.x)?, sol.value);
/// # Ok::<(), urbanflow::overlay::OverlayError>(())
/// ```
pub fn greedy_primal(inst: &MopInstance, lambda: Option<&[f64]>) -> Result<Primal, OverlayError> {
    let mut order: Vec<u32> = (0..inst.edges().len() as u32).collect();
    let edges = inst.edges();
    // Decreasing key, then edge index: a fixed order.
    order.sort_unstable_by(|&a, &b| {
        edges[b as usize].value.total_cmp(&edges[a as usize].value).then(a.cmp(&b))
    });
    let mut best = fill(inst, &order);
    if let Some(lambda) = lambda {
        inst.check_multipliers(lambda)?;
        let key: Vec<f64> =
            edges.iter().map(|e| reduced(e.value, lambda[e.i as usize], lambda[e.j as usize])).collect();
        order.sort_unstable_by(|&a, &b| key[b as usize].total_cmp(&key[a as usize]).then(a.cmp(&b)));
        let other = fill(inst, &order);
        if other.value > best.value {
            best = other;
        }
    }
    Ok(best)
}

fn fill(inst: &MopInstance, order: &[u32]) -> Primal {
    let mut residual = inst.b().to_vec();
    let mut x = vec![0.0; inst.edges().len()];
    let mut value = 0.0;
    for &k in order {
        let e = &inst.edges()[k as usize];
        let (i, j) = (e.i as usize, e.j as usize);
        let bw = e.upper.min(residual[i]).min(residual[j]);
        if e.value > 0.0 && bw > 0.0 && bw >= e.lower {
            x[k as usize] = bw;
            residual[i] -= bw;
            residual[j] -= bw;
            value += e.value * bw;
        }
    }
    Primal { value, x }
}

/// Checks a solution (capacities within 1e-9 relative, each edge 0 or within `[l, u]`) and returns its
/// value; the error names the first violation by the user's node ids.
pub fn check_primal(inst: &MopInstance, x: &[f64]) -> Result<f64, OverlayError> {
    if x.len() != inst.edges().len() {
        return Err(OverlayError::Shape(format!("{} bandwidths for {} edges", x.len(), inst.edges().len())));
    }
    let ids = inst.ids();
    let mut load = vec![0.0; inst.n()];
    let mut value = 0.0;
    for (e, &xe) in inst.edges().iter().zip(x) {
        if xe != 0.0 && !(xe >= e.lower && xe <= e.upper) {
            return Err(OverlayError::BadEdge {
                i: ids[e.i as usize],
                j: ids[e.j as usize],
                what: "bandwidth is neither 0 nor within [l, u]",
            });
        }
        load[e.i as usize] += xe;
        load[e.j as usize] += xe;
        value += e.value * xe;
    }
    for (h, (&l, &b)) in load.iter().zip(inst.b()).enumerate() {
        if l > b * (1.0 + 1e-9) + 1e-9 {
            return Err(OverlayError::Shape(format!("node {}: load {l} exceeds its capacity {b}", ids[h])));
        }
    }
    Ok(value)
}
