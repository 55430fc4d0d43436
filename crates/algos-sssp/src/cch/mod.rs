//! Customisable contraction hierarchies (Dibbelt, Strasser, Wagner 2014): a hierarchy whose shape
//! does not depend on the arc weights, so a new metric (the link costs of a traffic-assignment
//! iteration) costs one customisation — milliseconds on a city — instead of a new contraction.
//!
//! - [`Cch::build`] orders the vertices by nested dissection ([`order`]: METIS bisections, minimum
//!   vertex covers of the cuts as separators) and builds the chordal supergraph of that order with
//!   every edge's lower triangles. Only the graph's shape is read.
//! - [`Cch::customise`] takes weights for the input arcs and runs the basic customisation: each edge
//!   `{x, y}` takes the minimum of its input arcs and of `x → v → y` over its lower triangles, edges of
//!   one level in parallel (rayon). The result is a [`ContractionHierarchy`], so everything that runs
//!   on one — [`ContractionHierarchy::phast`], [`crate::ch::gpu::GpuPhast`], `many_to_all` with
//!   `Method::Phast` — runs on it, with Dijkstra's distances exactly.
//!
//! Directions an edge does not have in the input stay [`UNREACHABLE`] (never a finite weight), so
//! one-way streets keep the same topology under every metric.
//!
//! ```
//! use algos_sssp::cch::Cch;
//! use graph_core::GraphBuilder;
//! let mut b = GraphBuilder::new(4);
//! b.add_arc(0, 1, 4).add_arc(0, 2, 1).add_arc(2, 1, 2).add_arc(1, 3, 5);
//! let g = b.build().unwrap().0;
//! let cch = Cch::build(&g).unwrap();
//! assert_eq!(cch.customise(g.weights()).unwrap().phast(&[0]).unwrap()[0], vec![0, 3, 1, 8]);
//! // A new metric on the same shape: the arc 0 → 2 becomes expensive.
//! let ch = cch.customise(&[4, 10, 2, 5]).unwrap();
//! assert_eq!(ch.phast(&[0]).unwrap()[0], vec![0, 4, 10, 9]);
//! ```

mod order;
mod topology;

use graph_core::{Csr, Weight};
use rayon::prelude::*;

use crate::ch::ContractionHierarchy;
use crate::error::SsspError;
use crate::paths::{SATURATED, UNREACHABLE};
use order::Undirected;
use topology::Topology;

/// Below this many triangles one thread customises faster than rayon's per-level fork/join.
const PARALLEL_TRIANGLES: u64 = 1 << 20;

/// The metric-independent hierarchy of one graph shape.
#[derive(Debug, Clone)]
pub struct Cch {
    rank: Vec<u32>,
    order: Vec<u32>,
    topo: Topology,
    /// For each input arc, the slot of its weight: `2e` (upward along edge `e`), `2e + 1`
    /// (downward), or `u32::MAX` for a self-loop.
    arc_slot: Vec<u32>,
    /// Edges that carry no input arc (shortcuts of the chordal supergraph).
    shortcuts: usize,
    /// Seconds spent ordering (nested dissection).
    pub order_seconds: f64,
    /// Seconds spent building the chordal supergraph and its triangles.
    pub topology_seconds: f64,
}

/// The sum of two weights: unreachable stays unreachable, overflow saturates (and is reported).
fn link(a: u32, b: u32) -> u32 {
    if a == UNREACHABLE || b == UNREACHABLE { UNREACHABLE } else { a.saturating_add(b).min(SATURATED) }
}

