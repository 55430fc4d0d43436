//! Volume-delay functions: link travel time as a function of the link's own flow.
//!
//! Every function gives the time, its derivative and its integral from 0 (the Beckmann objective needs
//! the integral; the line search needs only times; conjugate directions need derivatives). Fixed
//! generalised-cost terms (tolls, distance) are not part of a VDF: the [`Network`](crate::Network) adds
//! them. Implement [`Vdf`] to plug in your own function.
//!
//! ```
//! use urbanflow::tap::vdf::{Bpr, Vdf};
//! let bpr = Bpr::new(vec![10.0], vec![0.15], vec![4.0], vec![1000.0]).unwrap();
//! assert_eq!(bpr.time(0, 0.0), 10.0);
//! assert!((bpr.time(0, 1000.0) - 11.5).abs() < 1e-12);
//! ```

use std::fmt::Debug;

use crate::error::TapError;

/// One parameter column: name, per-link values, the rule each value must pass, what the rule expects.
type Column<'a> = (&'a str, &'a [f64], fn(f64) -> bool, &'a str);

/// Checks per-link parameter vectors: equal lengths, and every value accepted by its rule.
fn check_params(function: &str, columns: &[Column<'_>]) -> Result<(), TapError> {
    let len = columns[0].1.len();
    if let Some((name, values, ..)) = columns.iter().find(|c| c.1.len() != len) {
        return Err(TapError::InvalidOption(format!(
            "{function}: {name} has {} values for {len} links",
            values.len()
        )));
    }
    for (name, values, ok, expected) in columns {
        if let Some((a, v)) = values.iter().enumerate().find(|(_, v)| !ok(**v)) {
            return Err(TapError::InvalidOption(format!(
                "{function}: link {a} has {name} = {v}: expected {expected}"
            )));
        }
    }
    Ok(())
}

fn non_negative(v: f64) -> bool {
    v >= 0.0 && v.is_finite()
}

fn positive(v: f64) -> bool {
    v > 0.0 && v.is_finite()
}

/// A separable link cost function `t_a(x_a)`, indexed by link.
///
/// Implementations must be non-decreasing and continuous in `x ≥ 0` for the user-equilibrium solvers'
/// guarantees to hold.
pub trait Vdf: Send + Sync + Debug {
    /// A short name for reports (`"bpr"`).
    fn name(&self) -> &str;
    /// Number of links the function covers.
    fn len(&self) -> usize;
    /// Whether the function covers no link.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Travel time of `link` at flow `x`.
    fn time(&self, link: usize, x: f64) -> f64;
    /// `d time / dx` of `link` at flow `x`.
    fn derivative(&self, link: usize, x: f64) -> f64;
    /// `∫_0^x time(ω) dω`.
    fn integral(&self, link: usize, x: f64) -> f64;
    /// Travel times of all links at flows `x` into `out` (override for speed). For non-separable
    /// functions these are the true costs: partners' flows are read from `x`.
    fn times(&self, x: &[f64], out: &mut [f64]) {
        for (a, (o, &xa)) in out.iter_mut().zip(x).enumerate() {
            *o = self.time(a, xa);
        }
    }
    /// Whether a link's time depends on its own flow only (then the Beckmann objective exists).
    fn is_separable(&self) -> bool {
        true
    }
    /// Non-separable functions: fix the partners' flows that [`Vdf::time`], [`Vdf::derivative`] and
    /// [`Vdf::integral`] use from now on (diagonalisation). Separable functions ignore it.
    fn freeze_partners(&self, _x: &[f64]) {}
}

/// `x^p` with a fast path for small whole powers (TNTP's are almost all 4).
#[inline]
fn pow(x: f64, p: f64) -> f64 {
    if p == 4.0 {
        let x2 = x * x;
        x2 * x2
    } else if p.fract() == 0.0 && (0.0..=32.0).contains(&p) {
        x.powi(p as i32)
    } else {
        x.powf(p)
    }
}

/// The Bureau of Public Roads function, TNTP's model: `t(x) = t0 (1 + B (x / cap)^p)`.
///
/// `B = 0` means a constant time (`0^0` is never evaluated); `t0 = 0` is allowed (connectors).
#[derive(Debug, Clone, PartialEq)]
pub struct Bpr {
    t0: Vec<f64>,
    b: Vec<f64>,
    power: Vec<f64>,
    capacity: Vec<f64>,
}

impl Bpr {
    /// Per-link free-flow time, B, power (finite, ≥ 0) and capacity (> 0 where `B ≠ 0`).
    pub fn new(t0: Vec<f64>, b: Vec<f64>, power: Vec<f64>, capacity: Vec<f64>) -> Result<Self, TapError> {
        check_params(
            "BPR",
            &[
                ("t0", &t0, non_negative, "a finite number ≥ 0"),
                ("B", &b, non_negative, "a finite number ≥ 0"),
                ("power", &power, non_negative, "a finite number ≥ 0"),
                ("capacity", &capacity, |c| !c.is_nan(), "a number"),
            ],
        )?;
        if let Some(a) = (0..b.len()).find(|&a| b[a] != 0.0 && !positive(capacity[a])) {
            return Err(TapError::InvalidOption(format!(
                "BPR: link {a} has capacity {} with B = {}: expected a finite capacity > 0",
                capacity[a], b[a]
            )));
        }
        Ok(Self { t0, b, power, capacity })
    }
}

impl Vdf for Bpr {
    fn name(&self) -> &str {
        "bpr"
    }
    fn len(&self) -> usize {
        self.t0.len()
    }
    #[inline]
    fn time(&self, a: usize, x: f64) -> f64 {
        let b = self.b[a];
        if b == 0.0 {
            return self.t0[a];
        }
        self.t0[a] * (1.0 + b * pow(x / self.capacity[a], self.power[a]))
    }
    fn derivative(&self, a: usize, x: f64) -> f64 {
        let (b, p) = (self.b[a], self.power[a]);
        if b == 0.0 || p == 0.0 {
            return 0.0;
        }
        let cap = self.capacity[a];
        // For p < 1 the derivative is infinite at 0; evaluate just above it.
        let r = (x / cap).max(if p < 1.0 { 1e-12 } else { 0.0 });
        self.t0[a] * b * p * pow(r, p - 1.0) / cap
    }
    fn integral(&self, a: usize, x: f64) -> f64 {
        let (b, p, cap) = (self.b[a], self.power[a], self.capacity[a]);
        if b == 0.0 {
            return self.t0[a] * x;
        }
        self.t0[a] * (x + b * cap / (p + 1.0) * pow(x / cap, p + 1.0))
    }
    fn times(&self, x: &[f64], out: &mut [f64]) {
        for a in 0..out.len() {
            out[a] = self.time(a, x[a]);
        }
    }
}

/// Spiess's conical function (1990): with `r = x / cap`, `u = α (1 − r)`, `β = (2α − 1) / (2α − 2)`,
/// `t(x) = t0 (2 + sqrt(u² + β²) − u − β)`; `t(0) = t0`, `t(cap) = 2 t0`. Needs `α > 1`.
#[derive(Debug, Clone, PartialEq)]
pub struct Conical {
    t0: Vec<f64>,
    alpha: Vec<f64>,
    capacity: Vec<f64>,
}

impl Conical {
    /// Per-link free-flow time (≥ 0), α (> 1) and capacity (> 0).
    pub fn new(t0: Vec<f64>, alpha: Vec<f64>, capacity: Vec<f64>) -> Result<Self, TapError> {
        check_params(
            "conical",
            &[
                ("t0", &t0, non_negative, "a finite number ≥ 0"),
                ("alpha", &alpha, |a| a > 1.0 && a.is_finite(), "a finite number > 1"),
                ("capacity", &capacity, positive, "a finite number > 0"),
            ],
        )?;
        Ok(Self { t0, alpha, capacity })
    }

    fn beta(alpha: f64) -> f64 {
        (2.0 * alpha - 1.0) / (2.0 * alpha - 2.0)
    }
}

/// `∫ sqrt(u² + c) du = (u/2) sqrt(u² + c) + (c/2) ln|u + sqrt(u² + c)|` (c may be negative where
/// `u² + c ≥ 0`; c = 0 drops the log term).
fn sqrt_quadratic_antiderivative(u: f64, c: f64) -> f64 {
    let s = (u * u + c).max(0.0).sqrt();
    let log = if c == 0.0 { 0.0 } else { 0.5 * c * (u + s).abs().ln() };
    0.5 * u * s + log
}

impl Vdf for Conical {
    fn name(&self) -> &str {
        "conical"
    }
    fn len(&self) -> usize {
        self.t0.len()
    }
    fn time(&self, a: usize, x: f64) -> f64 {
        let (al, cap) = (self.alpha[a], self.capacity[a]);
        let be = Self::beta(al);
        let u = al * (1.0 - x / cap);
        self.t0[a] * (2.0 + (u * u + be * be).sqrt() - u - be)
    }
    fn derivative(&self, a: usize, x: f64) -> f64 {
        let (al, cap) = (self.alpha[a], self.capacity[a]);
        let be = Self::beta(al);
        let u = al * (1.0 - x / cap);
        self.t0[a] * (al / cap - al * u / (cap * (u * u + be * be).sqrt()))
    }
    fn integral(&self, a: usize, x: f64) -> f64 {
        // Substitute u = α (1 − ω/cap): ∫_0^X sqrt(u² + β²) dω = (cap/α) (G(α) − G(α (1 − X/cap))).
        let (al, cap) = (self.alpha[a], self.capacity[a]);
        let be = Self::beta(al);
        let g = |u: f64| sqrt_quadratic_antiderivative(u, be * be);
        let root = cap / al * (g(al) - g(al * (1.0 - x / cap)));
        self.t0[a] * ((2.0 - be) * x - al * (x - x * x / (2.0 * cap)) + root)
    }
}

/// Akçelik's function (1991) as used by planning packages: with `r = x / cap`, period length `T` (in the
/// time unit of `t0`) and delay parameter `J`,
/// `t(x) = t0 + (T/4) [ (r − 1) + sqrt((r − 1)² + 8 J r / (cap T)) ]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Akcelik {
    t0: Vec<f64>,
    j: Vec<f64>,
    capacity: Vec<f64>,
    period: f64,
}

