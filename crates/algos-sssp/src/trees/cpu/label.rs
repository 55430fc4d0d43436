//! [`Label`]: what a Dijkstra's distances are (u32 saturating at `u32::MAX − 1`, u64, f64), shared by
//! [`crate::cpu::search`] and the queues of [`crate::cpu::queue`].

use crate::paths::SATURATED;

/// A shortest-path label: a non-negative distance in some number type.
pub trait Label: Copy + PartialOrd + std::fmt::Debug + Send + Sync + 'static {
    /// The source's label.
    const ZERO: Self;
    /// The label of a vertex not reached.
    const UNREACHED: Self;
    /// `(label, vertex)` as one totally ordered key, for [`crate::cpu::queue::LazyHeap`].
    type Packed: Ord + Copy + std::fmt::Debug + Send + Sync;
    /// The label after one more arc of weight `w`. Integer labels saturate below
    /// [`Label::UNREACHED`] (u32 at [`SATURATED`], as the GPU kernels do), so an overflow stays
    /// visible as a reached vertex with the saturated label rather than wrapping.
    fn extend(self, w: Self) -> Self;
    /// Packs `(self, v)` so that packed keys order like labels.
    fn pack(self, v: u32) -> Self::Packed;
    /// The inverse of [`Label::pack`].
    fn unpack(p: Self::Packed) -> (Self, u32);
}

impl Label for u32 {
    const ZERO: Self = 0;
    const UNREACHED: Self = u32::MAX;
    type Packed = u64;
    #[inline]
    fn extend(self, w: Self) -> Self {
        (self as u64 + w as u64).min(SATURATED as u64) as u32
    }
    #[inline]
    fn pack(self, v: u32) -> u64 {
        ((self as u64) << 32) | v as u64
    }
    #[inline]
    fn unpack(p: u64) -> (Self, u32) {
        ((p >> 32) as u32, p as u32)
    }
}

impl Label for u64 {
    const ZERO: Self = 0;
    const UNREACHED: Self = u64::MAX;
    type Packed = (u64, u32);
    #[inline]
    fn extend(self, w: Self) -> Self {
        self.saturating_add(w).min(u64::MAX - 1)
    }
    #[inline]
    fn pack(self, v: u32) -> (u64, u32) {
        (self, v)
    }
    #[inline]
    fn unpack(p: (u64, u32)) -> (Self, u32) {
        p
    }
}

impl Label for f64 {
    const ZERO: Self = 0.0;
    const UNREACHED: Self = f64::INFINITY;
    /// Non-negative f64s order like their bit patterns.
    type Packed = (u64, u32);
    #[inline]
    fn extend(self, w: Self) -> Self {
        self + w
    }
    #[inline]
    fn pack(self, v: u32) -> (u64, u32) {
        (self.to_bits(), v)
    }
    #[inline]
    fn unpack(p: (u64, u32)) -> (Self, u32) {
        (f64::from_bits(p.0), p.1)
    }
}
