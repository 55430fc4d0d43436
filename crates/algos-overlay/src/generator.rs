//! The seeded instance generator of spec overlay.md §6 (the seed's `grafo` instances are not
//! available and their generator is undocumented; this one is published here and fixed forever).
//!
//! Complete candidate graph on `n` peers with ids `0..n`; per peer, in index order, from one
//! [`SplitMix64`] stream seeded with `seed`: first `p_i` uniform in `[0.05, 1]` (family a) or
//! `[0.01, 0.3]` (family b), then `b_i` drawn from {56, 128, 256, 512, 1024, 2048} kbps. Edges:
//! `p_ij = p_i p_j`, `u_ij = min(256, b_i, b_j)`, `l_ij = l` (14 or 128 in the seed); pairs with
//! `u_ij < l` cannot meet the QoS bound and are left out (see [`MopInstance::complete`]).

use std::fmt;
use std::str::FromStr;

use graph_core::rng::SplitMix64;

use crate::instance::MopInstance;

/// The two instance families of the seed (b has about 10× smaller values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `p_i ∈ U[0.05, 1]`.
    A,
    /// `p_i ∈ U[0.01, 0.3]`.
    B,
}

impl Family {
    /// The range of on-line probabilities.
    pub fn probability_range(self) -> (f64, f64) {
        match self {
            Family::A => (0.05, 1.0),
            Family::B => (0.01, 0.3),
        }
    }
}

impl FromStr for Family {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "a" => Ok(Family::A),
            "b" => Ok(Family::B),
            other => Err(format!("unknown family `{other}`: expected a or b")),
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Family::A => "a",
            Family::B => "b",
        })
    }
}

/// Bandwidth capacities a peer may have (kbps).
pub const CAPACITIES: [f64; 6] = [56.0, 128.0, 256.0, 512.0, 1024.0, 2048.0];

/// The congestion bound on every connection (kbps).
pub const U_MAX: f64 = 256.0;

/// A generated instance (see the module docs).
///
/// ```
/// use urbanflow::overlay::generator::{Family, generate};
/// let inst = generate(100, Family::A, 14.0, 1);
/// assert_eq!(inst.edges().len(), 100 * 99 / 2); // l = 14: every pair qualifies
/// assert_eq!(generate(100, Family::A, 14.0, 1).p(), inst.p()); // same seed, same instance
/// ```
pub fn generate(n: usize, family: Family, lower: f64, seed: u64) -> MopInstance {
    let mut rng = SplitMix64::new(seed);
    let (lo, hi) = family.probability_range();
    let mut p = Vec::with_capacity(n);
    let mut b = Vec::with_capacity(n);
    for _ in 0..n {
        p.push(lo + (hi - lo) * rng.unit_f64());
        b.push(CAPACITIES[rng.below(CAPACITIES.len() as u64) as usize]);
    }
    MopInstance::complete((0..n as u64).collect(), p, b, U_MAX, lower)
        .expect("generated values are in range by construction")
}

/// A generator specification `n=1000,family=a,l=14,seed=1` (keys in any order; `family`, `l` and
/// `seed` default to a, 14 and 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spec {
    /// Peers.
    pub n: usize,
    /// Family.
    pub family: Family,
    /// QoS lower bound.
    pub lower: f64,
    /// Seed.
    pub seed: u64,
}

impl Spec {
    /// The instance.
    pub fn generate(&self) -> MopInstance {
        generate(self.n, self.family, self.lower, self.seed)
    }

    /// The seed's naming, `grafo{n}{family}-{l}`, with the seed appended.
    pub fn name(&self) -> String {
        format!("grafo{}{}-{}#{}", self.n, self.family, self.lower, self.seed)
    }
}

impl FromStr for Spec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let mut spec = Spec { n: 0, family: Family::A, lower: 14.0, seed: 1 };
        let mut have_n = false;
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| format!("`{part}`: expected key=value"))?;
            let bad = |what: &str| format!("`{part}`: {what}");
            match k.trim() {
                "n" => {
                    spec.n = v.trim().parse().map_err(|_| bad("n is a count of peers"))?;
                    have_n = true;
                }
                "family" => spec.family = v.parse()?,
                "l" => {
                    spec.lower = v.trim().parse().map_err(|_| bad("l is a bandwidth"))?;
                    if !(spec.lower.is_finite() && (0.0..=U_MAX).contains(&spec.lower)) {
                        return Err(bad("l must lie in [0, 256]"));
                    }
                }
                "seed" => spec.seed = v.trim().parse().map_err(|_| bad("seed is an unsigned integer"))?,
                other => return Err(format!("unknown key `{other}`: expected n, family, l or seed")),
            }
        }
        if !have_n || spec.n < 2 {
            return Err("n=N with N ≥ 2 peers is required".into());
        }
        Ok(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_and_bounds() {
        let a = generate(200, Family::A, 14.0, 3);
        let b = generate(200, Family::B, 128.0, 3);
        assert!(a.p().iter().all(|&p| (0.05..=1.0).contains(&p)));
        assert!(b.p().iter().all(|&p| (0.01..=0.3).contains(&p)));
        assert!(a.b().iter().all(|c| CAPACITIES.contains(c)));
        assert!(b.edges().len() < 200 * 199 / 2, "56 kbps peers cannot meet l = 128");
        for e in b.edges() {
            assert_eq!(e.upper, U_MAX.min(b.b()[e.i as usize]).min(b.b()[e.j as usize]));
            assert_eq!(e.lower, 128.0);
        }
        // Regression: the generator is fixed forever.
        assert_eq!(a.p()[0].to_bits(), generate(1, Family::A, 14.0, 3).p()[0].to_bits());
    }

    #[test]
    fn specs_parse() {
        let s: Spec = "n=1000,family=b,l=128,seed=4".parse().unwrap();
        assert_eq!(s, Spec { n: 1000, family: Family::B, lower: 128.0, seed: 4 });
        let s: Spec = "n=50".parse().unwrap();
        assert_eq!((s.family, s.lower, s.seed), (Family::A, 14.0, 1));
        assert!("family=a".parse::<Spec>().is_err());
        assert!("n=10,x=1".parse::<Spec>().is_err());
        assert!("n=10,l=-3".parse::<Spec>().is_err());
    }
}
