//! Many trees at once on the GPU, one source per workgroup (`shaders/sssp_batch.wgsl`).
//!
//! A batch of `slots` sources runs in one dispatch (repeated until every workgroup's search has
//! ended): each workgroup runs a near–far label-correcting search for its source inside the
//! workgroup, so the work done is proportional to the arcs actually relaxed, not to `sources × n` per
//! launch as in a batched vertex-parallel sweep. The rows stay on the device ([`GpuBatchSssp::run`], for
//! GPU consumers such as all-or-nothing loading) or stream to the host with the copy of one batch
//! overlapping the search of the next ([`GpuBatchSssp::for_each_block`]).

use gpu_runtime::readback::{PendingReadback, ReadbackRing};
use gpu_runtime::{GpuBuffer, GpuContext, PipelineKey, Recording, Shader, wgpu};
use graph_core::Csr;
use rayon::prelude::*;

use super::{BatchConfig, GraphBuffers, mean_weight};
use crate::error::SsspError;
use crate::paths::{SATURATED, SsspStats};

const BATCH: Shader = gpu_runtime::shader!("sssp_batch");

/// The kernel's WGSL source (its hash versions the tuning cache).
pub(crate) const SOURCE: &str = BATCH.source;

/// Iterations each workgroup runs per dispatch: bounds the length of one dispatch.
pub const DEFAULT_BUDGET: u32 = 1024;
/// Device memory the per-slot buffers may take by default (distances, flags, two lists: 16 bytes per
/// slot and vertex). If the device cannot allocate it, [`crate::many`] halves the slots.
pub const DEFAULT_MEMORY: u64 = 4 << 30;
/// Most slots in one batch by default.
pub const MAX_SLOTS: usize = 4096;

impl BatchConfig {
    /// Defaults for `graph` on `ctx`: 256 invocations (or the device's maximum when lower), Δ = 4 × the
    /// mean arc weight — the best or within 5% of the best of the nine tuning candidates on NY and bremen
    /// on the H100 (docs/benchmarks.md) — and as many slots as [`DEFAULT_MEMORY`], the storage-binding
    /// limit and [`MAX_SLOTS`] allow.
    pub fn for_graph(ctx: &GpuContext, graph: &Csr<u32>) -> Self {
        let mean = mean_weight(graph);
        Self {
            workgroup_size: 256.min(ctx.limits.max_compute_invocations_per_workgroup),
            slots: max_slots(ctx, graph.num_vertices(), DEFAULT_MEMORY),
            delta: ((4.0 * mean) as u32).max(1),
            budget: DEFAULT_BUDGET,
        }
    }
}

/// Most slots for `n` vertices: each per-slot buffer (4 bytes per vertex and slot) must fit one storage
/// binding and u32 indexing, and all of them together (16 bytes per vertex and slot) `memory` bytes.
pub fn max_slots(ctx: &GpuContext, n: u32, memory: u64) -> usize {
    let n = n.max(1) as u64;
    let binding = ctx.limits.max_storage_buffer_binding_size.min(u32::MAX as u64 + 1);
    let by_binding = binding / (4 * n);
    let by_memory = memory / (16 * n);
    by_binding.min(by_memory).clamp(1, MAX_SLOTS as u64) as usize
}

/// The graph and `slots` rows of scratch resident on the device, reused by every batch.
pub struct GpuBatchSssp<'a> {
    ctx: &'a GpuContext,
    graph: &'a Csr<u32>,
    config: BatchConfig,
    pipeline: std::sync::Arc<wgpu::ComputePipeline>,
    bind: wgpu::BindGroup,
    // One workgroup per slot for a full batch (a 2-D grid when the slots exceed one dimension).
    grid: [u32; 3],
    dist: GpuBuffer<u32>,
    sources: GpuBuffer<u32>,
    state: GpuBuffer<u32>,
    control: GpuBuffer<u32>,
    params: wgpu::Buffer,
    /// Rows of one batch travel to the host while the device searches the next.
    readback: ReadbackRing<'a>,
    // Kept alive for the bind group.
    _graph_buffers: GraphBuffers,
    _flags: GpuBuffer<u32>,
    _lists: [GpuBuffer<u32>; 2],
    overflow_possible: bool,
}

