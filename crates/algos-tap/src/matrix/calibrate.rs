//! Calibrating the gravity model: the deterrence parameters whose doubly constrained matrix reproduces
//! an observed matrix or trip-length distribution — by its mean cost (Hyman's method, Ortúzar &
//! Willumsen §5.6) or by least squares on the distribution's band shares.

use std::path::Path;

use super::gravity::{Constraint, Deterrence, gravity};
use super::ipf::IpfOptions;
use crate::error::TapError;

/// A trip-length distribution: the shares of trips in cost bands `[upper[k−1], upper[k])` (the first
/// from 0), the last band also taking every longer trip.
#[derive(Debug, Clone, PartialEq)]
pub struct TripLengths {
    upper: Vec<f64>,
    shares: Vec<f64>,
}

impl TripLengths {
    /// Bands with ascending finite upper bounds and their trips (or shares: they are normalised), each
    /// finite and ≥ 0, some positive.
    ///
    /// ```
    /// use urbanflow::tap::matrix::TripLengths;
    /// let t = TripLengths::new(vec![10.0, 20.0], vec![30.0, 10.0]).unwrap();
    /// assert_eq!(t.shares(), &[0.75, 0.25]);
    /// assert_eq!(t.mean(), 0.75 * 5.0 + 0.25 * 15.0); // band midpoints
    /// ```
    pub fn new(upper: Vec<f64>, trips: Vec<f64>) -> Result<Self, TapError> {
        Self::check(&upper, &trips)
            .map_err(|(k, m)| TapError::InvalidOption(format!("trip-length band {}: {m}", k + 1)))?;
        Ok(Self::normalised(upper, trips))
    }

    fn normalised(upper: Vec<f64>, mut shares: Vec<f64>) -> Self {
        let total: f64 = shares.iter().sum();
        shares.iter_mut().for_each(|s| *s /= total);
        Self { upper, shares }
    }

    /// The first band that breaks the rules, and why: [`super::check_bands`], and some trips.
    fn check(upper: &[f64], trips: &[f64]) -> Result<(), (usize, String)> {
        super::check_bands(upper, trips, "value")?;
        if trips.iter().all(|&t| t == 0.0) {
            return Err((0, "every band is empty: expected some trips".into()));
        }
        Ok(())
    }

    /// Reads a distribution: CSV with a header `upper,trips` (or `upper,share`), one band per row,
    /// ascending upper cost bounds; errors name the file and line.
    pub fn read_csv(path: impl AsRef<Path>) -> Result<Self, TapError> {
        let path = path.as_ref();
        let rows = super::read_pairs(
            path,
            [&["upper", "to", "max"], &["trips", "share", "value", "count", "percent"]],
            "upper,trips",
        )?;
        let (upper, trips): (Vec<f64>, Vec<f64>) = rows.iter().map(|&(_, u, t)| (u, t)).unzip();
        Self::check(&upper, &trips).map_err(|(k, message)| TapError::TableFile {
            path: path.to_path_buf(),
            line: rows.get(k).map_or(1, |r| r.0),
            message,
        })?;
        Ok(Self::normalised(upper, trips))
    }

    /// The distribution of `trips` over `costs` (cells of infinite cost left out) in bands with these
    /// upper bounds; `None` when no trip has a finite cost.
    pub fn of(trips: &[f64], costs: &[f64], upper: &[f64]) -> Option<Self> {
        let mut shares = vec![0.0; upper.len()];
        for (t, c) in trips.iter().zip(costs) {
            if c.is_finite() && *t > 0.0 {
                shares[band_of(upper, *c)] += t;
            }
        }
        (shares.iter().sum::<f64>() > 0.0 && !upper.is_empty())
            .then(|| Self::normalised(upper.to_vec(), shares))
    }

