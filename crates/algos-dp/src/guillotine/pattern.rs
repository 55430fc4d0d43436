//! Rebuilding the cutting pattern from the cut records, and checking any pattern independently.

use super::dp::{Tables, code};
use super::normal::Grid;
use super::{Cut, CutNode, DpStats, Instance, Placement, Solution};
use crate::DpError;

/// The optimal pattern from filled tables (of any backend): the cut tree from the root cell down,
/// pieces at the bottom-left of their rectangles.
pub fn solution_from(g: &Grid, t: &Tables) -> Solution {
    let (nx, ny) = (g.xs.len(), g.ys.len());
    solution_from_cuts(g, &t.cut, t.value[(ny - 1) * nx + (nx - 1)], t.candidates)
}

/// [`solution_from`] given only the cut records and the root's value (what the GPU path reads back).
pub(crate) fn solution_from_cuts(g: &Grid, cut: &[u32], value: u64, candidates: u64) -> Solution {
    let (nx, ny) = (g.xs.len(), g.ys.len());
    let root = ((nx - 1) as u32, (ny - 1) as u32);
    let mut tree: Vec<CutNode> = Vec::new();
    let mut placements = Vec::new();
    // (cell i, cell j, x, y, index of the node to fill)
    let mut stack = vec![(root.0, root.1, 0u32, 0u32, 0usize)];
    tree.push(CutNode { x: 0, y: 0, w: g.xs[nx - 1], h: g.ys[ny - 1], cut: Cut::Waste, children: None });
    while let Some((i, j, x, y, node)) = stack.pop() {
        let (w, h) = (g.xs[i as usize], g.ys[j as usize]);
        let rec = cut[j as usize * nx + i as usize];
        let payload = rec & !code::TAG;
        let parts = match rec & code::TAG {
            code::PIECE => {
                let k = g.kinds[payload as usize - 1];
                tree[node].cut = Cut::Piece { piece: k.piece, rotated: k.rotated };
                placements.push(Placement { piece: k.piece, x, y, rotated: k.rotated });
                None
            }
            code::VERTICAL => {
                tree[node].cut = Cut::Vertical(payload);
                let left = (g.pidx[payload as usize], j, x, y, payload, h);
                let right = (g.pidx[(w - payload) as usize], j, x + payload, y, w - payload, h);
                Some([left, right])
            }
            code::HORIZONTAL => {
                tree[node].cut = Cut::Horizontal(payload);
                let bottom = (i, g.qidx[payload as usize], x, y, w, payload);
                let top = (i, g.qidx[(h - payload) as usize], x, y + payload, w, h - payload);
                Some([bottom, top])
            }
            _ => None,
        };
        if let Some(parts) = parts {
            let first = tree.len() as u32;
            tree[node].children = Some((first, first + 1));
            for (k, &(ci, cj, px, py, pw, ph)) in parts.iter().enumerate() {
                tree.push(CutNode { x: px, y: py, w: pw, h: ph, cut: Cut::Waste, children: None });
                stack.push((ci, cj, px, py, first as usize + k));
            }
        }
    }
    let stats = DpStats { xs: nx, ys: ny, candidates };
    Solution { value, placements, cut_tree: tree, stats }
}

/// Why a pattern is not a valid guillotine pattern of its instance (carried by
/// [`DpError::NotAPattern`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PatternIssue {
    /// A placement names a piece the instance does not have, or is rotated without rotation allowed.
    #[error("placement {index} uses piece {piece}{}", if *.rotated { " rotated, which the instance does not allow" } else { ", which does not exist" })]
    BadPiece {
        /// Index into the placements.
        index: usize,
        /// The piece named.
        piece: u32,
        /// Whether it was rotated.
        rotated: bool,
    },
    /// A piece reaches outside the stock.
    #[error("placement {index} ({w} × {h} at {x}, {y}) reaches outside the stock")]
    Outside {
        /// Index into the placements.
        index: usize,
        /// Left edge.
        x: u32,
        /// Bottom edge.
        y: u32,
        /// Width as placed.
        w: u32,
        /// Height as placed.
        h: u32,
    },
    /// Two pieces overlap.
    #[error("placements {a} and {b} overlap")]
    Overlap {
        /// One.
        a: usize,
        /// The other.
        b: usize,
    },
    /// Some rectangle of the pattern holds pieces no edge-to-edge cut separates.
    #[error(
        "not a guillotine pattern: no edge-to-edge cut separates the {pieces} pieces in {w} × {h} at {x}, {y}"
    )]
    NotGuillotine {
        /// Left edge of the rectangle.
        x: u32,
        /// Bottom edge.
        y: u32,
        /// Width.
        w: u32,
        /// Height.
        h: u32,
        /// Pieces inside.
        pieces: usize,
    },
    /// The stated value is not the sum of the pieces' values.
    #[error("the solution states value {stated} but its pieces add up to {actual}")]
    WrongValue {
        /// Value stated.
        stated: u64,
        /// Sum of the placements.
        actual: u64,
    },
}

