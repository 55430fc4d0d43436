//! The two precisions DIST runs in: `f64` on the CPU, `f32` on the GPU and in its CPU mirror.

use std::ops::{Add, AddAssign, Mul, Sub};

/// A floating-point type the DIST node loop is generic over.
pub trait Real:
    Copy
    + Send
    + Sync
    + PartialOrd
    + Add<Output = Self>
    + AddAssign
    + Sub<Output = Self>
    + Mul<Output = Self>
    + 'static
{
    /// 0.
    const ZERO: Self;
    /// The initial "best" value (larger than any finite one).
    const INFINITY: Self;
    /// Rounds from `f64`.
    fn from_f64(x: f64) -> Self;
    /// Widens to `f64`.
    fn to_f64(self) -> f64;
    /// The larger of two (non-NaN) values.
    fn max(self, other: Self) -> Self {
        if other > self { other } else { self }
    }
}

impl Real for f64 {
    const ZERO: Self = 0.0;
    const INFINITY: Self = f64::INFINITY;
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
}

impl Real for f32 {
    const ZERO: Self = 0.0;
    const INFINITY: Self = f32::INFINITY;
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}