    /// Bands of equal `width` up to (and including) `max_cost`: a positive width, a finite cost ≥ 0,
    /// and at most a million bands.
    pub fn uniform_bounds(width: f64, max_cost: f64) -> Result<Vec<f64>, TapError> {
        const MAX_BANDS: f64 = 1e6;
        let count = (max_cost / width).floor() + 1.0;
        if !(width > 0.0 && width.is_finite() && max_cost >= 0.0 && count <= MAX_BANDS) {
            return Err(TapError::InvalidOption(format!(
                "bands of width {width} up to {max_cost}: expected a positive width and at most {MAX_BANDS} bands"
            )));
        }
        Ok((1..=count as usize).map(|k| k as f64 * width).collect())
    }

    /// The bands' upper bounds.
    pub fn upper(&self) -> &[f64] {
        &self.upper
    }

    /// The share of trips in each band (they add up to 1).
    pub fn shares(&self) -> &[f64] {
        &self.shares
    }

    /// The mean cost, each band's trips counted at its midpoint.
    pub fn mean(&self) -> f64 {
        (0..self.upper.len())
            .map(|k| {
                let lower = if k == 0 { 0.0 } else { self.upper[k - 1] };
                self.shares[k] * 0.5 * (lower + self.upper[k])
            })
            .sum()
    }

    /// The coincidence ratio with `other` (the same bands): `Σ min(p_k, q_k) / Σ max(p_k, q_k)`, 1 for
    /// the same distribution, 0 for disjoint ones.
    pub fn coincidence(&self, other: &Self) -> f64 {
        let (mut low, mut high) = (0.0, 0.0);
        for (p, q) in self.shares.iter().zip(&other.shares) {
            low += p.min(*q);
            high += p.max(*q);
        }
        if high > 0.0 { low / high } else { 1.0 }
    }

    /// The sum of squared differences of the band shares with `other` (the same bands): what the
    /// least-squares fit minimises.
    pub fn squared_distance(&self, other: &Self) -> f64 {
        self.shares.iter().zip(&other.shares).map(|(p, q)| (p - q) * (p - q)).sum()
    }
}

/// The band of cost `c`: the first whose upper bound is above it, or the last.
fn band_of(upper: &[f64], c: f64) -> usize {
    upper.partition_point(|&u| u <= c).min(upper.len() - 1)
}

/// What the model must reproduce.
#[derive(Debug, Clone, Copy)]
pub enum Observed<'a> {
    /// An observed matrix (row-major, zones × zones): its row and column totals are the productions
    /// and attractions, its trip-length distribution (and mean cost) the target.
    Matrix(&'a [f64]),
    /// A trip-length distribution (a survey's) with the zones' productions and attractions.
    Lengths {
        /// The target distribution (its bands are the fit's).
        lengths: &'a TripLengths,
        /// Trips produced per zone (rows).
        productions: &'a [f64],
        /// Trips attracted per zone (columns).
        attractions: &'a [f64],
    },
}

/// How the parameters are fitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fit {
    /// The model's mean cost equals the observed one (Hyman's method; one parameter: `expo` or
    /// `power`). For a distribution target, its mean counts each band at its midpoint.
    #[default]
    MeanCost,
    /// The band shares' sum of squared differences is least (Nelder–Mead from Hyman's result;
    /// `expo`, `power` or both parameters of `gamma`).
    LeastSquares,
}

impl std::str::FromStr for Fit {
    type Err = TapError;
    /// `mean` or `least-squares`.
    fn from_str(s: &str) -> Result<Self, TapError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "mean" => Ok(Self::MeanCost),
            "least-squares" => Ok(Self::LeastSquares),
            _ => Err(TapError::InvalidOption(format!("fit `{s}`: expected mean or least-squares"))),
        }
    }
}

/// Options of [`calibrate_to`].
#[derive(Debug, Clone)]
pub struct CalibrateOptions {
    /// Mean cost (Hyman) or least squares on the distribution.
    pub fit: Fit,
    /// Stop when the mean costs agree to this (relative; `MeanCost`), or when the simplex's parameters
    /// agree to this (relative; `LeastSquares`).
    pub tolerance: f64,
    /// The band width for an observed matrix's distribution (default: a tenth of its mean cost).
    pub band_width: Option<f64>,
    /// The balancing of every gravity application.
    pub ipf: IpfOptions,
}

impl Default for CalibrateOptions {
    fn default() -> Self {
        Self { fit: Fit::MeanCost, tolerance: 1e-9, band_width: None, ipf: IpfOptions::default() }
    }
}

