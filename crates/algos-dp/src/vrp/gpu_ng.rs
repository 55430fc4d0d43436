//! ng-path pricing on a GPU (`shaders/vrp_ng.wgsl`): the dense tables of [`super::vrp_ng_mirror`],
//! resident on the device across calls. The instance, the neighbourhood plan and the tables are
//! uploaded or allocated once; a call uploads only the new arc costs (`(n + 1)²` f64, the duals
//! enter there), records one `advance` + `stage` pair per load as one device-side loop, reads back the
//! per-cell bests (12 bytes a cell) and walks the chosen routes on the device.

use std::time::Instant;

use gpu_runtime::Workgroups;
use gpu_runtime::sequence::{Sequence, Step};
use gpu_runtime::{GpuBuffer, GpuContext, GpuError, PipelineKey, Shader, wgpu};

use super::gpu_stages::StageLoop;
use super::ng_dense::{NO_LABEL, best_ends};
use super::pricing::min_ratio;
use super::{ArcCosts, Cvrp, DpError, NgDenseTable, NgPlan, NgSets, Priced, Route};

const SHADER: Shader = gpu_runtime::shader!("vrp_ng");

/// The stage kernel's shape for `s` memories per cell: lanes per near pair L, pairs per round P
/// (workgroup P·L ≤ 512 invocations; more pairs at once hide the latency of loading their labels).
fn shape(s: u32) -> (u32, u32) {
    let lanes = s.clamp(32, 128);
    let pairs = (512 / s.max(lanes)).clamp(1, 8);
    (lanes, pairs)
}

/// Where the time of the last [`GpuNgPricer::price`] call went, in seconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct GpuPriceTimes {
    /// Arc costs uploaded.
    pub upload_s: f64,
    /// The stages, until the GPU finished.
    pub stages_s: f64,
    /// Per-cell bests read back, route ends chosen.
    pub readback_s: f64,
    /// Walks of the chosen routes on the device, read back.
    pub walks_s: f64,
}

/// The ng-path DP of one instance and neighbourhoods on a GPU, tables kept on the device.
///
/// ```no_run
/// use urbanflow::dp::vrp::{ArcCosts, Costs, Cvrp, GpuNgPricer, NgSets};
/// # fn demo(inst: &Cvrp, duals: &[f64]) -> Result<(), urbanflow::dp::DpError> {
/// let ctx = urbanflow::gpu::GpuContext::new()?;
/// let mut pricer = GpuNgPricer::new(&ctx, inst, &NgSets::nearest(inst, 8)?)?;
/// let arcs = ArcCosts::new(inst, &Costs::Reduced(duals))?;
/// let priced = pricer.price(&arcs, 100, -1e-6)?; // up to 100 routes of negative reduced cost
/// println!("{} columns, least reduced cost per unit of load {}", priced.routes.len(), priced.min_ratio);
/// # Ok(()) }
/// ```
pub struct GpuNgPricer<'c> {
    ctx: &'c GpuContext,
    inst: Cvrp,
    plan: NgPlan,
    stages: StageLoop,
    plan_buf: GpuBuffer<u32>,
    value: GpuBuffer<f64>,
    pred: GpuBuffer<u32>,
    best: GpuBuffer<f64>,
    best_mask: GpuBuffer<u32>,
    params: wgpu::Buffer,
    walk_len: usize,
    walk: std::sync::Arc<wgpu::ComputePipeline>,
    times: GpuPriceTimes,
}

