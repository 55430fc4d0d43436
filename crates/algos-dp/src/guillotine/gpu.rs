//! The DP on a GPU: one dispatch per anti-diagonal of the table, all recorded as one device-side loop,
//! in either table layout of the spec (`shaders/gcut_compact.wgsl`, `shaders/gcut_gapfilled.wgsl`);
//! the tables come back identical to the CPU's.
//!
//! Tables larger than one storage binding may be (`max_storage_buffer_binding_size`) are split over up
//! to four bindings each (`shaders/lib/gcut_tables_four.wgsl`), so the limit is the device's memory,
//! not one binding.

use std::time::Instant;

use gpu_runtime::Workgroups;
use gpu_runtime::sequence::{Sequence, Step};
use gpu_runtime::{GpuBuffer, GpuContext, GpuError, PipelineKey, Shader, wgpu};

use super::dp::{Tables, code};
use super::normal::Grid;
use super::{DpError, Instance, Solution, pattern};

/// The wavefront layouts' helpers (parameters, diagonal bookkeeping, the table layouts), this crate's.
const GCUT_HELPERS: &[(&str, &str)] =
    gpu_runtime::helpers!["gcut_common", "gcut_tables_one", "gcut_tables_four"];
const COMPACT: Shader = gpu_runtime::shader!("gcut_compact").with_helpers(GCUT_HELPERS);
const GAP_FILLED: Shader = gpu_runtime::shader!("gcut_gapfilled").with_helpers(GCUT_HELPERS);

/// Invocations per cell.
pub const WG: u32 = 128;

/// Diagonals recorded per command buffer.
const DIAGONALS_PER_SUBMIT: u32 = 512;

/// Most bindings a table may be split over (the `four` shader variant).
const MAX_CHUNKS: u64 = 4;

/// How the GPU keeps the table (spec guillotine.md §4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// The layout measured faster: compact (on the H100 it beat gap-filled on 11 of 12 instances,
    /// 1.2–1.5× on the large ones; docs/benchmarks.md).
    #[default]
    Auto,
    /// V at normal positions only, twice (row- and column-major); remainders rounded through lookup
    /// tables. 3 words a cell.
    Compact,
    /// V at every integer width of each row and every integer height of each column: no rounding
    /// lookups, and contiguous scans where normal positions are dense. `ny·(W+1) + nx·(H+1) + nx·ny`
    /// words.
    GapFilled,
}

/// Options of [`solve_gpu_with`] / [`solve_tables_gpu_with`].
#[derive(Debug, Clone, Copy, Default)]
pub struct GpuOptions {
    /// Table layout.
    pub layout: Layout,
    /// Largest binding to use, in bytes, when below the device's limit: tables beyond it are split over
    /// several bindings. For tests and diagnostics (it exercises the split path on small instances).
    pub max_binding_bytes: Option<u64>,
}

/// What a GPU solve did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuReport {
    /// The layout that ran.
    pub layout: Layout,
    /// Storage bindings per table (1 unless a table exceeded one binding).
    pub bindings_per_table: u32,
    /// Bytes of the tables and lookups on the device.
    pub device_bytes: u64,
    /// Dispatches recorded (two per anti-diagonal).
    pub dispatches: u64,
    /// Seconds to build and upload the inputs, to fill the table, and to read back what the caller
    /// needs (the whole tables for [`solve_tables_gpu_with`]; the cut records and the root's value
    /// for a [`Solution`]).
    pub upload_s: f64,
    /// See `upload_s`.
    pub wavefront_s: f64,
    /// See `upload_s`.
    pub readback_s: f64,
}

/// The optimal pattern, with the table filled on `ctx` (layout chosen automatically); identical to
/// [`super::solve`].
pub fn solve_gpu(ctx: &GpuContext, inst: &Instance) -> Result<Solution, DpError> {
    solve_gpu_with(ctx, inst, &GpuOptions::default()).map(|(s, _)| s)
}

/// [`solve_gpu`] with options, and what ran.
pub fn solve_gpu_with(
    ctx: &GpuContext,
    inst: &Instance,
    options: &GpuOptions,
) -> Result<(Solution, GpuReport), DpError> {
    solve_grid_gpu(ctx, &Grid::new(inst)?, options)
}

