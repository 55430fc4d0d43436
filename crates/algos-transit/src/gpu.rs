//! Batches of earliest-arrival queries × profiles on the GPU (`shaders/td_batch.wgsl`).
//!
//! One query per workgroup: each runs a label-correcting search with a near–far time window over
//! its own row of product nodes (vertex, automaton state) and stops as soon as no listed node can
//! improve the best accepting arrival at its target. Many queries in flight are what make a GPU
//! worthwhile here (spec §3.2): the seed's one-query-per-launch CUDA version was slower than one CPU
//! core. Arrival times equal [`super::arrival_times`] exactly: the search's fixpoint is the earliest
//! arrival under FIFO, and the function evaluation is the same integer arithmetic.
//!
//! ```no_run
//! use urbanflow::transit::gpu::GpuTdBatch;
//! use urbanflow::transit::{EapQuery, Nfa, ProfileQuery, Semantics};
//! # fn demo(ctx: &urbanflow::gpu::GpuContext, g: &urbanflow::transit::TdGraph) -> Result<(), urbanflow::transit::TdError> {
//! let profiles = [Nfa::walk_transit()];
//! let mut batch = GpuTdBatch::new(ctx, g, &profiles, Semantics::Product)?;
//! let q = ProfileQuery { query: EapQuery { source: 0, target: Some(1), depart: 8 * 3600 }, profile: 0 };
//! let (arrivals, _stats) = batch.arrival_times(&[q])?;
//! # Ok(()) }
//! ```

use gpu_runtime::Workgroups;
use gpu_runtime::sequence::{Sequence, Step};
use gpu_runtime::{GpuBuffer, GpuContext, PipelineKey, Shader, wgpu};

use super::error::TdError;
use super::graph::{MAX_LABELS, TdGraph};
use super::nfa::Nfa;
use super::plf::FnKind;
use super::search::{BatchStats, ProfileQuery, SATURATED, Semantics, UNREACHED};

const TD_BATCH: Shader = gpu_runtime::shader!("td_batch");

/// Words per slot in the `slots` buffer.
const SLOT_WORDS: usize = 12;
/// Most automaton states the GPU handles (bitsets are `u32` there).
pub const MAX_GPU_STATES: u32 = 32;

/// How the kernel is launched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TdBatchConfig {
    /// Invocations per workgroup.
    pub workgroup_size: u32,
    /// Queries per batch (workgroups per dispatch).
    pub slots: usize,
    /// Near–far window in seconds.
    pub delta: u32,
    /// Iterations per workgroup per dispatch.
    pub budget: u32,
}

impl TdBatchConfig {
    /// Defaults: 128 invocations, Δ = 300 s, 256 iterations per dispatch, and as many slots (at most
    /// 4,096) as 2 GiB of rows (16 bytes per product node and slot) and the binding limit allow.
    pub fn for_graph(ctx: &GpuContext, n: u32, states: u32) -> Self {
        let size = (n.max(1) as u64) * states.max(1) as u64;
        let binding = ctx.limits.max_storage_buffer_binding_size.min(u32::MAX as u64 + 1);
        let slots = (binding / (4 * size)).min((2u64 << 30) / (16 * size)).clamp(1, 4096) as usize;
        Self {
            workgroup_size: 128.min(ctx.limits.max_compute_invocations_per_workgroup),
            slots,
            delta: 300,
            budget: 256,
        }
    }
}

/// A network and its profiles resident on the device, with scratch rows for a batch of queries.
pub struct GpuTdBatch<'a> {
    ctx: &'a GpuContext,
    n: u32,
    states: u32,
    profiles: u32,
    config: TdBatchConfig,
    pipeline: std::sync::Arc<wgpu::ComputePipeline>,
    bind: wgpu::BindGroup,
    slots: GpuBuffer<u32>,
    control: GpuBuffer<u32>,
    params: wgpu::Buffer,
    // Kept alive for the bind group.
    _buffers: Vec<GpuBuffer<u32>>,
}

