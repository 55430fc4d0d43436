//! The nearest points of interest from every source, with their distances.

use algos_sssp::UNREACHABLE;
use algos_sssp::cpu::queue::LazyHeap;
use algos_sssp::cpu::search::{Settle, Workspace, dijkstra_search};
use graph_core::Csr;
use rayon::prelude::*;

use crate::error::AccessError;
use crate::opportunities::{NO_SLOT, Opportunities};

/// No point (fewer than `k` within reach).
pub const NO_POINT: u32 = u32::MAX;

/// The `k` nearest points of every source: `k` entries per source, nearest first, ties by vertex id,
/// several points at one vertex as several entries; missing ones are `(NO_POINT, UNREACHABLE)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nearest {
    /// Entries per source.
    pub k: usize,
    /// The sources, as given.
    pub sources: Vec<u32>,
    /// Vertex of each entry (`[source index * k + j]`), [`NO_POINT`] where there is none.
    pub vertex: Vec<u32>,
    /// Distance of each entry, `UNREACHABLE` where there is none.
    pub distance: Vec<u32>,
}

impl Nearest {
    /// Source `i`'s entries: (vertex, distance), nearest first, missing ones left out.
    pub fn of(&self, i: usize) -> impl Iterator<Item = (u32, u32)> + '_ {
        let r = i * self.k..(i + 1) * self.k;
        self.vertex[r.clone()]
            .iter()
            .zip(&self.distance[r])
            .filter(|p| *p.0 != NO_POINT)
            .map(|(&v, &d)| (v, d))
    }
}

/// The `k` nearest points of `opportunities` from each source within `max_distance` (inclusive; `None`:
/// unbounded): bounded searches on all cores, each stopped once `k` points and every vertex tied with
/// the last are settled. Like pandana's `nearest_pois`.
///
/// ```
/// use urbanflow::access::{Opportunities, nearest};
/// let g = urbanflow::graph::generators::grid_2d(1, 6); // a path 0 - 1 - ... - 5, unit weights
/// let schools = Opportunities::new(6, &[(5, 1.0), (1, 1.0), (4, 1.0)])?;
/// let near = nearest(&g, &schools, &[3], 2, None)?;
/// assert_eq!(near.of(0).collect::<Vec<_>>(), [(4, 1), (1, 2)]); // 5 is also 2 away: ties by vertex id
/// let bounded = nearest(&g, &schools, &[0], 3, Some(2))?;
/// assert_eq!(bounded.of(0).collect::<Vec<_>>(), [(1, 1)]);
/// # Ok::<(), urbanflow::access::AccessError>(())
/// ```
pub fn nearest(
    graph: &Csr<u32>,
    opportunities: &Opportunities,
    sources: &[u32],
    k: usize,
    max_distance: Option<u32>,
) -> Result<Nearest, AccessError> {
    let n = graph.num_vertices();
    opportunities.check_on(graph, sources)?;
    if k == 0 {
        return Err(AccessError::InvalidParameter("k = 0: expected at least one point per source".into()));
    }
    let reach = max_distance.unwrap_or(algos_sssp::SATURATED - 1).min(algos_sssp::SATURATED - 1);
    let mut vertex = vec![NO_POINT; sources.len() * k];
    let mut distance = vec![UNREACHABLE; sources.len() * k];
    let slot = &opportunities.slot;
    vertex.par_chunks_mut(k).zip(distance.par_chunks_mut(k)).zip(sources.par_iter()).for_each_init(
        || {
            let ws = Workspace::new(LazyHeap::with_capacity(1024)).with_touched();
            (vec![UNREACHABLE; n as usize], ws, Vec::<(u32, u32)>::new())
        },
        |(dist, ws, found), ((vs, ds), &source)| {
            found.clear();
            let mut points = 0usize;
            let mut last = UNREACHABLE;
            dijkstra_search(graph, source, dist, ws, |v, d| {
                if d > reach || (points >= k && d > last) {
                    return Settle::Stop;
                }
                let s = slot[v as usize];
                if s != NO_SLOT {
                    found.push((d, v));
                    points += opportunities.count[s as usize] as usize;
                    last = d;
                }
                Settle::Expand
            });
            ws.reset(dist);
            found.sort_unstable();
            let entries = found.iter().flat_map(|&(d, v)| {
                let c = opportunities.count[slot[v as usize] as usize] as usize;
                std::iter::repeat_n((v, d), c)
            });
            for ((v, d), (vo, dout)) in entries.zip(vs.iter_mut().zip(ds.iter_mut())) {
                *vo = v;
                *dout = d;
            }
        },
    );
    Ok(Nearest { k, sources: sources.to_vec(), vertex, distance })
}