/// The optimal pattern of a prepared grid on `ctx`. Only the cut records and the root's value come
/// back from the device (half of what [`solve_tables_gpu_with`] reads).
pub fn solve_grid_gpu(
    ctx: &GpuContext,
    g: &Grid,
    options: &GpuOptions,
) -> Result<(Solution, GpuReport), DpError> {
    let Some(filled) = fill(ctx, g, options)? else {
        let (t, report) = trivial(g, options);
        return Ok((pattern::solution_from(g, &t), report));
    };
    let t = Instant::now();
    let cut = filled.cuts.read(ctx)?;
    let (nx, ny) = (g.xs.len(), g.ys.len());
    let root = match filled.report.layout {
        Layout::GapFilled => (ny - 1) * g.pidx.len() + g.xs[nx - 1] as usize,
        _ => (ny - 1) * nx + nx - 1,
    };
    let value = u64::from(filled.rows.read_word(ctx, root)?);
    let report = GpuReport { readback_s: t.elapsed().as_secs_f64(), ..filled.report };
    Ok((pattern::solution_from_cuts(g, &cut, value, g.candidates()), report))
}

/// The value and cut tables of `g` computed on `ctx` (layout chosen automatically). Values are u32 on
/// the GPU: instances whose optimum could pass `u32::MAX / 2` are refused with
/// [`DpError::ValueOverflow`]; tables beyond the device's memory with [`DpError::TableTooLarge`].
pub fn solve_tables_gpu(ctx: &GpuContext, g: &Grid) -> Result<Tables, DpError> {
    solve_tables_gpu_with(ctx, g, &GpuOptions::default()).map(|(t, _)| t)
}

/// [`solve_tables_gpu`] with options, and what ran.
pub fn solve_tables_gpu_with(
    ctx: &GpuContext,
    g: &Grid,
    options: &GpuOptions,
) -> Result<(Tables, GpuReport), DpError> {
    let Some(filled) = fill(ctx, g, options)? else {
        return Ok(trivial(g, options));
    };
    let t = Instant::now();
    let cut = filled.cuts.read(ctx)?;
    let lines = filled.rows.read(ctx)?;
    let (nx, ny) = (g.xs.len(), g.ys.len());
    let value: Vec<u64> = match filled.report.layout {
        Layout::GapFilled => {
            let wl = g.pidx.len();
            (0..nx * ny).map(|c| u64::from(lines[(c / nx) * wl + g.xs[c % nx] as usize])).collect()
        }
        _ => lines.into_iter().map(u64::from).collect(),
    };
    let report = GpuReport { readback_s: t.elapsed().as_secs_f64(), ..filled.report };
    Ok((Tables { value, cut, candidates: g.candidates() }, report))
}

/// Tables with only row or column 0 (zero width or height): nothing to compute, as on the CPU.
fn trivial(g: &Grid, options: &GpuOptions) -> (Tables, GpuReport) {
    let layout = if options.layout == Layout::GapFilled { Layout::GapFilled } else { Layout::Compact };
    let report = GpuReport {
        layout,
        bindings_per_table: 1,
        device_bytes: 0,
        dispatches: 0,
        upload_s: 0.0,
        wavefront_s: 0.0,
        readback_s: 0.0,
    };
    (crate::guillotine::solve_tables(g), report)
}

/// How the tables of one layout are laid over bindings.
struct Plan {
    /// Words of rows, cols and cuts.
    words: [u64; 3],
    /// Words per binding (a power of two when tables are split).
    chunk_words: u64,
    /// Bindings per table.
    chunks: u64,
}

