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
//! - [`readback`]: results streamed to the host through two staging buffers while the device goes on;
//! - [`GpuTimer`]: GPU timestamps when the adapter has them;
//! - [`Backend`]: the CPU / GPU / automatic choice every algorithm accepts;
//! - [`testing`]: run a test on every adapter, fail loudly in CI when there is none.
//!
//! Errors are one typed enum, [`GpuError`]; nothing here panics on a missing adapter, feature or limit.

pub mod backend;
pub mod buffer;
pub mod context;
pub mod copy;
pub mod devices;
pub mod dispatch;
pub mod error;
mod features;
pub mod pipeline;
pub mod readback;
pub mod recording;
pub mod sequence;
pub mod shader;
pub mod testing;
pub mod timing;
pub mod tuning;

pub use backend::{Backend, BackendChoice, Resolved};
pub use buffer::GpuBuffer;
pub use context::{GpuContext, GpuOptions};
pub use error::GpuError;
pub use features::OptionalFeatures;
pub use pipeline::PipelineKey;
pub use readback::DoubleReadback;
pub use recording::{Command, Recording, Workgroups};
pub use shader::Shader;
pub use timing::GpuTimer;

pub use wgpu;

/// Declares a [`Shader`] from the calling crate's `shaders/<name>.wgsl`, embedded at compile time.
///
/// Every WGSL file lives once, in the workspace's top-level `shaders/`; each crate's `shaders/` holds
/// symbolic links to the files it uses, so that a packaged crate carries its shaders (`cargo package`
/// stores a linked file's contents) and no crate reaches outside its own directory.
///
/// ```ignore
/// const COPY: gpu_runtime::Shader = gpu_runtime::shader!("copy");
/// ```
#[macro_export]
macro_rules! shader {
    ($name:literal) => {
        $crate::Shader::new(
            $name,
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/shaders/", $name, ".wgsl")),
        )
    };
}
