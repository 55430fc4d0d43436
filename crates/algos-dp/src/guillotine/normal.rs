//! Normal patterns and the single-piece table: everything the DP reads besides its own values.

use super::{DpError, Instance, MAX_CPU_TABLE_BYTES, MAX_SIDE};

/// A piece type as the DP sees it (rotated copies are types of their own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Kind {
    pub w: u32,
    pub h: u32,
    pub value: u64,
    /// Index into the instance's pieces.
    pub piece: u32,
    pub rotated: bool,
}

/// The DP's grid: normal positions, the rounding tables and the best single piece of every cell.
#[derive(Debug, Clone)]
pub struct Grid {
    /// Normal positions along the width, ascending, starting at 0.
    pub xs: Vec<u32>,
    /// Normal positions along the height, ascending, starting at 0.
    pub ys: Vec<u32>,
    /// `pidx[x]` = index in `xs` of the largest normal position ≤ x, for `0 ≤ x ≤ W`.
    pub pidx: Vec<u32>,
    /// `qidx[y]` likewise for the height.
    pub qidx: Vec<u32>,
    /// Best single-piece value of cell `(i, j)` at `j * xs.len() + i`.
    pub piece_value: Vec<u64>,
    /// Its kind (index into the kinds, + 1), 0 when nothing fits.
    pub piece_kind: Vec<u32>,
    pub(crate) kinds: Vec<Kind>,
    /// An upper bound on any value in the table (the densest piece's value per unit area × W × H).
    pub value_bound: u128,
}

impl Grid {
    /// Builds the grid of `inst`; pieces larger than the stock are kept but never fit.
    pub fn new(inst: &Instance) -> Result<Self, DpError> {
        let (w, h) = (inst.width, inst.height);
        if w == 0 || h == 0 {
            return Err(DpError::ZeroSize { what: "the stock".into(), w, h });
        }
        if w > MAX_SIDE || h > MAX_SIDE {
            return Err(DpError::SideTooLarge { side: w.max(h), max: MAX_SIDE });
        }
        // The per-coordinate arrays (reachability, rounding) come first: refuse before allocating them.
        let per_coordinate = (w as u64 + h as u64 + 2) * 5;
        if per_coordinate > MAX_CPU_TABLE_BYTES {
            return Err(DpError::TableTooLarge { bytes: per_coordinate, limit: MAX_CPU_TABLE_BYTES });
        }
        let mut kinds = Vec::new();
        for (k, p) in inst.pieces.iter().enumerate() {
            if p.w == 0 || p.h == 0 {
                return Err(DpError::ZeroSize { what: format!("piece {k}"), w: p.w, h: p.h });
            }
            kinds.push(Kind { w: p.w, h: p.h, value: p.value, piece: k as u32, rotated: false });
            if inst.rotation && p.w != p.h {
                kinds.push(Kind { w: p.h, h: p.w, value: p.value, piece: k as u32, rotated: true });
            }
        }
        // Bound: no pattern beats the densest piece's value per unit area over the whole stock.
        let density = kinds
            .iter()
            .filter(|k| k.w <= w && k.h <= h)
            .map(|k| (k.value as u128).div_ceil(k.w as u128 * k.h as u128))
            .max()
            .unwrap_or(0);
        let value_bound = density * w as u128 * h as u128;
        // Two values are added per candidate: keep twice the bound inside u64.
        let limit = (u64::MAX / 2) as u128;
        if value_bound > limit {
            return Err(DpError::ValueOverflow { bound: value_bound, limit });
        }
        let xs = normal_positions(kinds.iter().filter(|k| k.h <= h).map(|k| k.w), w);
        let ys = normal_positions(kinds.iter().filter(|k| k.w <= w).map(|k| k.h), h);
        // Values, cut records and the piece table (20 bytes a cell), and the gap-filled lines of the CPU
        // solvers (a value at every integer width of each row and height of each column, ≤ 8 bytes).
        let (nx, ny) = (xs.len() as u64, ys.len() as u64);
        let bytes = nx * ny * 20 + ((w as u64 + 1) * ny + (h as u64 + 1) * nx) * 8;
        if bytes > MAX_CPU_TABLE_BYTES {
            return Err(DpError::TableTooLarge { bytes, limit: MAX_CPU_TABLE_BYTES });
        }
        let pidx = rounding(&xs, w);
        let qidx = rounding(&ys, h);
        let (nx, ny) = (xs.len(), ys.len());
        let mut piece_value = vec![0u64; nx * ny];
        let mut piece_kind = vec![0u32; nx * ny];
        for (k, kind) in kinds.iter().enumerate() {
            if kind.w > w || kind.h > h || kind.value == 0 {
                continue;
            }
            let cell = qidx[kind.h as usize] as usize * nx + pidx[kind.w as usize] as usize;
            if better(kind.value, k as u32 + 1, piece_value[cell], piece_kind[cell]) {
                piece_value[cell] = kind.value;
                piece_kind[cell] = k as u32 + 1;
            }
        }
        // 2-D prefix maximum: a piece that fits (i, j) fits every larger cell. Ties: smallest kind.
        for j in 0..ny {
            for i in 0..nx {
                let c = j * nx + i;
                for from in [(i > 0).then(|| c - 1), (j > 0).then(|| c - nx)].into_iter().flatten() {
                    if better(piece_value[from], piece_kind[from], piece_value[c], piece_kind[c]) {
                        piece_value[c] = piece_value[from];
                        piece_kind[c] = piece_kind[from];
                    }
                }
            }
        }
        Ok(Self { xs, ys, pidx, qidx, piece_value, piece_kind, kinds, value_bound })
    }

