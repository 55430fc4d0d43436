//! The DP itself, on gap-filled lines: V is kept at every integer width of each row and every integer
//! height of each column (`line[x] = V(p(x), j)`), so a vertical cut at `x` costs two direct loads,
//! `row[x] + row[x_i − x]`, and the scan over `x` is a contiguous, vectorisable loop.
//!
//! Scanning every integer `x` in `[x_1, x_i / 2]` rather than only the normal positions gives the same
//! best value and the same smallest best `x`: for a non-normal `x`, the normal `p(x) ≥ x_1` scores at
//! least as much (`row[p(x)] = row[x]`, and `row` is non-decreasing so `row[x_i − p(x)] ≥ row[x_i − x]`)
//! and is smaller. So the records equal those of the plain recurrence over normal positions, which the
//! GPU kernel evaluates.

use std::ops::Add;

use rayon::prelude::*;

use super::normal::Grid;

/// Cut records, one `u32` per cell: the tag in the top two bits, a kind index + 1 or a coordinate
/// below. The GPU kernel writes the same words.
pub(crate) mod code {
    pub const WASTE: u32 = 0;
    pub const PIECE: u32 = 1 << 30;
    pub const VERTICAL: u32 = 2 << 30;
    pub const HORIZONTAL: u32 = 3 << 30;
    pub const TAG: u32 = 3 << 30;
}

/// The filled tables: `value[j * nx + i]` = V(i, j) and its cut record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tables {
    /// V, row-major (`j * xs.len() + i`).
    pub value: Vec<u64>,
    /// Cut records, same layout (see the GPU kernel for the encoding).
    pub cut: Vec<u32>,
    /// Candidate cuts of the recurrence over normal positions (the work measure of every backend).
    pub candidates: u64,
}

/// The table's integer: `i32` when twice the value bound fits (area-valued instances up to ~32,000²),
/// else `u64`.
trait Value: Copy + Ord + Default + Add<Output = Self> + Send + Sync + 'static {
    fn from_u64(v: u64) -> Self;
    fn to_u64(self) -> u64;
}

// i32 rather than u32 where values allow: x86-64's baseline (SSE2) has a signed 32-bit compare, so
// the scan's maximum vectorises; unsigned needs SSE4.1.
impl Value for i32 {
    fn from_u64(v: u64) -> Self {
        v as i32
    }
    fn to_u64(self) -> u64 {
        self as u64
    }
}

impl Value for u64 {
    fn from_u64(v: u64) -> Self {
        v
    }
    fn to_u64(self) -> u64 {
        self
    }
}

/// Best `line[c] + line[end − c]` over `first ≤ c ≤ end / 2`, and the smallest such `c` (value 0 and
/// no `c` when the range is empty).
#[inline]
fn scan<V: Value>(line: &[V], first: u32, end: u32) -> (V, u32) {
    let (lo, hi) = (first as usize, (end / 2) as usize);
    if first == 0 || lo > hi {
        return (V::default(), 0);
    }
    let end = end as usize;
    let left = &line[lo..=hi];
    let right = &line[end - hi..=end - lo];
    // Chunk maxima in one vectorisable pass, then the first best position inside the first chunk that
    // reaches the maximum (a plain `position` over the whole range would not vectorise).
    const CHUNK: usize = 64;
    let (mut best, mut best_chunk) = (V::default(), 0usize);
    for (k, (a, b)) in left.chunks(CHUNK).zip(right.rchunks(CHUNK)).enumerate() {
        let m = a.iter().zip(b.iter().rev()).map(|(&x, &y)| x + y).fold(V::default(), Ord::max);
        if m > best {
            best = m;
            best_chunk = k;
        }
    }
    let a = &left[best_chunk * CHUNK..];
    let b = &right[..right.len() - best_chunk * CHUNK];
    let at = a.iter().zip(b.iter().rev()).position(|(&x, &y)| x + y == best).unwrap_or(0);
    (best, (lo + best_chunk * CHUNK + at) as u32)
}

/// V(i, j) and its cut record from the cell's single piece and its row and column lines. Strictly
/// better candidates only replace the best: ties keep the piece, then the vertical cut (smallest x),
/// then the horizontal cut (smallest y).
#[inline]
fn decide<V: Value>(g: &Grid, i: usize, j: usize, row: &[V], col: &[V]) -> (V, u32) {
    let c = j * g.xs.len() + i;
    let kind = g.piece_kind[c];
    let (mut best, mut cut) = if kind != 0 {
        (V::from_u64(g.piece_value[c]), code::PIECE | kind)
    } else {
        (V::default(), code::WASTE)
    };
    let first_x = g.xs.get(1).copied().unwrap_or(0);
    let (v, x) = scan(row, first_x, g.xs[i]);
    if v > best {
        best = v;
        cut = code::VERTICAL | x;
    }
    let first_y = g.ys.get(1).copied().unwrap_or(0);
    let (v, y) = scan(col, first_y, g.ys[j]);
    if v > best {
        best = v;
        cut = code::HORIZONTAL | y;
    }
    (best, cut)
}

/// End (exclusive) of the integer positions that round down to normal position `k`.
fn span_end(positions: &[u32], k: usize, line_len: usize) -> usize {
    positions.get(k + 1).map_or(line_len, |&p| p as usize)
}

/// On one thread: tiles of `TILE`² cells in anti-diagonal order, each filled row by row. Tiles keep
/// the lines being scanned in cache (a plain row-by-row order streams every column line from memory
/// for every cell: 2.6× slower on gcut13).
pub fn solve_tables(g: &Grid) -> Tables {
    if g.value_bound * 2 <= i32::MAX as u128 { tiled::<i32>(g, false) } else { tiled::<u64>(g, false) }
}

