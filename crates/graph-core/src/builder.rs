//! Building a [`Csr`] from an arc list, with explicit policies for parallel arcs and self-loops.

use crate::VertexId;
use crate::csr::Csr;
use crate::error::GraphError;
use crate::weight::Weight;

/// What to do with several arcs from the same tail to the same head.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DuplicatePolicy {
    /// Keep every arc, in input order (nothing is lost; the default).
    #[default]
    KeepAll,
    /// Keep only the lightest arc of each (tail, head) pair (the first of equal weights).
    KeepMin,
    /// Keep only the first arc of each (tail, head) pair in input order.
    KeepFirst,
}

/// What to do with arcs from a vertex to itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SelfLoopPolicy {
    /// Keep them (the default: nothing is lost).
    #[default]
    Keep,
    /// Drop them.
    Drop,
}

/// What a build did to the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BuildReport {
    /// Arcs given to the builder.
    pub arcs_in: u64,
    /// Arcs in the built graph.
    pub arcs_out: u64,
    /// Self-loops removed by [`SelfLoopPolicy::Drop`].
    pub self_loops_dropped: u64,
    /// Parallel arcs removed by [`DuplicatePolicy::KeepMin`] or [`DuplicatePolicy::KeepFirst`].
    pub parallel_arcs_dropped: u64,
}

/// Collects arcs and builds a [`Csr`].
///
/// With [`DuplicatePolicy::KeepAll`] each vertex's arcs keep their input order; with the other policies
/// they come out sorted by head.
#[derive(Debug, Clone)]
pub struct GraphBuilder<W> {
    n: u32,
    tails: Vec<VertexId>,
    heads: Vec<VertexId>,
    weights: Vec<W>,
    duplicates: DuplicatePolicy,
    self_loops: SelfLoopPolicy,
}

impl<W: Weight> GraphBuilder<W> {
    /// A builder for a graph on vertices `0..n`.
    pub fn new(n: u32) -> Self {
        Self {
            n,
            tails: Vec::new(),
            heads: Vec::new(),
            weights: Vec::new(),
            duplicates: DuplicatePolicy::KeepAll,
            self_loops: SelfLoopPolicy::Keep,
        }
    }

    /// Reserves room for `m` more arcs.
    pub fn with_capacity(mut self, m: usize) -> Self {
        self.tails.reserve(m);
        self.heads.reserve(m);
        self.weights.reserve(m);
        self
    }

    /// Sets the parallel-arc policy.
    pub fn duplicates(mut self, policy: DuplicatePolicy) -> Self {
        self.duplicates = policy;
        self
    }

