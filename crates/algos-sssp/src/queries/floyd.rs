//! All-pairs shortest paths on small or dense graphs: blocked Floyd–Warshall (spec batched-apsp.md
//! §3.4) on the GPU (`shaders/apsp_fw.wgsl`) and its CPU twin, which runs the very same tile schedule
//! with rayon, so distances *and* next hops are identical on both.
//!
//! The matrix is padded to a multiple of [`TILE`] (unreachable padding, zero diagonal). Floyd–Warshall
//! does n³ relaxations: above a few thousand vertices on sparse graphs, one tree from every vertex
//! ([`crate::many::many_to_all_with`]: n × SSSP, ≈ 2.5 n² relaxations on road graphs) is the better
//! choice. For distances alone (no next hops), [`crate::matrix::distance_matrix`] runs this as
//! [`Engine::FloydWarshall`](crate::matrix::Engine::FloydWarshall) when asked.
//!
//! ```
//! use urbanflow::sssp::floyd::floyd_warshall;
//! use urbanflow::graph::GraphBuilder;
//! use urbanflow::gpu::Backend;
//! let mut b = GraphBuilder::new(3);
//! b.add_arc(0, 1, 4).add_arc(1, 2, 1).add_arc(0, 2, 7);
//! let apsp = floyd_warshall(&b.build().unwrap().0, Backend::Cpu, true).unwrap();
//! assert_eq!(apsp.get(0, 2), 5);
//! assert_eq!(apsp.path(0, 2), Some(vec![0, 1, 2]));
//! assert_eq!(apsp.path(2, 0), None);
//! ```

#[cfg(feature = "gpu")]
use gpu_runtime::sequence::{Sequence, Step};
use gpu_runtime::{Backend, Resolved};
#[cfg(feature = "gpu")]
use gpu_runtime::{GpuBuffer, GpuContext, PipelineKey, Shader, Workgroups, wgpu};
use graph_core::Csr;
use rayon::prelude::*;

use crate::error::SsspError;
use crate::paths::{SATURATED, UNREACHABLE};

#[cfg(feature = "gpu")]
const FW: Shader = gpu_runtime::shader!("apsp_fw");

/// Tile side of the blocked schedule.
pub const TILE: usize = 32;
/// "No next hop" (no path) in [`Apsp::next`].
pub const NO_HOP: u32 = u32::MAX;
#[cfg(feature = "gpu")]
/// Rounds recorded per GPU submission (each round is four dispatches).
const ROUNDS_PER_SUBMIT: usize = 64;

/// All-pairs distances, with next hops when asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Apsp {
    /// Number of vertices.
    pub n: usize,
    /// `dist[i * n + j]`: distance from `i` to `j` (`UNREACHABLE` where no path).
    pub dist: Vec<u32>,
    /// `next[i * n + j]`: the vertex after `i` on a shortest path to `j` (`NO_HOP` where no path,
    /// `j` itself for `i == j`).
    pub next: Option<Vec<u32>>,
}

impl Apsp {
    /// Distance from `i` to `j`.
    pub fn get(&self, i: u32, j: u32) -> u32 {
        self.dist[i as usize * self.n + j as usize]
    }

    /// The vertices of a shortest path from `i` to `j` (both included), if one exists and next hops
    /// were kept.
    pub fn path(&self, i: u32, j: u32) -> Option<Vec<u32>> {
        let next = self.next.as_ref()?;
        if self.get(i, j) == UNREACHABLE {
            return None;
        }
        let mut path = vec![i];
        let mut v = i;
        while v != j {
            v = next[v as usize * self.n + j as usize];
            if v == NO_HOP || path.len() > self.n {
                return None;
            }
            path.push(v);
        }
        Some(path)
    }
}

