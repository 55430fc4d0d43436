//! The one vocabulary for work sent to the GPU.
//!
//! Every algorithm describes what the device should do as a [`Recording`]: dispatches (fixed or
//! indirect grids), buffer clears, buffer-to-buffer copies and timed passes, in order. [`GpuContext::submit`]
//! turns it into one command buffer — consecutive dispatches share a compute pass, where wgpu orders
//! each after the writes of the previous ones — and catches validation and out-of-memory errors under
//! the recording's label. Loops of dispatches are [`crate::sequence::Sequence`]s, which record
//! themselves here; readbacks are [`crate::readback`]. Nothing outside this module creates a command
//! encoder, and `.ci/run` fails if anything does: one place decides how work reaches the device, so
//! labels, error scopes and timestamps behave the same for every algorithm.
//!
//! ```no_run
//! # use urbanflow::gpu::{GpuContext, recording::{Recording, Workgroups}};
//! # fn demo(ctx: &GpuContext, init: &urbanflow::gpu::wgpu::ComputePipeline, bind: &urbanflow::gpu::wgpu::BindGroup,
//! #         state: &urbanflow::gpu::wgpu::Buffer) -> Result<(), urbanflow::gpu::GpuError> {
//! let mut rec = Recording::new("start a batch");
//! rec.clear(state, 0, None);
//! rec.dispatch(init, bind, Workgroups::Fixed([64, 1, 1]));
//! ctx.submit(&rec)?;
//! # Ok(()) }
//! ```

use crate::context::GpuContext;
use crate::error::GpuError;
use crate::timing::GpuTimer;

/// How many workgroups a dispatch launches.
#[derive(Debug, Clone)]
pub enum Workgroups {
    /// Fixed counts `[x, y, z]`; a zero anywhere skips the dispatch (wgpu accepts empty grids, some
    /// drivers dislike them).
    Fixed([u32; 3]),
    /// Three `u32` counts read from this buffer (`INDIRECT` usage) at this byte offset when the dispatch
    /// runs: written by an earlier kernel.
    Indirect(wgpu::Buffer, u64),
}

/// One piece of recorded GPU work. Resources are held by handle (wgpu's are reference-counted), so a
/// recording may outlive the locals that built it.
#[derive(Debug, Clone)]
pub enum Command {
    /// A kernel launch with its group-0 bindings.
    Dispatch {
        /// The kernel.
        pipeline: wgpu::ComputePipeline,
        /// Its bindings (group 0).
        bind_group: wgpu::BindGroup,
        /// Its grid.
        grid: Workgroups,
    },
    /// Zeroes `size` bytes (the rest of the buffer when `None`) from `offset`.
    Clear {
        /// The buffer (`COPY_DST`).
        buffer: wgpu::Buffer,
        /// First byte (a multiple of 4).
        offset: u64,
        /// Bytes to zero (a multiple of 4), or to the end.
        size: Option<u64>,
    },
    /// A device-side copy of `size` bytes.
    Copy {
        /// Source (`COPY_SRC`).
        src: wgpu::Buffer,
        /// Source byte offset.
        src_offset: u64,
        /// Destination (`COPY_DST`).
        dst: wgpu::Buffer,
        /// Destination byte offset.
        dst_offset: u64,
        /// Bytes (a multiple of 4).
        size: u64,
    },
    /// Starts a new compute pass for the dispatches that follow; with `timestamps`, its beginning and
    /// end are written to queries `first` and `first + 1` of the set.
    Pass {
        /// The query set and the first of the pass's two queries.
        timestamps: Option<(wgpu::QuerySet, u32)>,
    },
    /// Resolves queries `0..count` of the set into `destination` (`QUERY_RESOLVE`) at byte 0.
    ResolveQueries {
        /// The query set.
        query_set: wgpu::QuerySet,
        /// Queries to resolve.
        count: u32,
        /// Where the ticks go.
        destination: wgpu::Buffer,
    },
}

/// GPU work in order, submitted as one command buffer by [`GpuContext::submit`].
#[derive(Debug, Clone)]
pub struct Recording {
    label: String,
    commands: Vec<Command>,
}

impl Recording {
    /// An empty recording; `label` names it in error messages and debuggers.
    pub fn new(label: impl Into<String>) -> Self {
        Self { label: label.into(), commands: Vec::new() }
    }

    /// Its label.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The commands recorded so far.
    pub fn commands(&self) -> &[Command] {
        &self.commands
    }

    /// True when nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    /// Appends any command.
    pub fn push(&mut self, command: Command) -> &mut Self {
        self.commands.push(command);
        self
    }

    /// A dispatch of `pipeline` over `grid` with `bind_group` as group 0.
    pub fn dispatch(
        &mut self,
        pipeline: &wgpu::ComputePipeline,
        bind_group: &wgpu::BindGroup,
        grid: Workgroups,
    ) -> &mut Self {
        self.push(Command::Dispatch { pipeline: pipeline.clone(), bind_group: bind_group.clone(), grid })
    }

