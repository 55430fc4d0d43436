//! A device-to-device copy kernel: the GPU smoke test and the bandwidth ceiling that benchmarks compare
//! their kernels with (next to wgpu's own `copy_buffer_to_buffer`).

use crate::buffer::GpuBuffer;
use crate::context::GpuContext;
use crate::error::GpuError;
use crate::pipeline::PipelineKey;
use crate::recording::{Recording, Workgroups};
use crate::shader::Shader;

const COPY_VEC4: Shader = crate::shader!("copy");
const COPY_U32: Shader = crate::shader!("copy_u32");

/// Workgroups per dispatch of the grid-stride copy: enough to fill any current GPU, few enough that
/// each invocation loops several times on large inputs.
pub const COPY_WORKGROUPS: u32 = 4096;
/// Invocations per workgroup.
pub const COPY_WG: u32 = 256;

/// Records a copy of the first `len` words of `src` into `dst` with the copy kernel (vec4 loads when
/// `len` is a multiple of 4). `dst` and `src` must hold at least `len` words. Start a
/// [`Recording::timed_pass`] before it to time the kernel.
pub fn record_copy(
    ctx: &GpuContext,
    rec: &mut Recording,
    src: &GpuBuffer<u32>,
    dst: &GpuBuffer<u32>,
    len: usize,
) -> Result<(), GpuError> {
    if len > src.len() || len > dst.len() {
        return Err(GpuError::Validation {
            context: "copy kernel".into(),
            message: format!("{len} words requested, buffers hold {} and {}", src.len(), dst.len()),
        });
    }
    src.check_bindable(ctx)?;
    dst.check_bindable(ctx)?;
    let vec4 = len.is_multiple_of(4);
    let (shader, entry, units) =
        if vec4 { (COPY_VEC4, "copy_vec4", len / 4) } else { (COPY_U32, "copy_u32", len) };
    let pipeline = ctx.pipeline(&PipelineKey::new(shader, entry).with("WG", COPY_WG))?;
    let params = ctx.uniform_words("copy params", &[units as u32]);
    let bind = ctx.bind_buffers(&pipeline, "copy", &[(0, src.buffer()), (1, dst.buffer()), (2, &params)])?;
    let groups = (units as u64).div_ceil(COPY_WG as u64).min(COPY_WORKGROUPS as u64) as u32;
    rec.dispatch(&pipeline, &bind, Workgroups::Fixed([groups, 1, 1]));
    Ok(())
}

/// Copies `src` into `dst` (same length) with the copy kernel and waits for it.
pub fn copy(ctx: &GpuContext, src: &GpuBuffer<u32>, dst: &GpuBuffer<u32>) -> Result<(), GpuError> {
    let mut rec = Recording::new("copy kernel");
    record_copy(ctx, &mut rec, src, dst, src.len())?;
    ctx.submit(&rec)?;
    ctx.wait()
}
