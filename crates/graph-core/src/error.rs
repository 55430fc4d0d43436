//! Errors raised when a graph is built or checked (file readers have their own [`crate::io::ReadError`]).

use crate::weight::WeightIssue;

/// Why a graph could not be built from the given parts.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GraphError {
    /// An arc names a vertex that does not exist.
    #[error("arc {arc} ({tail} -> {head}): vertex id out of range, the graph has {n} vertices (ids 0..{n})")]
    VertexOutOfRange {
        /// Position of the arc in the input.
        arc: usize,
        /// Tail of the arc.
        tail: u32,
        /// Head of the arc.
        head: u32,
        /// Number of vertices.
        n: u32,
    },
    /// A weight is not allowed (negative, NaN, infinite).
    #[error("arc {arc}: weight {value} is not allowed: {issue}")]
    BadWeight {
        /// Position of the arc in the input.
        arc: usize,
        /// The weight, printed.
        value: String,
        /// What is wrong with it.
        issue: WeightIssue,
    },
    /// More arcs than a `u32` CSR offset can address.
    #[error("{arcs} arcs do not fit in u32 CSR offsets (at most {max})")]
    TooManyArcs {
        /// Arcs requested.
        arcs: u64,
        /// The largest supported count.
        max: u64,
    },
    /// A generator or transformation parameter outside its domain.
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    /// CSR arrays that are inconsistent with each other.
    #[error("malformed CSR: {0}")]
    MalformedCsr(String),
}
