//! Optimal strategies for many destinations at once on a GPU (`shaders/transit_strategies.wgsl`), and
//! its CPU twin [`transit_strategies_mirror`].
//!
//! The CPU's sweep ([`super::assign`]) is a label setting: one heap, one destination per thread. A GPU
//! needs thousands of independent lanes instead, so here each destination is one workgroup whose
//! invocations evaluate every vertex from its heads' current labels, sweep after sweep, until no label
//! changes (a Bellman–Ford fixpoint of the same rule: at the fixpoint each vertex examines its
//! out-edges in increasing `u_head + time` from final labels, as the CPU does). Loading is the same
//! kind of fixpoint over the attractive edges (the travellers at a vertex: its origin's demand plus
//! every in-edge's share of its tail's travellers). A batch of destinations runs as one submission;
//! only the edge volumes and the origins' costs come back.
//!
//! The volumes agree with the CPU's to rounding (the sums run in another order; equal keys of two
//! waits are taken in out-edge order, the CPU's in push order), and equal the mirror's; both are
//! tested against the CPU on random graphs, Coquimbo and the 1989 example. Skims are the CPU's.
//!
//! ```no_run
//! use urbanflow::transit::strategies::gpu::assign_gpu;
//! use urbanflow::transit::strategies::{HyperpathGraph, StrategyOptions, TransitDemand, Zones};
//! let inf = f64::INFINITY;
//! let g = HyperpathGraph::from_edges(
//!     4,
//!     &[(0, 2, 0.0, 0.1), (2, 1, 15.0, inf), (0, 3, 0.0, 0.2), (3, 1, 20.0, inf)],
//! )?;
//! let zones = Zones::every_vertex(&g);
//! let demand = TransitDemand::new(&zones, [(0, 1, 30.0)])?;
//! let ctx = urbanflow::gpu::GpuContext::new()?;
//! let r = assign_gpu(&ctx, &g, &zones, &demand, &StrategyOptions::default(), &|_, _| {})?;
//! assert!((r.volumes[1] - 10.0).abs() < 1e-9 && (r.volumes[3] - 20.0).abs() < 1e-9);
//! # Ok::<(), urbanflow::transit::TdError>(())
//! ```

use std::sync::Arc;
use std::time::Instant;

use bytemuck::{Pod, Zeroable};
use gpu_runtime::sequence::{Sequence, Step};
use gpu_runtime::{GpuBuffer, GpuContext, PipelineKey, Shader, Workgroups, wgpu};
use rayon::prelude::*;

use super::congested::{
    CongestedAssignment, CongestedIteration, CongestionOptions, Input, Iterate, IterationSums, Waits,
    congested_loop,
};
use super::{Grouped, StrategyAssignment, StrategyOptions, TransitDemand, Zones, group_by_destination};
use super::{HyperpathGraph, TIME_FLOOR};
use crate::TdError;

const SHADER: Shader = gpu_runtime::shader!("transit_strategies");

/// The device's stand-in for an unreached label (`unreached()` in the shader): f64 infinity cannot be
/// written in WGSL, and no travel time comes near it.
const UNREACHED: f64 = 1e300;

/// An out-edge as the shader reads it.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct OutEdge {
    /// Travel time floored at [`TIME_FLOOR`], as the CPU's sweep counts it.
    time: f64,
    /// Frequency; 0 where there is no wait.
    freq: f64,
    head: u32,
    edge: u32,
}

/// An origin of one destination (merged per vertex, trips added in the CPU's order).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct Origin {
    trips: f64,
    /// The strategy's cost at the origin, written by `loading`.
    cost: f64,
    vertex: u32,
    _pad: u32,
}

/// The graph as the shader reads it.
struct Layout {
    n: usize,
    m: usize,
    /// Out-edge starts (n + 1), then in-edge starts (n + 1).
    offsets: Vec<u32>,
    /// Out-edges grouped by tail, in edge order within a tail.
    out: Vec<OutEdge>,
    /// `(tail, edge)` of the in-edges, grouped by head in the graph's order.
    inn: Vec<[u32; 2]>,
}

impl Layout {
    fn of(g: &HyperpathGraph) -> Self {
        let (n, m) = (g.num_vertices() as usize, g.num_edges());
        let mut offsets = vec![0u32; n + 1];
        for &t in &g.tail {
            offsets[t as usize + 1] += 1;
        }
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        let mut fill = offsets.clone();
        let mut out = vec![OutEdge::zeroed(); m];
        for e in 0..m {
            let t = g.tail[e] as usize;
            let f = g.freq[e];
            out[fill[t] as usize] = OutEdge {
                time: g.time[e].max(TIME_FLOOR),
                freq: if f.is_infinite() { 0.0 } else { f },
                head: g.head[e],
                edge: e as u32,
            };
            fill[t] += 1;
        }
        offsets.extend_from_slice(&g.in_start);
        let inn = g.in_edges.iter().zip(&g.in_tail).map(|(&e, &t)| [t, e]).collect();
        Self { n, m, offsets, out, inn }
    }

