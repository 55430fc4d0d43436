//! CPU mirror of the GPU reduction: the same launch walked sequentially with the same loops, indices
//! and combine order as `shaders/reduce.wgsl` (workgroup-tree variant), so f32 results can be compared
//! bit for bit. Used by the tests; also documents exactly what the kernels compute.
#![allow(clippy::needless_range_loop)] // index loops kept identical to the WGSL

use crate::config::Launch;
use crate::element::Element;
use crate::monoid::Monoid;

/// `shaders/lib/wgred_tree.wgsl`: halving tree with `live`/`hw`.
fn wg_tree<V: Copy>(mut sh: Vec<V>, combine: impl Fn(V, V) -> V) -> V {
    let mut live = sh.len();
    while live > 1 {
        let hw = live.div_ceil(2);
        for lid in 0..live - hw {
            sh[lid] = combine(sh[lid], sh[lid + hw]);
        }
        live = hw;
    }
    sh[0]
}

/// Stage 1 of one workgroup `g`: `accumulate_scalar` / `accumulate_vec4` for each invocation.
fn stage1<E: Element, M: Monoid<E>>(m: &M, xs: &[E], l: &Launch, g: u32) -> M::V {
    let (wg, f, groups) = (l.wg as usize, l.f as usize, l.groups as usize);
    let n = xs.len();
    let lift = |i: usize| m.lift(xs[i], i as u32);
    let accs: Vec<M::V> = (0..wg)
        .map(|lid| {
            let mut acc = m.identity();
            if l.vec4 {
                let n4 = n / 4;
                let mut base = g as usize * wg * f;
                while base < n4 {
                    for k in 0..f {
                        let v = base + k * wg + lid;
                        if v < n4 {
                            for c in 0..4 {
                                acc = m.combine(acc, lift(4 * v + c));
                            }
                        }
                    }
                    base += groups * wg * f;
                }
                let tail = 4 * n4 + lid;
                if g == 0 && tail < n {
                    acc = m.combine(acc, lift(tail));
                }
            } else {
                let (mut base, end, step) = if l.contiguous {
                    let start = (g as usize * l.chunk as usize).min(n);
                    (start, (start + l.chunk as usize).min(n), wg * f)
                } else {
                    (g as usize * wg * f, n, groups * wg * f)
                };
                while base < end {
                    for k in 0..f {
                        let i = base + k * wg + lid;
                        if i < end {
                            acc = m.combine(acc, lift(i));
                        }
                    }
                    base += step;
                }
            }
            acc
        })
        .collect();
    wg_tree(accs, |a, b| m.combine(a, b))
}

/// The whole two-stage reduction as the tree-variant kernels compute it.
pub(crate) fn reduce<E: Element, M: Monoid<E>>(m: &M, xs: &[E], l: &Launch) -> M::V {
    let partials: Vec<M::V> = (0..l.groups).map(|g| stage1(m, xs, l, g)).collect();
    let wg = l.wg as usize;
    let accs: Vec<M::V> = (0..wg)
        .map(|lid| {
            let mut acc = m.identity();
            let mut i = lid;
            while i < partials.len() {
                acc = m.combine(acc, partials[i]);
                i += wg;
            }
            acc
        })
        .collect();
    wg_tree(accs, |a, b| m.combine(a, b))
}

/// f32 sum exactly as the GPU tree variant computes it for `config` (no subgroups).
pub fn reduce_mirror(xs: &[f32], config: &crate::ReduceConfig) -> Result<f32, crate::ReduceError> {
    let l = config.launch(xs.len(), false)?;
    Ok(reduce(&crate::monoid::Sum, xs, &l))
}

/// `shaders/scan.wgsl` for f32, for one block size: exclusive or inclusive scan, bit for bit.
pub fn scan_mirror(xs: &[f32], wg: usize, items: usize, inclusive: bool) -> Vec<f32> {
    scan_blocks(xs, wg, items, inclusive)
}

fn scan_blocks(xs: &[f32], wg: usize, items: usize, inclusive: bool) -> Vec<f32> {
    let bs = wg * items;
    let blocks = xs.len().div_ceil(bs).max(1);
    // Block sums in the tree order of `block_sums`, then their exclusive scan, recursively.
    let offsets: Vec<f32> = if blocks > 1 {
        let sums: Vec<f32> = (0..blocks)
            .map(|b| {
                let accs: Vec<f32> = (0..wg)
                    .map(|lid| {
                        let mut acc = 0.0f32;
                        for k in 0..items {
                            let i = b * bs + k * wg + lid;
                            if i < xs.len() {
                                acc += xs[i];
                            }
                        }
                        acc
                    })
                    .collect();
                wg_tree(accs, |a, b| a + b)
            })
            .collect();
        scan_blocks(&sums, wg, items, false)
    } else {
        vec![0.0]
    };
    let mut out = vec![0.0f32; xs.len()];
    for b in 0..blocks {
        let totals: Vec<f32> = (0..wg)
            .map(|lid| {
                let first = (b * wg + lid) * items;
                (0..items).filter_map(|k| xs.get(first + k)).fold(0.0f32, |a, &x| a + x)
            })
            .collect();
        // Hillis–Steele, as the kernel: prefix[lid] = prefix[lid - off] + prefix[lid].
        let mut prefix = totals.clone();
        let mut off = 1;
        while off < wg {
            let prev = prefix.clone();
            for lid in off..wg {
                prefix[lid] = prev[lid - off] + prev[lid];
            }
            off <<= 1;
        }
        for lid in 0..wg {
            let mut run = offsets[b];
            if lid > 0 {
                run += prefix[lid - 1];
            }
            let first = (b * wg + lid) * items;
            for k in 0..items {
                let i = first + k;
                if i < xs.len() {
                    if inclusive {
                        run += xs[i];
                        out[i] = run;
                    } else {
                        out[i] = run;
                        run += xs[i];
                    }
                }
            }
        }
    }
    out
}