/// The padded matrix (size `tiles × TILE`) initialised from the arcs: the lightest arc per pair, 0 on
/// the diagonal; next hops `j` for an arc, `i` on the diagonal.
fn initial(graph: &Csr<u32>, size: usize, track: bool) -> (Vec<u32>, Vec<u32>) {
    let n = graph.num_vertices() as usize;
    let mut dist = vec![UNREACHABLE; size * size];
    let mut next = if track { vec![NO_HOP; size * size] } else { Vec::new() };
    for i in 0..size {
        dist[i * size + i] = 0;
        if track {
            next[i * size + i] = i as u32;
        }
    }
    for u in 0..n {
        for (v, w) in graph.out_arcs(u as u32) {
            let c = u * size + v as usize;
            if w < dist[c] {
                dist[c] = w;
                if track {
                    next[c] = v;
                }
            }
        }
    }
    (dist, next)
}

/// Most vertices: the padded matrix is indexed with u32 on the GPU, and a 16 GiB matrix is more than
/// any caller of an n³ method wants (use `many::many_to_all_with` from every vertex, which streams).
pub const MAX_VERTICES: usize = 65_536 - TILE;

/// Checks the size and the overflow bound.
fn check(graph: &Csr<u32>) -> Result<(), SsspError> {
    let n = graph.num_vertices() as u64;
    if n as usize > MAX_VERTICES {
        return Err(SsspError::InvalidParameter(format!(
            "Floyd–Warshall on {n} vertices needs a {} GiB matrix; the limit is {MAX_VERTICES} vertices \
             (use many::many_to_all_with from every vertex, which streams rows)",
            (n * n * 4) >> 30
        )));
    }
    let max_w = graph.weights().iter().copied().max().unwrap_or(0) as u64;
    // A candidate is the sum of two shortest-path distances, each at most (n − 1) × max weight.
    if 2 * n.saturating_sub(1) * max_w >= SATURATED as u64 {
        return Err(SsspError::InvalidParameter(format!(
            "Floyd–Warshall needs 2 (n − 1) × max weight below u32::MAX − 1; here n = {n}, max weight = {max_w} \
             (use many_to_all, which detects overflow per path)"
        )));
    }
    Ok(())
}

/// All-pairs shortest paths by blocked Floyd–Warshall; next hops (for [`Apsp::path`]) when `next_hops`.
/// The CPU and GPU give identical distances and next hops.
pub fn floyd_warshall(graph: &Csr<u32>, backend: Backend, next_hops: bool) -> Result<Apsp, SsspError> {
    check(graph)?;
    let n = graph.num_vertices() as usize;
    let size = n.div_ceil(TILE).max(1) * TILE;
    let (dist, next) = initial(graph, size, next_hops);
    let (dist, next) = match backend.resolve() {
        Resolved::Cpu => {
            let (mut dist, mut next) = (dist, next);
            blocked_cpu(&mut dist, next_hops.then_some(&mut next[..]), size);
            (dist, next)
        }
        #[cfg(feature = "gpu")]
        Resolved::Gpu(ctx) => blocked_gpu(ctx, dist, next, size, next_hops)?,
        #[cfg(not(feature = "gpu"))]
        Resolved::Gpu(ctx) => ctx.unbuilt(),
    };
    let unpad =
        |m: &[u32]| -> Vec<u32> { m.chunks(size).take(n).flat_map(|row| &row[..n]).copied().collect() };
    Ok(Apsp { n, dist: unpad(&dist), next: next_hops.then(|| unpad(&next)) })
}

/// One tile (TILE × TILE) copied out of the matrix.
type Tile = [u32; TILE * TILE];

/// A panel tile after its round: position, distances, next hops.
type ClosedPanel = (usize, usize, Box<Tile>, Option<Box<Tile>>);

fn read_tile(m: &[u32], size: usize, ti: usize, tj: usize) -> Box<Tile> {
    let mut t = Box::new([0u32; TILE * TILE]);
    for r in 0..TILE {
        let at = (ti * TILE + r) * size + tj * TILE;
        t[r * TILE..(r + 1) * TILE].copy_from_slice(&m[at..at + TILE]);
    }
    t
}

fn write_tile(m: &mut [u32], size: usize, ti: usize, tj: usize, t: &Tile) {
    for r in 0..TILE {
        let at = (ti * TILE + r) * size + tj * TILE;
        m[at..at + TILE].copy_from_slice(&t[r * TILE..(r + 1) * TILE]);
    }
}