    fn out_range(&self, v: usize) -> std::ops::Range<usize> {
        self.offsets[v] as usize..self.offsets[v + 1] as usize
    }

    fn in_range(&self, v: usize) -> std::ops::Range<usize> {
        let base = self.n + 1;
        self.offsets[base + v] as usize..self.offsets[base + v + 1] as usize
    }
}

/// Most sweeps of either fixpoint on `n` vertices before it is called unsettled: one more than the
/// longest path of distinct vertices needs (a label is final one sweep after its heads').
fn max_sweeps(n: u32) -> u32 {
    n + 2
}

/// A typed error where a destination's labels or loading (`sweeps`) ran out of sweeps.
fn check_settled(sweeps: [u32; 2], n: u32, zone: i64) -> Result<(), TdError> {
    let max = max_sweeps(n);
    match [(sweeps[0], "labels"), (sweeps[1], "loading")].iter().find(|x| x.0 >= max) {
        Some((_, what)) => Err(TdError::InvalidParameter(format!(
            "optimal strategies on the GPU: the {what} of destination zone {zone} did not settle in {max} sweeps"
        ))),
        None => Ok(()),
    }
}

/// One batch of destinations with their origins.
struct Batch {
    /// Its place among the run's batches.
    key: usize,
    /// Destination vertices.
    dests: Vec<u32>,
    /// Origin starts per destination (dests + 1).
    starts: Vec<u32>,
    origins: Vec<Origin>,
    /// Demand pairs merged into each origin entry.
    pairs: Vec<usize>,
}

/// What a batch gives back.
struct BatchResult {
    volumes: Vec<f64>,
    /// The origin entries without a strategy, in order.
    unreached: Vec<usize>,
    /// Per destination, the sweeps of the labels and of the loading.
    sweeps: Vec<[u32; 2]>,
}

/// Device bytes per destination and vertex: two f64 halves of labels or travellers, and five u32 rows
/// (the sweep each vertex is due in, two frontiers, two lists of the vertices that changed).
const ROW_BYTES_PER_VERTEX: u64 = 36;

/// How the GPU path runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpuStrategyConfig {
    /// Destinations per submission (each holds seven rows of vertices and a row of edges on the device).
    pub batch: usize,
    /// Invocations per workgroup (one workgroup per destination while labelling and loading).
    pub workgroup_size: u32,
}

impl Default for GpuStrategyConfig {
    /// 1,024 destinations per batch, 256 invocations per workgroup (every device takes 256; see
    /// [`GpuStrategyConfig::for_graph`] for the measured choice).
    fn default() -> Self {
        Self { batch: 1024, workgroup_size: 256 }
    }
}

impl GpuStrategyConfig {
    /// As many destinations per batch as one storage binding and 1 GiB of rows allow (at most 4,096),
    /// and 512 invocations per workgroup where the device takes them.
    pub fn for_graph(ctx: &GpuContext, g: &HyperpathGraph) -> Self {
        let binding = ctx.limits.max_storage_buffer_binding_size.min(ctx.limits.max_buffer_size);
        let (n, m) = (g.num_vertices().max(1) as u64, g.num_edges().max(1) as u64);
        let by_binding = (binding / (ROW_BYTES_PER_VERTEX * n)).min(binding / (8 * m));
        let by_memory = (1u64 << 30) / (ROW_BYTES_PER_VERTEX * n + 8 * m);
        // 512 invocations: 1.13x faster than 256 on 3,600 stops on an H200, the same as 1,024.
        let workgroup_size = 512.min(ctx.limits.max_compute_invocations_per_workgroup);
        Self { batch: by_binding.min(by_memory).clamp(1, 4096) as usize, workgroup_size }
    }
}

/// Volumes of `demand` by optimal strategies with every batch of destinations on `ctx` (which needs
/// 64-bit floats, `SHADER_F64`), in the default configuration. The same checks and report as
/// [`super::assign`]; skims are refused (they are the CPU's).
pub fn assign_gpu(
    ctx: &GpuContext,
    g: &HyperpathGraph,
    zones: &Zones,
    demand: &TransitDemand,
    opts: &StrategyOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<StrategyAssignment, TdError> {
    let config = GpuStrategyConfig::for_graph(ctx, g);
    Ok(assign_gpu_with(ctx, g, zones, demand, opts, config, progress)?.0)
}

/// How many sweeps the fixpoints took, over a run's destinations.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SweepReport {
    /// Submissions (batches of destinations).
    pub batches: usize,
    /// Most sweeps of one destination's labels.
    pub labels_max: u32,
    /// Mean sweeps of a destination's labels.
    pub labels_mean: f64,
    /// Most sweeps of one destination's loading.
    pub loading_max: u32,
    /// Mean sweeps of a destination's loading.
    pub loading_mean: f64,
}

impl std::fmt::Display for SweepReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} batches; labels settled in {:.1} sweeps on average (at most {}), loading in {:.1} (at most {})",
            self.batches, self.labels_mean, self.labels_max, self.loading_mean, self.loading_max
        )
    }
}

