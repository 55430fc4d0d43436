//! The centralised subgradient method "STD" (spec overlay.md §3.1, with the seed's errors corrected:
//! Polyak's step divides by ‖g‖², and the fraction `c` is a parameter).

use crate::error::OverlayError;
use crate::primal::greedy_primal;
use crate::relaxation::z_lr;
use crate::result::{BoundResult, Control, Observer, Recorder, Silent};

/// The value Polyak's step aims at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    /// The seed's rule: aim at `(1 − c) · z` (step `β · c · z / ‖g‖²`).
    Fraction(f64),
    /// Aim at a known estimate of the optimum (for example a primal value); step `β (z − t) / ‖g‖²`.
    Value(f64),
}

/// Parameters of [`subgradient_std`].
#[derive(Debug, Clone, PartialEq)]
pub struct StdParams {
    /// Initial step factor β.
    pub beta0: f64,
    /// β is multiplied by this after `patience` iterations without a better bound.
    pub shrink: f64,
    /// Non-improving iterations before β shrinks.
    pub patience: u32,
    /// Iteration limit.
    pub max_iter: u32,
    /// What the step aims at.
    pub target: Target,
    /// Stop when the bound improved by less than `min_progress` (relative) over this many iterations
    /// (0: never).
    pub window: u32,
    /// See `window`.
    pub min_progress: f64,
    /// Stop as soon as the certified bound is at or below this (benchmarks: the LP value + tolerance).
    pub stop_below: Option<f64>,
    /// A history point every this many iterations.
    pub record_every: u32,
    /// Compute a greedy feasible overlay from the final multipliers.
    pub primal: bool,
}

impl Default for StdParams {
    /// β0 = 2, β ← 0.95 β after 20 non-improving iterations, c = 0.01, at most 10,000 iterations,
    /// stop when the bound gains less than 1e-9 (relative) over 1,000 iterations. The seed's β0 = 0.005
    /// with c = 0.001 ([`StdParams::seed`]) takes steps so small that after 10,000 iterations the bound
    /// is still 15–37× the LP value on the generated instances (n = 100–250); these reach 1e-11–1e-10.
    fn default() -> Self {
        Self {
            beta0: 2.0,
            shrink: 0.95,
            patience: 20,
            max_iter: 10_000,
            target: Target::Fraction(0.01),
            window: 1_000,
            min_progress: 1e-9,
            stop_below: None,
            record_every: 100,
            primal: true,
        }
    }
}

impl StdParams {
    /// The seed's parameters: β0 = 0.005, β ← 0.95 β after 75 non-improving iterations, 10,000
    /// iterations, c = 0.001, stop when the bound gains < 0.1 % over 3,000 iterations.
    pub fn seed() -> Self {
        Self {
            beta0: 0.005,
            patience: 75,
            target: Target::Fraction(0.001),
            window: 3_000,
            min_progress: 1e-3,
            ..Self::default()
        }
    }

    fn check(&self) -> Result<(), OverlayError> {
        let bad = |name, what: &str| Err(OverlayError::BadParameter { name, what: what.into() });
        if !(self.beta0 > 0.0 && self.beta0.is_finite()) {
            return bad("beta0", "must be finite and > 0");
        }
        if self.max_iter == 0 {
            return bad("max_iter", "must be at least 1");
        }
        if !(self.shrink > 0.0 && self.shrink <= 1.0) {
            return bad("shrink", "must lie in (0, 1]");
        }
        if let Target::Fraction(c) = self.target
            && !(c > 0.0 && c < 1.0)
        {
            return bad("target", "the fraction c must lie in (0, 1)");
        }
        Ok(())
    }
}

/// STD: the centralised subgradient on `min_λ≥0 z_LR(λ)`, from `warm` (or λ = 0). Every iterate's
/// `z_LR` is exact, so the best of them is a certified bound.
///
/// ```
/// use urbanflow::overlay::{StdParams, generator::{Family, generate}, subgradient_std};
/// let inst = generate(30, Family::A, 14.0, 1);
/// let r = subgradient_std(&inst, &StdParams::default(), None)?;
/// let primal = r.primal.as_ref().unwrap().value;
/// assert!(r.bound >= primal);
/// # Ok::<(), urbanflow::overlay::OverlayError>(())
/// ```
pub fn subgradient_std(
    inst: &crate::MopInstance,
    p: &StdParams,
    warm: Option<&[f64]>,
) -> Result<BoundResult, OverlayError> {
    subgradient_std_observed(inst, p, warm, &mut Silent)
}

/// [`subgradient_std`] with progress reports (which may stop the run).
pub fn subgradient_std_observed(
    inst: &crate::MopInstance,
    p: &StdParams,
    warm: Option<&[f64]>,
    observer: &mut dyn Observer,
) -> Result<BoundResult, OverlayError> {
    p.check()?;
    let mut lambda = match warm {
        Some(w) => {
            inst.check_multipliers(w)?;
            w.to_vec()
        }
        None => vec![0.0; inst.n()],
    };
    let mut rec = Recorder::new(p.stop_below);
    let mut beta = p.beta0;
    let mut stall = 0u32;
    let mut window_start = f64::INFINITY;
    let record_every = p.record_every.max(1);
    let mut it = 0;
    while it < p.max_iter {
        let (z, g) = z_lr(inst, &lambda)?;
        it += 1;
        if rec.offer(z, &lambda) {
            stall = 0;
        } else {
            stall += 1;
            if stall > p.patience {
                beta *= p.shrink;
                stall = 0;
            }
        }
        // Components that cannot move (λ_i = 0 pushed below 0) are left out of the step and its norm:
        // else a peer with a huge spare capacity makes every step vanishingly small.
        let mut g = g;
        for (gi, &l) in g.iter_mut().zip(&lambda) {
            if l == 0.0 && *gi < 0.0 {
                *gi = 0.0;
            }
        }
        let norm2: f64 = g.iter().map(|x| x * x).sum();
        if it % record_every == 0 && rec.point(it, p.max_iter, observer) == Control::Stop {
            break;
        }
        if norm2 == 0.0 {
            break; // λ is optimal: 0 is a subgradient
        }
        if p.window > 0 && it % p.window == 0 {
            if window_start.is_finite() && window_start - rec.best < p.min_progress * window_start.abs() {
                break;
            }
            window_start = rec.best;
        }
        let step = match p.target {
            Target::Fraction(c) => beta * c * z.abs() / norm2,
            Target::Value(t) => beta * (z - t).max(0.0) / norm2,
        };
        if step == 0.0 {
            break; // the target is reached (or z is 0): λ would not move again
        }
        for (l, gi) in lambda.iter_mut().zip(&g) {
            *l = (*l + step * gi).max(0.0);
        }
    }
    if rec.history.last().is_none_or(|h| h.iteration != it) {
        rec.point(it, p.max_iter, observer);
    }
    let primal = if p.primal { Some(greedy_primal(inst, Some(&rec.best_lambda))?) } else { None };
    Ok(BoundResult {
        bound: rec.best,
        lambda: rec.best_lambda,
        iterations: it,
        history: rec.history,
        local_sum: None,
        primal,
        engine: "serial".into(),
    })
}
