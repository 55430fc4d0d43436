//! The kernel of [`Engine::MinPlus`](crate::matrix::Engine::MinPlus) (`shaders/cch_matrix.wgsl`) and its
//! CPU twin; matrices are asked of [`crate::matrix::distance_matrix`]. The bucket method as a min-plus
//! product: the CPU walks the elimination tree once per source and once per target (all cores), lays
//! every walk out from the root down ([`Walks`]), and the GPU takes, for every pair, the minimum of
//! `source label + target label` over the depths where both walks are on the same ancestor — the common
//! part of the two tree paths. The CPU twin, [`cch_matrix_mirror`], computes the same product from the
//! same layout; it, the kernel and the buckets all give Dijkstra's distances.
//!
//! ```
//! use urbanflow::sssp::cch::Cch;
//! use urbanflow::sssp::cch::gpu_matrix::{Walks, cch_matrix_mirror};
//! use urbanflow::sssp::matrix::{Engine, MatrixOptions, distance_matrix};
//! use urbanflow::graph::GraphBuilder;
//! let mut b = GraphBuilder::new(4);
//! b.add_arc(0, 1, 4).add_arc(0, 2, 1).add_arc(2, 1, 2).add_arc(1, 3, 5);
//! let g = b.build().unwrap().0;
//! let ch = Cch::build(&g).unwrap().customise(g.weights()).unwrap();
//! let walks = Walks::new(&ch, &[0, 2], &[1, 3]).unwrap();
//! let buckets = MatrixOptions { engine: Engine::Buckets, hierarchy: Some(&ch), ..Default::default() };
//! let run = distance_matrix(&g, &[0, 2], &[1, 3], &buckets).unwrap();
//! assert_eq!(cch_matrix_mirror(&walks).unwrap(), run.matrix);
//! ```

use gpu_runtime::readback::{PendingReadback, ReadbackRing};
use gpu_runtime::sequence::{Sequence, Step};
use gpu_runtime::{GpuBuffer, GpuContext, PipelineKey, Shader, Workgroups};
use rayon::prelude::*;

#[cfg(doc)]
use super::CchQuery;
use crate::ch::ContractionHierarchy;
use crate::error::SsspError;
use crate::matrix::{DistanceMatrix, GpuMatrixTimes};
use crate::paths::{SATURATED, UNREACHABLE};

const CCH_MATRIX: Shader = gpu_runtime::shader!("cch_matrix");

/// Sources and targets of the block of the matrix one workgroup computes (the shader's `B` and `BT`).
const BLOCK: usize = 16;
const BLOCK_TARGETS: usize = 32;

/// Most results read back per block (32 MB).
pub const READBACK_WORDS: usize = 8 << 20;

/// Results each thread copies out of a mapped block at a time (256 KB).
const COPY_CHUNK: usize = 1 << 16;

/// Padding ranks of source and target rows: never equal to each other or to a rank.
const PAD_SOURCE: u32 = u32::MAX - 1;
const PAD_TARGET: u32 = u32::MAX - 2;

/// Every source's and target's elimination-tree walk, root first: row `i` holds at depth `d` the rank of
/// the walk's ancestor at that depth and its label (`UNREACHABLE` where the walk did not reach it),
/// padded to the deepest walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Walks {
    /// Row length: the longest walk.
    pub depth: usize,
    /// Source rows, `sources × depth`.
    pub src_rank: Vec<u32>,
    /// Upward labels of the sources, `sources × depth`.
    pub src_label: Vec<u32>,
    /// Target rows, `targets × depth`.
    pub dst_rank: Vec<u32>,
    /// Downward labels of the targets, `targets × depth`.
    pub dst_label: Vec<u32>,
    /// Walk lengths: the sources', then the targets'.
    pub lengths: Vec<u32>,
    /// The sources and targets (input vertex ids).
    pub sources: Vec<u32>,
    /// See [`Walks::sources`].
    pub targets: Vec<u32>,
}

