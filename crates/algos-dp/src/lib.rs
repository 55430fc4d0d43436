//! # algos-dp
//!
//! Dynamic programmes on the CPU and the GPU.
//!
//! - [`guillotine`]: unconstrained two-dimensional guillotine cutting — the optimal value and the
//!   cutting pattern, serial and rayon wavefront and GPU, with an independent pattern checker; [`io`]
//!   reads the OR-Library gcut files and OR-Datasets JSON, and [`generators`] makes seeded instances
//!   (randcut's optimum is known by construction).
//! - [`vrp`]: CVRP pricing relaxations — q-paths and ng-paths on raw or reduced costs, the cheapest
//!   routes, and a root lower bound by column generation; q-path and ng-path pricing run on the CPU or
//!   the GPU (`vrp::gpu_qpath`, `vrp::gpu_ng`, wavefront stages in `vrp::gpu_stages`).

mod error;
pub mod generators;
pub mod guillotine;
pub mod io;
pub mod vrp;

pub use error::DpError;
