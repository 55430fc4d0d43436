//! Shortest-path trees: one source ([`crate::solve`]: Dijkstra, Δ-stepping, Bellman–Ford on the CPU;
//! the GPU kernels) and many sources at once ([`crate::many`]: the CPU, GPUs or both, measured, planned
//! and run), on integer or real weights ([`crate::real`]), with the GPU launch settings tuned on this
//! machine ([`crate::tuning`]). Entry points: [`crate::solve`] and [`crate::many::many_to_all`].

pub(crate) mod algorithm;
pub(crate) mod api;
pub mod cpu;
#[cfg(feature = "gpu")]
pub mod gpu;
#[cfg(not(feature = "gpu"))]
#[path = "gpu/config.rs"]
pub mod gpu;
pub mod many;
pub mod real;
#[cfg(feature = "gpu")]
pub mod tuning;
