//! A small, seeded, platform-independent random generator (SplitMix64) for generators and tests.
//!
//! Generators must give the same graph for the same seed on every machine and every release of this
//! library, which a general-purpose RNG crate does not promise across versions.

/// SplitMix64 (Steele, Lea and Flood 2014): 64-bit state, passes BigCrush, trivially seekable.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.state)
    }

    /// A uniform integer in `0..bound` (`bound > 0`), by Lemire's multiply-shift (bias below 2^-32 for
    /// the bounds used here).
    pub fn below(&mut self, bound: u64) -> u64 {
        debug_assert!(bound > 0);
        ((self.next_u64() as u128 * bound as u128) >> 64) as u64
    }

    /// A uniform float in `[0, 1)` with 53 random bits.
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// The SplitMix64 output function: a stateless hash of one `u64`, used where a value must depend only on
/// (seed, index) so that parallel generation is deterministic.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_bounded() {
        let mut a = SplitMix64::new(7);
        let mut b = SplitMix64::new(7);
        for _ in 0..1000 {
            let x = a.below(13);
            assert_eq!(x, b.below(13));
            assert!(x < 13);
            let f = a.unit_f64();
            assert!((0.0..1.0).contains(&f));
            b.unit_f64();
        }
    }
}
