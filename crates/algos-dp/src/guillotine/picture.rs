//! Pictures of cutting patterns.

use std::fmt::Write as _;

use super::{Cut, Instance, Solution};

/// The pattern as an SVG picture, 800 px on its longer side: the stock in grey (waste), pieces coloured
/// by type and labelled with their 1-based type (`r` when rotated; each has a tooltip with its size and
/// position), the guillotine cuts as lines; the stock's origin is bottom-left.
///
/// ```
/// use urbanflow::dp::guillotine::{Instance, Piece, pattern_svg, solve};
/// let inst = Instance::new(10, 6, vec![Piece::new(4, 3, 12)]);
/// let sol = solve(&inst).unwrap();
/// let svg = pattern_svg(&inst, &sol);
/// assert!(svg.starts_with("<svg"));
/// assert_eq!(svg.matches("<title>piece 1").count(), sol.placements.len());
/// ```
pub fn pattern_svg(inst: &Instance, sol: &Solution) -> String {
    let scale = 800.0 / inst.width.max(inst.height) as f64;
    let (w, h) = (inst.width as f64 * scale, inst.height as f64 * scale);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0}\" height=\"{:.0}\" viewBox=\"-10 -30 {:.0} {:.0}\" font-family=\"sans-serif\">",
        w + 20.0,
        h + 40.0,
        w + 20.0,
        h + 40.0
    );
    let _ = writeln!(
        out,
        "<text x=\"0\" y=\"-12\" font-size=\"14\">{} × {} stock, value {} ({} pieces; grey: waste, r: rotated)</text>",
        inst.width,
        inst.height,
        sol.value,
        sol.placements.len()
    );
    let _ = writeln!(
        out,
        "<rect x=\"0\" y=\"0\" width=\"{w:.2}\" height=\"{h:.2}\" fill=\"#d0d0d0\" stroke=\"black\"/>"
    );
    for p in &sol.placements {
        let piece = inst.pieces[p.piece as usize];
        let (pw, ph) = if p.rotated { (piece.h, piece.w) } else { (piece.w, piece.h) };
        let hue = (p.piece as f64 * 137.508) % 360.0;
        // y grows downwards in SVG: flip so the stock's origin is bottom-left.
        let (x, y) = (p.x as f64 * scale, h - (p.y + ph) as f64 * scale);
        let (rw, rh) = (pw as f64 * scale, ph as f64 * scale);
        let _ = writeln!(
            out,
            "<rect x=\"{x:.2}\" y=\"{y:.2}\" width=\"{rw:.2}\" height=\"{rh:.2}\" fill=\"hsl({hue:.0},60%,70%)\" stroke=\"#333\" stroke-width=\"0.5\"><title>piece {} ({pw} × {ph}{}) at {}, {}</title></rect>",
            p.piece + 1,
            if p.rotated { ", rotated" } else { "" },
            p.x,
            p.y
        );
        if rw > 24.0 && rh > 12.0 {
            let _ = writeln!(
                out,
                "<text x=\"{:.2}\" y=\"{:.2}\" font-size=\"{:.0}\" text-anchor=\"middle\" dominant-baseline=\"middle\">{}{}</text>",
                x + rw / 2.0,
                y + rh / 2.0,
                (rh / 3.0).clamp(6.0, 14.0),
                p.piece + 1,
                if p.rotated { "r" } else { "" }
            );
        }
    }
    for node in &sol.cut_tree {
        let line = match node.cut {
            Cut::Vertical(c) => {
                Some(((node.x + c) as f64, node.y as f64, (node.x + c) as f64, (node.y + node.h) as f64))
            }
            Cut::Horizontal(c) => {
                Some((node.x as f64, (node.y + c) as f64, (node.x + node.w) as f64, (node.y + c) as f64))
            }
            _ => None,
        };
        if let Some((x1, y1, x2, y2)) = line {
            let _ = writeln!(
                out,
                "<line x1=\"{:.2}\" y1=\"{:.2}\" x2=\"{:.2}\" y2=\"{:.2}\" stroke=\"black\" stroke-width=\"1.2\"/>",
                x1 * scale,
                h - y1 * scale,
                x2 * scale,
                h - y2 * scale
            );
        }
    }
    out.push_str("</svg>\n");
    out
}
