//! # algos-tap
//!
//! Static traffic assignment on TNTP networks: user equilibrium (Wardrop's first principle) or system
//! optimum, by MSA, Frank–Wolfe, conjugate and bi-conjugate Frank–Wolfe, with all-or-nothing loading
//! over one shortest-path tree per origin (rayon; deterministic whatever the thread count). Costs are
//! BPR by default ([`vdf`] has conical and Akçelik, and a trait for your own), plus toll and distance
//! terms ([`CostFactors`]). Zones below `<FIRST THRU NODE>` are never passed through, as in the published
//! solutions. Specification: `shared/specs/tap.md`.
//!
//! ```no_run
//! use algos_tap::{assign, AssignOptions, CostFactors, Demand, Network};
//! let net = Network::read_tntp("SiouxFalls_net.tntp", CostFactors::default())?;
//! let demand = Demand::read_tntp("SiouxFalls_trips.tntp", &net)?;
//! let result = assign(&net, &demand, &AssignOptions::default())?;
//! println!("relative gap {:.2e} after {} iterations", result.last().relative_gap, result.history.len());
//! # Ok::<(), algos_tap::TapError>(())
//! ```

mod aon;
mod bush;
pub mod catalog;
pub mod demand;
pub mod error;
pub mod fixed;
pub mod gpu;
mod heap;
pub mod network;
pub mod output;
pub mod petgyn;
pub mod solve;
pub mod vdf;

pub use catalog::{STANDARD_NETWORKS, StandardNetwork, standard_network};
pub use demand::Demand;
pub use error::TapError;
pub use gpu_runtime::Backend;
pub use network::{CostFactors, Link, Network};
pub use solve::{
    Algorithm, AssignOptions, Assignment, Evaluation, IterationLog, Objective, Stop, assign,
    assign_with_progress, evaluate,
};
