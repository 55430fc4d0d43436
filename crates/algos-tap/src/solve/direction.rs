//! Search directions of the Frank–Wolfe family: the all-or-nothing point, and its conjugate and
//! bi-conjugate combinations with earlier directions (Mitradjieva & Lindberg 2013); their sums on all
//! cores in fixed blocks of links (the same on any number of threads).

use super::Algorithm;
use crate::network::Network;
use crate::vector::{block_sums, fill};

/// The costs the direction is computed on, from the generalised `costs` at flows `x`: those costs, or
/// marginal costs `c + x c'` for system optimum.
pub(super) fn direction_costs(
    net: &Network,
    x: &[f64],
    costs: &[f64],
    system_optimum: bool,
    out: &mut [f64],
) {
    if system_optimum {
        let vdf = net.vdf();
        fill(out, |a| costs[a] + x[a] * vdf.derivative(a, x[a]));
    } else {
        out.copy_from_slice(costs);
    }
}

/// How a new direction point is made from the loading `y` and the previous points: the flows and the
/// select-link pair flows follow the same combination.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Combo {
    /// Plain Frank–Wolfe: the point is `y`.
    Restart,
    /// Conjugate: `α s̄ + (1 − α) y`.
    Conjugate { alpha: f64 },
    /// Bi-conjugate: `b0 y + b1 s̄ + b2 s̄'`.
    Biconjugate { b0: f64, b1: f64, b2: f64 },
}

/// The latest direction point s̄ and the one before it, s̄', of some vector.
#[derive(Debug, Default)]
pub(crate) struct Points {
    pub(crate) sd: Option<Vec<f64>>,
    sd_prev: Option<Vec<f64>>,
}

impl Points {
    pub(crate) fn apply(&mut self, combo: Combo, y: &[f64]) {
        let new = match combo {
            Combo::Restart => y.to_vec(),
            Combo::Conjugate { alpha } => {
                let sd = self.sd.as_ref().expect("a previous point");
                sd.iter().zip(y).map(|(s, ya)| alpha * s + (1.0 - alpha) * ya).collect()
            }
            Combo::Biconjugate { b0, b1, b2 } => {
                let (sd, prev) =
                    (self.sd.as_ref().expect("a point"), self.sd_prev.as_ref().expect("two points"));
                (0..y.len()).map(|a| b0 * y[a] + b1 * sd[a] + b2 * prev[a]).collect()
            }
        };
        self.sd_prev = self.sd.take();
        self.sd = Some(new);
    }
}

/// Conjugate direction bookkeeping (the previous direction points and step).
#[derive(Debug, Default)]
pub(crate) struct DirectionState {
    points: Points,
    pub(crate) last_step: f64,
    /// The next step must be plain Frank–Wolfe.
    fw_next: bool,
    /// The next step must be conjugate (after a Frank–Wolfe restart).
    conjugate_next: bool,
}

impl DirectionState {
    pub(crate) fn current(&self) -> Option<&Vec<f64>> {
        self.points.sd.as_ref()
    }

    pub(crate) fn restart(&mut self, y: &[f64]) {
        self.points.apply(Combo::Restart, y);
        self.fw_next = false;
        self.conjugate_next = true;
    }

    /// Computes the new direction point for iteration `k` (1-based) and says how it was made.
    pub(crate) fn direction(
        &mut self,
        net: &Network,
        algorithm: Algorithm,
        k: usize,
        x: &[f64],
        y: &[f64],
        system_optimum: bool,
    ) -> Combo {
        let fw = algorithm == Algorithm::FrankWolfe
            || k == 1
            || self.points.sd.is_none()
            || self.last_step >= 1.0
            || self.fw_next;
        if fw {
            self.restart(y);
            return Combo::Restart;
        }
        let vdf = net.vdf();
        let scale = if system_optimum { 2.0 } else { 1.0 };
        let h = |a: usize| scale * vdf.derivative(a, x[a]);
        let sd = self.points.sd.as_ref().expect("checked");
        let bfw_prev = match (&self.points.sd_prev, self.conjugate_next, algorithm) {
            (Some(prev), false, Algorithm::BiconjugateFw) => Some(prev),
            _ => None,
        };
        let combo = if let Some(prev) = bfw_prev {
            let tau = self.last_step;
            let [mu_n, mu_d, nu_n, nu_d] = block_sums(x.len(), |links| {
                let mut sums = [0.0; 4];
                for a in links {
                    let ha = h(a);
                    let xh = tau * sd[a] + (1.0 - tau) * prev[a] - x[a];
                    let yh = y[a] - x[a];
                    let zh = sd[a] - x[a];
                    let wh = prev[a] - sd[a];
                    sums[0] += ha * xh * yh;
                    sums[1] += ha * xh * wh;
                    sums[2] += ha * zh * yh;
                    sums[3] += ha * zh * zh;
                }
                sums
            });
            let mu = if mu_d != 0.0 { (-mu_n / mu_d).max(0.0) } else { 0.0 };
            let nu = if nu_d != 0.0 { (-nu_n / nu_d + mu * tau / (1.0 - tau)).max(0.0) } else { 0.0 };
            let b0 = 1.0 / (1.0 + mu + nu);
            Combo::Biconjugate { b0, b1: nu * b0, b2: mu * b0 }
        } else {
            self.conjugate_next = false;
            let [num, den] = block_sums(x.len(), |links| {
                let mut sums = [0.0; 2];
                for a in links {
                    let p = sd[a] - x[a];
                    let ha = h(a);
                    sums[0] += ha * p * (y[a] - x[a]);
                    sums[1] += ha * p * (y[a] - sd[a]);
                }
                sums
            });
            let alpha = if den != 0.0 { (num / den).clamp(0.0, 0.99999) } else { 0.0 };
            Combo::Conjugate { alpha }
        };
        self.points.apply(combo, y);
        combo
    }
}
