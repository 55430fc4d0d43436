//! GPU shortest paths: the graph resident on the device, one solver for every GPU algorithm.
//!
//! Loop control (spec sssp.md §3.5): each algorithm records a batch of phases into one submission;
//! phases after the last useful one are no-ops (every kernel tests the `done` word first), and the host
//! reads the control words once per batch. Batches grow 16, 32, … up to 1024 phases.

pub(crate) mod batch;
mod config;
mod frontier;

pub use batch::{DEFAULT_BUDGET, DEFAULT_MEMORY, GpuBatchSssp, MAX_SLOTS, max_slots};
pub use config::BatchConfig;
pub use frontier::{SettleRule, sssp_frontier_mirror};

use gpu_runtime::Workgroups;
use gpu_runtime::sequence::{Sequence, Step};
use gpu_runtime::{GpuBuffer, GpuContext, PipelineKey, Shader, wgpu};
use graph_core::Csr;

use crate::algorithm::Algorithm;
use crate::error::SsspError;
use crate::paths::{SATURATED, SsspStats, UNREACHABLE};
use crate::pred::{canonical_predecessors, has_zero_weight};

const HARISH: Shader = gpu_runtime::shader!("sssp_harish");
const FRONTIER: Shader = gpu_runtime::shader!("sssp_frontier");
const NEAR_FAR: Shader = gpu_runtime::shader!("sssp_nearfar");
const PRED: Shader = gpu_runtime::shader!("sssp_pred");
const LBR: Shader = gpu_runtime::shader!("sssp_lbr");
const JRADI: Shader = gpu_runtime::shader!("sssp_jradi");

/// Invocations per workgroup of the per-vertex kernels.
pub const WG: u32 = 256;
const FIRST_BATCH: u32 = 16;
const MAX_BATCH: u32 = 1024;

/// One invocation's grid.
const ONE: Workgroups = Workgroups::Fixed([1, 1, 1]);

/// A step of a phase loop.
fn step<'a>(
    pipeline: &'a wgpu::ComputePipeline,
    bind_group: &'a wgpu::BindGroup,
    grid: Workgroups,
) -> Step<'a> {
    Step { pipeline, bind_group, grid }
}

/// A GPU algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuAlgorithm {
    /// Harish & Narayanan, race fixed.
    Harish,
    /// Label-setting frontier phases with a settle rule.
    Frontier(SettleRule),
    /// Near–far with bucket width Δ (`None`: from the weights).
    NearFar(Option<u32>),
    /// Locality-based relaxation following improvements up to `k` hops (1..=8).
    Lbr(u32),
    /// Jradi's Dijkstra in one workgroup.
    Jradi,
}

impl GpuAlgorithm {
    /// The GPU algorithm behind an [`Algorithm`], if it is one.
    pub fn from_algorithm(a: Algorithm) -> Option<Self> {
        Some(match a {
            Algorithm::Harish => Self::Harish,
            Algorithm::Martin => Self::Frontier(SettleRule::MinOnly),
            Algorithm::CrauserOut => Self::Frontier(SettleRule::Out),
            Algorithm::CrauserInOut => Self::Frontier(SettleRule::InOut),
            Algorithm::NearFar(d) => Self::NearFar(d),
            Algorithm::Lbr(k) => Self::Lbr(k),
            Algorithm::Jradi => Self::Jradi,
            _ => return None,
        })
    }
}

/// Distances (and predecessors) from one GPU run.
#[derive(Debug, Clone)]
pub struct GpuRun {
    /// Distance per vertex (`UNREACHABLE` when not reached).
    pub dist: Vec<u32>,
    /// Canonical predecessor arcs, when asked for.
    pub pred_arc: Option<Vec<u32>>,
    /// Phases, dispatches and host round trips.
    pub stats: SsspStats,
}

/// A CSR graph on the device: the bindings 0–2 (`offsets`, `targets`, `weights`) of every kernel that
/// includes `sssp_common`.
pub struct GraphBuffers {
    offsets: GpuBuffer<u32>,
    targets: GpuBuffer<u32>,
    weights: GpuBuffer<u32>,
}

