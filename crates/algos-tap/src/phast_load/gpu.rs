//! [`GpuPhastLoad`]: the tree loading of [`super::PhastLoad`] on the device, on the trees a
//! [`GpuPhast`](algos_sssp::ch::gpu::GpuPhast) pass left there (`shaders/phast_load.wgsl`).

use std::sync::Arc;

use algos_sssp::ch::gpu::SweepView;
use gpu_runtime::Workgroups;
use gpu_runtime::sequence::{Sequence, Step};
use gpu_runtime::{GpuBuffer, PipelineKey, Shader, wgpu};

use crate::error::TapError;

const LOAD: Shader = gpu_runtime::shader!("phast_load").with_helpers(algos_sssp::ch::gpu::PHAST_HELPERS);
const WG: u32 = 256;

/// Device state of the tree loading for one [`GpuPhast`](algos_sssp::ch::gpu::GpuPhast): made once,
/// then [`Self::begin`], one [`Self::pass`] after each sweep, [`Self::read`].
pub struct GpuPhastLoad {
    reset: Arc<wgpu::ComputePipeline>,
    mark: Arc<wgpu::ComputePipeline>,
    inject: Arc<wgpu::ComputePipeline>,
    lift: Arc<wgpu::ComputePipeline>,
    lift_chain: Arc<wgpu::ComputePipeline>,
    /// The sweep's chain of top levels, lifted in one dispatch (levels, bind group).
    chain: Option<(usize, wgpu::BindGroup)>,
    climb: Arc<wgpu::ComputePipeline>,
    acc: GpuBuffer<u32>,
    up_arc: GpuBuffer<u32>,
    loads: GpuBuffer<u32>,
    control: GpuBuffer<u32>,
    seed_lanes: GpuBuffer<u32>,
    /// Uniforms of reset, mark, inject and climb.
    uniforms: Vec<wgpu::Buffer>,
    /// One per level (`lift`), then reset.
    binds: Vec<wgpu::BindGroup>,
    /// Hierarchy slot of every device in-arc.
    _down_slot: GpuBuffer<u32>,
}

impl GpuPhastLoad {
    /// Pipelines, buffers and the per-level bind groups for the sweeps behind `view` (the DAG and
    /// label buffers a `GpuPhast` keeps for its whole life).
    pub fn new(view: &SweepView<'_>) -> Result<Self, TapError> {
        let ctx = view.ctx;
        let ch = view.hierarchy;
        let n = ch.num_vertices() as usize;
        let cells = (n * view.lanes as usize).max(1);
        let key = |entry| PipelineKey::new(LOAD, entry).with("WG", WG);
        let up_slots = ch.up.num_arcs();
        let slots = (up_slots + ch.down.num_arcs()) as usize;
        let down_slot: Vec<u32> = if view.down_arc.is_empty() { vec![0] } else { view.down_arc.to_vec() };
        let mut l = Self {
            reset: ctx.pipeline(&key("reset"))?,
            mark: ctx.pipeline(&key("mark"))?,
            inject: ctx.pipeline(&key("inject"))?,
            lift: ctx.pipeline(&key("lift"))?,
            lift_chain: ctx.pipeline(&PipelineKey::new(LOAD, "lift_chain"))?,
            chain: None,
            climb: ctx.pipeline(&key("climb"))?,
            acc: GpuBuffer::zeroed(ctx, "phast load carried", 2 * cells)?,
            up_arc: GpuBuffer::zeroed(ctx, "phast load up arcs", cells)?,
            loads: GpuBuffer::zeroed(ctx, "phast slot loads", 2 * slots.max(1))?,
            control: GpuBuffer::zeroed(ctx, "phast load control", 4)?,
            seed_lanes: GpuBuffer::zeroed(ctx, "phast seed lanes", view.lanes as usize + 1)?,
            uniforms: (0..4)
                .map(|_| ctx.uniform_words("phast load params", &[0, 0, view.lanes, up_slots]))
                .collect(),
            binds: Vec::new(),
            _down_slot: GpuBuffer::from_slice(ctx, "phast down slots", &down_slot)?,
        };
        for b in [&l.acc, &l.up_arc, &l.loads] {
            b.check_bindable(ctx)?;
        }
        let (g, d) = (view.dag, view.labels.buffer());
        let (chain_levels, chain_uniform) = view.chain;
        let chain = (chain_levels > 0).then_some((&l.lift_chain, chain_uniform));
        for (pipeline, u) in view.level_uniforms.iter().map(|u| (&l.lift, u)).chain(chain) {
            let entries = [
                (0, g[0].buffer()),
                (1, g[1].buffer()),
                (2, g[2].buffer()),
                (3, d),
                (5, u),
                (7, l.acc.buffer()),
                (8, l.up_arc.buffer()),
                (9, l._down_slot.buffer()),
                (10, l.loads.buffer()),
            ];
            l.binds.push(ctx.bind_buffers(pipeline, "phast lift", &entries)?);
        }
        if chain_levels > 0 {
            let bind = l.binds.pop().expect("the chain's bind group");
            l.chain = Some((chain_levels, bind));
        }
        let entries = [(5, &l.uniforms[0]), (7, l.acc.buffer()), (8, l.up_arc.buffer())];
        l.binds.push(ctx.bind_buffers(&l.reset, "phast load reset", &entries)?);
        Ok(l)
    }

