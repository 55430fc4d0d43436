//! PHAST on the GPU (`shaders/phast_down.wgsl`): the upward searches run on the device for a CCH
//! (`shaders/phast_up.wgsl`, an elimination-tree walk per tree) and on the CPU for a plain contraction
//! hierarchy (a few hundred vertices each), the downward sweep on the device — one dispatch per level
//! of the downward DAG, all levels of a batch recorded in one submission through
//! [`gpu_runtime::sequence`], `k` trees per pass with each vertex's labels contiguous. Distances equal
//! [`super::ContractionHierarchy::phast`]'s (and Dijkstra's) exactly: the same u32 sums, saturating at `u32::MAX − 1`.

use std::borrow::Cow;

use gpu_runtime::Workgroups;
use gpu_runtime::readback::{PendingReadback, ReadbackRing};
use gpu_runtime::sequence::{Sequence, Step};
use gpu_runtime::{GpuBuffer, GpuContext, PipelineKey, Shader, wgpu};

use rayon::prelude::*;

use super::{ContractionHierarchy, NO_PARENT, UpwardSearch};
use crate::error::SsspError;
use crate::paths::SATURATED;

/// The PHAST sweeps' helpers owned here: `chain_min` (the least value over a workgroup, for the chain
/// kernels), also used by algos-tap's loading kernel over the same sweep.
pub const PHAST_HELPERS: &[(&str, &str)] = gpu_runtime::helpers!["chain_min"];
const PHAST: Shader = gpu_runtime::shader!("phast_down").with_helpers(PHAST_HELPERS);
const PHAST_UP: Shader = gpu_runtime::shader!("phast_up");
const WG: u32 = 256;

/// Levels at most this wide at the top of the DAG go to the chain kernel (one workgroup per tree walks
/// their vertices in order): a level costs the chain one step per vertex — a few in-arcs per thread and
/// a reduction — where it costs a dispatch of its own otherwise. `URBANFLOW_PHAST_CHAIN_WIDTH`
/// overrides it (0: no chain), for measurements.
const CHAIN_MAX_WIDTH: u32 = 8;
/// A chain shorter than this is not worth its dispatch.
const CHAIN_MIN_LEVELS: usize = 4;

/// How many leading levels (from the top of the DAG) the chain kernel sweeps: the longest run of
/// levels each at most [`CHAIN_MAX_WIDTH`] wide, when it has [`CHAIN_MIN_LEVELS`].
fn chain_levels(levels: &[(u32, u32)]) -> usize {
    let width = std::env::var("URBANFLOW_PHAST_CHAIN_WIDTH")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(CHAIN_MAX_WIDTH);
    let run = levels.iter().take_while(|&&(s, e)| e - s <= width).count();
    if run >= CHAIN_MIN_LEVELS { run } else { 0 }
}

/// Where the upward searches of a CCH run: on the device unless `URBANFLOW_PHAST_UPWARD=cpu` (for
/// measurements; the labels and seeds are the same).
fn upward_on_device() -> bool {
    std::env::var("URBANFLOW_PHAST_UPWARD").map_or(true, |v| v != "cpu")
}

/// The device's upward searches on a CCH (`phast_up.wgsl`): the upward arcs by rank, the elimination
/// tree with each rank's depth, and each pass's (source rank, first seed) per tree.
struct DeviceUpward {
    pipeline: std::sync::Arc<wgpu::ComputePipeline>,
    /// Upward arcs by rank: offsets, heads (ranks), weights (rewritten by `set_metric`).
    graph: [GpuBuffer<u32>; 3],
    parent: GpuBuffer<u32>,
    depth_buffer: GpuBuffer<u32>,
    pos_of_rank: GpuBuffer<u32>,
    trees: GpuBuffer<[u32; 2]>,
    uniform: wgpu::Buffer,
    /// Depth of every rank in the elimination tree (0 at a root): a source of rank r has `depth[r] + 1`
    /// seeds, its ancestors'.
    depth: Vec<u32>,
    bind: Option<wgpu::BindGroup>,
}

