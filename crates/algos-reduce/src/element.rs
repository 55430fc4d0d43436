//! Element types the reductions accept.

use std::fmt::Debug;

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for i32 {}
    impl Sealed for f32 {}
}

/// A 32-bit element type: `u32`, `i32` or `f32`. GPU buffers hold the elements' bits; the WGSL side
/// is chosen by [`Element::NAME`] (`shaders/lib/elem_<NAME>.wgsl`).
pub trait Element:
    sealed::Sealed + bytemuck::Pod + PartialEq + PartialOrd + Debug + Default + Send + Sync + 'static
{
    /// `u32`, `i32` or `f32`.
    const NAME: &'static str;
    /// The bits.
    fn to_bits(self) -> u32;
    /// From bits.
    fn from_bits(b: u32) -> Self;
    /// Sum (wrapping for integers).
    fn add(self, other: Self) -> Self;
    /// NaN (floats only).
    fn is_nan(self) -> bool;
    /// A key whose unsigned order is the element order (IEEE total order for f32).
    fn order_key(self) -> u32;
    /// Inverse of [`Element::order_key`].
    fn from_order_key(k: u32) -> Self;
    /// Smallest value (−∞ for f32): the identity of max.
    fn lowest() -> Self;
    /// Largest value (+∞ for f32): the identity of min.
    fn highest() -> Self;
    /// Lossy conversion for error bounds.
    fn to_f64(self) -> f64;
}

impl Element for u32 {
    const NAME: &'static str = "u32";
    fn to_bits(self) -> u32 {
        self
    }
    fn from_bits(b: u32) -> Self {
        b
    }
    fn add(self, other: Self) -> Self {
        self.wrapping_add(other)
    }
    fn is_nan(self) -> bool {
        false
    }
    fn order_key(self) -> u32 {
        self
    }
    fn from_order_key(k: u32) -> Self {
        k
    }
    fn lowest() -> Self {
        0
    }
    fn highest() -> Self {
        u32::MAX
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

impl Element for i32 {
    const NAME: &'static str = "i32";
    fn to_bits(self) -> u32 {
        self as u32
    }
    fn from_bits(b: u32) -> Self {
        b as i32
    }
    fn add(self, other: Self) -> Self {
        self.wrapping_add(other)
    }
    fn is_nan(self) -> bool {
        false
    }
    fn order_key(self) -> u32 {
        (self as u32) ^ 0x8000_0000
    }
    fn from_order_key(k: u32) -> Self {
        (k ^ 0x8000_0000) as i32
    }
    fn lowest() -> Self {
        i32::MIN
    }
    fn highest() -> Self {
        i32::MAX
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

impl Element for f32 {
    const NAME: &'static str = "f32";
    fn to_bits(self) -> u32 {
        f32::to_bits(self)
    }
    fn from_bits(b: u32) -> Self {
        f32::from_bits(b)
    }
    fn add(self, other: Self) -> Self {
        self + other
    }
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
    fn order_key(self) -> u32 {
        let b = f32::to_bits(self);
        if b >> 31 == 1 { !b } else { b | 0x8000_0000 }
    }
    fn from_order_key(k: u32) -> Self {
        f32::from_bits(if k >> 31 == 1 { k & 0x7FFF_FFFF } else { !k })
    }
    fn lowest() -> Self {
        f32::NEG_INFINITY
    }
    fn highest() -> Self {
        f32::INFINITY
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_keys_preserve_order_and_invert() {
        let fs = [f32::NEG_INFINITY, -3.5, -0.0, 0.0, 1e-30, 2.0, f32::INFINITY];
        for w in fs.windows(2) {
            assert!(w[0].order_key() < w[1].order_key(), "{w:?}");
        }
        for f in fs {
            assert_eq!(f32::from_order_key(f.order_key()).to_bits(), f.to_bits());
        }
        let is = [i32::MIN, -1, 0, 1, i32::MAX];
        for w in is.windows(2) {
            assert!(w[0].order_key() < w[1].order_key());
        }
        for i in is {
            assert_eq!(i32::from_order_key(i.order_key()), i);
        }
    }
}
