//! GPU prefix scans (reduce-then-scan) and stream compaction.

use gpu_runtime::{GpuBuffer, GpuContext, PipelineKey, Recording, Shader, Workgroups, wgpu};

use crate::element::Element;
use crate::error::ReduceError;
use crate::gpu::uniform;
use crate::predicate::Predicate;

const SCAN: Shader = gpu_runtime::shader!("scan");
const COMPACT: Shader = gpu_runtime::shader!("compact");

/// Invocations per scan workgroup.
pub const SCAN_WG: u32 = 256;
/// Consecutive elements per scan invocation (a block is `SCAN_WG × SCAN_ITEMS` elements).
pub const SCAN_ITEMS: u32 = 8;

fn check_len(ctx: &GpuContext, len: usize) -> Result<(), ReduceError> {
    let max = (ctx.limits.max_storage_buffer_binding_size / 4) as usize;
    if len > max { Err(ReduceError::LengthTooLarge { len, max }) } else { Ok(()) }
}

fn bind(
    ctx: &GpuContext,
    pipeline: &wgpu::ComputePipeline,
    entries: &[(u32, &wgpu::Buffer)],
) -> Result<wgpu::BindGroup, ReduceError> {
    Ok(ctx.bind_buffers(pipeline, "scan", entries)?)
}

/// Records the scan of `input[..len]` into `output` (element type `E`, as u32 words). The recording
/// holds the temporary buffers until it is dropped.
pub(crate) fn record_scan<E: Element>(
    ctx: &GpuContext,
    rec: &mut Recording,
    input: &wgpu::Buffer,
    len: usize,
    output: &wgpu::Buffer,
    inclusive: bool,
) -> Result<(), ReduceError> {
    let block = (SCAN_WG * SCAN_ITEMS) as usize;
    let blocks = len.div_ceil(block).max(1);
    let key = |entry| {
        PipelineKey::new(SCAN, entry)
            .param("E", E::NAME)
            .with("WG", SCAN_WG)
            .with("ITEMS", SCAN_ITEMS)
            .with("INCLUSIVE", inclusive as u32)
    };
    let params = uniform(ctx, &[len as u32]);
    let grid =
        gpu_runtime::dispatch::workgroups_1d(blocks as u64, ctx.limits.max_compute_workgroups_per_dimension)?;
    let offsets = GpuBuffer::<u32>::zeroed(ctx, "scan block offsets", blocks)?;
    if blocks > 1 {
        let sums = GpuBuffer::<u32>::zeroed(ctx, "scan block sums", blocks)?;
        let p = ctx.pipeline(&key("block_sums"))?;
        let b = bind(ctx, &p, &[(0, input), (2, sums.buffer()), (3, &params)])?;
        rec.dispatch(&p, &b, Workgroups::Fixed(grid));
        record_scan::<E>(ctx, rec, sums.buffer(), blocks, offsets.buffer(), false)?;
    }
    let p = ctx.pipeline(&key("block_scan"))?;
    let b = bind(ctx, &p, &[(0, input), (1, output), (3, &params), (4, offsets.buffer())])?;
    rec.dispatch(&p, &b, Workgroups::Fixed(grid));
    Ok(())
}

/// Scans `input[..len]` on the GPU and returns the result on the host.
pub(crate) fn scan<E: Element>(
    ctx: &GpuContext,
    input: &GpuBuffer<E>,
    len: usize,
    inclusive: bool,
) -> Result<Vec<E>, ReduceError> {
    check_len(ctx, len)?;
    if len == 0 {
        return Ok(Vec::new());
    }
    let output = GpuBuffer::<E>::zeroed(ctx, "scan output", len)?;
    let mut rec = Recording::new("a scan");
    record_scan::<E>(ctx, &mut rec, input.buffer(), len, output.buffer(), inclusive)?;
    ctx.submit(&rec)?;
    Ok(output.read_range(ctx, 0, len)?)
}

/// Compacts `input[..len]`: indices and values of the elements where `pred` holds, in order.
pub(crate) fn compact<E: Element>(
    ctx: &GpuContext,
    input: &GpuBuffer<E>,
    len: usize,
    pred: Predicate<E>,
) -> Result<(Vec<u32>, Vec<E>), ReduceError> {
    check_len(ctx, len)?;
    if len == 0 {
        return Ok((Vec::new(), Vec::new()));
    }
    let [op, a, b] = pred.encode();
    let params = uniform(ctx, &[len as u32, op, a, b]);
    let flags = GpuBuffer::<u32>::zeroed(ctx, "compact flags", len)?;
    let ranks = GpuBuffer::<u32>::zeroed(ctx, "compact ranks", len)?;
    let out_index = GpuBuffer::<u32>::zeroed(ctx, "compact indices", len)?;
    let out_value = GpuBuffer::<E>::zeroed(ctx, "compact values", len)?;
    let key = |entry| PipelineKey::new(COMPACT, entry).param("E", E::NAME).with("WG", 256u32);
    let grid = ctx.grid_1d(len as u64, 256)?;
    let mut rec = Recording::new("a compaction");
    let mark = ctx.pipeline(&key("mark"))?;
    let bm = bind(ctx, &mark, &[(0, input.buffer()), (1, flags.buffer()), (2, &params)])?;
    rec.dispatch(&mark, &bm, Workgroups::Fixed(grid));
    record_scan::<u32>(ctx, &mut rec, flags.buffer(), len, ranks.buffer(), true)?;
    let scatter = ctx.pipeline(&key("scatter"))?;
    let bs = bind(
        ctx,
        &scatter,
        &[
            (0, input.buffer()),
            (2, &params),
            (3, ranks.buffer()),
            (4, out_index.buffer()),
            (5, out_value.buffer()),
        ],
    )?;
    rec.dispatch(&scatter, &bs, Workgroups::Fixed(grid));
    ctx.submit(&rec)?;
    let total = ranks.read_range(ctx, len - 1, 1)?[0] as usize;
    Ok((out_index.read_range(ctx, 0, total)?, out_value.read_range(ctx, 0, total)?))
}