    /// Zeroes the slot loads and the counts of unreached and saturated destinations.
    pub fn begin(&self, view: &SweepView<'_>) -> Result<(), TapError> {
        self.loads.clear(view.ctx)?;
        self.control.clear(view.ctx)?;
        Ok(())
    }

    /// Sends the OD amounts `od` — `pairs` entries of (lane, destination vertex, amount lo, amount
    /// hi), 64-bit fixed point — from each tree's source of the last pass along its tree, adding them
    /// to the loads of the hierarchy slots they cross (up arc `a` is slot `a`, down arc `a` is slot
    /// `up.num_arcs() + a`); destinations unreached or saturated are counted instead. The same rules
    /// and sums as [`super::PhastLoad::load`].
    pub fn pass(&self, view: &SweepView<'_>, od: &GpuBuffer<[u32; 4]>, pairs: u32) -> Result<(), TapError> {
        let ctx = view.ctx;
        let k = view.lanes;
        let n = view.hierarchy.num_vertices();
        let up_slots = view.hierarchy.up.num_arcs();
        let seeds = view.seed_lanes.last().copied().unwrap_or(0);
        let mut lanes = view.seed_lanes.to_vec();
        lanes.resize(k as usize + 1, seeds);
        self.seed_lanes.write(ctx, 0, &lanes)?;
        for (u, first) in self.uniforms.iter().zip([0, seeds, pairs, k]) {
            let end = if first == 0 { n * k } else { 0 };
            ctx.write_words(u, 0, &[first, end, k, up_slots]);
        }
        let d = view.labels.buffer();
        let mark = ctx.bind_buffers(
            &self.mark,
            "phast mark",
            &[(3, d), (4, view.seeds.buffer()), (5, &self.uniforms[1]), (8, self.up_arc.buffer())],
        )?;
        let inject = ctx.bind_buffers(
            &self.inject,
            "phast inject",
            &[
                (3, d),
                (5, &self.uniforms[2]),
                (6, view.pos_of_vertex.buffer()),
                (7, self.acc.buffer()),
                (11, self.control.buffer()),
                (12, od.buffer()),
            ],
        )?;
        let climb = ctx.bind_buffers(
            &self.climb,
            "phast climb",
            &[
                (4, view.seeds.buffer()),
                (5, &self.uniforms[3]),
                (7, self.acc.buffer()),
                (8, self.up_arc.buffer()),
                (10, self.loads.buffer()),
                (13, self.seed_lanes.buffer()),
            ],
        )?;
        let max = ctx.limits.max_compute_workgroups_per_dimension;
        let grid = |items: u64| gpu_runtime::dispatch::grid_1d(items, WG, max).map(Workgroups::Fixed);
        let nl = view.levels.len();
        let mut steps = vec![
            Step { pipeline: &self.reset, bind_group: &self.binds[nl], grid: grid(n as u64 * k as u64)? },
            Step { pipeline: &self.mark, bind_group: &mark, grid: grid(seeds as u64)? },
            Step { pipeline: &self.inject, bind_group: &inject, grid: grid(pairs as u64)? },
        ];
        let chain_levels = self.chain.as_ref().map_or(0, |c| c.0);
        for (i, &(start, end)) in view.levels.iter().enumerate().rev().filter(|&(i, _)| i >= chain_levels) {
            let items = (end - start) as u64 * k as u64;
            steps.push(Step { pipeline: &self.lift, bind_group: &self.binds[i], grid: grid(items)? });
        }
        if let Some((_, bind)) = &self.chain {
            // The top levels last, one workgroup of 64 per tree.
            let groups = gpu_runtime::dispatch::grid_1d(k as u64 * 64, 64, max)?;
            steps.push(Step {
                pipeline: &self.lift_chain,
                bind_group: bind,
                grid: Workgroups::Fixed(groups),
            });
        }
        steps.push(Step { pipeline: &self.climb, bind_group: &climb, grid: grid(k as u64)? });
        ctx.run(&Sequence::once("PHAST tree loading", &steps))?;
        Ok(())
    }

    /// The slot loads added since [`Self::begin`], and the counts of unreached and saturated
    /// destinations.
    pub fn read(&self, view: &SweepView<'_>) -> Result<(Vec<u64>, [u32; 2]), TapError> {
        let control = self.control.read(view.ctx)?;
        let slots = (view.hierarchy.up.num_arcs() + view.hierarchy.down.num_arcs()) as usize;
        let words = self.loads.read_range(view.ctx, 0, 2 * slots)?;
        let loads = words.chunks_exact(2).map(|w| ((w[1] as u64) << 32) | w[0] as u64).collect();
        Ok((loads, [control[0], control[1]]))
    }
}
