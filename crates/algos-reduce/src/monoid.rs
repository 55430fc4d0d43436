//! The reduction monoids, shared by the CPU twin and the CPU mirror of the GPU kernels, written to
//! match `shaders/lib/op_*.wgsl` exactly.

use crate::element::Element;
use crate::predicate::Predicate;

/// A monoid over lifted element values.
pub(crate) trait Monoid<E: Element>: Sync {
    type V: Copy + Send + Sync + PartialEq + std::fmt::Debug;
    fn identity(&self) -> Self::V;
    fn combine(&self, a: Self::V, b: Self::V) -> Self::V;
    fn lift(&self, x: E, i: u32) -> Self::V;
}

pub(crate) struct Sum;
pub(crate) struct Min;
pub(crate) struct Max;
pub(crate) struct ArgMin;
pub(crate) struct ArgMax;
pub(crate) struct Count<E>(pub Predicate<E>);

impl<E: Element> Monoid<E> for Sum {
    type V = E;
    fn identity(&self) -> E {
        E::from_bits(0)
    }
    fn combine(&self, a: E, b: E) -> E {
        a.add(b)
    }
    fn lift(&self, x: E, _: u32) -> E {
        x
    }
}

impl<E: Element> Monoid<E> for Min {
    type V = E;
    fn identity(&self) -> E {
        E::highest()
    }
    fn combine(&self, a: E, b: E) -> E {
        if b < a { b } else { a }
    }
    fn lift(&self, x: E, _: u32) -> E {
        if x.is_nan() { E::highest() } else { x }
    }
}

impl<E: Element> Monoid<E> for Max {
    type V = E;
    fn identity(&self) -> E {
        E::lowest()
    }
    fn combine(&self, a: E, b: E) -> E {
        if b > a { b } else { a }
    }
    fn lift(&self, x: E, _: u32) -> E {
        if x.is_nan() { E::lowest() } else { x }
    }
}

impl<E: Element> Monoid<E> for ArgMin {
    type V = (u32, u32);
    fn identity(&self) -> (u32, u32) {
        (u32::MAX, u32::MAX)
    }
    fn combine(&self, a: (u32, u32), b: (u32, u32)) -> (u32, u32) {
        if a <= b { a } else { b }
    }
    fn lift(&self, x: E, i: u32) -> (u32, u32) {
        if x.is_nan() { (u32::MAX, u32::MAX) } else { (x.order_key(), i) }
    }
}

impl<E: Element> Monoid<E> for ArgMax {
    type V = (u32, u32);
    fn identity(&self) -> (u32, u32) {
        (0, u32::MAX)
    }
    fn combine(&self, a: (u32, u32), b: (u32, u32)) -> (u32, u32) {
        if a.0 > b.0 || (a.0 == b.0 && a.1 <= b.1) { a } else { b }
    }
    fn lift(&self, x: E, i: u32) -> (u32, u32) {
        if x.is_nan() { (0, u32::MAX) } else { (x.order_key(), i) }
    }
}

impl<E: Element> Monoid<E> for Count<E> {
    type V = u32;
    fn identity(&self) -> u32 {
        0
    }
    fn combine(&self, a: u32, b: u32) -> u32 {
        a.wrapping_add(b)
    }
    fn lift(&self, x: E, _: u32) -> u32 {
        self.0.test(x) as u32
    }
}
