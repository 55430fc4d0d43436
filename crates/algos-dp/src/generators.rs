//! Seeded cutting instances.
//!
//! - [`randcut`]: a random guillotine partition of the stock; its pieces are the types and a piece's
//!   value is its area, so the optimum is exactly the stock's area (the partition achieves it, nothing
//!   exceeds it) — an oracle at any size.
//! - [`testcut`]: the benchmark family of Boschetti, Maniezzo & Strappaveccia: a square stock, a quarter
//!   of the types with sides in `[1, W/4)`, half in `[W/4, W/2)`, a quarter in `[W/2, 3W/4)`, value =
//!   area. Its optimum is unknown in advance.

use graph_core::rng::SplitMix64;

use crate::guillotine::{Instance, Piece};

/// A random guillotine partition of `width × height` into at least `types` rectangles (fewer types when
/// sizes repeat), value = area; optimum `width × height`.
///
/// ```
/// use urbanflow::dp::{generators::randcut, guillotine::solve};
/// let inst = randcut(60, 40, 12, 7);
/// assert_eq!(solve(&inst).unwrap().value, 60 * 40);
/// ```
pub fn randcut(width: u32, height: u32, types: usize, seed: u64) -> Instance {
    let mut rng = SplitMix64::new(seed);
    let mut parts = vec![(width, height)];
    // Split the largest splittable rectangle until there are enough parts.
    while parts.len() < types.max(1) {
        let Some(k) = (0..parts.len()).filter(|&k| parts[k].0 > 1 || parts[k].1 > 1).max_by_key(|&k| {
            let (w, h) = parts[k];
            (w as u64 * h as u64, std::cmp::Reverse(k))
        }) else {
            break;
        };
        let (w, h) = parts.swap_remove(k);
        // Cut across the longer side, anywhere but the very edges.
        if w >= h {
            let c = 1 + rng.below(w as u64 - 1) as u32;
            parts.extend([(c, h), (w - c, h)]);
        } else {
            let c = 1 + rng.below(h as u64 - 1) as u32;
            parts.extend([(w, c), (w, h - c)]);
        }
    }
    parts.sort_unstable();
    parts.dedup();
    let pieces = parts.into_iter().map(|(w, h)| Piece::new(w, h, w as u64 * h as u64)).collect();
    Instance::new(width, height, pieces)
}

/// The testcut family: a `side × side` stock and `types` piece types drawn as described above.
pub fn testcut(side: u32, types: usize, seed: u64) -> Instance {
    let mut rng = SplitMix64::new(seed);
    let s = side.max(4) as u64;
    let draw = |rng: &mut SplitMix64, lo: u64, hi: u64| (lo + rng.below(hi.saturating_sub(lo).max(1))) as u32;
    let mut pieces = Vec::with_capacity(types);
    for k in 0..types {
        let band = match (k * 4) / types.max(1) {
            0 => (1, s / 4),
            1 | 2 => (s / 4, s / 2),
            _ => (s / 2, 3 * s / 4),
        };
        let w = draw(&mut rng, band.0.max(1), band.1).max(1);
        let h = draw(&mut rng, band.0.max(1), band.1).max(1);
        pieces.push(Piece::new(w, h, w as u64 * h as u64));
    }
    Instance::new(side, side, pieces)
}