impl Walks {
    /// The walks of `sources` (upward) and `targets` (downward) on a customised CCH, on all cores.
    pub fn new(ch: &ContractionHierarchy, sources: &[u32], targets: &[u32]) -> Result<Self, SsspError> {
        let pool = super::query::QueryPool::new(ch)?;
        super::query::check_all_ends(ch, sources, targets)?;
        let walk_all = |ends: &[u32], forward: bool| -> Vec<Vec<(u32, u32)>> {
            ends.par_iter()
                .map(|&v| {
                    let mut out = Vec::new();
                    pool.with(|q| q.walk_labels(ch, v, forward, &mut out));
                    out.reverse(); // root first
                    out
                })
                .collect()
        };
        let (up, down) = rayon::join(|| walk_all(sources, true), || walk_all(targets, false));
        let depth = up.iter().chain(&down).map(Vec::len).max().unwrap_or(0).max(1);
        let lay = |walks: &[Vec<(u32, u32)>], pad: u32| -> (Vec<u32>, Vec<u32>) {
            let mut rank = vec![pad; walks.len() * depth];
            let mut label = vec![UNREACHABLE; walks.len() * depth];
            rank.par_chunks_mut(depth).zip(label.par_chunks_mut(depth)).zip(walks).for_each(|((r, l), w)| {
                for (d, &(x, lab)) in w.iter().enumerate() {
                    (r[d], l[d]) = (x, lab);
                }
            });
            (rank, label)
        };
        let (src_rank, src_label) = lay(&up, PAD_SOURCE);
        let (dst_rank, dst_label) = lay(&down, PAD_TARGET);
        let lengths = up.iter().chain(&down).map(|w| w.len() as u32).collect();
        Ok(Self {
            depth,
            src_rank,
            src_label,
            dst_rank,
            dst_label,
            lengths,
            sources: sources.to_vec(),
            targets: targets.to_vec(),
        })
    }
}

/// `x + y` saturating at [`SATURATED`], [`UNREACHABLE`] absorbing (the shader's `link`).
#[inline]
fn link(x: u32, y: u32) -> u32 {
    if x == UNREACHABLE || y == UNREACHABLE {
        return UNREACHABLE;
    }
    (x as u64 + y as u64).min(SATURATED as u64) as u32
}

/// The distances from `walks` on the CPU, as the shader computes them (its twin): per pair, the minimum
/// over the common depths. A distance that reaches the saturation bound is an error.
pub fn cch_matrix_mirror(walks: &Walks) -> Result<DistanceMatrix, SsspError> {
    let (s, t, depth) = (walks.sources.len(), walks.targets.len(), walks.depth);
    let mut data = vec![UNREACHABLE; s * t];
    if t > 0 {
        data.par_chunks_mut(t).enumerate().for_each(|(i, row)| {
            let (sr, sl) = (&walks.src_rank[i * depth..][..depth], &walks.src_label[i * depth..][..depth]);
            for (j, cell) in row.iter_mut().enumerate() {
                let (tr, tl) =
                    (&walks.dst_rank[j * depth..][..depth], &walks.dst_label[j * depth..][..depth]);
                let common = walks.lengths[i].min(walks.lengths[s + j]) as usize;
                let mut best = UNREACHABLE;
                for d in 0..common {
                    if sr[d] != tr[d] {
                        break;
                    }
                    best = best.min(link(sl[d], tl[d]));
                }
                *cell = best;
            }
        });
    }
    finish(walks, data)
}

fn finish(walks: &Walks, data: Vec<u32>) -> Result<DistanceMatrix, SsspError> {
    if data.par_iter().any(|&d| d == SATURATED) {
        return Err(SsspError::WeightOverflow { bound: SATURATED });
    }
    Ok(DistanceMatrix { sources: walks.sources.clone(), targets: walks.targets.clone(), data })
}

