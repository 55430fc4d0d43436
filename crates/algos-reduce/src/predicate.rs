//! Element predicates for [`crate::count`] and the compactions, evaluated identically on CPU and GPU.

use crate::element::Element;

/// A condition on one element. Comparisons follow IEEE rules for f32 (NaN satisfies only `Ne`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Predicate<E> {
    /// `x == a`
    Eq(E),
    /// `x != a`
    Ne(E),
    /// `x < a`
    Lt(E),
    /// `x <= a`
    Le(E),
    /// `x > a`
    Gt(E),
    /// `x >= a`
    Ge(E),
    /// `lo <= x < hi`
    InRange(E, E),
    /// `x != 0`
    NonZero,
}

impl<E: Element> Predicate<E> {
    /// Evaluates the predicate.
    pub fn test(&self, x: E) -> bool {
        match *self {
            Predicate::Eq(a) => x == a,
            Predicate::Ne(a) => x != a,
            Predicate::Lt(a) => x < a,
            Predicate::Le(a) => x <= a,
            Predicate::Gt(a) => x > a,
            Predicate::Ge(a) => x >= a,
            Predicate::InRange(lo, hi) => lo <= x && x < hi,
            Predicate::NonZero => x != E::from_bits(0),
        }
    }

    /// `(op code, a bits, b bits)` as `shaders/lib/predicate.wgsl` reads them.
    pub(crate) fn encode(&self) -> [u32; 3] {
        let z = 0;
        match *self {
            Predicate::Eq(a) => [0, a.to_bits(), z],
            Predicate::Ne(a) => [1, a.to_bits(), z],
            Predicate::Lt(a) => [2, a.to_bits(), z],
            Predicate::Le(a) => [3, a.to_bits(), z],
            Predicate::Gt(a) => [4, a.to_bits(), z],
            Predicate::Ge(a) => [5, a.to_bits(), z],
            Predicate::InRange(lo, hi) => [6, lo.to_bits(), hi.to_bits()],
            Predicate::NonZero => [7, z, z],
        }
    }
}