impl<'c> GpuNgPricer<'c> {
    /// Uploads `inst` and the plan of `ng`, allocates the tables. Fails with a typed error when the
    /// device lacks 64-bit floats, or the tables or workgroup memory exceed its limits.
    pub fn new(ctx: &'c GpuContext, inst: &Cvrp, ng: &NgSets) -> Result<Self, DpError> {
        ctx.require(ctx.features().f64, "f64", "GPU ng-path pricing")?;
        let plan = NgPlan::new(inst, ng)?;
        let m = plan.m;
        if m > 0xFFFF {
            return Err(DpError::Shape(format!(
                "{} customers: the GPU tables pack customer ids in 16 bits",
                m - 1
            )));
        }
        let s = plan.masks as u32;
        let (lanes, pairs) = shape(s);
        let wg = lanes * pairs;
        let shared = 12 * (pairs as u64 + 1) * s as u64 + 12 * wg as u64 + 4 * 73;
        let limit = ctx.limits.max_compute_workgroup_storage_size as u64;
        if shared > limit {
            return Err(DpError::Gpu(GpuError::LimitTooLow {
                name: "max_compute_workgroup_storage_size",
                needed: shared,
                available: limit,
            }));
        }
        let invocations =
            ctx.limits.max_compute_invocations_per_workgroup.min(ctx.limits.max_compute_workgroup_size_x);
        if wg > invocations {
            return Err(DpError::Gpu(GpuError::LimitTooLow {
                name: "max_compute_invocations_per_workgroup",
                needed: wg as u64,
                available: invocations as u64,
            }));
        }
        let labels = plan.labels(inst.capacity()) as usize;
        let cells = (inst.capacity() as usize + 1) * m;
        // Plan words: demands, records, near offsets, near bits.
        let near_words = m.div_ceil(32);
        let mut words: Vec<u32> = inst.demands().to_vec();
        let records_at = words.len();
        words.extend_from_slice(&plan.records);
        let near_at = words.len();
        words.extend_from_slice(&plan.near_at);
        let near_bits_at = words.len();
        let mut bits = vec![0u32; m * near_words];
        for k in 0..m {
            for j in 0..m {
                if plan.near[k * m + j] {
                    bits[k * near_words + j / 32] |= 1 << (j % 32);
                }
            }
        }
        words.extend_from_slice(&bits);
        let min_demand = inst.demands()[1..].iter().copied().min().unwrap_or(1).max(1);
        let walk_len = (inst.capacity() / min_demand) as usize + 1;
        let params = ctx.uniform_words(
            "vrp ng params",
            &[
                m as u32,
                plan.delta as u32,
                0,
                records_at as u32,
                near_at as u32,
                near_bits_at as u32,
                near_words as u32,
                walk_len as u32,
            ],
        );
        let plan_buf = GpuBuffer::from_slice(ctx, "vrp ng plan", &words)?;
        let value = GpuBuffer::<f64>::zeroed(ctx, "vrp ng values", labels)?;
        let pred = GpuBuffer::<u32>::zeroed(ctx, "vrp ng predecessors", labels)?;
        let best = GpuBuffer::<f64>::zeroed(ctx, "vrp ng best values", cells)?;
        let best_mask = GpuBuffer::<u32>::zeroed(ctx, "vrp ng best memories", cells)?;
        value.check_bindable(ctx)?;
        pred.check_bindable(ctx)?;
        plan_buf.check_bindable(ctx)?;
        let key = |entry| {
            PipelineKey::new(SHADER, entry)
                .with("L", lanes)
                .with("P", pairs)
                .with("WG", wg)
                .with("S", s)
                .with("PS", pairs * s)
        };
        let walk = ctx.pipeline(&key("walk"))?;
        let stages = StageLoop::new(
            ctx,
            inst,
            "vrp ng stages",
            key,
            &[
                (0, &params),
                (1, plan_buf.buffer()),
                (3, value.buffer()),
                (4, pred.buffer()),
                (5, best.buffer()),
                (6, best_mask.buffer()),
            ],
            7,
        )?;
        Ok(Self {
            ctx,
            inst: inst.clone(),
            plan,
            stages,
            plan_buf,
            value,
            pred,
            best,
            best_mask,
            params,
            walk_len,
            walk,
            times: GpuPriceTimes::default(),
        })
    }

    /// The plan the tables follow.
    pub fn plan(&self) -> &NgPlan {
        &self.plan
    }

    /// Bytes held on the device.
    pub fn device_bytes(&self) -> u64 {
        self.value.size_bytes()
            + self.pred.size_bytes()
            + self.best.size_bytes()
            + self.best_mask.size_bytes()
            + self.stages.bytes()
            + self.plan_buf.size_bytes()
    }

    /// Where the last call's time went.
    pub fn times(&self) -> GpuPriceTimes {
        self.times
    }

    /// Fills the tables under `arcs` on the device (returns once the GPU is done).
    pub fn fill(&mut self, arcs: &ArcCosts) -> Result<(), DpError> {
        let t = Instant::now();
        self.stages.upload(self.ctx, arcs)?;
        self.times.upload_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        self.stages.run(self.ctx)?;
        self.times.stages_s = t.elapsed().as_secs_f64();
        Ok(())
    }