/// The distances from `walks` on the GPU, equal to [`cch_matrix_mirror`] and the buckets: the kernel of
/// [`Engine::MinPlus`](crate::matrix::Engine::MinPlus) (call [`crate::matrix::distance_matrix`] for a
/// matrix). Computes and reads back at most `block_words` results at a time (whole rows; at least one
/// row; the engine uses [`READBACK_WORDS`]); rows go in blocks of sources small enough for the
/// device's largest storage binding (the targets' walks and one block of the matrix must each fit).
/// Blocks are pipelined: while the host copies block `b` out of mapped memory into the result (on all
/// cores, straight to its place), the device computes block `b + 1` and copies it into the second
/// staging buffer.
pub fn cch_matrix_gpu_blocks(
    ctx: &GpuContext,
    walks: &Walks,
    block_words: usize,
) -> Result<(DistanceMatrix, GpuMatrixTimes), SsspError> {
    let mut times = GpuMatrixTimes::default();
    let clock = std::time::Instant::now();
    let mut mark = 0.0;
    let mut lap = |into: &mut f64| {
        let now = clock.elapsed().as_secs_f64();
        *into += now - mark;
        mark = now;
    };
    let (s, t, depth) = (walks.sources.len(), walks.targets.len(), walks.depth);
    if s == 0 || t == 0 {
        return Ok((finish(walks, vec![UNREACHABLE; s * t])?, times));
    }
    let limit = ctx.limits.max_storage_buffer_binding_size as usize / 4;
    let max_groups = ctx.limits.max_compute_workgroups_per_dimension as usize;
    if t.div_ceil(BLOCK_TARGETS) > max_groups {
        return Err(SsspError::InvalidParameter(format!(
            "{t} targets need {} workgroups in one dimension; the device allows {max_groups}",
            t.div_ceil(BLOCK_TARGETS)
        )));
    }
    // Blocks of at most READBACK_WORDS results through two pooled staging buffers, where one buffer for
    // the whole matrix would pin 400 MB of host memory at 10,000 × 10,000 and leave the device idle
    // while the host copies (docs/benchmarks.md).
    let rows = (limit / t).min(limit / depth).min(max_groups * BLOCK).min(block_words / t).max(1).min(s);
    // Zeroed lazily by the allocator: each page is first touched by the thread that copies into it.
    let mut data = vec![0u32; s * t];
    let dst_rank = GpuBuffer::from_slice(ctx, "cch matrix target ranks", &walks.dst_rank)?;
    let dst_label = GpuBuffer::from_slice(ctx, "cch matrix target labels", &walks.dst_label)?;
    dst_rank.check_bindable(ctx)?;
    dst_label.check_bindable(ctx)?;
    let pipeline = ctx.pipeline(&PipelineKey::new(CCH_MATRIX, "main"))?;
    // One block buffer: the copy of block b is queued before the kernel of block b + 1 overwrites it.
    let out = GpuBuffer::<u32>::zeroed(ctx, "cch matrix block", rows * t)?;
    out.check_bindable(ctx)?;
    let mut ring = ReadbackRing::new(ctx, "cch matrix").with_capacity((rows * t * 4) as u64);
    let mut overflow = false;
    // (first row, rows, copy under way) of the block the device is copying.
    let mut pending: Option<(usize, usize, PendingReadback)> = None;
    let mut take = |ring: &mut ReadbackRing<'_>,
                    (first, count, copy): (usize, usize, PendingReadback),
                    times: &mut GpuMatrixTimes,
                    lap: &mut dyn FnMut(&mut f64)|
     -> Result<(), SsspError> {
        let dst = &mut data[first * t..(first + count) * t];
        ring.read(copy, |block: &[u32]| {
            lap(&mut times.kernel_s);
            overflow |= dst
                .par_chunks_mut(COPY_CHUNK)
                .zip(block[..count * t].par_chunks(COPY_CHUNK))
                .map(|(d, b)| {
                    d.copy_from_slice(b);
                    d.contains(&SATURATED)
                })
                .reduce(|| false, |a, b| a | b);
        })?;
        lap(&mut times.readback_s);
        Ok(())
    };
    for first in (0..s).step_by(rows) {
        let count = rows.min(s - first);
        let span = first * depth..(first + count) * depth;
        let src_rank = GpuBuffer::from_slice(ctx, "cch matrix source ranks", &walks.src_rank[span.clone()])?;
        let src_label = GpuBuffer::from_slice(ctx, "cch matrix source labels", &walks.src_label[span])?;
        let mut lengths = walks.lengths[first..first + count].to_vec();
        lengths.extend_from_slice(&walks.lengths[s..]);
        let lengths = GpuBuffer::from_slice(ctx, "cch matrix lengths", &lengths)?;
        let params = ctx.uniform_words("cch matrix params", &[count as u32, t as u32, depth as u32, 0]);
        let bind = ctx.bind_buffers(
            &pipeline,
            "cch matrix",
            &[
                (0, src_rank.buffer()),
                (1, src_label.buffer()),
                (2, dst_rank.buffer()),
                (3, dst_label.buffer()),
                (4, lengths.buffer()),
                (5, out.buffer()),
                (6, &params),
            ],
        )?;
        let grid = [t.div_ceil(BLOCK_TARGETS) as u32, count.div_ceil(BLOCK) as u32, 1];
        let body = [Step { pipeline: &pipeline, bind_group: &bind, grid: Workgroups::Fixed(grid) }];
        ctx.run(&Sequence { label: "cch matrix", body: &body, iterations: 1, per_submit: 1 })?;
        let copy = ring.start(out.buffer(), (count * t * 4) as u64)?;
        lap(&mut times.upload_s);
        if let Some(p) = pending.replace((first, count, copy)) {
            take(&mut ring, p, &mut times, &mut lap)?;
        }
    }
    if let Some(p) = pending.take() {
        take(&mut ring, p, &mut times, &mut lap)?;
    }
    times.bytes = (s * t * 4) as u64;
    if overflow {
        return Err(SsspError::WeightOverflow { bound: SATURATED });
    }
    Ok((DistanceMatrix { sources: walks.sources.clone(), targets: walks.targets.clone(), data }, times))
}
