//! Guillotine cutting: the most valuable pattern of pieces cut from a stock rectangle by edge-to-edge
//! cuts (unconstrained: any number of copies of each piece), and its picture.
//!
//! ```text
//! cargo run --release --example cutting                                  # the bundled small instance
//! cargo run --release --example cutting -- ../shared/data/cutting/gcut/gcut13.txt pattern.svg
//! ```
//! `urbanflow cut` is the full command (rotation, generated instances, the GPU, layouts, JSON).

use urbanflow::dp::guillotine::{Instance, Piece, check_pattern, pattern_svg, solve};
use urbanflow::dp::io::read_gcut;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let file = args
        .next()
        .unwrap_or(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data/gcut-example.txt").into());
    let svg = args.next();

    // An instance by hand: a 10 × 6 stock, a 4 × 3 piece worth 12 and a 6 × 6 piece worth 40.
    let small = Instance::new(10, 6, vec![Piece::new(4, 3, 12), Piece::new(6, 6, 40)]);
    let sol = solve(&small)?;
    println!("10 × 6 stock: value {} from {} pieces", sol.value, sol.placements.len());

    // An instance from a gcut file (the OR-Library format).
    let inst = read_gcut(&file)?.instance;
    let sol = solve(&inst)?;
    // Every pattern can be checked: pieces inside the stock, no overlaps, guillotine cuts, the value.
    check_pattern(&inst, &sol)?;
    let used: u64 = sol
        .placements
        .iter()
        .map(|p| inst.pieces[p.piece as usize].w as u64 * inst.pieces[p.piece as usize].h as u64)
        .sum();
    println!(
        "{file}: {} × {} stock, {} piece types: value {}, {} pieces cover {:.1} % of the stock",
        inst.width,
        inst.height,
        inst.pieces.len(),
        sol.value,
        sol.placements.len(),
        100.0 * used as f64 / (inst.width as u64 * inst.height as u64) as f64
    );
    for p in sol.placements.iter().take(5) {
        let piece = &inst.pieces[p.piece as usize];
        println!(
            "  piece {} ({} × {}) at ({}, {}){}",
            p.piece + 1,
            piece.w,
            piece.h,
            p.x,
            p.y,
            if p.rotated { " rotated" } else { "" }
        );
    }
    if let Some(svg) = svg {
        std::fs::write(&svg, pattern_svg(&inst, &sol))?;
        println!("pattern drawn in {svg}");
    }
    Ok(())
}
