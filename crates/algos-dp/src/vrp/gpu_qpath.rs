//! q-paths and through-q-routes on a GPU (`shaders/vrp_qpath.wgsl`), tables resident on the device
//! across calls; identical to [`super::q_paths`] and [`super::through_q`].

use gpu_runtime::Workgroups;
use gpu_runtime::sequence::{Sequence, Step};
use gpu_runtime::{GpuBuffer, GpuContext, PipelineKey, Shader, wgpu};

use super::gpu_stages::StageLoop;
use super::pricing::min_ratio;
use super::{ArcCosts, Cvrp, DpError, LoadSemantics, NONE, Priced, QPathTable};

const SHADER: Shader = gpu_runtime::shader!("vrp_qpath");

/// Invocations per customer.
const WG: u32 = 128;

/// The q-path DP of one instance on a GPU.
///
/// ```no_run
/// use urbanflow::dp::vrp::{ArcCosts, Costs, Cvrp, GpuQPaths, LoadSemantics};
/// # fn demo(inst: &Cvrp) -> Result<(), urbanflow::dp::DpError> {
/// let ctx = urbanflow::gpu::GpuContext::new()?;
/// let mut fw = GpuQPaths::new(&ctx, inst)?;
/// fw.fill(&ArcCosts::new(inst, &Costs::Raw)?)?;
/// let psi = fw.through_q(&fw, LoadSemantics::Exact)?; // symmetric costs: backward = forward
/// # Ok(()) }
/// ```
pub struct GpuQPaths<'c> {
    ctx: &'c GpuContext,
    inst: Cvrp,
    cells: usize,
    params: wgpu::Buffer,
    demand: GpuBuffer<u32>,
    vals: GpuBuffer<f64>,
    preds: GpuBuffer<u32>,
    stages: StageLoop,
}

impl<'c> GpuQPaths<'c> {
    /// Uploads `inst` and allocates the tables (typed errors without 64-bit floats or beyond limits).
    pub fn new(ctx: &'c GpuContext, inst: &Cvrp) -> Result<Self, DpError> {
        ctx.require(ctx.features().f64, "f64", "GPU q-paths")?;
        let m = inst.customers() + 1;
        let cells = (inst.capacity() as usize + 1) * m;
        if 2 * cells as u64 > u32::MAX as u64 {
            return Err(DpError::Shape(format!("{cells} q-path cells: beyond 32-bit indices")));
        }
        let params = ctx.uniform_words("vrp q params", &[m as u32, inst.capacity(), cells as u32, 0]);
        let demand = GpuBuffer::from_slice(ctx, "vrp demands", inst.demands())?;
        let vals = GpuBuffer::<f64>::zeroed(ctx, "vrp q values", 2 * cells)?;
        let preds = GpuBuffer::<u32>::zeroed(ctx, "vrp q predecessors", 2 * cells)?;
        vals.check_bindable(ctx)?;
        let stages = StageLoop::new(
            ctx,
            inst,
            "vrp q stages",
            |entry| PipelineKey::new(SHADER, entry).with("WG", WG),
            &[(0, &params), (1, demand.buffer()), (3, vals.buffer()), (4, preds.buffer())],
            5,
        )?;
        Ok(Self { ctx, inst: inst.clone(), cells, params, demand, vals, preds, stages })
    }

    /// Fills the tables under `arcs` (returns once the GPU is done).
    pub fn fill(&mut self, arcs: &ArcCosts) -> Result<(), DpError> {
        self.stages.upload(self.ctx, arcs)?;
        self.stages.run(self.ctx)
    }

    /// The tables of the last [`GpuQPaths::fill`], as [`super::q_paths`] returns them.
    pub fn table(&self) -> Result<QPathTable, DpError> {
        let (m, c) = (self.inst.customers() + 1, self.cells);
        let vals = self.vals.read(self.ctx)?;
        let mut preds = self.preds.read(self.ctx)?;
        // Stage 0 and the depot's column are never written on the device.
        for at in (0..m).chain((1..=self.inst.capacity() as usize).map(|q| q * m)) {
            preds[at] = NONE;
            preds[c + at] = NONE;
        }
        let value = |x: usize| if preds[x] == NONE { f64::INFINITY } else { vals[x] };
        let f = (0..c).map(value).collect();
        let phi = (c..2 * c).map(value).collect();
        let pred2 = preds.split_off(c);
        Ok(QPathTable { m, capacity: self.inst.capacity(), f, pred: preds, phi, pred2 })
    }

    /// One pricing call: the tables under `arcs`, up to `k` cheapest q-routes below `max_cost`
    /// ([`QPathTable::best_routes`]) and the least cost per unit of load.
    pub fn price(&mut self, arcs: &ArcCosts, k: usize, max_cost: f64) -> Result<Priced, DpError> {
        self.fill(arcs)?;
        let t = self.table()?;
        Ok(Priced {
            routes: t.best_routes(&self.inst, arcs, k, max_cost),
            min_ratio: min_ratio(&self.inst, arcs, |q, i| t.value(q, i)),
        })
    }

    /// ψ on the device from this (forward) table and `backward`'s (the DP on the transposed costs;
    /// the same object for symmetric costs), as [`super::through_q`] returns it.
    pub fn through_q(&self, backward: &GpuQPaths<'_>, sem: LoadSemantics) -> Result<Vec<f64>, DpError> {
        let m = self.inst.customers() + 1;
        if backward.cells != self.cells {
            return Err(DpError::Shape("forward and backward q-path tables of different instances".into()));
        }
        let psi = GpuBuffer::<f64>::zeroed(self.ctx, "vrp psi", self.cells)?;
        let ok = GpuBuffer::<u32>::zeroed(self.ctx, "vrp psi flags", self.cells)?;
        let key = |entry| PipelineKey::new(SHADER, entry).with("WG", WG);
        let through = self.ctx.pipeline(&key("through"))?;
        let at_most = self.ctx.pipeline(&key("at_most"))?;
        let bg = self.ctx.bind_buffers(
            &through,
            "vrp through-q",
            &[
                (0, &self.params),
                (1, self.demand.buffer()),
                (3, self.vals.buffer()),
                (4, self.preds.buffer()),
                (6, backward.vals.buffer()),
                (7, backward.preds.buffer()),
                (8, psi.buffer()),
                (9, ok.buffer()),
            ],
        )?;
        let max_dim = self.ctx.limits.max_compute_workgroups_per_dimension;
        let grid = gpu_runtime::dispatch::grid_1d(self.cells as u64, 64, max_dim)?;
        if grid[1] > 1 {
            return Err(DpError::Shape(format!("{} ψ entries: beyond one dispatch row", self.cells)));
        }
        let mut steps = vec![Step { pipeline: &through, bind_group: &bg, grid: Workgroups::Fixed(grid) }];
        let bg2;
        if sem == LoadSemantics::AtMost {
            bg2 = self.ctx.bind_buffers(
                &at_most,
                "vrp through-q at most",
                &[(0, &self.params), (8, psi.buffer()), (9, ok.buffer())],
            )?;
            steps.push(Step {
                pipeline: &at_most,
                bind_group: &bg2,
                grid: Workgroups::Fixed([(m as u32).div_ceil(64), 1, 1]),
            });
        }
        self.ctx.run(&Sequence::once("vrp through-q", &steps))?;
        let v = psi.read(self.ctx)?;
        let ok = ok.read(self.ctx)?;
        Ok(v.into_iter().zip(ok).map(|(v, o)| if o == 0 { f64::INFINITY } else { v }).collect())
    }
}
