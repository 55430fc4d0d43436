//! The membership overlay problem (SMOP) instance: peers, their on-line probabilities and bandwidth
//! capacities, and the candidate connections with their value and bandwidth bounds.

use std::collections::HashMap;

use crate::error::OverlayError;

/// A candidate connection between two peers (`i < j`, indices into the instance's nodes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Edge {
    /// One end (node index).
    pub i: u32,
    /// The other end (node index, `> i`).
    pub j: u32,
    /// Expected throughput per unit of bandwidth, `p_ij` (by default `p_i · p_j`).
    pub value: f64,
    /// Congestion upper bound `u_ij` on the bandwidth.
    pub upper: f64,
    /// QoS lower bound `l_ij`: a connection carries 0 or a bandwidth in `[l, u]`.
    pub lower: f64,
}

/// An instance of the membership overlay problem (spec overlay.md §1):
///
/// ```text
/// max Σ_(i,j) p_ij x_ij   s.t.  Σ_j x_ij ≤ b_i ∀ i,   x_ij ∈ {0} ∪ [l_ij, u_ij]
/// ```
///
/// Nodes keep the user's ids ([`MopInstance::ids`]); edges are stored once with `i < j` and an
/// incidence list per node (both directions), in the order every backend of this crate visits them.
///
/// ```
/// use algos_overlay::MopInstance;
/// // Three peers, all pairs connectable, u_ij = min(256, b_i, b_j), l = 14.
/// let inst = MopInstance::complete(vec![10, 20, 30], vec![0.9, 0.5, 0.2], vec![300.0, 128.0, 56.0], 256.0, 14.0)?;
/// assert_eq!(inst.edges().len(), 3);
/// assert_eq!(inst.edges()[0].upper, 128.0);
/// assert!((inst.edges()[0].value - 0.45).abs() < 1e-12);
/// # Ok::<(), algos_overlay::OverlayError>(())
/// ```
#[derive(Debug, Clone)]
pub struct MopInstance {
    ids: Vec<u64>,
    p: Vec<f64>,
    b: Vec<f64>,
    edges: Vec<Edge>,
    /// `(u_max, l)` when built by [`MopInstance::complete`].
    rule: Option<(f64, f64)>,
    /// Incidence: node h's arcs are `arcs[start[h]..start[h + 1]]`, sorted by neighbour.
    start: Vec<usize>,
    arcs: Vec<Arc>,
}

/// One direction of an edge, as seen from a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arc {
    /// The neighbour's index.
    pub to: u32,
    /// The edge's index in [`MopInstance::edges`].
    pub edge: u32,
}

impl MopInstance {
    /// An instance from nodes (ids, on-line probabilities, capacities) and candidate edges given by
    /// node *index* (`i != j`, either order; each unordered pair at most once). Validates everything
    /// (typed errors naming the user's ids).
    pub fn new(ids: Vec<u64>, p: Vec<f64>, b: Vec<f64>, edges: Vec<Edge>) -> Result<Self, OverlayError> {
        Self::build(ids, p, b, edges, None)
    }

    /// The complete candidate graph (the seed's instances): every pair, `p_ij = p_i p_j`, `u_ij =
    /// min(u_max, b_i, b_j)`, `l_ij = lower` — except pairs with `u_ij < lower`, which cannot meet their
    /// QoS bound and so are no candidates (with l = 128, a 56 kbps peer connects to nobody).
    pub fn complete(
        ids: Vec<u64>,
        p: Vec<f64>,
        b: Vec<f64>,
        u_max: f64,
        lower: f64,
    ) -> Result<Self, OverlayError> {
        let n = ids.len();
        if p.len() != n || b.len() != n {
            return Err(shape(n, p.len(), b.len()));
        }
        let mut edges = Vec::with_capacity(n * n.saturating_sub(1) / 2);
        if !(u_max.is_finite() && u_max >= 0.0 && lower.is_finite() && lower >= 0.0) {
            return Err(OverlayError::Shape(format!(
                "complete graph: need finite u_max, l ≥ 0, got {u_max}, {lower}"
            )));
        }
        for i in 0..n {
            for j in i + 1..n {
                let upper = u_max.min(b[i]).min(b[j]);
                if upper >= lower {
                    edges.push(Edge { i: i as u32, j: j as u32, value: p[i] * p[j], upper, lower });
                }
            }
        }
        Self::build(ids, p, b, edges, Some((u_max, lower)))
    }