    /// Sets the self-loop policy.
    pub fn self_loops(mut self, policy: SelfLoopPolicy) -> Self {
        self.self_loops = policy;
        self
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> u32 {
        self.n
    }

    /// Arcs added so far.
    pub fn num_arcs(&self) -> usize {
        self.tails.len()
    }

    /// Adds the arc `tail -> head` (checked at [`build`](Self::build)).
    pub fn add_arc(&mut self, tail: VertexId, head: VertexId, weight: W) -> &mut Self {
        self.tails.push(tail);
        self.heads.push(head);
        self.weights.push(weight);
        self
    }

    /// Adds `u -> v` and `v -> u` with the same weight.
    pub fn add_edge(&mut self, u: VertexId, v: VertexId, weight: W) -> &mut Self {
        self.add_arc(u, v, weight).add_arc(v, u, weight)
    }

    /// Checks every arc and builds the graph.
    pub fn build(self) -> Result<(Csr<W>, BuildReport), GraphError> {
        let n = self.n;
        let m = self.tails.len();
        if m as u64 > u32::MAX as u64 {
            return Err(GraphError::TooManyArcs { arcs: m as u64, max: u32::MAX as u64 });
        }
        for arc in 0..m {
            let (t, h) = (self.tails[arc], self.heads[arc]);
            if t >= n || h >= n {
                return Err(GraphError::VertexOutOfRange { arc, tail: t, head: h, n });
            }
            if let Err(issue) = self.weights[arc].check() {
                let value = self.weights[arc].to_string();
                return Err(GraphError::BadWeight { arc, value, issue });
            }
        }
        let mut report = BuildReport { arcs_in: m as u64, ..Default::default() };
        let keep_loops = self.self_loops == SelfLoopPolicy::Keep;

        // Counting sort by tail: stable, so each vertex's arcs keep their input order.
        let mut offsets = vec![0u32; n as usize + 1];
        for arc in 0..m {
            if keep_loops || self.tails[arc] != self.heads[arc] {
                offsets[self.tails[arc] as usize + 1] += 1;
            } else {
                report.self_loops_dropped += 1;
            }
        }
        for v in 0..n as usize {
            offsets[v + 1] += offsets[v];
        }
        let kept = offsets[n as usize] as usize;
        let mut cursor = offsets.clone();
        let mut targets = vec![0u32; kept];
        let mut weights = vec![W::default(); kept];
        for arc in 0..m {
            let t = self.tails[arc];
            if keep_loops || t != self.heads[arc] {
                let at = cursor[t as usize] as usize;
                targets[at] = self.heads[arc];
                weights[at] = self.weights[arc];
                cursor[t as usize] += 1;
            }
        }
        drop((self.tails, self.heads, self.weights));

        if self.duplicates != DuplicatePolicy::KeepAll {
            let keep_min = self.duplicates == DuplicatePolicy::KeepMin;
            let mut out_offsets = vec![0u32; n as usize + 1];
            let mut write = 0usize;
            let mut scratch: Vec<(VertexId, W)> = Vec::new();
            for v in 0..n as usize {
                let (lo, hi) = (offsets[v] as usize, offsets[v + 1] as usize);
                scratch.clear();
                scratch.extend(targets[lo..hi].iter().copied().zip(weights[lo..hi].iter().copied()));
                // Stable sort by head keeps input order among parallel arcs (KeepFirst).
                scratch.sort_by_key(|&(h, _)| h);
                let mut i = 0;
                while i < scratch.len() {
                    let mut best = scratch[i];
                    let mut j = i + 1;
                    while j < scratch.len() && scratch[j].0 == best.0 {
                        if keep_min && scratch[j].1 < best.1 {
                            best = scratch[j];
                        }
                        j += 1;
                    }
                    report.parallel_arcs_dropped += (j - i - 1) as u64;
                    targets[write] = best.0;
                    weights[write] = best.1;
                    write += 1;
                    i = j;
                }
                out_offsets[v + 1] = write as u32;
            }
            targets.truncate(write);
            weights.truncate(write);
            offsets = out_offsets;
        }
        report.arcs_out = targets.len() as u64;
        Ok((Csr::from_parts_unchecked(offsets, targets, weights), report))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies() {
        let arcs = [(0, 1, 5u32), (0, 1, 3), (1, 1, 2), (0, 2, 1), (0, 1, 3)];
        let build = |d, s| {
            let mut b = GraphBuilder::new(3).duplicates(d).self_loops(s);
            for &(t, h, w) in &arcs {
                b.add_arc(t, h, w);
            }
            b.build().unwrap()
        };
        let (g, r) = build(DuplicatePolicy::KeepAll, SelfLoopPolicy::Keep);
        assert_eq!(g.num_arcs(), 5);
        assert_eq!(g.targets_of(0), &[1, 1, 2, 1]);
        assert_eq!(r.parallel_arcs_dropped, 0);
        let (g, r) = build(DuplicatePolicy::KeepMin, SelfLoopPolicy::Drop);
        assert_eq!(g.out_arcs(0).collect::<Vec<_>>(), vec![(1, 3), (2, 1)]);
        assert_eq!(g.out_degree(1), 0);
        assert_eq!((r.parallel_arcs_dropped, r.self_loops_dropped, r.arcs_out), (2, 1, 2));
        let (g, _) = build(DuplicatePolicy::KeepFirst, SelfLoopPolicy::Keep);
        assert_eq!(g.out_arcs(0).collect::<Vec<_>>(), vec![(1, 5), (2, 1)]);
        assert_eq!(g.out_arcs(1).collect::<Vec<_>>(), vec![(1, 2)]);
    }

    #[test]
    fn rejects_bad_arcs() {
        let mut b = GraphBuilder::<u32>::new(2);
        b.add_arc(0, 2, 1);
        assert!(matches!(b.build(), Err(GraphError::VertexOutOfRange { arc: 0, head: 2, .. })));
        let mut b = GraphBuilder::<f32>::new(2);
        b.add_arc(0, 1, 1.0).add_arc(1, 0, -1.0);
        assert!(matches!(b.build(), Err(GraphError::BadWeight { arc: 1, .. })));
    }
}
