//! Helpers shared by the cycle tests: graphs from graph-core's generators, and cycles in one canonical
//! form so that sets of them compare.
#![allow(dead_code)] // each test binary uses its own subset

use algos_cycles::{SimpleGraph, Simplify};
use graph_core::generators;

/// The simple undirected graph of a CSR graph (loops and parallel arcs repaired away).
pub fn from(g: &graph_core::Csr<u32>) -> SimpleGraph {
    SimpleGraph::from_csr(g, Simplify::Repair).unwrap().0
}

/// Erdős–Rényi G(n, p) from [`generators::gnp_undirected`].
pub fn gnp(n: u32, p: f64, seed: u64) -> SimpleGraph {
    from(&generators::gnp_undirected(n, p, seed))
}

/// Smallest vertex first, then the direction whose second vertex is smaller.
pub fn normalise(c: &[u32]) -> Vec<u32> {
    let k = c.iter().enumerate().min_by_key(|(_, v)| **v).unwrap().0;
    let mut r: Vec<u32> = c[k..].iter().chain(&c[..k]).copied().collect();
    if r.len() > 2 && r[1] > r[r.len() - 1] {
        r[1..].reverse();
    }
    r
}