/// [`assign_gpu`] with an explicit configuration, and how many sweeps the fixpoints took.
pub fn assign_gpu_with(
    ctx: &GpuContext,
    g: &HyperpathGraph,
    zones: &Zones,
    demand: &TransitDemand,
    opts: &StrategyOptions,
    config: GpuStrategyConfig,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<(StrategyAssignment, SweepReport), TdError> {
    ctx.require(ctx.features().f64, "f64", "optimal strategies on the GPU")?;
    let lay = Layout::of(g);
    let mut device = None;
    run_batches(g, zones, demand, opts, config, progress, |batch| {
        if device.is_none() {
            device = Some(DeviceStrategies::new(ctx, &lay, config)?);
        }
        let key = batch.key;
        device.as_mut().map(|d| d.run(batch, key, None)).unwrap_or_else(|| unreachable!()).map(|r| r.0)
    })
}

/// The CPU twin of the GPU path: the shader's operations in its order, one destination at a time
/// (every vertex in every sweep: the shader's skipping of vertices whose heads did not change gives
/// the same values). It gives the GPU's volumes (to rounding where the device contracts
/// multiply-adds) and sweeps.
pub fn transit_strategies_mirror(
    g: &HyperpathGraph,
    zones: &Zones,
    demand: &TransitDemand,
    opts: &StrategyOptions,
    config: GpuStrategyConfig,
) -> Result<(StrategyAssignment, SweepReport), TdError> {
    let lay = Layout::of(g);
    run_batches(g, zones, demand, opts, config, &|_, _| {}, |batch| Ok(mirror_batch(&lay, batch)))
}

/// The host's part of both paths: checks, batches, and the report from the batches' results.
fn run_batches(
    g: &HyperpathGraph,
    zones: &Zones,
    demand: &TransitDemand,
    opts: &StrategyOptions,
    config: GpuStrategyConfig,
    progress: &(dyn Fn(usize, usize) + Sync),
    mut solve: impl FnMut(&Batch) -> Result<BatchResult, TdError>,
) -> Result<(StrategyAssignment, SweepReport), TdError> {
    let start = Instant::now();
    if opts.skims {
        return Err(TdError::InvalidParameter(
            "skims are computed on the CPU: run the assignment there for skims".into(),
        ));
    }
    if config.batch == 0 {
        return Err(TdError::InvalidParameter("a GPU batch of 0 destinations".into()));
    }
    let Grouped { by_dest, intrazonal, mut unassigned, mut unassigned_pairs } =
        group_by_destination(g, zones, demand, opts)?;
    let dests: Vec<usize> = (0..zones.len()).filter(|&d| !by_dest[d].is_empty()).collect();
    let mut volumes = vec![0.0; g.num_edges()];
    let mut done = 0;
    let mut report = SweepReport::default();
    let (mut labels_sum, mut loading_sum) = (0u64, 0u64);
    for (key, chunk) in dests.chunks(config.batch).enumerate() {
        let batch = batch_of(key, chunk, &by_dest, zones);
        let r = solve(&batch)?;
        report.batches += 1;
        for (d, s) in chunk.iter().zip(&r.sweeps) {
            (labels_sum, loading_sum) = (labels_sum + u64::from(s[0]), loading_sum + u64::from(s[1]));
            report.labels_max = report.labels_max.max(s[0]);
            report.loading_max = report.loading_max.max(s[1]);
            check_settled(*s, g.num_vertices(), zones.id(*d))?;
        }
        for &o in &r.unreached {
            unassigned += batch.origins[o].trips;
            unassigned_pairs += batch.pairs[o];
        }
        for (v, x) in volumes.iter_mut().zip(&r.volumes) {
            *v += x;
        }
        done += chunk.len();
        progress(done, dests.len());
    }
    let per = dests.len().max(1) as f64;
    report.labels_mean = labels_sum as f64 / per;
    report.loading_mean = loading_sum as f64 / per;
    let assignment = StrategyAssignment {
        volumes,
        skims: None,
        assigned: demand.total() - intrazonal - unassigned,
        intrazonal,
        unassigned,
        unassigned_pairs,
        destinations: dests.len(),
        seconds: start.elapsed().as_secs_f64(),
    };
    Ok((assignment, report))
}

/// The batch of destination zones `chunk`: origins sorted by vertex, those of one vertex merged (their
/// trips added in the CPU's order). Destinations are prepared in parallel.
fn batch_of(key: usize, chunk: &[usize], by_dest: &[Vec<(u32, f64)>], zones: &Zones) -> Batch {
    let per_dest: Vec<(Vec<Origin>, Vec<usize>)> = chunk
        .par_iter()
        .map(|&d| {
            let mut list: Vec<(u32, f64)> = by_dest[d].clone();
            list.sort_by_key(|&(v, _)| v); // stable: one vertex's trips stay in the CPU's order
            let (mut origins, mut pairs): (Vec<Origin>, Vec<usize>) = (Vec::new(), Vec::new());
            for (v, trips) in list {
                match origins.last_mut() {
                    Some(o) if o.vertex == v => {
                        o.trips += trips;
                        *pairs.last_mut().unwrap_or(&mut 0) += 1;
                    }
                    // `0.0 + trips`: the CPU adds each origin's trips to a zeroed vertex.
                    _ => {
                        origins.push(Origin { trips: 0.0 + trips, cost: 0.0, vertex: v, _pad: 0 });
                        pairs.push(1);
                    }
                }
            }
            (origins, pairs)
        })
        .collect();
    let mut batch = Batch { key, dests: Vec::new(), starts: vec![0], origins: Vec::new(), pairs: Vec::new() };
    for (&d, (origins, pairs)) in chunk.iter().zip(per_dest) {
        batch.dests.push(zones.destination(d));
        batch.origins.extend(origins);
        batch.pairs.extend(pairs);
        batch.starts.push(batch.origins.len() as u32);
    }
    batch
}

/// A vertex's strategy as the shader's `evaluate` builds it.
#[derive(Debug, Clone, Copy)]
struct Strategy {
    u: f64,
    freq: f64,
    no_wait: u32,
}

/// The shader's `evaluate`: `v`'s out-edges examined in increasing (key, position) from the labels
/// `u`; with `write`, the shares of its out-edges (`fin` is the strategy of a first call).
fn evaluate(lay: &Layout, v: usize, u: &[f64], write: Option<(&mut [f64], Strategy)>) -> Strategy {
    let range = lay.out_range(v);
    let mut write = write;
    if let Some((row, _)) = &mut write {
        for k in range.clone() {
            row[lay.out[k].edge as usize] = 0.0;
        }
    }
    let mut s = Strategy { u: UNREACHED, freq: 0.0, no_wait: 0 };
    let (mut prev_key, mut prev_pos) = (-1.0f64, 0usize);
    loop {
        // The shader's `next_edge`.
        let mut best = None;
        let mut best_key = UNREACHED;
        for k in range.clone() {
            let uj = u[lay.out[k].head as usize];
            if uj >= UNREACHED {
                continue;
            }
            let key = uj + lay.out[k].time;
            let after = key > prev_key || (key == prev_key && k > prev_pos);
            if after && (best.is_none() || key < best_key) {
                best = Some(k);
                best_key = key;
            }
        }
        let Some(k) = best else { break };
        let e = lay.out[k];
        let uj = u[e.head as usize];
        let key = uj + e.time;
        (prev_key, prev_pos) = (key, k);
        if s.u < key {
            break;
        }
        if uj >= s.u {
            continue;
        }
        let f = e.freq;
        if s.no_wait > 0 {
            if f == 0.0 {
                s.no_wait += 1;
                if let Some((row, fin)) = &mut write {
                    row[e.edge as usize] = 1.0 / f64::from(fin.no_wait);
                }
            }
            continue;
        }
        if f == 0.0 {
            s.u = key;
            s.no_wait = 1;
        } else if s.freq == 0.0 {
            s.u = 1.0 / f + key;
            s.freq = f;
        } else {
            s.u = s.freq.mul_add(s.u, f * key) / (s.freq + f);
            s.freq += f;
        }
        if let Some((row, fin)) = &mut write {
            if fin.no_wait == 0 {
                row[e.edge as usize] = f / fin.freq;
            } else if f == 0.0 {
                row[e.edge as usize] = 1.0 / f64::from(fin.no_wait);
            }
        }
    }
    s
}

/// The shader's entries for one batch, on the CPU.
fn mirror_batch(lay: &Layout, batch: &Batch) -> BatchResult {
    let (n, m) = (lay.n, lay.m);
    let max = max_sweeps(lay.n as u32);
    let mut travellers = Vec::with_capacity(batch.dests.len());
    let mut shares = Vec::with_capacity(batch.dests.len());
    let mut costs = vec![0.0; batch.origins.len()];
    let mut sweeps = Vec::with_capacity(batch.dests.len());
    for (d, &dest) in batch.dests.iter().enumerate() {
        let dest = dest as usize;
        // `labels`
        let mut cur = vec![UNREACHED; n];
        cur[dest] = 0.0;
        let mut next = vec![0.0; n];
        let mut label_sweeps = 0;
        loop {
            let mut changed = false;
            for v in 0..n {
                next[v] = if v == dest { 0.0 } else { evaluate(lay, v, &cur, None).u };
                changed |= next[v] != cur[v];
            }
            std::mem::swap(&mut cur, &mut next);
            label_sweeps += 1;
            if !changed || label_sweeps >= max {
                break;
            }
        }
        // `shares`
        let mut row = vec![0.0; m];
        for v in 0..n {
            if v == dest {
                for k in lay.out_range(v) {
                    row[lay.out[k].edge as usize] = 0.0;
                }
            } else {
                let fin = evaluate(lay, v, &cur, None);
                evaluate(lay, v, &cur, Some((&mut row, fin)));
            }
        }
        // `loading`
        let origins = batch.starts[d] as usize..batch.starts[d + 1] as usize;
        for o in origins.clone() {
            costs[o] = cur[batch.origins[o].vertex as usize];
        }
        let seed = |v: usize| -> f64 {
            let list = &batch.origins[origins.clone()];
            match list.binary_search_by_key(&(v as u32), |o| o.vertex) {
                Ok(i) if costs[origins.start + i] < UNREACHED => list[i].trips,
                _ => 0.0,
            }
        };
        let mut vol = vec![0.0; n];
        let mut next = vec![0.0; n];
        let mut load_sweeps = 0;
        loop {
            let mut changed = false;
            for v in 0..n {
                let mut x = seed(v);
                for k in lay.in_range(v) {
                    let [t, e] = lay.inn[k];
                    let s = row[e as usize];
                    if s != 0.0 {
                        x += vol[t as usize] * s;
                    }
                }
                next[v] = x;
                changed |= x != vol[v];
            }
            std::mem::swap(&mut vol, &mut next);
            load_sweeps += 1;
            if !changed || load_sweeps >= max {
                break;
            }
        }
        travellers.push(vol);
        shares.push(row);
        sweeps.push([label_sweeps, load_sweeps]);
    }
    // `edge_volumes`
    let mut volumes = vec![0.0; m];
    for &[t, e] in &lay.inn {
        let mut x = 0.0;
        for (vol, row) in travellers.iter().zip(&shares) {
            let s = row[e as usize];
            if s != 0.0 {
                x += vol[t as usize] * s;
            }
        }
        volumes[e as usize] = x;
    }
    let unreached = (0..costs.len()).filter(|&o| costs[o] >= UNREACHED).collect();
    BatchResult { volumes, unreached, sweeps }
}

/// The graph and a batch's rows resident on a device.
struct DeviceStrategies<'a> {
    ctx: &'a GpuContext,
    n: u32,
    m: u32,
    max_sweeps: u32,
    wg: u32,
    params: wgpu::Buffer,
    offsets: GpuBuffer<u32>,
    out: GpuBuffer<OutEdge>,
    inn: GpuBuffer<[u32; 2]>,
    batch: GpuBuffer<u32>,
    origins: GpuBuffer<Origin>,
    work: GpuBuffer<f64>,
    share: GpuBuffer<f64>,
    volume: GpuBuffer<f64>,
    state: GpuBuffer<u32>,
    pipelines: [Arc<wgpu::ComputePipeline>; 4],
    binds: [wgpu::BindGroup; 4],
    /// The batch whose destinations and origins are on the device (its key), not uploaded again.
    uploaded: Option<usize>,
    /// With [`DeviceStrategies::add_congestion`]: the congested assignment's buffers and kernel.
    congestion: Option<DeviceCongestion>,
}

