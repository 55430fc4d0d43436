//! How an opportunity's weight counts at a distance: the decay functions of accessibility measures.

use std::fmt;
use std::str::FromStr;

use crate::error::AccessError;

/// The factor an opportunity's weight is multiplied by at distance `d` within cutoff `c` (both in the
/// graph's weight units). Every factor lies in [0, 1] (what keeps sums within the fixed-point range
/// of [`crate::Accessibility`]).
///
/// | decay | factor | as in |
/// |---|---|---|
/// | `flat` | 1 | pandana `flat`: cumulative opportunities |
/// | `linear` | 1 − d / c | pandana `linear` |
/// | `exp:β` | e^(−β d) | cityseer's gravity (β per unit of distance) |
/// | `power:β` | min(1, d^(−β)) | gravity models with a power deterrence; 1 within one unit |
/// | `harmonic` | 1 / d, and 0 at d = 0 | harmonic closeness (networkx skips pairs at distance 0) |
///
/// ```
/// use urbanflow::access::Decay;
/// let d: Decay = "exp:0.01".parse().unwrap();
/// assert!((d.factor(100, 500) - (-1.0f64).exp()).abs() < 1e-15);
/// assert_eq!("linear".parse::<Decay>().unwrap().factor(250, 1000), 0.75);
/// assert_eq!(Decay::Harmonic.factor(0, 10), 0.0);
/// assert!("exp:-1".parse::<Decay>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Decay {
    /// Every opportunity within the cutoff counts fully.
    #[default]
    Flat,
    /// 1 − d / cutoff: full at the source, nothing at the cutoff.
    Linear,
    /// e^(−β d), β ≥ 0 per unit of distance.
    Exp(f64),
    /// min(1, d^(−β)), β ≥ 0.
    Power(f64),
    /// 1 / d, 0 at d = 0.
    Harmonic,
}

impl Decay {
    /// The factor at distance `d` within `cutoff` (`d ≤ cutoff`), in f64 (the CPU engines).
    pub fn factor(self, d: u32, cutoff: u32) -> f64 {
        let d = d as f64;
        match self {
            Decay::Flat => 1.0,
            Decay::Linear => {
                if cutoff == 0 {
                    1.0
                } else {
                    1.0 - d / cutoff as f64
                }
            }
            Decay::Exp(beta) => (-beta * d).exp(),
            Decay::Power(beta) => {
                if d <= 1.0 {
                    1.0
                } else {
                    d.powf(-beta)
                }
            }
            Decay::Harmonic => {
                if d == 0.0 {
                    0.0
                } else {
                    1.0 / d
                }
            }
        }
    }

    /// The kernel's code for this decay and its parameter (`shaders/access_reduce.wgsl`).
    pub(crate) fn code(self) -> (u32, f32) {
        match self {
            Decay::Flat => (0, 0.0),
            Decay::Linear => (1, 0.0),
            Decay::Exp(b) => (2, b as f32),
            Decay::Power(b) => (3, b as f32),
            Decay::Harmonic => (4, 0.0),
        }
    }
}

impl fmt::Display for Decay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decay::Flat => write!(f, "flat"),
            Decay::Linear => write!(f, "linear"),
            Decay::Exp(b) => write!(f, "exp:{b}"),
            Decay::Power(b) => write!(f, "power:{b}"),
            Decay::Harmonic => write!(f, "harmonic"),
        }
    }
}

impl FromStr for Decay {
    type Err = AccessError;

    /// `flat`, `linear`, `exp:β`, `power:β` or `harmonic` (β a finite number ≥ 0).
    fn from_str(s: &str) -> Result<Self, AccessError> {
        let s = s.trim().to_ascii_lowercase();
        let (name, param) = match s.split_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (s.as_str(), None),
        };
        let beta = |p: Option<&str>| -> Result<f64, AccessError> {
            let p = p.ok_or_else(|| {
                AccessError::InvalidParameter(format!("decay `{s}`: expected `{name}:β` with β ≥ 0"))
            })?;
            match p.trim().parse::<f64>() {
                Ok(b) if b.is_finite() && b >= 0.0 => Ok(b),
                _ => Err(AccessError::InvalidParameter(format!(
                    "decay `{s}`: β = `{p}` is not a finite number ≥ 0"
                ))),
            }
        };
        let no_param = |d: Decay| match param {
            None => Ok(d),
            Some(_) => {
                Err(AccessError::InvalidParameter(format!("decay `{s}`: `{name}` takes no parameter")))
            }
        };
        match name {
            "flat" => no_param(Decay::Flat),
            "linear" => no_param(Decay::Linear),
            "harmonic" => no_param(Decay::Harmonic),
            "exp" | "exponential" => Ok(Decay::Exp(beta(param)?)),
            "power" => Ok(Decay::Power(beta(param)?)),
            _ => Err(AccessError::InvalidParameter(format!(
                "decay `{s}`: expected flat, linear, exp:β, power:β or harmonic"
            ))),
        }
    }
}
