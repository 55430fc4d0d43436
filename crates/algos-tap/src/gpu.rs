//! All-or-nothing loading on the GPU, in fixed point ([`crate::fixed`]); trees never cross the bus, one
//! readback of loads per call. Two engines:
//! - [`Method::Trees`]: algos-sssp's batched locality-based relaxation leaves one distance row per
//!   origin on the device; `tap_aon.wgsl` derives canonical predecessors and walks every OD pair's path.
//!   CPU twin: [`fixed::tap_aon_mirror`](crate::fixed::tap_aon_mirror), equal bit for bit.
//! - [`Method::Phast`] (and `Auto`): a customisable contraction hierarchy of the search graph, built once,
//!   re-customised on the CPU for every call's costs; one PHAST pass sweeps all origins and
//!   `phast_load.wgsl` passes the OD amounts up the trees on the hierarchy's arcs; the CPU unpacks the
//!   shortcut loads. CPU twin: [`crate::hierarchy::CchAon`], equal bit for bit.
//!
//! Both load shortest paths of the same fixed-point costs, so `Σ load · cost` is the same; among equally
//! short paths they may pick different ones.

use algos_sssp::cch::{Cch, Unpacking};
use algos_sssp::ch::ContractionHierarchy;
use algos_sssp::ch::gpu::GpuPhast;

use crate::phast_load::GpuPhastLoad;
use algos_sssp::gpu::GpuSssp;
pub use algos_sssp::many::Method;
use gpu_runtime::{GpuBuffer, GpuContext, PipelineKey, Recording, Shader, Workgroups, wgpu};
use graph_core::Csr;

use crate::demand::Demand;
use crate::error::TapError;
use crate::fixed::{SplitGraph, fixed_amount};
use crate::network::Network;

const AON: Shader = gpu_runtime::shader!("tap_aon");
const WG: u32 = 256;
/// Depth of the batched locality-based relaxation.
const LBR_DEPTH: u32 = 4;
/// Most origins per PHAST pass (the batched kernel's own limit is 256): every pass dispatches each
/// level of the hierarchy twice (sweep, loading), so fewer, wider passes pay less launch latency.
const PHAST_LANES: u64 = 4096;

/// [`PHAST_LANES`], or `URBANFLOW_TAP_PHAST_LANES` (for measurements).
fn phast_lanes() -> u64 {
    std::env::var("URBANFLOW_TAP_PHAST_LANES")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&k| k > 0)
        .unwrap_or(PHAST_LANES)
}

/// Where the last PHAST loading's time went (seconds).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PhastTimes {
    /// Fixed-point costs with the OD-distance bound's two searches, and beside them re-customising the
    /// CCH (CPU) at the last call's scale (again after them when the scale changed).
    pub quantise_s: f64,
    /// Uploading the customised weights.
    pub customise_s: f64,
    /// Preparing the upward searches (on the device since issue 40: the sources uploaded) and recording
    /// the sweeps; with `URBANFLOW_PHAST_UPWARD=cpu`, the CPU's upward searches too.
    pub searches_s: f64,
    /// Waiting for the upward searches and the sweeps (GPU).
    pub sweep_s: f64,
    /// Tree loading (GPU), with its recording.
    pub load_s: f64,
    /// Slot loads read back.
    pub readback_s: f64,
    /// Shortcut loads unpacked to search arcs (CPU).
    pub unpack_s: f64,
}

/// What leaves the distance rows on the device.
enum Trees<'c> {
    /// The batched kernel, into the loader's own row buffer; `tap_aon.wgsl` derives canonical
    /// predecessors and walks every OD pair's path.
    Batched { dist: GpuBuffer<u32>, pred: GpuBuffer<u32> },
    /// PHAST on a CCH of the search graph, OD amounts passed up the trees on the device
    /// (`phast_load.wgsl`), shortcut loads unpacked on the CPU; the sweep object is made at the first
    /// call's metric.
    Phast {
        cch: Box<Cch>,
        sweep: Option<Box<GpuPhast<'c>>>,
        loading: Option<Box<GpuPhastLoad>>,
        lanes: u32,
        times: PhastTimes,
        /// Wait for the device after each step so that `times` splits the call (measurements);
        /// otherwise the batches' sweeps and loadings go to the device back to back.
        split: bool,
    },
}

/// One batch of origins: their search sources and OD pairs, uploaded once.
struct Batch {
    sources: GpuBuffer<u32>,
    od: GpuBuffer<[u32; 4]>,
    source_list: Vec<u32>,
    pairs: u32,
}