    fn build(
        ids: Vec<u64>,
        p: Vec<f64>,
        b: Vec<f64>,
        mut edges: Vec<Edge>,
        rule: Option<(f64, f64)>,
    ) -> Result<Self, OverlayError> {
        let n = ids.len();
        if p.len() != n || b.len() != n {
            return Err(shape(n, p.len(), b.len()));
        }
        if n > u32::MAX as usize / 2 {
            return Err(OverlayError::Shape(format!("{n} nodes: at most {} are supported", u32::MAX / 2)));
        }
        let mut seen = HashMap::with_capacity(n);
        for (k, &id) in ids.iter().enumerate() {
            if seen.insert(id, k).is_some() {
                return Err(OverlayError::Shape(format!("node id {id} appears twice")));
            }
            if !(0.0..=1.0).contains(&p[k]) {
                return Err(OverlayError::BadProbability { node: id, value: p[k] });
            }
            if !(b[k].is_finite() && b[k] >= 0.0) {
                return Err(OverlayError::NegativeCapacity { node: id, value: b[k] });
            }
        }
        for e in &mut edges {
            let (i, j) = (e.i as usize, e.j as usize);
            if i >= n || j >= n {
                return Err(OverlayError::BadEdge {
                    i: e.i as u64,
                    j: e.j as u64,
                    what: "node index out of range",
                });
            }
            if i == j {
                return Err(OverlayError::BadEdge {
                    i: ids[i],
                    j: ids[j],
                    what: "a peer cannot connect to itself",
                });
            }
            let ok = |x: f64| x.is_finite() && x >= 0.0;
            if !(ok(e.lower) && ok(e.upper) && ok(e.value)) || e.lower > e.upper {
                return Err(OverlayError::LowerAboveUpper {
                    i: ids[i],
                    j: ids[j],
                    lower: e.lower,
                    upper: e.upper,
                    value: e.value,
                });
            }
            if i > j {
                std::mem::swap(&mut e.i, &mut e.j);
            }
        }
        // Incidence lists (both directions), sorted by neighbour; a repeated pair shows up there.
        let mut degree = vec![0usize; n + 1];
        for e in &edges {
            degree[e.i as usize + 1] += 1;
            degree[e.j as usize + 1] += 1;
        }
        for h in 0..n {
            degree[h + 1] += degree[h];
        }
        let start = degree;
        let mut fill = start.clone();
        let mut arcs = vec![Arc { to: 0, edge: 0 }; 2 * edges.len()];
        for (k, e) in edges.iter().enumerate() {
            arcs[fill[e.i as usize]] = Arc { to: e.j, edge: k as u32 };
            fill[e.i as usize] += 1;
            arcs[fill[e.j as usize]] = Arc { to: e.i, edge: k as u32 };
            fill[e.j as usize] += 1;
        }
        for h in 0..n {
            let row = &mut arcs[start[h]..start[h + 1]];
            row.sort_unstable_by_key(|a| a.to);
            if let Some(w) = row.windows(2).find(|w| w[0].to == w[1].to) {
                return Err(OverlayError::BadEdge {
                    i: ids[h],
                    j: ids[w[0].to as usize],
                    what: "given twice",
                });
            }
        }
        if edges.len() > u32::MAX as usize {
            return Err(OverlayError::Shape(format!(
                "{} edges: at most {} are supported",
                edges.len(),
                u32::MAX
            )));
        }
        Ok(Self { ids, p, b, edges, rule, start, arcs })
    }

    /// Number of peers.
    pub fn n(&self) -> usize {
        self.ids.len()
    }

    /// The peers' ids, by index.
    pub fn ids(&self) -> &[u64] {
        &self.ids
    }

    /// On-line probabilities `p_i`, by index.
    pub fn p(&self) -> &[f64] {
        &self.p
    }

    /// Bandwidth capacities `b_i`, by index.
    pub fn b(&self) -> &[f64] {
        &self.b
    }

