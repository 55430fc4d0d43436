//! The two passes over one class's bushes ([`super::proportions`]) on a GPU (`shaders/bush_passes.wgsl`):
//! the bushes are uploaded once per equilibrium in blocks of whole chunks of [`SUM_CHUNK`] bushes, then
//! each pass sends one vector per call (link costs, or one value per OD pair) and reads one back.
//!
//! Every bush is one invocation walking its positions in topological order, as the CPU walks it, and
//! the route flows are added per link in the CPU's chunks and chunk order, so the results equal the
//! CPU's up to the device's contraction of a multiply and an add into one rounding (tests ask 1e-9
//! relative).

use std::sync::Arc;

use gpu_runtime::sequence::{Sequence, Step};
use gpu_runtime::{GpuBuffer, GpuContext, PipelineKey, Shader, Workgroups, wgpu};

use super::proportions::{SUM_CHUNK, row_starts};
use super::{Bush, BushSolver, NONE};
use crate::demand::Demand;
use crate::error::TapError;

const SHADER: Shader = gpu_runtime::shader!("bush_passes");
/// `@workgroup_size` of the per-bush kernels.
const BUSH_WG: u32 = 64;
/// `@workgroup_size` of `link_sums`.
const LINK_WG: u32 = 256;
/// Largest buffer of a block by default: the host builds one block at a time, so this bounds the
/// memory the upload adds beside the bushes (Philadelphia in one block of an H200's 2 GiB binding
/// doubled the run's peak memory, 1.07 → 2.03 GB).
const BLOCK_BYTES: usize = 64 << 20;

/// One class's bushes resident on a device, with their OD pairs.
pub(crate) struct GpuBushes<'c> {
    ctx: &'c GpuContext,
    blocks: Vec<Block>,
    cost: GpuBuffer<f64>,
    link_total: GpuBuffer<f64>,
    links: usize,
    pairs: usize,
    pipelines: Pipelines,
}

/// Whole chunks of bushes in device buffers, and their bind groups.
struct Block {
    bushes: usize,
    /// The block's first pair and its number of pairs (in the class's pair order).
    first_pair: usize,
    pairs: usize,
    pair_value: GpuBuffer<f64>,
    /// Kept alive for the bind groups.
    _buffers: (wgpu::Buffer, GpuBuffer<u32>, GpuBuffer<f64>, GpuBuffer<f64>, GpuBuffer<f64>),
    mean_group: wgpu::BindGroup,
    push_group: wgpu::BindGroup,
    sums_group: wgpu::BindGroup,
}

/// A block's arrays on the host, before upload.
#[derive(Default)]
struct HostBlock {
    bush_pos: Vec<u32>,
    first: Vec<u32>,
    tail: Vec<u32>,
    link: Vec<u32>,
    flow: Vec<f64>,
    pair_start: Vec<u32>,
    pair_pos: Vec<u32>,
    chunk_start: Vec<u32>,
}

impl HostBlock {
    fn new() -> Self {
        Self {
            bush_pos: vec![0],
            first: Vec::new(),
            pair_start: vec![0],
            chunk_start: vec![0],
            ..Self::default()
        }
    }

    fn positions(&self) -> usize {
        *self.bush_pos.last().expect("starts with 0") as usize
    }

    /// Appends a bush whose destinations are `dests` (network node ids); `pos` is all `NONE`.
    fn push(&mut self, bush: &Bush, dests: &[u32], pos: &mut [u32]) {
        let (p0, e0) = (self.positions() as u32, self.link.len() as u32);
        self.first.extend(bush.first[..bush.nodes.len()].iter().map(|&f| f + e0));
        self.tail.extend(bush.tail_pos.iter().map(|&t| t + p0));
        self.link.extend_from_slice(&bush.link);
        self.flow.extend_from_slice(&bush.flow);
        self.bush_pos.push(p0 + bush.nodes.len() as u32);
        bush.mark_positions(pos);
        self.pair_pos.extend(dests.iter().map(|&d| p0 + pos[d as usize]));
        bush.clear_positions(pos);
        self.pair_start.push(self.pair_pos.len() as u32);
    }

    /// The words of `topo` and the section offsets (`Params` in the shader), `first` closed.
    fn topo(mut self, links: usize) -> (Vec<u32>, [u32; 16], Vec<f64>) {
        self.first.push(self.link.len() as u32);
        // Per link, its entries in ascending order (a counting sort).
        let mut link_start = vec![0u32; links + 1];
        for &l in &self.link {
            link_start[l as usize + 1] += 1;
        }
        for l in 0..links {
            link_start[l + 1] += link_start[l];
        }
        let mut link_entries = vec![0u32; self.link.len()];
        let mut next = link_start.clone();
        for (e, &l) in self.link.iter().enumerate() {
            link_entries[next[l as usize] as usize] = e as u32;
            next[l as usize] += 1;
        }
        let bushes = self.bush_pos.len() - 1;
        let chunks = self.chunk_start.len() - 1;
        let sections = [
            self.bush_pos,
            self.first,
            self.tail,
            self.link,
            self.pair_start,
            self.pair_pos,
            link_start,
            link_entries,
            self.chunk_start,
        ];
        let mut params = [0u32; 16];
        params[..4].copy_from_slice(&[bushes as u32, links as u32, chunks as u32, 0]);
        let mut words = Vec::with_capacity(sections.iter().map(Vec::len).sum());
        for (k, s) in sections.iter().enumerate() {
            params[4 + k] = words.len() as u32;
            words.extend_from_slice(s);
        }
        (words, params, self.flow)
    }
}

