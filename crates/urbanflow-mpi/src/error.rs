//! The crate's one error type.

use std::path::PathBuf;

use algos_sssp::SsspError;
use algos_tap::TapError;

/// What can go wrong in a distributed run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MpiError {
    /// MPI could not be initialised.
    #[error("MPI initialisation failed: {0}")]
    Init(String),
    /// Another rank failed; every rank returns this (the failing one returns its own error).
    #[error("rank {rank} failed: {message}")]
    RankFailed {
        /// The rank that failed first (lowest rank among those that failed in the same round).
        rank: usize,
        /// Its error.
        message: String,
    },
    /// A checkpoint directory that belongs to another job, or a damaged record.
    #[error("checkpoint {}: {message}", path.display())]
    Checkpoint {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Reading or writing a file.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// An option out of range.
    #[error("invalid option: {0}")]
    InvalidOption(String),
    /// Shortest paths.
    #[error(transparent)]
    Sssp(#[from] SsspError),
    /// Traffic assignment.
    #[error(transparent)]
    Tap(#[from] TapError),
}

pub(crate) fn io_err(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> MpiError {
    let path = path.into();
    move |source| MpiError::Io { path, source }
}
