//! The gravity model of trip distribution: trips between zones in proportion to their productions,
//! attractions and a deterrence of the cost between them.

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;

use rayon::prelude::*;

use super::ipf::{Balanced, IpfOptions, ipf_owned, residuals};
use crate::error::TapError;

/// How trips fall off with cost `c`. AequilibraE's forms and parameter names: `Power` is `c^−α`,
/// `Exponential` `e^−βc`, `Gamma` `c^α e^−βc` (AequilibraE's gamma: with α < 0 it is the textbook
/// `c^−|α| e^−βc`); `Table` is a user's friction factors by cost band. A cell whose deterrence is not
/// finite (`Power` or `Gamma` at cost 0, an infinite cost) gets none: no trips.
#[derive(Debug, Clone, PartialEq)]
pub enum Deterrence {
    /// `c^−α`.
    Power {
        /// The exponent α.
        alpha: f64,
    },
    /// `e^−βc`.
    Exponential {
        /// The rate β.
        beta: f64,
    },
    /// `c^α e^−βc`.
    Gamma {
        /// The exponent α.
        alpha: f64,
        /// The rate β.
        beta: f64,
    },
    /// Friction factors by cost band: `(upper, factor)` pairs with ascending upper bounds; a cost `c`
    /// takes the factor of the first band with `c < upper`, and costs past the last bound take the
    /// last factor (TransCAD's and Cube's friction factor tables; build it with
    /// [`Deterrence::table`] or [`Deterrence::read_table`]).
    Table(Arc<[(f64, f64)]>),
}

impl Deterrence {
    /// The deterrence of cost `c` (0 where not finite).
    ///
    /// ```
    /// use urbanflow::tap::matrix::Deterrence;
    /// assert_eq!(Deterrence::Power { alpha: 2.0 }.of(4.0), 1.0 / 16.0);
    /// assert_eq!(Deterrence::Power { alpha: 2.0 }.of(0.0), 0.0); // infinite: no trips
    /// let g: Deterrence = "gamma:0.5,0.1".parse().unwrap();
    /// assert!((g.of(4.0) - 2.0 * (-0.4f64).exp()).abs() < 1e-15);
    /// ```
    pub fn of(&self, c: f64) -> f64 {
        let f = match self {
            Self::Power { alpha } => c.powf(-alpha),
            Self::Exponential { beta } => (-beta * c).exp(),
            Self::Gamma { alpha, beta } => c.powf(*alpha) * (-beta * c).exp(),
            Self::Table(bands) => {
                if !c.is_finite() {
                    return 0.0;
                }
                let k = bands.partition_point(|&(upper, _)| upper <= c);
                bands[k.min(bands.len() - 1)].1
            }
        };
        if f.is_finite() { f } else { 0.0 }
    }

    /// The form named `expo` (or `exponential`), `power` or `gamma`, its parameters 0: what
    /// [`calibrate_to`](crate::matrix::calibrate_to) fits.
    ///
    /// ```
    /// use urbanflow::tap::matrix::Deterrence;
    /// assert_eq!(Deterrence::form("gamma").unwrap(), Deterrence::Gamma { alpha: 0.0, beta: 0.0 });
    /// assert!(Deterrence::form("normal").is_err());
    /// ```
    pub fn form(name: &str) -> Result<Self, TapError> {
        match name.trim().to_ascii_lowercase().as_str() {
            "expo" | "exponential" => Ok(Self::Exponential { beta: 0.0 }),
            "power" => Ok(Self::Power { alpha: 0.0 }),
            "gamma" => Ok(Self::Gamma { alpha: 0.0, beta: 0.0 }),
            _ => Err(TapError::InvalidOption(format!("form `{name}`: expected expo, power or gamma"))),
        }
    }

    /// A friction factor table from `(upper, factor)` bands: upper bounds finite, positive and
    /// ascending, factors finite and ≥ 0, at least one band.
    ///
    /// ```
    /// use urbanflow::tap::matrix::Deterrence;
    /// let d = Deterrence::table(vec![(10.0, 1.0), (20.0, 0.5), (30.0, 0.1)]).unwrap();
    /// assert_eq!((d.of(0.0), d.of(10.0), d.of(25.0), d.of(99.0)), (1.0, 0.5, 0.1, 0.1));
    /// assert!(Deterrence::table(vec![(20.0, 1.0), (10.0, 0.5)]).is_err());
    /// ```
    pub fn table(bands: Vec<(f64, f64)>) -> Result<Self, TapError> {
        check_bands(&bands)
            .map_err(|(k, m)| TapError::InvalidOption(format!("friction factor band {}: {m}", k + 1)))?;
        Ok(Self::Table(bands.into()))
    }