/// The GPU loader of one (network, demand) pair: buffers and OD batches uploaded once, reused by every
/// iteration.
pub struct GpuAon<'c> {
    ctx: &'c GpuContext,
    graph: SplitGraph,
    offsets: GpuBuffer<u32>,
    heads: GpuBuffer<u32>,
    tails: GpuBuffer<u32>,
    weights: GpuBuffer<u32>,
    trees: Trees<'c>,
    loads: GpuBuffer<u32>,
    control: GpuBuffer<u32>,
    batches: Vec<Batch>,
}

impl<'c> GpuAon<'c> {
    /// Uploads the search graph and the demand in batches sized from the device's binding limit
    /// (trees by the batched kernel).
    pub fn new(
        ctx: &'c GpuContext,
        net: &Network,
        demand: &Demand,
        allow_zone_transit: bool,
    ) -> Result<Self, TapError> {
        Self::for_origins(ctx, net, demand, allow_zone_transit, 0..demand.num_origins())
    }

    /// A loader for the origins at positions `origins` of the demand only (one device's or one rank's
    /// share). Loads are fixed-point integers, so the shares' loads add up to exactly the loads of
    /// [`GpuAon::new`], whatever the split.
    pub fn for_origins(
        ctx: &'c GpuContext,
        net: &Network,
        demand: &Demand,
        allow_zone_transit: bool,
        origins: std::ops::Range<usize>,
    ) -> Result<Self, TapError> {
        Self::with_method(ctx, net, demand, allow_zone_transit, origins, Method::Trees)
    }

    /// A loader whose trees come from `method`: [`Method::Trees`] (batched kernel), [`Method::Phast`]
    /// (CCH built here, customised per call) or [`Method::Auto`] (PHAST: 4.5–6× faster on every city
    /// network measured, docs/benchmarks.md). Both load shortest paths (module docs).
    pub fn with_method(
        ctx: &'c GpuContext,
        net: &Network,
        demand: &Demand,
        allow_zone_transit: bool,
        origins: std::ops::Range<usize>,
        method: Method,
    ) -> Result<Self, TapError> {
        if origins.start > origins.end || origins.end > demand.num_origins() {
            return Err(TapError::InvalidOption(format!(
                "origin range {origins:?} outside the demand's {} origins",
                demand.num_origins()
            )));
        }
        let graph = SplitGraph::new(net, demand, allow_zone_transit);
        let n = graph.num_vertices();
        // Rows per batch: 8 bytes per cell in one binding (the batched kernel's flags, at most 256 rows;
        // PHAST's 64-bit flow accumulators, at most PHAST_LANES).
        let binding = ctx.limits.max_storage_buffer_binding_size;
        let phast = method != Method::Trees;
        let most = if phast { phast_lanes() } else { 256 };
        let rows = (binding / (8 * n.max(1) as u64)).clamp(1, most) as usize;
        let rows = rows.min(origins.len().max(1));
        let mut batches = Vec::new();
        for start in origins.clone().step_by(rows) {
            let end = (start + rows).min(origins.end);
            let mut od = Vec::new();
            for i in start..end {
                let (dests, flows) = demand.from_origin(i);
                for (&d, &f) in dests.iter().zip(flows) {
                    let (lo, hi) = fixed_amount(f);
                    od.push([(i - start) as u32, d, lo, hi]);
                }
            }
            let source_list = graph.source[start..end].to_vec();
            let od = GpuBuffer::from_slice(ctx, "tap od pairs", &od)?;
            // A batch's OD pairs must fit one storage binding (else a clear error, never a truncation).
            od.check_bindable(ctx)?;
            let pairs = od.len() as u32;
            batches.push(Batch {
                sources: GpuBuffer::from_slice(ctx, "tap sources", &source_list)?,
                od,
                pairs,
                source_list,
            });
        }
        let m = graph.num_arcs();
        let cells = rows * n;
        let trees = if phast {
            Trees::Phast {
                cch: Box::new(graph.hierarchy()?),
                sweep: None,
                loading: None,
                lanes: rows as u32,
                times: PhastTimes::default(),
                split: false,
            }
        } else {
            let dist = GpuBuffer::zeroed(ctx, "tap dist rows", cells.max(1))?;
            let pred = GpuBuffer::zeroed(ctx, "tap pred rows", cells.max(1))?;
            dist.check_bindable(ctx)?;
            pred.check_bindable(ctx)?;
            Trees::Batched { dist, pred }
        };
        let aon = Self {
            ctx,
            offsets: GpuBuffer::from_slice(ctx, "tap offsets", &graph.offsets)?,
            heads: GpuBuffer::from_slice(ctx, "tap heads", &graph.heads)?,
            tails: GpuBuffer::from_slice(ctx, "tap tails", &graph.tails)?,
            weights: GpuBuffer::zeroed(ctx, "tap weights", m.max(1))?,
            trees,
            loads: GpuBuffer::zeroed(ctx, "tap loads", 2 * m.max(1))?,
            control: GpuBuffer::zeroed(ctx, "tap control", 4)?,
            graph,
            batches,
        };
        for b in [&aon.offsets, &aon.heads, &aon.tails, &aon.loads] {
            b.check_bindable(ctx)?;
        }
        Ok(aon)
    }

