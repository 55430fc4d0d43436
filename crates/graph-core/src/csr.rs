//! The compressed-sparse-row graph.

use crate::VertexId;
use crate::error::GraphError;
use crate::weight::Weight;

/// A directed graph in compressed-sparse-row form.
///
/// The out-arcs of vertex `v` are the positions `offsets[v]..offsets[v + 1]` of `targets` and `weights`;
/// that position is the *arc id*. All three arrays are plain `Vec`s of `bytemuck::Pod` values, so they
/// upload to a GPU buffer with `bytemuck::cast_slice` and no copy.
///
/// ```
/// use urbanflow::graph::Csr;
/// let g = Csr::from_parts(vec![0, 2, 3, 3], vec![1, 2, 2], vec![4u32, 1, 7]).unwrap();
/// assert_eq!(g.num_vertices(), 3);
/// assert_eq!(g.targets_of(0), &[1, 2]);
/// assert_eq!(g.weights_of(1), &[7]);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Csr<W = u32> {
    offsets: Vec<u32>,
    targets: Vec<VertexId>,
    weights: Vec<W>,
}

impl<W: Weight> Csr<W> {
    /// A graph of `n` vertices from `(tail, head, weight)` arcs in any order: arcs are grouped by tail
    /// and keep their given order within a tail; parallel arcs and self-loops are kept. Ids out of
    /// range and weights [`Weight::check`] refuses are errors naming the arc.
    ///
    /// ```
    /// use urbanflow::graph::Csr;
    /// let g = Csr::from_edges(3, [(2, 0, 5u32), (0, 1, 7), (0, 2, 1)]).unwrap();
    /// assert_eq!(g.out_arcs(0).collect::<Vec<_>>(), vec![(1, 7), (2, 1)]);
    /// assert!(Csr::from_edges(2, [(0, 2, 1u32)]).is_err());
    /// ```
    pub fn from_edges(
        n: u32,
        arcs: impl IntoIterator<Item = (VertexId, VertexId, W)>,
    ) -> Result<Self, GraphError> {
        let mut b = crate::GraphBuilder::new(n);
        for (u, v, w) in arcs {
            b.add_arc(u, v, w);
        }
        b.build().map(|(g, _)| g)
    }

    /// Builds a graph from its three arrays, checking that they are consistent: `offsets` has n + 1
    /// non-decreasing entries starting at 0 and ending at the arc count, every target is below n, and
    /// every weight passes [`Weight::check`].
    pub fn from_parts(
        offsets: Vec<u32>,
        targets: Vec<VertexId>,
        weights: Vec<W>,
    ) -> Result<Self, GraphError> {
        let bad = |msg: String| Err(GraphError::MalformedCsr(msg));
        if offsets.is_empty() {
            return bad("offsets must have n + 1 entries (at least one)".into());
        }
        if offsets[0] != 0 {
            return bad(format!("offsets[0] is {}, expected 0", offsets[0]));
        }
        if let Some(i) = offsets.windows(2).position(|w| w[0] > w[1]) {
            return bad(format!("offsets decrease at vertex {i}"));
        }
        let m = *offsets.last().unwrap() as usize;
        if targets.len() != m || weights.len() != m {
            return bad(format!(
                "offsets end at {m} but there are {} targets and {} weights",
                targets.len(),
                weights.len()
            ));
        }
        let n = (offsets.len() - 1) as u32;
        if n as usize != offsets.len() - 1 {
            return bad("more than u32::MAX vertices".into());
        }
        for (arc, &t) in targets.iter().enumerate() {
            if t >= n {
                let tail = offsets.partition_point(|&o| o as usize <= arc) as u32 - 1;
                return Err(GraphError::VertexOutOfRange { arc, tail, head: t, n });
            }
        }
        for (arc, &w) in weights.iter().enumerate() {
            if let Err(issue) = w.check() {
                return Err(GraphError::BadWeight { arc, value: w.to_string(), issue });
            }
        }
        Ok(Self { offsets, targets, weights })
    }

    /// Internal constructor for arrays that are correct by construction.
    pub(crate) fn from_parts_unchecked(offsets: Vec<u32>, targets: Vec<VertexId>, weights: Vec<W>) -> Self {
        debug_assert_eq!(offsets.len().saturating_sub(1) as u32 as usize + 1, offsets.len());
        debug_assert_eq!(*offsets.last().unwrap() as usize, targets.len());
        debug_assert_eq!(targets.len(), weights.len());
        Self { offsets, targets, weights }
    }

    /// A graph with `n` vertices and no arcs.
    pub fn empty(n: u32) -> Self {
        Self { offsets: vec![0; n as usize + 1], targets: Vec::new(), weights: Vec::new() }
    }

    /// Number of vertices n.
    pub fn num_vertices(&self) -> u32 {
        (self.offsets.len() - 1) as u32
    }

    /// Number of arcs m.
    pub fn num_arcs(&self) -> u32 {
        self.targets.len() as u32
    }

    /// The `n + 1` offsets.
    pub fn offsets(&self) -> &[u32] {
        &self.offsets
    }