impl DeviceUpward {
    fn new(
        ctx: &GpuContext,
        ch: &ContractionHierarchy,
        etree: &[u32],
        pos_of_rank: &[u32],
        k: u32,
    ) -> Result<Self, SsspError> {
        let n = etree.len();
        let mut depth = vec![0u32; n];
        // Parents have higher ranks: from the top down, each depth is its parent's plus one.
        for r in (0..n).rev() {
            let p = etree[r];
            depth[r] = if p == NO_PARENT { 0 } else { depth[p as usize] + 1 };
        }
        let nonempty = |v: &[u32]| if v.is_empty() { vec![0] } else { v.to_vec() };
        let graph = [
            GpuBuffer::from_slice(ctx, "phast up offsets", ch.up.offsets())?,
            GpuBuffer::from_slice(ctx, "phast up heads", &nonempty(ch.up.targets()))?,
            GpuBuffer::from_slice(ctx, "phast up weights", &nonempty(ch.up.weights()))?,
        ];
        let me = Self {
            pipeline: ctx.pipeline(&PipelineKey::new(PHAST_UP, "up"))?,
            graph,
            parent: GpuBuffer::from_slice(ctx, "phast etree", &nonempty(etree))?,
            depth_buffer: GpuBuffer::from_slice(ctx, "phast etree depth", &nonempty(&depth))?,
            pos_of_rank: GpuBuffer::from_slice(ctx, "phast rank positions", &nonempty(pos_of_rank))?,
            trees: GpuBuffer::zeroed(ctx, "phast up trees", k.max(1) as usize)?,
            uniform: ctx.uniform_words("phast up params", &[0, 0, k, 0]),
            depth,
            bind: None,
        };
        for b in me.graph.iter().chain([&me.parent, &me.depth_buffer, &me.pos_of_rank]) {
            b.check_bindable(ctx)?;
        }
        Ok(me)
    }

    fn rebind(
        &mut self,
        ctx: &GpuContext,
        dist: &GpuBuffer<u32>,
        seeds: &GpuBuffer<u32>,
    ) -> Result<(), SsspError> {
        let g = &self.graph;
        let entries = [
            (0, g[0].buffer()),
            (1, g[1].buffer()),
            (2, g[2].buffer()),
            (3, dist.buffer()),
            (4, seeds.buffer()),
            (5, &self.uniform),
            (6, self.parent.buffer()),
            (7, self.depth_buffer.buffer()),
            (8, self.pos_of_rank.buffer()),
            (9, self.trees.buffer()),
        ];
        self.bind = Some(ctx.bind_buffers(&self.pipeline, "phast up", &entries)?);
        Ok(())
    }
}

/// The downward DAG in level order, resident on the device, with labels for `k` trees.
pub struct GpuPhast<'a> {
    ctx: &'a GpuContext,
    /// Borrowed for a fixed hierarchy, owned once a new metric came through [`Self::set_metric`].
    ch: Cow<'a, ContractionHierarchy>,
    /// Downward arc (index into `ch.down`) at every level-order position of the device's in-arcs.
    down_arc: Vec<u32>,
    k: u32,
    /// Position (level order) of every rank.
    pos_of_rank: Vec<u32>,
    /// `[start, end)` positions of every level.
    levels: Vec<(u32, u32)>,
    /// Leading levels swept by the `chain` kernel in one dispatch ([`chain_levels`]; 0: none).
    chain_levels: usize,
    chain: std::sync::Arc<wgpu::ComputePipeline>,
    fill: std::sync::Arc<wgpu::ComputePipeline>,
    seed: std::sync::Arc<wgpu::ComputePipeline>,
    level: std::sync::Arc<wgpu::ComputePipeline>,
    unpermute: std::sync::Arc<wgpu::ComputePipeline>,
    /// One bind group per level (its uniform), then fill, then seed, then unpermute, then chain.
    binds: Vec<wgpu::BindGroup>,
    uniforms: Vec<wgpu::Buffer>,
    dist: GpuBuffer<u32>,
    seeds: GpuBuffer<u32>,
    graph: [GpuBuffer<u32>; 3],
    pos_of_vertex: GpuBuffer<u32>,
    rows: GpuBuffer<u32>,
    /// One word the gather sets when a label saturated, read back with the rows.
    overflow: GpuBuffer<u32>,
    /// Staging buffers of streamed passes ([`Self::set_readback_depth`]).
    readback_depth: usize,
    /// One upward-search workspace per worker thread (none when the device searches).
    ups: Vec<UpwardSearch>,
    /// Where each lane's seeds start in the last pass's seed list (`sources + 1` entries).
    seed_lanes: Vec<u32>,
    /// The upward searches on the device (a CCH; [`upward_on_device`]), else on the CPU (`ups`).
    upward: Option<DeviceUpward>,
}

