//! Errors of the reduction crate.

use gpu_runtime::GpuError;

/// Why a reduction, scan or compaction failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ReduceError {
    /// The input is longer than one storage binding of the device can hold.
    #[error("{len} elements exceed the device's storage binding limit of {max} elements")]
    LengthTooLarge {
        /// Elements requested.
        len: usize,
        /// Elements one binding can hold.
        max: usize,
    },
    /// A configuration value out of range.
    #[error("invalid reduction configuration: {0}")]
    InvalidConfig(String),
    /// Subgroups were forced on but the device has none.
    #[error("subgroup operations were requested but the device does not support them")]
    UnsupportedFeature,
    /// The GPU failed.
    #[error(transparent)]
    Gpu(#[from] GpuError),
}