    /// Arc heads, indexed by arc id.
    pub fn targets(&self) -> &[VertexId] {
        &self.targets
    }

    /// Arc weights, indexed by arc id.
    pub fn weights(&self) -> &[W] {
        &self.weights
    }

    /// Arc ids leaving `v`.
    pub fn arc_range(&self, v: VertexId) -> std::ops::Range<usize> {
        self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize
    }

    /// Out-degree of `v`.
    pub fn out_degree(&self, v: VertexId) -> u32 {
        self.offsets[v as usize + 1] - self.offsets[v as usize]
    }

    /// Heads of the arcs leaving `v`.
    pub fn targets_of(&self, v: VertexId) -> &[VertexId] {
        &self.targets[self.arc_range(v)]
    }

    /// Weights of the arcs leaving `v`.
    pub fn weights_of(&self, v: VertexId) -> &[W] {
        &self.weights[self.arc_range(v)]
    }

    /// `(head, weight)` of each arc leaving `v`.
    pub fn out_arcs(&self, v: VertexId) -> impl ExactSizeIterator<Item = (VertexId, W)> + '_ {
        let r = self.arc_range(v);
        self.targets[r.clone()].iter().copied().zip(self.weights[r].iter().copied())
    }

    /// Every arc as `(tail, head, weight)`, in arc-id order.
    pub fn arcs(&self) -> impl Iterator<Item = (VertexId, VertexId, W)> + '_ {
        (0..self.num_vertices()).flat_map(move |u| self.out_arcs(u).map(move |(v, w)| (u, v, w)))
    }

    /// The tail of every arc, indexed by arc id (useful for edge-parallel kernels).
    pub fn arc_tails(&self) -> Vec<VertexId> {
        let mut tails = Vec::with_capacity(self.targets.len());
        for v in 0..self.num_vertices() {
            tails.extend(std::iter::repeat_n(v, self.out_degree(v) as usize));
        }
        tails
    }

    /// Maps every weight through `f`, keeping the structure (the result is checked).
    pub fn map_weights<V: Weight>(&self, f: impl Fn(W) -> V) -> Result<Csr<V>, GraphError> {
        self.with_weights(self.weights.iter().map(|&w| f(w)).collect())
    }

    /// The same arcs with other weights, one per arc in arc order (a new metric on this shape), checked
    /// like the builder's.
    ///
    /// ```
    /// let g = urbanflow::graph::generators::grid_2d(3, 3);
    /// let doubled = g.with_weights(g.weights().iter().map(|w| 2 * w).collect()).unwrap();
    /// assert_eq!(doubled.targets(), g.targets());
    /// assert!(g.with_weights(vec![1u32; 2]).is_err());
    /// ```
    pub fn with_weights<V: Weight>(&self, weights: Vec<V>) -> Result<Csr<V>, GraphError> {
        if weights.len() != self.targets.len() {
            return Err(GraphError::MalformedCsr(format!(
                "{} weights for {} arcs",
                weights.len(),
                self.targets.len()
            )));
        }
        for (arc, &w) in weights.iter().enumerate() {
            if let Err(issue) = w.check() {
                return Err(GraphError::BadWeight { arc, value: w.to_string(), issue });
            }
        }
        Ok(Csr { offsets: self.offsets.clone(), targets: self.targets.clone(), weights })
    }

    /// Splits the graph into its arrays `(offsets, targets, weights)`.
    pub fn into_parts(self) -> (Vec<u32>, Vec<VertexId>, Vec<W>) {
        (self.offsets, self.targets, self.weights)
    }

    /// Bytes taken by the three arrays (what a GPU upload costs).
    pub fn size_in_bytes(&self) -> usize {
        std::mem::size_of_val(self.offsets.as_slice())
            + std::mem::size_of_val(self.targets.as_slice())
            + std::mem::size_of_val(self.weights.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_parts_rejects_inconsistent_arrays() {
        assert!(Csr::<u32>::from_parts(vec![], vec![], vec![]).is_err());
        assert!(Csr::<u32>::from_parts(vec![1, 1], vec![0], vec![1]).is_err());
        assert!(Csr::<u32>::from_parts(vec![0, 2, 1], vec![0, 1], vec![1, 1]).is_err());
        assert!(Csr::<u32>::from_parts(vec![0, 1], vec![0, 0], vec![1, 1]).is_err());
        assert!(matches!(
            Csr::<u32>::from_parts(vec![0, 1, 2], vec![1, 2], vec![1, 1]),
            Err(GraphError::VertexOutOfRange { arc: 1, tail: 1, head: 2, n: 2 })
        ));
        assert!(matches!(
            Csr::<f32>::from_parts(vec![0, 1], vec![0], vec![f32::NAN]),
            Err(GraphError::BadWeight { arc: 0, .. })
        ));
        let g = Csr::<u32>::from_parts(vec![0, 1, 1], vec![1], vec![9]).unwrap();
        assert_eq!(g.arcs().collect::<Vec<_>>(), vec![(0, 1, 9)]);
        assert_eq!(g.arc_tails(), vec![0]);
    }
}
