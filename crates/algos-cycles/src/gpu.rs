//! Chordless cycles on a GPU: the level-synchronous machine of [`crate::levels`] run by
//! `shaders/cycles_levels.wgsl`, many steps per submission (the loop ends itself on the device), the
//! host looking at the state between submissions and draining cycle records when their buffer fills.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};

use gpu_runtime::Workgroups;
use gpu_runtime::sequence::{Sequence, Step};
use gpu_runtime::{GpuBuffer, GpuContext, PipelineKey, Shader, wgpu};

use crate::CyclesError;
use crate::enumerate::{ChordlessOptions, CycleStats, Ranked, ranked};
use crate::graph::SimpleGraph;
use crate::levels::{Capacities, CyclesLevelsMirror, Layout, LevelMachine, Machine, drive};

const LEVELS: Shader = gpu_runtime::shader!("cycles_levels");

/// Invocations per workgroup of the per-row kernels.
const WG: u32 = 256;

/// Control words before the per-length counters (the shader's `C_LENGTHS`).
const LENGTHS_AT: usize = 32;

/// Buffer sizes of the level-synchronous expansion (GPU and its CPU mirror). `None` takes the default.
///
/// Smaller path stacks never change the result, only how the levels are cut into chunks (and so the
/// order of the cycles): the expansion goes depth-first over chunks when a level does not fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LevelsConfig {
    /// Bytes of the two path stacks (default 1 GiB on a GPU, 16 MiB on software adapters and the
    /// mirror; never more than one storage binding holds). Allocating the stacks is most of a small
    /// run's fixed cost (about 50 ms per GiB on an H100), while stacks too small cut big graphs' levels
    /// into many chunks: 1 GiB was the fastest size measured on grids 6×10 to 8×10 and 3×4×4
    /// (docs/benchmarks.md, "The path arena's size").
    pub path_bytes: Option<u64>,
    /// Bytes of cycle records held before the host drains them (default 256 MiB, 4 MiB on software
    /// adapters and the mirror). Count-only runs without a limit write no records.
    pub cycle_bytes: Option<u64>,
    /// Most paths examined per step (default 2^24).
    pub window_rows: Option<u32>,
    /// Steps recorded per submission at first (doubling up to 1,024 while the run goes on).
    pub steps_per_submit: u32,
}

impl Default for LevelsConfig {
    fn default() -> Self {
        Self { path_bytes: None, cycle_bytes: None, window_rows: None, steps_per_submit: 32 }
    }
}

impl LevelsConfig {
    /// The capacities for `g` when one binding holds at most `binding` bytes; `small` selects the
    /// software defaults.
    fn capacities(
        &self,
        g: &SimpleGraph,
        records: bool,
        binding: u64,
        small: bool,
    ) -> Result<Capacities, CyclesError> {
        let lay = Layout::new(g.num_vertices());
        let row_bytes = lay.stride as u64 * 4;
        let path_bytes = self.path_bytes.unwrap_or(if small { 16 << 20 } else { 1 << 30 }).min(binding);
        // Word indices of both stacks stay below 2^32.
        let rows_per_stack =
            (path_bytes / (2 * row_bytes)).min(u32::MAX as u64 / (2 * lay.stride as u64)) as u32;
        if rows_per_stack == 0 {
            return Err(CyclesError::MemoryBudget { depth: 0, rows: 0, bytes: path_bytes });
        }
        let degree = (0..g.num_vertices()).map(|v| g.degree(v)).max().unwrap_or(0).max(1);
        // One path closes at most `degree` cycles: the buffer holds at least that many, so draining
        // it always makes room.
        let cycle_rows = if records {
            let bytes = self.cycle_bytes.unwrap_or(if small { 4 << 20 } else { 256 << 20 }).min(binding);
            (bytes / row_bytes).clamp(degree as u64, u32::MAX as u64) as u32
        } else {
            0
        };
        // Window sums of children and cycles (at most the degree each) stay below 2^31.
        let scratch_rows = (binding / 8).saturating_sub(binding / 8 / WG as u64 + 1);
        let window = (self.window_rows.unwrap_or(1 << 24) as u64)
            .min((1u64 << 31) / degree as u64)
            .min(scratch_rows)
            .max(1) as u32;
        Ok(Capacities { rows_per_stack, cycle_rows, window })
    }
}

