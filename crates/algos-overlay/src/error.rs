//! The one error type of this crate.

use std::path::PathBuf;

use gpu_runtime::GpuError;

/// What can go wrong building, reading or bounding an instance. Nodes and edges are named by the
/// user's node ids (as in the file or given to [`crate::MopInstance::new`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OverlayError {
    /// An on-line probability outside `[0, 1]` (or not a number).
    #[error("node {node}: on-line probability {value} is outside [0, 1]")]
    BadProbability {
        /// The node's id.
        node: u64,
        /// The value given.
        value: f64,
    },
    /// A negative or non-finite bandwidth capacity.
    #[error("node {node}: bandwidth capacity {value} must be finite and ≥ 0")]
    NegativeCapacity {
        /// The node's id.
        node: u64,
        /// The value given.
        value: f64,
    },
    /// An edge whose QoS lower bound exceeds its congestion upper bound, or with a negative or
    /// non-finite bound or value.
    #[error(
        "edge ({i}, {j}): need 0 ≤ l ≤ u and a finite value ≥ 0, got l = {lower}, u = {upper}, p = {value}"
    )]
    LowerAboveUpper {
        /// One end (user id).
        i: u64,
        /// The other end (user id).
        j: u64,
        /// Its lower bound.
        lower: f64,
        /// Its upper bound.
        upper: f64,
        /// Its value per unit of bandwidth.
        value: f64,
    },
    /// An edge from a node to itself, to an unknown node, or given twice.
    #[error("edge ({i}, {j}): {what}")]
    BadEdge {
        /// One end (user id or index as given).
        i: u64,
        /// The other end.
        j: u64,
        /// What is wrong.
        what: &'static str,
    },
    /// Two nodes with the same id, or arrays of different lengths.
    #[error("bad instance: {0}")]
    Shape(String),
    /// Multipliers that are negative, not finite, or of the wrong count.
    #[error("multiplier of node {node}: {what}")]
    BadMultiplier {
        /// The node's index.
        node: usize,
        /// What is wrong.
        what: String,
    },
    /// A parameter outside its domain.
    #[error("parameter `{name}`: {what}")]
    BadParameter {
        /// The parameter.
        name: &'static str,
        /// What is wrong.
        what: String,
    },
    /// An instance file that could not be read or parsed.
    #[error("{}:{line}: {what}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// The line (1-based; 0 when the file could not be opened or ended early).
        line: usize,
        /// What was expected.
        what: String,
    },
    /// An instance too large for the GPU's storage bindings or memory.
    #[error(
        "instance with {n} nodes needs {bytes} bytes in one GPU binding (limit {limit}); use the CPU backend"
    )]
    TooLarge {
        /// Nodes.
        n: usize,
        /// Bytes needed.
        bytes: u64,
        /// The device's limit.
        limit: u64,
    },
    /// The LP oracle failed.
    #[error("LP solver: {0}")]
    Lp(String),
    /// A GPU error.
    #[error(transparent)]
    Gpu(#[from] GpuError),
}
