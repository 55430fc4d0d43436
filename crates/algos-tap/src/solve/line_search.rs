//! The exact line search of the Frank–Wolfe family: bisection on the objective's derivative along the
//! direction, evaluated in parallel blocks of links.

use rayon::prelude::*;

use crate::network::Network;

/// Exact line search: the root of `φ'(τ) = Σ_a g_a(x + τ (s − x)) (s_a − x_a)` on [0, 1] by bisection.
pub(crate) struct LineSearch {
    d: Vec<f64>,
    /// A derivative term that does not depend on the step (several classes' fixed costs times their
    /// direction).
    pub(crate) constant: f64,
}

/// Links per block of the line search's parallel sums (fixed: the sums must not depend on threads).
const LINE_SEARCH_BLOCK: usize = 4096;

impl LineSearch {
    pub(crate) fn new(m: usize) -> Self {
        Self { d: vec![0.0; m], constant: 0.0 }
    }

    /// φ'(τ) = Σ c_a(x + τd) d_a, on all cores: partial sums over fixed blocks of links, added in
    /// block order, so the value (and every step) is the same on any number of threads.
    fn derivative(&mut self, net: &Network, x: &[f64], tau: f64, system_optimum: bool) -> f64 {
        let vdf = net.vdf();
        let fixed = net.fixed_costs();
        let block = |(b, d): (usize, &[f64])| -> f64 {
            let mut sum = 0.0;
            for (i, &da) in d.iter().enumerate() {
                if da == 0.0 {
                    continue;
                }
                let a = b * LINE_SEARCH_BLOCK + i;
                let xa = x[a] + tau * da;
                let mut c = vdf.time(a, xa) + fixed[a];
                if system_optimum {
                    c += xa * vdf.derivative(a, xa);
                }
                sum += c * da;
            }
            sum
        };
        let parts: Vec<f64> = if self.d.len() > LINE_SEARCH_BLOCK {
            self.d.par_chunks(LINE_SEARCH_BLOCK).enumerate().map(block).collect()
        } else {
            self.d.chunks(LINE_SEARCH_BLOCK).enumerate().map(block).collect()
        };
        parts.into_iter().fold(self.constant, |s, p| s + p)
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
        for a in 0..x.len() {
            self.d[a] = s[a] - x[a];
        }
        let d0 = self.derivative(net, x, 0.0, system_optimum);
        if d0 >= 0.0 {
            return if self.d.iter().all(|&v| v == 0.0) { Some(0.0) } else { None };
        }
        if self.derivative(net, x, 1.0, system_optimum) <= 0.0 {
            return Some(1.0);
        }
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        while hi - lo > tol {
            let mid = 0.5 * (lo + hi);
            if self.derivative(net, x, mid, system_optimum) < 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(0.5 * (lo + hi))
    }
}