impl<'a> DeviceStrategies<'a> {
    /// Uploads the graph and allocates rows for `capacity` destinations.
    fn new(ctx: &'a GpuContext, lay: &Layout, config: GpuStrategyConfig) -> Result<Self, TdError> {
        let (capacity, wg) = (config.batch, config.workgroup_size);
        let (n, m) = (lay.n.max(1), lay.m.max(1));
        if wg == 0 || wg > ctx.limits.max_compute_invocations_per_workgroup {
            return Err(TdError::InvalidParameter(format!(
                "optimal strategies on the GPU: {wg} invocations per workgroup (this device takes 1 to {})",
                ctx.limits.max_compute_invocations_per_workgroup
            )));
        }
        let max_dim = ctx.limits.max_compute_workgroups_per_dimension as usize;
        if capacity > max_dim || n.div_ceil(wg as usize) > max_dim {
            return Err(TdError::InvalidParameter(format!(
                "optimal strategies on the GPU: {capacity} destinations or {n} vertices exceed this device's \
                 {max_dim} workgroups per dimension"
            )));
        }
        // Empty graphs still bind a buffer of one element.
        let no_edge = [OutEdge::zeroed()];
        let no_in = [[0u32; 2]];
        let work = GpuBuffer::<f64>::zeroed(ctx, "strategies rows", 2 * n * capacity)?;
        let state = GpuBuffer::<u32>::zeroed(ctx, "strategies frontiers", 5 * n * capacity)?;
        state.check_bindable(ctx)?;
        let share = GpuBuffer::<f64>::zeroed(ctx, "strategies shares", m * capacity)?;
        work.check_bindable(ctx)?;
        share.check_bindable(ctx)?;
        let key = |entry| PipelineKey::new(SHADER, entry).with("WG", wg);
        let pipelines = [
            ctx.pipeline(&key("labels"))?,
            ctx.pipeline(&key("shares"))?,
            ctx.pipeline(&key("loading"))?,
            ctx.pipeline(&key("edge_volumes"))?,
        ];
        let params = ctx.uniform_words("strategies params", &[0; 8]);
        let offsets = GpuBuffer::from_slice(ctx, "strategies offsets", &lay.offsets)?;
        let out = GpuBuffer::from_slice(
            ctx,
            "strategies out-edges",
            if lay.out.is_empty() { &no_edge } else { &lay.out },
        )?;
        let inn = GpuBuffer::from_slice(
            ctx,
            "strategies in-edges",
            if lay.inn.is_empty() { &no_in } else { &lay.inn },
        )?;
        let batch = GpuBuffer::<u32>::zeroed(ctx, "strategies batch", 5 * capacity + 1)?;
        // Grown in `run` when a batch has more origins.
        let origins = GpuBuffer::<Origin>::zeroed(ctx, "strategies origins", capacity.max(1))?;
        let volume = GpuBuffer::<f64>::zeroed(ctx, "strategies volumes", m)?;
        let binds = Self::bind(
            ctx,
            &pipelines,
            &[
                &params,
                offsets.buffer(),
                out.buffer(),
                inn.buffer(),
                batch.buffer(),
                origins.buffer(),
                work.buffer(),
                share.buffer(),
                volume.buffer(),
                state.buffer(),
            ],
        )?;
        Ok(Self {
            ctx,
            n: lay.n as u32,
            m: lay.m as u32,
            max_sweeps: max_sweeps(lay.n as u32),
            wg,
            params,
            offsets,
            out,
            inn,
            batch,
            origins,
            work,
            share,
            volume,
            state,
            pipelines,
            binds,
            uploaded: None,
            congestion: None,
        })
    }

