//! Multilevel edge bisection in pure Rust: what orders a CCH when the `metis` feature is off (no C
//! toolchain, WebAssembly). The scheme is METIS's (Karypis & Kumar 1998) in its simplest form:
//! coarsen by heavy-edge matching, bisect the coarsest graph by growing a region from a few seeds,
//! then project back level by level, refining each level's cut by Fiduccia–Mattheyses moves. It is
//! deterministic (a fixed seed), so an order is reproducible on every machine and rank.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use graph_core::rng::SplitMix64;

/// Graphs this small are bisected directly.
const COARSEST: usize = 120;
/// Each side may hold this share of the total vertex weight at most.
const MAX_SIDE: f64 = 0.55;
/// Region-growing tries at the coarsest level.
const TRIES: usize = 8;
/// FM passes per level; a pass ends after this many moves without a better cut.
const PASSES: usize = 4;
const PATIENCE: usize = 64;

/// A weighted undirected graph (symmetric adjacency).
struct Level {
    xadj: Vec<usize>,
    adj: Vec<u32>,
    edge_w: Vec<u32>,
    vertex_w: Vec<u32>,
}

impl Level {
    fn n(&self) -> usize {
        self.vertex_w.len()
    }

    fn edges(&self, v: usize) -> impl Iterator<Item = (usize, u32)> + '_ {
        let r = self.xadj[v]..self.xadj[v + 1];
        self.adj[r.clone()].iter().map(|&w| w as usize).zip(self.edge_w[r].iter().copied())
    }

    /// Heavy-edge matching and the coarse graph it gives, with the fine → coarse map.
    fn coarsen(&self, rng: &mut SplitMix64) -> (Level, Vec<u32>) {
        let n = self.n();
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut mate = vec![usize::MAX; n];
        for &v in &order {
            if mate[v] != usize::MAX {
                continue;
            }
            let best = self
                .edges(v)
                .filter(|&(w, _)| mate[w] == usize::MAX && w != v)
                .max_by_key(|&(w, ew)| (ew, Reverse(w)));
            let w = best.map_or(v, |(w, _)| w);
            mate[v] = w;
            mate[w] = v;
        }
        // Coarse vertex c is fine vertex `first[c]` and its mate (the smaller of the two comes first).
        let mut map = vec![u32::MAX; n];
        let (mut vertex_w, mut first) = (Vec::new(), Vec::new());
        for v in 0..n {
            if map[v] == u32::MAX {
                let c = vertex_w.len() as u32;
                map[v] = c;
                map[mate[v]] = c;
                first.push(v);
                vertex_w.push(if mate[v] == v {
                    self.vertex_w[v]
                } else {
                    self.vertex_w[v] + self.vertex_w[mate[v]]
                });
            }
        }
        // Coarse edges: each coarse vertex's fine members' edges, merged by a position marker.
        let mut at = vec![usize::MAX; vertex_w.len()];
        let (mut xadj, mut adj, mut edge_w) = (vec![0usize], Vec::new(), Vec::new());
        for (c, &v) in first.iter().enumerate() {
            let start = adj.len();
            let pair = [v, mate[v]];
            let members = if mate[v] == v { &pair[..1] } else { &pair[..] };
            for &u in members {
                for (w, ew) in self.edges(u) {
                    let cw = map[w] as usize;
                    if cw == c {
                        continue;
                    }
                    if at[cw] == usize::MAX || at[cw] < start {
                        at[cw] = adj.len();
                        adj.push(cw as u32);
                        edge_w.push(ew);
                    } else {
                        edge_w[at[cw]] += ew;
                    }
                }
            }
            xadj.push(adj.len());
        }
        (Level { xadj, adj, edge_w, vertex_w }, map)
    }

    /// Side weights of a partition.
    fn side_weights(&self, part: &[u8]) -> [u64; 2] {
        let mut s = [0u64; 2];
        for (v, &p) in part.iter().enumerate() {
            s[p as usize] += u64::from(self.vertex_w[v]);
        }
        s
    }

    fn cut(&self, part: &[u8]) -> u64 {
        (0..self.n())
            .flat_map(|v| {
                self.edges(v).filter(move |&(w, _)| part[w] != part[v]).map(|(_, ew)| u64::from(ew))
            })
            .sum::<u64>()
            / 2
    }

    /// Grows side 0 from `seed` breadth-first (jumping to unvisited vertices when a component runs
    /// out) until it holds half the weight.
    fn grow(&self, seed: usize) -> Vec<u8> {
        let n = self.n();
        let total: u64 = self.vertex_w.iter().map(|&w| u64::from(w)).sum();
        let mut part = vec![1u8; n];
        let mut queue = std::collections::VecDeque::from([seed]);
        let mut seen = vec![false; n];
        seen[seed] = true;
        let (mut grown, mut next_unseen) = (0u64, 0usize);
        while 2 * grown < total {
            let v = match queue.pop_front() {
                Some(v) => v,
                None => {
                    while next_unseen < n && seen[next_unseen] {
                        next_unseen += 1;
                    }
                    if next_unseen == n {
                        break;
                    }
                    seen[next_unseen] = true;
                    next_unseen
                }
            };
            part[v] = 0;
            grown += u64::from(self.vertex_w[v]);
            for (w, _) in self.edges(v) {
                if !seen[w] {
                    seen[w] = true;
                    queue.push_back(w);
                }
            }
        }
        part
    }

    /// Fiduccia–Mattheyses passes: single moves by best gain under the balance bound, each pass kept up
    /// to its best cut.
    fn refine(&self, part: &mut [u8]) {
        let n = self.n();
        let total: u64 = self.vertex_w.iter().map(|&w| u64::from(w)).sum();
        let max_side = ((total as f64) * MAX_SIDE).ceil() as u64;
        let gain = |part: &[u8], v: usize| -> i64 {
            self.edges(v).map(|(w, ew)| if part[w] != part[v] { i64::from(ew) } else { -i64::from(ew) }).sum()
        };
        let mut version = vec![0u32; n];
        let mut locked = vec![false; n];
        for _ in 0..PASSES {
            let mut sides = self.side_weights(part);
            let mut heap = BinaryHeap::new();
            for v in 0..n {
                locked[v] = false;
                if self.edges(v).any(|(w, _)| part[w] != part[v]) {
                    version[v] += 1;
                    heap.push((gain(part, v), Reverse(v), version[v]));
                }
            }
            let (mut moves, mut run, mut best_run, mut best_len, mut since_best) =
                (Vec::new(), 0i64, 0i64, 0, 0);
            while let Some((g, Reverse(v), ver)) = heap.pop() {
                if locked[v] || ver != version[v] {
                    continue;
                }
                let (from, to) = (part[v] as usize, 1 - part[v] as usize);
                if sides[to] + u64::from(self.vertex_w[v]) > max_side {
                    continue;
                }
                part[v] = to as u8;
                locked[v] = true;
                sides[from] -= u64::from(self.vertex_w[v]);
                sides[to] += u64::from(self.vertex_w[v]);
                moves.push(v);
                run += g;
                if run > best_run {
                    (best_run, best_len, since_best) = (run, moves.len(), 0);
                } else {
                    since_best += 1;
                    if since_best > PATIENCE {
                        break;
                    }
                }
                for (w, _) in self.edges(v) {
                    if !locked[w] {
                        version[w] += 1;
                        heap.push((gain(part, w), Reverse(w), version[w]));
                    }
                }
            }
            for &v in &moves[best_len..] {
                part[v] = 1 - part[v];
            }
            if best_len == 0 {
                break;
            }
        }
    }
}

