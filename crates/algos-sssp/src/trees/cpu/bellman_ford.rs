//! Bellman–Ford–Moore (FIFO queue): the independent reference the tests compare against.

use std::collections::VecDeque;

use graph_core::Csr;

use crate::error::SsspError;
use crate::paths::{SATURATED, SsspStats, UNREACHABLE};

/// Distances from `source` by label-correcting with a FIFO queue.
pub fn bellman_ford(graph: &Csr<u32>, source: u32) -> Result<(Vec<u32>, SsspStats), SsspError> {
    let n = graph.num_vertices() as usize;
    let mut dist = vec![UNREACHABLE; n];
    let mut queued = vec![false; n];
    let mut queue = VecDeque::from([source]);
    let mut stats = SsspStats::default();
    dist[source as usize] = 0;
    queued[source as usize] = true;
    while let Some(u) = queue.pop_front() {
        queued[u as usize] = false;
        stats.phases += 1;
        let du = dist[u as usize] as u64;
        for (v, w) in graph.out_arcs(u) {
            stats.relaxations += 1;
            let nd = (du + w as u64).min(SATURATED as u64);
            if nd < dist[v as usize] as u64 {
                if nd >= SATURATED as u64 {
                    return Err(SsspError::WeightOverflow { bound: SATURATED });
                }
                dist[v as usize] = nd as u32;
                if !queued[v as usize] {
                    queued[v as usize] = true;
                    queue.push_back(v);
                }
            }
        }
    }
    Ok((dist, stats))
}