fn plan(ctx: &GpuContext, g: &Grid, layout: Layout, options: &GpuOptions) -> Result<Plan, DpError> {
    let (nx, ny) = (g.xs.len() as u64, g.ys.len() as u64);
    let (wl, hl) = (g.pidx.len() as u64, g.qidx.len() as u64);
    let cells = nx * ny;
    let words = match layout {
        Layout::GapFilled => [ny * wl, nx * hl, cells],
        _ => [cells, cells, cells],
    };
    let binding = ctx
        .limits
        .max_storage_buffer_binding_size
        .min(ctx.limits.max_buffer_size)
        .min(options.max_binding_bytes.unwrap_or(u64::MAX));
    let largest = words.iter().copied().max().unwrap_or(0);
    let total_bytes = words.iter().sum::<u64>() * 4;
    // Indices are u32 words.
    if largest > u32::MAX as u64 {
        return Err(DpError::TableTooLarge { bytes: total_bytes, limit: 3 * (u32::MAX as u64) * 4 });
    }
    let one = binding / 4;
    if largest <= one {
        return Ok(Plan { words, chunk_words: largest.max(1), chunks: 1 });
    }
    // Split: power-of-two chunks so the shader finds a word's chunk by a shift.
    let chunk_words = 1u64 << (63 - one.max(1).leading_zeros());
    let chunks = largest.div_ceil(chunk_words);
    if chunks > MAX_CHUNKS {
        return Err(DpError::TableTooLarge { bytes: total_bytes, limit: 3 * MAX_CHUNKS * chunk_words * 4 });
    }
    let stage = ctx.limits.max_storage_buffers_per_shader_stage as u64;
    if stage < 14 {
        return Err(DpError::Gpu(GpuError::LimitTooLow {
            name: "max_storage_buffers_per_shader_stage",
            needed: 14,
            available: stage,
        }));
    }
    Ok(Plan { words, chunk_words, chunks })
}

/// A table on the device, in one or more bindings.
struct Table {
    chunks: Vec<GpuBuffer<u32>>,
    chunk_words: usize,
}

impl Table {
    fn new(ctx: &GpuContext, label: &str, words: u64, p: &Plan) -> Result<Self, DpError> {
        let mut chunks = Vec::new();
        let mut left = words as usize;
        while left > 0 || chunks.is_empty() {
            let n = left.min(p.chunk_words as usize);
            chunks.push(GpuBuffer::<u32>::zeroed(ctx, label, n)?);
            left -= n;
        }
        Ok(Self { chunks, chunk_words: p.chunk_words as usize })
    }

    fn upload(&self, ctx: &GpuContext, data: &[u32]) -> Result<(), DpError> {
        for (buf, part) in self.chunks.iter().zip(data.chunks(self.chunk_words)) {
            buf.write(ctx, 0, part)?;
        }
        Ok(())
    }

    fn read_word(&self, ctx: &GpuContext, k: usize) -> Result<u32, DpError> {
        let words = self.chunks[k / self.chunk_words].read_range(ctx, k % self.chunk_words, 1)?;
        Ok(words[0])
    }

    fn read(&self, ctx: &GpuContext) -> Result<Vec<u32>, DpError> {
        let mut out = Vec::with_capacity(self.chunks.iter().map(GpuBuffer::len).sum());
        for buf in &self.chunks {
            out.extend(buf.read(ctx)?);
        }
        Ok(out)
    }
}

/// The filled tables on the device, and the report so far (no readback yet).
struct Filled {
    rows: Table,
    cuts: Table,
    report: GpuReport,
}