/// Two sides (`part` 0 or 1) of the graph `xadj`/`adjncy` (symmetric, unit weights) with few edges
/// between them, each side at most 55 % of the vertices.
pub(super) fn multilevel_bisection(xadj: &[i32], adjncy: &[i32], part: &mut [i32]) {
    let n = part.len();
    let finest = Level {
        xadj: xadj.iter().map(|&x| x as usize).collect(),
        adj: adjncy.iter().map(|&w| w as u32).collect(),
        edge_w: vec![1; adjncy.len()],
        vertex_w: vec![1; n],
    };
    let mut rng = SplitMix64::new(0x005e_edb1_5ec7);
    let mut levels = vec![finest];
    let mut maps: Vec<Vec<u32>> = Vec::new();
    while levels.last().is_some_and(|l| l.n() > COARSEST) {
        let (coarse, map) = levels.last().expect("a level").coarsen(&mut rng);
        // Matching stalls on stars and isolated vertices: stop when it no longer shrinks the graph.
        if coarse.n() * 20 > levels.last().expect("a level").n() * 19 {
            break;
        }
        levels.push(coarse);
        maps.push(map);
    }
    let coarsest = levels.last().expect("a level");
    let mut best: Option<(u64, Vec<u8>)> = None;
    for t in 0..TRIES.min(coarsest.n()) {
        let seed = rng.below(coarsest.n() as u64) as usize;
        let seed = if t == 0 { 0 } else { seed };
        let mut p = coarsest.grow(seed);
        coarsest.refine(&mut p);
        let cut = coarsest.cut(&p);
        if best.as_ref().is_none_or(|(c, _)| cut < *c) {
            best = Some((cut, p));
        }
    }
    let mut p = best.map_or_else(|| vec![0; coarsest.n()], |(_, p)| p);
    for (level, map) in levels[..levels.len() - 1].iter().zip(&maps).rev() {
        p = map.iter().map(|&c| p[c as usize]).collect();
        level.refine(&mut p);
    }
    for (o, s) in part.iter_mut().zip(p) {
        *o = i32::from(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The symmetric adjacency of a `w × h` grid.
    fn grid(w: usize, h: usize) -> (Vec<i32>, Vec<i32>) {
        let (mut xadj, mut adj) = (vec![0i32], Vec::new());
        for y in 0..h {
            for x in 0..w {
                for (dx, dy) in [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)] {
                    let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                    if nx >= 0 && ny >= 0 && (nx as usize) < w && (ny as usize) < h {
                        adj.push((ny as usize * w + nx as usize) as i32);
                    }
                }
                xadj.push(adj.len() as i32);
            }
        }
        (xadj, adj)
    }

    #[test]
    fn a_grid_is_cut_near_its_short_side_and_balanced() {
        let (w, h) = (120, 60);
        let (xadj, adj) = grid(w, h);
        let mut part = vec![0i32; w * h];
        multilevel_bisection(&xadj, &adj, &mut part);
        let side0 = part.iter().filter(|&&p| p == 0).count();
        assert!(side0 as f64 <= 0.55 * (w * h) as f64 && side0 as f64 >= 0.45 * (w * h) as f64, "{side0}");
        let cut = (0..w * h)
            .flat_map(|v| (xadj[v]..xadj[v + 1]).map(move |i| (v, i)))
            .filter(|&(v, i)| part[adj[i as usize] as usize] != part[v])
            .count()
            / 2;
        // The best straight cut crosses the short side (60 edges); a few steps more are fine.
        assert!(cut <= 90, "cut {cut}");
    }

    #[test]
    fn disconnected_and_tiny_graphs_get_two_sides() {
        // Two triangles and an isolated vertex.
        let xadj = [0, 2, 4, 6, 8, 10, 12, 12];
        let adj = [1, 2, 0, 2, 0, 1, 4, 5, 3, 5, 3, 4];
        let mut part = vec![0i32; 7];
        multilevel_bisection(&xadj, &adj, &mut part);
        assert!(part.contains(&0) && part.contains(&1));
        let mut one = vec![0i32; 1];
        multilevel_bisection(&[0, 0], &[], &mut one);
    }
}
