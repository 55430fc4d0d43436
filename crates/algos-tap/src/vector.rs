//! Arithmetic on per-link vectors (flows, costs, directions), on all cores in fixed blocks of links:
//! every sum adds the blocks' partial sums in block order, so it is the same on any number of threads.

use std::ops::Range;

use rayon::prelude::*;

/// Links per block of the parallel passes (fixed: the sums must not depend on the thread count). A city
/// of 40,000 links is ten blocks: enough to spread, few enough that waking threads stays cheap.
pub(crate) const LINK_BLOCK: usize = 4096;

/// `K` sums over links `0..m`: `part(range)` sums one block, and the blocks' sums are added in block
/// order (one block's sums alone for `m ≤ LINK_BLOCK`, without touching the thread pool).
pub(crate) fn block_sums<const K: usize>(
    m: usize,
    part: impl Fn(Range<usize>) -> [f64; K] + Sync,
) -> [f64; K] {
    let block = |b: usize| part(b * LINK_BLOCK..((b + 1) * LINK_BLOCK).min(m));
    let blocks = m.div_ceil(LINK_BLOCK);
    let parts: Vec<[f64; K]> = if blocks > 1 {
        (0..blocks).into_par_iter().map(block).collect()
    } else {
        (0..blocks).map(block).collect()
    };
    parts.into_iter().fold([0.0; K], |mut total, p| {
        total.iter_mut().zip(p).for_each(|(t, v)| *t += v);
        total
    })
}

/// The dot product of two link vectors (`Σ a[i]·b[i]` over the shorter length): total travel time
/// `cost · flow`, directional derivatives.
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let m = a.len().min(b.len());
    block_sums(m, |r| [a[r.clone()].iter().zip(&b[r]).map(|(x, y)| x * y).sum()])[0]
}

/// `out[i] = f(i)` for every link, in parallel blocks.
pub(crate) fn fill(out: &mut [f64], f: impl Fn(usize) -> f64 + Sync) {
    if out.len() <= LINK_BLOCK {
        out.iter_mut().enumerate().for_each(|(i, o)| *o = f(i));
        return;
    }
    out.par_chunks_mut(LINK_BLOCK).enumerate().for_each(|(b, chunk)| {
        for (i, o) in chunk.iter_mut().enumerate() {
            *o = f(b * LINK_BLOCK + i);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_sums_are_the_same_on_any_thread_count() {
        let m = 3 * LINK_BLOCK + 17;
        let a: Vec<f64> = (0..m).map(|i| ((i * 7919) % 1000) as f64 / 7.0 + 1e-3).collect();
        let b: Vec<f64> = (0..m).map(|i| ((i * 104_729) % 997) as f64 * 1e5).collect();
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| dot(&a, &b)).to_bits()
        };
        assert_eq!(on(1), on(3));
        assert_eq!(on(1), on(8));
        // Blocks added in order: the same bits as the serial sum of the serial block sums.
        let serial = (0..m.div_ceil(LINK_BLOCK)).fold(0.0, |t, k| {
            let r = k * LINK_BLOCK..((k + 1) * LINK_BLOCK).min(m);
            t + a[r.clone()].iter().zip(&b[r]).map(|(x, y)| x * y).sum::<f64>()
        });
        assert_eq!(on(4), serial.to_bits());
        let mut out = vec![0.0; m];
        fill(&mut out, |i| a[i] * 2.0);
        assert!(out.iter().zip(&a).all(|(o, x)| *o == x * 2.0));
    }
}