/// A placed rectangle: (x, y, w, h).
type Rect = (u32, u32, u32, u32);

/// Checks a solution against its instance without trusting its cut tree: every piece exists (rotated
/// only when allowed) and lies inside the stock, no two overlap, the pieces can be separated by
/// recursive edge-to-edge cuts, and the value adds up.
pub fn check_pattern(inst: &Instance, sol: &Solution) -> Result<(), DpError> {
    let mut rects: Vec<Rect> = Vec::with_capacity(sol.placements.len());
    let mut total = 0u64;
    for (index, p) in sol.placements.iter().enumerate() {
        let Some(piece) = inst.pieces.get(p.piece as usize).filter(|_| !p.rotated || inst.rotation) else {
            return Err(DpError::NotAPattern(PatternIssue::BadPiece {
                index,
                piece: p.piece,
                rotated: p.rotated,
            }));
        };
        let (w, h) = if p.rotated { (piece.h, piece.w) } else { (piece.w, piece.h) };
        if p.x as u64 + w as u64 > inst.width as u64 || p.y as u64 + h as u64 > inst.height as u64 {
            return Err(DpError::NotAPattern(PatternIssue::Outside { index, x: p.x, y: p.y, w, h }));
        }
        total = total.saturating_add(piece.value);
        rects.push((p.x, p.y, w, h));
    }
    // Overlap: sweep in x order, comparing only with rectangles still open.
    let mut order: Vec<usize> = (0..rects.len()).collect();
    order.sort_by_key(|&k| rects[k].0);
    let mut open: Vec<usize> = Vec::new();
    for &k in &order {
        let (x, y, _, h) = rects[k];
        open.retain(|&o| rects[o].0 + rects[o].2 > x);
        if let Some(&o) = open.iter().find(|&&o| rects[o].1 < y + h && y < rects[o].1 + rects[o].3) {
            return Err(DpError::NotAPattern(PatternIssue::Overlap { a: o.min(k), b: o.max(k) }));
        }
        open.push(k);
    }
    guillotine((0, 0, inst.width, inst.height), &mut order, &rects)?;
    if total != sol.value {
        return Err(DpError::NotAPattern(PatternIssue::WrongValue { stated: sol.value, actual: total }));
    }
    Ok(())
}

/// Whether the pieces `ids` (inside `area`) can be separated by recursive guillotine cuts: find a
/// position along x (then y) that no piece straddles and that has pieces on both sides, split, recurse.
fn guillotine(area: Rect, ids: &mut [usize], rects: &[Rect]) -> Result<(), DpError> {
    let mut work = vec![(area, ids.to_vec())];
    while let Some(((ax, ay, aw, ah), ids)) = work.pop() {
        if ids.len() <= 1 {
            continue;
        }
        let mut split = None;
        for vertical in [true, false] {
            let span = |k: usize| {
                let (x, y, w, h) = rects[k];
                if vertical { (x, x + w) } else { (y, y + h) }
            };
            let mut spans: Vec<(u32, u32)> = ids.iter().map(|&k| span(k)).collect();
            spans.sort_unstable();
            // A cut at c separates when every piece ends at or before c or starts at or after it.
            let mut reach = spans[0].1;
            for s in &spans[1..] {
                if s.0 >= reach {
                    split = Some((vertical, reach));
                    break;
                }
                reach = reach.max(s.1);
            }
            if split.is_some() {
                break;
            }
        }
        let Some((vertical, c)) = split else {
            return Err(DpError::NotAPattern(PatternIssue::NotGuillotine {
                x: ax,
                y: ay,
                w: aw,
                h: ah,
                pieces: ids.len(),
            }));
        };
        let (low, high): (Vec<usize>, Vec<usize>) = ids.iter().partition(|&&k| {
            let (x, y, _, _) = rects[k];
            if vertical { x < c } else { y < c }
        });
        if vertical {
            work.push(((ax, ay, c - ax, ah), low));
            work.push(((c, ay, ax + aw - c, ah), high));
        } else {
            work.push(((ax, ay, aw, c - ay), low));
            work.push(((ax, c, aw, ay + ah - c), high));
        }
    }
    Ok(())
}
