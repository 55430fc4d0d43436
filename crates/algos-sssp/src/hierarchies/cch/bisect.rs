//! Multilevel edge bisection in pure Rust: what orders a CCH when the `metis` feature is off (no C
//! toolchain, WebAssembly). The scheme is METIS's (Karypis & Kumar 1998) in its simplest form:
//! coarsen by heavy-edge matching, bisect the coarsest graph by growing a region from a few seeds,
//! then project back level by level, refining each level's cut by Fiduccia–Mattheyses moves. It is
//! deterministic (a fixed seed), so an order is reproducible on every machine and rank.

use std::cmp::Reverse;

use graph_core::rng::SplitMix64;

use crate::cpu::queue::{Frontier, IndexedHeap};

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
    /// to its best cut. A pass starts from the boundary vertices; moving a vertex (re)queues its
    /// unlocked neighbours; a vertex the balance refuses leaves the queue until a neighbour moves. Ties
    /// go to the smaller vertex, so a refinement is the same on every machine.
    fn refine(&self, part: &mut [u8], fm: &mut Refiner) {
        let n = self.n();
        let total: u64 = self.vertex_w.iter().map(|&w| u64::from(w)).sum();
        let max_side = ((total as f64) * MAX_SIDE).ceil() as u64;
        fm.start(self, part);
        for _ in 0..PASSES {
            let mut sides = self.side_weights(part);
            fm.queue.clear();
            fm.locked[..n].fill(false);
            for v in 0..n {
                // Weights are positive, so a vertex has a neighbour across iff its external weight,
                // (gain + weighted degree) / 2, is positive.
                if fm.gain[v] + fm.degree[v] > 0 {
                    fm.queue.update(v as u32, gain_key(fm.gain[v], v as u32));
                }
            }
            fm.moves.clear();
            let (mut run, mut best_run, mut best_len, mut since_best) = (0i64, 0i64, 0, 0);
            while let Some((_, v)) = fm.queue.pop() {
                let v = v as usize;
                let (from, to) = (part[v] as usize, 1 - part[v] as usize);
                if sides[to] + u64::from(self.vertex_w[v]) > max_side {
                    continue;
                }
                let g = fm.gain[v];
                fm.locked[v] = true;
                fm.flip(self, part, v, true);
                sides[from] -= u64::from(self.vertex_w[v]);
                sides[to] += u64::from(self.vertex_w[v]);
                fm.moves.push(v as u32);
                run += g;
                if run > best_run {
                    (best_run, best_len, since_best) = (run, fm.moves.len(), 0);
                } else {
                    since_best += 1;
                    if since_best > PATIENCE {
                        break;
                    }
                }
            }
            for i in best_len..fm.moves.len() {
                let v = fm.moves[i] as usize;
                fm.flip(self, part, v, false);
            }
            if best_len == 0 {
                break;
            }
        }
    }
}

/// What Fiduccia–Mattheyses refinement keeps between moves, reused by every refinement of one
/// bisection: each vertex's gain (weight across − weight on its side), kept up to date as vertices
/// move instead of recounted per move, and its weighted degree.
struct Refiner {
    gain: Vec<i64>,
    degree: Vec<i64>,
    locked: Vec<bool>,
    moves: Vec<u32>,
    queue: IndexedHeap<u64>,
}

impl Default for Refiner {
    fn default() -> Self {
        Self {
            gain: Vec::new(),
            degree: Vec::new(),
            locked: Vec::new(),
            moves: Vec::new(),
            queue: IndexedHeap::new(0),
        }
    }
}

impl Refiner {
    /// Gains and weighted degrees of `level` under `part`.
    fn start(&mut self, level: &Level, part: &[u8]) {
        let n = level.n();
        self.gain.clear();
        self.degree.clear();
        for v in 0..n {
            let (mut gain, mut degree) = (0i64, 0i64);
            for (w, ew) in level.edges(v) {
                let ew = i64::from(ew);
                degree += ew;
                gain += if part[w] != part[v] { ew } else { -ew };
            }
            self.gain.push(gain);
            self.degree.push(degree);
        }
        self.locked.clear();
        self.locked.resize(n, false);
        self.queue.reset(n);
    }

    /// Moves `v` to the other side and updates its neighbours' gains (and its own); with `requeue`,
    /// queues its unlocked neighbours at their new gains.
    fn flip(&mut self, level: &Level, part: &mut [u8], v: usize, requeue: bool) {
        part[v] = 1 - part[v];
        self.gain[v] = -self.gain[v];
        for (w, ew) in level.edges(v) {
            // w on v's new side: that edge was across (+ew) and is now inside (−ew); and vice versa.
            let change = 2 * i64::from(ew);
            self.gain[w] += if part[w] == part[v] { -change } else { change };
            if requeue && !self.locked[w] {
                self.queue.update(w as u32, gain_key(self.gain[w], w as u32));
            }
        }
    }
}