impl<'a> GpuBatchSssp<'a> {
    /// Uploads `graph` and allocates `config.slots` rows of scratch.
    pub fn new(ctx: &'a GpuContext, graph: &'a Csr<u32>, config: BatchConfig) -> Result<Self, SsspError> {
        let n = graph.num_vertices();
        if config.slots == 0 || config.delta == 0 || config.budget == 0 || config.workgroup_size == 0 {
            return Err(SsspError::InvalidParameter(format!(
                "batched GPU configuration {config:?} has a zero"
            )));
        }
        if config.workgroup_size > ctx.limits.max_compute_invocations_per_workgroup
            || config.workgroup_size > ctx.limits.max_compute_workgroup_size_x
        {
            return Err(SsspError::InvalidParameter(format!(
                "workgroup size {} exceeds the device limit {}",
                config.workgroup_size, ctx.limits.max_compute_invocations_per_workgroup
            )));
        }
        if (config.slots as u64) * (n.max(1) as u64) > u32::MAX as u64 {
            return Err(SsspError::InvalidParameter(format!(
                "{} slots of {n} vertices overflow 32-bit indexing",
                config.slots
            )));
        }
        let cells = config.slots * n.max(1) as usize;
        let graph_buffers = GraphBuffers::upload(ctx, graph)?;
        let dist = GpuBuffer::zeroed(ctx, "batch dist", cells)?;
        let flags = GpuBuffer::zeroed(ctx, "batch flags", cells)?;
        let lists =
            [GpuBuffer::zeroed(ctx, "batch list 0", cells)?, GpuBuffer::zeroed(ctx, "batch list 1", cells)?];
        let sources = GpuBuffer::zeroed(ctx, "batch sources", config.slots)?;
        let state = GpuBuffer::zeroed(ctx, "batch state", 4 * config.slots)?;
        let control = GpuBuffer::zeroed(ctx, "batch control", 4)?;
        for b in [&dist, &flags, &lists[0], &lists[1], &sources, &state] {
            b.check_bindable(ctx)?;
        }
        let params = ctx.uniform_words("batch params", &[0; 4]);
        let pipeline = ctx.pipeline(&PipelineKey::new(BATCH, "search").with("WG", config.workgroup_size))?;
        let mut entries = graph_buffers.entries().to_vec();
        entries.extend([
            (3, dist.buffer()),
            (4, flags.buffer()),
            (5, lists[0].buffer()),
            (10, lists[1].buffer()),
            (6, state.buffer()),
            (7, sources.buffer()),
            (8, control.buffer()),
            (9, &params),
        ]);
        let bind = ctx.bind_buffers(&pipeline, "batch sssp", &entries)?;
        let grid = gpu_runtime::dispatch::workgroups_1d(
            config.slots as u64,
            ctx.limits.max_compute_workgroups_per_dimension,
        )?;
        let max_w = graph.weights().iter().copied().max().unwrap_or(0) as u64;
        Ok(Self {
            ctx,
            graph,
            config,
            pipeline,
            bind,
            grid,
            dist,
            sources,
            state,
            control,
            params,
            // Sized for a full batch from the start; from the context's pool, so a solver made per
            // block of a long run reuses the pinned buffers of the one before instead of allocating
            // gigabytes again.
            readback: ReadbackRing::new(ctx, "batch rows").with_capacity((cells * 4) as u64),
            _graph_buffers: graph_buffers,
            _flags: flags,
            _lists: lists,
            // A shortest path has at most n − 1 arcs, so below this bound no sum can saturate.
            overflow_possible: (n as u64).saturating_sub(1) * max_w >= SATURATED as u64,
        })
    }

    /// The launch configuration in use.
    pub fn config(&self) -> BatchConfig {
        self.config
    }

    /// Sources per batch.
    pub fn slots(&self) -> usize {
        self.config.slots
    }

    /// The device rows of the last batch: row `i` (words `i * n .. (i + 1) * n`) belongs to its
    /// `i`-th source. Saturated sums (`u32::MAX − 1`) are left for the consumer to detect.
    pub fn dist_buffer(&self) -> &GpuBuffer<u32> {
        &self.dist
    }

    fn check_sources(&self, sources: &[u32]) -> Result<(), SsspError> {
        let n = self.graph.num_vertices();
        if let Some(&s) = sources.iter().find(|&&s| s >= n) {
            return Err(SsspError::SourceOutOfRange { vertex: s, n });
        }
        if sources.len() > self.config.slots {
            return Err(SsspError::InvalidParameter(format!(
                "{} sources exceed the {} slots of this batch solver",
                sources.len(),
                self.config.slots
            )));
        }
        Ok(())
    }

    /// Submits the start of a batch (sources, cleared state, the first dispatches).
    fn start(&self, sources: &[u32], stats: &mut SsspStats) -> Result<u32, SsspError> {
        self.sources.write(self.ctx, 0, sources)?;
        let p = [self.graph.num_vertices(), sources.len() as u32, self.config.delta, self.config.budget];
        self.ctx.write_words(&self.params, 0, &p);
        let first = 2;
        let mut rec = Recording::new("starting a batch of trees");
        rec.clear(self.state.buffer(), 0, Some(16 * sources.len() as u64));
        rec.clear(self.control.buffer(), 0, None);
        self.record(&mut rec, sources.len(), first);
        self.ctx.submit(&rec)?;
        stats.dispatches += first as u64;
        Ok(first)
    }

