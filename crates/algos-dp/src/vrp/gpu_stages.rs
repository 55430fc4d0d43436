//! The device-side loop over load stages that both GPU DP engines run: per load q, an `advance` kernel
//! moves the stage counter and a `stage` kernel (one workgroup per customer) fills row q from the rows
//! below it, all recorded as one [`Sequence`] with no readback until the last stage.

use std::sync::Arc;

use gpu_runtime::Workgroups;
use gpu_runtime::sequence::{Sequence, Step};
use gpu_runtime::{GpuBuffer, GpuContext, PipelineKey, wgpu};

use super::{ArcCosts, Cvrp, DpError};

/// Stages recorded per command buffer.
const STAGES_PER_SUBMIT: u32 = 256;

/// The arc costs, the stage counter and the two kernels of one engine.
pub(crate) struct StageLoop {
    label: &'static str,
    customers: usize,
    capacity: u32,
    arcs: GpuBuffer<f64>,
    state: GpuBuffer<u32>,
    stage: Arc<wgpu::ComputePipeline>,
    advance: Arc<wgpu::ComputePipeline>,
    stage_bg: wgpu::BindGroup,
    advance_bg: wgpu::BindGroup,
}

impl StageLoop {
    /// The loop of `inst` with kernels `key("stage")` and `key("advance")`; the stage kernel binds
    /// `tables` plus the arc costs at binding 2, and both bind the counter at `state_binding`.
    pub fn new(
        ctx: &GpuContext,
        inst: &Cvrp,
        label: &'static str,
        key: impl Fn(&'static str) -> PipelineKey,
        tables: &[(u32, &wgpu::Buffer)],
        state_binding: u32,
    ) -> Result<Self, DpError> {
        let m = inst.customers() + 1;
        let arcs = GpuBuffer::<f64>::zeroed(ctx, "vrp arc costs", m * m)?;
        let state = GpuBuffer::<u32>::zeroed(ctx, "vrp stage", 1)?;
        let stage = ctx.pipeline(&key("stage"))?;
        let advance = ctx.pipeline(&key("advance"))?;
        let mut entries = tables.to_vec();
        entries.push((2, arcs.buffer()));
        entries.push((state_binding, state.buffer()));
        let stage_bg = ctx.bind_buffers(&stage, label, &entries)?;
        let advance_bg = ctx.bind_buffers(&advance, label, &[(state_binding, state.buffer())])?;
        Ok(Self {
            label,
            customers: m - 1,
            capacity: inst.capacity(),
            arcs,
            state,
            stage,
            advance,
            stage_bg,
            advance_bg,
        })
    }

    /// Bytes of the arc costs on the device.
    pub fn bytes(&self) -> u64 {
        self.arcs.size_bytes()
    }

    /// Uploads `arcs` (the only per-call upload).
    pub fn upload(&self, ctx: &GpuContext, arcs: &ArcCosts) -> Result<(), DpError> {
        let m = self.customers + 1;
        if arcs.size() != m {
            return Err(DpError::Shape(format!(
                "arc costs over {} nodes, the instance has {m}",
                arcs.size()
            )));
        }
        self.arcs.write(ctx, 0, arcs.as_slice())?;
        Ok(())
    }

    /// Runs stages 1..=Q and waits for the GPU.
    pub fn run(&self, ctx: &GpuContext) -> Result<(), DpError> {
        self.state.write(ctx, 0, &[0])?;
        let body = [
            Step {
                pipeline: &self.advance,
                bind_group: &self.advance_bg,
                grid: Workgroups::Fixed([1, 1, 1]),
            },
            Step {
                pipeline: &self.stage,
                bind_group: &self.stage_bg,
                grid: Workgroups::Fixed([self.customers as u32, 1, 1]),
            },
        ];
        ctx.run(&Sequence {
            label: self.label,
            body: &body,
            iterations: self.capacity,
            per_submit: STAGES_PER_SUBMIT,
        })?;
        ctx.wait()?;
        Ok(())
    }
}
