//! The one error type of the GPU layer.

/// Why a GPU operation could not be done. Algorithms wrap it in their own error enums.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GpuError {
    /// A GPU was asked for, but this build has no GPU layer (the `gpu` feature is off).
    #[error(
        "a GPU was asked for, but urbanflow was built without the `gpu` feature (rebuild with `--features gpu`, \
         or ask for the CPU backend)"
    )]
    NotBuilt,
    /// No adapter matched (none installed, or `WGPU_BACKEND` / `WGPU_ADAPTER_NAME` excluded them all).
    #[error("no GPU adapter found{0}")]
    NoAdapter(String),
    /// The adapter refused to create a device.
    #[error("could not create a device on `{adapter}`: {message}")]
    RequestDevice {
        /// Adapter name.
        adapter: String,
        /// wgpu's reason.
        message: String,
    },
    /// The device was lost (driver reset, removal); every later call fails the same way.
    #[error("the GPU device was lost: {0}")]
    DeviceLost(String),
    /// The device ran out of memory.
    #[error("out of GPU memory while {0}")]
    OutOfMemory(String),
    /// A feature the operation needs is not enabled on this device.
    #[error("the GPU feature {feature} is needed by {needed_by} but is not available on this device")]
    MissingFeature {
        /// The feature's name.
        feature: &'static str,
        /// Who needs it.
        needed_by: String,
    },
    /// A limit of the device is below what the operation needs.
    #[error("GPU limit {name}: {needed} needed, the device allows {available}")]
    LimitTooLow {
        /// The limit's name.
        name: &'static str,
        /// Needed value.
        needed: u64,
        /// The device's value.
        available: u64,
    },
    /// A buffer larger than the device allows.
    #[error("buffer `{label}` of {bytes} bytes exceeds the device's {limit_name} of {limit} bytes")]
    BufferTooLarge {
        /// Buffer label.
        label: String,
        /// Requested size.
        bytes: u64,
        /// Which limit.
        limit_name: &'static str,
        /// The limit.
        limit: u64,
    },
    /// A dispatch with more workgroups than two grid dimensions can hold.
    #[error("dispatch of {workgroups} workgroups exceeds {max_per_dim}² workgroups")]
    DispatchTooLarge {
        /// Workgroups needed.
        workgroups: u64,
        /// The per-dimension maximum.
        max_per_dim: u32,
    },
    /// A shader failed to preprocess, parse, validate or compile.
    #[error("shader `{shader}`: {message}")]
    Shader {
        /// Shader name.
        shader: String,
        /// The compiler's message.
        message: String,
    },
    /// Any other wgpu validation error.
    #[error("wgpu validation error while {context}: {message}")]
    Validation {
        /// What was being done.
        context: String,
        /// wgpu's message.
        message: String,
    },
    /// Mapping a buffer for readback failed.
    #[error("reading back `{label}` failed: {message}")]
    Readback {
        /// Buffer label.
        label: String,
        /// Why.
        message: String,
    },
}
