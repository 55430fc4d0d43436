//! Opportunities: points of interest with weights (jobs, shops, schools), gathered per vertex.
//!
//! Several points may sit at one vertex (snapped to the same street corner): a vertex keeps their
//! count, the sum of their weights and the least and greatest weight, which is all any aggregation
//! needs, since every point of a vertex is at the vertex's distance.

use crate::error::AccessError;

/// No point at a vertex.
pub(crate) const NO_SLOT: u32 = u32::MAX;

/// Points with weights, gathered per vertex of a graph.
///
/// Sums are kept in 64-bit fixed point with a scale chosen from the total weight (2^62 for all of it
/// together), so that they are exact integers on every engine, added in any order: CPU and GPU give
/// the same flat sums bit for bit, and the rounding of one weight is below 2^−62 of the total.
///
/// ```
/// use urbanflow::access::Opportunities;
/// // Two shops at vertex 3, one at vertex 0.
/// let o = Opportunities::new(5, &[(3, 2.0), (0, 1.5), (3, 4.0)]).unwrap();
/// assert_eq!(o.num_points(), 3);
/// assert_eq!(o.num_vertices_with_points(), 2);
/// assert_eq!(o.total_weight(), 7.5);
/// assert!(Opportunities::new(5, &[(7, 1.0)]).is_err()); // no vertex 7
/// assert!(Opportunities::new(5, &[(1, -1.0)]).is_err()); // weights are ≥ 0
/// ```
#[derive(Debug, Clone)]
pub struct Opportunities {
    n: u32,
    /// Vertices holding points, ascending.
    pub(crate) vertices: Vec<u32>,
    /// Points at each of `vertices`.
    pub(crate) count: Vec<u32>,
    /// Sum of the weights at each of `vertices`.
    pub(crate) weight: Vec<f64>,
    /// `weight` in fixed point: round(weight · 2^scale_exp).
    pub(crate) weight_q: Vec<u64>,
    /// Rank (in `values`) of the least and the greatest point weight at each of `vertices`.
    pub(crate) min_rank: Vec<u32>,
    pub(crate) max_rank: Vec<u32>,
    /// The distinct point weights, ascending: min and max travel as ranks, exactly.
    pub(crate) values: Vec<f64>,
    /// Index into `vertices` of every vertex, [`NO_SLOT`] where it has no point.
    pub(crate) slot: Vec<u32>,
    /// Fixed-point exponent: a sum unit is 2^−scale_exp.
    pub(crate) scale_exp: i32,
    total: f64,
    points: usize,
}

impl Opportunities {
    /// Points `(vertex, weight)` on a graph of `n` vertices. Errors: a vertex ≥ `n`, a weight that is
    /// negative, infinite or NaN, more than `u32::MAX` points.
    pub fn new(n: u32, points: &[(u32, f64)]) -> Result<Self, AccessError> {
        if points.len() >= u32::MAX as usize {
            return Err(AccessError::InvalidParameter(format!("{} points: at most 2^32 − 2", points.len())));
        }
        for (index, &(vertex, weight)) in points.iter().enumerate() {
            if vertex >= n {
                return Err(AccessError::PointVertex { index, vertex, n });
            }
            if !(weight.is_finite() && weight >= 0.0) {
                return Err(AccessError::PointWeight { index, weight });
            }
        }
        let mut values: Vec<f64> = points.iter().map(|p| p.1).collect();
        values.sort_by(f64::total_cmp);
        values.dedup();
        let rank = |w: f64| values.partition_point(|&x| x < w) as u32;
        let mut sorted: Vec<(u32, f64)> = points.to_vec();
        sorted.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        let mut o = Self {
            n,
            vertices: Vec::new(),
            count: Vec::new(),
            weight: Vec::new(),
            weight_q: Vec::new(),
            min_rank: Vec::new(),
            max_rank: Vec::new(),
            values: Vec::new(),
            slot: vec![NO_SLOT; n as usize],
            scale_exp: 0,
            total: 0.0,
            points: points.len(),
        };
        for group in sorted.chunk_by(|a, b| a.0 == b.0) {
            let v = group[0].0;
            o.slot[v as usize] = o.vertices.len() as u32;
            o.vertices.push(v);
            o.count.push(group.len() as u32);
            // Ascending weights: the sum is the same whatever the input order.
            o.weight.push(group.iter().map(|p| p.1).sum());
            o.min_rank.push(rank(group[0].1));
            o.max_rank.push(rank(group[group.len() - 1].1));
        }
        o.total = o.weight.iter().sum();
        o.scale_exp = scale_exponent(o.total);
        let unit = 2f64.powi(o.scale_exp);
        o.weight_q = o.weight.iter().map(|&w| (w * unit).round() as u64).collect();
        o.values = values;
        Ok(o)
    }