impl<'a> GpuTdBatch<'a> {
    /// Uploads `g` and the profiles (as filters under [`Semantics::PerProfileFilter`]) with the default
    /// configuration.
    pub fn new(ctx: &'a GpuContext, g: &TdGraph, profiles: &[Nfa], sem: Semantics) -> Result<Self, TdError> {
        let states = Self::states_of(profiles, sem);
        let config = TdBatchConfig::for_graph(ctx, g.num_vertices(), states);
        Self::with_config(ctx, g, profiles, sem, config)
    }

    fn states_of(profiles: &[Nfa], sem: Semantics) -> u32 {
        match sem {
            Semantics::Product => profiles.iter().map(Nfa::num_states).max().unwrap_or(1),
            Semantics::PerProfileFilter => 1,
        }
    }

    /// Like [`Self::new`] with an explicit launch configuration.
    pub fn with_config(
        ctx: &'a GpuContext,
        g: &TdGraph,
        profiles: &[Nfa],
        sem: Semantics,
        config: TdBatchConfig,
    ) -> Result<Self, TdError> {
        if profiles.is_empty() {
            return Err(TdError::InvalidParameter("no profiles".into()));
        }
        let profiles: Vec<Nfa> = match sem {
            Semantics::Product => profiles.to_vec(),
            Semantics::PerProfileFilter => profiles.iter().map(Nfa::as_filter).collect(),
        };
        let states = Self::states_of(&profiles, Semantics::Product);
        if states > MAX_GPU_STATES {
            return Err(TdError::InvalidParameter(format!(
                "the GPU handles automata of up to {MAX_GPU_STATES} states; this one has {states} (use the CPU)"
            )));
        }
        if config.slots == 0 || config.delta == 0 || config.budget == 0 || config.workgroup_size == 0 {
            return Err(TdError::InvalidParameter(format!("GPU configuration {config:?} has a zero")));
        }
        let n = g.num_vertices();
        let size = n.max(1) as u64 * states as u64;
        if size * config.slots as u64 > u32::MAX as u64 {
            return Err(TdError::InvalidParameter(format!(
                "{} slots of {size} product nodes overflow 32-bit indexing",
                config.slots
            )));
        }
        if g.store.len() >= 1 << 28 {
            return Err(TdError::InvalidParameter("more than 2^28 functions".into()));
        }
        // Arc words: function << 4 | label (labels < 16).
        let arc_info: Vec<u32> =
            g.csr.weights().iter().zip(&g.label).map(|(&f, &l)| f << 4 | l as u32).collect();
        let mut fninfo = Vec::with_capacity(2 * g.store.len());
        for f in 0..g.store.len() {
            let kind = (g.store.kind[f] == FnKind::NextDeparture) as u32;
            fninfo.push(g.store.offsets[f]);
            fninfo.push(g.store.offsets[f + 1] | kind << 31);
        }
        let bp: Vec<u32> = g.store.times.iter().zip(&g.store.values).flat_map(|(&t, &v)| [t, v]).collect();
        let stride = 2 + states * MAX_LABELS;
        let mut nfa = Vec::with_capacity(profiles.len() * stride as usize);
        for p in &profiles {
            nfa.push(p.start() as u32);
            nfa.push(p.accept() as u32);
            for q in 0..states {
                for l in 0..MAX_LABELS {
                    nfa.push(if q < p.num_states() { p.next(q, l as u8) as u32 } else { 0 });
                }
            }
        }
        let cells = config.slots * size as usize;
        let up = |label: &str, data: &[u32]| {
            GpuBuffer::from_slice(ctx, label, if data.is_empty() { &[0] } else { data })
        };
        let buffers = vec![
            up("td offsets", g.csr.offsets())?,
            up("td targets", g.csr.targets())?,
            up("td arcs", &arc_info)?,
            up("td functions", &fninfo)?,
            up("td breakpoints", &bp)?,
            up("td automata", &nfa)?,
            GpuBuffer::zeroed(ctx, "td arrival", cells)?,
            GpuBuffer::zeroed(ctx, "td flags", cells)?,
            GpuBuffer::zeroed(ctx, "td list 0", cells)?,
            GpuBuffer::zeroed(ctx, "td list 1", cells)?,
        ];
        for b in &buffers {
            b.check_bindable(ctx)?;
        }
        let slots = GpuBuffer::zeroed(ctx, "td slots", SLOT_WORDS * config.slots)?;
        let control = GpuBuffer::zeroed(ctx, "td control", 4)?;
        let params = ctx.uniform_words("td params", &[0; 6]);
        let pipeline =
            ctx.pipeline(&PipelineKey::new(TD_BATCH, "search").with("WG", config.workgroup_size))?;
        // Bindings of td_batch.wgsl, in the order of `buffers` (3, 4, 5, 10 are batch_lists').
        const BINDINGS: [u32; 10] = [0, 1, 2, 6, 7, 8, 3, 4, 5, 10];
        let mut entries: Vec<(u32, &wgpu::Buffer)> =
            BINDINGS.iter().zip(&buffers).map(|(&i, b)| (i, b.buffer())).collect();
        entries.extend([(9, slots.buffer()), (11, control.buffer()), (12, &params)]);
        let bind = ctx.bind_buffers(&pipeline, "td batch", &entries)?;
        Ok(Self {
            ctx,
            n,
            states,
            profiles: profiles.len() as u32,
            config,
            pipeline,
            bind,
            slots,
            control,
            params,
            _buffers: buffers,
        })
    }