/// A calibrated deterrence and how it was found.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibrated {
    /// The deterrence with its parameters calibrated.
    pub deterrence: Deterrence,
    /// The target's mean cost (`c*`: an observed matrix's trip-weighted mean, or a distribution's
    /// [`TripLengths::mean`]).
    pub observed_mean_cost: f64,
    /// The calibrated model's trip-weighted mean cost.
    pub model_mean_cost: f64,
    /// Gravity applications run (each one an IPF).
    pub applications: u32,
    /// The coincidence ratio of the observed and calibrated distributions (1: the same).
    pub coincidence_ratio: f64,
    /// The band shares' sum of squared differences.
    pub sum_of_squares: f64,
    /// The observed distribution, in the fit's bands.
    pub observed_lengths: TripLengths,
    /// The calibrated model's distribution, in the same bands.
    pub model_lengths: TripLengths,
    /// The calibrated model's matrix (row-major, the costs' shape).
    pub matrix: Vec<f64>,
    /// Whether the fit met its tolerance.
    pub converged: bool,
}

/// Calibrates the parameter of `form` (β of `Exponential`, α of `Power`; the value given is ignored)
/// so that the doubly constrained gravity model over `costs`, with the observed matrix's row and
/// column totals, reproduces the observed trip-weighted mean cost to `tolerance` (relative): Hyman's
/// method, [`calibrate_to`] with [`Observed::Matrix`] and [`Fit::MeanCost`].
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
    let opts = CalibrateOptions { fit: Fit::MeanCost, tolerance, band_width: None, ipf: *ipf_options };
    calibrate_to(costs, Observed::Matrix(observed), form, &opts)
}