    /// The split search graph the loads are indexed by.
    pub fn graph(&self) -> &SplitGraph {
        &self.graph
    }

    /// With the PHAST engine, wait for the device after each sweep and each loading so that
    /// [`Self::phast_times`] splits the device's time between them (off by default: each wait leaves
    /// the device idle while the host records the next step; on the H100 the split calls were up to
    /// ~0.5 ms slower, within that host's noise).
    pub fn split_phast_times(&mut self, on: bool) {
        if let Trees::Phast { split, .. } = &mut self.trees {
            *split = on;
        }
    }

    /// Where the last call's time went, with the PHAST engine (`None` with the batched kernel): without
    /// [`Self::split_phast_times`] the device's sweeps and loadings are waited for in `readback_s`.
    pub fn phast_times(&self) -> Option<PhastTimes> {
        match &self.trees {
            Trees::Phast { times, .. } => Some(*times),
            Trees::Batched { .. } => None,
        }
    }

    /// The CCH of the PHAST engine (for its size and preprocessing times).
    pub fn hierarchy(&self) -> Option<&Cch> {
        match &self.trees {
            Trees::Phast { cch, .. } => Some(cch),
            Trees::Batched { .. } => None,
        }
    }

    /// Fixed-point loads per search arc at link costs `costs` (units of [`DEMAND_SCALE`](crate::fixed::DEMAND_SCALE)).
    pub fn loads(&mut self, net: &Network, demand: &Demand, costs: &[f64]) -> Result<Vec<u64>, TapError> {
        let ctx = self.ctx;
        let t = std::time::Instant::now();
        if let Trees::Phast { cch, sweep, loading, lanes, times, split } = &mut self.trees {
            // The scale's two searches and the customisation at the last call's scale side by side.
            let customised =
                self.graph.quantised_with(costs, |weights| cch.customise_with_unpacking(weights));
            times.quantise_s = t.elapsed().as_secs_f64();
            let engine = (sweep, loading, *lanes, *split);
            return phast_loads(ctx, engine, customised?, &self.batches, net, &self.graph, demand, times);
        }
        let (weights, _scale) = self.graph.quantise(costs);
        let csr = Csr::from_parts(self.graph.offsets.clone(), self.graph.heads.clone(), weights.clone())?;
        let mut sssp = GpuSssp::new(ctx, &csr)?;
        self.weights.write(ctx, 0, &weights)?;
        self.loads.clear(ctx)?;
        self.control.write(ctx, 0, &[0; 4])?;
        let key = |e| PipelineKey::new(AON, e).with("WG", WG);
        let (reset, tight, load) = (
            ctx.pipeline(&key("pred_reset"))?,
            ctx.pipeline(&key("pred_tight"))?,
            ctx.pipeline(&key("load"))?,
        );
        let n = self.graph.num_vertices() as u32;
        for b in &self.batches {
            let Trees::Batched { dist, pred } = &self.trees else { unreachable!("PHAST returned above") };
            sssp.run_batch_into(&b.source_list, LBR_DEPTH, dist)?;
            let params = [n, b.source_list.len() as u32, b.pairs, 0];
            let params_buf = GpuBuffer::from_slice_with_usage(
                ctx,
                "tap params",
                &params,
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            )?;
            let bind = |pipeline: &wgpu::ComputePipeline, entries: &[(u32, &wgpu::Buffer)]| {
                ctx.bind_buffers(pipeline, "tap aon", entries)
            };
            let p = params_buf.buffer();
            let b_reset = bind(&reset, &[(4, pred.buffer()), (7, p)])?;
            let b_tight = bind(
                &tight,
                &[
                    (0, self.offsets.buffer()),
                    (1, self.heads.buffer()),
                    (2, self.weights.buffer()),
                    (3, dist.buffer()),
                    (4, pred.buffer()),
                    (7, p),
                    (8, b.sources.buffer()),
                ],
            )?;
            let b_load = bind(
                &load,
                &[
                    (3, dist.buffer()),
                    (4, pred.buffer()),
                    (5, self.tails.buffer()),
                    (6, b.od.buffer()),
                    (7, p),
                    (9, self.loads.buffer()),
                    (10, self.control.buffer()),
                ],
            )?;
            let cells = ctx.grid_1d(n as u64 * b.source_list.len() as u64, WG)?;
            let pairs = ctx.grid_1d(b.pairs.max(1) as u64, WG)?;
            let mut rec = Recording::new("all-or-nothing loading");
            rec.dispatch(&reset, &b_reset, Workgroups::Fixed(cells))
                .dispatch(&tight, &b_tight, Workgroups::Fixed(cells))
                .dispatch(&load, &b_load, Workgroups::Fixed(pairs));
            ctx.submit(&rec)?;
        }
        let control = self.control.read(ctx)?;
        if control[1] != 0 {
            return Err(TapError::FixedPointSaturated { pairs: control[1] as u64 });
        }
        if control[0] != 0 {
            // Name the pairs: reachability does not depend on costs, so a search on the CPU finds them.
            return Err(crate::fixed::unreachable_pairs(net, &self.graph, demand)
                .unwrap_or_else(|| TapError::GpuUnreachable { pairs: control[0] as u64 }));
        }
        let words = self.loads.read(ctx)?;
        Ok(words.chunks_exact(2).map(|w| ((w[1] as u64) << 32) | w[0] as u64).collect())
    }
}