    /// The launch configuration.
    pub fn config(&self) -> TdBatchConfig {
        self.config
    }

    /// Earliest arrival at the target of every query (in batches of [`TdBatchConfig::slots`]);
    /// [`UNREACHED`] where the profile cannot reach it. `stats.settled` counts product nodes relaxed
    /// (a label-correcting search may relax a node more than once).
    pub fn arrival_times(&mut self, queries: &[ProfileQuery]) -> Result<(Vec<u32>, BatchStats), TdError> {
        for pq in queries {
            let q = &pq.query;
            let Some(t) = q.target else {
                return Err(TdError::InvalidParameter("batched queries need a target".into()));
            };
            for v in [q.source, t] {
                if v >= self.n {
                    return Err(TdError::VertexOutOfRange { vertex: v, n: self.n });
                }
            }
            if pq.profile >= self.profiles {
                return Err(TdError::ProfileOutOfRange { profile: pq.profile, count: self.profiles });
            }
            if q.depart >= SATURATED {
                return Err(TdError::TimeOverflow);
            }
        }
        let mut out = Vec::with_capacity(queries.len());
        let mut stats = BatchStats::default();
        for chunk in queries.chunks(self.config.slots) {
            let words = self.run_batch(chunk)?;
            for s in words.chunks(SLOT_WORDS) {
                let best = s[8];
                if best == SATURATED {
                    return Err(TdError::TimeOverflow);
                }
                out.push(if best == u32::MAX { UNREACHED } else { best });
                stats.settled += s[9] as u64;
            }
        }
        Ok((out, stats))
    }

    fn run_batch(&mut self, chunk: &[ProfileQuery]) -> Result<Vec<u32>, TdError> {
        let mut init = Vec::with_capacity(SLOT_WORDS * chunk.len());
        for pq in chunk {
            let q = pq.query;
            init.extend([
                0,
                0,
                0,
                0,
                q.source,
                q.target.unwrap_or(0),
                q.depart,
                pq.profile,
                u32::MAX,
                0,
                0,
                0,
            ]);
        }
        self.slots.write(self.ctx, 0, &init)?;
        self.control.write(self.ctx, 0, &[0; 4])?;
        let p = [
            self.n,
            self.states,
            chunk.len() as u32,
            self.config.delta,
            self.config.budget,
            2 + self.states * MAX_LABELS,
        ];
        self.ctx.write_words(&self.params, 0, &p);
        let grid = gpu_runtime::dispatch::workgroups_1d(
            chunk.len() as u64,
            self.ctx.limits.max_compute_workgroups_per_dimension,
        )?;
        let body = [Step { pipeline: &self.pipeline, bind_group: &self.bind, grid: Workgroups::Fixed(grid) }];
        // Dispatches of finished workgroups return at once, so a few spare ones cost little; read
        // the finished count after each group of dispatches, doubling the group up to 64.
        let mut dispatches = 2;
        loop {
            self.ctx.run(&Sequence {
                label: "time-dependent batch",
                body: &body,
                iterations: dispatches,
                per_submit: dispatches,
            })?;
            let control = self.control.read(self.ctx)?;
            if control[0] as usize >= chunk.len() {
                break;
            }
            dispatches = (dispatches * 2).min(64);
        }
        Ok(self.slots.read_range(self.ctx, 0, SLOT_WORDS * chunk.len())?)
    }
}