/// Calibrates the parameters of `form` (their values are ignored) to an observed matrix or
/// trip-length distribution, by the mean cost (Hyman) or by least squares on the band shares; the
/// model is the doubly constrained gravity model over `costs` (∞: unreachable).
///
/// ```
/// use urbanflow::tap::matrix::{CalibrateOptions, Constraint, Deterrence, Fit, IpfOptions, Observed, TripLengths, calibrate_to, gravity};
/// let costs: Vec<f64> = (0..36).map(|k| 1.0 + ((k * 7) % 11) as f64).collect();
/// let (rows, cols) = ([90.0, 50.0, 80.0, 30.0, 70.0, 40.0], [60.0, 70.0, 80.0, 50.0, 60.0, 40.0]);
/// let truth = Deterrence::Gamma { alpha: -0.6, beta: 0.2 };
/// let made = gravity(&costs, &rows, &cols, truth, Constraint::Doubly, &IpfOptions::default()).unwrap().matrix;
/// // A survey's distribution in 1-minute bands, with the zones' totals.
/// let lengths = TripLengths::of(&made, &costs, &TripLengths::uniform_bounds(1.0, 12.0).unwrap()).unwrap();
/// let target = Observed::Lengths { lengths: &lengths, productions: &rows, attractions: &cols };
/// let opts = CalibrateOptions { fit: Fit::LeastSquares, tolerance: 1e-10, ..CalibrateOptions::default() };
/// let c = calibrate_to(&costs, target, Deterrence::Gamma { alpha: 0.0, beta: 0.0 }, &opts).unwrap();
/// let Deterrence::Gamma { alpha, beta } = c.deterrence else { unreachable!() };
/// assert!((alpha + 0.6).abs() < 1e-4 && (beta - 0.2).abs() < 1e-4, "{alpha} {beta}");
/// assert!(c.coincidence_ratio > 0.9999);
/// ```
pub fn calibrate_to(
    costs: &[f64],
    observed: Observed<'_>,
    form: Deterrence,
    opts: &CalibrateOptions,
) -> Result<Calibrated, TapError> {
    let (rows, cols, target_mean, target) = match observed {
        Observed::Matrix(m) => {
            let n = (m.len() as f64).sqrt() as usize;
            if n * n != m.len() || costs.len() != m.len() {
                return Err(TapError::InvalidOption(format!(
                    "calibration needs square matrices of one size: {} observed cells, {} costs",
                    m.len(),
                    costs.len()
                )));
            }
            if m.iter().any(|x| !(*x >= 0.0 && x.is_finite())) {
                return Err(TapError::InvalidOption(
                    "the observed matrix holds a value that is not finite and ≥ 0".into(),
                ));
            }
            let (rows, cols, _) = super::ipf::sums(m, n);
            let mean = mean_cost(m, costs);
            if mean.is_nan() || mean <= 0.0 {
                return Err(TapError::InvalidOption(
                    "the observed trips have no positive mean cost to match".into(),
                ));
            }
            let width = opts.band_width.unwrap_or(mean / 10.0);
            if !(width.is_finite() && width > 0.0) {
                return Err(TapError::InvalidOption(format!(
                    "band width {width}: expected a positive width"
                )));
            }
            let max = costs
                .iter()
                .zip(m)
                .filter(|(c, t)| c.is_finite() && **t > 0.0)
                .fold(0.0f64, |a, (c, _)| a.max(*c));
            let bounds = TripLengths::uniform_bounds(width, max)?;
            let lengths = TripLengths::of(m, costs, &bounds).expect("a positive mean cost has trips");
            (rows, cols, mean, lengths)
        }
        Observed::Lengths { lengths, productions, attractions } => {
            if costs.len() != productions.len() * attractions.len() {
                return Err(TapError::InvalidOption(format!(
                    "{} costs for {} × {} zones",
                    costs.len(),
                    productions.len(),
                    attractions.len()
                )));
            }
            (productions.to_vec(), attractions.to_vec(), lengths.mean(), lengths.clone())
        }
    };
    let with = |p: &[f64]| -> Result<Deterrence, TapError> {
        match (&form, p) {
            (Deterrence::Exponential { .. }, [b]) => Ok(Deterrence::Exponential { beta: *b }),
            (Deterrence::Power { .. }, [a]) => Ok(Deterrence::Power { alpha: *a }),
            (Deterrence::Gamma { .. }, [a, b]) => Ok(Deterrence::Gamma { alpha: *a, beta: *b }),
            (Deterrence::Table(_), _) => {
                Err(TapError::InvalidOption("a friction factor table has no parameters to calibrate".into()))
            }
            _ => Err(TapError::InvalidOption(
                "gamma has two parameters: calibrate it by least squares (Fit::LeastSquares, --fit least-squares)".into(),
            )),
        }
    };
    let mut applications = 0u32;
    let mut apply = |d: Deterrence| -> Result<Vec<f64>, TapError> {
        applications += 1;
        Ok(gravity(costs, &rows, &cols, d, Constraint::Doubly, &opts.ipf)?.matrix)
    };
    // Hyman's secant on the mean cost, for the one-parameter forms (and as the least-squares start).
    let one = if matches!(form, Deterrence::Gamma { .. }) {
        Deterrence::Exponential { beta: 0.0 }
    } else {
        form.clone()
    };
    let one_with = |b: f64| match one {
        Deterrence::Power { .. } => Deterrence::Power { alpha: b },
        _ => Deterrence::Exponential { beta: b },
    };
    let mean_tolerance = if opts.fit == Fit::MeanCost { opts.tolerance } else { 1e-6 };
    let mut b_prev = 1.0 / target_mean;
    let mut c_prev = mean_cost(&apply(one_with(b_prev))?, costs);
    let mut b = b_prev * c_prev / target_mean;
    let mut c = mean_cost(&apply(one_with(b))?, costs);
    const MAX_SECANT: u32 = 100;
    let mut steps = 2;
    while (c - target_mean).abs() > mean_tolerance * target_mean && steps < MAX_SECANT && c != c_prev {
        let next = ((target_mean - c_prev) * b - (target_mean - c) * b_prev) / (c - c_prev);
        (b_prev, c_prev) = (b, c);
        b = next;
        c = mean_cost(&apply(one_with(b))?, costs);
        steps += 1;
    }
    let mean_met = (c - target_mean).abs() <= mean_tolerance * target_mean;
    let (params, converged) = match opts.fit {
        Fit::MeanCost => {
            with(&[b])?;
            (vec![b], mean_met)
        }
        Fit::LeastSquares => {
            let start: Vec<f64> =
                if matches!(form, Deterrence::Gamma { .. }) { vec![0.0, b] } else { vec![b] };
            let mut sse = |p: &[f64]| -> Result<f64, TapError> {
                let m = apply(with(p)?)?;
                Ok(TripLengths::of(&m, costs, target.upper())
                    .map_or(f64::INFINITY, |l| l.squared_distance(&target)))
            };
            let (p, done) = nelder_mead(&mut sse, &start, opts.tolerance)?;
            (p, done)
        }
    };
    let deterrence = with(&params)?;
    let model = apply(deterrence.clone())?;
    let model_lengths = TripLengths::of(&model, costs, target.upper())
        .ok_or_else(|| TapError::InvalidOption("the calibrated model has no trips of finite cost".into()))?;
    Ok(Calibrated {
        deterrence,
        observed_mean_cost: target_mean,
        model_mean_cost: mean_cost(&model, costs),
        applications,
        coincidence_ratio: target.coincidence(&model_lengths),
        sum_of_squares: target.squared_distance(&model_lengths),
        observed_lengths: target,
        model_lengths,
        matrix: model,
        converged,
    })
}