    /// Reads a friction factor table: CSV with a header `upper,factor` (a band per row, ascending
    /// upper cost bounds); errors name the file and line.
    pub fn read_table(path: impl AsRef<Path>) -> Result<Self, TapError> {
        let path = path.as_ref();
        let rows = super::read_pairs(
            path,
            [&["upper", "to", "max"], &["factor", "value", "friction"]],
            "upper,factor",
        )?;
        let bands: Vec<(f64, f64)> = rows.iter().map(|&(_, u, f)| (u, f)).collect();
        check_bands(&bands).map_err(|(k, message)| TapError::TableFile {
            path: path.to_path_buf(),
            line: rows.get(k).map_or(1, |r| r.0),
            message,
        })?;
        Ok(Self::Table(bands.into()))
    }
}

/// The first band (index) of a friction factor table that breaks its rules, and why.
fn check_bands(bands: &[(f64, f64)]) -> Result<(), (usize, String)> {
    let (upper, factors): (Vec<f64>, Vec<f64>) = bands.iter().copied().unzip();
    super::check_bands(&upper, &factors, "factor")
}

impl FromStr for Deterrence {
    type Err = String;
    /// `power:α`, `expo:β` (or `exponential:β`), `gamma:α,β`.
    fn from_str(s: &str) -> Result<Self, String> {
        let expected = "expected power:α, expo:β or gamma:α,β";
        let (kind, params) = s.split_once(':').ok_or_else(|| format!("deterrence `{s}`: {expected}"))?;
        let numbers: Vec<f64> = params
            .split(',')
            .map(|p| p.trim().parse::<f64>().ok().filter(|x| x.is_finite()))
            .collect::<Option<_>>()
            .ok_or_else(|| format!("deterrence `{s}`: parameters must be finite numbers ({expected})"))?;
        match (kind.trim().to_ascii_lowercase().as_str(), numbers.as_slice()) {
            ("power", [alpha]) => Ok(Self::Power { alpha: *alpha }),
            ("expo" | "exponential", [beta]) => Ok(Self::Exponential { beta: *beta }),
            ("gamma", [alpha, beta]) => Ok(Self::Gamma { alpha: *alpha, beta: *beta }),
            _ => Err(format!("deterrence `{s}`: {expected}")),
        }
    }
}

impl fmt::Display for Deterrence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Power { alpha } => write!(f, "power:{alpha}"),
            Self::Exponential { beta } => write!(f, "expo:{beta}"),
            Self::Gamma { alpha, beta } => write!(f, "gamma:{alpha},{beta}"),
            Self::Table(bands) => write!(f, "table:{} bands", bands.len()),
        }
    }
}

/// Which totals the trips must meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Constraint {
    /// Rows meet the productions and columns the attractions (balanced by IPF): AequilibraE's
    /// `GravityApplication`.
    #[default]
    Doubly,
    /// Rows meet the productions; attractions only weigh the destinations:
    /// `T_ij = P_i A_j f(c_ij) / Σ_k A_k f(c_ik)`.
    Production,
}

/// Trips from `productions` (rows) to `attractions` (columns) by a gravity model over `costs` (row-major,
/// zones × zones, ∞ where unreachable): `P_i A_j f(c_ij)` scaled to the productions' total, then
/// balanced to both totals by [`ipf`](crate::matrix::ipf) (`Doubly`, AequilibraE's `GravityApplication`), or normalised per
/// row (`Production`). For `Doubly` the totals must agree as [`IpfOptions::scale_columns`] says.
///
/// ```
/// use urbanflow::tap::matrix::{Constraint, Deterrence, IpfOptions, gravity};
/// let costs = [1.0, 2.0, 2.0, 1.0];
/// let b = gravity(&costs, &[100.0, 50.0], &[75.0, 75.0], Deterrence::Power { alpha: 2.0 },
///                 Constraint::Doubly, &IpfOptions::default()).unwrap();
/// let m = &b.matrix;
/// assert!((m[0] + m[1] - 100.0).abs() < 1e-9 && (m[0] + m[2] - 75.0).abs() < 1e-9);
/// assert!(m[0] > m[1]); // the near zone draws more
/// ```
pub fn gravity(
    costs: &[f64],
    productions: &[f64],
    attractions: &[f64],
    deterrence: Deterrence,
    constraint: Constraint,
    opts: &IpfOptions,
) -> Result<Balanced, TapError> {
    gravity_with_k_factors(costs, None, productions, attractions, &deterrence, constraint, opts)
}