/// The device state of the last pass, for kernels that consume the trees on the device (assignment's
/// tree loading, `algos_tap::phast_load`): the buffers stay the same for the life of the [`GpuPhast`]
/// except `seeds`, which grows with the upward search spaces.
pub struct SweepView<'s> {
    /// The device.
    pub ctx: &'s GpuContext,
    /// The hierarchy swept.
    pub hierarchy: &'s ContractionHierarchy,
    /// The downward DAG in level order: in-offsets, in-tails (positions), in-weights.
    pub dag: &'s [GpuBuffer<u32>; 3],
    /// Labels, `labels[position * lanes + lane]`.
    pub labels: &'s GpuBuffer<u32>,
    /// The last pass's upward-search results, lane by lane in decreasing rank: (cell, label, up arc,
    /// parent's cell) per seed.
    pub seeds: &'s GpuBuffer<u32>,
    /// Where each lane's seeds start in `seeds` (`sources + 1` entries).
    pub seed_lanes: &'s [u32],
    /// The level-order position of every original vertex.
    pub pos_of_vertex: &'s GpuBuffer<u32>,
    /// The downward arc (index into `hierarchy.down`) of every device in-arc.
    pub down_arc: &'s [u32],
    /// `[start, end)` positions of every level.
    pub levels: &'s [(u32, u32)],
    /// One uniform per level: `[start, end, lanes, up.num_arcs()]`.
    pub level_uniforms: &'s [wgpu::Buffer],
    /// Leading levels the sweep took in one dispatch of its chain kernel (0: none), and the uniform
    /// of their positions, `[0, end, lanes, up.num_arcs()]`: consumers may walk them the same way.
    pub chain: (usize, &'s wgpu::Buffer),
    /// Trees per pass.
    pub lanes: u32,
}

/// Staging buffers per device for streamed PHAST rows: 2 (the host reads a pass while the device sweeps
/// the next) unless `URBANFLOW_READBACK_DEPTH` says otherwise (3 lets the device run a whole pass
/// ahead of a jittery sink, at the price of one more pinned buffer of a pass's rows), for measurements.
fn readback_depth() -> usize {
    std::env::var("URBANFLOW_READBACK_DEPTH").ok().and_then(|v| v.parse().ok()).unwrap_or(2).clamp(2, 8)
}

/// Bytes one streamed pass of `lanes` trees over `n` vertices reads back: the rows, then the gather's
/// overflow word (the size of each staging buffer, prepared ahead or taken by the ring).
fn pass_readback_bytes(n: usize, lanes: usize) -> u64 {
    (lanes * n * 4 + 4) as u64
}

impl<'a> GpuPhast<'a> {
    /// Uploads the downward DAG of `ch` in level order, with labels for `k` trees per pass.
    pub fn new(ctx: &'a GpuContext, ch: &'a ContractionHierarchy, k: u32) -> Result<Self, SsspError> {
        Self::with_hierarchy(ctx, Cow::Borrowed(ch), k)
    }

    /// Like [`Self::new`], keeping the hierarchy (a customised CCH whose metric will change through
    /// [`Self::set_metric`]).
    pub fn owning(ctx: &'a GpuContext, ch: ContractionHierarchy, k: u32) -> Result<Self, SsspError> {
        Self::with_hierarchy(ctx, Cow::Owned(ch), k)
    }