/// The refinement's queue key of vertex `v` with gain `gain`: the search code's indexed min-heap pops
/// the largest gain first, ties to the smaller vertex (the key holds both).
fn gain_key(gain: i64, v: u32) -> u64 {
    // Gains are bounded by weighted degrees, sums of a part's edges: far inside ±2^31.
    debug_assert!(gain.unsigned_abs() < 1 << 31);
    (((1i64 << 31) - gain) as u64) << 32 | u64::from(v)
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
    let mut fm = Refiner::default();
    let mut best: Option<(u64, Vec<u8>)> = None;
    for t in 0..TRIES.min(coarsest.n()) {
        let seed = rng.below(coarsest.n() as u64) as usize;
        let seed = if t == 0 { 0 } else { seed };
        let mut p = coarsest.grow(seed);
        coarsest.refine(&mut p, &mut fm);
        let cut = coarsest.cut(&p);
        if best.as_ref().is_none_or(|(c, _)| cut < *c) {
            best = Some((cut, p));
        }
    }
    let mut p = best.map_or_else(|| vec![0; coarsest.n()], |(_, p)| p);
    for (level, map) in levels[..levels.len() - 1].iter().zip(&maps).rev() {
        p = map.iter().map(|&c| p[c as usize]).collect();
        level.refine(&mut p, &mut fm);
    }
    for (o, s) in part.iter_mut().zip(p) {
        *o = i32::from(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A random weighted graph (no self-loops, no parallel edges) and random vertex weights.
    fn random_level(rng: &mut SplitMix64) -> Level {
        let n = 2 + rng.below(60) as usize;
        let mut pairs = std::collections::BTreeMap::new();
        for _ in 0..rng.below(4 * n as u64) {
            let (a, b) = (rng.below(n as u64) as usize, rng.below(n as u64) as usize);
            if a != b {
                pairs.insert((a.min(b), a.max(b)), 1 + rng.below(5) as u32);
            }
        }
        let mut lists = vec![Vec::new(); n];
        for (&(a, b), &w) in &pairs {
            lists[a].push((b as u32, w));
            lists[b].push((a as u32, w));
        }
        let (mut xadj, mut adj, mut edge_w) = (vec![0], Vec::new(), Vec::new());
        for list in &lists {
            for &(b, w) in list {
                adj.push(b);
                edge_w.push(w);
            }
            xadj.push(adj.len());
        }
        Level { xadj, adj, edge_w, vertex_w: (0..n).map(|_| 1 + rng.below(3) as u32).collect() }
    }

    #[test]
    fn refinement_keeps_its_gains_exact_and_never_worsens_a_balanced_cut() {
        let mut rng = SplitMix64::new(7);
        let mut fm = Refiner::default();
        for case in 0..2000 {
            let level = random_level(&mut rng);
            let n = level.n();
            let total: u64 = level.vertex_w.iter().map(|&w| u64::from(w)).sum();
            let mut part: Vec<u8> = (0..n).map(|_| rng.below(2) as u8).collect();
            let balanced = |p: &[u8]| {
                level.side_weights(p).iter().all(|&s| s as f64 <= (total as f64 * MAX_SIDE).ceil())
            };
            let was_balanced = balanced(&part);
            let before = level.cut(&part);
            level.refine(&mut part, &mut fm);
            // The gains kept move by move (and undone with the moves past a pass's best) equal a recount.
            let kept = fm.gain.clone();
            fm.start(&level, &part);
            assert_eq!(kept, fm.gain, "case {case}");
            if was_balanced {
                assert!(balanced(&part), "case {case}");
                assert!(level.cut(&part) <= before, "case {case}");
            }
        }
    }

    #[test]
    fn the_gain_queue_gives_the_largest_gain_then_the_smallest_vertex() {
        let mut rng = SplitMix64::new(3);
        let n = 50;
        let mut gain: Vec<i64> = (0..n).map(|_| rng.below(9) as i64 - 4).collect();
        let mut queue = IndexedHeap::new(0);
        queue.reset(n);
        let mut queued = vec![false; n];
        for _ in 0..2000 {
            let v = rng.below(n as u64) as usize;
            if rng.below(3) == 0 {
                // Pop and compare with the reference: the maximum of (gain, −vertex) among queued ones.
                let expect = (0..n).filter(|&v| queued[v]).max_by_key(|&v| (gain[v], Reverse(v)));
                let got = queue.pop().map(|(_, v)| v as usize);
                assert_eq!(got, expect);
                if let Some(v) = got {
                    queued[v] = false;
                }
            } else {
                // A gain that rises or falls is placed at once, as the refinement does.
                gain[v] = rng.below(9) as i64 - 4;
                queue.update(v as u32, gain_key(gain[v], v as u32));
                queued[v] = true;
            }
        }
    }

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
