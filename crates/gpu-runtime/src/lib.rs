//! # gpu-runtime
//!
//! The wgpu layer every urbanflow GPU algorithm stands on:
//!
//! - [`GpuContext`]: adapter choice (honours `WGPU_BACKEND`, `WGPU_ADAPTER_NAME`, `WGPU_POWER_PREF`),
//!   the adapter's own limits, the optional features the algorithms use, and a pipeline cache;
//! - [`GpuBuffer`]: typed storage buffers with upload and single-map readback;
//! - [`Shader`] and the WGSL `//!include` mechanism, validated by naga ([`shader::validate`]);
//! - [`devices`]: several GPUs in one process (`--gpus all|0,1|name`);
//! - [`dispatch`]: workgroup grids that split past the 65,535-per-dimension limit;
//! - [`recording`]: the one vocabulary for GPU work (dispatches, clears, copies, timed passes), submitted by
//!   [`GpuContext::submit`]; nothing else creates a command encoder;
//! - [`sequence`]: a loop of dispatches described once and run without host round trips;
//! - [`readback`]: results streamed to the host through a ring of staging buffers while the device goes on;
//! - [`GpuTimer`]: GPU timestamps when the adapter has them;
//! - [`Backend`]: the CPU / GPU / automatic choice every algorithm accepts;
//! - [`profile`], [`calibrate`] and [`predict`]: what this machine's GPU and CPU were measured to do,
//!   and the automatic choices' predictions from it (never from an adapter's name);
//! - [`testing`]: run a test on every adapter, fail loudly in CI when there is none.
//!
//! Errors are one typed enum, [`GpuError`]; nothing here panics on a missing adapter, feature or limit.

pub mod backend;
#[cfg(feature = "gpu")]
pub mod buffer;
#[cfg(feature = "gpu")]
pub mod calibrate;
#[cfg(feature = "gpu")]
pub mod context;
#[cfg(not(feature = "gpu"))]
#[path = "absent.rs"]
pub mod context;
#[cfg(feature = "gpu")]
pub mod copy;
pub mod devices;
#[cfg(feature = "gpu")]
pub mod dispatch;
pub mod error;
#[cfg(feature = "gpu")]
mod features;
pub mod parsed_cache;
#[cfg(feature = "gpu")]
pub mod pipeline;
pub mod predict;
pub mod profile;
#[cfg(feature = "gpu")]
pub mod readback;
#[cfg(feature = "gpu")]
pub mod recording;
#[cfg(feature = "gpu")]
pub mod sequence;
#[cfg(feature = "gpu")]
pub mod shader;
#[cfg(feature = "gpu")]
pub mod testing;
#[cfg(feature = "gpu")]
pub mod timing;
pub mod tuning;

pub use backend::{Backend, BackendChoice, Resolved};
#[cfg(feature = "gpu")]
pub use buffer::GpuBuffer;
pub use context::GpuContext;
#[cfg(feature = "gpu")]
pub use context::GpuOptions;
pub use error::GpuError;
#[cfg(feature = "gpu")]
pub use features::OptionalFeatures;
#[cfg(feature = "gpu")]
pub use pipeline::PipelineKey;
#[cfg(feature = "gpu")]
pub use readback::ReadbackRing;
#[cfg(feature = "gpu")]
pub use recording::{Command, Recording, Workgroups};
#[cfg(feature = "gpu")]
pub use shader::Shader;
#[cfg(feature = "gpu")]
pub use timing::GpuTimer;

#[cfg(feature = "gpu")]
pub use wgpu;

/// Whether this build has the wgpu layer (the `gpu` feature). Without it every [`Backend::Auto`]
/// resolves to the CPU and asking for a GPU is an error saying so.
pub const BUILT_WITH_GPU: bool = cfg!(feature = "gpu");

/// A crate's own shader helpers, embedded: `(name, source)` of `shaders/lib/<name>.wgsl` under the
/// calling crate (a symbolic link to the workspace's `shaders/lib/`, as for [`shader!`]), for
/// [`Shader::with_helpers`].
///
/// ```ignore
/// const GCUT: &[(&str, &str)] = gpu_runtime::helpers!["gcut_common", "gcut_tables_one"];
/// const KERNEL: Shader = gpu_runtime::shader!("gcut_compact").with_helpers(GCUT);
/// ```
#[cfg(feature = "gpu")]
#[macro_export]
macro_rules! helpers {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/shaders/lib/", $name, ".wgsl")))),*]
    };
}

/// Declares a [`Shader`] from the calling crate's `shaders/<name>.wgsl`, embedded at compile time.
///
/// Every WGSL file lives once, in the workspace's top-level `shaders/`; each crate's `shaders/` holds
/// symbolic links to the files it uses, so that a packaged crate carries its shaders (`cargo package`
/// stores a linked file's contents) and no crate reaches outside its own directory.
///
/// ```ignore
/// const COPY: urbanflow::gpu::Shader = urbanflow::gpu::shader!("copy");
/// ```
#[cfg(feature = "gpu")]
#[macro_export]
macro_rules! shader {
    ($name:literal) => {
        $crate::Shader::new(
            $name,
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/shaders/", $name, ".wgsl")),
        )
    };
}