    /// One pricing call: fills the tables under `arcs`, returns up to `k` cheapest routes of cost below
    /// `max_cost` (one per load and last customer, as [`NgDenseTable::best_routes`]) and the least cost
    /// per unit of load.
    pub fn price(&mut self, arcs: &ArcCosts, k: usize, max_cost: f64) -> Result<Priced, DpError> {
        self.fill(arcs)?;
        let t = Instant::now();
        let best = self.best.read(self.ctx)?;
        let best_mask = self.best_mask.read(self.ctx)?;
        let m = self.plan.m;
        let ratio = min_ratio(&self.inst, arcs, |q, i| {
            let at = q as usize * m + i;
            if best_mask[at] == NO_LABEL { f64::INFINITY } else { best[at] }
        });
        let ends = best_ends(&self.inst, arcs, &best, &best_mask, k, max_cost);
        self.times.readback_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let walks = self.walks(&ends.iter().map(|&(_, q, i, s)| (q, i as u32, s)).collect::<Vec<_>>())?;
        self.times.walks_s = t.elapsed().as_secs_f64();
        let routes = ends
            .iter()
            .zip(walks)
            .map(|(&(cost, q, _, _), customers)| Route { customers, load: q, cost })
            .collect();
        Ok(Priced { routes, min_ratio: ratio })
    }

    /// The walks ending at labels `(q, i, t)` of the current tables, depot excluded.
    pub fn walks(&self, ends: &[(u32, u32, u32)]) -> Result<Vec<Vec<u32>>, DpError> {
        if ends.is_empty() {
            return Ok(Vec::new());
        }
        let r = ends.len();
        let mut words = Vec::with_capacity(1 + 3 * r + r * self.walk_len);
        words.push(r as u32);
        for &(q, i, t) in ends {
            words.extend_from_slice(&[q, i, t]);
        }
        words.resize(1 + 3 * r + r * self.walk_len, 0);
        let buf = GpuBuffer::from_slice(self.ctx, "vrp ng walks", &words)?;
        let bg = self.ctx.bind_buffers(
            &self.walk,
            "vrp ng walk",
            &[(0, &self.params), (1, self.plan_buf.buffer()), (4, self.pred.buffer()), (8, buf.buffer())],
        )?;
        let steps = [Step {
            pipeline: &self.walk,
            bind_group: &bg,
            grid: Workgroups::Fixed([r.div_ceil(64) as u32, 1, 1]),
        }];
        self.ctx.run(&Sequence::once("vrp ng walks", &steps))?;
        let out = buf.read_range(self.ctx, 1 + 3 * r, r * self.walk_len)?;
        Ok(out
            .chunks(self.walk_len)
            .map(|w| {
                let mut w: Vec<u32> = w.iter().copied().take_while(|&c| c != NO_LABEL).collect();
                w.reverse();
                w
            })
            .collect())
    }

    /// The whole tables of the last call, as the CPU mirror returns them (tests, diagnostics: a
    /// large readback).
    pub fn table(&self) -> Result<NgDenseTable, DpError> {
        let mut value = self.value.read(self.ctx)?;
        let pred = self.pred.read(self.ctx)?;
        let mut best = self.best.read(self.ctx)?;
        let best_mask = self.best_mask.read(self.ctx)?;
        // Labels the GPU never reached hold no value: the mirror's are +∞.
        for (v, &p) in value.iter_mut().zip(&pred) {
            if p == NO_LABEL {
                *v = f64::INFINITY;
            }
        }
        for (v, &b) in best.iter_mut().zip(&best_mask) {
            if b == NO_LABEL {
                *v = f64::INFINITY;
            }
        }
        let (m, s) = (self.plan.m, self.plan.masks);
        let (mut pred, mut best_mask) = (pred, best_mask);
        // Stage 0 and the depot's column are never written on the device.
        for cell in (0..m).chain((1..=self.inst.capacity() as usize).map(|q| q * m)) {
            value[cell * s..][..s].fill(f64::INFINITY);
            pred[cell * s..][..s].fill(NO_LABEL);
            best[cell] = f64::INFINITY;
            best_mask[cell] = NO_LABEL;
        }
        Ok(NgDenseTable {
            m,
            masks: self.plan.masks,
            capacity: self.inst.capacity(),
            value,
            pred,
            best,
            best_mask,
        })
    }
}
