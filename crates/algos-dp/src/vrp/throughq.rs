//! Through-q-routes (spec vrp-relaxations.md §3.2, reconstructed from the seed's GPU kernel and
//! Christofides, Mingozzi & Toth 1981): `ψ(q, i)`, the least cost of a closed route 0 → … → i → … → 0
//! of total load q through customer i, made of a forward q-path to i and a backward q-path from i,
//! with no 2-cycle j → i → j at the junction (the single-customer route 0 → i → 0 is allowed).

use super::{Cvrp, NONE, QPathTable};

/// What load ψ(q, i) stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadSemantics {
    /// Exactly q (CMT's definition, the seed's GPU kernel).
    Exact,
    /// At most q (`min over q' ≤ q`; what the seed's serial code computed by accident).
    AtMost,
}

/// `ψ` as a `(Q + 1) × (n + 1)` row-major table by load (`+∞` where no route exists). `fw` are the
/// q-paths on the instance's arc costs, `bw` those on the transposed costs ([`Cvrp::transposed`]; the
/// same table for symmetric costs). The full range of outbound loads is searched: the seed's asymmetric
/// kernel kept the symmetric half-range, which can miss the minimum.
///
/// ```
/// use urbanflow::dp::vrp::{ArcCosts, Costs, Cvrp, LoadSemantics, q_paths, through_q};
/// let x = [0.0f64, 1.0, 2.0];
/// let cost: Vec<f64> = (0..9).map(|k| (x[k / 3] - x[k % 3]).abs()).collect();
/// let inst = Cvrp::new("line", vec![0, 1, 1], 2, cost)?;
/// let t = q_paths(&inst, &ArcCosts::new(&inst, &Costs::Raw)?, false);
/// let psi = through_q(&inst, &t, &t, LoadSemantics::Exact);
/// assert_eq!(psi[1 * 3 + 2], 4.0); // 0 → 2 → 0
/// assert_eq!(psi[2 * 3 + 1], 4.0); // 0 → 1 → 2 → 0 (or back), through 1
/// # Ok::<(), urbanflow::dp::DpError>(())
/// ```
pub fn through_q(inst: &Cvrp, fw: &QPathTable, bw: &QPathTable, sem: LoadSemantics) -> Vec<f64> {
    let m = inst.customers() + 1;
    let cap = inst.capacity();
    let d = inst.demands();
    let mut psi = vec![f64::INFINITY; (cap as usize + 1) * m];
    for i in 1..m {
        let di = d[i];
        for q in di..=cap {
            let mut best = f64::INFINITY;
            for out in di..=q {
                let back = q + di - out;
                if back < di || back > cap {
                    continue;
                }
                let (a, b) = (out as usize * m + i, back as usize * m + i);
                let (pf, pb) = (fw.pred[a], bw.pred[b]);
                if pf == NONE || pb == NONE {
                    continue;
                }
                let v = if pf != pb || pf == 0 {
                    fw.f[a] + bw.f[b]
                } else {
                    (fw.f[a] + bw.phi[b]).min(fw.phi[a] + bw.f[b])
                };
                best = best.min(v);
            }
            psi[q as usize * m + i] = best;
        }
        if sem == LoadSemantics::AtMost {
            for q in 1..=cap as usize {
                psi[q * m + i] = psi[q * m + i].min(psi[(q - 1) * m + i]);
            }
        }
    }
    psi
}