impl Cch {
    /// Orders `graph` by nested dissection and builds its chordal supergraph (weights are not read).
    pub fn build<W: Weight>(graph: &Csr<W>) -> Result<Self, SsspError> {
        let n = graph.num_vertices() as usize;
        let t = std::time::Instant::now();
        let undirected = Undirected::from_arcs(n, graph.arcs().map(|(u, v, _)| (u, v)));
        let order = order::nested_dissection(&undirected)?;
        let mut rank = vec![0u32; n];
        for (r, &v) in order.iter().enumerate() {
            rank[v as usize] = r as u32;
        }
        let order_seconds = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let mut adj = vec![Vec::new(); n];
        for v in 0..n {
            let r = rank[v];
            for &w in &undirected.adj[undirected.offsets[v] as usize..undirected.offsets[v + 1] as usize] {
                adj[r as usize].push(rank[w as usize]);
            }
        }
        let topo = Topology::build(adj);
        let arc_slot = graph
            .arcs()
            .map(|(u, v, _)| {
                let (ru, rv) = (rank[u as usize], rank[v as usize]);
                match ru.cmp(&rv) {
                    std::cmp::Ordering::Equal => u32::MAX,
                    std::cmp::Ordering::Less => 2 * topo.edge(ru, rv).expect("input edge"),
                    std::cmp::Ordering::Greater => 2 * topo.edge(rv, ru).expect("input edge") + 1,
                }
            })
            .collect::<Vec<u32>>();
        let mut has_arc = vec![false; topo.num_edges()];
        arc_slot.iter().filter(|&&s| s != u32::MAX).for_each(|&s| has_arc[s as usize / 2] = true);
        let shortcuts = has_arc.iter().filter(|&&h| !h).count();
        let topology_seconds = t.elapsed().as_secs_f64();
        Ok(Self { rank, order, topo, arc_slot, shortcuts, order_seconds, topology_seconds })
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> u32 {
        self.rank.len() as u32
    }

    /// Number of input arcs the customisation expects weights for.
    pub fn num_input_arcs(&self) -> usize {
        self.arc_slot.len()
    }

    /// Edges of the chordal supergraph (each gives an upward and a downward arc).
    pub fn num_edges(&self) -> usize {
        self.topo.num_edges()
    }

    /// Lower triangles (the work of one customisation).
    pub fn num_triangles(&self) -> u64 {
        self.topo.tri.len() as u64
    }

    /// Customisation levels (sequential steps of a parallel customisation).
    pub fn num_levels(&self) -> usize {
        self.topo.levels.len()
    }

    /// Rank of every vertex (0 = lowest).
    pub fn rank(&self) -> &[u32] {
        &self.rank
    }

    /// The hierarchy for `weights` (one per input arc, in the graph's arc order): upward and downward
    /// arc weights of every edge after the basic customisation.
    pub fn customise(&self, weights: &[u32]) -> Result<ContractionHierarchy, SsspError> {
        let t = std::time::Instant::now();
        let (w, _) = self.customised(weights, false)?;
        self.hierarchy(w, t)
    }

    /// Like [`Self::customise`], also keeping how each hierarchy arc was realised (an input arc or a
    /// lower triangle), to turn loads on hierarchy arcs back into loads on input arcs.
    pub fn customise_with_unpacking(
        &self,
        weights: &[u32],
    ) -> Result<(ContractionHierarchy, Unpacking<'_>), SsspError> {
        let t = std::time::Instant::now();
        let (w, witness) = self.customised(weights, true)?;
        Ok((self.hierarchy(w, t)?, Unpacking { cch: self, witness }))
    }

    fn hierarchy(&self, w: Vec<u32>, t: std::time::Instant) -> Result<ContractionHierarchy, SsspError> {
        let (up, down): (Vec<u32>, Vec<u32>) = w.chunks_exact(2).map(|p| (p[0], p[1])).unzip();
        let csr = |weights| {
            Csr::from_parts(self.topo.first_out.clone(), self.topo.head.clone(), weights)
                .map_err(|e| SsspError::InvalidParameter(format!("CCH arrays: {e}")))
        };
        Ok(ContractionHierarchy {
            rank: self.rank.clone(),
            order: self.order.clone(),
            up: csr(up)?,
            down: csr(down)?,
            shortcuts: self.shortcuts,
            build_seconds: t.elapsed().as_secs_f64(),
        })
    }

    /// Interleaved `[up, down]` weights per edge after the basic customisation, and with `witnesses`
    /// how each was reached: an input arc id, or `TRIANGLE | index` of the lower triangle.
    fn customised(&self, weights: &[u32], witnesses: bool) -> Result<(Vec<u32>, Vec<u64>), SsspError> {
        if weights.len() != self.arc_slot.len() {
            return Err(SsspError::InvalidParameter(format!(
                "{} weights for a CCH of {} arcs",
                weights.len(),
                self.arc_slot.len()
            )));
        }
        if let Some((arc, &w)) = weights.iter().enumerate().find(|&(_, &w)| w >= SATURATED) {
            return Err(SsspError::WeightTooLarge { arc: arc as u32, weight: w });
        }
        let slots = 2 * self.topo.num_edges();
        let mut w = vec![UNREACHABLE; slots];
        let mut why = vec![NONE; if witnesses { slots } else { 0 }];
        for (a, (&slot, &x)) in self.arc_slot.iter().zip(weights).enumerate() {
            // The first lightest input arc realises its slot.
            if slot != u32::MAX && x < w[slot as usize] {
                w[slot as usize] = x;
                if witnesses {
                    why[slot as usize] = a as u64;
                }
            }
        }
        let topo = &self.topo;
        // Edge f = {x, y} with lower triangles via v: x → v → y uses down({v,x}) + up({v,y}), and
        // y → v → x uses down({v,y}) + up({v,x}); every triangle edge has a lower endpoint of a
        // lower level, final before f's level starts. A triangle replaces the current value only
        // when strictly lighter, so the witness is deterministic.
        let relax = |f: usize, w: &[u32], why: &[u64]| -> [(u32, u64); 2] {
            let (mut up, mut down) = (w[2 * f], w[2 * f + 1]);
            let (mut wu, mut wd) = why.get(2 * f..2 * f + 2).map_or((NONE, NONE), |p| (p[0], p[1]));
            let range = topo.tri_first[f] as usize..topo.tri_first[f + 1] as usize;
            for (t, &[e1, e2]) in range.clone().zip(&topo.tri[range]) {
                let (e1, e2) = (e1 as usize, e2 as usize);
                let u = link(w[2 * e1 + 1], w[2 * e2]);
                if u < up {
                    up = u;
                    wu = TRIANGLE | t as u64;
                }
                let d = link(w[2 * e2 + 1], w[2 * e1]);
                if d < down {
                    down = d;
                    wd = TRIANGLE | t as u64;
                }
            }
            [(up, wu), (down, wd)]
        };
        let store = |f: usize, r: [(u32, u64); 2], w: &mut [u32], why: &mut [u64]| {
            w[2 * f] = r[0].0;
            w[2 * f + 1] = r[1].0;
            if witnesses {
                why[2 * f] = r[0].1;
                why[2 * f + 1] = r[1].1;
            }
        };
        let edges_of = |x: u32| topo.first_out[x as usize] as usize..topo.first_out[x as usize + 1] as usize;
        if self.num_triangles() < PARALLEL_TRIANGLES {
            for level in &topo.levels {
                for &x in level {
                    for f in edges_of(x) {
                        let r = relax(f, &w, &why);
                        store(f, r, &mut w, &mut why);
                    }
                }
            }
        } else {
            for level in &topo.levels {
                // Edges of one level read only lower levels: compute them all, then write them back.
                let new: Vec<[(u32, u64); 2]> =
                    level.par_iter().flat_map_iter(|&x| edges_of(x).map(|f| relax(f, &w, &why))).collect();
                let mut it = new.into_iter();
                for &x in level {
                    for f in edges_of(x) {
                        let r = it.next().expect("one result per edge");
                        store(f, r, &mut w, &mut why);
                    }
                }
            }
        }
        Ok((w, why))
    }
}

/// No witness (a direction without a path).
const NONE: u64 = u64::MAX;
/// Witness flag of a lower triangle (else the witness is an input arc id).
const TRIANGLE: u64 = 1 << 63;

/// How every hierarchy arc of one customisation was realised, to turn loads on hierarchy arcs
/// (`ContractionHierarchy` slots: up arc `e` is slot `e`, down arc `e` slot `E + e`) into loads on the
/// input arcs.
#[derive(Debug, Clone)]
pub struct Unpacking<'a> {
    cch: &'a Cch,
    /// Per interleaved slot (`2e` up, `2e + 1` down): input arc id, `TRIANGLE | index`, or `NONE`.
    witness: Vec<u64>,
}

