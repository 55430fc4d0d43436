//! The DP on a GPU: one dispatch per anti-diagonal of the table, all recorded as one device-side loop
//! (`shaders/gcut_wavefront.wgsl`, compact layout); the tables come back identical to the CPU's.

use gpu_runtime::sequence::{Grid as Dispatch, Sequence, Step};
use gpu_runtime::{GpuBuffer, GpuContext, PipelineKey, Shader, wgpu};

use super::dp::{Tables, code};
use super::normal::Grid;
use super::{GcutError, Instance, Solution, pattern};

const WAVEFRONT: Shader = gpu_runtime::shader!("gcut_wavefront");

/// Invocations per cell.
pub const WG: u32 = 128;

/// Diagonals recorded per command buffer.
const DIAGONALS_PER_SUBMIT: u32 = 512;

/// The optimal pattern, with the table filled on `ctx`; identical to [`super::solve`].
pub fn solve_gpu(ctx: &GpuContext, inst: &Instance) -> Result<Solution, GcutError> {
    let grid = Grid::new(inst)?;
    let tables = solve_tables_gpu(ctx, &grid)?;
    Ok(pattern::solution_from(&grid, &tables))
}

/// The value and cut tables of `g` computed on `ctx`. Values are u32 on the GPU: instances whose
/// optimum could pass `u32::MAX / 2` are refused with [`GcutError::ValueOverflow`]; tables beyond the
/// device's storage-binding limit with [`GcutError::TooLarge`].
pub fn solve_tables_gpu(ctx: &GpuContext, g: &Grid) -> Result<Tables, GcutError> {
    let limit = (u32::MAX / 2) as u128;
    if g.value_bound > limit {
        return Err(GcutError::ValueOverflow { bound: g.value_bound, limit });
    }
    let (nx, ny) = (g.xs.len(), g.ys.len());
    let cells = nx * ny;
    let binding = ctx.limits.max_storage_buffer_binding_size;
    if cells as u64 * 8 > binding {
        return Err(GcutError::TooLarge { bytes: cells as u64 * 8, limit: binding });
    }
    let mut geom = Vec::with_capacity(nx + ny + g.pidx.len() + g.qidx.len());
    geom.extend_from_slice(&g.xs);
    geom.extend_from_slice(&g.ys);
    geom.extend_from_slice(&g.pidx);
    geom.extend_from_slice(&g.qidx);
    let piece: Vec<[u32; 2]> = g
        .piece_value
        .iter()
        .zip(&g.piece_kind)
        .map(|(&v, &k)| if k == 0 { [0, code::WASTE] } else { [v as u32, code::PIECE | k] })
        .collect();
    let geom = GpuBuffer::from_slice(ctx, "gcut geometry", &geom)?;
    let piece = GpuBuffer::from_slice(ctx, "gcut pieces", &piece)?;
    let rows = GpuBuffer::<u32>::zeroed(ctx, "gcut rows", cells)?;
    let cols = GpuBuffer::<u32>::zeroed(ctx, "gcut cols", cells)?;
    let cuts = GpuBuffer::<u32>::zeroed(ctx, "gcut cuts", cells)?;
    // The advance kernel moves the diagonal from 1 to 2 before the first cells dispatch.
    let state = GpuBuffer::from_slice(ctx, "gcut state", &[1u32, 0, 0, 0])?;
    let args = GpuBuffer::<u32>::zeroed_with_usage(ctx, "gcut args", 3, wgpu::BufferUsages::INDIRECT)?;
    geom.check_bindable(ctx)?;
    let max_dim = ctx.limits.max_compute_workgroups_per_dimension;
    let at = [nx as u32, (nx + ny) as u32, (nx + ny + g.pidx.len()) as u32];
    let params = ctx.uniform_words("gcut params", &[nx as u32, ny as u32, at[0], at[1], at[2], max_dim]);
    let cells_pl = ctx.pipeline(&PipelineKey::new(WAVEFRONT, "cells").with("WG", WG))?;
    let advance_pl = ctx.pipeline(&PipelineKey::new(WAVEFRONT, "advance").with("WG", WG))?;
    let cells_bg = ctx.bind_buffers(
        &cells_pl,
        "gcut cells",
        &[
            (0, &params),
            (1, geom.buffer()),
            (2, piece.buffer()),
            (3, rows.buffer()),
            (4, cols.buffer()),
            (5, cuts.buffer()),
            (6, state.buffer()),
        ],
    )?;
    let advance_bg = ctx.bind_buffers(
        &advance_pl,
        "gcut advance",
        &[(0, &params), (6, state.buffer()), (7, args.buffer())],
    )?;
    let body = [
        Step { pipeline: &advance_pl, bind_group: &advance_bg, grid: Dispatch::Fixed([1, 1, 1]) },
        Step { pipeline: &cells_pl, bind_group: &cells_bg, grid: Dispatch::Indirect(args.buffer(), 0) },
    ];
    // Diagonals 2 ..= (nx - 1) + (ny - 1).
    let diagonals = (nx + ny).saturating_sub(3) as u32;
    ctx.run(&Sequence {
        label: "guillotine wavefront",
        body: &body,
        iterations: diagonals,
        per_submit: DIAGONALS_PER_SUBMIT,
    })?;
    let value = rows.read(ctx)?.into_iter().map(u64::from).collect();
    let cut = cuts.read(ctx)?;
    Ok(Tables { value, cut, candidates: g.candidates() })
}
