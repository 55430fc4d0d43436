//! Node ordering and contraction with witness searches.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use graph_core::Csr;
use rayon::prelude::*;

use super::ContractionHierarchy;
use crate::cpu::queue::LazyHeap;
use crate::cpu::search::{OutArcs, Settle, Workspace, dijkstra_search};
use crate::paths::{SATURATED, UNREACHABLE};

/// Vertices a witness search may settle before giving up (then the shortcut is added: safe).
const WITNESS_SETTLED: usize = 500;
/// A smaller limit while only estimating priorities.
const ESTIMATE_SETTLED: usize = 60;

/// The remaining graph: arcs between uncontracted vertices, the lightest of parallel ones.
struct Remaining {
    out: Vec<Vec<(u32, u32)>>,
    inn: Vec<Vec<(u32, u32)>>,
}

fn insert_min(list: &mut Vec<(u32, u32)>, to: u32, w: u32) {
    match list.iter_mut().find(|e| e.0 == to) {
        Some(e) => e.1 = e.1.min(w),
        None => list.push((to, w)),
    }
}

/// The remaining graph's arcs as the generic search reads them, none into `skip`: a witness avoids the
/// vertex being contracted. Witnesses record no predecessors, so the arc id passed is 0.
struct Avoiding<'a> {
    g: &'a Remaining,
    skip: u32,
}

impl OutArcs<u32> for Avoiding<'_> {
    #[inline]
    fn for_each_out(&self, v: u32, mut relax: impl FnMut(u32, u32, u32)) {
        for &(y, w) in &self.g.out[v as usize] {
            if y != self.skip {
                relax(y, w, 0);
            }
        }
    }
}

/// Reusable state for witness searches: the one generic Dijkstra ([`crate::cpu::search`]), reset by
/// the vertices it touched.
struct Witness {
    dist: Vec<u32>,
    ws: Workspace<u32, LazyHeap<u32>>,
}

impl Witness {
    fn new(n: usize) -> Self {
        Self { dist: vec![UNREACHABLE; n], ws: Workspace::new(LazyHeap::with_capacity(64)).with_touched() }
    }

    /// Distances from `u` avoiding `skip`, settling at most `limit` vertices and nothing beyond
    /// `bound`; read them with `get` before the next search (labels not settled are upper bounds).
    fn search(&mut self, g: &Remaining, u: u32, skip: u32, bound: u32, limit: usize) {
        self.ws.reset(&mut self.dist);
        let mut settled = 0;
        dijkstra_search(&Avoiding { g, skip }, u, &mut self.dist, &mut self.ws, |_, d| {
            if d > bound || settled >= limit {
                return Settle::Stop;
            }
            settled += 1;
            Settle::Expand
        });
    }

    fn get(&self, x: u32) -> u32 {
        self.dist[x as usize]
    }
}

/// The shortcuts contracting `v` needs: `(u, w, weight)` for each in-neighbour u and out-neighbour w
/// whose path through v no witness (at most as long, avoiding v) beats.
fn shortcuts_of(g: &Remaining, ws: &mut Witness, v: u32, limit: usize, out: &mut Vec<(u32, u32, u32)>) {
    out.clear();
    let max_out = g.out[v as usize].iter().map(|e| e.1).max().unwrap_or(0);
    for &(u, wu) in &g.inn[v as usize] {
        let bound = wu.saturating_add(max_out);
        ws.search(g, u, v, bound, limit);
        for &(w, ww) in &g.out[v as usize] {
            if w == u {
                continue;
            }
            // Clamped like every sum of the crate, so an overflowing path stays visible as SATURATED.
            let via = wu.saturating_add(ww).min(SATURATED);
            if ws.get(w) > via {
                out.push((u, w, via));
            }
        }
    }
}

/// Edge difference plus contracted neighbours plus level: small first.
fn priority(
    g: &Remaining,
    ws: &mut Witness,
    v: u32,
    deleted: &[u32],
    level: &[u32],
    buf: &mut Vec<(u32, u32, u32)>,
) -> i64 {
    shortcuts_of(g, ws, v, ESTIMATE_SETTLED, buf);
    let removed = g.out[v as usize].len() + g.inn[v as usize].len();
    2 * (buf.len() as i64 - removed as i64) + deleted[v as usize] as i64 + level[v as usize] as i64
}