    fn with_hierarchy(
        ctx: &'a GpuContext,
        owned: Cow<'a, ContractionHierarchy>,
        k: u32,
    ) -> Result<Self, SsspError> {
        let ch: &ContractionHierarchy = &owned;
        let n = ch.num_vertices() as usize;
        if k == 0 || (n as u64) * (k as u64) > u32::MAX as u64 {
            return Err(SsspError::InvalidParameter(format!(
                "{k} trees of {n} vertices do not fit u32 indexing"
            )));
        }
        // Level of each rank: 0 without downward in-arcs, else one more than its highest tail.
        let (dof, dt, dw) = (ch.down.offsets(), ch.down.targets(), ch.down.weights());
        let mut depth = vec![0u32; n];
        for r in (0..n).rev() {
            depth[r] = (dof[r]..dof[r + 1]).map(|a| depth[dt[a as usize] as usize] + 1).max().unwrap_or(0);
        }
        let mut by_pos: Vec<u32> = (0..n as u32).collect();
        // Within a level, higher ranks first: tails are read in roughly the order they were written.
        by_pos.sort_by_key(|&r| (depth[r as usize], std::cmp::Reverse(r)));
        let mut pos_of_rank = vec![0u32; n];
        for (p, &r) in by_pos.iter().enumerate() {
            pos_of_rank[r as usize] = p as u32;
        }
        let mut levels: Vec<(u32, u32)> = Vec::new();
        for (p, &r) in by_pos.iter().enumerate() {
            let d = depth[r as usize] as usize;
            if d == levels.len() {
                levels.push((p as u32, p as u32));
            }
            levels[d].1 = p as u32 + 1;
        }
        let mut offsets = Vec::with_capacity(n + 1);
        let mut tails = Vec::with_capacity(ch.down.num_arcs() as usize);
        let mut weights = Vec::with_capacity(ch.down.num_arcs() as usize);
        let mut down_arc = Vec::with_capacity(ch.down.num_arcs() as usize);
        offsets.push(0u32);
        for &r in &by_pos {
            for a in dof[r as usize]..dof[r as usize + 1] {
                tails.push(pos_of_rank[dt[a as usize] as usize]);
                weights.push(dw[a as usize]);
                down_arc.push(a);
            }
            offsets.push(tails.len() as u32);
        }
        let nonempty = |v: Vec<u32>| if v.is_empty() { vec![0] } else { v };
        let graph = [
            GpuBuffer::from_slice(ctx, "phast in-offsets", &offsets)?,
            GpuBuffer::from_slice(ctx, "phast in-tails", &nonempty(tails))?,
            GpuBuffer::from_slice(ctx, "phast in-weights", &nonempty(weights))?,
        ];
        let dist = GpuBuffer::zeroed(ctx, "phast labels", (n * k as usize).max(1))?;
        let seeds = GpuBuffer::zeroed(ctx, "phast seeds", 4 * 1024)?;
        for b in graph.iter().chain([&dist]) {
            b.check_bindable(ctx)?;
        }
        let key = |entry| PipelineKey::new(PHAST, entry).with("WG", WG);
        let (fill, seed, level) =
            (ctx.pipeline(&key("fill"))?, ctx.pipeline(&key("seed"))?, ctx.pipeline(&key("level"))?);
        let unpermute = ctx.pipeline(&key("unpermute"))?;
        let chain = ctx.pipeline(&PipelineKey::new(PHAST, "chain"))?;
        let chain_levels = chain_levels(&levels);
        let by_vertex: Vec<u32> = ch.rank.iter().map(|&r| pos_of_rank[r as usize]).collect();
        let pos_of_vertex =
            GpuBuffer::from_slice(ctx, "phast positions", if n == 0 { &[0] } else { &by_vertex })?;
        let rows = GpuBuffer::zeroed(ctx, "phast rows", (n * k as usize).max(1))?;
        rows.check_bindable(ctx)?;
        let overflow = GpuBuffer::zeroed(ctx, "phast overflow", 1)?;
        let upward = match &ch.elimination_tree {
            Some(etree) if upward_on_device() => Some(DeviceUpward::new(ctx, ch, etree, &pos_of_rank, k)?),
            _ => None,
        };
        let mut me = Self {
            ctx,
            ch: owned,
            down_arc,
            k,
            pos_of_rank,
            levels,
            chain_levels,
            chain,
            fill,
            seed,
            level,
            unpermute,
            binds: Vec::new(),
            uniforms: Vec::new(),
            dist,
            seeds,
            graph,
            pos_of_vertex,
            rows,
            overflow,
            readback_depth: readback_depth(),
            // Workspaces for the CPU's upward searches, where they run there.
            ups: match upward {
                Some(_) => Vec::new(),
                None => {
                    (0..rayon::current_num_threads().max(1)).map(|_| UpwardSearch::new(n as u32)).collect()
                }
            },
            seed_lanes: vec![0],
            upward,
        };
        me.rebind()?;
        Ok(me)
    }