    /// The same dispatch `times` times in a row (kernels that stop themselves once their work is done).
    pub fn dispatch_repeated(
        &mut self,
        pipeline: &wgpu::ComputePipeline,
        bind_group: &wgpu::BindGroup,
        grid: [u32; 3],
        times: u32,
    ) -> &mut Self {
        for _ in 0..times {
            self.dispatch(pipeline, bind_group, Workgroups::Fixed(grid));
        }
        self
    }

    /// Zeroes `size` bytes of `buffer` from `offset` (to the end when `None`).
    pub fn clear(&mut self, buffer: &wgpu::Buffer, offset: u64, size: Option<u64>) -> &mut Self {
        self.push(Command::Clear { buffer: buffer.clone(), offset, size })
    }

    /// Copies `size` bytes from `src` at `src_offset` to `dst` at `dst_offset`.
    pub fn copy(
        &mut self,
        src: &wgpu::Buffer,
        src_offset: u64,
        dst: &wgpu::Buffer,
        dst_offset: u64,
        size: u64,
    ) -> &mut Self {
        self.push(Command::Copy { src: src.clone(), src_offset, dst: dst.clone(), dst_offset, size })
    }

    /// Starts a new compute pass for the dispatches that follow, timed by the next pair of `timer`'s
    /// queries when it has room (untimed otherwise). Call [`Recording::resolve_timer`] after the timed
    /// passes.
    pub fn timed_pass(&mut self, timer: &mut GpuTimer) -> &mut Self {
        let timestamps = timer.next_pair();
        self.push(Command::Pass { timestamps })
    }

    /// Resolves the queries `timer` handed out, so that [`GpuTimer::read_ns`] can read them once the
    /// submission is done.
    pub fn resolve_timer(&mut self, timer: &GpuTimer) -> &mut Self {
        if let Some((query_set, count, destination)) = timer.resolve_target() {
            self.push(Command::ResolveQueries { query_set, count, destination });
        }
        self
    }

    /// Appends another recording's commands.
    pub fn append(&mut self, other: Recording) -> &mut Self {
        self.commands.extend(other.commands);
        self
    }

    /// Encodes the commands: consecutive dispatches in one compute pass; a clear, copy or resolve
    /// closes it.
    fn encode(&self, device: &wgpu::Device) -> wgpu::CommandBuffer {
        let label = Some(self.label.as_str());
        let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label });
        let mut pass: Option<wgpu::ComputePass<'static>> = None;
        let open = |enc: &mut wgpu::CommandEncoder, timestamps: Option<&(wgpu::QuerySet, u32)>| {
            enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label,
                timestamp_writes: timestamps.map(|(query_set, first)| wgpu::ComputePassTimestampWrites {
                    query_set,
                    beginning_of_pass_write_index: Some(*first),
                    end_of_pass_write_index: Some(*first + 1),
                }),
            })
            .forget_lifetime()
        };
        for command in &self.commands {
            match command {
                Command::Dispatch { pipeline, bind_group, grid } => {
                    if let Workgroups::Fixed(g) = grid
                        && g.contains(&0)
                    {
                        continue;
                    }
                    let p = pass.get_or_insert_with(|| open(&mut enc, None));
                    p.set_pipeline(pipeline);
                    p.set_bind_group(0, bind_group, &[]);
                    match grid {
                        Workgroups::Fixed([x, y, z]) => p.dispatch_workgroups(*x, *y, *z),
                        Workgroups::Indirect(buffer, offset) => {
                            p.dispatch_workgroups_indirect(buffer, *offset)
                        }
                    }
                }
                Command::Pass { timestamps } => {
                    drop(pass.take());
                    pass = Some(open(&mut enc, timestamps.as_ref()));
                }
                Command::Clear { buffer, offset, size } => {
                    drop(pass.take());
                    enc.clear_buffer(buffer, *offset, *size);
                }
                Command::Copy { src, src_offset, dst, dst_offset, size } => {
                    drop(pass.take());
                    enc.copy_buffer_to_buffer(src, *src_offset, dst, *dst_offset, *size);
                }
                Command::ResolveQueries { query_set, count, destination } => {
                    drop(pass.take());
                    enc.resolve_query_set(query_set, 0..*count, destination, 0);
                }
            }
        }
        drop(pass);
        enc.finish()
    }
}

impl GpuContext {
    /// Encodes and submits `recording` (validation and out-of-memory errors become [`GpuError`]s
    /// naming its label). Returns once submitted, not once done: read a result, wait on the returned
    /// index, or call [`GpuContext::wait`].
    pub fn submit(&self, recording: &Recording) -> Result<wgpu::SubmissionIndex, GpuError> {
        self.scoped(&recording.label, || {
            let commands = recording.encode(&self.device);
            self.queue.submit([commands])
        })
    }

    /// Blocks until the submission `index` is done.
    pub fn wait_for(&self, index: wgpu::SubmissionIndex, context: &str) -> Result<(), GpuError> {
        self.device
            .poll(wgpu::PollType::Wait { submission_index: Some(index), timeout: None })
            .map_err(|e| GpuError::Validation { context: context.into(), message: e.to_string() })?;
        self.check_alive()
    }
}
