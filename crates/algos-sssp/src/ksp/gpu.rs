//! Many K-shortest-paths queries on the GPU (`shaders/ksp_mps.wgsl`): one workgroup per query.
//!
//! Per batch of queries: the distances to every query's target come from a PHAST pass on the graph's
//! reversed hierarchy ([`GpuPhast`], [`TargetDistances::Phast`]) or from the batched many-source kernel
//! on the reverse graph ([`GpuBatchSssp`]), rows left on the device; kernel `tree` picks every
//! vertex's tree arc per query; kernel `rank` runs MPS per workgroup, resumable across dispatches;
//! each finished query gathers its loopless paths' arcs into one compact buffer, which is all the host
//! reads besides a small state row per query. The host sorts each query's paths by (cost, arc
//! sequence) and keeps K, so the answers equal the CPU's exactly.
//!
//! The CPU answers instead — same results — every query whose GPU state overflowed a capacity (pool,
//! pops, arena, ties at the K-th cost) or whose costs left u32, and whole batches on graphs with
//! zero-weight arcs (the GPU's tree rule could circle through them). [`BatchStats::gpu_queries`]
//! counts the queries the GPU answered.

use crate::SsspError;
use std::time::Instant;

use gpu_runtime::Workgroups;
use gpu_runtime::sequence::{Sequence, Step};
use gpu_runtime::{GpuBuffer, GpuContext, PipelineKey, Recording, Shader, wgpu};
use graph_core::Csr;

use super::batch::{BatchStats, GpuPhases, TargetDistances, reversed_hierarchy};
use super::{Path, check_vertex};
use crate::ch::gpu::GpuPhast;
use crate::gpu::{BatchConfig, GpuBatchSssp, GraphBuffers, max_slots};
use crate::paths::SATURATED;

const KSP: Shader = gpu_runtime::shader!("ksp_mps");
const WG: u32 = 128;
const STATE_HEAD: usize = 10;
const CAND_WORDS: u64 = 4;
const REC_WORDS: u64 = 6;
const DONE: u32 = 2;

/// Capacities and batch size of the GPU ranking. [`KspGpuOptions::for_k`] gives the defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KspGpuOptions {
    /// Queries per batch (workgroups per dispatch); 0: as many as `memory` allows.
    pub slots: usize,
    /// Candidates a query may hold at once.
    pub pool: u32,
    /// Candidates a query may pop.
    pub pops: u32,
    /// Arc words of popped candidates a query may store.
    pub arena: u32,
    /// Device memory for the per-query buffers of one batch, in bytes.
    pub memory: u64,
    /// Pops per query per dispatch.
    pub budget: u32,
    /// How the distances to the targets are computed (default: [`TargetDistances::Auto`]).
    pub distances: TargetDistances,
    /// Wait for each batch's distances before ranking, so that [`GpuPhases::distances_s`] is their
    /// device time; otherwise it is the time to submit them and the device's share lands in
    /// `ranking_s`. Off by default: the wait cost NY's K = 10 batch 0.01–0.02 s (docs/benchmarks.md).
    pub split_times: bool,
}

/// Queries per GPU batch by default for K up to [`DEFAULT_SLOTS_MAX_K`]. Once distances come from
/// PHAST, a batch's fixed costs are its buffers: NY, 1,000 pairs, H100 (`URBANFLOW_KSP_MEMORY`,
/// docs/benchmarks.md): at K = 10, 776 queries a batch (8 GiB) took 0.46–0.50 s, 0.12–0.13 s of it
/// giving the buffers back, against 0.42–0.44 s for 194 (2 GiB) and 0.49–0.50 s for 97; 256 took
/// 0.33–0.43 s against 0.47–0.56 s for 776 in a run side by side. At K = 100 the most the memory allows
/// is best (282, capped by the arena's binding: 1.37–1.43 s, against 1.45–1.49 s for 256 and
/// 1.45–1.54 s for 141).
pub const DEFAULT_SLOTS: usize = 256;
/// The largest K given [`DEFAULT_SLOTS`]; above, as many queries as the memory allows (measured at
/// K = 10 and 100 only: the line between them is a guess).
pub const DEFAULT_SLOTS_MAX_K: usize = 32;

