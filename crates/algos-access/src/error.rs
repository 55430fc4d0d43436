//! Errors of accessibility and centrality.

use std::path::PathBuf;

use algos_sssp::SsspError;

/// Why an accessibility or centrality run could not be done.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AccessError {
    /// A shortest-path step failed (a weight at the saturation bound, a source out of range, a hierarchy
    /// that could not be built).
    #[error(transparent)]
    Sssp(#[from] SsspError),
    /// A GPU step failed.
    #[error(transparent)]
    Gpu(#[from] gpu_runtime::GpuError),
    /// A points or sources file could not be opened or read.
    #[error("{}: {message}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A line of a points or sources file is not what was expected.
    #[error("{}:{line}: {message}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// Its 1-based line.
        line: u64,
        /// What was found and what was expected.
        message: String,
    },
    /// A point's vertex is not in the graph.
    #[error("point {index}: vertex {vertex} is not in the graph ({n} vertices)")]
    PointVertex {
        /// The point's index (0-based, input order).
        index: usize,
        /// The vertex given.
        vertex: u32,
        /// Vertices of the graph.
        n: u32,
    },
    /// A point's weight is negative, infinite or not a number.
    #[error("point {index}: weight {weight} is not a finite number ≥ 0")]
    PointWeight {
        /// The point's index (0-based, input order).
        index: usize,
        /// The weight given.
        weight: f64,
    },
    /// An option outside its domain (cutoffs, decay parameters, sample sizes).
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    /// The run was cancelled through its progress callback.
    #[error("cancelled after {done} of {total} sources")]
    Cancelled {
        /// Sources finished.
        done: usize,
        /// Sources asked for.
        total: usize,
    },
}