/// Nelder–Mead on one or two parameters from `start` (steps of a tenth of each parameter, or 0.1 at
/// 0), until the simplex's parameters agree to `tolerance` (relative) or 500 evaluations; returns the
/// best point and whether it converged.
fn nelder_mead(
    f: &mut dyn FnMut(&[f64]) -> Result<f64, TapError>,
    start: &[f64],
    tolerance: f64,
) -> Result<(Vec<f64>, bool), TapError> {
    let d = start.len();
    let mut simplex: Vec<(Vec<f64>, f64)> = Vec::with_capacity(d + 1);
    simplex.push((start.to_vec(), f(start)?));
    for i in 0..d {
        let mut p = start.to_vec();
        p[i] += if p[i] == 0.0 { 0.1 } else { 0.1 * p[i] };
        let v = f(&p)?;
        simplex.push((p, v));
    }
    let mut evaluations = d + 1;
    const MAX_EVALUATIONS: usize = 500;
    let point = |a: &[f64], b: &[f64], t: f64| -> Vec<f64> {
        a.iter().zip(b).map(|(x, y)| x + t * (y - x)).collect()
    };
    loop {
        simplex.sort_by(|a, b| a.1.total_cmp(&b.1));
        let spread = (0..d).all(|i| {
            let (lo, hi) = simplex
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), (p, _)| (l.min(p[i]), h.max(p[i])));
            hi - lo <= tolerance * simplex[0].0[i].abs().max(1e-12)
        });
        if spread || evaluations >= MAX_EVALUATIONS {
            return Ok((simplex[0].0.clone(), spread));
        }
        let centroid: Vec<f64> =
            (0..d).map(|i| simplex[..d].iter().map(|(p, _)| p[i]).sum::<f64>() / d as f64).collect();
        let worst = simplex[d].clone();
        let reflected = point(&centroid, &worst.0, -1.0);
        let fr = f(&reflected)?;
        evaluations += 1;
        if fr < simplex[0].1 {
            let expanded = point(&centroid, &worst.0, -2.0);
            let fe = f(&expanded)?;
            evaluations += 1;
            simplex[d] = if fe < fr { (expanded, fe) } else { (reflected, fr) };
        } else if fr < simplex[d - 1].1 {
            simplex[d] = (reflected, fr);
        } else {
            let contracted = if fr < worst.1 {
                point(&centroid, &reflected, 0.5)
            } else {
                point(&centroid, &worst.0, 0.5)
            };
            let fc = f(&contracted)?;
            evaluations += 1;
            if fc < worst.1.min(fr) {
                simplex[d] = (contracted, fc);
            } else {
                let best = simplex[0].0.clone();
                for (p, v) in simplex.iter_mut().skip(1) {
                    *p = point(&best, p, 0.5);
                    *v = f(p)?;
                    evaluations += 1;
                }
            }
        }
    }
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