/// [`gravity`] with K-factors: the seed's cells are `K_ij P_i A_j f(c_ij)`, so that a cell's trips
/// move by its factor before balancing (the adjustment for pairs the deterrence alone misjudges:
/// a river, a border). `k_factors` is row-major like `costs`, finite and ≥ 0; `None` is all ones.
///
/// ```
/// use urbanflow::tap::matrix::{Constraint, Deterrence, IpfOptions, gravity_with_k_factors};
/// let costs = [1.0, 2.0, 2.0, 1.0];
/// let expo = Deterrence::Exponential { beta: 0.5 };
/// let ipf = IpfOptions::default();
/// let plain = gravity_with_k_factors(&costs, None, &[100.0, 50.0], &[75.0, 75.0], &expo, Constraint::Production, &ipf).unwrap();
/// let k = [1.0, 0.5, 1.0, 1.0]; // half as many trips from zone 0 to zone 1, before the row is scaled
/// let with_k = gravity_with_k_factors(&costs, Some(&k), &[100.0, 50.0], &[75.0, 75.0], &expo, Constraint::Production, &ipf).unwrap();
/// assert!(with_k.matrix[1] < plain.matrix[1]);
/// assert!((with_k.matrix[0] + with_k.matrix[1] - 100.0).abs() < 1e-9);
/// ```
pub fn gravity_with_k_factors(
    costs: &[f64],
    k_factors: Option<&[f64]>,
    productions: &[f64],
    attractions: &[f64],
    deterrence: &Deterrence,
    constraint: Constraint,
    opts: &IpfOptions,
) -> Result<Balanced, TapError> {
    let (n, m) = (productions.len(), attractions.len());
    if costs.len() != n * m {
        return Err(TapError::InvalidOption(format!("{} costs for {n} × {m} zones", costs.len())));
    }
    if let Some(k) = costs.iter().position(|c| c.is_nan() || *c < 0.0) {
        let (i, j) = (k / m.max(1), k % m.max(1));
        return Err(TapError::InvalidOption(format!("cost ({i}, {j}) is {}: expected ≥ 0 (or ∞)", costs[k])));
    }
    if let Some(kf) = k_factors {
        if kf.len() != n * m {
            return Err(TapError::InvalidOption(format!("{} K-factors for {n} × {m} zones", kf.len())));
        }
        if let Some(k) = kf.iter().position(|x| !(x.is_finite() && *x >= 0.0)) {
            let (i, j) = (k / m.max(1), k % m.max(1));
            return Err(TapError::InvalidOption(format!(
                "K-factor ({i}, {j}) is {}: expected finite and ≥ 0",
                kf[k]
            )));
        }
    }
    let mut seed: Vec<f64> = costs
        .par_chunks(m.max(1))
        .zip(productions)
        .flat_map_iter(|(row, &p)| row.iter().zip(attractions).map(move |(&c, &a)| p * a * deterrence.of(c)))
        .collect();
    if let Some(kf) = k_factors {
        seed.par_iter_mut().zip(kf).for_each(|(t, k)| *t *= k);
    }
    match constraint {
        Constraint::Doubly => {
            let (total, sum): (f64, f64) = (productions.iter().sum(), seed.iter().sum());
            if sum > 0.0 {
                seed.iter_mut().for_each(|t| *t *= total / sum);
            }
            ipf_owned(seed, productions, attractions, opts)
        }
        Constraint::Production => {
            for (i, row) in seed.chunks_mut(m.max(1)).enumerate() {
                let sum: f64 = row.iter().sum();
                if productions[i] > 0.0 && sum == 0.0 {
                    return Err(TapError::InvalidOption(format!(
                        "row {i} produces {} trips but no destination attracts any at a finite deterrence",
                        productions[i]
                    )));
                }
                if sum > 0.0 {
                    row.iter_mut().for_each(|t| *t *= productions[i] / sum);
                }
            }
            let (row_residual, column_residual) = residuals(&seed, productions, attractions);
            Ok(Balanced {
                matrix: seed,
                iterations: 0,
                gap: 0.0,
                converged: true,
                row_residual,
                column_residual,
            })
        }
    }
}
