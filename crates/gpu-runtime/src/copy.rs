//! A device-to-device copy kernel: the GPU smoke test and the bandwidth ceiling that benchmarks compare
//! their kernels with (next to wgpu's own `copy_buffer_to_buffer`).

use crate::buffer::GpuBuffer;
use crate::context::GpuContext;
use crate::error::GpuError;
use crate::pipeline::PipelineKey;
use crate::shader::Shader;

const COPY_VEC4: Shader = crate::shader!("copy");
const COPY_U32: Shader = crate::shader!("copy_u32");

/// Workgroups per dispatch of the grid-stride copy: enough to fill any current GPU, few enough that
/// each invocation loops several times on large inputs.
pub const COPY_WORKGROUPS: u32 = 4096;
/// Invocations per workgroup.
pub const COPY_WG: u32 = 256;

/// Records a copy of the first `len` words of `src` into `dst` with the copy kernel (vec4 loads when
/// `len` is a multiple of 4). `dst` and `src` must hold at least `len` words.
pub fn encode_copy(
    ctx: &GpuContext,
    enc: &mut wgpu::CommandEncoder,
    src: &GpuBuffer<u32>,
    dst: &GpuBuffer<u32>,
    len: usize,
    timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
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
    let params = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("copy params"),
        size: 16,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    ctx.queue.write_buffer(&params, 0, bytemuck::cast_slice(&[units as u32, 0, 0, 0]));
    let bind = ctx.scoped("binding the copy kernel", || {
        ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("copy"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: src.binding() },
                wgpu::BindGroupEntry { binding: 1, resource: dst.binding() },
                wgpu::BindGroupEntry { binding: 2, resource: params.as_entire_binding() },
            ],
        })
    })?;
    let groups = (units as u64).div_ceil(COPY_WG as u64).min(COPY_WORKGROUPS as u64) as u32;
    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some("copy"),
        timestamp_writes: timestamps,
    });
    pass.set_pipeline(&pipeline);
    pass.set_bind_group(0, &bind, &[]);
    crate::dispatch::dispatch(&mut pass, [groups, 1, 1]);
    Ok(())
}

/// Copies `src` into `dst` (same length) with the copy kernel and waits for it.
pub fn copy(ctx: &GpuContext, src: &GpuBuffer<u32>, dst: &GpuBuffer<u32>) -> Result<(), GpuError> {
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    ctx.scoped("recording the copy kernel", || encode_copy(ctx, &mut enc, src, dst, src.len(), None))??;
    ctx.queue.submit([enc.finish()]);
    ctx.wait()
}