/// The PHAST engine's loads: re-customise, new metric to the device, per batch one sweep and one
/// loading pass, slot loads read once and unpacked to search arcs.
#[allow(clippy::too_many_arguments)]
fn phast_loads<'c>(
    ctx: &'c GpuContext,
    (sweep, loading, lanes, split): (
        &mut Option<Box<GpuPhast<'c>>>,
        &mut Option<Box<GpuPhastLoad>>,
        u32,
        bool,
    ),
    (ch, unpacking): (ContractionHierarchy, Unpacking<'_>),
    batches: &[Batch],
    net: &Network,
    graph: &SplitGraph,
    demand: &Demand,
    times: &mut PhastTimes,
) -> Result<Vec<u64>, TapError> {
    let t = std::time::Instant::now();
    let sweep = match sweep {
        Some(s) => {
            s.set_metric(ch)?;
            s
        }
        None => sweep.insert(Box::new(GpuPhast::owning(ctx, ch, lanes)?)),
    };
    let loading = match loading {
        Some(l) => l,
        None => loading.insert(Box::new(GpuPhastLoad::new(&sweep.sweep_view())?)),
    };
    loading.begin(&sweep.sweep_view())?;
    times.customise_s = t.elapsed().as_secs_f64();
    (times.searches_s, times.sweep_s, times.load_s) = (0.0, 0.0, 0.0);
    // Waiting after each step tells where the time goes, but leaves the device idle while the next
    // step is recorded; in submission order the steps need no wait (queue writes land between them).
    let wait = || if split { ctx.wait() } else { Ok(()) };
    for b in batches {
        let t = std::time::Instant::now();
        sweep.run(&b.source_list)?;
        times.searches_s += t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        wait()?;
        times.sweep_s += t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        loading.pass(&sweep.sweep_view(), &b.od, b.pairs)?;
        wait()?;
        times.load_s += t.elapsed().as_secs_f64();
    }
    let t = std::time::Instant::now();
    let (slot_loads, [unreached, saturated]) = loading.read(&sweep.sweep_view())?;
    times.readback_s = t.elapsed().as_secs_f64();
    if saturated != 0 {
        return Err(TapError::FixedPointSaturated { pairs: saturated as u64 });
    }
    if unreached != 0 {
        return Err(crate::fixed::unreachable_pairs(net, graph, demand)
            .unwrap_or(TapError::GpuUnreachable { pairs: unreached as u64 }));
    }
    let t = std::time::Instant::now();
    let loads = unpacking.arc_loads(slot_loads);
    times.unpack_s = t.elapsed().as_secs_f64();
    Ok(loads)
}
