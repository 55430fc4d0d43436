//! CVRP pricing relaxations (seed 001 ch. 5; spec vrp-relaxations.md): q-paths with 2-cycle
//! elimination, through-q-routes and ng-paths on raw or reduced costs, the cheapest routes they contain, and a root lower
//! bound by column generation ([`root_bound`]).
//!
//! Engines, forward on the given matrix (backward = the same DP on [`Cvrp::transposed`]):
//! - CPU, serial and rayon with identical tables: [`q_paths`], [`through_q`], [`ng_paths`] (one label per
//!   reachable memory), [`ng_paths_dominated`] (subset dominance: the fastest CPU pricing), and
//!   [`vrp_ng_mirror`] (every memory of every cell: the GPU's layout, its CPU mirror).
//! - GPU (64-bit floats in shaders; tables resident on the device, only arc costs uploaded per call):
//!   [`GpuQPaths`] (q-paths and through-q-routes, equal to [`q_paths`] and [`through_q`]) and
//!   [`GpuNgPricer`] (equal to [`vrp_ng_mirror`] bit for bit).
//! - Column generation over any [`Pricer`]: [`root_bound`], [`root_bound_with`], [`pricer`].
//!
//! ```
//! use urbanflow::dp::vrp::{ArcCosts, Costs, Cvrp, q_paths};
//! let x = [0.0f64, 1.0, 2.0];
//! let cost: Vec<f64> = (0..9).map(|k| (x[k / 3] - x[k % 3]).abs()).collect();
//! let inst = Cvrp::new("line", vec![0, 1, 1], 2, cost)?;
//! let arcs = ArcCosts::new(&inst, &Costs::Raw)?;
//! let t = q_paths(&inst, &arcs, false);
//! assert_eq!(t.value(2, 2), 2.0); // 0 → 1 → 2
//! # Ok::<(), urbanflow::dp::DpError>(())
//! ```

use crate::DpError;

mod colgen;
mod columns;
mod gpu_ng;
mod gpu_qpath;
mod gpu_stages;
mod instance;
mod master;
mod ng;
mod ng_dense;
mod pricing;
mod qpath;
mod simplex;
mod throughq;
pub mod vrplib;

pub use colgen::{BoundOptions, BoundReport, Relaxation, Round, root_bound, root_bound_with};
pub use gpu_ng::{GpuNgPricer, GpuPriceTimes};
pub use gpu_qpath::GpuQPaths;
pub use instance::{ArcCosts, Costs, Cvrp};
pub use master::MasterLp;
pub use ng::{MAX_DELTA, NgSets, NgState, NgTable, ng_paths, ng_paths_dominated};
pub use ng_dense::{MAX_DENSE_DELTA, NO_LABEL, NgDenseTable, NgPlan, vrp_ng_mirror};
pub use pricing::{CpuPricer, Priced, Pricer, PricingBackend, gpu_pays, pricer};
pub use qpath::{NONE, QPathTable, q_paths};
pub use throughq::{LoadSemantics, through_q};

/// A route: customers in visiting order (depot excluded), its load, and its cost under the arc costs
/// of the DP that produced it (the reduced cost when the DP ran on reduced costs).
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// Customers 1..n in order.
    pub customers: Vec<u32>,
    /// Σ demands (with multiplicity).
    pub load: u32,
    /// Cost.
    pub cost: f64,
}
