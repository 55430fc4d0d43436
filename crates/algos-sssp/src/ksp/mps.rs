//! The MPS ranking (Martins, Pascoal and Santos) of loopless s→t paths, as a lazy iterator.
//!
//! Every path except the first is `prefix ◇ a ◇ T(head(a))`: a prefix of its parent path up to the
//! deviation vertex, the next arc of that vertex's sorted star, then the tree towards the target.
//! Candidates are kept as a pseudo-tree (parent, deviation index, arc, star rank, cost); a popped
//! candidate's arcs are written once to an arena, where its children read their prefixes.
//!
//! Candidates whose tree tail runs back into their prefix (looped) are popped and expanded but never
//! output: loopless paths descend from them (the seed's rule of storing only loopless candidates
//! loses paths).

use crate::SsspError;
use std::cmp::Ordering;

use super::heap::IdHeap;
use super::target::MpsTarget;
use super::yen::YenRanking;
use super::{KspStats, Path, check_vertex};
use graph_core::Csr;

const NONE: u32 = u32::MAX;

/// Looped pops after which the ranking goes on with Yen: MPS expands every looped candidate, and
/// where loopless paths are rare (a target reached only through the source, say) their number grows
/// exponentially, while Yen's restricted searches (A* with a proof of sealed pockets) find that no
/// loopless continuation exists. Road graphs stay far below: bremen at K = 100 about 260 looped pops
/// per query; NY's 1,000 benchmark pairs at K = 100 at most 7,151 — but one, whose target lies in a
/// pocket behind the source, 221,001 (0.43 s) before the old guard of 200,000 tripped; Yen answers it
/// in 0.07 s from the start, 0.11 s after this guard.
const LOOP_GUARD: u64 = 20_000;
/// More allowed for each path given out.
const LOOP_GUARD_PER_PATH: u64 = 1_000;

/// One candidate path: `parent`'s first `dev` arcs, then `arc` (rank `rank` in the star of the
/// deviation vertex), then the tree.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    cost: u64,
    /// Pop index of the parent (its arcs start at `popped[parent]` in the arena); `NONE` for the
    /// first path.
    parent: u32,
    dev: u32,
    rank: u32,
    arc: u32,
}

/// Loopless s→t paths in (cost, arc sequence) order, one per `next()`: see [`MpsTarget::iter`].
#[derive(Debug)]
pub struct MpsIter<'a> {
    target: &'a MpsTarget<'a>,
    s: u32,
    candidates: Vec<Candidate>,
    heap: IdHeap,
    /// Arcs of every popped candidate, back to back.
    arena: Vec<u32>,
    /// Start of each popped candidate's arcs in `arena`.
    popped: Vec<usize>,
    /// `mark[v] == stamp`: `v` is on the current pop's prefix.
    mark: Vec<u32>,
    stamp: u32,
    /// The star of the vertex being deviated at, and its keys (reused).
    star: Vec<u32>,
    keyed: Vec<(u64, u32, u32)>,
    /// `s == t`: the empty path, once.
    trivial: bool,
    /// The rest of a sorted class of equal-cost paths (graphs with zero-weight arcs only).
    pending: std::collections::VecDeque<Path>,
    /// Paths given out so far (while MPS runs): where Yen starts if the loop guard trips.
    given: Vec<Path>,
    switch_to_yen: bool,
    yen: Option<Box<YenRanking<'a>>>,
    stats: KspStats,
}

impl<'a> MpsIter<'a> {
    pub(crate) fn new(target: &'a MpsTarget<'a>, s: u32) -> Self {
        let mut it = Self {
            target,
            s,
            candidates: Vec::new(),
            heap: IdHeap::default(),
            arena: Vec::new(),
            popped: Vec::new(),
            mark: Vec::new(),
            stamp: 0,
            star: Vec::new(),
            keyed: Vec::new(),
            trivial: s == target.t,
            pending: Default::default(),
            given: Vec::new(),
            switch_to_yen: false,
            yen: None,
            stats: KspStats { searches: 1, prep_time: target.prep_time, ..Default::default() },
        };
        if let (false, Some(first)) = (it.trivial, target.tree_arc(s)) {
            it.mark = vec![0; target.g.num_vertices() as usize];
            let cost = target.pi[s as usize] as u64;
            it.candidates.push(Candidate { cost, parent: NONE, dev: 0, rank: 0, arc: first });
            it.heap.push(0, &mut |_, _| Ordering::Equal);
            it.stats.max_heap = 1;
        }
        it
    }