/// Every chordless cycle of `g` computed on `ctx`: the same cycles as [`crate::chordless_cycles`]
/// (each once, as the graph's ids, `v2` the lowest-ranked vertex), in breadth-first order — the order
/// of [`cycles_levels_mirror`] with the same configuration. Count-only runs without a limit write
/// no cycle records at all. `limit` keeps the first cycles of that order.
///
/// ```no_run
/// use std::ops::ControlFlow;
/// use urbanflow::cycles::{ChordlessOptions, SimpleGraph, Simplify, chordless_cycles_gpu};
/// let ctx = urbanflow::gpu::GpuContext::new().unwrap();
/// let (g, _) = SimpleGraph::from_csr(&urbanflow::graph::generators::grid_2d(6, 10), Simplify::Repair).unwrap();
/// let opts = ChordlessOptions { count_only: true, ..Default::default() };
/// let stats = chordless_cycles_gpu(&ctx, &g, &opts, &mut |_| ControlFlow::Continue(())).unwrap();
/// assert_eq!(stats.total, 800_139);
/// ```
pub fn chordless_cycles_gpu(
    ctx: &GpuContext,
    g: &SimpleGraph,
    opts: &ChordlessOptions,
    sink: &mut dyn FnMut(&[u32]) -> ControlFlow<()>,
) -> Result<CycleStats, CyclesError> {
    chordless_cycles_gpu_with(ctx, g, opts, &LevelsConfig::default(), sink)
}

/// [`chordless_cycles_gpu`] with chosen buffer sizes.
pub fn chordless_cycles_gpu_with(
    ctx: &GpuContext,
    g: &SimpleGraph,
    opts: &ChordlessOptions,
    cfg: &LevelsConfig,
    sink: &mut dyn FnMut(&[u32]) -> ControlFlow<()>,
) -> Result<CycleStats, CyclesError> {
    let max_len = opts.check()?;
    let r = ranked(g);
    let binding = ctx.limits.max_storage_buffer_binding_size.min(ctx.limits.max_buffer_size);
    let caps = cfg.capacities(&r.g, records_needed(opts), binding, ctx.is_software())?;
    let mut machine = GpuMachine::new(ctx, &r, caps, opts.min_len, max_len, cfg.steps_per_submit)?;
    drive(&r, opts, max_len, caps, sink, &mut machine)
}

/// [`chordless_cycles_gpu`] counting (`opts.count_only`, no limit) until `stop` is set: `None` when it
/// was (checked between submissions).
pub(crate) fn count_gpu_until(
    ctx: &GpuContext,
    g: &SimpleGraph,
    opts: &ChordlessOptions,
    stop: &AtomicBool,
) -> Result<Option<CycleStats>, CyclesError> {
    let max_len = opts.check()?;
    let r = ranked(g);
    let cfg = LevelsConfig::default();
    let binding = ctx.limits.max_storage_buffer_binding_size.min(ctx.limits.max_buffer_size);
    let caps = cfg.capacities(&r.g, records_needed(opts), binding, ctx.is_software())?;
    let mut machine = GpuMachine::new(ctx, &r, caps, opts.min_len, max_len, cfg.steps_per_submit)?;
    machine.stop = Some(stop);
    let stats = drive(&r, opts, max_len, caps, &mut |_| ControlFlow::Continue(()), &mut machine)?;
    Ok((!stop.load(Ordering::Relaxed)).then_some(stats))
}

/// The CPU mirror of [`chordless_cycles_gpu_with`]: the same steps, decisions and output order, one
/// path at a time (slow; for tests and for reading the algorithm).
pub fn cycles_levels_mirror(
    g: &SimpleGraph,
    opts: &ChordlessOptions,
    cfg: &LevelsConfig,
    sink: &mut dyn FnMut(&[u32]) -> ControlFlow<()>,
) -> Result<CycleStats, CyclesError> {
    let max_len = opts.check()?;
    let r = ranked(g);
    let caps = cfg.capacities(&r.g, records_needed(opts), u32::MAX as u64, true)?;
    let mut machine = CyclesLevelsMirror::new(&r.g, caps, opts.min_len, max_len);
    drive(&r, opts, max_len, caps, sink, &mut machine)
}

/// The expansion's five pipelines (compiled once per context, then cached by it): `start`, `count`,
/// `fit`, `write`, `finish`.
fn pipelines(ctx: &GpuContext) -> Result<[std::sync::Arc<wgpu::ComputePipeline>; 5], CyclesError> {
    let key = |entry| PipelineKey::new(LEVELS, entry).with("WG", WG);
    Ok([
        ctx.pipeline(&key("start"))?,
        ctx.pipeline(&key("count"))?,
        ctx.pipeline(&key("fit"))?,
        ctx.pipeline(&key("write"))?,
        ctx.pipeline(&key("finish"))?,
    ])
}

/// Compiles the pipelines ahead of a run (the automatic choice does it while the CPU works).
pub(crate) fn warm_up(ctx: &GpuContext) -> Result<(), CyclesError> {
    pipelines(ctx).map(|_| ())
}

/// Whether cycle records must be written: to pass them on, or to stop at a limit in output order.
fn records_needed(opts: &ChordlessOptions) -> bool {
    !opts.count_only || opts.limit.is_some()
}