/// Estimated CPU seconds from which [`arrival_times_auto`] considers the GPU: below it, device creation
/// and upload (0.03–1.2 s plus about 0.1 s for the device on the H100, docs/benchmarks.md) could cost
/// more than they save.
pub const AUTO_MIN_CPU_SECONDS: f64 = 2.0;

/// What [`arrival_times_auto`] chose, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct AutoDecision {
    /// Queries answered on the CPU (the first ones, which also measure its rate).
    pub cpu_queries: usize,
    /// Queries answered on the GPU.
    pub gpu_queries: usize,
    /// One sentence.
    pub reason: String,
}

/// Earliest arrivals of many queries on whatever is fastest here, never slower than the CPU by more
/// than the measuring: the first queries run on the CPU (rayon) and give its rate; the rest go to the
/// GPU only if a hardware GPU is present ([`GpuContext::auto`]) and the CPU would need at least
/// [`AUTO_MIN_CPU_SECONDS`] for them. The GPU answered 7.6–28× the 16-core CPU's queries per second
/// on every benchmarked instance, so past that estimate its setup is repaid. Results equal
/// [`super::arrival_times`] exactly, whichever runs.
pub fn arrival_times_auto(
    g: &TdGraph,
    profiles: &[Nfa],
    queries: &[ProfileQuery],
    sem: Semantics,
) -> Result<(Vec<u32>, BatchStats, AutoDecision), TdError> {
    // Enough queries that thread start-up and first allocations do not dominate the rate.
    let probe = queries.len().min((16 * rayon::current_num_threads()).max(64));
    let t = std::time::Instant::now();
    let (mut out, mut stats) = super::arrival_times(g, profiles, &queries[..probe], sem, true)?;
    let per_query = t.elapsed().as_secs_f64() / probe.max(1) as f64;
    let rest = &queries[probe..];
    let estimate = per_query * rest.len() as f64;
    let cpu = |reason: String| AutoDecision { cpu_queries: queries.len(), gpu_queries: 0, reason };
    let decision = if rest.is_empty() {
        cpu("every query fit the CPU's measuring batch".into())
    } else if estimate < AUTO_MIN_CPU_SECONDS {
        cpu(format!("the CPU needs about {estimate:.2} s for the rest, below the GPU's setup threshold"))
    } else {
        match GpuContext::auto() {
            None => cpu(format!("no hardware GPU: {}", gpu_runtime::context::auto_adapter().reason)),
            Some(ctx) => {
                let (more, s) = GpuTdBatch::new(ctx, g, profiles, sem)?.arrival_times(rest)?;
                out.extend(more);
                stats.settled += s.settled;
                return Ok((
                    out,
                    stats,
                    AutoDecision {
                        cpu_queries: probe,
                        gpu_queries: rest.len(),
                        reason: format!(
                            "the CPU would need about {estimate:.1} s for {} queries: the GPU ({}) answers them",
                            rest.len(),
                            ctx.info.name
                        ),
                    },
                ));
            }
        }
    };
    if decision.cpu_queries > probe {
        let (more, s) = super::arrival_times(g, profiles, rest, sem, true)?;
        out.extend(more);
        stats.settled += s.settled;
    }
    Ok((out, stats, decision))
}