/// Side of the square tiles of the parallel wavefront.
pub const TILE: usize = 64;

/// The tiled anti-diagonal wavefront on rayon's threads: tiles `(I, J)` with `I + J = s` depend only on
/// tiles of smaller `s`, so each tile anti-diagonal runs in parallel. A tile copies the prefixes of its
/// rows and columns (finished by earlier tiles) into buffers of its own, fills them, and hands back
/// its segments, which are written into the shared lines once the tile anti-diagonal is done.
/// Identical to [`solve_tables`].
pub fn solve_tables_rayon(g: &Grid) -> Tables {
    if g.value_bound * 2 <= i32::MAX as u128 { tiled::<i32>(g, true) } else { tiled::<u64>(g, true) }
}

/// What a tile computed.
struct TileOut<V> {
    i0: usize,
    j0: usize,
    /// Values and cut records, row-major within the tile.
    cells: Vec<(V, u32)>,
    /// Per tile row: the row line from the tile's first x to its end.
    row_segments: Vec<Vec<V>>,
    /// Per tile column: the column line from the tile's first y to its end.
    col_segments: Vec<Vec<V>>,
}

fn tiled<V: Value>(g: &Grid, parallel: bool) -> Tables {
    let (nx, ny) = (g.xs.len(), g.ys.len());
    let candidates = g.candidates();
    if nx < 2 || ny < 2 {
        // Only row or column 0 (zero width or height): nothing to compute.
        return Tables { value: vec![0; nx * ny], cut: vec![code::WASTE; nx * ny], candidates };
    }
    let (wl, hl) = (g.pidx.len(), g.qidx.len());
    let mut rows = vec![V::default(); ny * wl];
    let mut cols = vec![V::default(); nx * hl];
    let mut value = vec![0u64; nx * ny];
    let mut cut = vec![code::WASTE; nx * ny];
    let (ti, tj) = (nx.div_ceil(TILE), ny.div_ceil(TILE));
    for s in 0..(ti + tj).saturating_sub(1) {
        let lo = s.saturating_sub(tj - 1);
        let hi = s.min(ti - 1);
        let run = |bi: usize| {
            let bj = s - bi;
            let (i0, i1) = ((bi * TILE).max(1), ((bi + 1) * TILE).min(nx));
            let (j0, j1) = ((bj * TILE).max(1), ((bj + 1) * TILE).min(ny));
            tile(g, (&rows, &cols), (i0, i1), (j0, j1))
        };
        let outs: Vec<TileOut<V>> = if parallel {
            (lo..=hi).into_par_iter().map(run).collect()
        } else {
            (lo..=hi).map(run).collect()
        };
        for out in outs {
            let (ni, nj) = (out.col_segments.len(), out.row_segments.len());
            let x0 = g.xs[out.i0] as usize;
            let y0 = g.ys[out.j0] as usize;
            for (dj, seg) in out.row_segments.iter().enumerate() {
                let j = out.j0 + dj;
                rows[j * wl + x0..j * wl + x0 + seg.len()].copy_from_slice(seg);
            }
            for (di, seg) in out.col_segments.iter().enumerate() {
                let i = out.i0 + di;
                cols[i * hl + y0..i * hl + y0 + seg.len()].copy_from_slice(seg);
            }
            for dj in 0..nj {
                for di in 0..ni {
                    let (v, c) = out.cells[dj * ni + di];
                    let k = (out.j0 + dj) * nx + out.i0 + di;
                    value[k] = v.to_u64();
                    cut[k] = c;
                }
            }
        }
    }
    Tables { value, cut, candidates }
}

/// The tile's own copies of lines `which` of `shared` (each `stride` long), up to `end`: positions
/// before `start` as earlier tiles left them, the rest zero until the tile fills them.
fn own_lines<V: Value>(
    shared: &[V],
    stride: usize,
    which: std::ops::Range<usize>,
    start: usize,
    end: usize,
) -> Vec<Vec<V>> {
    which
        .map(|k| {
            let mut line = shared[k * stride..k * stride + end].to_vec();
            line[start..].fill(V::default());
            line
        })
        .collect()
}

/// One tile, cells `i0..i1` × `j0..j1`, against the shared lines as left by earlier tiles.
fn tile<V: Value>(
    g: &Grid,
    (rows, cols): (&[V], &[V]),
    (i0, i1): (usize, usize),
    (j0, j1): (usize, usize),
) -> TileOut<V> {
    let (wl, hl) = (g.pidx.len(), g.qidx.len());
    let (x0, x1) = (g.xs[i0] as usize, span_end(&g.xs, i1 - 1, wl));
    let (y0, y1) = (g.ys[j0] as usize, span_end(&g.ys, j1 - 1, hl));
    let mut my_rows = own_lines(rows, wl, j0..j1, x0, x1);
    let mut my_cols = own_lines(cols, hl, i0..i1, y0, y1);
    let mut cells = Vec::with_capacity((i1 - i0) * (j1 - j0));
    for j in j0..j1 {
        for i in i0..i1 {
            let (v, c) = decide(g, i, j, &my_rows[j - j0], &my_cols[i - i0]);
            cells.push((v, c));
            my_rows[j - j0][g.xs[i] as usize..span_end(&g.xs, i, wl).min(x1)].fill(v);
            my_cols[i - i0][g.ys[j] as usize..span_end(&g.ys, j, hl).min(y1)].fill(v);
        }
    }
    TileOut {
        i0,
        j0,
        cells,
        row_segments: my_rows.into_iter().map(|mut l| l.split_off(x0)).collect(),
        col_segments: my_cols.into_iter().map(|mut l| l.split_off(y0)).collect(),
    }
}
