//! Betweenness centrality (Brandes 2001; directed, unnormalised, shortest paths counted, pairs s ≠ t,
//! endpoints excluded) of every vertex, exact or from a sample of sources, optionally only over pairs
//! within a cutoff.
//!
//! Per source: a bounded Dijkstra; the path counts σ forward over the tight arcs (d(u) + w = d(v)) in
//! an order where every tight predecessor comes first — the settle order, or with zero-weight arcs a
//! topological order of the tight arcs, so that a zero arc into a vertex settled at the same distance
//! still counts its paths (networkx's single-source routine does not: see docs/accessibility.md); then
//! the dependencies δ backward over the same arcs. Sources are taken in fixed chunks whose partial
//! sums are added in chunk order: the result does not depend on the number of threads.

use algos_sssp::cpu::queue::LazyHeap;
use algos_sssp::cpu::search::{Settle, Workspace, dijkstra_search};
use algos_sssp::{SATURATED, UNREACHABLE};
use graph_core::Csr;
use graph_core::rng::SplitMix64;
use rayon::prelude::*;

use crate::engine::Progress;
use crate::error::AccessError;

/// One chunk's sums of dependencies and (when sampled) of their squares, by vertex.
type Partial = (Vec<f64>, Vec<f64>);

/// Sources per chunk (one partial sum each).
const CHUNK: usize = 256;

/// Options of [`betweenness`].
#[derive(Clone, Copy, Default)]
pub struct BetweennessOptions<'a> {
    /// Only pairs (s, t) with d(s, t) ≤ cutoff count (`None`: all pairs).
    pub cutoff: Option<u32>,
    /// Estimate from this many sources drawn without replacement (`None`: every source, exact).
    pub sample: Option<usize>,
    /// Seed of the draw.
    pub seed: u64,
    /// Called with (sources done, sources to do); `false` cancels.
    pub progress: Option<Progress<'a>>,
}

/// Betweenness of every vertex.
#[derive(Debug, Clone, PartialEq)]
pub struct Betweenness {
    /// Betweenness by vertex (an estimate when sampled: the sampled sum scaled by n / sample).
    pub value: Vec<f64>,
    /// Standard error of each estimate when sampled (from the spread of the sampled sources'
    /// dependencies, with the finite-population correction); `None` when exact.
    pub std_error: Option<Vec<f64>>,
    /// Sources used.
    pub sources: usize,
}

/// Brandes' betweenness of every vertex of `graph` (see the module description).
///
/// ```
/// use urbanflow::access::{BetweennessOptions, betweenness};
/// let g = urbanflow::graph::generators::grid_2d(1, 4); // a path 0 - 1 - 2 - 3, both directions
/// let b = betweenness(&g, &BetweennessOptions::default())?;
/// assert_eq!(b.value, [0.0, 4.0, 4.0, 0.0]); // 1 lies on 0→2, 0→3, 2→0, 3→0
/// let near = betweenness(&g, &BetweennessOptions { cutoff: Some(2), ..Default::default() })?;
/// assert_eq!(near.value, [0.0, 2.0, 2.0, 0.0]); // 0↔3 is 3 away
/// # Ok::<(), urbanflow::access::AccessError>(())
/// ```
pub fn betweenness(graph: &Csr<u32>, opts: &BetweennessOptions<'_>) -> Result<Betweenness, AccessError> {
    let n = graph.num_vertices() as usize;
    if let Some((arc, &weight)) = graph.weights().iter().enumerate().find(|(_, w)| **w >= SATURATED) {
        return Err(algos_sssp::SsspError::WeightTooLarge { arc: arc as u32, weight }.into());
    }
    let sources: Vec<u32> = match opts.sample {
        None => (0..n as u32).collect(),
        Some(0) => return Err(AccessError::InvalidParameter("a sample of 0 sources".into())),
        Some(s) if s >= n => (0..n as u32).collect(),
        Some(s) => {
            // A partial Fisher–Yates shuffle: the first s of a uniform random permutation.
            let mut all: Vec<u32> = (0..n as u32).collect();
            let mut rng = SplitMix64::new(opts.seed);
            for i in 0..s {
                let j = i + rng.below((n - i) as u64) as usize;
                all.swap(i, j);
            }
            all.truncate(s);
            all.sort_unstable();
            all
        }
    };
    let sampled = sources.len() < n;
    let cutoff = opts.cutoff.unwrap_or(SATURATED - 1).min(SATURATED - 1);
    let zero_arcs = graph.weights().contains(&0);
    let mut value = vec![0.0; n];
    let mut squares = if sampled { vec![0.0; n] } else { Vec::new() };
    let chunks: Vec<&[u32]> = sources.chunks(CHUNK).collect();
    let wave = 2 * rayon::current_num_threads();
    let mut done = 0;
    for group in chunks.chunks(wave) {
        let partials: Vec<Result<Partial, AccessError>> = group
            .par_iter()
            .map_init(
                || Brandes::new(n),
                |b, chunk| {
                    let mut sum = vec![0.0; n];
                    let mut sq = if sampled { vec![0.0; n] } else { Vec::new() };
                    for &s in *chunk {
                        b.source(graph, s, cutoff, zero_arcs)?;
                        for &v in &b.order {
                            let d = b.delta[v as usize];
                            if v != s {
                                sum[v as usize] += d;
                                if sampled {
                                    sq[v as usize] += d * d;
                                }
                            }
                        }
                        b.clear();
                    }
                    Ok((sum, sq))
                },
            )
            .collect();
        for p in partials {
            let (sum, sq) = p?;
            for (t, x) in value.iter_mut().zip(sum) {
                *t += x;
            }
            for (t, x) in squares.iter_mut().zip(sq) {
                *t += x;
            }
        }
        done += group.iter().map(|c| c.len()).sum::<usize>();
        if let Some(p) = opts.progress {
            if !p(done, sources.len()) {
                return Err(AccessError::Cancelled { done, total: sources.len() });
            }
        }
    }
    let std_error = sampled.then(|| {
        let s = sources.len() as f64;
        let nf = n as f64;
        let correction = (1.0 - s / nf).max(0.0);
        value
            .iter()
            .zip(&squares)
            .map(|(&sum, &sq)| {
                if s < 2.0 {
                    return f64::INFINITY;
                }
                let mean = sum / s;
                let var = ((sq - s * mean * mean) / (s - 1.0)).max(0.0);
                nf * (var / s * correction).sqrt()
            })
            .collect::<Vec<f64>>()
    });
    if sampled {
        let scale = n as f64 / sources.len() as f64;
        value.iter_mut().for_each(|v| *v *= scale);
    }
    Ok(Betweenness { value, std_error, sources: sources.len() })
}

