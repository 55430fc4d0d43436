//! Whole-graph transformations: transpose (with forward arc ids) and symmetrisation.

use crate::builder::{BuildReport, DuplicatePolicy, GraphBuilder, SelfLoopPolicy};
use crate::csr::Csr;
use crate::weight::Weight;

/// The reverse graph, and for each of its arcs the id of the forward arc it reverses.
///
/// Algorithms that work on the reverse graph (backward searches, in-thresholds) report forward arc ids
/// through `rev_to_fwd`.
#[derive(Debug, Clone, PartialEq)]
pub struct Transposed<W> {
    /// The graph with every arc reversed; each vertex's in-arcs appear in forward arc-id order.
    pub graph: Csr<W>,
    /// `rev_to_fwd[a]` is the forward arc id of reverse arc `a`.
    pub rev_to_fwd: Vec<u32>,
}

impl<W: Weight> Csr<W> {
    /// The reverse graph (every arc `u -> v` becomes `v -> u`), in O(n + m).
    ///
    /// ```
    /// use urbanflow::graph::Csr;
    /// let g = Csr::from_parts(vec![0, 2, 2, 2], vec![1, 2], vec![5u32, 6]).unwrap();
    /// let t = g.transpose();
    /// assert_eq!(t.graph.out_arcs(2).collect::<Vec<_>>(), vec![(0, 6)]);
    /// assert_eq!(t.rev_to_fwd, vec![0, 1]);
    /// ```
    pub fn transpose(&self) -> Transposed<W> {
        let n = self.num_vertices() as usize;
        let m = self.num_arcs() as usize;
        let mut offsets = vec![0u32; n + 1];
        for &h in self.targets() {
            offsets[h as usize + 1] += 1;
        }
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        let mut cursor = offsets.clone();
        let mut targets = vec![0u32; m];
        let mut weights = vec![W::default(); m];
        let mut rev_to_fwd = vec![0u32; m];
        for u in 0..n as u32 {
            for arc in self.arc_range(u) {
                let h = self.targets()[arc] as usize;
                let at = cursor[h] as usize;
                targets[at] = u;
                weights[at] = self.weights()[arc];
                rev_to_fwd[at] = arc as u32;
                cursor[h] += 1;
            }
        }
        Transposed { graph: Csr::from_parts_unchecked(offsets, targets, weights), rev_to_fwd }
    }

    /// The undirected version: every arc and its reverse, with `duplicates` deciding what happens when
    /// both directions (or parallel arcs) exist. Self-loops are kept once.
    pub fn symmetrise(&self, duplicates: DuplicatePolicy) -> (Csr<W>, BuildReport) {
        let mut b = GraphBuilder::new(self.num_vertices())
            .duplicates(duplicates)
            .self_loops(SelfLoopPolicy::Keep)
            .with_capacity(2 * self.num_arcs() as usize);
        for (u, v, w) in self.arcs() {
            b.add_arc(u, v, w);
            if u != v {
                b.add_arc(v, u, w);
            }
        }
        b.build().expect("arcs of a valid graph stay valid")
    }
}
