//! Canonical predecessor arcs, identical on every backend (spec sssp.md §3.4).
//!
//! Positive weights: `pred[v]` = the smallest-id tight arc entering `v` (tight: `dist[u] + w = dist[v]`).
//! Parents then strictly decrease the distance, so this is a tree. With zero-weight arcs that rule can
//! make cycles, so the tree is built level by level over the tight arcs from the source (a BFS), taking
//! for each vertex the smallest tight arc from the previous level.

use std::sync::atomic::{AtomicU32, Ordering};

use graph_core::Csr;
use rayon::prelude::*;

use crate::paths::{NO_ARC, UNREACHABLE, sat_add};

/// True when some arc has weight 0.
pub fn has_zero_weight(graph: &Csr<u32>) -> bool {
    graph.weights().par_iter().any(|&w| w == 0)
}

/// Canonical predecessors for `dist` (see the module docs).
pub fn canonical_predecessors(graph: &Csr<u32>, source: u32, dist: &[u32]) -> Vec<u32> {
    if has_zero_weight(graph) { by_levels(graph, source, dist) } else { smallest_tight(graph, source, dist) }
}

fn smallest_tight(graph: &Csr<u32>, source: u32, dist: &[u32]) -> Vec<u32> {
    let pred: Vec<AtomicU32> = (0..graph.num_vertices()).map(|_| AtomicU32::new(NO_ARC)).collect();
    (0..graph.num_vertices()).into_par_iter().for_each(|u| {
        let du = dist[u as usize];
        if du == UNREACHABLE {
            return;
        }
        for a in graph.arc_range(u) {
            let v = graph.targets()[a];
            if v != source && v != u && sat_add(du, graph.weights()[a]) == dist[v as usize] {
                pred[v as usize].fetch_min(a as u32, Ordering::Relaxed);
            }
        }
    });
    pred.into_iter().map(AtomicU32::into_inner).collect()
}

fn by_levels(graph: &Csr<u32>, source: u32, dist: &[u32]) -> Vec<u32> {
    let n = graph.num_vertices() as usize;
    let mut pred = vec![NO_ARC; n];
    let mut level = vec![u32::MAX; n];
    level[source as usize] = 0;
    let mut frontier = vec![source];
    let mut depth = 0;
    while !frontier.is_empty() {
        depth += 1;
        let mut next = Vec::new();
        for &u in &frontier {
            let du = dist[u as usize];
            for a in graph.arc_range(u) {
                let v = graph.targets()[a] as usize;
                if sat_add(du, graph.weights()[a]) != dist[v] || dist[v] == UNREACHABLE {
                    continue;
                }
                if level[v] == u32::MAX {
                    level[v] = depth;
                    next.push(v as u32);
                }
                if level[v] == depth {
                    pred[v] = pred[v].min(a as u32);
                }
            }
        }
        frontier = next;
    }
    pred
}