impl GraphBuffers {
    /// Uploads `graph`, checked against the device's buffer and binding limits.
    pub fn upload(ctx: &GpuContext, graph: &Csr<u32>) -> Result<Self, SsspError> {
        let offsets = GpuBuffer::from_slice(ctx, "graph offsets", graph.offsets())?;
        let targets = GpuBuffer::from_slice(ctx, "graph targets", graph.targets())?;
        let weights = GpuBuffer::from_slice(ctx, "graph weights", graph.weights())?;
        for b in [&offsets, &targets, &weights] {
            b.check_bindable(ctx)?;
        }
        Ok(Self { offsets, targets, weights })
    }

    /// `(binding, buffer)` for bindings 0, 1 and 2.
    pub fn entries(&self) -> [(u32, &wgpu::Buffer); 3] {
        [(0, self.offsets.buffer()), (1, self.targets.buffer()), (2, self.weights.buffer())]
    }
}

/// Mean arc weight (1 for a graph without arcs): the unit of the near–far windows.
pub(crate) fn mean_weight(graph: &Csr<u32>) -> f64 {
    if graph.num_arcs() == 0 {
        return 1.0;
    }
    graph.weights().iter().map(|&w| w as f64).sum::<f64>() / graph.num_arcs() as f64
}

/// A graph uploaded once, with scratch buffers reused across runs.
pub struct GpuSssp<'a> {
    ctx: &'a GpuContext,
    graph: &'a Csr<u32>,
    graph_buffers: GraphBuffers,
    dist: GpuBuffer<u32>,
    scratch: GpuBuffer<u32>,
    mask: GpuBuffer<u32>,
    control: GpuBuffer<u32>,
    min_weights: Option<GpuBuffer<u32>>,
    near_far: Option<(GpuBuffer<u32>, GpuBuffer<u32>, u32, u32)>,
    zero_weights: bool,
    mean_weight: f64,
}

impl<'a> GpuSssp<'a> {
    /// Uploads `graph` (checked against the device's buffer and binding limits).
    pub fn new(ctx: &'a GpuContext, graph: &'a Csr<u32>) -> Result<Self, SsspError> {
        let n = graph.num_vertices() as usize;
        Ok(Self {
            ctx,
            graph,
            graph_buffers: GraphBuffers::upload(ctx, graph)?,
            dist: GpuBuffer::zeroed(ctx, "sssp dist", n)?,
            scratch: GpuBuffer::zeroed(ctx, "sssp scratch", n)?,
            mask: GpuBuffer::zeroed(ctx, "sssp flags", n)?,
            control: GpuBuffer::zeroed(ctx, "sssp control", 16)?,
            min_weights: None,
            near_far: None,
            zero_weights: has_zero_weight(graph),
            mean_weight: mean_weight(graph),
        })
    }

    fn params(&self, source: u32, extra: &[u32]) -> wgpu::Buffer {
        let mut words = vec![self.graph.num_vertices(), source];
        words.extend_from_slice(extra);
        self.ctx.uniform_words("sssp params", &words)
    }

    /// Bind group for a kernel that walks the graph (bindings 0–2) and uses `extra`.
    fn bind(
        &self,
        pipeline: &wgpu::ComputePipeline,
        extra: &[(u32, &wgpu::Buffer)],
    ) -> Result<wgpu::BindGroup, SsspError> {
        let mut all = self.graph_buffers.entries().to_vec();
        all.extend_from_slice(extra);
        self.bind_only(pipeline, &all)
    }

    /// Bind group for a kernel that uses exactly `all` (auto layouts hold only the bindings a kernel
    /// uses).
    fn bind_only(
        &self,
        pipeline: &wgpu::ComputePipeline,
        all: &[(u32, &wgpu::Buffer)],
    ) -> Result<wgpu::BindGroup, SsspError> {
        Ok(self.ctx.bind_buffers(pipeline, "sssp", all)?)
    }

    fn vertex_grid(&self) -> Result<[u32; 3], SsspError> {
        Ok(self.ctx.grid_1d(self.graph.num_vertices() as u64, WG)?)
    }