/// One thread's scratch for single-source dependencies.
struct Brandes {
    dist: Vec<u32>,
    sigma: Vec<f64>,
    delta: Vec<f64>,
    /// Vertices within the cutoff, in an order where tight predecessors come first.
    order: Vec<u32>,
    ws: Workspace<u32, LazyHeap<u32>>,
    /// Kahn's in-degrees over tight arcs (zero-weight graphs only).
    indegree: Vec<u32>,
}

impl Brandes {
    fn new(n: usize) -> Self {
        Self {
            dist: vec![UNREACHABLE; n],
            sigma: vec![0.0; n],
            delta: vec![0.0; n],
            order: Vec::new(),
            ws: Workspace::new(LazyHeap::with_capacity(1024)).with_touched(),
            indegree: vec![0; n],
        }
    }

    fn source(&mut self, graph: &Csr<u32>, s: u32, cutoff: u32, zero_arcs: bool) -> Result<(), AccessError> {
        let order = &mut self.order;
        dijkstra_search(graph, s, &mut self.dist, &mut self.ws, |v, d| {
            if d > cutoff {
                return Settle::Stop;
            }
            order.push(v);
            Settle::Expand
        });
        let (targets, weights) = (graph.targets(), graph.weights());
        let dist = &self.dist;
        let tight = |u: u32, a: usize| {
            let w = targets[a];
            let dw = dist[w as usize];
            w != u && dw <= cutoff && dist[u as usize] as u64 + weights[a] as u64 == dw as u64
        };
        if zero_arcs {
            // Kahn over the tight arcs: a zero arc may enter a vertex settled before its tail.
            for &u in order.iter() {
                for a in graph.arc_range(u) {
                    if tight(u, a) {
                        self.indegree[targets[a] as usize] += 1;
                    }
                }
            }
            let within = order.len();
            let mut sorted = Vec::with_capacity(within);
            sorted.push(s);
            let mut head = 0;
            while head < sorted.len() {
                let u = sorted[head];
                head += 1;
                for a in graph.arc_range(u) {
                    if tight(u, a) {
                        let w = targets[a] as usize;
                        self.indegree[w] -= 1;
                        if self.indegree[w] == 0 {
                            sorted.push(w as u32);
                        }
                    }
                }
            }
            if sorted.len() < within {
                for &u in order.iter() {
                    self.indegree[u as usize] = 0;
                }
                return Err(AccessError::InvalidParameter(format!(
                    "a cycle of zero-weight arcs is on shortest paths from vertex {s}: its path counts are infinite"
                )));
            }
            *order = sorted;
        }
        self.sigma[s as usize] = 1.0;
        for &u in order.iter() {
            let su = self.sigma[u as usize];
            for a in graph.arc_range(u) {
                if tight(u, a) {
                    self.sigma[targets[a] as usize] += su;
                }
            }
        }
        for &u in order.iter().rev() {
            let su = self.sigma[u as usize];
            let mut d = 0.0;
            for a in graph.arc_range(u) {
                if tight(u, a) {
                    let w = targets[a] as usize;
                    d += su / self.sigma[w] * (1.0 + self.delta[w]);
                }
            }
            self.delta[u as usize] = d;
        }
        Ok(())
    }

    /// Makes the scratch clean for the next source (only what the last one touched).
    fn clear(&mut self) {
        for &v in &self.order {
            self.sigma[v as usize] = 0.0;
            self.delta[v as usize] = 0.0;
        }
        self.order.clear();
        self.ws.reset(&mut self.dist);
    }
}