    fn rebind(&mut self) -> Result<(), TdError> {
        let buffers = [
            &self.params,
            self.offsets.buffer(),
            self.out.buffer(),
            self.inn.buffer(),
            self.batch.buffer(),
            self.origins.buffer(),
            self.work.buffer(),
            self.share.buffer(),
            self.volume.buffer(),
            self.state.buffer(),
        ];
        self.binds = Self::bind(self.ctx, &self.pipelines, &buffers)?;
        Ok(())
    }

    /// One bind group per entry: each pipeline's layout holds only the bindings its entry uses.
    fn bind(
        ctx: &GpuContext,
        pipelines: &[Arc<wgpu::ComputePipeline>; 4],
        buffers: &[&wgpu::Buffer; 10],
    ) -> Result<[wgpu::BindGroup; 4], TdError> {
        // Bindings of `labels`, `shares`, `loading`, `edge_volumes` (the shader's numbering).
        const USES: [&[u32]; 4] =
            [&[0, 1, 2, 3, 4, 6, 7, 9], &[0, 1, 2, 4, 6, 7], &[0, 1, 2, 3, 4, 5, 6, 7, 9], &[0, 3, 6, 7, 8]];
        let group = |k: usize| -> Result<wgpu::BindGroup, TdError> {
            let entries: Vec<(u32, &wgpu::Buffer)> =
                USES[k].iter().map(|&b| (b, buffers[b as usize])).collect();
            Ok(ctx.bind_buffers(&pipelines[k], "transit strategies", &entries)?)
        };
        Ok([group(0)?, group(1)?, group(2)?, group(3)?])
    }

