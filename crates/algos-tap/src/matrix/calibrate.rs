//! Calibrating the gravity model to an observed matrix: the deterrence parameter whose doubly
//! constrained matrix has the observed mean cost (Hyman's method, Ortúzar & Willumsen §5.6).

use super::gravity::{Constraint, Deterrence, gravity};
use super::ipf::IpfOptions;
use crate::error::TapError;

/// A calibrated deterrence and how it was found.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibrated {
    /// The deterrence with its parameter calibrated.
    pub deterrence: Deterrence,
    /// The observed matrix's trip-weighted mean cost (`c*`).
    pub observed_mean_cost: f64,
    /// The calibrated model's mean cost.
    pub model_mean_cost: f64,
    /// Gravity applications run (each one an IPF).
    pub applications: u32,
    /// [`coincidence_ratio`] of the observed and calibrated trip-length distributions, in bands of a
    /// tenth of the observed mean cost (1: the same distribution).
    pub coincidence_ratio: f64,
    /// Whether the mean costs agree to the tolerance.
    pub converged: bool,
}

/// Calibrates the parameter of `form` (β of `Exponential`, α of `Power`; the value given is ignored)
/// so that the doubly constrained gravity model over `costs`, with the observed matrix's row and
/// column totals, reproduces the observed trip-weighted mean cost to `tolerance` (relative). Hyman's
/// method: start at `1/c*`, scale by `c₀/c*`, then secant steps on the mean cost. Cells with infinite
/// cost are left out of the means (they get no trips).
///
/// AequilibraE 1.7.2's `GravityCalibration` starts the same way but its secant update reads
/// `((c* − c_{m−1}) b_m − (c* − c_m) b_m) / (c_m − c_{m−1})`, which is `b_m`: it stops after the first
/// two applications, at `b₁ = b₀ c₀ / c*`, whatever the mean cost then. This function goes on until
/// the mean costs agree.
///
/// ```
/// use urbanflow::tap::matrix::{Constraint, Deterrence, IpfOptions, calibrate, gravity};
/// let costs = [1.0, 4.0, 3.0, 4.0, 1.0, 2.0, 3.0, 2.0, 1.0];
/// let (rows, cols) = ([100.0, 50.0, 80.0], [60.0, 90.0, 80.0]);
/// let truth = Deterrence::Exponential { beta: 0.4 };
/// let observed = gravity(&costs, &rows, &cols, truth, Constraint::Doubly, &IpfOptions::default()).unwrap().matrix;
/// let c = calibrate(&costs, &observed, Deterrence::Exponential { beta: 0.0 }, 1e-12, &IpfOptions::default()).unwrap();
/// let Deterrence::Exponential { beta } = c.deterrence else { unreachable!() };
/// assert!((beta - 0.4).abs() < 1e-6, "{beta}");
/// ```
pub fn calibrate(
    costs: &[f64],
    observed: &[f64],
    form: Deterrence,
    tolerance: f64,
    ipf_options: &IpfOptions,
) -> Result<Calibrated, TapError> {
    let n = (observed.len() as f64).sqrt() as usize;
    if n * n != observed.len() || costs.len() != observed.len() {
        return Err(TapError::InvalidOption(format!(
            "calibration needs square matrices of one size: {} observed cells, {} costs",
            observed.len(),
            costs.len()
        )));
    }
    if observed.iter().any(|x| !(*x >= 0.0 && x.is_finite())) {
        return Err(TapError::InvalidOption(
            "the observed matrix holds a value that is not finite and ≥ 0".into(),
        ));
    }
    let with = |b: f64| match form {
        Deterrence::Exponential { .. } => Ok(Deterrence::Exponential { beta: b }),
        Deterrence::Power { .. } => Ok(Deterrence::Power { alpha: b }),
        Deterrence::Gamma { .. } => {
            Err(TapError::InvalidOption("calibration fits one parameter: power or expo, not gamma".into()))
        }
    };
    let rows: Vec<f64> = observed.chunks(n).map(|r| r.iter().sum()).collect();
    let cols: Vec<f64> = (0..n).map(|j| (0..n).map(|i| observed[i * n + j]).sum()).collect();
    let target = mean_cost(observed, costs);
    if target.is_nan() || target <= 0.0 {
        return Err(TapError::InvalidOption("the observed trips have no positive mean cost to match".into()));
    }
    let mean_at = |b: f64| -> Result<(f64, Vec<f64>), TapError> {
        let g = gravity(costs, &rows, &cols, with(b)?, Constraint::Doubly, ipf_options)?;
        Ok((mean_cost(&g.matrix, costs), g.matrix))
    };
    let mut b_prev = 1.0 / target;
    let mut c_prev = mean_at(b_prev)?.0;
    let mut b = b_prev * c_prev / target;
    let mut c = mean_at(b)?.0;
    let mut applications = 2;
    const MAX_APPLICATIONS: u32 = 100;
    while (c - target).abs() > tolerance * target && applications < MAX_APPLICATIONS && c != c_prev {
        let next = ((target - c_prev) * b - (target - c) * b_prev) / (c - c_prev);
        (b_prev, c_prev) = (b, c);
        b = next;
        c = mean_at(b)?.0;
        applications += 1;
    }
    let (c, model) = mean_at(b)?;
    Ok(Calibrated {
        deterrence: with(b)?,
        observed_mean_cost: target,
        model_mean_cost: c,
        applications: applications + 1,
        coincidence_ratio: coincidence_ratio(observed, &model, costs, target / 10.0),
        converged: (c - target).abs() <= tolerance * target,
    })
}