    /// Runs `algo` from `source`; predecessors by the canonical rule when `predecessors`.
    pub fn run(&mut self, source: u32, algo: GpuAlgorithm, predecessors: bool) -> Result<GpuRun, SsspError> {
        let n = self.graph.num_vertices();
        if source >= n {
            return Err(SsspError::SourceOutOfRange { vertex: source, n });
        }
        if let Some((arc, &weight)) = self.graph.weights().iter().enumerate().find(|(_, w)| **w >= SATURATED)
        {
            return Err(SsspError::WeightTooLarge { arc: arc as u32, weight });
        }
        let mut stats = match algo {
            GpuAlgorithm::Harish => self.harish(source)?,
            GpuAlgorithm::Frontier(rule) => self.frontier(source, rule)?,
            GpuAlgorithm::NearFar(delta) => self.near_far(source, delta)?,
            GpuAlgorithm::Lbr(k) => self.lbr(source, k)?,
            GpuAlgorithm::Jradi => self.jradi(source)?,
        };
        let dist = self.dist.read(self.ctx)?;
        stats.readbacks += 1;
        if dist.contains(&SATURATED) {
            return Err(SsspError::WeightOverflow { bound: SATURATED });
        }
        let pred_arc = if predecessors { Some(self.predecessors(source, &dist, &mut stats)?) } else { None };
        Ok(GpuRun { dist, pred_arc, stats })
    }