impl Unpacking<'_> {
    /// Input-arc loads of the hierarchy-slot loads `slot_loads` (`2 · edges` long, consumed): each
    /// shortcut's load goes to its two halves, edges from the highest lower endpoint down (a
    /// triangle's halves have lower endpoints below the shortcut's), one pass.
    pub fn arc_loads(&self, mut slot_loads: Vec<u64>) -> Vec<u64> {
        let topo = &self.cch.topo;
        let e_count = topo.num_edges();
        assert_eq!(slot_loads.len(), 2 * e_count, "one load per hierarchy slot");
        let mut out = vec![0u64; self.cch.arc_slot.len()];
        for e in (0..e_count).rev() {
            for (down, slot) in [(false, e), (true, e_count + e)] {
                let load = slot_loads[slot];
                if load == 0 {
                    continue;
                }
                let why = self.witness[2 * e + down as usize];
                if why & TRIANGLE == 0 {
                    debug_assert!(why != NONE, "load on a hierarchy arc without a path");
                    out[why as usize] += load;
                    continue;
                }
                let [e1, e2] = topo.tri[(why & !TRIANGLE) as usize];
                let (e1, e2) = (e1 as usize, e2 as usize);
                // Up x → y = down {v,x} then up {v,y}; down y → x = down {v,y} then up {v,x}.
                let (first_down, then_up) = if down { (e2, e1) } else { (e1, e2) };
                slot_loads[e_count + first_down] += load;
                slot_loads[then_up] += load;
            }
        }
        out
    }
}