    /// Candidate edges (`i < j`).
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// `(u_max, l)` when built by [`MopInstance::complete`] (every pair that can meet l a candidate,
    /// values and bounds from the nodes).
    pub fn complete_rule(&self) -> Option<(f64, f64)> {
        self.rule
    }

    /// Node `h`'s arcs, sorted by neighbour.
    pub fn arcs(&self, h: usize) -> &[Arc] {
        &self.arcs[self.start[h]..self.start[h + 1]]
    }

    /// All arcs, node by node (`2 |E|`), and where each node's run starts (`n + 1` offsets).
    pub fn incidence(&self) -> (&[usize], &[Arc]) {
        (&self.start, &self.arcs)
    }

    /// The index of the node with this id.
    pub fn index_of(&self, id: u64) -> Option<usize> {
        self.ids.iter().position(|&x| x == id)
    }

    /// Checks a multiplier vector: one finite value ≥ 0 per node.
    pub fn check_multipliers(&self, lambda: &[f64]) -> Result<(), OverlayError> {
        if lambda.len() != self.n() {
            return Err(OverlayError::BadMultiplier {
                node: lambda.len().min(self.n()),
                what: format!("{} multipliers for {} nodes", lambda.len(), self.n()),
            });
        }
        match lambda.iter().position(|&x| !(x.is_finite() && x >= 0.0)) {
            Some(h) => Err(OverlayError::BadMultiplier {
                node: h,
                what: format!("{} is not a finite value ≥ 0", lambda[h]),
            }),
            None => Ok(()),
        }
    }
}

fn shape(n: usize, p: usize, b: usize) -> OverlayError {
    OverlayError::Shape(format!("{n} ids but {p} probabilities and {b} capacities"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(i: u32, j: u32) -> Edge {
        Edge { i, j, value: 0.5, upper: 10.0, lower: 1.0 }
    }

    #[test]
    fn incidence_lists_both_directions_sorted() {
        let inst =
            MopInstance::new(vec![7, 8, 9], vec![1.0; 3], vec![5.0; 3], vec![e(2, 0), e(0, 1)]).unwrap();
        assert_eq!(inst.edges()[0].i, 0);
        assert_eq!(inst.edges()[0].j, 2);
        assert_eq!(inst.arcs(0), &[Arc { to: 1, edge: 1 }, Arc { to: 2, edge: 0 }]);
        assert_eq!(inst.arcs(2), &[Arc { to: 0, edge: 0 }]);
    }

    #[test]
    fn bad_inputs_are_typed_errors() {
        let ids = vec![7, 8];
        let r = MopInstance::new(ids.clone(), vec![1.5, 0.5], vec![1.0; 2], vec![]);
        assert!(matches!(r, Err(OverlayError::BadProbability { node: 7, .. })));
        let r = MopInstance::new(ids.clone(), vec![0.5; 2], vec![1.0, -1.0], vec![]);
        assert!(matches!(r, Err(OverlayError::NegativeCapacity { node: 8, .. })));
        let mut bad = e(0, 1);
        bad.lower = 20.0;
        let r = MopInstance::new(ids.clone(), vec![0.5; 2], vec![1.0; 2], vec![bad]);
        assert!(matches!(r, Err(OverlayError::LowerAboveUpper { i: 7, j: 8, .. })));
        let r = MopInstance::new(ids.clone(), vec![0.5; 2], vec![1.0; 2], vec![e(0, 1), e(1, 0)]);
        assert!(matches!(r, Err(OverlayError::BadEdge { what: "given twice", .. })));
        let r = MopInstance::new(ids.clone(), vec![0.5; 2], vec![1.0; 2], vec![e(1, 1)]);
        assert!(matches!(r, Err(OverlayError::BadEdge { .. })));
        let r = MopInstance::new(ids, vec![0.5; 2], vec![1.0; 2], vec![e(0, 2)]);
        assert!(matches!(r, Err(OverlayError::BadEdge { .. })));
        let r = MopInstance::new(vec![1, 1], vec![0.5; 2], vec![1.0; 2], vec![]);
        assert!(matches!(r, Err(OverlayError::Shape(_))));
    }
}