/// `x + y` with `UNREACHABLE` absorbing (finite sums never reach it, see [`check`]).
#[inline]
fn plus(x: u32, y: u32) -> u32 {
    x.saturating_add(y)
}

/// Closes tile `a` (with next hops `na`) over the intermediates of tile `p`: `row` means a row panel
/// (b, j), where the path goes through the diagonal tile first; otherwise a column panel (i, b) or the
/// diagonal itself (`p` = `a`).
fn close_panel(a: &mut Tile, na: Option<&mut Tile>, p: &Tile, np: &Tile, row: bool, diagonal: bool) {
    let mut na = na;
    for k in 0..TILE {
        for r in 0..TILE {
            for c in 0..TILE {
                let (x, y) = if diagonal {
                    (a[r * TILE + k], a[k * TILE + c])
                } else if row {
                    (p[r * TILE + k], a[k * TILE + c])
                } else {
                    (a[r * TILE + k], p[k * TILE + c])
                };
                let cand = plus(x, y);
                if cand < a[r * TILE + c] {
                    a[r * TILE + c] = cand;
                    if let Some(na) = na.as_deref_mut() {
                        na[r * TILE + c] = if row && !diagonal { np[r * TILE + k] } else { na[r * TILE + k] };
                    }
                }
            }
        }
    }
}

/// The CPU twin of the GPU schedule (same phases, same k order per cell, same tie rule).
fn blocked_cpu(dist: &mut [u32], mut next: Option<&mut [u32]>, size: usize) {
    let tiles = size / TILE;
    let empty: Tile = [0; TILE * TILE];
    for b in 0..tiles {
        // Diagonal.
        let mut d = read_tile(dist, size, b, b);
        let mut nd = next.as_deref().map(|m| read_tile(m, size, b, b));
        let copy = d.clone();
        close_panel(&mut d, nd.as_deref_mut(), &copy, &empty, false, true);
        write_tile(dist, size, b, b, &d);
        if let (Some(m), Some(t)) = (next.as_deref_mut(), &nd) {
            write_tile(m, size, b, b, t);
        }
        let nd = nd.unwrap_or_else(|| Box::new(empty));
        // Panels, in parallel (each reads the diagonal and writes only itself).
        let panels: Vec<(usize, usize, bool)> =
            (0..tiles).filter(|&t| t != b).flat_map(|t| [(b, t, true), (t, b, false)]).collect();
        let done: Vec<ClosedPanel> = panels
            .par_iter()
            .map(|&(ti, tj, row)| {
                let mut a = read_tile(dist, size, ti, tj);
                let mut na = next.as_deref().map(|m| read_tile(m, size, ti, tj));
                close_panel(&mut a, na.as_deref_mut(), &d, &nd, row, false);
                (ti, tj, a, na)
            })
            .collect();
        for (ti, tj, a, na) in &done {
            write_tile(dist, size, *ti, *tj, a);
            if let (Some(m), Some(t)) = (next.as_deref_mut(), na) {
                write_tile(m, size, *ti, *tj, t);
            }
        }
        // The rest: every row block in parallel; R = row block b (read-only this phase), copied.
        let rb: Vec<u32> = dist[b * TILE * size..(b + 1) * TILE * size].to_vec();
        let body = |ti: usize, rows: &mut [u32], nrows: Option<&mut [u32]>| {
            if ti == b {
                return;
            }
            let mut nrows = nrows;
            // C = tile (ti, b) and its next hops, copied before the row block is written.
            let c_tile = read_tile(rows, size, 0, b);
            let nc_tile = nrows.as_deref().map(|m| read_tile(m, size, 0, b));
            for tj in (0..tiles).filter(|&t| t != b) {
                if nrows.is_none() {
                    // Distances only: any k order gives the same minimum, so take the order that
                    // vectorises (a row of R against one C entry at a time).
                    for r in 0..TILE {
                        let out = &mut rows[r * size + tj * TILE..r * size + (tj + 1) * TILE];
                        for k in 0..TILE {
                            let ck = c_tile[r * TILE + k];
                            let rk = &rb[k * size + tj * TILE..k * size + (tj + 1) * TILE];
                            for (o, &x) in out.iter_mut().zip(rk) {
                                *o = (*o).min(plus(ck, x));
                            }
                        }
                    }
                    continue;
                }
                for r in 0..TILE {
                    let out = &mut rows[r * size + tj * TILE..r * size + (tj + 1) * TILE];
                    let mut hops = nrows
                        .as_deref_mut()
                        .map(|m| &mut m[r * size + tj * TILE..r * size + (tj + 1) * TILE]);
                    for c in 0..TILE {
                        let mut best = out[c];
                        let mut hop = None;
                        for k in 0..TILE {
                            let cand = plus(c_tile[r * TILE + k], rb[k * size + tj * TILE + c]);
                            if cand < best {
                                best = cand;
                                hop = Some(k);
                            }
                        }
                        if let Some(k) = hop {
                            out[c] = best;
                            if let (Some(h), Some(nc)) = (hops.as_deref_mut(), &nc_tile) {
                                h[c] = nc[r * TILE + k];
                            }
                        }
                    }
                }
            }
        };
        match next.as_deref_mut() {
            Some(m) => dist
                .par_chunks_mut(TILE * size)
                .zip(m.par_chunks_mut(TILE * size))
                .enumerate()
                .for_each(|(ti, (rows, nrows))| body(ti, rows, Some(nrows))),
            None => dist.par_chunks_mut(TILE * size).enumerate().for_each(|(ti, rows)| body(ti, rows, None)),
        }
    }
}

