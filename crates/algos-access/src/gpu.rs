//! The GPU engine: PHAST passes of `k` trees on the device ([`GpuPhast`]), each followed by
//! `shaders/access_reduce.wgsl` on the labels still there; only per-source cells come back, once per
//! block of passes. A pass of NY's 264,346 labels × 512 trees is 541 MB on the device and 30 KB of
//! cells for three cutoffs.

use std::sync::Arc;

use algos_sssp::ch::ContractionHierarchy;
use algos_sssp::ch::gpu::GpuPhast;
use gpu_runtime::sequence::{Sequence, Step};
use gpu_runtime::{GpuBuffer, GpuContext, PipelineKey, Shader, Workgroups, wgpu};

use crate::error::AccessError;
use crate::reducer::Reducer;
use crate::reduction::{Cell, Reduction};

const REDUCE: Shader = gpu_runtime::shader!("access_reduce");
const WG: u32 = 256;
/// Passes per block: the cells come back once per block (and progress is reported).
const PASSES_PER_BLOCK: usize = 16;
/// Point vertices per invocation: enough invocations to fill a large GPU (k · points / chunk), few
/// enough partial cells that their atomics stay cheap. `URBANFLOW_ACCESS_CHUNK` overrides it.
const CHUNK: u32 = 512;

/// Device state: the sweep, the points, the cells of one block.
pub(crate) struct GpuReducer<'a> {
    ctx: &'a GpuContext,
    phast: GpuPhast<'a>,
    reduction: &'a Reduction<'a>,
    pipeline: Arc<wgpu::ComputePipeline>,
    _points: GpuBuffer<[u32; 4]>,
    cells: GpuBuffer<u32>,
    uniform: wgpu::Buffer,
    bind: wgpu::BindGroup,
    chunk: u32,
}

impl<'a> GpuReducer<'a> {
    /// Uploads the hierarchy's downward DAG (passes of [`algos_sssp::many::gpu_pass_lanes`] trees)
    /// and the points; compiles the kernels.
    pub fn new(
        ctx: &'a GpuContext,
        hierarchy: &'a ContractionHierarchy,
        reduction: &'a Reduction<'a>,
    ) -> Result<Self, AccessError> {
        let n = hierarchy.num_vertices() as usize;
        let k = algos_sssp::many::gpu_pass_lanes(ctx, n) as u32;
        let phast = GpuPhast::new(ctx, hierarchy, k)?;
        let o = reduction.opportunities;
        let mut words: Vec<[u32; 4]> = Vec::with_capacity(2 * o.vertices.len());
        for s in 0..o.vertices.len() {
            let q = o.weight_q[s];
            words.push([o.vertices[s], q as u32, (q >> 32) as u32, (o.weight[s] as f32).to_bits()]);
            words.push([o.count[s], o.min_rank[s], o.max_rank[s], 0]);
        }
        if words.is_empty() {
            words.push([0; 4]);
        }
        let points = GpuBuffer::from_slice(ctx, "access points", &words)?;
        let nc = reduction.cutoffs.len();
        let cells: GpuBuffer<u32> =
            GpuBuffer::zeroed(ctx, "access cells", PASSES_PER_BLOCK * k as usize * nc * 5)?;
        points.check_bindable(ctx)?;
        cells.check_bindable(ctx)?;
        let pipeline = ctx.pipeline(&PipelineKey::new(REDUCE, "reduce").with("WG", WG))?;
        let uniform = ctx.uniform_words("access params", &[0; 20]);
        let view = phast.sweep_view();
        let bind = ctx.bind_buffers(
            &pipeline,
            "access reduce",
            &[
                (0, view.labels.buffer()),
                (1, view.pos_of_vertex.buffer()),
                (2, points.buffer()),
                (3, cells.buffer()),
                (4, &uniform),
            ],
        )?;
        let chunk = std::env::var("URBANFLOW_ACCESS_CHUNK")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|&c: &u32| c > 0)
            .unwrap_or(CHUNK);
        Ok(Self { ctx, phast, reduction, pipeline, _points: points, cells, uniform, bind, chunk })
    }

    /// Trees per pass.
    pub fn lanes(&self) -> usize {
        self.phast.lanes() as usize
    }
}

impl Reducer for GpuReducer<'_> {
    fn block(&self) -> usize {
        PASSES_PER_BLOCK * self.lanes()
    }

    fn reduce(&mut self, sources: &[u32], cells: &mut [Cell]) -> Result<(), AccessError> {
        let ctx = self.ctx;
        let red = self.reduction;
        let nc = red.cutoffs.len();
        let k = self.lanes();
        let empty = [0u32, 0, 0, u32::MAX, 0];
        let init: Vec<u32> = (0..sources.len() * nc).flat_map(|_| empty).collect();
        self.cells.write(ctx, 0, &init)?;
        let npoints = red.opportunities.vertices.len() as u32;
        let (decay, beta) = red.decay.code();
        let unit = 2f32.powi(red.opportunities.scale_exp);
        let mut cut = [0u32; 8];
        cut[..nc].copy_from_slice(&red.cutoffs);
        let parts = npoints.div_ceil(self.chunk).max(1) as u64;
        let grid = ctx.grid_1d(parts * k as u64, WG)?;
        for (p, pass) in sources.chunks(k).enumerate() {
            self.phast.run(pass)?;
            let mut words = vec![
                k as u32,
                pass.len() as u32,
                (p * k) as u32,
                npoints,
                self.chunk,
                nc as u32,
                decay,
                beta.to_bits(),
                unit.to_bits(),
                0,
                0,
                0,
            ];
            words.extend_from_slice(&cut);
            ctx.write_words(&self.uniform, 0, &words);
            let step =
                Step { pipeline: &self.pipeline, bind_group: &self.bind, grid: Workgroups::Fixed(grid) };
            ctx.run(&Sequence::once("accessibility reduction", &[step]))?;
        }
        let words = self.cells.read_range(ctx, 0, sources.len() * nc * 5)?;
        for (cell, w) in cells.iter_mut().zip(words.chunks_exact(5)) {
            *cell = Cell {
                count: w[0],
                sum: ((w[2] as u64) << 32) | w[1] as u64,
                min_rank: w[3],
                max_rank: w[4],
            };
        }
        Ok(())
    }
}