impl KspGpuOptions {
    /// Defaults for K paths per query: room for 64·K + 1024 pops (NY at K = 100 pops 14·K on
    /// average, 93% of them looped; the few queries that need more go to the CPU's threads while the
    /// GPU goes on), 256 arcs and 16 candidates per pop; 8 GiB per batch, halved until the device
    /// can allocate it (on NY the 2 GiB binding of the arena caps a batch at 282 queries at K = 100,
    /// 776 at K = 10). 128 arcs per pop sent 206 of NY's 1,000 queries to the CPU at K = 100, and 16
    /// or 32 GiB batches were no faster: a batch's ranking takes 0.2 s of its 0.45 s
    /// (docs/benchmarks.md). 16·K pops sent a third of NY's queries to the CPU at K = 100. At most
    /// [`DEFAULT_SLOTS`] queries a batch up to K = [`DEFAULT_SLOTS_MAX_K`].
    pub fn for_k(k: usize) -> Self {
        let pops = (64 * k as u64 + 1024).min(1 << 20) as u32;
        Self {
            slots: if k <= DEFAULT_SLOTS_MAX_K { DEFAULT_SLOTS } else { 0 },
            pool: pops.saturating_mul(16),
            pops,
            arena: pops.saturating_mul(256),
            // `URBANFLOW_KSP_MEMORY` (bytes) overrides it, for measurements.
            memory: std::env::var("URBANFLOW_KSP_MEMORY")
                .ok()
                .and_then(|v| v.parse().ok())
                .filter(|&m: &u64| m > 0)
                .unwrap_or(8 << 30),
            budget: 64,
            distances: TargetDistances::Auto,
            split_times: false,
        }
    }
}