impl Akcelik {
    /// Per-link free-flow time (≥ 0), delay parameter J (≥ 0) and capacity (> 0); the modelled period
    /// length (> 0).
    pub fn new(t0: Vec<f64>, j: Vec<f64>, capacity: Vec<f64>, period: f64) -> Result<Self, TapError> {
        check_params(
            "Akcelik",
            &[
                ("t0", &t0, non_negative, "a finite number ≥ 0"),
                ("J", &j, non_negative, "a finite number ≥ 0"),
                ("capacity", &capacity, positive, "a finite number > 0"),
            ],
        )?;
        if !positive(period) {
            return Err(TapError::InvalidOption(format!(
                "Akcelik: period {period}: expected a finite number > 0"
            )));
        }
        Ok(Self { t0, j, capacity, period })
    }

    /// `k` of `(r − 1)² + k r`.
    fn k(&self, a: usize) -> f64 {
        8.0 * self.j[a] / (self.capacity[a] * self.period)
    }
}

impl Vdf for Akcelik {
    fn name(&self) -> &str {
        "akcelik"
    }
    fn len(&self) -> usize {
        self.t0.len()
    }
    fn time(&self, a: usize, x: f64) -> f64 {
        let r = x / self.capacity[a];
        let k = self.k(a);
        self.t0[a] + 0.25 * self.period * ((r - 1.0) + ((r - 1.0) * (r - 1.0) + k * r).sqrt())
    }
    fn derivative(&self, a: usize, x: f64) -> f64 {
        let cap = self.capacity[a];
        let r = x / cap;
        let k = self.k(a);
        let s = ((r - 1.0) * (r - 1.0) + k * r).sqrt();
        let ds = if s > 0.0 { (2.0 * (r - 1.0) + k) / (2.0 * s) } else { 1.0 };
        0.25 * self.period * (1.0 + ds) / cap
    }
    fn integral(&self, a: usize, x: f64) -> f64 {
        // (r − 1)² + k r = (r + (k − 2)/2)² + c with c = k − k²/4.
        let cap = self.capacity[a];
        let k = self.k(a);
        let shift = 0.5 * (k - 2.0);
        let c = k - 0.25 * k * k;
        let r = x / cap;
        let root = sqrt_quadratic_antiderivative(r + shift, c) - sqrt_quadratic_antiderivative(shift, c);
        self.t0[a] * x + 0.25 * self.period * cap * (0.5 * r * r - r + root)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Composite 5-point Gauss–Legendre quadrature (exact to ~1e-15 on these smooth functions).
    fn quad(f: &dyn Fn(f64) -> f64, a: f64, b: f64) -> f64 {
        const NODES: [f64; 5] = [
            0.0,
            -0.538_469_310_105_683,
            0.538_469_310_105_683,
            -0.906_179_845_938_664,
            0.906_179_845_938_664,
        ];
        const WEIGHTS: [f64; 5] = [
            0.568_888_888_888_889,
            0.478_628_670_499_366,
            0.478_628_670_499_366,
            0.236_926_885_056_189,
            0.236_926_885_056_189,
        ];
        let panels = 400;
        let h = (b - a) / panels as f64;
        (0..panels)
            .map(|p| {
                let mid = a + (p as f64 + 0.5) * h;
                NODES.iter().zip(WEIGHTS).map(|(x, w)| w * f(mid + 0.5 * h * x)).sum::<f64>() * 0.5 * h
            })
            .sum()
    }

    fn check(vdf: &dyn Vdf, xs: &[f64]) {
        for a in 0..vdf.len() {
            for &x in xs {
                let integral = vdf.integral(a, x);
                let numeric = quad(&|w| vdf.time(a, w), 0.0, x);
                assert!(
                    (integral - numeric).abs() <= 1e-10 * numeric.abs().max(1.0),
                    "{} link {a} x {x}: integral {integral} vs quadrature {numeric}",
                    vdf.name()
                );
                let h = 1e-5 * x.max(1.0);
                let central = (vdf.time(a, x + h) - vdf.time(a, x - h)) / (2.0 * h);
                let d = vdf.derivative(a, x);
                assert!(
                    // Central differences lose about eps · time / h to cancellation.
                    (d - central).abs() <= 1e-6 * central.abs() + 1e-12 * vdf.time(a, x).abs() / h,
                    "{} link {a} x {x}: derivative {d} vs central difference {central}",
                    vdf.name()
                );
            }
        }
    }

    #[test]
    fn bpr_matches_formula_integral_and_derivative() {
        let bpr = Bpr::new(
            vec![6.0, 0.0, 3.0, 2.0],
            vec![0.15, 0.15, 0.0, 2.5],
            vec![4.0, 4.0, 0.0, 1.5],
            vec![25900.0, 100.0, 1.0, 700.0],
        )
        .unwrap();
        assert_eq!(bpr.time(2, 5.0), 3.0);
        let x: f64 = 31000.0;
        assert!((bpr.time(0, x) - 6.0 * (1.0 + 0.15 * (x / 25900.0).powf(4.0))).abs() < 1e-12);
        check(&bpr, &[100.0, 4000.0, 30000.0]);
    }

    #[test]
    fn conical_endpoints_integral_and_derivative() {
        let c = Conical::new(vec![1.0, 2.5, 0.7], vec![9.0, 4.5, 2.0], vec![1000.0, 500.0, 80.0]).unwrap();
        for a in 0..3 {
            let t0 = [1.0, 2.5, 0.7][a];
            assert!((c.time(a, 0.0) - t0).abs() < 1e-12);
            assert!((c.time(a, [1000.0, 500.0, 80.0][a]) - 2.0 * t0).abs() < 1e-12);
        }
        check(&c, &[10.0, 400.0, 1500.0]);
    }

    #[test]
    fn akcelik_integral_and_derivative() {
        let ak = Akcelik::new(vec![1.0, 0.5], vec![0.1, 2.0], vec![1800.0, 600.0], 60.0).unwrap();
        assert!((ak.time(0, 0.0) - 1.0).abs() < 1e-12);
        check(&ak, &[50.0, 900.0, 2500.0]);
    }

    #[test]
    fn bad_parameters_are_errors_not_nan_costs() {
        let err = Conical::new(vec![1.0], vec![1.0], vec![100.0]).unwrap_err();
        assert!(err.to_string().contains("alpha = 1"), "{err}");
        assert!(Conical::new(vec![1.0], vec![4.0], vec![0.0]).is_err());
        assert!(Akcelik::new(vec![1.0], vec![0.1], vec![100.0], 0.0).is_err());
        assert!(Bpr::new(vec![1.0], vec![0.15], vec![4.0], vec![0.0]).is_err());
        assert!(Bpr::new(vec![1.0], vec![0.0], vec![0.0], vec![0.0]).is_ok());
        assert!(
            Bpr::new(vec![1.0, 2.0], vec![0.15], vec![4.0], vec![1.0])
                .unwrap_err()
                .to_string()
                .contains("1 values for 2")
        );
    }
}