/// The trip-weighted mean of the finite costs.
pub(crate) fn mean_cost(trips: &[f64], cost: &[f64]) -> f64 {
    let (mut weighted, mut total) = (0.0, 0.0);
    for (t, c) in trips.iter().zip(cost) {
        if c.is_finite() {
            weighted += t * c;
            total += t;
        }
    }
    if total > 0.0 { weighted / total } else { 0.0 }
}

/// The coincidence ratio of two matrices' trip-length distributions over `costs`, in cost bands of
/// width `band`: `Σ_k min(p_k, q_k) / Σ_k max(p_k, q_k)` with `p`, `q` the shares of each matrix's trips
/// per band (cells of infinite cost left out). 1 for the same distribution, 0 for disjoint ones.
///
/// ```
/// use urbanflow::tap::matrix::coincidence_ratio;
/// let costs = [1.0, 5.0, 5.0, 1.0];
/// assert_eq!(coincidence_ratio(&[3.0, 1.0, 1.0, 3.0], &[6.0, 2.0, 2.0, 6.0], &costs, 2.0), 1.0);
/// assert_eq!(coincidence_ratio(&[1.0, 0.0, 0.0, 1.0], &[0.0, 1.0, 1.0, 0.0], &costs, 2.0), 0.0);
/// ```
pub fn coincidence_ratio(a: &[f64], b: &[f64], costs: &[f64], band: f64) -> f64 {
    let bands = |m: &[f64]| {
        let mut shares: Vec<f64> = Vec::new();
        let mut total = 0.0;
        for (t, c) in m.iter().zip(costs) {
            if c.is_finite() && *t > 0.0 {
                let k = (c / band).floor().max(0.0) as usize;
                if shares.len() <= k {
                    shares.resize(k + 1, 0.0);
                }
                shares[k] += t;
                total += t;
            }
        }
        shares.iter_mut().for_each(|s| *s /= total.max(f64::MIN_POSITIVE));
        shares
    };
    let (p, q) = (bands(a), bands(b));
    let (mut low, mut high) = (0.0, 0.0);
    for k in 0..p.len().max(q.len()) {
        let (x, y) = (p.get(k).copied().unwrap_or(0.0), q.get(k).copied().unwrap_or(0.0));
        low += x.min(y);
        high += x.max(y);
    }
    if high > 0.0 { low / high } else { 1.0 }
}