/// The `k` cheapest loopless paths of every `(source, target)` query on the GPU `ctx`, in the order
/// of `queries`; identical to [`super::ksp_batch_cpu`].
pub fn ksp_batch_gpu(
    ctx: &GpuContext,
    g: &Csr<u32>,
    queries: &[(u32, u32)],
    k: usize,
    opts: &KspGpuOptions,
) -> Result<(Vec<Vec<Path>>, BatchStats), SsspError> {
    let start = Instant::now();
    for &(s, t) in queries {
        check_vertex(g, "source", s)?;
        check_vertex(g, "target", t)?;
    }
    let mut out = vec![Vec::new(); queries.len()];
    let mut stats = BatchStats { queries: queries.len(), why: "asked for".into(), ..Default::default() };
    if k == 0 || queries.is_empty() {
        stats.time = start.elapsed();
        return Ok((out, stats));
    }
    if g.weights().contains(&0) || k > u32::MAX as usize / 4 {
        let (answers, st) = super::ksp_batch_cpu_with(g, queries, k, opts.distances)?;
        return Ok((answers, BatchStats { time: start.elapsed(), why: stats.why.clone(), ..st }));
    }
    let rev = g.transpose().graph;
    let mut targets: Vec<u32> = queries.iter().map(|q| q.1).collect();
    targets.sort_unstable();
    targets.dedup();
    stats.targets = targets.len();
    // PHAST's labels are not checked for overflow on the device (the batched search's are): it runs
    // only where no path can overflow, every weight summed below the saturation mark.
    let total: u64 = g.weights().iter().map(|&w| w as u64).sum();
    (stats.distances, stats.distances_why) = match opts.distances.resolve(g, targets.len(), true) {
        (TargetDistances::Phast, _) if total >= SATURATED as u64 => (
            TargetDistances::Searches,
            "the weights could overflow PHAST's labels, which the GPU does not check",
        ),
        chosen => chosen,
    };
    // The reversed hierarchy is read and customised on a thread while the ranker's buffers are
    // allocated (each about a tenth of a second on NY).
    let reversed = std::sync::OnceLock::new();
    let setup = Instant::now();
    let mut ranker = std::thread::scope(|scope| -> Result<GpuRanker<'_>, SsspError> {
        let mut preparing =
            (stats.distances == TargetDistances::Phast).then(|| scope.spawn(|| reversed_hierarchy(g)));
        // A batch as large as the memory allows (each workgroup waits on memory most of the time, so
        // throughput grows with the queries in flight); halved while the device cannot allocate it.
        let mut try_opts = *opts;
        loop {
            let distances = |slots: usize| -> Result<Distances<'_>, SsspError> {
                if let Some(thread) = preparing.take() {
                    let (ch, seconds) = thread.join().expect("the hierarchy's thread panicked")?;
                    stats.hierarchy_s = seconds;
                    let _ = reversed.set(ch);
                }
                Ok(match reversed.get() {
                    Some(ch) => Distances::Phast(Box::new(GpuPhast::new(ctx, ch, slots as u32)?)),
                    None => {
                        let config = BatchConfig { slots, ..BatchConfig::for_graph(ctx, &rev) };
                        Distances::Searches(Box::new(GpuBatchSssp::new(ctx, &rev, config)?))
                    }
                })
            };
            match GpuRanker::new(ctx, g, &rev, k, queries.len(), &try_opts, distances) {
                Err(e) if out_of_memory(&e) && try_opts.memory > 256 << 20 => try_opts.memory /= 2,
                other => break other,
            }
        }
    })?;
    stats.gpu.setup_s = setup.elapsed().as_secs_f64();
    // Each batch's rows go to a thread of their own, which turns them into paths (on all cores) and
    // answers the queries the GPU handed back, while this thread drives the GPU through the next
    // batches.
    let shape = ranker.shape();
    std::thread::scope(|scope| -> Result<(), SsspError> {
        let mut batches = Vec::new();
        for (chunk_no, chunk) in queries.chunks(ranker.slots).enumerate() {
            let rows = ranker.run(chunk, opts.split_times, &mut stats.gpu)?;
            batches.push((
                chunk_no * ranker.slots,
                scope.spawn(move || -> Result<_, SsspError> {
                    let answers = shape.answers(chunk, &rows);
                    let rest: Vec<usize> = (0..chunk.len()).filter(|&i| answers[i].is_err()).collect();
                    let asked: Vec<(u32, u32)> = rest.iter().map(|&i| chunk[i]).collect();
                    let cpu = if asked.is_empty() { None } else { Some(super::ksp_batch_cpu(g, &asked, k)?) };
                    Ok((answers, rest, cpu))
                }),
            ));
        }
        let tail = Instant::now();
        for (first, handle) in batches {
            let (answers, rest, cpu) = handle.join().expect("a K-shortest-paths batch thread panicked")?;
            for (i, answer) in answers.into_iter().enumerate() {
                match answer {
                    Ok(paths) => {
                        out[first + i] = paths;
                        stats.gpu_queries += 1;
                    }
                    Err(status) => {
                        let reason = (status as usize).saturating_sub(3).min(5);
                        stats.gpu_overflows[reason] += 1;
                    }
                }
            }
            if let Some((answers, st)) = cpu {
                for (i, paths) in rest.into_iter().zip(answers) {
                    out[first + i] = paths;
                }
                stats.pops += st.pops;
                stats.looped_pops += st.looped_pops;
            }
        }
        stats.gpu.tail_s = tail.elapsed().as_secs_f64();
        Ok(())
    })?;
    let release = Instant::now();
    drop(ranker);
    stats.gpu.release_s = release.elapsed().as_secs_f64();
    stats.time = start.elapsed();
    Ok((out, stats))
}