/// The machine's buffers and kernels on one device.
struct GpuMachine<'a> {
    ctx: &'a GpuContext,
    stride: usize,
    n: usize,
    arena: GpuBuffer<u32>,
    control: GpuBuffer<u32>,
    cycles: GpuBuffer<u32>,
    pipelines: [std::sync::Arc<wgpu::ComputePipeline>; 5],
    binds: [wgpu::BindGroup; 5],
    args: GpuBuffer<u32>,
    steps_per_submit: u32,
    machine: Machine,
    /// Set by another thread to end the run early (an automatic choice's race that the CPU won).
    stop: Option<&'a AtomicBool>,
}

impl<'a> GpuMachine<'a> {
    fn new(
        ctx: &'a GpuContext,
        r: &Ranked,
        caps: Capacities,
        min_len: u32,
        max_len: u32,
        steps_per_submit: u32,
    ) -> Result<Self, CyclesError> {
        let g = &r.g;
        let n = g.num_vertices() as usize;
        let lay = Layout::new(n as u32);
        let (offsets, adj) = g.raw();
        let mut words = Vec::with_capacity(offsets.len() + adj.len());
        words.extend_from_slice(offsets);
        words.extend_from_slice(adj);
        let graph = GpuBuffer::from_slice(ctx, "cycles graph", &words)?;
        let arena = GpuBuffer::<u32>::zeroed(
            ctx,
            "cycles paths",
            2 * caps.rows_per_stack as usize * lay.stride as usize,
        )?;
        let blocks = caps.window.div_ceil(WG) as usize;
        let scratch = GpuBuffer::<u32>::zeroed(ctx, "cycles counts", 2 * (caps.window as usize + blocks))?;
        let seg_at = LENGTHS_AT + 2 * (n + 2);
        let control = GpuBuffer::<u32>::zeroed(ctx, "cycles control", seg_at + n + 1)?;
        let cycles = GpuBuffer::<u32>::zeroed(
            ctx,
            "cycles records",
            caps.cycle_rows.max(1) as usize * lay.stride as usize,
        )?;
        let args = GpuBuffer::<u32>::zeroed_with_usage(ctx, "cycles grid", 3, wgpu::BufferUsages::INDIRECT)?;
        for b in [&graph, &arena, &scratch, &control, &cycles] {
            b.check_bindable(ctx)?;
        }
        let params = ctx.uniform_words(
            "cycles params",
            &[
                n as u32,
                lay.words,
                lay.stride,
                caps.rows_per_stack,
                caps.cycle_rows,
                min_len,
                max_len,
                caps.window,
                ctx.limits.max_compute_workgroups_per_dimension,
                offsets.len() as u32,
                caps.window,
                seg_at as u32,
            ],
        );
        let pipelines = pipelines(ctx)?;
        let all = [
            (0, &params),
            (1, graph.buffer()),
            (2, arena.buffer()),
            (3, scratch.buffer()),
            (4, control.buffer()),
            (5, cycles.buffer()),
        ];
        let plan = [(0, &params), (4, control.buffer()), (6, args.buffer())];
        let fit = [(0, &params), (3, scratch.buffer()), (4, control.buffer())];
        let binds = [
            ctx.bind_buffers(&pipelines[0], "cycles start", &plan)?,
            ctx.bind_buffers(&pipelines[1], "cycles count", &all)?,
            ctx.bind_buffers(&pipelines[2], "cycles fit", &fit)?,
            ctx.bind_buffers(&pipelines[3], "cycles write", &all)?,
            ctx.bind_buffers(&pipelines[4], "cycles finish", &plan)?,
        ];
        Ok(Self {
            ctx,
            stride: lay.stride as usize,
            n,
            arena,
            control,
            cycles,
            pipelines,
            binds,
            args,
            steps_per_submit: steps_per_submit.max(1),
            machine: Machine::default(),
            stop: None,
        })
    }

    /// Passes the stored cycle records to `drain` and empties their buffer.
    fn drain(
        &self,
        stored: usize,
        drain: &mut dyn FnMut(&[u32]) -> ControlFlow<()>,
    ) -> Result<ControlFlow<()>, CyclesError> {
        if stored == 0 {
            return Ok(ControlFlow::Continue(()));
        }
        let records = self.cycles.read_range(self.ctx, 0, stored * self.stride)?;
        self.control.write(self.ctx, C_STORED, &[0])?;
        for rec in records.chunks_exact(self.stride) {
            if drain(rec).is_break() {
                return Ok(ControlFlow::Break(()));
            }
        }
        Ok(ControlFlow::Continue(()))
    }
}