    fn record(&self, rec: &mut Recording, slots: usize, dispatches: u32) {
        // A batch of fewer slots gets a smaller grid; the full one was validated in `new`.
        let max = self.ctx.limits.max_compute_workgroups_per_dimension;
        let grid = gpu_runtime::dispatch::workgroups_1d(slots as u64, max).unwrap_or(self.grid);
        rec.dispatch_repeated(&self.pipeline, &self.bind, grid, dispatches);
    }

    /// Waits for the batch started by [`Self::start`], adding dispatches until every slot finished.
    fn finish(&self, slots: usize, mut dispatches: u32, stats: &mut SsspStats) -> Result<(), SsspError> {
        loop {
            let control = self.control.read(self.ctx)?;
            stats.readbacks += 1;
            if control[0] as usize >= slots {
                stats.phases += control[1] as u64;
                return Ok(());
            }
            dispatches = (dispatches * 2).min(64);
            let mut rec = Recording::new("continuing a batch of trees");
            self.record(&mut rec, slots, dispatches);
            self.ctx.submit(&rec)?;
            stats.dispatches += dispatches as u64;
        }
    }

    /// Trees from `sources` (at most [`Self::slots`]), left on the device in [`Self::dist_buffer`].
    pub fn run(&mut self, sources: &[u32]) -> Result<SsspStats, SsspError> {
        self.check_sources(sources)?;
        let mut stats = SsspStats::default();
        if sources.is_empty() {
            return Ok(stats);
        }
        let first = self.start(sources, &mut stats)?;
        self.finish(sources.len(), first, &mut stats)?;
        Ok(stats)
    }

    /// Trees from every source, in batches of [`Self::slots`]; `f(first, sources, rows)` receives each
    /// batch in order (`rows` row-major, `n` per source) while the device already searches the next.
    pub fn for_each_block(
        &mut self,
        sources: &[u32],
        f: impl FnMut(usize, &[u32], &[u32]),
    ) -> Result<SsspStats, SsspError> {
        let n = self.graph.num_vertices();
        if let Some(&s) = sources.iter().find(|&&s| s >= n) {
            return Err(SsspError::SourceOutOfRange { vertex: s, n });
        }
        let slots = self.config.slots;
        let mut next = 0;
        self.for_each_fed_block(
            || {
                let first = next;
                next = (next + slots).min(sources.len());
                (first < next).then(|| (first, sources[first..next].to_vec()))
            },
            f,
        )
    }

    /// Like [`Self::for_each_block`] with the blocks chosen as the work goes: `feed()` gives the next
    /// block (its position in the caller's list and at most [`Self::slots`] sources) or `None` when
    /// done. Used by schedulers that share a source list with CPU threads.
    pub fn for_each_fed_block(
        &mut self,
        mut feed: impl FnMut() -> Option<(usize, Vec<u32>)>,
        mut f: impl FnMut(usize, &[u32], &[u32]),
    ) -> Result<SsspStats, SsspError> {
        let n = self.graph.num_vertices() as usize;
        let mut stats = SsspStats::default();
        // (position, sources, copy under way) of the batch being read back.
        let mut pending: Option<(usize, Vec<u32>, PendingReadback)> = None;
        while let Some((first, block)) = feed() {
            self.check_sources(&block)?;
            if block.is_empty() {
                continue;
            }
            let dispatches = self.start(&block, &mut stats)?;
            if let Some((pos, srcs, copy)) = pending.take() {
                self.consume(pos, &srcs, copy, &mut f)?;
                stats.readbacks += 1;
            }
            self.finish(block.len(), dispatches, &mut stats)?;
            let copy = self.readback.start(self.dist.buffer(), (block.len() * n * 4) as u64)?;
            pending = Some((first, block, copy));
        }
        if let Some((pos, srcs, copy)) = pending.take() {
            self.consume(pos, &srcs, copy, &mut f)?;
            stats.readbacks += 1;
        }
        Ok(stats)
    }

    fn consume(
        &mut self,
        first: usize,
        block: &[u32],
        copy: PendingReadback,
        f: &mut impl FnMut(usize, &[u32], &[u32]),
    ) -> Result<(), SsspError> {
        let words = block.len() * self.graph.num_vertices() as usize;
        let overflow_possible = self.overflow_possible;
        let consumed = self.readback.read(copy, |rows: &[u32]| {
            let rows = &rows[..words];
            // Scanned on all cores: one thread reading a batch of rows (hundreds of MB on a road
            // network) was the bound of the whole streamed path.
            if overflow_possible && rows.par_chunks(1 << 16).any(|c| c.contains(&SATURATED)) {
                return false;
            }
            f(first, block, rows);
            true
        })?;
        if consumed { Ok(()) } else { Err(SsspError::WeightOverflow { bound: SATURATED }) }
    }
}