/// The device side: buffers sized once, reused by every batch.
struct GpuRanker<'a> {
    ctx: &'a GpuContext,
    g: &'a Csr<u32>,
    k: usize,
    slots: usize,
    out_cap: usize,
    state_words: usize,
    pi: Distances<'a>,
    tree: std::sync::Arc<wgpu::ComputePipeline>,
    rank: std::sync::Arc<wgpu::ComputePipeline>,
    tree_bind: wgpu::BindGroup,
    rank_bind: wgpu::BindGroup,
    params: wgpu::Buffer,
    marks: GpuBuffer<u32>,
    state: GpuBuffer<u32>,
    control: GpuBuffer<u32>,
    gathered: GpuBuffer<u32>,
    _buffers: (GraphBuffers, [GpuBuffer<u32>; 4]),
}

/// Where a batch's distances to its targets come from; rows `pi[slot * n + v]` on the device.
enum Distances<'a> {
    /// The batched many-source kernel on the reverse graph.
    Searches(Box<GpuBatchSssp<'a>>),
    /// PHAST on the reversed hierarchy, one pass of `slots` lanes per batch, rows gathered.
    Phast(Box<GpuPhast<'a>>),
}

impl Distances<'_> {
    /// The device buffer of the rows.
    fn rows(&self) -> &wgpu::Buffer {
        match self {
            Self::Searches(sssp) => sssp.dist_buffer().buffer(),
            Self::Phast(phast) => phast.rows_buffer().buffer(),
        }
    }

    /// Computes the rows of `targets`, slot by slot.
    fn run(&mut self, targets: &[u32]) -> Result<(), SsspError> {
        match self {
            Self::Searches(sssp) => sssp.run(targets).map(drop),
            Self::Phast(phast) => {
                phast.run(targets)?;
                phast.gather(targets.len())
            }
        }
    }
}