#[cfg(feature = "gpu")]
fn blocked_gpu(
    ctx: &GpuContext,
    dist: Vec<u32>,
    next: Vec<u32>,
    size: usize,
    track: bool,
) -> Result<(Vec<u32>, Vec<u32>), SsspError> {
    let tiles = (size / TILE) as u32;
    let dist_buf = GpuBuffer::from_slice(ctx, "fw dist", &dist)?;
    dist_buf.check_bindable(ctx)?;
    drop(dist);
    let next_buf = if track {
        GpuBuffer::from_slice(ctx, "fw next", &next)?
    } else {
        GpuBuffer::zeroed(ctx, "fw next (unused)", 1)?
    };
    next_buf.check_bindable(ctx)?;
    drop(next);
    let control = GpuBuffer::<u32>::zeroed(ctx, "fw control", 4)?;
    let params = ctx.uniform_words("fw params", &[size as u32, tiles, u32::from(track)]);
    let entries = ["diagonal", "panels", "rest", "advance"];
    let pipelines: Vec<_> =
        entries.iter().map(|e| ctx.pipeline(&PipelineKey::new(FW, e))).collect::<Result<_, _>>()?;
    let binds: Vec<wgpu::BindGroup> = pipelines
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let all: Vec<(u32, &wgpu::Buffer)> = if i == 3 {
                vec![(2, control.buffer())]
            } else {
                vec![(0, dist_buf.buffer()), (1, next_buf.buffer()), (2, control.buffer()), (3, &params)]
            };
            ctx.bind_buffers(p, "floyd-warshall", &all)
        })
        .collect::<Result<_, _>>()?;
    let others = tiles - 1;
    let max = ctx.limits.max_compute_workgroups_per_dimension;
    if 2 * others > max {
        return Err(SsspError::InvalidParameter(format!(
            "{tiles} tiles per side exceed the dispatch limit {max}"
        )));
    }
    // Every round recorded without a round trip; the advance kernel moves the round counter on.
    let grids = [[1, 1, 1], [2 * others, 1, 1], [others, others, 1], [1, 1, 1]];
    let body: Vec<Step<'_>> = pipelines
        .iter()
        .zip(&binds)
        .zip(grids)
        .map(|((p, b), g)| Step { pipeline: p, bind_group: b, grid: Workgroups::Fixed(g) })
        .collect();
    ctx.run(&Sequence {
        label: "Floyd–Warshall rounds",
        body: &body,
        iterations: tiles,
        per_submit: ROUNDS_PER_SUBMIT as u32,
    })?;
    let dist = dist_buf.read(ctx)?;
    let next = if track { next_buf.read(ctx)? } else { Vec::new() };
    Ok((dist, next))
}
