//! Errors of the shortest-path crate.

use gpu_runtime::GpuError;

/// Why a shortest-path computation failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SsspError {
    /// The source is not a vertex of the graph.
    #[error("source {vertex} is not a vertex (the graph has {n} vertices)")]
    SourceOutOfRange {
        /// The source given.
        vertex: u32,
        /// Number of vertices.
        n: u32,
    },
    /// A target is not a vertex of the graph.
    #[error("target {target} is not a vertex (the graph has {n} vertices)")]
    TargetOutOfRange {
        /// The target given.
        target: u32,
        /// Number of vertices.
        n: u32,
    },
    /// A distance reached the saturation bound `u32::MAX - 1`: the true distance does not fit in u32.
    /// Never reported as "unreachable".
    #[error("a shortest-path distance reached {bound} (u32 saturation): distances do not fit in u32")]
    WeightOverflow {
        /// The saturation bound, `u32::MAX - 1`.
        bound: u32,
    },
    /// An arc weight at or above the saturation bound.
    #[error("arc {arc} has weight {weight}, which is at or above the saturation bound u32::MAX - 1")]
    WeightTooLarge {
        /// Arc id.
        arc: u32,
        /// Its weight.
        weight: u32,
    },
    /// The algorithm needs a GPU but the backend is the CPU (or the reverse).
    #[error("algorithm {algorithm} does not run on the {backend} backend{why}")]
    WrongBackend {
        /// Algorithm name.
        algorithm: &'static str,
        /// Backend name.
        backend: &'static str,
        /// Why that backend was chosen, when it was chosen automatically (starts with `: `).
        why: String,
    },
    /// A GPU work queue filled up; the result would be wrong, so none is given (use another algorithm).
    #[error("GPU queue `{queue}` overflowed its capacity of {capacity} entries")]
    QueueOverflow {
        /// Which queue.
        queue: &'static str,
        /// Its capacity.
        capacity: u64,
    },
    /// An algorithm parameter outside its range.
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    /// The GPU failed.
    #[error(transparent)]
    Gpu(#[from] GpuError),
}