impl<'a> GpuRanker<'a> {
    /// Buffers for a batch as large as `opts` allows; `distances(slots)` makes the distance rows'
    /// source last, once everything else is allocated.
    fn new(
        ctx: &'a GpuContext,
        g: &'a Csr<u32>,
        rev: &Csr<u32>,
        k: usize,
        queries: usize,
        opts: &KspGpuOptions,
        distances: impl FnOnce(usize) -> Result<Distances<'a>, SsspError>,
    ) -> Result<Self, SsspError> {
        let n = g.num_vertices().max(1) as u64;
        let out_cap = 2 * k + 16;
        let state_words = STATE_HEAD + WG as usize + 2 * out_cap;
        // One sub-pool per lane.
        let pool_cap = (opts.pool.max(WG) / WG) * WG;
        // Bytes per slot: succ and two mark words per vertex, pool, pop records, arena, state, the
        // gathered share (a quarter of the arena), and the batched search's 16 bytes per vertex.
        let per_slot = 4 * 4 * n
            + 16 * n
            + 4 * (CAND_WORDS * pool_cap as u64 + REC_WORDS * opts.pops as u64)
            + 4 * opts.arena as u64 * 5 / 4
            + 4 * state_words as u64;
        let binding = ctx.limits.max_storage_buffer_binding_size.min(ctx.limits.max_buffer_size);
        let largest_word_row =
            [2 * n, CAND_WORDS * opts.pool as u64, REC_WORDS * opts.pops as u64, opts.arena as u64]
                .into_iter()
                .max()
                .unwrap();
        let by_binding = (binding / 4 / largest_word_row).min(u32::MAX as u64 / largest_word_row);
        let mut slots =
            (opts.memory / per_slot).min(by_binding).min(max_slots(ctx, rev.num_vertices(), u64::MAX) as u64);
        if opts.slots > 0 {
            slots = slots.min(opts.slots as u64);
        }
        // Never more rows than queries: a small batch allocates only what it uses.
        slots = slots.min(queries.max(1) as u64);
        if slots == 0 {
            return Err(SsspError::GpuMemory { per_query: per_slot, allowed: opts.memory });
        }
        let slots = slots as usize;
        let graph = GraphBuffers::upload(ctx, g)?;
        let words = |x: u64| (slots as u64 * x) as usize;
        let succ = GpuBuffer::zeroed(ctx, "ksp succ", words(2 * n))?;
        let marks = GpuBuffer::zeroed(ctx, "ksp marks", words(2 * n))?;
        let pool = GpuBuffer::zeroed(ctx, "ksp pool", words(CAND_WORDS * pool_cap as u64))?;
        let popped = GpuBuffer::zeroed(ctx, "ksp popped", words(REC_WORDS * opts.pops as u64))?;
        let arena = GpuBuffer::zeroed(ctx, "ksp arena", words(opts.arena as u64))?;
        let gather_cap = words(opts.arena as u64 / 4).max(1);
        let gathered = GpuBuffer::zeroed(ctx, "ksp gathered", gather_cap)?;
        let state = GpuBuffer::zeroed(ctx, "ksp state", words(state_words as u64))?;
        let control = GpuBuffer::zeroed(ctx, "ksp control", 4)?;
        for b in [&succ, &marks, &pool, &popped, &arena, &gathered, &state] {
            b.check_bindable(ctx)?;
        }
        let p = [
            g.num_vertices(),
            0,
            k as u32,
            opts.budget,
            pool_cap,
            opts.pops,
            opts.arena,
            out_cap as u32,
            gather_cap as u32,
            state_words as u32,
            0,
            0,
        ];
        let params = ctx.uniform_words("ksp params", &p);
        let tree = ctx.pipeline(&PipelineKey::new(KSP, "tree").with("WG", WG))?;
        let rank = ctx.pipeline(&PipelineKey::new(KSP, "rank").with("WG", WG))?;
        let pi = distances(slots)?;
        let [e0, e1, e2] = graph.entries();
        let rows = pi.rows();
        let tree_bind = ctx.bind_buffers(
            &tree,
            "ksp tree",
            &[e0, e1, e2, (3, rows), (4, succ.buffer()), (9, state.buffer()), (11, &params)],
        )?;
        let rank_bind = ctx.bind_buffers(
            &rank,
            "ksp rank",
            &[
                e0,
                e1,
                e2,
                (3, rows),
                (4, succ.buffer()),
                (5, marks.buffer()),
                (6, pool.buffer()),
                (7, popped.buffer()),
                (8, arena.buffer()),
                (9, state.buffer()),
                (10, control.buffer()),
                (11, &params),
                (12, gathered.buffer()),
            ],
        )?;
        Ok(Self {
            ctx,
            g,
            k,
            slots,
            out_cap,
            state_words,
            pi,
            tree,
            rank,
            tree_bind,
            rank_bind,
            params,
            marks,
            state,
            control,
            gathered,
            _buffers: (graph, [succ, pool, popped, arena]),
        })
    }

