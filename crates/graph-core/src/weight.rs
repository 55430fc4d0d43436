//! Arc weight types: what a weight may be, how it is parsed from text and checked.

use std::fmt::{Debug, Display};

/// What is wrong with a weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WeightIssue {
    /// Not a number of this weight type at all.
    #[error("not a number")]
    NotANumber,
    /// Negative: shortest-path algorithms here need non-negative weights.
    #[error("negative")]
    Negative,
    /// NaN or infinite.
    #[error("not finite")]
    NotFinite,
    /// Too large for the weight type.
    #[error("out of range for the weight type")]
    OutOfRange,
    /// A fraction where whole numbers are read.
    #[error(
        "a fraction: u32 weights are whole numbers (scale them, e.g. to milliseconds, or read them as f64)"
    )]
    NotWhole,
    /// `u32::MAX − 1` or `u32::MAX`: the values the u32 shortest-path engines keep for "saturated" and
    /// "unreachable".
    #[error(
        "reserved: u32 weights must stay below 4294967294 (u32::MAX − 1 and u32::MAX mark saturated and unreachable distances)"
    )]
    Reserved,
}

/// A non-negative arc weight that uploads to the GPU as is (`bytemuck::Pod`).
///
/// `u32` is the exact mode (bit-identical distances everywhere); `f32` is the GPU real-valued mode
/// (non-negative floats compare like their bit patterns); `f64` exists for CPU-only precision work.
pub trait Weight: bytemuck::Pod + PartialOrd + Debug + Display + Send + Sync + Default + 'static {
    /// Name used in messages ("u32", "f32", ...).
    const NAME: &'static str;
    /// The weight of an arc read from an unweighted format.
    const ONE: Self;
    /// Parses a weight from a text field, rejecting negative, NaN, infinite or out-of-range values.
    fn parse_field(s: &str) -> Result<Self, WeightIssue>;
    /// Checks a weight that did not come from text.
    fn check(self) -> Result<(), WeightIssue>;
    /// Lossy conversion, for statistics and messages.
    fn to_f64(self) -> f64;
    /// Conversion from an integer weight produced by a generator.
    fn from_u32(w: u32) -> Self;
}

impl Weight for u32 {
    const NAME: &'static str = "u32";
    const ONE: Self = 1;
    fn parse_field(s: &str) -> Result<Self, WeightIssue> {
        match s.parse::<u32>() {
            Ok(v) if v >= u32::MAX - 1 => Err(WeightIssue::Reserved),
            Ok(v) => Ok(v),
            Err(_) => match (s.parse::<i128>(), s.parse::<f64>()) {
                (Ok(v), _) if v < 0 => Err(WeightIssue::Negative),
                (Ok(_), _) => Err(WeightIssue::OutOfRange),
                (_, Ok(x)) if x < 0.0 => Err(WeightIssue::Negative),
                (_, Ok(x)) if x.is_finite() && x.fract() != 0.0 => Err(WeightIssue::NotWhole),
                (_, Ok(x)) if !x.is_finite() => Err(WeightIssue::NotFinite),
                _ => Err(WeightIssue::NotANumber),
            },
        }
    }
    fn check(self) -> Result<(), WeightIssue> {
        Ok(())
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_u32(w: u32) -> Self {
        w
    }
}

macro_rules! float_weight {
    ($t:ty, $name:literal) => {
        impl Weight for $t {
            const NAME: &'static str = $name;
            const ONE: Self = 1.0;
            fn parse_field(s: &str) -> Result<Self, WeightIssue> {
                let v: $t = s.parse().map_err(|_| WeightIssue::NotANumber)?;
                v.check()?;
                // -0.0 is stored as +0.0 so that GPU bit-pattern comparisons stay valid.
                Ok(if v == 0.0 { 0.0 } else { v })
            }
            fn check(self) -> Result<(), WeightIssue> {
                if !self.is_finite() {
                    Err(WeightIssue::NotFinite)
                } else if self < 0.0 {
                    Err(WeightIssue::Negative)
                } else {
                    Ok(())
                }
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn from_u32(w: u32) -> Self {
                w as $t
            }
        }
    };
}
float_weight!(f32, "f32");
float_weight!(f64, "f64");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_rejects_bad_values() {
        assert_eq!(u32::parse_field("17"), Ok(17));
        assert_eq!(u32::parse_field("-3"), Err(WeightIssue::Negative));
        assert_eq!(u32::parse_field("4294967296"), Err(WeightIssue::OutOfRange));
        assert_eq!(u32::parse_field("x1"), Err(WeightIssue::NotANumber));
        assert_eq!(u32::parse_field("2.5"), Err(WeightIssue::NotWhole));
        assert_eq!(u32::parse_field("-2.5"), Err(WeightIssue::Negative));
        assert_eq!(u32::parse_field("4294967294"), Err(WeightIssue::Reserved));
        assert_eq!(u32::parse_field("4294967295"), Err(WeightIssue::Reserved));
        assert_eq!(u32::parse_field("4294967293"), Ok(4_294_967_293));
        assert_eq!(f32::parse_field("NaN"), Err(WeightIssue::NotFinite));
        assert_eq!(f32::parse_field("inf"), Err(WeightIssue::NotFinite));
        assert_eq!(f32::parse_field("-0.5"), Err(WeightIssue::Negative));
        assert_eq!(f32::parse_field("-0.0").map(f32::to_bits), Ok(0));
        assert_eq!(f64::parse_field("1e3"), Ok(1000.0));
    }
}