    /// Runs `batch` (uploaded unless it is the one of `key` already there). With `congested`
    /// (`(first destination among all, whether the flows have moved)`), also the `congestion` kernel,
    /// whose per-destination strategy costs and waits come back beside the batch's result.
    fn run(
        &mut self,
        batch: &Batch,
        key: usize,
        congested: Option<(usize, bool)>,
    ) -> Result<(BatchResult, Vec<[f64; 2]>), TdError> {
        let ctx = self.ctx;
        let dests = batch.dests.len();
        self.reserve_origins(batch.origins.len())?;
        let mut words = batch.dests.clone();
        words.extend_from_slice(&batch.starts);
        words.resize(words.len() + 3 * dests, 0);
        self.batch.write(ctx, 0, &words)?;
        if self.uploaded != Some(key) && !batch.origins.is_empty() {
            self.origins.write(ctx, 0, &batch.origins)?;
        }
        self.uploaded = Some(key);
        let (nw, groups) = self.congestion.as_ref().map_or((0, 0), |c| (c.waits, c.groups));
        let (offset, moved) = congested.unwrap_or((0, false));
        let words = [self.n, self.m, dests as u32, self.max_sweeps, nw, groups, offset as u32, moved as u32];
        ctx.write_words(&self.params, 0, &words);
        let max_dim = ctx.limits.max_compute_workgroups_per_dimension;
        let per_dest = Workgroups::Fixed([dests as u32, 1, 1]);
        let vertices = Workgroups::Fixed([self.n.max(1).div_ceil(self.wg), dests as u32, 1]);
        let edges = Workgroups::Fixed(gpu_runtime::dispatch::workgroups_1d(
            (self.m.max(1) as u64).div_ceil(u64::from(self.wg)),
            max_dim,
        )?);
        let (p, b) = (&self.pipelines, &self.binds);
        let mut steps = vec![
            Step { pipeline: &p[0], bind_group: &b[0], grid: per_dest.clone() },
            Step { pipeline: &p[1], bind_group: &b[1], grid: vertices },
            Step { pipeline: &p[2], bind_group: &b[2], grid: per_dest.clone() },
            Step { pipeline: &p[3], bind_group: &b[3], grid: edges },
        ];
        let congestion = self.congestion.as_ref().filter(|_| congested.is_some());
        if let Some(c) = congestion {
            steps.push(Step { pipeline: &c.pipeline, bind_group: &c.bind, grid: per_dest });
        }
        ctx.run(&Sequence::once("transit strategies", &steps))?;
        let sums = match congestion {
            Some(c) => {
                let out = c.congested.read_range(ctx, 1 + c.waits as usize, 2 * dests)?;
                out.chunks_exact(2).map(|x| [x[0], x[1]]).collect()
            }
            None => Vec::new(),
        };
        let volumes = self.volume.read_range(ctx, 0, self.m as usize)?;
        let words = self.batch.read_range(ctx, 2 * dests + 1, 3 * dests)?;
        let sweeps = (0..dests).map(|d| [words[d], words[dests + d]]).collect();
        // Origins without a strategy: read only the destinations that have some (most have none).
        let mut unreached = Vec::new();
        for d in (0..dests).filter(|&d| words[2 * dests + d] > 0) {
            let (first, last) = (batch.starts[d] as usize, batch.starts[d + 1] as usize);
            let costs = self.origins.read_range(ctx, first, last - first)?;
            unreached.extend((first..last).filter(|&o| costs[o - first].cost >= UNREACHED));
        }
        Ok((BatchResult { volumes, unreached, sweeps }, sums))
    }

