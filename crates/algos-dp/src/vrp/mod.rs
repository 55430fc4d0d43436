//! CVRP pricing relaxations (seed 001 ch. 5; spec vrp-relaxations.md): q-paths with 2-cycle
//! elimination, through-q-routes and ng-paths on raw or reduced costs, the cheapest routes they contain, and a root lower
//! bound by column generation ([`root_bound`]).
//!
//! Engines, forward on the given matrix (backward = the same DP on [`Cvrp::transposed`]):
//! - CPU, serial and rayon with identical tables: [`q_paths`], [`through_q`], [`ng_paths`] (one label per
//!   reachable memory), [`ng_paths_dominated`] (subset dominance: the fastest CPU pricing), and
//!   [`ng_paths_dense`] (every memory of every cell: the GPU's layout, its CPU mirror).
//! - GPU (64-bit floats in shaders; tables resident on the device, only arc costs uploaded per call):
//!   [`GpuQPaths`] (q-paths and through-q-routes, equal to [`q_paths`] and [`through_q`]) and
//!   [`GpuNgPricer`] (equal to [`ng_paths_dense`] bit for bit).
//! - Column generation over any [`Pricer`]: [`root_bound`], [`root_bound_with`], [`pricer`].
//!
//! ```
//! use algos_dp::vrp::{ArcCosts, Costs, Cvrp, q_paths};
//! let x = [0.0f64, 1.0, 2.0];
//! let cost: Vec<f64> = (0..9).map(|k| (x[k / 3] - x[k % 3]).abs()).collect();
//! let inst = Cvrp::new("line", vec![0, 1, 1], 2, cost)?;
//! let arcs = ArcCosts::new(&inst, &Costs::Raw)?;
//! let t = q_paths(&inst, &arcs, false);
//! assert_eq!(t.value(2, 2), 2.0); // 0 → 1 → 2
//! # Ok::<(), algos_dp::vrp::VrpError>(())
//! ```

mod colgen;
mod gpu_ng;
mod gpu_qpath;
mod gpu_stages;
mod instance;
mod master;
mod ng;
mod ng_dense;
mod pricing;
mod qpath;
mod throughq;
pub mod vrplib;

pub use colgen::{BoundOptions, BoundReport, Relaxation, Round, root_bound, root_bound_with};
pub use gpu_ng::{GpuNgPricer, GpuPriceTimes};
pub use gpu_qpath::GpuQPaths;
pub use instance::{ArcCosts, Costs, Cvrp};
pub use ng::{MAX_DELTA, NgSets, NgState, NgTable, ng_paths, ng_paths_dominated};
pub use ng_dense::{MAX_DENSE_DELTA, NO_LABEL, NgDenseTable, NgPlan, ng_paths_dense};
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

/// What can go wrong with a CVRP instance or a DP call.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VrpError {
    /// A customer with demand 0 (stages must increase strictly in load).
    #[error("customer {customer} has demand 0 (every customer needs a demand ≥ 1)")]
    ZeroDemand {
        /// The customer (1..n).
        customer: u32,
    },
    /// A customer whose demand exceeds the vehicle capacity.
    #[error("customer {customer} has demand {demand}, above the capacity {capacity}")]
    DemandExceedsCapacity {
        /// The customer (1..n).
        customer: u32,
        /// Its demand.
        demand: u32,
        /// The capacity.
        capacity: u32,
    },
    /// Δ outside 1..=32.
    #[error("ng-neighbourhood size {delta}: must lie in 1..={max}")]
    NeighbourhoodTooLarge {
        /// Asked for.
        delta: usize,
        /// Largest supported.
        max: usize,
    },
    /// More ng labels than allowed.
    #[error("ng state space: {states} labels ({bytes} bytes) exceed the limit of {limit} labels")]
    StateSpaceTooLarge {
        /// Labels so far.
        states: usize,
        /// Their bytes.
        bytes: u64,
        /// The limit.
        limit: usize,
    },
    /// Inconsistent sizes or values.
    #[error("bad instance: {0}")]
    Shape(String),
    /// A file that could not be opened or parsed (the crate's reader error: file and line).
    #[error(transparent)]
    Read(#[from] crate::io::ReadError),
    /// The GPU failed or lacks what a kernel needs.
    #[error("GPU: {0}")]
    Gpu(#[from] gpu_runtime::GpuError),
    /// The LP solver failed.
    #[error("LP solver: {0}")]
    Lp(String),
}
