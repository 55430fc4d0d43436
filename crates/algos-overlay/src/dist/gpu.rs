//! DIST on a GPU: one fused dispatch per external iteration (`shaders/overlay_dist.wgsl`), multipliers
//! resident on the device in two buffers swapped by bind group, many iterations per submission.

use gpu_runtime::Workgroups;
use gpu_runtime::sequence::{Sequence, Step};
use gpu_runtime::{GpuBuffer, GpuContext, PipelineKey, Shader, wgpu};

use super::cpu::{Layout, Steps};
use super::{DistEngine, DistParams};
use crate::error::OverlayError;
use crate::instance::MopInstance;

const KERNEL: Shader = gpu_runtime::shader!("overlay_dist");

/// External iterations recorded per command buffer.
const ROUNDS_PER_SUBMIT: u32 = 64;

/// Launch configuration of [`GpuEngine`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpuDistOptions {
    /// Invocations per node (a power of two, 32 to 256): the summation lanes of the mirror.
    pub workgroup: u32,
}

impl Default for GpuDistOptions {
    fn default() -> Self {
        Self { workgroup: 128 }
    }
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct GpuArc {
    to: u32,
    value: f32,
    upper: f32,
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct GpuNode {
    alpha: f32,
    stall: u32,
    best: f32,
    _pad: u32,
}

/// DIST's node loop on a GPU in `f32` (twin: [`super::OverlayDistMirror`] with the same workgroup size).
pub struct GpuEngine<'a> {
    ctx: &'a GpuContext,
    n: usize,
    alpha_start: f32,
    lambda: [GpuBuffer<f32>; 2],
    node: GpuBuffer<GpuNode>,
    pipeline: std::sync::Arc<wgpu::ComputePipeline>,
    /// `binds[k]` reads `lambda[k]` and writes `lambda[1 - k]`.
    binds: [wgpu::BindGroup; 2],
    grid: [u32; 3],
    /// Which buffer holds λ_ext.
    current: usize,
    // Kept alive for the bind groups.
    _data: (GpuBuffer<u32>, GpuBuffer<GpuArc>, GpuBuffer<f32>, wgpu::Buffer),
}

impl<'a> GpuEngine<'a> {
    /// Uploads `inst` to `ctx`. [`OverlayError::TooLarge`] when the arcs exceed one storage binding.
    pub fn new(
        ctx: &'a GpuContext,
        inst: &MopInstance,
        p: &DistParams,
        opt: &GpuDistOptions,
    ) -> Result<Self, OverlayError> {
        p.check()?;
        let wg = opt.workgroup;
        if !(wg.is_power_of_two() && (32..=256).contains(&wg)) {
            return Err(OverlayError::BadParameter {
                name: "workgroup",
                what: format!("{wg}: a power of two in 32..=256"),
            });
        }
        let lay = Layout::<f32>::new(inst);
        let steps = Steps::<f32>::new(p);
        let n = inst.n();
        let bytes = lay.to.len() as u64 * std::mem::size_of::<GpuArc>() as u64;
        let limit = ctx.limits.max_storage_buffer_binding_size;
        if bytes > limit {
            return Err(OverlayError::TooLarge { n, bytes, limit });
        }
        let arcs: Vec<GpuArc> = (0..lay.to.len())
            .map(|k| GpuArc { to: lay.to[k], value: lay.value[k], upper: lay.upper[k] })
            .collect();
        let start = GpuBuffer::from_slice(ctx, "overlay start", &lay.start)?;
        let arcs = GpuBuffer::from_slice(ctx, "overlay arcs", &arcs)?;
        let cap = GpuBuffer::from_slice(ctx, "overlay capacities", &lay.b)?;
        let lambda =
            [GpuBuffer::zeroed(ctx, "overlay lambda a", n)?, GpuBuffer::zeroed(ctx, "overlay lambda b", n)?];
        let node = GpuBuffer::zeroed(ctx, "overlay node state", n)?;
        let params = ctx.uniform_words(
            "overlay params",
            &[
                n as u32,
                steps.inner,
                steps.stall,
                0,
                steps.alpha_min.to_bits(),
                steps.gamma_up.to_bits(),
                steps.gamma_down.to_bits(),
                steps.weight.to_bits(),
            ],
        );
        let pipeline = ctx.pipeline(&PipelineKey::new(KERNEL, "round").with("WG", wg))?;
        let bind = |from: usize| {
            ctx.bind_buffers(
                &pipeline,
                "overlay round",
                &[
                    (0, &params),
                    (1, start.buffer()),
                    (2, arcs.buffer()),
                    (3, cap.buffer()),
                    (4, lambda[from].buffer()),
                    (5, lambda[1 - from].buffer()),
                    (6, node.buffer()),
                ],
            )
        };
        let binds = [bind(0)?, bind(1)?];
        let grid =
            gpu_runtime::dispatch::workgroups_1d(n as u64, ctx.limits.max_compute_workgroups_per_dimension)?;
        Ok(Self {
            ctx,
            n,
            alpha_start: steps.alpha_start,
            lambda,
            node,
            pipeline,
            binds,
            grid,
            current: 0,
            _data: (start, arcs, cap, params),
        })
    }
}

impl DistEngine for GpuEngine<'_> {
    fn name(&self) -> String {
        format!("gpu ({})", self.ctx.info.name)
    }

    fn start(&mut self, lambda: &[f64]) -> Result<(), OverlayError> {
        let l: Vec<f32> = lambda.iter().map(|&x| x as f32).collect();
        self.current = 0;
        self.lambda[0].write(self.ctx, 0, &l)?;
        let fresh = vec![GpuNode { alpha: self.alpha_start, stall: 0, best: 0.0, _pad: 0 }; self.n];
        self.node.write(self.ctx, 0, &fresh)?;
        Ok(())
    }

    fn rounds(&mut self, rounds: u32) -> Result<(), OverlayError> {
        let step = |k: usize| Step {
            pipeline: &self.pipeline,
            bind_group: &self.binds[k],
            grid: Workgroups::Fixed(self.grid),
        };
        let pair = [step(self.current), step(1 - self.current)];
        self.ctx.run(&Sequence {
            label: "overlay DIST rounds",
            body: &pair,
            iterations: rounds / 2,
            per_submit: ROUNDS_PER_SUBMIT / 2,
        })?;
        if rounds % 2 == 1 {
            self.ctx.run(&Sequence::once("overlay DIST round", &pair[..1]))?;
            self.current = 1 - self.current;
        }
        Ok(())
    }

    fn lambda(&mut self) -> Result<Vec<f64>, OverlayError> {
        Ok(self.lambda[self.current].read(self.ctx)?.into_iter().map(f64::from).collect())
    }

    fn local_sum(&mut self) -> Result<f64, OverlayError> {
        Ok(self.node.read(self.ctx)?.iter().map(|s| s.best as f64).sum())
    }
}
