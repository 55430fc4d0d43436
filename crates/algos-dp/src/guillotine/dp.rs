//! The DP itself: one cell's rule ([`cell`]) shared by the serial order and the tiled wavefront.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

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
    /// Candidate cuts evaluated.
    pub candidates: u64,
}

/// V(i, j) and its cut from the single-piece table and the values already known: `row(i')` reads
/// V(i', j), `col(j')` reads V(i, j'). Strictly better candidates only replace the best, so ties keep
/// the piece, then the smallest vertical cut, then the smallest horizontal cut.
#[inline]
fn cell(
    g: &Grid,
    i: usize,
    j: usize,
    row: impl Fn(usize) -> u64,
    col: impl Fn(usize) -> u64,
) -> (u64, u32, u64) {
    let nx = g.xs.len();
    let c = j * nx + i;
    let kind = g.piece_kind[c];
    let (mut best, mut cut) =
        if kind != 0 { (g.piece_value[c], code::PIECE | kind) } else { (0, code::WASTE) };
    let xi = g.xs[i];
    let mut candidates = 0u64;
    for &x in &g.xs[1..i] {
        if 2 * x > xi {
            break;
        }
        candidates += 1;
        let v = row(g.pidx[x as usize] as usize) + row(g.pidx[(xi - x) as usize] as usize);
        if v > best {
            best = v;
            cut = code::VERTICAL | x;
        }
    }
    let yj = g.ys[j];
    for &y in &g.ys[1..j] {
        if 2 * y > yj {
            break;
        }
        candidates += 1;
        let v = col(g.qidx[y as usize] as usize) + col(g.qidx[(yj - y) as usize] as usize);
        if v > best {
            best = v;
            cut = code::HORIZONTAL | y;
        }
    }
    (best, cut, candidates)
}

/// The serial reference: rows bottom to top, cells left to right (every dependency is earlier). V is
/// kept twice, row-major for vertical cuts and column-major for horizontal ones, so both scans are
/// contiguous.
pub fn solve_tables(g: &Grid) -> Tables {
    let (nx, ny) = (g.xs.len(), g.ys.len());
    let mut rows = vec![0u64; nx * ny];
    let mut cols = vec![0u64; nx * ny];
    let mut cut = vec![code::WASTE; nx * ny];
    let mut candidates = 0u64;
    for j in 1..ny {
        for i in 1..nx {
            let (v, c, n) = cell(g, i, j, |i2| rows[j * nx + i2], |j2| cols[i * ny + j2]);
            rows[j * nx + i] = v;
            cols[i * ny + j] = v;
            cut[j * nx + i] = c;
            candidates += n;
        }
    }
    Tables { value: rows, cut, candidates }
}

/// Side of the square tiles of the parallel wavefront.
pub const TILE: usize = 64;

/// The tiled anti-diagonal wavefront on rayon's threads: tiles `(I, J)` with `I + J = s` depend only on
/// tiles of smaller `s`, so each tile anti-diagonal runs in parallel, each tile in serial order.
/// Identical to [`solve_tables`] (the tables are written through relaxed atomics, which compile to
/// plain loads and stores; the barrier between tile anti-diagonals orders them).
pub fn solve_tables_rayon(g: &Grid) -> Tables {
    let (nx, ny) = (g.xs.len(), g.ys.len());
    let rows: Vec<AtomicU64> = (0..nx * ny).map(|_| AtomicU64::new(0)).collect();
    let cols: Vec<AtomicU64> = (0..nx * ny).map(|_| AtomicU64::new(0)).collect();
    let cut: Vec<AtomicU32> = (0..nx * ny).map(|_| AtomicU32::new(code::WASTE)).collect();
    let (ti, tj) = (nx.div_ceil(TILE), ny.div_ceil(TILE));
    let mut candidates = 0u64;
    for s in 0..(ti + tj).saturating_sub(1) {
        let lo = s.saturating_sub(tj - 1);
        let hi = s.min(ti - 1);
        candidates += (lo..=hi)
            .into_par_iter()
            .map(|bi| {
                let bj = s - bi;
                let mut n = 0u64;
                for j in (bj * TILE).max(1)..((bj + 1) * TILE).min(ny) {
                    for i in (bi * TILE).max(1)..((bi + 1) * TILE).min(nx) {
                        let (v, c, k) = cell(
                            g,
                            i,
                            j,
                            |i2| rows[j * nx + i2].load(Ordering::Relaxed),
                            |j2| cols[i * ny + j2].load(Ordering::Relaxed),
                        );
                        rows[j * nx + i].store(v, Ordering::Relaxed);
                        cols[i * ny + j].store(v, Ordering::Relaxed);
                        cut[j * nx + i].store(c, Ordering::Relaxed);
                        n += k;
                    }
                }
                n
            })
            .sum::<u64>();
    }
    Tables {
        value: rows.into_iter().map(AtomicU64::into_inner).collect(),
        cut: cut.into_iter().map(AtomicU32::into_inner).collect(),
        candidates,
    }
}
