//! Δ-stepping on rayon (GAP benchmark style): buckets of width Δ, the current bucket's vertices
//! relaxed in parallel, improved vertices collected in per-task bins, stale entries skipped.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use graph_core::Csr;
use rayon::prelude::*;

use crate::error::SsspError;
use crate::paths::{SATURATED, SsspStats, UNREACHABLE};

/// A Δ for road-like graphs: 8 × the mean arc weight (at least 1); benchmarks sweep around it.
pub fn default_delta(graph: &Csr<u32>) -> u32 {
    let m = graph.num_arcs().max(1) as u64;
    let sum: u64 = graph.weights().par_iter().map(|&w| w as u64).sum();
    (8 * sum / m).clamp(1, u32::MAX as u64) as u32
}

/// Distances from `source` with bucket width `delta` (≥ 1).
pub fn delta_stepping(graph: &Csr<u32>, source: u32, delta: u32) -> Result<(Vec<u32>, SsspStats), SsspError> {
    let delta = delta.max(1);
    let n = graph.num_vertices() as usize;
    let dist: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(UNREACHABLE)).collect();
    dist[source as usize].store(0, Ordering::Relaxed);
    let overflow = AtomicBool::new(false);
    let (offsets, targets, weights) = (graph.offsets(), graph.targets(), graph.weights());
    let mut stats = SsspStats::default();
    let mut frontier = vec![source];
    let mut bucket = 0u32;
    // Vertices waiting in later buckets: (bucket, vertex), possibly stale.
    let mut pending: Vec<Vec<u32>> = Vec::new();
    loop {
        while !frontier.is_empty() {
            stats.phases += 1;
            let bins: Vec<Vec<u32>> = frontier
                .par_chunks(256)
                .fold(Vec::<Vec<u32>>::new, |mut bins, chunk| {
                    for &u in chunk {
                        let du = dist[u as usize].load(Ordering::Relaxed);
                        if du / delta != bucket {
                            continue; // stale: settled in an earlier bucket or moved later
                        }
                        for a in offsets[u as usize] as usize..offsets[u as usize + 1] as usize {
                            let v = targets[a] as usize;
                            let nd = (du as u64 + weights[a] as u64).min(SATURATED as u64);
                            if nd == SATURATED as u64 {
                                if nd < dist[v].load(Ordering::Relaxed) as u64 {
                                    overflow.store(true, Ordering::Relaxed);
                                }
                                continue;
                            }
                            let nd = nd as u32;
                            if nd < dist[v].fetch_min(nd, Ordering::Relaxed) {
                                let b = (nd / delta - bucket) as usize;
                                if bins.len() <= b {
                                    bins.resize(b + 1, Vec::new());
                                }
                                bins[b].push(v as u32);
                            }
                        }
                    }
                    bins
                })
                .reduce(Vec::new, |mut a, mut b| {
                    if a.len() < b.len() {
                        std::mem::swap(&mut a, &mut b);
                    }
                    for (x, y) in a.iter_mut().zip(b) {
                        x.extend(y);
                    }
                    a
                });
            stats.relaxations += frontier.len() as u64;
            // bins[k] belongs to bucket `bucket + k`; pending[k] likewise, relative to `bucket`.
            let mut bins = bins.into_iter();
            frontier = bins.next().unwrap_or_default();
            for (k, bin) in bins.enumerate() {
                if pending.len() <= k {
                    pending.resize(k + 1, Vec::new());
                }
                pending[k].extend(bin);
            }
            // pending is indexed from bucket + 1; frontier stays in `bucket`.
        }
        // Advance to the next non-empty bucket.
        let Some(k) = pending.iter().position(|b| !b.is_empty()) else { break };
        bucket += k as u32 + 1;
        frontier = std::mem::take(&mut pending[k]);
        pending.drain(..=k);
    }
    if overflow.load(Ordering::Relaxed) {
        return Err(SsspError::WeightOverflow { bound: SATURATED });
    }
    Ok((dist.into_iter().map(AtomicU32::into_inner).collect(), stats))
}