    /// Cells of the table.
    pub fn cells(&self) -> usize {
        self.xs.len() * self.ys.len()
    }

    /// Candidate cuts of the recurrence over normal positions, counted without running it: cell (i, j)
    /// tries the x positions up to half of `xs[i]` and the y positions up to half of `ys[j]`. The work
    /// measure reported by every backend.
    pub fn candidates(&self) -> u64 {
        let halves = |ps: &[u32]| -> u64 {
            // For each position, the number of earlier positions (from index 1) at most half of it.
            let mut k = 1usize;
            let mut total = 0u64;
            for &p in ps.iter().skip(1) {
                while k < ps.len() && 2 * ps[k] <= p {
                    k += 1;
                }
                total += (k - 1) as u64;
            }
            total
        };
        let (nx, ny) = (self.xs.len() as u64, self.ys.len() as u64);
        halves(&self.xs) * (ny - 1) + halves(&self.ys) * (nx - 1)
    }
}

/// Larger value first, then the smaller kind index (kind 0 = none loses to any piece).
fn better(v: u64, k: u32, cur_v: u64, cur_k: u32) -> bool {
    k != 0 && (cur_k == 0 || v > cur_v || (v == cur_v && k < cur_k))
}

/// Every sum of the given sizes that is at most `limit` (unbounded subset sums), ascending, from 0.
fn normal_positions(sizes: impl Iterator<Item = u32>, limit: u32) -> Vec<u32> {
    let mut reach = vec![false; limit as usize + 1];
    reach[0] = true;
    let mut sizes: Vec<u32> = sizes.filter(|&s| s <= limit).collect();
    sizes.sort_unstable();
    sizes.dedup();
    for s in sizes {
        let s = s as usize;
        for x in s..=limit as usize {
            if reach[x - s] {
                reach[x] = true;
            }
        }
    }
    reach.iter().enumerate().filter(|(_, r)| **r).map(|(x, _)| x as u32).collect()
}

/// `out[x]` = index of the largest position ≤ x.
fn rounding(positions: &[u32], limit: u32) -> Vec<u32> {
    let mut out = vec![0u32; limit as usize + 1];
    let mut k = 0usize;
    for (x, slot) in out.iter_mut().enumerate() {
        while k + 1 < positions.len() && positions[k + 1] as usize <= x {
            k += 1;
        }
        *slot = k as u32;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_positions_are_the_subset_sums() {
        assert_eq!(normal_positions([3, 5].into_iter(), 11), vec![0, 3, 5, 6, 8, 9, 10, 11]);
        assert_eq!(rounding(&[0, 3, 5], 6), vec![0, 0, 0, 1, 1, 2, 2]);
    }
}
