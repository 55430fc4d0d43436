//! # algos-reduce
//!
//! The one place in urbanflow that reduces, scans and compacts large arrays, on the GPU (WGSL, any
//! adapter) or on the CPU (rayon), chosen by a [`Backend`](gpu_runtime::Backend).
//!
//! | operation | result | empty input |
//! |---|---|---|
//! | [`sum`] | wrapping sum for `u32`/`i32`; f32 sum (NaN propagates) | `0` |
//! | [`min`], [`max`] | smallest / largest; f32 NaN elements are ignored (an all-NaN input gives the identity, +∞ / −∞) | `None` |
//! | [`argmin`], [`argmax`] | `(index, value)`, the lowest index wins ties; NaN ignored | `None` (also when all are NaN) |
//! | [`count`] | elements satisfying a [`Predicate`] | `0` |
//! | [`exclusive_scan`], [`inclusive_scan`] | prefix sums (wrapping for integers) | empty |
//! | [`compact_indices`], [`compact_values`] | indices / values where the predicate holds, in order | empty |
//!
//! Integer results are bit-identical on every backend, thread count and launch shape. f32 sums depend on
//! the summation order: the GPU follows a fixed tree for a given [`ReduceConfig`] (reproduced bit for bit
//! by [`mirror`]), the CPU sums fixed chunks pairwise; both stay within `n · 2⁻²⁴ · Σ|x|` of the exact
//! sum (tests check it).
//!
//! ```
//! use urbanflow::reduce::{argmin, sum, Predicate, count};
//! use urbanflow::gpu::Backend;
//! let xs = [5u32, 3, 9, 3];
//! assert_eq!(sum(Backend::Cpu, &xs).unwrap(), 20);
//! assert_eq!(argmin(Backend::Cpu, &xs).unwrap(), Some((1, 3)));
//! assert_eq!(count(Backend::Cpu, &xs, Predicate::Gt(4)).unwrap(), 2);
//! ```
//!
//! GPU kernels: `shaders/reduce.wgsl` (workgroup tree), `shaders/reduce_subgroup.wgsl` (subgroup
//! operations), `shaders/scan.wgsl` (reduce-then-scan), `shaders/compact.wgsl`. Variants: the seed's
//! persistent grid-stride reduction with F items per invocation (corrected: no out-of-bounds tail, a
//! barrier per tree level), Harris's kernel 7 and Catanzaro's two-stage reduction as baselines, each
//! with or without subgroups ([`Variant`]).

mod api;
pub mod config;
pub mod cpu;
mod element;
mod error;
mod gpu;
pub mod mirror;
mod monoid;
mod predicate;
mod scan;

pub use api::{
    argmax, argmin, compact_indices, compact_values, count, exclusive_scan, inclusive_scan, max, min, sum,
};
pub use config::{ReduceConfig, SubgroupMode, Variant};
pub use element::Element;
pub use error::ReduceError;
pub use gpu::{GpuReducer, Operation};
pub use predicate::Predicate;
