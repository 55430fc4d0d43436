//! CPU twins on rayon: fixed chunks reduced in parallel and combined in index order, so results do
//! not depend on the thread count.

use rayon::prelude::*;

use crate::element::Element;
use crate::monoid::Monoid;
use crate::predicate::Predicate;

/// Elements per rayon task.
pub const CHUNK: usize = 1 << 14;

/// Reduces with a monoid: chunks in parallel, chunk results folded in order.
pub(crate) fn reduce<E: Element, M: Monoid<E>>(m: &M, xs: &[E]) -> M::V {
    let partial: Vec<M::V> = xs
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(c, chunk)| {
            let base = (c * CHUNK) as u32;
            chunk
                .iter()
                .enumerate()
                .fold(m.identity(), |acc, (k, &x)| m.combine(acc, m.lift(x, base + k as u32)))
        })
        .collect();
    partial.into_iter().fold(m.identity(), |a, b| m.combine(a, b))
}

/// Pairwise (cascade) summation of a slice: error O(log n · ε · Σ|x|).
fn pairwise<E: Element>(xs: &[E]) -> E {
    if xs.len() <= 32 {
        return xs.iter().fold(E::from_bits(0), |a, &b| a.add(b));
    }
    let (l, r) = xs.split_at(xs.len() / 2);
    pairwise(l).add(pairwise(r))
}

/// Sum: pairwise inside fixed chunks, chunk sums folded in order (exact and order-free for integers).
pub fn sum<E: Element>(xs: &[E]) -> E {
    let partial: Vec<E> = xs.par_chunks(CHUNK).map(pairwise).collect();
    partial.into_iter().fold(E::from_bits(0), |a, b| a.add(b))
}

/// Prefix sums: chunk totals in parallel, an in-order scan of the totals, then each chunk in parallel.
pub fn scan<E: Element>(xs: &[E], inclusive: bool) -> Vec<E> {
    let totals: Vec<E> =
        xs.par_chunks(CHUNK).map(|c| c.iter().fold(E::from_bits(0), |a, &b| a.add(b))).collect();
    let mut offsets = Vec::with_capacity(totals.len());
    let mut run = E::from_bits(0);
    for t in totals {
        offsets.push(run);
        run = run.add(t);
    }
    let mut out = vec![E::from_bits(0); xs.len()];
    out.par_chunks_mut(CHUNK).zip(xs.par_chunks(CHUNK)).zip(offsets).for_each(|((o, x), off)| {
        let mut run = off;
        for (slot, &v) in o.iter_mut().zip(x) {
            if inclusive {
                run = run.add(v);
                *slot = run;
            } else {
                *slot = run;
                run = run.add(v);
            }
        }
    });
    out
}

/// Indices where `pred` holds, in order.
pub fn compact_indices<E: Element>(xs: &[E], pred: Predicate<E>) -> Vec<u32> {
    let parts: Vec<Vec<u32>> = xs
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(c, chunk)| {
            let base = (c * CHUNK) as u32;
            chunk.iter().enumerate().filter(|(_, x)| pred.test(**x)).map(|(k, _)| base + k as u32).collect()
        })
        .collect();
    parts.concat()
}