    /// How to read this ranker's rows.
    fn shape(&self) -> RowShape<'a> {
        RowShape { g: self.g, k: self.k, out_cap: self.out_cap, state_words: self.state_words }
    }

    /// Ranks up to `slots` queries; their state rows and gathered arcs ([`RowShape::answers`] reads them).
    /// With `split`, waits for the distances before the ranking ([`KspGpuOptions::split_times`]).
    fn run(
        &mut self,
        queries: &[(u32, u32)],
        split: bool,
        phases: &mut GpuPhases,
    ) -> Result<BatchRows, SsspError> {
        let ctx = self.ctx;
        let batch = queries.len();
        let targets: Vec<u32> = queries.iter().map(|q| q.1).collect();
        let t = Instant::now();
        self.pi.run(&targets)?;
        if split {
            ctx.wait()?;
        }
        phases.distances_s += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let mut rows = vec![0u32; batch * self.state_words];
        for (i, &(s, t)) in queries.iter().enumerate() {
            rows[i * self.state_words] = s;
            rows[i * self.state_words + 1] = t;
        }
        self.state.write(ctx, 0, &rows)?;
        ctx.write_words(&self.params, 1, &[batch as u32]);
        let mut clear = Recording::new("clearing K-shortest-paths marks");
        clear.clear(self.marks.buffer(), 0, None).clear(self.control.buffer(), 0, None);
        ctx.submit(&clear)?;
        let n = self.g.num_vertices() as u64;
        let max = ctx.limits.max_compute_workgroups_per_dimension;
        let tree_grid = gpu_runtime::dispatch::grid_1d(batch as u64 * n, WG, max)?;
        let rank_grid = gpu_runtime::dispatch::workgroups_1d(batch as u64, max)?;
        ctx.run(&Sequence::once(
            "ksp tree arcs",
            &[Step { pipeline: &self.tree, bind_group: &self.tree_bind, grid: Workgroups::Fixed(tree_grid) }],
        ))?;
        let rank =
            [Step { pipeline: &self.rank, bind_group: &self.rank_bind, grid: Workgroups::Fixed(rank_grid) }];
        let mut dispatches = 2;
        loop {
            ctx.run(&Sequence {
                label: "ksp ranking",
                body: &rank,
                iterations: dispatches,
                per_submit: dispatches,
            })?;
            let control = self.control.read_range(ctx, 0, 2)?;
            if control[0] as usize >= batch {
                break;
            }
            dispatches = (dispatches * 2).min(64);
        }
        let state = self.state.read_range(ctx, 0, batch * self.state_words)?;
        let words = self.control.read_range(ctx, 1, 1)?[0] as usize;
        let gathered = if words > 0 {
            self.gathered.read_range(ctx, 0, words.min(self.gathered.len()))?
        } else {
            Vec::new()
        };
        phases.ranking_s += t.elapsed().as_secs_f64();
        Ok(BatchRows { state, gathered })
    }
}

/// What the host reads back after a batch: a state row per query and the gathered arcs of every
/// finished query's loopless paths.
struct BatchRows {
    state: Vec<u32>,
    gathered: Vec<u32>,
}

/// The layout of a ranker's rows, enough to turn them into paths away from the ranker.
#[derive(Clone, Copy)]
struct RowShape<'a> {
    g: &'a Csr<u32>,
    k: usize,
    out_cap: usize,
    state_words: usize,
}

impl RowShape<'_> {
    /// Each query's K paths in (cost, arc sequence) order, or `Err(status)` for a query the GPU could
    /// not finish (capacities); queries in parallel.
    fn answers(&self, queries: &[(u32, u32)], rows: &BatchRows) -> Vec<Result<Vec<Path>, u32>> {
        use rayon::prelude::*;
        let (heads, weights) = (self.g.targets(), self.g.weights());
        queries
            .par_iter()
            .enumerate()
            .map(|(i, &(s, t))| {
                let row = &rows.state[i * self.state_words..(i + 1) * self.state_words];
                if row[6] != DONE {
                    return Err(row[6]);
                }
                if s == t {
                    return Ok(vec![Path { cost: 0, arcs: Vec::new(), source: s }]);
                }
                let outs = row[5] as usize;
                let mut at = row[8] as usize;
                let mut paths = Vec::with_capacity(outs);
                for j in 0..outs {
                    let len = row[STATE_HEAD + WG as usize + self.out_cap + j] as usize;
                    let arcs = rows.gathered[at..at + len].to_vec();
                    at += len;
                    let cost = arcs.iter().map(|&a| weights[a as usize] as u64).sum();
                    debug_assert_eq!(arcs.last().map(|&a| heads[a as usize]), Some(t));
                    paths.push(Path { cost, arcs, source: s });
                }
                paths.sort_unstable();
                paths.truncate(self.k);
                Ok(paths)
            })
            .collect()
    }
}

fn out_of_memory(e: &SsspError) -> bool {
    use gpu_runtime::GpuError::OutOfMemory;
    matches!(e, SsspError::Gpu(OutOfMemory(_)))
}
