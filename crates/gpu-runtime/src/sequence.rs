//! A sequence of dispatches described once and run without host round trips: the loop form of
//! [`crate::recording`].
//!
//! GPU algorithms here are loops of a few kernels (relax, advance; diagonal, panels, rest; one
//! anti-diagonal of a DP table, then the next). [`Sequence`] names the kernels of one iteration (each
//! a pipeline, its bind group and its grid) and how many iterations to record; [`GpuContext::run`]
//! records them into [`Recording`]s and submits them, [`Sequence::per_submit`] iterations per command
//! buffer, with no readback. Loops whose end is only known on the device stop themselves: a kernel
//! of the body writes the next grid into a buffer ([`Workgroups::Indirect`]; zero workgroups once done) or
//! the kernels return early after reading a flag, and the sequence records an upper bound of
//! iterations. Within a compute pass wgpu orders each dispatch after the writes of the previous ones.
//!
//! ```no_run
//! # use urbanflow::gpu::{GpuContext, Workgroups, sequence::{Sequence, Step}};
//! # fn demo(ctx: &GpuContext, relax: &wgpu::ComputePipeline, advance: &wgpu::ComputePipeline,
//! #         bind_relax: &wgpu::BindGroup, bind_advance: &wgpu::BindGroup, args: &wgpu::Buffer)
//! #         -> Result<(), urbanflow::gpu::GpuError> {
//! // Up to 1,000 iterations of: relax over a grid the advance kernel computed, then advance.
//! let body = [
//!     Step { pipeline: relax, bind_group: bind_relax, grid: Workgroups::Indirect(args.clone(), 0) },
//!     Step { pipeline: advance, bind_group: bind_advance, grid: Workgroups::Fixed([1, 1, 1]) },
//! ];
//! ctx.run(&Sequence { label: "relax loop", body: &body, iterations: 1000, per_submit: 256 })?;
//! # Ok(()) }
//! ```

use crate::context::GpuContext;
use crate::error::GpuError;
use crate::recording::{Command, Recording, Workgroups};

/// One dispatch.
#[derive(Debug, Clone)]
pub struct Step<'a> {
    /// The kernel.
    pub pipeline: &'a wgpu::ComputePipeline,
    /// Its bindings (group 0).
    pub bind_group: &'a wgpu::BindGroup,
    /// Its grid.
    pub grid: Workgroups,
}

/// The body's steps recorded `iterations` times, in order.
#[derive(Debug, Clone, Copy)]
pub struct Sequence<'a> {
    /// Names the work in error messages.
    pub label: &'a str,
    /// One iteration.
    pub body: &'a [Step<'a>],
    /// Iterations to record (an upper bound when the kernels stop themselves).
    pub iterations: u32,
    /// Iterations per command buffer (at least 1): bounds a submission's length, which some drivers
    /// and operating systems limit (watchdogs), and lets the GPU start before all are recorded.
    pub per_submit: u32,
}

impl<'a> Sequence<'a> {
    /// The body once, in one submission.
    pub fn once(label: &'a str, body: &'a [Step<'a>]) -> Self {
        Self { label, body, iterations: 1, per_submit: 1 }
    }
}

impl Sequence<'_> {
    /// Appends `iterations` iterations of the body to `rec` (ignoring `per_submit`).
    pub fn record_into(&self, rec: &mut Recording, iterations: u32) {
        for _ in 0..iterations {
            for step in self.body {
                rec.push(step.command());
            }
        }
    }
}

impl Step<'_> {
    /// The dispatch as a [`Command`].
    pub fn command(&self) -> Command {
        Command::Dispatch {
            pipeline: self.pipeline.clone(),
            bind_group: self.bind_group.clone(),
            grid: self.grid.clone(),
        }
    }
}

impl GpuContext {
    /// Records and submits `seq`, [`Sequence::per_submit`] iterations per [`Recording`] (validation
    /// and out-of-memory errors become [`GpuError`]s). Returns once submitted, not once done: read a
    /// result (or [`GpuContext::wait`]) to wait.
    pub fn run(&self, seq: &Sequence<'_>) -> Result<(), GpuError> {
        let per_submit = seq.per_submit.max(1);
        let mut done = 0;
        while done < seq.iterations {
            let end = done.saturating_add(per_submit).min(seq.iterations);
            let mut rec = Recording::new(seq.label);
            seq.record_into(&mut rec, end - done);
            self.submit(&rec)?;
            done = end;
        }
        Ok(())
    }
}