    /// Work done so far.
    pub fn stats(&self) -> KspStats {
        let mut st = self.stats;
        if let Some(y) = &self.yen {
            st.searches += y.stats.searches;
            st.max_heap = st.max_heap.max(y.stats.max_heap);
            st.switched_to_yen = true;
        }
        st
    }

    /// The source.
    pub fn source(&self) -> u32 {
        self.s
    }

    /// Pops candidates until one is loopless (`None` also when the loop guard trips).
    fn next_loopless(&mut self) -> Option<Path> {
        loop {
            if let Some(p) = self.pop_one()? {
                return Some(p);
            }
            if self.stats.looped_pops > LOOP_GUARD + LOOP_GUARD_PER_PATH * self.given.len() as u64 {
                self.switch_to_yen = true;
                return None;
            }
        }
    }

    /// On graphs with zero-weight arcs a child can cost as much as its parent and still come first in
    /// arc order, so every loopless path of the cheapest cost is collected and sorted before any is
    /// given out.
    fn next_of_cost_class(&mut self) -> Option<Path> {
        if let Some(p) = self.pending.pop_front() {
            return Some(p);
        }
        let first = self.next_loopless()?;
        let mut class = vec![first];
        while let Some(top) = self.heap.peek()
            && self.candidates[top as usize].cost == class[0].cost
        {
            if let Some(p) = self.pop_one().expect("the heap is not empty") {
                class.push(p);
            } else if self.stats.looped_pops > LOOP_GUARD + LOOP_GUARD_PER_PATH * self.given.len() as u64 {
                self.switch_to_yen = true;
                return None;
            }
        }
        class.sort_unstable();
        self.pending = class.into();
        self.pending.pop_front()
    }

    /// Pops and expands one candidate: `None` when the heap is empty, `Some(None)` when the candidate
    /// loops, else the path.
    fn pop_one(&mut self) -> Option<Option<Path>> {
        let (g, target) = (self.target.g, self.target);
        let (heads, weights) = (g.targets(), g.weights());
        {
            let id = {
                let order =
                    Order { target, candidates: &self.candidates, arena: &self.arena, popped: &self.popped };
                self.heap.pop(&mut |a, b| order.compare(a, b))?
            };
            self.stats.pops += 1;
            let c = self.candidates[id as usize];
            let start = self.arena.len();
            let order =
                Order { target, candidates: &self.candidates, arena: &self.arena, popped: &self.popped };
            let arcs: Vec<u32> = order.arcs(id).collect();
            self.arena.extend_from_slice(&arcs);
            let pop = self.popped.len() as u32;
            self.popped.push(start);

            self.stamp = self.stamp.wrapping_add(1);
            if self.stamp == 0 {
                self.mark.fill(0);
                self.stamp = 1;
            }
            let stamp = self.stamp;
            let (mut v, mut prefix_cost, mut looped) = (self.s, 0u64, false);
            for (i, &arc_i) in arcs.iter().enumerate() {
                if self.mark[v as usize] == stamp {
                    looped = true; // the prefix repeats a vertex: so does every child deviating later
                    break;
                }
                self.mark[v as usize] = stamp;
                let i = i as u32;
                // Deviations at the target only lead back to it: every such path loops.
                if i >= c.dev && v != target.t {
                    target.star_into(v, &mut self.keyed, &mut self.star);
                    let star = &self.star;
                    let mut j = if i == c.dev { c.rank } else { 0 } as usize + 1;
                    while j < star.len() && self.mark[heads[star[j] as usize] as usize] == stamp {
                        j += 1; // closes a loop at once: skip
                    }
                    if let Some(&a) = star.get(j) {
                        let x = heads[a as usize];
                        let cost = prefix_cost + weights[a as usize] as u64 + target.pi[x as usize] as u64;
                        let child = Candidate { cost, parent: pop, dev: i, rank: j as u32, arc: a };
                        let id = self.candidates.len() as u32;
                        self.candidates.push(child);
                        let order = Order {
                            target,
                            candidates: &self.candidates,
                            arena: &self.arena,
                            popped: &self.popped,
                        };
                        self.heap.push(id, &mut |a, b| order.compare(a, b));
                    }
                }
                prefix_cost += weights[arc_i as usize] as u64;
                v = heads[arc_i as usize];
            }
            self.stats.max_heap = self.stats.max_heap.max(self.heap.len());
            if looped || self.mark[v as usize] == stamp {
                self.stats.looped_pops += 1;
                return Some(None);
            }
            Some(Some(Path { cost: c.cost, arcs, source: self.s }))
        }
    }
}