    /// Bind groups: one per level, then fill, then seed (the seed buffer may have grown).
    fn rebind(&mut self) -> Result<(), SsspError> {
        let n = self.ch.num_vertices();
        // The fourth word is the upward slots count, which the loading kernels read.
        let up_slots = self.ch.up.num_arcs();
        let mut params: Vec<[u32; 4]> = self.levels.iter().map(|&(s, e)| [s, e, self.k, up_slots]).collect();
        params.push([0, n, self.k, 0]);
        params.push([0, 0, self.k, 0]);
        params.push([0, n, self.k, 0]);
        let chain_end = self.levels.get(self.chain_levels.wrapping_sub(1)).map_or(0, |l| l.1);
        params.push([0, chain_end, self.k, up_slots]);
        self.uniforms = params.iter().map(|p| self.ctx.uniform_words("phast params", p)).collect();
        let mut binds = Vec::with_capacity(params.len());
        for (i, u) in self.uniforms.iter().enumerate() {
            // Each entry point's layout has only the bindings it uses.
            let (g, d, s) = (&self.graph, self.dist.buffer(), self.seeds.buffer());
            let bind = if i < self.levels.len() {
                let entries = [(0, g[0].buffer()), (1, g[1].buffer()), (2, g[2].buffer()), (3, d), (5, u)];
                self.ctx.bind_buffers(&self.level, "phast level", &entries)?
            } else if i == self.levels.len() {
                self.ctx.bind_buffers(&self.fill, "phast fill", &[(3, d), (5, u)])?
            } else if i == self.levels.len() + 1 {
                self.ctx.bind_buffers(&self.seed, "phast seed", &[(3, d), (4, s), (5, u)])?
            } else if i == self.levels.len() + 3 {
                let entries = [(0, g[0].buffer()), (1, g[1].buffer()), (2, g[2].buffer()), (3, d), (5, u)];
                self.ctx.bind_buffers(&self.chain, "phast chain", &entries)?
            } else {
                let entries = [
                    (3, d),
                    (5, u),
                    (6, self.pos_of_vertex.buffer()),
                    (7, self.rows.buffer()),
                    (8, self.overflow.buffer()),
                ];
                self.ctx.bind_buffers(&self.unpermute, "phast unpermute", &entries)?
            };
            binds.push(bind);
        }
        self.binds = binds;
        if let Some(up) = &mut self.upward {
            up.rebind(self.ctx, &self.dist, &self.seeds)?;
        }
        Ok(())
    }

    /// Takes a new metric on the same shape (a re-customised CCH): the upward searches use its upward
    /// arcs, the device gets its downward weights (and its upward ones, where it searches upward; one
    /// upload each, no new buffers). A hierarchy of another shape is refused.
    pub fn set_metric(&mut self, ch: ContractionHierarchy) -> Result<(), SsspError> {
        let same = |a: &graph_core::Csr<u32>, b: &graph_core::Csr<u32>| {
            a.offsets() == b.offsets() && a.targets() == b.targets()
        };
        if ch.rank != self.ch.rank || !same(&ch.up, &self.ch.up) || !same(&ch.down, &self.ch.down) {
            return Err(SsspError::InvalidParameter(
                "a new metric must come on the same hierarchy shape (customise the same CCH)".into(),
            ));
        }
        let dw = ch.down.weights();
        let weights: Vec<u32> = self.down_arc.iter().map(|&a| dw[a as usize]).collect();
        if !weights.is_empty() {
            self.graph[2].write(self.ctx, 0, &weights)?;
        }
        if let Some(up) = &self.upward
            && ch.up.num_arcs() > 0
        {
            up.graph[2].write(self.ctx, 0, ch.up.weights())?;
        }
        self.ch = Cow::Owned(ch);
        Ok(())
    }

    /// The device buffer [`Self::gather`] fills: `rows[lane * n + v]`, tree `lane` of the last pass
    /// at original vertex `v` (for kernels that consume trees on the device).
    pub fn rows_buffer(&self) -> &GpuBuffer<u32> {
        &self.rows
    }

