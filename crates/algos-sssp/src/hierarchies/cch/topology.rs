//! The metric-independent part of a CCH: the chordal supergraph of the input graph under a vertex
//! order (the elimination game: contracting a vertex joins all its higher neighbours), and the
//! downward index from which customisation enumerates each edge's lower triangles as it goes.
//!
//! The triangles themselves are not stored: NY has 13.8 M of them (123 MB as a list), and building it was
//! nine tenths of a build from a cached order (0.50 of 0.55 s on two cores). Customisation finds
//! them from the downward index at the same cost per triangle ([`Topology::lower_triangles`]).

use rayon::prelude::*;

/// Most lower triangles a CCH may have: road networks of cities have a few million; graphs without
/// small separators have far more, and one customisation would take minutes.
pub(super) const MAX_TRIANGLES: u64 = 1 << 28;

/// The chordal supergraph in rank space, with what customisation needs.
#[derive(Debug, Clone)]
pub(super) struct Topology {
    /// Edge `e` of rank `r` (lower endpoint) is `{r, head[e]}`, `first_out[r] <= e < first_out[r + 1]`,
    /// heads ascending within a rank.
    pub first_out: Vec<u32>,
    pub head: Vec<u32>,
    /// Edges `{v, x}` with `v < x`, grouped by their upper endpoint `x`:
    /// `down[down_first[x]..down_first[x + 1]]`, ascending (so by `v` ascending).
    pub down_first: Vec<u32>,
    pub down: Vec<[u32; 2]>,
    /// Lower triangles of the edges of ranks `0..r`, prefix sums (`work[n]` = all of them): the
    /// customisation work of a rank.
    pub work: Vec<u64>,
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
        Self::from_supergraph(first_out, head)
    }

    /// A supergraph read from a file: checked to be what the elimination game gives (every rank's
    /// upper neighbours but the lowest are upper neighbours of that lowest one: then every two upper
    /// neighbours of a rank are joined, which customisation relies on), or why not.
    pub fn from_stored(first_out: Vec<u32>, head: Vec<u32>) -> Result<Self, String> {
        let n = first_out.len().saturating_sub(1);
        if first_out.first() != Some(&0)
            || first_out.last().map(|&e| e as usize) != Some(head.len())
            || first_out.windows(2).any(|w| w[0] > w[1])
        {
            return Err("its supergraph's offsets are not ascending from 0 to its edge count".into());
        }
        let ups = |r: usize| &head[first_out[r] as usize..first_out[r + 1] as usize];
        // Ranks checked on all threads; the first bad one (in rank order) is the one reported.
        let out_of_order = |r: usize| {
            let up = ups(r);
            up.first().is_some_and(|&h| h as usize <= r)
                || up.last().is_some_and(|&h| h as usize >= n)
                || up.windows(2).any(|w| w[0] >= w[1])
        };
        if let Some(r) = (0..n).into_par_iter().with_min_len(4096).find_first(|&r| out_of_order(r)) {
            return Err(format!("its supergraph's rank {r} has upper neighbours out of order or range"));
        }
        let not_chordal = |r: usize| {
            ups(r).split_first().is_some_and(|(&parent, rest)| {
                let of_parent = ups(parent as usize);
                rest.iter().any(|y| of_parent.binary_search(y).is_err())
            })
        };
        if let Some(r) = (0..n).into_par_iter().with_min_len(4096).find_first(|&r| not_chordal(r)) {
            return Err(format!("its supergraph is not chordal at rank {r}"));
        }
        Self::from_supergraph(first_out, head)
            .map_err(|t| format!("its supergraph has {t} triangles, too many"))
    }

    /// The downward index and work counts of a chordal supergraph given by its upward arcs.
    fn from_supergraph(first_out: Vec<u32>, head: Vec<u32>) -> Result<Self, u64> {
        let n = first_out.len() - 1;
        let edges = head.len();
        // Vertex v's up-edges pair up into the lower triangles of v: d(d - 1) / 2 of them.
        let triangles: u64 = (0..n)
            .map(|v| {
                let d = (first_out[v + 1] - first_out[v]) as u64;
                d * d.saturating_sub(1) / 2
            })
            .sum();
        if triangles > MAX_TRIANGLES {
            return Err(triangles);
        }
        let mut down_first = vec![0u32; n + 1];
        for &x in &head {
            down_first[x as usize + 1] += 1;
        }
        for x in 0..n {
            down_first[x + 1] += down_first[x];
        }
        let mut fill = down_first.clone();
        let mut down = vec![[0u32; 2]; edges];
        // Edges in increasing id, so every rank's list comes out ascending.
        for v in 0..n {
            let v_end = first_out[v + 1];
            for e in first_out[v]..v_end {
                let x = head[e as usize] as usize;
                down[fill[x] as usize] = [e, v_end];
                fill[x] += 1;
            }
        }
        // Edge {v, x} is the lower half of one triangle for every up-neighbour of v above x.
        let mut work = vec![0u64; n + 1];
        for x in 0..n {
            let below: u64 = down[down_first[x] as usize..down_first[x + 1] as usize]
                .iter()
                .map(|&[e, v_end]| (v_end - e - 1) as u64)
                .sum();
            work[x + 1] = work[x] + below;
        }
        debug_assert_eq!(work[n], triangles);
        Ok(Self { first_out, head, down_first, down, work })
    }

    /// Number of edges.
    pub fn num_edges(&self) -> usize {
        self.head.len()
    }

    /// Number of lower triangles (the work of one customisation).
    pub fn num_triangles(&self) -> u64 {
        *self.work.last().unwrap_or(&0)
    }

    /// The edge `{x, y}` (`x < y`), if present.
    pub fn edge(&self, x: u32, y: u32) -> Option<u32> {
        let (s, e) = (self.first_out[x as usize] as usize, self.first_out[x as usize + 1] as usize);
        self.head[s..e].binary_search(&y).ok().map(|i| (s + i) as u32)
    }

    /// The edges `{v, x}` of rank `x`'s lower neighbours `v`, ascending, each with `first_out[v + 1]`.
    pub fn down_edges(&self, x: u32) -> &[[u32; 2]] {
        &self.down[self.down_first[x as usize] as usize..self.down_first[x as usize + 1] as usize]
    }

    /// Calls `visit(_, f, e1, e2)` for the lower triangles of rank `x`'s edges through the lower
    /// neighbours in `below` (a run of [`Self::down_edges`]`(x)`): `f = {x, y}`, `e1 = {v, x}`,
    /// `e2 = {v, y}` for a common lower neighbour `v`, each edge's triangles in ascending `v`. `mark`
    /// (one slot per rank, any content) is scratch: the edge of `{x, y}` is found at `mark[y]`. One
    /// step per triangle: the elimination game made `{x, y}` an edge whenever `v` has both as upper
    /// neighbours. `per_lower(e1)` is called once before `e1`'s triangles, and its value handed to
    /// each of them (what a caller reads of `e1` once, not per triangle).
    #[inline]
    pub fn lower_triangles<S>(
        &self,
        x: u32,
        below: &[[u32; 2]],
        mark: &mut [u32],
        mut per_lower: impl FnMut(usize) -> S,
        mut visit: impl FnMut(&S, usize, usize, usize),
    ) {
        let (s, e) = (self.first_out[x as usize] as usize, self.first_out[x as usize + 1] as usize);
        for f in s..e {
            mark[self.head[f] as usize] = f as u32;
        }
        for &[e1, v_end] in below {
            let (e1, v_end) = (e1 as usize, v_end as usize);
            let lower = per_lower(e1);
            for e2 in e1 + 1..v_end {
                let f = mark[self.head[e2] as usize] as usize;
                debug_assert!(f >= s && f < e && self.head[f] == self.head[e2], "chordal");
                visit(&lower, f, e1, e2);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The elimination game's supergraph of a random sparse graph on `n` ranks.
    fn game(n: u32, seed: u64) -> Topology {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = |m: u32| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % m as u64) as u32
        };
        let mut adj = vec![Vec::new(); n as usize];
        for _ in 0..3 * n {
            let (a, b) = (next(n), next(n));
            if a != b {
                adj[a as usize].push(b);
                adj[b as usize].push(a);
            }
        }
        Topology::build(adj).unwrap()
    }

    #[test]
    fn lower_triangles_are_every_common_lower_neighbour_in_ascending_order() {
        for seed in 0..6 {
            let topo = game(300, seed);
            let n = topo.first_out.len() - 1;
            let mut mark = vec![0u32; n];
            let mut count = 0u64;
            for x in 0..n as u32 {
                let mut seen = Vec::new();
                topo.lower_triangles(
                    x,
                    topo.down_edges(x),
                    &mut mark,
                    |_| (),
                    |_, f, e1, e2| seen.push((f, e1, e2)),
                );
                count += seen.len() as u64;
                // By brute force: for each edge {x, y}, every v < x adjacent to both, ascending.
                let mut expected = Vec::new();
                for f in topo.first_out[x as usize] as usize..topo.first_out[x as usize + 1] as usize {
                    let y = topo.head[f];
                    for v in 0..x {
                        if let (Some(e1), Some(e2)) = (topo.edge(v, x), topo.edge(v, y)) {
                            expected.push((f, e1 as usize, e2 as usize));
                        }
                    }
                }
                seen.sort_by_key(|&(f, _, _)| f); // stable: each edge's own order kept
                assert_eq!(seen, expected, "seed {seed}, rank {x}");
            }
            assert_eq!(count, topo.num_triangles());
        }
    }

    #[test]
    fn a_stored_supergraph_is_checked() {
        let topo = game(200, 9);
        let ok = Topology::from_stored(topo.first_out.clone(), topo.head.clone()).unwrap();
        assert_eq!((ok.down, ok.work), (topo.down.clone(), topo.work.clone()));
        // Drop one edge joining two upper neighbours of some rank: no longer chordal.
        let r = (0..200).find(|&r| topo.first_out[r + 1] - topo.first_out[r] >= 3).unwrap();
        let parent = topo.head[topo.first_out[r] as usize] as usize;
        let y = topo.head[topo.first_out[r] as usize + 1];
        let (mut first_out, mut head) = (topo.first_out.clone(), topo.head.clone());
        head.remove(topo.edge(parent as u32, y).unwrap() as usize);
        first_out[parent + 1..].iter_mut().for_each(|o| *o -= 1);
        let why = Topology::from_stored(first_out, head).unwrap_err();
        assert!(why.contains("not chordal"), "{why}");
        // Offsets that do not end at the edge count, and a head out of order.
        let mut short = topo.first_out.clone();
        *short.last_mut().unwrap() -= 1;
        assert!(Topology::from_stored(short, topo.head.clone()).unwrap_err().contains("offsets"));
        let mut swapped = topo.head.clone();
        let s = topo.first_out[r] as usize;
        swapped.swap(s, s + 1);
        assert!(Topology::from_stored(topo.first_out.clone(), swapped).is_err());
    }
}
