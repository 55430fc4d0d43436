//! The metric-independent part of a CCH: the chordal supergraph of the input graph under a vertex
//! order (the elimination game: contracting a vertex joins all its higher neighbours), each edge's
//! lower triangles.

use rayon::prelude::*;

/// Most lower triangles a CCH may have (~20 bytes each while built): road networks of cities have a
/// few million; graphs without small separators have far more, and would exhaust memory.
pub(super) const MAX_TRIANGLES: u64 = 1 << 28;

/// The chordal supergraph in rank space, with what customisation needs.
#[derive(Debug, Clone)]
pub(super) struct Topology {
    /// Edge `e` of rank `r` (lower endpoint) is `{r, head[e]}`, `first_out[r] <= e < first_out[r + 1]`,
    /// heads ascending within a rank.
    pub first_out: Vec<u32>,
    pub head: Vec<u32>,
    /// Lower triangles of edge `f = {x, y}` (x < y): `tri[tri_first[f]..tri_first[f + 1]]`, each
    /// `[{v, x}, {v, y}]` for a common lower neighbour `v`.
    pub tri_first: Vec<u64>,
    pub tri: Vec<[u32; 2]>,
}

impl Topology {
    /// The elimination game on the undirected graph `adj` (rank space: `adj[r]` holds neighbour ranks),
    /// or the number of lower triangles when above [`MAX_TRIANGLES`].
    pub fn build(mut adj: Vec<Vec<u32>>) -> Result<Self, u64> {
        let n = adj.len();
        let mut first_out = Vec::with_capacity(n + 1);
        let mut head = Vec::new();
        first_out.push(0u32);
        for r in 0..n {
            let mut up = std::mem::take(&mut adj[r]);
            up.retain(|&h| h as usize > r);
            up.sort_unstable();
            up.dedup();
            // Contracting r joins its higher neighbours pairwise; it is enough to hand them to the
            // lowest one, which will pass them on when it is contracted.
            if let Some((&parent, rest)) = up.split_first() {
                adj[parent as usize].extend_from_slice(rest);
            }
            head.extend_from_slice(&up);
            first_out.push(head.len() as u32);
        }
        let find = |x: u32, y: u32| -> u32 {
            let (s, e) = (first_out[x as usize] as usize, first_out[x as usize + 1] as usize);
            let i = head[s..e].binary_search(&y).expect("the elimination game keeps the graph chordal");
            (s + i) as u32
        };
        // Triangles, grouped by their top edge: counted, then placed.
        let edges = head.len();
        let triangles: u64 = (0..n)
            .map(|v| {
                let d = (first_out[v + 1] - first_out[v]) as u64;
                d * d.saturating_sub(1) / 2
            })
            .sum();
        if triangles > MAX_TRIANGLES {
            return Err(triangles);
        }
        let per_vertex: Vec<Vec<(u32, [u32; 2])>> = (0..n)
            .into_par_iter()
            .map(|v| {
                let (s, e) = (first_out[v] as usize, first_out[v + 1] as usize);
                let mut out = Vec::new();
                for i in s..e {
                    for j in i + 1..e {
                        out.push((find(head[i], head[j]), [i as u32, j as u32]));
                    }
                }
                out
            })
            .collect();
        let mut tri_first = vec![0u64; edges + 1];
        for list in &per_vertex {
            for &(f, _) in list {
                tri_first[f as usize + 1] += 1;
            }
        }
        for f in 0..edges {
            tri_first[f + 1] += tri_first[f];
        }
        let mut fill = tri_first.clone();
        let mut tri = vec![[0u32; 2]; tri_first[edges] as usize];
        for list in per_vertex {
            for (f, t) in list {
                tri[fill[f as usize] as usize] = t;
                fill[f as usize] += 1;
            }
        }
        Ok(Self { first_out, head, tri_first, tri })
    }

    /// Number of edges.
    pub fn num_edges(&self) -> usize {
        self.head.len()
    }

    /// The edge `{x, y}` (`x < y`), if present.
    pub fn edge(&self, x: u32, y: u32) -> Option<u32> {
        let (s, e) = (self.first_out[x as usize] as usize, self.first_out[x as usize + 1] as usize);
        self.head[s..e].binary_search(&y).ok().map(|i| (s + i) as u32)
    }
}