pub(super) fn contract(graph: &Csr<u32>) -> ContractionHierarchy {
    let n = graph.num_vertices() as usize;
    let mut g = Remaining { out: vec![Vec::new(); n], inn: vec![Vec::new(); n] };
    for (u, v, w) in graph.arcs() {
        if u != v {
            insert_min(&mut g.out[u as usize], v, w);
            insert_min(&mut g.inn[v as usize], u, w);
        }
    }
    let mut deleted = vec![0u32; n];
    let mut level = vec![0u32; n];
    let mut prio: Vec<i64> = (0..n as u32)
        .into_par_iter()
        .map_init(|| (Witness::new(n), Vec::new()), |(ws, buf), v| priority(&g, ws, v, &deleted, &level, buf))
        .collect();
    let mut heap: BinaryHeap<Reverse<(i64, u32)>> =
        (0..n as u32).map(|v| Reverse((prio[v as usize], v))).collect();
    let mut ws = Witness::new(n);
    let mut buf = Vec::new();
    let mut contracted = vec![false; n];
    let mut rank = vec![0u32; n];
    let mut order = Vec::with_capacity(n);
    // Per rank: arcs to and from higher ranks, as vertex ids (ranks are known only at the end).
    let mut up_arcs: Vec<Vec<(u32, u32)>> = Vec::with_capacity(n);
    let mut down_arcs: Vec<Vec<(u32, u32)>> = Vec::with_capacity(n);
    let mut shortcuts = 0usize;
    while let Some(Reverse((p, v))) = heap.pop() {
        if contracted[v as usize] || p != prio[v as usize] {
            continue;
        }
        // Lazy update: contract v only if its fresh priority still beats the next candidate.
        let fresh = priority(&g, &mut ws, v, &deleted, &level, &mut buf);
        if let Some(&Reverse((next, _))) = heap.peek()
            && fresh > next
        {
            prio[v as usize] = fresh;
            heap.push(Reverse((fresh, v)));
            continue;
        }
        shortcuts_of(&g, &mut ws, v, WITNESS_SETTLED, &mut buf);
        for &(u, w, d) in &buf {
            insert_min(&mut g.out[u as usize], w, d);
            insert_min(&mut g.inn[w as usize], u, d);
        }
        shortcuts += buf.len();
        contracted[v as usize] = true;
        rank[v as usize] = order.len() as u32;
        order.push(v);
        let outs = std::mem::take(&mut g.out[v as usize]);
        let inns = std::mem::take(&mut g.inn[v as usize]);
        for &(w, _) in &outs {
            g.inn[w as usize].retain(|e| e.0 != v);
        }
        for &(u, _) in &inns {
            g.out[u as usize].retain(|e| e.0 != v);
        }
        let mut neighbours: Vec<u32> = outs.iter().chain(&inns).map(|e| e.0).collect();
        neighbours.sort_unstable();
        neighbours.dedup();
        for &x in &neighbours {
            deleted[x as usize] += 1;
            level[x as usize] = level[x as usize].max(level[v as usize] + 1);
        }
        for &x in &neighbours {
            let p = priority(&g, &mut ws, x, &deleted, &level, &mut buf);
            prio[x as usize] = p;
            heap.push(Reverse((p, x)));
        }
        up_arcs.push(outs);
        down_arcs.push(inns);
    }
    // Into rank space; arcs of each rank sorted by the other end's rank (sequential reads).
    let to_csr = |lists: &[Vec<(u32, u32)>]| {
        let mut offsets = Vec::with_capacity(n + 1);
        let mut targets = Vec::new();
        let mut weights = Vec::new();
        offsets.push(0u32);
        for list in lists {
            let mut l: Vec<(u32, u32)> = list.iter().map(|&(x, w)| (rank[x as usize], w)).collect();
            l.sort_unstable();
            for (r, w) in l {
                targets.push(r);
                weights.push(w);
            }
            offsets.push(targets.len() as u32);
        }
        Csr::from_parts(offsets, targets, weights).expect("ranks are vertices")
    };
    let up = to_csr(&up_arcs);
    let down = to_csr(&down_arcs);
    ContractionHierarchy { rank, order, up, down, shortcuts, build_seconds: 0.0, elimination_tree: None }
}