    /// What kernels consuming the last pass's trees on the device need.
    pub fn sweep_view(&self) -> SweepView<'_> {
        SweepView {
            ctx: self.ctx,
            hierarchy: &self.ch,
            dag: &self.graph,
            labels: &self.dist,
            seeds: &self.seeds,
            seed_lanes: &self.seed_lanes,
            pos_of_vertex: &self.pos_of_vertex,
            down_arc: &self.down_arc,
            levels: &self.levels,
            level_uniforms: &self.uniforms[..self.levels.len()],
            chain: (self.chain_levels, &self.uniforms[self.levels.len() + 3]),
            lanes: self.k,
        }
    }

    /// Trees per pass.
    pub fn lanes(&self) -> u32 {
        self.k
    }

    /// Levels of the downward DAG (dispatches per pass).
    pub fn num_levels(&self) -> usize {
        self.levels.len()
    }

    /// Levels swept by one dispatch of the chain kernel at the top of the DAG.
    pub fn num_chain_levels(&self) -> usize {
        self.chain_levels
    }

    /// Invocations of level `i`: one per (vertex, tree).
    fn level_items(&self, i: usize) -> u64 {
        let (s, e) = self.levels[i];
        (e - s) as u64 * self.k as u64
    }

    /// Runs one pass for up to `k` sources, leaving the labels on the device (position-major,
    /// `k` per vertex); read them with [`Self::read_rows`].
    pub fn run(&mut self, sources: &[u32]) -> Result<(), SsspError> {
        let n = self.ch.num_vertices();
        if sources.len() > self.k as usize {
            return Err(SsspError::InvalidParameter(format!(
                "{} sources exceed {} lanes",
                sources.len(),
                self.k
            )));
        }
        if let Some(&s) = sources.iter().find(|&&s| s >= n) {
            return Err(SsspError::SourceOutOfRange { vertex: s, n });
        }
        if self.upward.is_some() {
            self.seed_lanes_on_device(sources)?;
        } else {
            self.seed_on_cpu(sources)?;
        }
        let l = self.levels.len();
        let max = self.ctx.limits.max_compute_workgroups_per_dimension;
        let grid = |items: u64| gpu_runtime::dispatch::grid_1d(items, WG, max);
        let mut steps = Vec::with_capacity(l + 2);
        steps.push(Step {
            pipeline: &self.fill,
            bind_group: &self.binds[l],
            grid: Workgroups::Fixed(grid(n as u64 * self.k as u64)?),
        });
        match &self.upward {
            Some(up) => steps.push(Step {
                pipeline: &up.pipeline,
                bind_group: up.bind.as_ref().expect("bound in rebind"),
                // One workgroup of 64 invocations per tree.
                grid: Workgroups::Fixed(gpu_runtime::dispatch::grid_1d(sources.len() as u64 * 64, 64, max)?),
            }),
            None => {
                let count = self.seed_lanes.last().copied().unwrap_or(0);
                steps.push(Step {
                    pipeline: &self.seed,
                    bind_group: &self.binds[l + 1],
                    grid: Workgroups::Fixed(grid(count as u64)?),
                });
            }
        }
        if self.chain_levels > 0 {
            // One workgroup of the chain kernel's 64 invocations per tree.
            steps.push(Step {
                pipeline: &self.chain,
                bind_group: &self.binds[l + 3],
                grid: Workgroups::Fixed(gpu_runtime::dispatch::grid_1d(self.k as u64 * 64, 64, max)?),
            });
        }
        for i in self.chain_levels..self.levels.len() {
            steps.push(Step {
                pipeline: &self.level,
                bind_group: &self.binds[i],
                grid: Workgroups::Fixed(grid(self.level_items(i))?),
            });
        }
        self.ctx.run(&Sequence::once("PHAST downward sweep", &steps))?;
        Ok(())
    }

    /// Grows the seed buffer to hold `words` (to the next power of two) and rebinds what reads it.
    fn fit_seeds(&mut self, words: usize) -> Result<(), SsspError> {
        if words > self.seeds.len() {
            self.seeds = GpuBuffer::zeroed(self.ctx, "phast seeds", words.next_power_of_two())?;
            self.seeds.check_bindable(self.ctx)?;
            self.rebind()?;
        }
        Ok(())
    }

    /// The device's upward searches (a CCH): each tree's seeds are its source's ancestors, so where they
    /// go is known before the search — `seed_lanes` from the depths, the seed buffer grown to fit, and
    /// each tree's (source rank, first seed) uploaded for `phast_up.wgsl`.
    fn seed_lanes_on_device(&mut self, sources: &[u32]) -> Result<(), SsspError> {
        let up = self.upward.as_ref().expect("device upward searches");
        self.seed_lanes = Vec::with_capacity(sources.len() + 1);
        self.seed_lanes.push(0);
        let mut trees = Vec::with_capacity(sources.len());
        let mut total = 0u32;
        for &s in sources {
            let r = self.ch.rank[s as usize];
            trees.push([r, total]);
            total += up.depth[r as usize] + 1;
            self.seed_lanes.push(total);
        }
        self.fit_seeds(4 * total as usize)?;
        let up = self.upward.as_ref().expect("device upward searches");
        if !trees.is_empty() {
            up.trees.write(self.ctx, 0, &trees)?;
        }
        self.ctx.write_words(&up.uniform, 0, &[sources.len() as u32, 0, self.k, 0]);
        Ok(())
    }

    /// The upward searches on all cores (one thread doing them bounds a pass on small graphs), one
    /// reusable workspace per thread; their seeds uploaded for the `seed` kernel.
    fn seed_on_cpu(&mut self, sources: &[u32]) -> Result<(), SsspError> {
        let (pos, k, ch) = (&self.pos_of_rank, self.k, &*self.ch);
        let avg_seeds = (self.seed_lanes.last().copied().unwrap_or(0) as usize)
            .checked_div(self.seed_lanes.len().saturating_sub(1))
            .unwrap_or(0);
        let per = sources.len().div_ceil(self.ups.len()).max(1);
        // Seeds lane by lane, decreasing rank within a lane (the order `climb` needs):
        // (cell, label, up arc, parent's cell).
        let parts: Vec<(Vec<u32>, Vec<u32>)> = self
            .ups
            .par_iter_mut()
            .zip(sources.par_chunks(per).enumerate())
            .map(|(up, (c, chunk))| {
                // Sized from the last pass's seeds per lane (a few hundred on a city CCH).
                let guess = 4 * chunk.len() * (avg_seeds + 16);
                let (mut out, mut counts) = (Vec::with_capacity(guess), Vec::with_capacity(chunk.len()));
                let mut lane_seeds: Vec<(u32, [u32; 4])> = Vec::new();
                for (i, &s) in chunk.iter().enumerate() {
                    let lane = (c * per + i) as u32;
                    let cell = |r: u32| pos[r as usize] * k + lane;
                    lane_seeds.clear();
                    up.search_tree(ch, s, |r, d, (parent, arc)| {
                        let from = if parent == NO_PARENT { NO_PARENT } else { cell(parent) };
                        lane_seeds.push((r, [cell(r), d, arc, from]));
                    });
                    lane_seeds.sort_unstable_by_key(|&(r, _)| std::cmp::Reverse(r));
                    counts.push(lane_seeds.len() as u32);
                    out.extend(lane_seeds.iter().flat_map(|&(_, s)| s));
                }
                (out, counts)
            })
            .collect();
        self.seed_lanes = vec![0u32];
        for (_, counts) in &parts {
            for &c in counts {
                self.seed_lanes.push(self.seed_lanes.last().copied().unwrap_or(0) + c);
            }
        }
        let words: usize = parts.iter().map(|(out, _)| out.len()).sum();
        let count = (words / 4) as u32;
        self.fit_seeds(words)?;
        // Each thread's part at its place: no concatenation on one thread.
        let mut at = 0;
        for (out, _) in parts.iter().filter(|(out, _)| !out.is_empty()) {
            self.seeds.write(self.ctx, at, out)?;
            at += out.len();
        }
        let l = self.levels.len();
        self.ctx.write_words(&self.uniforms[l + 1], 0, &[count, 0, self.k, 0]);
        Ok(())
    }

    /// Gathers the first `count` trees of the last pass into row-major original-vertex order in the
    /// `rows` buffer (on the device, see [`Self::rows_buffer`]), setting the overflow word when a
    /// label saturated.
    pub fn gather(&self, count: usize) -> Result<(), SsspError> {
        let n = self.ch.num_vertices() as usize;
        let l = self.levels.len();
        self.ctx.write_words(&self.uniforms[l + 2], 0, &[count as u32, n as u32, self.k, 0]);
        // Ordered after the copies of earlier passes (a queue write lands before the next submission).
        self.ctx.write_words(self.overflow.buffer(), 0, &[0]);
        let grid = gpu_runtime::dispatch::grid_1d(
            (count * n) as u64,
            WG,
            self.ctx.limits.max_compute_workgroups_per_dimension,
        )?;
        let step = [Step {
            pipeline: &self.unpermute,
            bind_group: &self.binds[l + 2],
            grid: Workgroups::Fixed(grid),
        }];
        self.ctx.run(&Sequence::once("PHAST rows", &step))?;
        Ok(())
    }

    /// The first `count` trees of the last pass, in original vertex ids: gathered into row-major
    /// order on the device, then read back as `count × n` words.
    pub fn read_rows(&self, count: usize) -> Result<Vec<Vec<u32>>, SsspError> {
        let n = self.ch.num_vertices() as usize;
        let count = count.min(self.k as usize);
        self.gather(count)?;
        let flat = self.rows.read_range(self.ctx, 0, count * n)?;
        if flat.contains(&SATURATED) {
            return Err(SsspError::WeightOverflow { bound: SATURATED });
        }
        Ok(flat.chunks(n.max(1)).take(count).map(<[u32]>::to_vec).collect())
    }

    /// Puts the pinned staging buffers that `passes` streamed passes of `lanes` trees over `n` vertices
    /// will read through ([`Self::for_each_block`]) into `ctx`'s pool, to be taken from there.
    /// Allocating pinned host memory is slow (about 0.1 s per 541 MB pass of NY on the H200 host), so a
    /// caller with other work to do first (preparing the hierarchy) runs this beside it.
    pub fn prepare_readback(ctx: &GpuContext, n: usize, lanes: usize, passes: usize) {
        let bytes = pass_readback_bytes(n, lanes);
        let count = passes.min(readback_depth());
        let taken: Vec<wgpu::Buffer> = (0..count).map(|_| ctx.take_staging(bytes)).collect();
        for b in taken {
            ctx.give_staging(b);
        }
    }

    /// How many passes may be in flight while the caller reads one (at least 2; the default is 2, or
    /// `URBANFLOW_READBACK_DEPTH`): each costs one pinned staging buffer of a pass's rows.
    pub fn set_readback_depth(&mut self, depth: usize) {
        self.readback_depth = depth.clamp(2, 8);
    }

    /// Trees from every source streamed to `f(first, rows)` (`rows` holds the trees of
    /// `sources[first..]`, `n` words each, in original vertex ids), one pass at a time: while `f` reads
    /// one pass's rows from mapped memory, the device already sweeps the next.
    pub fn for_each_block(
        &mut self,
        sources: &[u32],
        mut f: impl FnMut(usize, &[u32]),
    ) -> Result<(), SsspError> {
        let k = self.k as usize;
        let mut chunks = sources.chunks(k).enumerate();
        self.for_each_fed_block(
            || chunks.next().map(|(i, c)| (i * k, c.to_vec())),
            |first, _, rows| f(first, rows),
        )
    }

    /// Trees from sources fed pass by pass: `next()` gives `(first, sources)` — at most
    /// [`Self::lanes`] sources and the caller's index of the first — or `None` to finish; each pass's
    /// rows go to `f(first, sources, rows)` while the device sweeps the next pass. What several devices
    /// sharing one queue of sources use.
    pub fn for_each_fed_block(
        &mut self,
        mut next: impl FnMut() -> Option<(usize, Vec<u32>)>,
        mut f: impl FnMut(usize, &[u32], &[u32]),
    ) -> Result<(), SsspError> {
        let n = self.ch.num_vertices() as usize;
        let depth = self.readback_depth;
        let mut readback = ReadbackRing::new(self.ctx, "PHAST rows")
            .with_depth(depth)
            .with_capacity(pass_readback_bytes(n, self.k as usize));
        // (first source, its sources, copy under way) of the passes being read back, oldest first.
        let mut pending: std::collections::VecDeque<(usize, Vec<u32>, PendingReadback)> =
            std::collections::VecDeque::with_capacity(depth);
        while let Some((first, chunk)) = next() {
            if chunk.len() > self.k as usize {
                return Err(SsspError::InvalidParameter(format!(
                    "a PHAST pass takes at most {} sources, got {}",
                    self.k,
                    chunk.len()
                )));
            }
            if chunk.is_empty() {
                continue;
            }
            self.run(&chunk)?;
            self.gather(chunk.len())?;
            // The rows and the gather's overflow word behind them, in one mapping.
            let rows_bytes = (chunk.len() * n * 4) as u64;
            let copy = readback
                .start_parts(&[(self.rows.buffer(), 0, rows_bytes), (self.overflow.buffer(), 0, 4)])?;
            pending.push_back((first, chunk, copy));
            // The oldest pass is read once the ring is full: the device holds the others' work.
            if pending.len() == depth
                && let Some(p) = pending.pop_front()
            {
                Self::consume(&mut readback, p, n, &mut f)?;
            }
        }
        while let Some(p) = pending.pop_front() {
            Self::consume(&mut readback, p, n, &mut f)?;
        }
        Ok(())
    }

    fn consume(
        readback: &mut ReadbackRing<'_>,
        (first, sources, copy): (usize, Vec<u32>, PendingReadback),
        n: usize,
        f: &mut impl FnMut(usize, &[u32], &[u32]),
    ) -> Result<(), SsspError> {
        let consumed = readback.read(copy, |words: &[u32]| {
            let (rows, overflow) = words.split_at(sources.len() * n);
            // The device flagged a saturated label while gathering: no host pass over the rows (on
            // NY at 512 lanes a pass's rows are 541 MB, and reading them twice — a scan, then the
            // caller — bounded the streamed rate by the host's memory).
            if overflow[0] != 0 {
                return false;
            }
            f(first, &sources, rows);
            true
        })?;
        if consumed { Ok(()) } else { Err(SsspError::WeightOverflow { bound: SATURATED }) }
    }

    /// Trees from every source (passes of [`Self::lanes`]), in original vertex ids.
    pub fn trees(&mut self, sources: &[u32]) -> Result<Vec<Vec<u32>>, SsspError> {
        let mut out = Vec::with_capacity(sources.len());
        for chunk in sources.chunks(self.k as usize) {
            self.run(chunk)?;
            out.extend(self.read_rows(chunk.len())?);
        }
        Ok(out)
    }
}
