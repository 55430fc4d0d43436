//! Conversions to and from [petgraph](https://docs.rs/petgraph) (feature `petgraph`): a
//! `petgraph::graph::DiGraph` becomes a [`Csr`] with the same vertex indices, and a [`Csr`] becomes a
//! `DiGraph` whose edge `i` is arc `i` (so predecessor arcs and K-shortest-path arcs index its edges).
//!
//! ```
//! use urbanflow::graph::Csr;
//! use petgraph::graph::DiGraph;
//! let mut p = DiGraph::<&str, u32>::new();
//! let (a, b, c) = (p.add_node("a"), p.add_node("b"), p.add_node("c"));
//! p.add_edge(a, b, 4);
//! p.add_edge(b, c, 1);
//! p.add_edge(a, c, 9);
//! let g = Csr::try_from(&p)?; // node weights are left behind; vertex i is node i
//! assert_eq!(g.out_arcs(0).collect::<Vec<_>>(), vec![(1, 4), (2, 9)]);
//! let back: DiGraph<(), u32> = g.to_petgraph();
//! assert_eq!((back.node_count(), back.edge_count()), (3, 3));
//! # Ok::<(), urbanflow::graph::GraphError>(())
//! ```

use petgraph::graph::{DiGraph, IndexType};
use petgraph::visit::EdgeRef;

use crate::csr::Csr;
use crate::error::GraphError;
use crate::weight::Weight;

/// A petgraph directed graph as a CSR graph: vertex `i` is node index `i`, arcs grouped by tail in
/// edge order; node weights are not kept. Weights [`Weight::check`] refuses (negative, NaN) and graphs
/// beyond `u32` ids are errors.
impl<N, W: Weight, Ix: IndexType> TryFrom<&DiGraph<N, W, Ix>> for Csr<W> {
    type Error = GraphError;

    fn try_from(g: &DiGraph<N, W, Ix>) -> Result<Self, GraphError> {
        let n = u32::try_from(g.node_count()).map_err(|_| {
            GraphError::InvalidParameter(format!("{} nodes do not fit u32 vertex ids", g.node_count()))
        })?;
        Csr::from_edges(
            n,
            g.edge_references().map(|e| (e.source().index() as u32, e.target().index() as u32, *e.weight())),
        )
    }
}

impl<W: Weight> Csr<W> {
    /// This graph as a petgraph `DiGraph`: node `i` is vertex `i`, edge `i` is arc `i` (CSR order).
    pub fn to_petgraph(&self) -> DiGraph<(), W> {
        let mut g = DiGraph::with_capacity(self.num_vertices() as usize, self.num_arcs() as usize);
        for _ in 0..self.num_vertices() {
            g.add_node(());
        }
        for (u, v, w) in self.arcs() {
            g.add_edge(u.into(), v.into(), w);
        }
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    #[test]
    fn round_trips_keep_indices_weights_and_arc_order() {
        let mut rng = SplitMix64::new(7);
        for n in [1u32, 2, 5, 40] {
            let arcs: Vec<(u32, u32, u32)> = (0..3 * n)
                .map(|_| (rng.below(n as u64) as u32, rng.below(n as u64) as u32, rng.below(100) as u32))
                .collect();
            let g = Csr::from_edges(n, arcs.clone()).unwrap();
            let p = g.to_petgraph();
            for (i, (u, v, w)) in g.arcs().enumerate() {
                let e = p.raw_edges()[i].clone();
                assert_eq!((e.source().index() as u32, e.target().index() as u32, e.weight), (u, v, w));
            }
            assert_eq!(Csr::try_from(&p).unwrap(), g);
        }
    }

    #[test]
    fn refused_weights_are_errors() {
        let mut p = DiGraph::<(), f64>::new();
        let (a, b) = (p.add_node(()), p.add_node(()));
        p.add_edge(a, b, f64::NAN);
        assert!(Csr::try_from(&p).is_err());
        p.clear_edges();
        p.add_edge(a, b, -1.0);
        assert!(Csr::try_from(&p).is_err());
    }
}