    /// One point of weight 1 at every vertex (closeness, reach counts).
    pub fn every_vertex(n: u32) -> Self {
        let points: Vec<(u32, f64)> = (0..n).map(|v| (v, 1.0)).collect();
        Self::new(n, &points).expect("vertices in range, weights 1")
    }

    /// Vertices of the graph the points are on.
    pub fn num_graph_vertices(&self) -> u32 {
        self.n
    }

    /// Points given.
    pub fn num_points(&self) -> usize {
        self.points
    }

    /// Vertices holding at least one point.
    pub fn num_vertices_with_points(&self) -> usize {
        self.vertices.len()
    }

    /// Sum of all weights.
    pub fn total_weight(&self) -> f64 {
        self.total
    }

    /// The weight of `v`'s points together (0 where it has none).
    pub fn weight_at(&self, v: u32) -> f64 {
        match self.slot.get(v as usize) {
            Some(&s) if s != NO_SLOT => self.weight[s as usize],
            _ => 0.0,
        }
    }

    /// Checks that these points are on `graph` and `sources` are its vertices.
    pub(crate) fn check_on(&self, graph: &graph_core::Csr<u32>, sources: &[u32]) -> Result<(), AccessError> {
        let n = graph.num_vertices();
        if self.n != n {
            return Err(AccessError::InvalidParameter(format!(
                "the opportunities are on a graph of {} vertices, this one has {n}",
                self.n
            )));
        }
        if let Some(&vertex) = sources.iter().find(|&&s| s >= n) {
            return Err(algos_sssp::SsspError::SourceOutOfRange { vertex, n }.into());
        }
        Ok(())
    }

    /// Points at `v`.
    pub fn count_at(&self, v: u32) -> u32 {
        match self.slot.get(v as usize) {
            Some(&s) if s != NO_SLOT => self.count[s as usize],
            _ => 0,
        }
    }
}

/// The fixed-point exponent for weights totalling `total`: total · 2^e ≤ 2^62, so that sums of
/// contributions (each at most its weight, plus half a unit of rounding) never pass 2^63. Kept within
/// ±100 so that 2^e is a normal f32 (the GPU scales by it).
fn scale_exponent(total: f64) -> i32 {
    if total <= 0.0 {
        return 0;
    }
    let e = total.log2().ceil() as i32;
    (62 - e).clamp(-100, 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_fit_the_fixed_point_range() {
        for total in [1e-30, 0.3, 1.0, 7.5, 1e6, 1e15, 4e18] {
            let e = scale_exponent(total);
            assert!(total * 2f64.powi(e) <= 2f64.powi(62), "{total}");
            assert!(total * 2f64.powi(e) > 2f64.powi(60) || e == 100, "{total}: precision kept");
        }
    }

    #[test]
    fn vertices_gather_their_points() {
        let o = Opportunities::new(4, &[(2, 5.0), (1, 1.0), (2, 0.5), (2, 5.0)]).unwrap();
        assert_eq!(o.vertices, [1, 2]);
        assert_eq!(o.count, [1, 3]);
        assert_eq!(o.weight, [1.0, 10.5]);
        assert_eq!(o.values, [0.5, 1.0, 5.0]);
        assert_eq!((o.min_rank[1], o.max_rank[1]), (0, 2));
        assert_eq!(o.slot, [NO_SLOT, 0, 1, NO_SLOT]);
        assert_eq!(o.weight_at(2), 10.5);
        assert_eq!(o.count_at(3), 0);
    }
}