    /// Room for `len` origins (with slack for later batches when it grows).
    fn reserve_origins(&mut self, len: usize) -> Result<(), TdError> {
        if len > self.origins.len() {
            if self.congestion.is_some() {
                return Err(TdError::InvalidParameter(
                    "congested strategies on the GPU: origins outgrew the buffer reserved for them".into(),
                ));
            }
            self.origins = GpuBuffer::zeroed(self.ctx, "strategies origins", len * 2)?;
            self.origins.check_bindable(self.ctx)?;
            self.rebind()?;
            self.uploaded = None;
        }
        Ok(())
    }

    /// Adds the congested assignment's buffers and kernel: `destinations` destinations' flows on the
    /// edges with a wait of `waits`.
    fn add_congestion(
        &mut self,
        waits: &Waits,
        tails: &[u32],
        destinations: usize,
        capacity: usize,
    ) -> Result<(), TdError> {
        let ctx = self.ctx;
        let nw = waits.len();
        let mut words: Vec<u32> = waits.edge.iter().zip(tails).flat_map(|(&a, &t)| [a, t]).collect();
        words.extend_from_slice(&waits.by_tail);
        words.extend_from_slice(&waits.tail_start);
        let flows = GpuBuffer::<f64>::zeroed(ctx, "congested flows", (destinations * nw).max(1))?;
        flows.check_bindable(ctx)?;
        let waits_buf = GpuBuffer::from_slice(ctx, "congested waits", &words)?;
        let congested = GpuBuffer::<f64>::zeroed(ctx, "congested step and sums", 1 + nw + 2 * capacity)?;
        let pipeline = ctx.pipeline(&PipelineKey::new(SHADER, "congestion").with("WG", self.wg))?;
        let entries = [
            (0, &self.params),
            (4, self.batch.buffer()),
            (5, self.origins.buffer()),
            (6, self.work.buffer()),
            (7, self.share.buffer()),
            (10, flows.buffer()),
            (11, waits_buf.buffer()),
            (12, congested.buffer()),
        ];
        let bind = ctx.bind_buffers(&pipeline, "transit congestion", &entries)?;
        self.congestion = Some(DeviceCongestion {
            waits: nw as u32,
            groups: (waits.tail_start.len() - 1) as u32,
            congested,
            pipeline,
            bind,
            _buffers: (flows, waits_buf),
        });
        Ok(())
    }
}

/// The congested assignment's part of the device: flows per destination on the edges with a wait, the
/// wait edges' structure, the step and frequencies in, the sums out.
struct DeviceCongestion {
    waits: u32,
    groups: u32,
    congested: GpuBuffer<f64>,
    pipeline: Arc<wgpu::ComputePipeline>,
    bind: wgpu::BindGroup,
    // Kept alive for the bind group.
    _buffers: (GpuBuffer<f64>, GpuBuffer<u32>),
}