// Control words (the shader's C_*).
const C_FLAGS: usize = 3;
const C_DEPTH: usize = 4;
const C_STORED: usize = 16;
const C_STEPS: usize = 17;
const C_PEAK: usize = 18;
const DONE: u32 = 1;
const OUT_OF_MEMORY: u32 = 2;
const STALLED: u32 = 4;

impl LevelMachine for GpuMachine<'_> {
    fn run(
        &mut self,
        rows: &[u32],
        drain: &mut dyn FnMut(&[u32]) -> ControlFlow<()>,
    ) -> Result<ControlFlow<()>, CyclesError> {
        let ctx = self.ctx;
        let count = (rows.len() / self.stride) as u32;
        self.arena.write(ctx, 0, rows)?;
        // flags, depth, top[0], top[1]; nothing stored; depth 0 starts at row 0.
        self.control.write(ctx, C_FLAGS, &[0, 0, count, 0])?;
        self.control.write(ctx, C_STORED, &[0])?;
        self.control.write(ctx, LENGTHS_AT + 2 * (self.n + 2), &[0])?;
        let [start, count_pl, fit, write, finish] = &self.pipelines;
        let [start_bg, count_bg, fit_bg, write_bg, finish_bg] = &self.binds;
        let body = [
            Step {
                pipeline: count_pl,
                bind_group: count_bg,
                grid: Workgroups::Indirect(self.args.buffer().clone(), 0),
            },
            Step { pipeline: fit, bind_group: fit_bg, grid: Workgroups::Fixed([1, 1, 1]) },
            Step {
                pipeline: write,
                bind_group: write_bg,
                grid: Workgroups::Indirect(self.args.buffer().clone(), 0),
            },
            Step { pipeline: finish, bind_group: finish_bg, grid: Workgroups::Fixed([1, 1, 1]) },
        ];
        let begin = [Step { pipeline: start, bind_group: start_bg, grid: Workgroups::Fixed([1, 1, 1]) }];
        let mut steps = self.steps_per_submit;
        loop {
            ctx.run(&Sequence::once("chordless cycles: plan", &begin))?;
            ctx.run(&Sequence {
                label: "chordless cycles: expand",
                body: &body,
                iterations: steps,
                per_submit: steps,
            })?;
            steps = (steps * 2).min(1024);
            let state = self.control.read_range(ctx, 0, LENGTHS_AT)?;
            self.machine = Machine { steps: state[C_STEPS] as u64, peak_rows: state[C_PEAK] as u64 };
            let flags = state[C_FLAGS];
            if flags & OUT_OF_MEMORY != 0 {
                let row_bytes = self.stride as u64 * 4;
                let rows = self.arena.len() as u64 / self.stride as u64 / 2;
                return Err(CyclesError::MemoryBudget {
                    depth: state[C_DEPTH],
                    rows,
                    bytes: 2 * rows * row_bytes,
                });
            }
            if self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                return Ok(ControlFlow::Break(()));
            }
            if flags & (DONE | STALLED) != 0 {
                if self.drain(state[C_STORED] as usize, drain)?.is_break() {
                    return Ok(ControlFlow::Break(()));
                }
                if flags & DONE != 0 {
                    return Ok(ControlFlow::Continue(()));
                }
                self.control.write(ctx, C_FLAGS, &[0])?;
            }
        }
    }

    fn lengths(&mut self) -> Result<Vec<u64>, CyclesError> {
        let words = self.control.read_range(self.ctx, LENGTHS_AT, 2 * (self.n + 2))?;
        Ok(words.chunks_exact(2).map(|w| w[0] as u64 | (w[1] as u64) << 32).collect())
    }

    fn machine(&self) -> Machine {
        self.machine
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Simplify, count_chordless_cycles_rayon};

    /// The race's GPU count (the `Auto` path) gives the CPU's totals and length histogram when left
    /// to finish, and nothing once stopped: a stopped count must never pass for a whole one.
    #[test]
    fn count_until_equals_the_cpu_or_gives_up() {
        gpu_runtime::testing::for_each_context("count_until_equals_the_cpu_or_gives_up", |ctx| {
            for (w, h) in [(4, 5), (5, 6)] {
                let (g, _) =
                    SimpleGraph::from_csr(&graph_core::generators::grid_2d(w, h), Simplify::Repair).unwrap();
                let opts = ChordlessOptions { count_only: true, ..Default::default() };
                let want = count_chordless_cycles_rayon(&g, &opts).unwrap();
                let go = AtomicBool::new(false);
                let got = count_gpu_until(ctx, &g, &opts, &go).unwrap().expect("not stopped");
                assert_eq!((got.total, &got.by_length), (want.total, &want.by_length), "grid {w}×{h}");
                let stop = AtomicBool::new(true);
                assert!(count_gpu_until(ctx, &g, &opts, &stop).unwrap().is_none(), "grid {w}×{h}, stopped");
            }
        });
    }
}
