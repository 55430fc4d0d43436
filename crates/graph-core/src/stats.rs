//! Degree statistics.

use crate::csr::Csr;
use crate::weight::Weight;

/// Degree and structure statistics of a graph, as printed by the examples.
#[derive(Debug, Clone, PartialEq)]
pub struct DegreeStats {
    /// Vertices.
    pub vertices: u32,
    /// Arcs.
    pub arcs: u32,
    /// Smallest out-degree.
    pub min_out: u32,
    /// Largest out-degree.
    pub max_out: u32,
    /// Mean out-degree (= mean in-degree).
    pub mean_out: f64,
    /// Largest in-degree.
    pub max_in: u32,
    /// Vertices with neither in- nor out-arcs.
    pub isolated: u32,
    /// Arcs from a vertex to itself.
    pub self_loops: u32,
    /// `histogram[d]` = vertices of out-degree `d`, for `d` up to 15; the last bucket holds 16 and more.
    pub out_degree_histogram: [u32; 17],
    /// Smallest weight, if any arc.
    pub min_weight: Option<f64>,
    /// Largest weight, if any arc.
    pub max_weight: Option<f64>,
}

impl<W: Weight> Csr<W> {
    /// Computes [`DegreeStats`] in one pass over the arrays.
    pub fn degree_stats(&self) -> DegreeStats {
        let n = self.num_vertices();
        let mut in_deg = vec![0u32; n as usize];
        let mut s = DegreeStats {
            vertices: n,
            arcs: self.num_arcs(),
            min_out: if n == 0 { 0 } else { u32::MAX },
            max_out: 0,
            mean_out: if n == 0 { 0.0 } else { self.num_arcs() as f64 / n as f64 },
            max_in: 0,
            isolated: 0,
            self_loops: 0,
            out_degree_histogram: [0; 17],
            min_weight: None,
            max_weight: None,
        };
        for v in 0..n {
            let d = self.out_degree(v);
            s.min_out = s.min_out.min(d);
            s.max_out = s.max_out.max(d);
            s.out_degree_histogram[d.min(16) as usize] += 1;
            for &h in self.targets_of(v) {
                in_deg[h as usize] += 1;
                s.self_loops += (h == v) as u32;
            }
        }
        for v in 0..n {
            s.max_in = s.max_in.max(in_deg[v as usize]);
            s.isolated += (in_deg[v as usize] == 0 && self.out_degree(v) == 0) as u32;
        }
        for &w in self.weights() {
            let w = w.to_f64();
            s.min_weight = Some(s.min_weight.map_or(w, |m| m.min(w)));
            s.max_weight = Some(s.max_weight.map_or(w, |m| m.max(w)));
        }
        s
    }
}
