//! The dynamic-programming crate's one error: reading instances (gcut, OR-Datasets JSON, VRPLIB),
//! solving them (guillotine cutting, CVRP bounds) and checking a cutting pattern all fail with
//! [`DpError`]. Where the reason is itself a list of cases, the variant carries it
//! ([`PatternIssue`](crate::guillotine::PatternIssue)).

use std::path::PathBuf;

use crate::guillotine::PatternIssue;

/// Why an algos-dp call failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DpError {
    // Reading files.
    /// The file could not be opened.
    #[error("{}: cannot open: {source}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The content is not what the format expects.
    #[error("{}:{line}: {what}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What was expected and found.
        what: String,
    },

    // Guillotine cutting.
    /// The stock or a piece has a zero side.
    #[error("{what} has a zero side ({w} × {h}): every side must be at least 1")]
    ZeroSize {
        /// "the stock" or "piece k".
        what: String,
        /// Width.
        w: u32,
        /// Height.
        h: u32,
    },
    /// Values could overflow the table's integers.
    #[error("values too large: the optimum could reach {bound}, beyond {limit}")]
    ValueOverflow {
        /// An upper bound on the optimum.
        bound: u128,
        /// The largest representable value.
        limit: u128,
    },
    /// A stock side beyond what cut records can hold.
    #[error("a stock side of {side} is beyond the largest supported, {max}")]
    SideTooLarge {
        /// The side.
        side: u32,
        /// The largest supported.
        max: u32,
    },
    /// The GPU failed or lacks what a kernel needs.
    #[error("GPU: {0}")]
    Gpu(#[from] gpu_runtime::GpuError),
    /// The guillotine table would not fit the memory limit.
    #[error("the table needs {bytes} bytes, more than the limit of {limit}")]
    TableTooLarge {
        /// Bytes needed.
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// A cutting pattern that is not a valid guillotine pattern of its instance.
    #[error("not a valid pattern: {0}")]
    NotAPattern(PatternIssue),
    // CVRP bounds.
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
    /// The LP solver failed.
    #[error("LP solver: {0}")]
    Lp(String),
}
