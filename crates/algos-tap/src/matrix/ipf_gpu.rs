//! IPF with the seed resident on a GPU (`shaders/ipf.wgsl`): each iteration's pass over the seed — the
//! row factors and the column sums — runs on the device, the column factors, the stop rule and the
//! final matrix on the host, exactly as [`super::ipf`] does them; only the factor vectors cross the
//! link per iteration. The results equal the CPU's to rounding (the sums are added in another order).

use gpu_runtime::sequence::{Sequence, Step};
use gpu_runtime::{GpuBuffer, GpuContext, PipelineKey, Shader, Workgroups};

use super::ipf::{Balanced, IpfOptions, factors, finish, prepare};
use crate::error::TapError;

const SHADER: Shader = gpu_runtime::shader!("ipf");

/// Rows per partial column sum: `CHUNK` in the shader. Blocks hold whole chunks.
const CHUNK: usize = 64;
/// Invocations per workgroup: `WG` and every `@workgroup_size` in the shader.
const WG: u32 = 256;

/// [`ipf_owned`](super::ipf_owned) with the passes over the seed on `ctx` (which needs 64-bit floats,
/// `SHADER_F64`). The seed is uploaded once, in row blocks of at most `block_rows` rows (`None`: as
/// many as one storage binding holds) rounded down to a multiple of 64; each iteration uploads the
/// column factors and reads back the row factors and column sums. The same checks, stop rule and
/// errors as the CPU's; the balanced matrix agrees with it to rounding (~1e-15 relative).
///
/// ```no_run
/// use urbanflow::tap::matrix::{IpfOptions, ipf_gpu};
/// let ctx = urbanflow::gpu::GpuContext::new()?;
/// let b = ipf_gpu(&ctx, vec![1.0, 2.0, 3.0, 4.0], &[10.0, 20.0], &[12.0, 18.0], &IpfOptions::default(), None)?;
/// assert!(b.converged);
/// # Ok::<(), urbanflow::tap::TapError>(())
/// ```
pub fn ipf_gpu(
    ctx: &GpuContext,
    seed: Vec<f64>,
    rows: &[f64],
    columns: &[f64],
    opts: &IpfOptions,
    block_rows: Option<usize>,
) -> Result<Balanced, TapError> {
    ctx.require(ctx.features().f64, "f64", "IPF on the GPU")?;
    let (n, m) = (rows.len(), columns.len());
    if n == 0 || m == 0 {
        // Nothing to pass over: the CPU's checks and (empty) result.
        return super::ipf_owned(seed, rows, columns, opts);
    }
    let columns = prepare(&seed, rows, columns, opts)?;
    let binding = ctx.limits.max_storage_buffer_binding_size.min(ctx.limits.max_buffer_size) as usize;
    // A block's cells are indexed by u32 in the shader, and its bytes fit one binding.
    let fits = (binding / (8 * m)).min(u32::MAX as usize / m);
    let block = block_rows.unwrap_or(usize::MAX).min(fits) / CHUNK * CHUNK;
    if block == 0 {
        return Err(TapError::InvalidOption(format!(
            "IPF on the GPU: {CHUNK} rows of {m} columns exceed one storage binding of this device ({binding} bytes)"
        )));
    }
    let chunks = n.div_ceil(CHUNK);
    let row_targets = GpuBuffer::from_slice(ctx, "ipf row targets", rows)?;
    let b_buf = GpuBuffer::<f64>::zeroed(ctx, "ipf column factors", m)?;
    let a_buf = GpuBuffer::<f64>::zeroed(ctx, "ipf row factors", n)?;
    let partials = GpuBuffer::<f64>::zeroed(ctx, "ipf partial column sums", chunks * m)?;
    let sums = GpuBuffer::<f64>::zeroed(ctx, "ipf column sums", m)?;
    partials.check_bindable(ctx)?;
    let key = |entry| PipelineKey::new(SHADER, entry);
    let (row_factors, column_partials, column_sums) = (
        ctx.pipeline(&key("row_factors"))?,
        ctx.pipeline(&key("column_partials"))?,
        ctx.pipeline(&key("column_sums"))?,
    );
    let mut blocks = Vec::new();
    for row0 in (0..n).step_by(block) {
        let r = block.min(n - row0);
        let cells = GpuBuffer::from_slice(ctx, "ipf seed block", &seed[row0 * m..(row0 + r) * m])?;
        let params =
            ctx.uniform_words("ipf block", &[r as u32, m as u32, row0 as u32, (row0 / CHUNK) as u32]);
        blocks.push((r, cells, params));
    }
    let max_dim = ctx.limits.max_compute_workgroups_per_dimension;
    let mut groups = Vec::new();
    for (r, cells, params) in &blocks {
        let rf = ctx.bind_buffers(
            &row_factors,
            "ipf row factors",
            &[
                (0, params),
                (1, cells.buffer()),
                (2, row_targets.buffer()),
                (3, b_buf.buffer()),
                (4, a_buf.buffer()),
            ],
        )?;
        let cp = ctx.bind_buffers(
            &column_partials,
            "ipf column partials",
            &[(0, params), (1, cells.buffer()), (4, a_buf.buffer()), (5, partials.buffer())],
        )?;
        groups.push((*r, rf, cp));
    }
    let total_params = ctx.uniform_words("ipf column sums", &[chunks as u32, m as u32, 0, 0]);
    let cs = ctx.bind_buffers(
        &column_sums,
        "ipf column sums",
        &[(0, &total_params), (5, partials.buffer()), (6, sums.buffer())],
    )?;
    let column_grid = (m as u32).div_ceil(WG);
    let mut steps = Vec::new();
    for (r, rf, _) in &groups {
        let grid = gpu_runtime::dispatch::workgroups_1d(*r as u64, max_dim)?;
        steps.push(Step { pipeline: &row_factors, bind_group: rf, grid: Workgroups::Fixed(grid) });
    }
    for (r, _, cp) in &groups {
        let grid = [column_grid, r.div_ceil(CHUNK) as u32, 1];
        steps.push(Step { pipeline: &column_partials, bind_group: cp, grid: Workgroups::Fixed(grid) });
    }
    steps.push(Step {
        pipeline: &column_sums,
        bind_group: &cs,
        grid: Workgroups::Fixed([column_grid, 1, 1]),
    });
    let sequence = Sequence::once("ipf pass", &steps);
    let mut pass = |b: &[f64]| -> Result<(Vec<f64>, Vec<f64>), TapError> {
        b_buf.write(ctx, 0, b)?;
        ctx.run(&sequence)?;
        Ok((a_buf.read(ctx)?, sums.read(ctx)?))
    };
    let (a, b, iterations, gap) = factors(rows, &columns, opts, &mut pass)?;
    finish(seed, rows, &columns, (a, b), iterations, gap, opts)
}