impl BushSolver {
    /// Class `class`'s bushes and the pairs of `demand` (the pairs they were built for) on `ctx`, in
    /// blocks of at most `block_bytes` per buffer (`None`: [`BLOCK_BYTES`]), and never more than one
    /// storage binding of the device.
    pub(crate) fn upload_class<'c>(
        &self,
        ctx: &'c GpuContext,
        class: usize,
        demand: &Demand,
        block_bytes: Option<usize>,
    ) -> Result<GpuBushes<'c>, TapError> {
        ctx.require(ctx.features().f64, "f64", "matrix estimation's passes on the GPU")?;
        let links = self.state.x.len();
        let binding = ctx.limits.max_storage_buffer_binding_size.min(ctx.limits.max_buffer_size) as usize;
        let binding = block_bytes.unwrap_or(BLOCK_BYTES).min(binding);
        let key = |entry| PipelineKey::new(SHADER, entry);
        let pipelines = Pipelines {
            mean_costs: ctx.pipeline(&key("mean_costs"))?,
            push_back: ctx.pipeline(&key("push_back"))?,
            link_sums: ctx.pipeline(&key("link_sums"))?,
        };
        let cost = GpuBuffer::<f64>::zeroed(ctx, "bush passes link costs", links.max(1))?;
        let link_total = GpuBuffer::<f64>::zeroed(ctx, "bush passes link totals", links.max(1))?;
        let starts = row_starts(demand);
        let mut pos = vec![NONE; self.topo.in_offsets.len() - 1];
        let mut blocks = Vec::new();
        let mut host = HostBlock::new();
        // The class's first bush (= origin) held in `host`.
        let mut first_bush = 0;
        for (c, chunk) in self.class_bushes(class).chunks(SUM_CHUNK).enumerate() {
            let origins = c * SUM_CHUNK..c * SUM_CHUNK + chunk.len();
            let added = Size::of(chunk, starts[origins.end] - starts[origins.start]);
            if host.bushes() > 0 && !host.size().plus(added).fits(links, binding) {
                let full = std::mem::replace(&mut host, HostBlock::new());
                let n = full.bushes();
                let pairs = starts[first_bush]..starts[first_bush + n];
                blocks.push(device_block(ctx, full, links, pairs, &pipelines, (&cost, &link_total))?);
                first_bush += n;
            }
            if !host.size().plus(added).fits(links, binding) {
                return Err(TapError::InvalidOption(format!(
                    "matrix estimation on the GPU: {} bushes exceed a block ({binding} bytes: one storage binding of this device, or less as asked)",
                    chunk.len()
                )));
            }
            for (bush, i) in chunk.iter().zip(origins) {
                host.push(bush, demand.from_origin(i).0, &mut pos);
            }
            host.chunk_start.push(host.link.len() as u32);
        }
        if host.bushes() > 0 {
            let pairs = starts[first_bush]..starts[first_bush + host.bushes()];
            blocks.push(device_block(ctx, host, links, pairs, &pipelines, (&cost, &link_total))?);
        }
        Ok(GpuBushes { ctx, blocks, cost, link_total, links, pairs: demand.num_pairs(), pipelines })
    }
}

/// The three kernels.
struct Pipelines {
    mean_costs: Arc<wgpu::ComputePipeline>,
    push_back: Arc<wgpu::ComputePipeline>,
    link_sums: Arc<wgpu::ComputePipeline>,
}

/// What a block holds, counted to keep each of its buffers within one storage binding.
#[derive(Clone, Copy, Default)]
struct Size {
    bushes: usize,
    positions: usize,
    entries: usize,
    pairs: usize,
    chunks: usize,
}

impl Size {
    fn of(chunk: &[Bush], pairs: usize) -> Self {
        Self {
            bushes: chunk.len(),
            positions: chunk.iter().map(|b| b.nodes.len()).sum(),
            entries: chunk.iter().map(|b| b.link.len()).sum(),
            pairs,
            chunks: 1,
        }
    }

    fn plus(self, o: Self) -> Self {
        Self {
            bushes: self.bushes + o.bushes,
            positions: self.positions + o.positions,
            entries: self.entries + o.entries,
            pairs: self.pairs + o.pairs,
            chunks: self.chunks + o.chunks,
        }
    }

    /// Whether `topo` (its words) and the f64 arrays each fit `binding` bytes, and every index a u32.
    fn fits(&self, links: usize, binding: usize) -> bool {
        let words = 2 * (self.bushes + 1)
            + (self.positions + 1)
            + 3 * self.entries
            + self.pairs
            + (links + 1)
            + (self.chunks + 1);
        let largest = (4 * words).max(8 * self.entries.max(self.positions).max(self.pairs));
        largest <= binding && words <= u32::MAX as usize
    }
}