/// Congested assignment ([`super::assign_congested`]) with every iteration's strategies, loads and
/// per-destination flows on `ctx` (64-bit floats needed): the demand is grouped and uploaded once, the
/// frequencies each iteration, and only the volumes and two sums per destination come back. The
/// successive averages, the effective frequencies and the gap run on the host as on the CPU; results
/// equal the CPU's to rounding (sums in another order). Skims, when asked for, are the CPU's at the
/// final frequencies.
///
/// ```no_run
/// use urbanflow::transit::strategies::gpu::assign_congested_gpu;
/// use urbanflow::transit::strategies::{CongestionOptions, EdgeKind, HyperpathGraph, StrategyOptions, TransitDemand, Zones};
/// let inf = f64::INFINITY;
/// let g = HyperpathGraph::from_edges(4, &[(0, 2, 0.0, 0.1), (2, 1, 10.0, inf), (0, 3, 0.0, 0.1), (3, 1, 14.0, inf)])?
///     .with_kinds([EdgeKind::Boarding, EdgeKind::OnBoard, EdgeKind::Boarding, EdgeKind::OnBoard])?;
/// let zones = Zones::every_vertex(&g);
/// let demand = TransitDemand::new(&zones, [(0, 1, 60.0)])?;
/// let ctx = urbanflow::gpu::GpuContext::new()?;
/// let opts = CongestionOptions { max_iterations: 500, relative_gap: 1e-4, ..Default::default() };
/// let capacity = [20.0, inf, inf, inf];
/// let r = assign_congested_gpu(&ctx, &g, &zones, &demand, &capacity, &StrategyOptions::default(), &opts, &|_| {})?;
/// assert!(r.converged && r.assignment.volumes[0] < 20.0);
/// # Ok::<(), urbanflow::transit::TdError>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn assign_congested_gpu(
    ctx: &GpuContext,
    g: &HyperpathGraph,
    zones: &Zones,
    demand: &TransitDemand,
    capacity: &[f64],
    opts: &StrategyOptions,
    copts: &CongestionOptions,
    progress: &(dyn Fn(&CongestedIteration) + Sync),
) -> Result<CongestedAssignment, TdError> {
    ctx.require(ctx.features().f64, "f64", "congested optimal strategies on the GPU")?;
    let config = GpuStrategyConfig::for_graph(ctx, g);
    congested_loop(g, zones, demand, capacity, opts, copts, progress, |input| {
        GpuIterate::new(ctx, g, config, input)
    })
}

/// The GPU engine of the congested loop: the graph, the batches and every destination's flows stay on
/// the device between iterations.
struct GpuIterate<'a> {
    device: DeviceStrategies<'a>,
    lay: Layout,
    batches: Vec<Batch>,
    /// The step and the wait edges' frequencies, uploaded each iteration.
    step_and_freq: Vec<f64>,
}

impl<'a> GpuIterate<'a> {
    fn new(
        ctx: &'a GpuContext,
        g: &HyperpathGraph,
        config: GpuStrategyConfig,
        input: &Input<'_>,
    ) -> Result<Self, TdError> {
        let lay = Layout::of(g);
        let batches: Vec<Batch> = input
            .dests
            .chunks(config.batch.max(1))
            .enumerate()
            .map(|(key, chunk)| batch_of(key, chunk, &input.grouped.by_dest, input.zones))
            .collect();
        let mut device = DeviceStrategies::new(ctx, &lay, config)?;
        // Every batch's origins fit before the congestion kernel binds the buffer.
        device.reserve_origins(batches.iter().map(|b| b.origins.len()).max().unwrap_or(0))?;
        let tails: Vec<u32> = input.waits.edge.iter().map(|&a| g.tail[a as usize]).collect();
        device.add_congestion(input.waits, &tails, input.dests.len(), config.batch)?;
        let step_and_freq = vec![0.0; 1 + input.waits.len()];
        Ok(Self { device, lay, batches, step_and_freq })
    }
}

impl Iterate for GpuIterate<'_> {
    fn iterate(
        &mut self,
        input: &Input<'_>,
        live: &HyperpathGraph,
        k: usize,
        step: f64,
    ) -> Result<IterationSums, TdError> {
        let ctx = self.device.ctx;
        // This iteration's frequencies: on the out-edges the strategies read, and on the wait edges.
        for o in &mut self.lay.out {
            let f = live.freq[o.edge as usize];
            o.freq = if f.is_infinite() { 0.0 } else { f };
        }
        if !self.lay.out.is_empty() {
            self.device.out.write(ctx, 0, &self.lay.out)?;
        }
        self.step_and_freq[0] = step;
        for (x, &a) in self.step_and_freq[1..].iter_mut().zip(&input.waits.edge) {
            *x = live.freq[a as usize];
        }
        if let Some(c) = &self.device.congestion {
            c.congested.write(ctx, 0, &self.step_and_freq)?;
        }
        let mut sums = IterationSums::empty(live.num_edges());
        let mut offset = 0;
        for batch in &self.batches {
            let (r, per_dest) = self.device.run(batch, batch.key, Some((offset, k > 0)))?;
            for (i, s) in r.sweeps.iter().enumerate() {
                check_settled(*s, live.num_vertices(), input.zones.id(input.dests[offset + i]))?;
            }
            for (y, x) in sums.loads.iter_mut().zip(&r.volumes) {
                *y += x;
            }
            for [cost, waiting] in per_dest {
                sums.strategy_cost += cost;
                sums.waiting += waiting;
            }
            for &o in &r.unreached {
                sums.unreached += batch.origins[o].trips;
                sums.unreached_pairs += batch.pairs[o];
            }
            offset += batch.dests.len();
        }
        Ok(sums)
    }
}