impl Iterator for MpsIter<'_> {
    type Item = Path;

    fn next(&mut self) -> Option<Path> {
        if self.trivial {
            self.trivial = false;
            self.stats.pops += 1;
            return Some(Path { cost: 0, arcs: Vec::new(), source: self.s });
        }
        if self.yen.is_none() {
            let p = if self.target.zero_weights { self.next_of_cost_class() } else { self.next_loopless() };
            if !self.switch_to_yen {
                self.given.extend(p.iter().cloned());
                return p;
            }
            // Go on with Yen from the paths given so far; MPS's state is no longer needed.
            self.pending.clear();
            self.candidates = Vec::new();
            self.arena = Vec::new();
            self.popped = Vec::new();
            self.heap = IdHeap::default();
            let given = std::mem::take(&mut self.given);
            let to_target = Some(self.target.pi.clone());
            self.yen =
                Some(Box::new(YenRanking::resume(self.target.g, self.s, self.target.t, given, to_target)));
        }
        let yen = self.yen.as_mut().expect("switched to Yen");
        // u64 costs of loopless paths cannot overflow on graphs below 2^32 vertices.
        yen.next_path().ok().flatten()
    }
}

/// The (cost, arc sequence) order of candidates, reading their arcs through the pseudo-tree.
struct Order<'r, 'a> {
    target: &'r MpsTarget<'a>,
    candidates: &'r [Candidate],
    arena: &'r [u32],
    popped: &'r [usize],
}

impl Order<'_, '_> {
    fn compare(&self, a: u32, b: u32) -> Ordering {
        let (ca, cb) = (&self.candidates[a as usize], &self.candidates[b as usize]);
        ca.cost.cmp(&cb.cost).then_with(|| self.arcs(a).cmp(self.arcs(b)))
    }

    /// The arcs of candidate `id`: the parent's prefix, the deviation arc, the tree.
    fn arcs(&self, id: u32) -> impl Iterator<Item = u32> + '_ {
        let c = self.candidates[id as usize];
        let prefix: &[u32] = if c.parent == NONE {
            &[]
        } else {
            let at = self.popped[c.parent as usize];
            &self.arena[at..at + c.dev as usize]
        };
        let target = self.target;
        let heads = target.g.targets();
        let tree = std::iter::successors(Some(c.arc), move |&a| target.tree_arc(heads[a as usize]));
        prefix.iter().copied().chain(tree)
    }
}

/// The `k` cheapest loopless paths from `s` to `t`, in (cost, arc sequence) order, by MPS.
///
/// ```
/// let g = urbanflow::graph::generators::grid_2d(3, 3); // unit weights: six shortest corner-to-corner paths
/// let (paths, _) = urbanflow::sssp::ksp::mps(&g, 0, 8, 8)?;
/// assert_eq!(paths.iter().map(|p| p.cost).collect::<Vec<_>>(), [4, 4, 4, 4, 4, 4, 6, 6]);
/// assert_eq!(paths[0].vertices(&g).first(), Some(&0));
/// # Ok::<(), urbanflow::sssp::SsspError>(())
/// ```
///
/// For many sources towards one target build one [`MpsTarget`] and call its
/// [`query`](MpsTarget::query); for K not known in advance use [`MpsTarget::iter`].
pub fn mps(g: &Csr<u32>, s: u32, t: u32, k: usize) -> Result<(Vec<Path>, KspStats), SsspError> {
    check_vertex(g, "source", s)?;
    let target = MpsTarget::new(g, t)?;
    target.query(s, k)
}

/// Queries on a prepared target (here, next to the ranking they start).
impl MpsTarget<'_> {
    /// The K cheapest loopless paths from `s`, in (cost, arc sequence) order.
    pub fn query(&self, s: u32, k: usize) -> Result<(Vec<Path>, KspStats), SsspError> {
        let mut it = self.iter(s)?;
        let paths: Vec<Path> = it.by_ref().take(k).collect();
        Ok((paths, it.stats()))
    }

    /// The loopless paths from `s` one at a time, cheapest first: `take(k)` when K is not known in
    /// advance.
    pub fn iter(&self, s: u32) -> Result<MpsIter<'_>, SsspError> {
        check_vertex(self.g, "source", s)?;
        Ok(MpsIter::new(self, s))
    }
}