impl HostBlock {
    fn bushes(&self) -> usize {
        self.bush_pos.len() - 1
    }

    fn size(&self) -> Size {
        Size {
            bushes: self.bushes(),
            positions: self.positions(),
            entries: self.link.len(),
            pairs: self.pair_pos.len(),
            chunks: self.chunk_start.len() - 1,
        }
    }
}

/// Uploads `host` (the class's pairs `pairs`) and binds it to the kernels.
fn device_block(
    ctx: &GpuContext,
    host: HostBlock,
    links: usize,
    pairs: std::ops::Range<usize>,
    p: &Pipelines,
    (cost, link_total): (&GpuBuffer<f64>, &GpuBuffer<f64>),
) -> Result<Block, TapError> {
    let (bushes, positions, entries) = (host.bushes(), host.positions(), host.link.len());
    let (words, params, flow) = host.topo(links);
    let params = ctx.uniform_words("bush passes block", &params);
    let topo = GpuBuffer::from_slice(ctx, "bush passes topology", &words)?;
    let flow = GpuBuffer::from_slice(ctx, "bush passes flows", if flow.is_empty() { &[0.0] } else { &flow })?;
    let node_value = GpuBuffer::<f64>::zeroed(ctx, "bush passes node values", positions.max(1))?;
    let pair_value = GpuBuffer::<f64>::zeroed(ctx, "bush passes pair values", pairs.len().max(1))?;
    let entry_flow = GpuBuffer::<f64>::zeroed(ctx, "bush passes entry flows", entries.max(1))?;
    let mean_group = ctx.bind_buffers(
        &p.mean_costs,
        "bush mean costs",
        &[
            (0, &params),
            (1, topo.buffer()),
            (2, flow.buffer()),
            (3, cost.buffer()),
            (4, node_value.buffer()),
            (5, pair_value.buffer()),
        ],
    )?;
    let push_group = ctx.bind_buffers(
        &p.push_back,
        "bush push back",
        &[
            (0, &params),
            (1, topo.buffer()),
            (2, flow.buffer()),
            (4, node_value.buffer()),
            (5, pair_value.buffer()),
            (6, entry_flow.buffer()),
        ],
    )?;
    let sums_group = ctx.bind_buffers(
        &p.link_sums,
        "bush link sums",
        &[(0, &params), (1, topo.buffer()), (6, entry_flow.buffer()), (7, link_total.buffer())],
    )?;
    Ok(Block {
        bushes,
        first_pair: pairs.start,
        pairs: pairs.len(),
        pair_value,
        _buffers: (params, topo, flow, node_value, entry_flow),
        mean_group,
        push_group,
        sums_group,
    })
}

impl GpuBushes<'_> {
    /// [`BushSolver::od_mean_costs`] with `cost` per internal link: one value per pair.
    pub(crate) fn od_mean_costs(&self, cost: &[f64]) -> Result<Vec<f64>, TapError> {
        self.cost.write(self.ctx, 0, cost)?;
        let steps: Vec<Step> = self
            .blocks
            .iter()
            .map(|b| Step {
                pipeline: &self.pipelines.mean_costs,
                bind_group: &b.mean_group,
                grid: Workgroups::Fixed([(b.bushes as u32).div_ceil(BUSH_WG), 1, 1]),
            })
            .collect();
        self.ctx.run(&Sequence::once("bush mean costs", &steps))?;
        let mut out = Vec::with_capacity(self.pairs);
        for b in &self.blocks {
            let values = b.pair_value.read(self.ctx)?;
            out.extend_from_slice(&values[..b.pairs]);
        }
        Ok(out)
    }

    /// [`BushSolver::route_flows`] of `values` (one per pair): flows per internal link.
    pub(crate) fn route_flows(&self, values: &[f64]) -> Result<Vec<f64>, TapError> {
        self.link_total.write(self.ctx, 0, &vec![0.0; self.links.max(1)])?;
        for b in &self.blocks {
            b.pair_value.write(self.ctx, 0, &values[b.first_pair..b.first_pair + b.pairs])?;
        }
        let mut steps = Vec::with_capacity(2 * self.blocks.len());
        for b in &self.blocks {
            steps.push(Step {
                pipeline: &self.pipelines.push_back,
                bind_group: &b.push_group,
                grid: Workgroups::Fixed([(b.bushes as u32).div_ceil(BUSH_WG), 1, 1]),
            });
            // After the block's pushes, before the next block's (its sums carry on from these).
            steps.push(Step {
                pipeline: &self.pipelines.link_sums,
                bind_group: &b.sums_group,
                grid: Workgroups::Fixed([(self.links as u32).div_ceil(LINK_WG), 1, 1]),
            });
        }
        self.ctx.run(&Sequence::once("bush route flows", &steps))?;
        let mut total = self.link_total.read(self.ctx)?;
        total.truncate(self.links);
        Ok(total)
    }
}
