//! The exact line search of the Frank–Wolfe family: the root of the objective's derivative along the
//! direction by safeguarded false position, each derivative evaluated in parallel blocks of links.

use crate::network::Network;
use crate::vector::{block_sums, fill};

/// Exact line search: the root of `φ'(τ) = Σ_a g_a(x + τ (s − x)) (s_a − x_a)` on [0, 1] ([`root_in_bracket`]).
pub(crate) struct LineSearch {
    d: Vec<f64>,
    /// A derivative term that does not depend on the step (several classes' fixed costs times their
    /// direction).
    pub(crate) constant: f64,
}

impl LineSearch {
    pub(crate) fn new(m: usize) -> Self {
        Self { d: vec![0.0; m], constant: 0.0 }
    }

    /// φ'(τ) = Σ c_a(x + τd) d_a, on all cores in fixed blocks of links ([`block_sums`]), so the value
    /// (and every step) is the same on any number of threads.
    fn derivative(&self, net: &Network, x: &[f64], tau: f64, system_optimum: bool) -> f64 {
        let vdf = net.vdf();
        let fixed = net.fixed_costs();
        let d = &self.d;
        let [sum] = block_sums(d.len(), |links| {
            let mut sum = 0.0;
            for a in links {
                let da = d[a];
                if da == 0.0 {
                    continue;
                }
                let xa = x[a] + tau * da;
                let mut c = vdf.time(a, xa) + fixed[a];
                if system_optimum {
                    c += xa * vdf.derivative(a, xa);
                }
                sum += c * da;
            }
            [sum]
        });
        self.constant + sum
    }

    /// The step, or `None` when `s − x` is not a descent direction (φ'(0) ≥ 0 with a non-zero direction).
    pub(crate) fn search(
        &mut self,
        net: &Network,
        x: &[f64],
        s: &[f64],
        system_optimum: bool,
        tol: f64,
    ) -> Option<f64> {
        fill(&mut self.d, |a| s[a] - x[a]);
        let d0 = self.derivative(net, x, 0.0, system_optimum);
        if d0 >= 0.0 {
            return if self.d.iter().all(|&v| v == 0.0) { Some(0.0) } else { None };
        }
        let d1 = self.derivative(net, x, 1.0, system_optimum);
        if d1 <= 0.0 {
            return Some(1.0);
        }
        Some(root_in_bracket(|tau| self.derivative(net, x, tau, system_optimum), d0, d1, tol))
    }
}

/// The root of an increasing `f` on [0, 1] with `f(0) = f0 < 0 < f1 = f(1)`, to within `tol` (the
/// midpoint of a bracket no wider than `tol`, as bisection returns), by the Illinois variant of false
/// position: each step interpolates between the bracket's ends, and when the same end survives twice its
/// value is halved so that the bracket closes from both sides. The objective's derivative along a
/// Frank–Wolfe direction is smooth and nearly linear near its root, so this takes ~6 evaluations (each a
/// pass over every link) where halving [0, 1] down to 1e-6..1e-12 took 20 to 40. Whatever `f`, three
/// steps that do not halve the bracket are followed by a bisection, so it is never much slower than one.
fn root_in_bracket(mut f: impl FnMut(f64) -> f64, f0: f64, f1: f64, tol: f64) -> f64 {
    let (mut lo, mut hi, mut f_lo, mut f_hi) = (0.0f64, 1.0f64, f0, f1);
    // Which end the last step moved (-1 lo, 1 hi; 0 after a bisection), for the halving.
    let mut last_side = 0i8;
    // Interpolation steps since the last check, and the bracket's width at that check.
    let (mut steps, mut window) = (0, hi - lo);
    while hi - lo > tol {
        // A trial at least tol/4 inside either end, so that every step shrinks the bracket.
        let margin = 0.25 * tol;
        let tau = lo - f_lo * (hi - lo) / (f_hi - f_lo);
        let tau = if tau.is_nan() { 0.5 * (lo + hi) } else { tau.clamp(lo + margin, hi - margin) };
        let f_tau = f(tau);
        if f_tau < 0.0 {
            (lo, f_lo) = (tau, f_tau);
            if last_side == -1 {
                f_hi *= 0.5;
            }
            last_side = -1;
        } else {
            (hi, f_hi) = (tau, f_tau);
            if last_side == 1 {
                f_lo *= 0.5;
            }
            last_side = 1;
        }
        steps += 1;
        if steps == 3 {
            if hi - lo > 0.5 * window && hi - lo > tol {
                let mid = 0.5 * (lo + hi);
                let f_mid = f(mid);
                if f_mid < 0.0 {
                    (lo, f_lo) = (mid, f_mid);
                } else {
                    (hi, f_hi) = (mid, f_mid);
                }
                last_side = 0;
            }
            (steps, window) = (0, hi - lo);
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::root_in_bracket;

    /// Runs the search on `f` and returns the root and the number of evaluations.
    fn solve(f: impl Fn(f64) -> f64, tol: f64) -> (f64, usize) {
        let mut evals = 0;
        let root = root_in_bracket(
            |t| {
                evals += 1;
                f(t)
            },
            f(0.0),
            f(1.0),
            tol,
        );
        (root, evals)
    }

    #[test]
    fn finds_roots_of_smooth_steep_and_broken_functions_within_the_tolerance() {
        // (function, its root): nearly linear (the usual case), a BPR-like quartic, a function flat
        // almost everywhere (false position stalls on one end), a jump (no root in the smooth sense:
        // the answer is where the sign changes).
        let cases: [(&dyn Fn(f64) -> f64, f64); 4] = [
            (&|t| 3.0 * t - 1.0 + 0.01 * t * t, (9.04f64.sqrt() - 3.0) / 0.02),
            (&|t| (1.0 + 4.0 * t).powi(4) - 10.0, (10f64.powf(0.25) - 1.0) / 4.0),
            (&|t| t.powi(40) - 1e-3, 1e-3f64.powf(1.0 / 40.0)),
            (&|t| if t < 0.3 { -1.0 } else { 1.0 }, 0.3),
        ];
        for tol in [1e-6f64, 1e-12] {
            let bisection_evals = (1.0 / tol).log2().ceil() as usize;
            for (i, (f, root)) in cases.iter().enumerate() {
                let (got, evals) = solve(f, tol);
                assert!((got - root).abs() <= tol, "case {i}, tol {tol}: {got} against {root}");
                // Never much more than bisection.
                assert!(evals <= bisection_evals * 4 / 3 + 3, "case {i}, tol {tol}: {evals} evaluations");
                // The nearly linear case in a handful, the quartic in fewer than bisection.
                if i == 0 {
                    assert!(evals <= 6, "tol {tol}: {evals} evaluations for a nearly linear function");
                }
                if i == 1 {
                    assert!(evals < bisection_evals, "tol {tol}: {evals} evaluations for a quartic");
                }
            }
        }
    }
}
