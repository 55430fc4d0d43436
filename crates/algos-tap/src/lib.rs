//! # algos-tap
//!
//! Static traffic assignment on TNTP networks: user equilibrium (Wardrop's first principle) or system
//! optimum, by MSA, Frank–Wolfe, conjugate and bi-conjugate Frank–Wolfe (Mitradjieva & Lindberg, 2013)
//! with exact line search, or the bush-based Algorithm B (Dial, 2006) down to relative gaps of 1e-12.
//! All-or-nothing loading runs one shortest-path tree per origin on the CPU (rayon; deterministic
//! whatever the thread count) or on a GPU ([`gpu`]). Costs are BPR by default ([`vdf`] has conical
//! and Akçelik, [`petgyn`] twelve non-separable types, and a trait for your own), plus toll and
//! distance terms ([`CostFactors`]). Zones below `<FIRST THRU NODE>` are never passed through, as in
//! the published solutions.
//!
//! Convergence is reported every iteration ([`IterationLog`]): the relative gap (TSTT − SPTT) / TSTT,
//! where TSTT is the total travel time at the current flows and SPTT the total time if every trip used
//! a current shortest path, the average excess cost per trip, and the Beckmann objective with its
//! lower bound. [`catalog`] lists the standard networks with the best-known objectives.
//!
//! ```
//! use urbanflow::tap::{assign, AssignOptions, CostFactors, Demand, Network};
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data");
//! let net = Network::read_tntp(format!("{dir}/SiouxFalls_net.tntp"), CostFactors::default())?;
//! let demand = Demand::read_tntp(format!("{dir}/SiouxFalls_trips.tntp"), &net)?;
//! let result = assign(&net, &demand, &AssignOptions::default())?;
//! assert!(result.last().relative_gap <= 1e-4);
//! println!("relative gap {:.2e} after {} iterations", result.last().relative_gap, result.history.len());
//! # Ok::<(), urbanflow::tap::TapError>(())
//! ```

mod aon;
mod bush;
pub mod catalog;
mod classes;
pub mod demand;
pub mod demand_cache;
pub mod error;
pub mod fixed;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod hierarchy;
pub mod loader;
pub mod matrix;
pub mod model;
pub mod multiclass;
pub mod network;
pub mod nodes;
pub mod odme;
pub mod output;
pub mod petgyn;
pub mod phast_load;
pub mod picture;
pub mod select;
pub mod skim;
pub mod solve;
pub mod turns;
pub mod vdf;
mod vector;

pub use catalog::{STANDARD_NETWORKS, StandardNetwork, standard_network};
pub use demand::Demand;
pub use error::TapError;
pub use gpu_runtime::Backend;
pub use network::{CostFactors, Link, Network};
pub use solve::{
    Algorithm, AssignOptions, Assignment, Evaluation, IterationLog, Objective, Stop, Totals, assign,
    assign_with_loader, assign_with_progress, evaluate,
};