    /// Runs `batch` phases of `body` as one device-side sequence, reads the control words; repeats with
    /// twice the batch (up to [`MAX_BATCH`]) until `done`.
    fn batched(
        &self,
        stats: &mut SsspStats,
        body: &[Step<'_>],
        done: impl Fn(&[u32]) -> bool,
    ) -> Result<Vec<u32>, SsspError> {
        let mut batch = FIRST_BATCH;
        loop {
            self.ctx.run(&Sequence { label: "SSSP phases", body, iterations: batch, per_submit: batch })?;
            stats.dispatches += batch as u64 * body.len() as u64;
            let control = self.control.read(self.ctx)?;
            stats.readbacks += 1;
            if done(&control) {
                return Ok(control);
            }
            batch = (batch * 2).min(MAX_BATCH);
        }
    }

    fn init(
        &self,
        pipeline: &wgpu::ComputePipeline,
        bind: &wgpu::BindGroup,
        control: &[u32],
    ) -> Result<(), SsspError> {
        self.control.write(self.ctx, 0, control)?;
        let grid = self.vertex_grid()?;
        self.ctx
            .run(&Sequence::once("initialising SSSP", &[step(pipeline, bind, Workgroups::Fixed(grid))]))?;
        Ok(())
    }

    fn harish(&self, source: u32) -> Result<SsspStats, SsspError> {
        let key = |e| PipelineKey::new(HARISH, e).with("WG", WG);
        let (init, relax, update, advance) = (
            self.ctx.pipeline(&key("init"))?,
            self.ctx.pipeline(&key("relax"))?,
            self.ctx.pipeline(&key("update"))?,
            self.ctx.pipeline(&key("advance"))?,
        );
        let params = self.params(source, &[]);
        let buffers = [
            (3, self.dist.buffer()),
            (4, self.scratch.buffer()),
            (5, self.mask.buffer()),
            (6, self.control.buffer()),
            (7, &params),
        ];
        let bi = self.bind_only(&init, &[buffers[0], buffers[1], buffers[2], buffers[4]])?;
        let br = self.bind(&relax, &[buffers[0], buffers[1], buffers[2], buffers[3], buffers[4]])?;
        let bu = self.bind_only(&update, &[buffers[0], buffers[1], buffers[2], buffers[3], buffers[4]])?;
        let ba = self.bind_only(&advance, &[buffers[3]])?;
        self.init(&init, &bi, &[0; 16])?;
        let grid = self.vertex_grid()?;
        let mut stats = SsspStats::default();
        let g = Workgroups::Fixed(grid);
        let body = [step(&relax, &br, g.clone()), step(&update, &bu, g.clone()), step(&advance, &ba, ONE)];
        let control = self.batched(&mut stats, &body, |c| c[0] != 0)?;
        stats.phases = control[2] as u64;
        Ok(stats)
    }

    fn frontier(&mut self, source: u32, rule: SettleRule) -> Result<SsspStats, SsspError> {
        if self.min_weights.is_none() {
            let packed = frontier::min_weights(self.graph);
            self.min_weights = Some(GpuBuffer::from_slice(self.ctx, "sssp min weights", &packed)?);
        }
        let key = |e| PipelineKey::new(FRONTIER, e).with("WG", WG).with("RULE", rule as u32);
        let (init, relax, minimum, advance, update) = (
            self.ctx.pipeline(&key("init"))?,
            self.ctx.pipeline(&key("relax"))?,
            self.ctx.pipeline(&key("minimum"))?,
            self.ctx.pipeline(&key("advance"))?,
            self.ctx.pipeline(&key("update"))?,
        );
        let params = self.params(source, &[]);
        let mw = self.min_weights.as_ref().expect("set above").buffer();
        let (d, s, c) = ((3, self.dist.buffer()), (4, self.mask.buffer()), (6, self.control.buffer()));
        let p = (7, &params);
        let bi = self.bind_only(&init, &[d, s, p])?;
        let br = self.bind(&relax, &[d, s, c, p])?;
        let bm = self.bind_only(&minimum, &[d, s, (5, mw), c, p])?;
        let ba = self.bind_only(&advance, &[c])?;
        let bu = self.bind_only(&update, &[d, s, (5, mw), c, p])?;
        let mut control = [0u32; 16];
        control[2..6].copy_from_slice(&[UNREACHABLE; 4]);
        self.init(&init, &bi, &control)?;
        let grid = self.vertex_grid()?;
        let mut stats = SsspStats::default();
        let g = Workgroups::Fixed(grid);
        let body = [
            step(&relax, &br, g.clone()),
            step(&minimum, &bm, g.clone()),
            step(&advance, &ba, ONE),
            step(&update, &bu, g.clone()),
        ];
        let control = self.batched(&mut stats, &body, |c| c[0] != 0)?;
        stats.phases = control[1] as u64;
        Ok(stats)
    }

    /// Δ for near–far: cuGraph's `subgroup size × mean weight / mean degree` heuristic.
    pub fn default_delta(&self) -> u32 {
        let deg = self.graph.num_arcs() as f64 / self.graph.num_vertices().max(1) as f64;
        let sg = self.ctx.info.subgroup_max_size.clamp(8, 64) as f64;
        ((sg * self.mean_weight / deg.max(1.0)) as u32).max(1)
    }

    fn near_far(&mut self, source: u32, delta: Option<u32>) -> Result<SsspStats, SsspError> {
        let (n, m) = (self.graph.num_vertices(), self.graph.num_arcs());
        let delta = delta.unwrap_or_else(|| self.default_delta()).max(1);
        if self.near_far.is_none() {
            let near_cap = m.max(n).max(1);
            let far_cap = (2 * m as u64 + n as u64).min(u32::MAX as u64 / 8).max(1) as u32;
            let words = 2 * near_cap as usize + 2 * far_cap as usize;
            let queues = GpuBuffer::<u32>::zeroed(self.ctx, "sssp near-far queues", words)?;
            queues.check_bindable(self.ctx)?;
            let args = GpuBuffer::<u32>::zeroed_with_usage(
                self.ctx,
                "sssp indirect args",
                6,
                wgpu::BufferUsages::INDIRECT,
            )?;
            self.near_far = Some((queues, args, near_cap, far_cap));
        }
        let (queues, args, near_cap, far_cap) = self.near_far.as_ref().expect("set above");
        let (near_cap, far_cap) = (*near_cap, *far_cap);
        let max_dim = self.ctx.limits.max_compute_workgroups_per_dimension;
        let key = |e| PipelineKey::new(NEAR_FAR, e).with("WG", WG);
        let pl: Vec<_> = ["init", "relax", "decide", "split", "settle_split"]
            .iter()
            .map(|e| self.ctx.pipeline(&key(e)))
            .collect::<Result<_, _>>()?;
        let params = self.params(source, &[near_cap, far_cap, delta, max_dim]);
        let (d, pu, q, c, p, a) = (
            (3, self.dist.buffer()),
            (4, self.scratch.buffer()),
            (5, queues.buffer()),
            (6, self.control.buffer()),
            (7, &params),
            (8, args.buffer()),
        );
        let bi = self.bind_only(&pl[0], &[d, pu, p])?;
        let br = self.bind(&pl[1], &[d, pu, q, c, p])?;
        let bd = self.bind_only(&pl[2], &[c, p, a])?;
        let bs = self.bind_only(&pl[3], &[d, pu, q, c, p])?;
        let bss = self.bind_only(&pl[4], &[c, p, a])?;
        queues.write(self.ctx, 0, &[source])?;
        args.write(self.ctx, 0, &[1, 1, 1, 0, 1, 1])?;
        let mut control = [0u32; 16];
        control[3] = 1; // one vertex in the near queue
        control[8] = delta; // threshold
        control[10] = UNREACHABLE;
        control[11] = UNREACHABLE;
        self.init(&pl[0], &bi, &control)?;
        let mut stats = SsspStats::default();
        let body = [
            step(&pl[1], &br, Workgroups::Indirect(args.buffer().clone(), 0)),
            step(&pl[2], &bd, ONE),
            step(&pl[3], &bs, Workgroups::Indirect(args.buffer().clone(), 12)),
            step(&pl[4], &bss, ONE),
        ];
        let control = self.batched(&mut stats, &body, |c| c[0] != 0)?;
        if control[12] != 0 {
            let (queue, capacity) = if control[4] > near_cap { ("near", near_cap) } else { ("far", far_cap) };
            return Err(SsspError::QueueOverflow { queue, capacity: capacity as u64 });
        }
        stats.phases = control[1] as u64;
        Ok(stats)
    }

    fn lbr(&mut self, source: u32, k: u32) -> Result<SsspStats, SsspError> {
        let dist = std::mem::replace(&mut self.dist, GpuBuffer::zeroed(self.ctx, "sssp placeholder", 0)?);
        let stats = self.lbr_rows(&[source], k, &dist);
        self.dist = dist;
        stats
    }

    /// Most sources one batched LBR run holds: flags take 8 bytes per (source, vertex) and must fit one
    /// storage binding; at most 256.
    pub fn max_batch(&self) -> usize {
        let n = self.graph.num_vertices().max(1) as u64;
        let per_binding = self.ctx.limits.max_storage_buffer_binding_size / (8 * n);
        per_binding.clamp(1, 256) as usize
    }

    /// Distances from each of `sources` at once (batched LBR with depth `k`): row `i` of the result,
    /// `dist[i * n .. (i + 1) * n]`, belongs to `sources[i]`. At most [`GpuSssp::max_batch`] sources.
    pub fn run_batch(&mut self, sources: &[u32], k: u32) -> Result<(Vec<u32>, SsspStats), SsspError> {
        let n = self.graph.num_vertices();
        if let Some(&s) = sources.iter().find(|&&s| s >= n) {
            return Err(SsspError::SourceOutOfRange { vertex: s, n });
        }
        if sources.len() > self.max_batch() {
            return Err(SsspError::InvalidParameter(format!(
                "{} sources exceed the batch limit of {} for this graph and device",
                sources.len(),
                self.max_batch()
            )));
        }
        if sources.is_empty() {
            return Ok((Vec::new(), SsspStats::default()));
        }
        let dist = GpuBuffer::<u32>::zeroed(self.ctx, "sssp batch dist", sources.len() * n as usize)?;
        dist.check_bindable(self.ctx)?;
        let mut stats = self.lbr_rows(sources, k, &dist)?;
        let out = dist.read(self.ctx)?;
        stats.readbacks += 1;
        if out.contains(&SATURATED) {
            return Err(SsspError::WeightOverflow { bound: SATURATED });
        }
        Ok((out, stats))
    }

    /// Like [`GpuSssp::run_batch`] but leaves the distances on the device, in `dist` (row `i`, words
    /// `i * n .. (i + 1) * n`, belongs to `sources[i]`), for a consumer kernel that runs before the rows
    /// are reused (traffic assignment loads flows from them). Saturated sums (`u32::MAX - 1`) are left
    /// for the consumer to detect.
    pub fn run_batch_into(
        &mut self,
        sources: &[u32],
        k: u32,
        dist: &GpuBuffer<u32>,
    ) -> Result<SsspStats, SsspError> {
        let n = self.graph.num_vertices();
        if let Some(&s) = sources.iter().find(|&&s| s >= n) {
            return Err(SsspError::SourceOutOfRange { vertex: s, n });
        }
        if sources.len() > self.max_batch() || dist.len() < sources.len() * n as usize {
            return Err(SsspError::InvalidParameter(format!(
                "{} sources exceed the batch limit of {} or the {}-word distance buffer",
                sources.len(),
                self.max_batch(),
                dist.len()
            )));
        }
        if sources.is_empty() {
            return Ok(SsspStats::default());
        }
        self.lbr_rows(sources, k, dist)
    }

    fn lbr_rows(&mut self, sources: &[u32], k: u32, dist: &GpuBuffer<u32>) -> Result<SsspStats, SsspError> {
        if !(1..=8).contains(&k) {
            return Err(SsspError::InvalidParameter(format!("LBR depth k = {k} is outside 1..=8")));
        }
        let cells = self.graph.num_vertices() as usize * sources.len();
        if self.mask.len() < 2 * cells {
            self.mask = GpuBuffer::zeroed(self.ctx, "sssp flags", 2 * cells)?;
            self.mask.check_bindable(self.ctx)?;
        }
        let source_buf = GpuBuffer::from_slice(self.ctx, "sssp sources", sources)?;
        let key = |e| PipelineKey::new(LBR, e).with("WG", WG).with("K", k);
        let (init, relax, advance) = (
            self.ctx.pipeline(&key("init"))?,
            self.ctx.pipeline(&key("relax"))?,
            self.ctx.pipeline(&key("advance"))?,
        );
        let params = self.params(sources.len() as u32, &[]);
        let (d, f, sb, c, p) = (
            (3, dist.buffer()),
            (4, self.mask.buffer()),
            (5, source_buf.buffer()),
            (6, self.control.buffer()),
            (7, &params),
        );
        let bi = self.bind_only(&init, &[d, f, sb, p])?;
        let br = self.bind(&relax, &[d, f, c, p])?;
        let ba = self.bind_only(&advance, &[c])?;
        let grid = self.ctx.grid_1d(cells as u64, WG)?;
        self.control.write(self.ctx, 0, &[0; 16])?;
        self.ctx.run(&Sequence::once("initialising LBR", &[step(&init, &bi, Workgroups::Fixed(grid))]))?;
        let mut stats = SsspStats::default();
        let body = [step(&relax, &br, Workgroups::Fixed(grid)), step(&advance, &ba, ONE)];
        let control = self.batched(&mut stats, &body, |c| c[0] != 0)?;
        stats.phases = control[2] as u64;
        Ok(stats)
    }

    fn jradi(&mut self, source: u32) -> Result<SsspStats, SsspError> {
        let cap = self.graph.num_arcs() + 1;
        let queue = GpuBuffer::<u32>::zeroed(self.ctx, "sssp jradi queue", 2 * cap as usize)?;
        queue.check_bindable(self.ctx)?;
        let key = |e| PipelineKey::new(JRADI, e).with("WG", WG);
        let (init, run) = (self.ctx.pipeline(&key("init"))?, self.ctx.pipeline(&key("run"))?);
        let params = self.params(source, &[cap]);
        let (d, q, c, p) =
            ((3, self.dist.buffer()), (4, queue.buffer()), (6, self.control.buffer()), (7, &params));
        let bi = self.bind_only(&init, &[d, q, p])?;
        let br = self.bind(&run, &[d, q, c, p])?;
        let mut control = [0u32; 16];
        control[1] = 1; // queue length
        control[2] = 1; // live entries
        self.init(&init, &bi, &control)?;
        let mut stats = SsspStats::default();
        let control = self.batched(&mut stats, &[step(&run, &br, ONE)], |c| c[0] != 0)?;
        if control[4] != 0 {
            return Err(SsspError::QueueOverflow { queue: "jradi", capacity: cap as u64 });
        }
        stats.phases = control[3] as u64;
        Ok(stats)
    }

    fn predecessors(&self, source: u32, dist: &[u32], stats: &mut SsspStats) -> Result<Vec<u32>, SsspError> {
        if self.zero_weights {
            // Zero-weight arcs need the level rule (a BFS over tight arcs); it runs on the CPU from the
            // GPU's distances, giving the same canonical tree.
            return Ok(canonical_predecessors(self.graph, source, dist));
        }
        let key = |e| PipelineKey::new(PRED, e).with("WG", WG);
        let (reset, tight) = (self.ctx.pipeline(&key("reset"))?, self.ctx.pipeline(&key("tight_arcs"))?);
        let params = self.params(source, &[]);
        let br = self.bind_only(&reset, &[(4, self.scratch.buffer()), (7, &params)])?;
        let bt = self.bind(&tight, &[(3, self.dist.buffer()), (4, self.scratch.buffer()), (7, &params)])?;
        let grid = Workgroups::Fixed(self.vertex_grid()?);
        self.ctx.run(&Sequence::once(
            "predecessor pass",
            &[step(&reset, &br, grid.clone()), step(&tight, &bt, grid.clone())],
        ))?;
        stats.dispatches += 2;
        stats.readbacks += 1;
        Ok(self.scratch.read(self.ctx)?)
    }
}