/// Fills the tables of `g` on `ctx`; `None` for a grid with nothing to compute.
fn fill(ctx: &GpuContext, g: &Grid, options: &GpuOptions) -> Result<Option<Filled>, DpError> {
    let limit = (u32::MAX / 2) as u128;
    if g.value_bound > limit {
        return Err(DpError::ValueOverflow { bound: g.value_bound, limit });
    }
    if g.xs.len() < 2 || g.ys.len() < 2 {
        return Ok(None);
    }
    let layout = if options.layout == Layout::GapFilled { Layout::GapFilled } else { Layout::Compact };
    let p = plan(ctx, g, layout, options)?;
    let start = Instant::now();
    let (nx, ny) = (g.xs.len(), g.ys.len());
    let (wl, hl) = (g.pidx.len(), g.qidx.len());
    let mut geom = Vec::with_capacity(nx + ny + wl + hl + g.kinds.len());
    geom.extend_from_slice(&g.xs);
    geom.extend_from_slice(&g.ys);
    geom.extend_from_slice(&g.pidx);
    geom.extend_from_slice(&g.qidx);
    // The value bound fits u32 (checked), so every piece that fits does too; others never fit.
    geom.extend(g.kinds.iter().map(|k| u32::try_from(k.value).unwrap_or(u32::MAX)));
    // The cut table starts as each cell's single-piece record; the kernels compare it with the cuts.
    let records: Vec<u32> =
        g.piece_kind.iter().map(|&k| if k == 0 { code::WASTE } else { code::PIECE | k }).collect();
    let geom = GpuBuffer::from_slice(ctx, "gcut geometry", &geom)?;
    geom.check_bindable(ctx)?;
    let rows = Table::new(ctx, "gcut rows", p.words[0], &p)?;
    let cols = Table::new(ctx, "gcut cols", p.words[1], &p)?;
    let cuts = Table::new(ctx, "gcut cuts", p.words[2], &p)?;
    cuts.upload(ctx, &records)?;
    drop(records);
    // The advance kernel moves the diagonal from 1 to 2 before the first cells dispatch.
    let state = GpuBuffer::from_slice(ctx, "gcut state", &[1u32, 0, 0, 0])?;
    let args = GpuBuffer::<u32>::zeroed_with_usage(ctx, "gcut args", 3, wgpu::BufferUsages::INDIRECT)?;
    let max_dim = ctx.limits.max_compute_workgroups_per_dimension;
    // Scan every integer position where there are at most 25 % more of them than normal positions.
    let dense = |positions: usize, line: usize| u32::from(4 * line <= 5 * positions);
    let at = [nx, nx + ny, nx + ny + wl, nx + ny + wl + hl].map(|a| a as u32);
    let params = ctx.uniform_words(
        "gcut params",
        &[
            nx as u32,
            ny as u32,
            at[0],
            at[1],
            at[2],
            at[3],
            max_dim,
            wl as u32,
            hl as u32,
            dense(nx, wl),
            dense(ny, hl),
        ],
    );
    let shader = if layout == Layout::GapFilled { GAP_FILLED } else { COMPACT };
    let split = p.chunks > 1;
    let key = |entry| {
        let k = PipelineKey::new(shader, entry)
            .with("WG", WG)
            .param("TABLES", if split { "four" } else { "one" });
        if split { k.with("CHUNK_SHIFT", p.chunk_words.trailing_zeros()) } else { k }
    };
    let cells_pl = ctx.pipeline(&key("cells"))?;
    let advance_pl = ctx.pipeline(&key("advance"))?;
    // Unused chunk slots of the split variant hold placeholders.
    let mut placeholders = Vec::new();
    let mut entries: Vec<(u32, &wgpu::Buffer)> = vec![(0, &params), (1, geom.buffer()), (2, state.buffer())];
    let slots = if split { MAX_CHUNKS as usize } else { 1 };
    for (base, table) in [(4u32, &rows), (8, &cols), (12, &cuts)] {
        for s in 0..slots {
            if s >= table.chunks.len() {
                placeholders.push((base + s as u32, GpuBuffer::<u32>::zeroed(ctx, "gcut placeholder", 1)?));
            }
        }
    }
    for (base, table) in [(4u32, &rows), (8, &cols), (12, &cuts)] {
        for (s, buf) in table.chunks.iter().enumerate() {
            entries.push((base + s as u32, buf.buffer()));
        }
    }
    entries.extend(placeholders.iter().map(|(b, buf)| (*b, buf.buffer())));
    let cells_bg = ctx.bind_buffers(&cells_pl, "gcut cells", &entries)?;
    let advance_bg = ctx.bind_buffers(
        &advance_pl,
        "gcut advance",
        &[(0, &params), (2, state.buffer()), (3, args.buffer())],
    )?;
    ctx.wait()?;
    let upload_s = start.elapsed().as_secs_f64();
    let t = Instant::now();
    let body = [
        Step { pipeline: &advance_pl, bind_group: &advance_bg, grid: Workgroups::Fixed([1, 1, 1]) },
        Step {
            pipeline: &cells_pl,
            bind_group: &cells_bg,
            grid: Workgroups::Indirect(args.buffer().clone(), 0),
        },
    ];
    // Diagonals 2 ..= (nx - 1) + (ny - 1).
    let diagonals = (nx + ny).saturating_sub(3) as u32;
    ctx.run(&Sequence {
        label: "guillotine wavefront",
        body: &body,
        iterations: diagonals,
        per_submit: DIAGONALS_PER_SUBMIT,
    })?;
    ctx.wait()?;
    let wavefront_s = t.elapsed().as_secs_f64();
    let device_bytes = p.words.iter().sum::<u64>() * 4 + geom.size_bytes();
    let report = GpuReport {
        layout,
        bindings_per_table: p.chunks as u32,
        device_bytes,
        dispatches: 2 * diagonals as u64,
        upload_s,
        wavefront_s,
        readback_s: 0.0,
    };
    Ok(Some(Filled { rows, cuts, report }))
}
