//! Every chordless cycle exactly once (Dias, Castonguay, Longo & Jradi 2013), by depth-first expansion
//! of chordless paths with blocked-neighbour counters.
//!
//! Vertices are ranked by a degeneracy order (repeatedly the vertex of least remaining degree, ties to
//! the smallest id). A k-cycle is generated only as `⟨v1, v2, …, vk⟩` where `v2` has the smallest rank on
//! the cycle and `rank(v1) < rank(v3)`: from every initial path `⟨x, u, y⟩` with `rank(u) < rank(x) <
//! rank(y)` (a triangle when `x ~ y`), paths grow at their end by vertices ranked above `u` that are not
//! adjacent to any inner vertex (a counter per vertex says how many inner vertices it touches); a new
//! vertex adjacent to `v1` closes a chordless cycle. Correctness does not depend on the order; the
//! amount of work does.

use std::cell::Cell;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use crate::CyclesError;
use crate::graph::SimpleGraph;

/// What to enumerate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChordlessOptions {
    /// Shortest cycle reported (at least 3).
    pub min_len: u32,
    /// Longest cycle reported; longer paths are not expanded (`None`: no limit).
    pub max_len: Option<u32>,
    /// Stop after this many cycles.
    pub limit: Option<u64>,
    /// Count only: the sink is never called (no cycle is translated to the graph's ids).
    pub count_only: bool,
}

impl Default for ChordlessOptions {
    fn default() -> Self {
        Self { min_len: 3, max_len: None, limit: None, count_only: false }
    }
}

impl ChordlessOptions {
    pub(crate) fn check(&self) -> Result<u32, CyclesError> {
        let max = self.max_len.unwrap_or(u32::MAX);
        if self.min_len < 3 || self.min_len > max {
            return Err(CyclesError::BadLengths { min: self.min_len, max });
        }
        Ok(max)
    }
}

/// Counts of what was found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CycleStats {
    /// Cycles reported.
    pub total: u64,
    /// `by_length[k]` = cycles of length k reported.
    pub by_length: Vec<u64>,
    /// Initial paths expanded (triangles excluded).
    pub initial_paths: u64,
    /// True when `limit` or the sink stopped the enumeration early.
    pub stopped_early: bool,
    /// Expansion steps (level-synchronous backends: GPU and its CPU mirror; 0 elsewhere).
    pub levels: u64,
    /// Most paths held at once (level-synchronous backends; 0 elsewhere).
    pub peak_paths: u64,
}

impl CycleStats {
    pub(crate) fn add_cycle(&mut self, len: usize) {
        self.total += 1;
        if self.by_length.len() <= len {
            self.by_length.resize(len + 1, 0);
        }
        self.by_length[len] += 1;
    }

    fn merge(mut self, other: CycleStats) -> CycleStats {
        self.total += other.total;
        self.initial_paths += other.initial_paths;
        self.stopped_early |= other.stopped_early;
        self.levels = self.levels.max(other.levels);
        self.peak_paths = self.peak_paths.max(other.peak_paths);
        if self.by_length.len() < other.by_length.len() {
            self.by_length.resize(other.by_length.len(), 0);
        }
        for (a, b) in self.by_length.iter_mut().zip(other.by_length) {
            *a += b;
        }
        self
    }
}

/// The graph renumbered by rank (vertex `r` has rank `r`), so rank tests are id comparisons and
/// adjacency lists are sorted by rank.
pub(crate) struct Ranked {
    pub g: SimpleGraph,
    /// Original id of each ranked vertex.
    pub original: Vec<u32>,
}

/// Degeneracy order: repeatedly the vertex of least degree in what remains, ties to the smallest id.
pub fn degeneracy_order(g: &SimpleGraph) -> Vec<u32> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let n = g.num_vertices();
    let mut degree: Vec<u32> = (0..n).map(|v| g.degree(v)).collect();
    let mut removed = vec![false; n as usize];
    let mut heap: BinaryHeap<Reverse<(u32, u32)>> =
        (0..n).map(|v| Reverse((degree[v as usize], v))).collect();
    let mut order = Vec::with_capacity(n as usize);
    while let Some(Reverse((d, v))) = heap.pop() {
        if removed[v as usize] || d != degree[v as usize] {
            continue; // stale entry
        }
        removed[v as usize] = true;
        order.push(v);
        for &w in g.neighbours(v) {
            if !removed[w as usize] {
                degree[w as usize] -= 1;
                heap.push(Reverse((degree[w as usize], w)));
            }
        }
    }
    order
}

pub(crate) fn ranked(g: &SimpleGraph) -> Ranked {
    let order = degeneracy_order(g);
    let mut rank_of = vec![0u32; order.len()];
    for (r, &v) in order.iter().enumerate() {
        rank_of[v as usize] = r as u32;
    }
    let g = g.relabelled(&rank_of).expect("a rank order is a permutation");
    Ranked { g, original: order }
}

/// Per-thread working state, one word per ranked vertex: how many inner path vertices it touches (low
/// bits), whether it is on the path, whether it touches the path's first vertex. One load answers
/// both tests of a candidate.
struct Scratch {
    state: Vec<u32>,
}

/// On the path.
const ON_PATH: u32 = 1 << 30;
/// Adjacent to the path's first vertex (fixed for a whole expansion): a candidate that is closes a cycle.
const NEAR_FIRST: u32 = 1 << 29;

impl Scratch {
    fn new(n: u32) -> Self {
        Self { state: vec![0; n as usize] }
    }

    /// `v`'s neighbours gain (`by = 1`) or lose (`by = -1`) one inner path vertex.
    fn block(&mut self, g: &SimpleGraph, v: u32, by: i32) {
        for &w in g.neighbours(v) {
            self.state[w as usize] = self.state[w as usize].wrapping_add_signed(by);
        }
    }

    fn mark(&mut self, v: u32, bit: u32, on: bool) {
        let w = &mut self.state[v as usize];
        *w = if on { *w | bit } else { *w & !bit };
    }
}

/// Asked every [`POLL_STEPS`] search steps whether to stop: a subtree can search for seconds between
/// two cycles (dead ends), so stopping only at cycles would be late.
type GiveUp<'a> = Option<&'a dyn Fn() -> bool>;

/// Search steps (adjacency entries tried) between two [`GiveUp`] polls.
const POLL_STEPS: u32 = 1 << 12;

/// Expands `path` (at least 3 vertices, chordless, `path[1]` the smallest rank) depth-first, calling
/// `found` with every closing cycle (ranked ids); stops when `found` breaks or `give_up` says so.
/// Leaves `s` as it found it.
fn expand(
    g: &SimpleGraph,
    path: &mut Vec<u32>,
    s: &mut Scratch,
    max_len: u32,
    found: &mut dyn FnMut(&[u32]) -> ControlFlow<()>,
    give_up: GiveUp<'_>,
) -> ControlFlow<()> {
    let base = path.len();
    for &v in path.iter() {
        s.mark(v, ON_PATH, true);
    }
    for &v in &path[1..base - 1] {
        s.block(g, v, 1);
    }
    let (v1, v2) = (path[0], path[1]);
    for &w in g.neighbours(v1) {
        s.mark(w, NEAR_FIRST, true);
    }
    let (offsets, adj) = g.raw();
    // Neighbours ranked at or below v2 can never extend the path: start each scan above them.
    let span = |v: u32| {
        let (lo, hi) = (offsets[v as usize] as usize, offsets[v as usize + 1] as usize);
        (lo + adj[lo..hi].partition_point(|&w| w <= v2), hi)
    };
    // (next adjacency position to try, end) for the end vertex of each path length from the base up.
    let mut next: Vec<(usize, usize)> = vec![span(path[base - 1])];
    let mut flow = ControlFlow::Continue(());
    let mut until_poll = POLL_STEPS;
    while let Some(&mut (ref mut pos, end)) = next.last_mut() {
        if let Some(give_up) = give_up {
            until_poll -= 1;
            if until_poll == 0 {
                until_poll = POLL_STEPS;
                if give_up() {
                    flow = ControlFlow::Break(());
                    break;
                }
            }
        }
        if *pos == end {
            next.pop();
            if next.is_empty() {
                break;
            }
            // Backtrack: drop the end; the vertex before it is the end again, so no longer inner.
            let vk = path.pop().expect("above the base");
            s.mark(vk, ON_PATH, false);
            let end = *path.last().expect("base path remains");
            s.block(g, end, -1);
            continue;
        }
        let v = adj[*pos];
        *pos += 1;
        let state = s.state[v as usize];
        if state & !NEAR_FIRST != 0 {
            continue; // on the path, or touching an inner vertex (a chord)
        }
        if state & NEAR_FIRST != 0 {
            if (path.len() as u32) < max_len {
                path.push(v);
                flow = found(path);
                path.pop();
                if flow.is_break() {
                    break;
                }
            }
            continue;
        }
        if path.len() as u32 + 2 > max_len {
            continue; // any cycle through the longer path would be too long
        }
        let vk = *path.last().expect("non-empty path");
        s.block(g, vk, 1);
        path.push(v);
        s.mark(v, ON_PATH, true);
        next.push(span(v));
    }
    // Unwind whatever is left above the base (after a break), then the base itself.
    while path.len() > base {
        let v = path.pop().expect("above base");
        s.mark(v, ON_PATH, false);
        let end = *path.last().expect("base remains");
        s.block(g, end, -1);
    }
    for &v in path.iter() {
        s.mark(v, ON_PATH, false);
    }
    for &v in &path[1..base - 1] {
        s.block(g, v, -1);
    }
    for &w in g.neighbours(v1) {
        s.mark(w, NEAR_FIRST, false);
    }
    flow
}

/// Every chordless cycle of `g` (with the options' lengths and limit), each once, passed to `sink` as
/// the graph's vertex ids, with `v2` the lowest-ranked vertex; `sink` may stop the enumeration.
///
/// ```
/// use std::ops::ControlFlow;
/// use urbanflow::cycles::{ChordlessOptions, SimpleGraph, Simplify, chordless_cycles};
/// // A 2 × 3 grid: two squares; the 6-cycle around them has the middle rung as a chord.
/// let (g, _) = SimpleGraph::from_edges(6, &[(0, 1), (1, 2), (3, 4), (4, 5), (0, 3), (1, 4), (2, 5)], Simplify::Repair).unwrap();
/// let mut cycles = Vec::new();
/// let stats = chordless_cycles(&g, &ChordlessOptions::default(), &mut |c: &[u32]| {
///     cycles.push(c.to_vec());
///     ControlFlow::Continue(())
/// })
/// .unwrap();
/// assert_eq!((stats.total, stats.by_length[4]), (2, 2));
/// assert!(cycles.iter().all(|c| c.len() == 4));
/// ```
pub fn chordless_cycles(
    g: &SimpleGraph,
    opts: &ChordlessOptions,
    sink: &mut dyn FnMut(&[u32]) -> ControlFlow<()>,
) -> Result<CycleStats, CyclesError> {
    Ok(chordless_cycles_until(g, opts, sink, None)?.expect("no deadline"))
}

/// [`chordless_cycles`] that gives up (`None`) once `deadline` has passed (checked every 256 cycles):
/// the automatic choice's probe.
pub(crate) fn chordless_cycles_until(
    g: &SimpleGraph,
    opts: &ChordlessOptions,
    sink: &mut dyn FnMut(&[u32]) -> ControlFlow<()>,
    deadline: Option<Instant>,
) -> Result<Option<CycleStats>, CyclesError> {
    let max_len = opts.check()?;
    let r = ranked(g);
    let mut stats = CycleStats::default();
    let mut s = Scratch::new(g.num_vertices());
    let mut path = Vec::new();
    let mut out = Vec::new();
    let mut found = |c: &[u32], stats: &mut CycleStats| -> ControlFlow<()> {
        if (c.len() as u32) < opts.min_len {
            return ControlFlow::Continue(());
        }
        stats.add_cycle(c.len());
        let flow = if opts.count_only {
            ControlFlow::Continue(())
        } else {
            out.clear();
            out.extend(c.iter().map(|&v| r.original[v as usize]));
            sink(&out)
        };
        if flow.is_break() || opts.limit.is_some_and(|l| stats.total >= l) {
            stats.stopped_early = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    };
    let late = Cell::new(false);
    let past_deadline = || {
        let past = deadline.is_some_and(|d| Instant::now() > d);
        late.set(past);
        past
    };
    let give_up: GiveUp<'_> = deadline.is_some().then_some(&past_deadline);
    let g = &r.g;
    for u in 0..g.num_vertices() {
        if give_up.is_some_and(|give_up| give_up()) {
            return Ok(None); // (a graph of many triangles and few paths polls here)
        }
        let adj = g.neighbours(u);
        let above = adj.partition_point(|&x| x <= u);
        for (a, &x) in adj[above..].iter().enumerate() {
            for &y in &adj[above + a + 1..] {
                if g.adjacent(x, y) {
                    if max_len >= 3 && found(&[x, u, y], &mut stats).is_break() {
                        return Ok(Some(stats));
                    }
                    continue;
                }
                if max_len < 4 {
                    continue;
                }
                stats.initial_paths += 1;
                path.clear();
                path.extend([x, u, y]);
                let mut inner = |c: &[u32]| found(c, &mut stats);
                if expand(g, &mut path, &mut s, max_len, &mut inner, give_up).is_break() {
                    return Ok((!late.get()).then_some(stats));
                }
            }
        }
    }
    Ok(Some(stats))
}

/// [`chordless_cycles`] into a `Vec` (each cycle as the graph's ids).
pub fn chordless_cycles_vec(g: &SimpleGraph, opts: &ChordlessOptions) -> Result<Vec<Vec<u32>>, CyclesError> {
    let mut all = Vec::new();
    chordless_cycles(g, opts, &mut |c: &[u32]| {
        all.push(c.to_vec());
        ControlFlow::Continue(())
    })?;
    Ok(all)
}

/// Counts (no cycle is materialised) on rayon's threads: the initial paths are expanded breadth-first
/// until there are at least 256 paths per thread (their subtrees are very unequal: a grid has one
/// initial path per face), then each is expanded depth-first on some thread. The counts equal
/// [`chordless_cycles`]'s whatever the thread count; `limit` is ignored.
pub fn count_chordless_cycles_rayon(
    g: &SimpleGraph,
    opts: &ChordlessOptions,
) -> Result<CycleStats, CyclesError> {
    let never = AtomicBool::new(false);
    Ok(count_rayon_until(g, opts, &never, &RayonProgress::default())?.expect("never stopped"))
}

/// How far a [`count_rayon_until`] is, for a racing thread to guess how long it has left.
#[derive(Debug, Default)]
pub(crate) struct RayonProgress {
    /// Subtrees of the parallel phase (0 while the breadth-first levels run).
    total: AtomicUsize,
    /// Of those, finished.
    done: AtomicUsize,
    /// When the parallel phase began.
    since: std::sync::OnceLock<std::time::Instant>,
}

impl RayonProgress {
    /// The time left at the rate so far, `None` before any subtree finished. Subtrees are very unequal,
    /// so this is a rough guess: good enough to tell 0.1 s from seconds.
    pub(crate) fn time_left(&self) -> Option<std::time::Duration> {
        let (total, done) = (self.total.load(Ordering::Relaxed), self.done.load(Ordering::Relaxed));
        let since = self.since.get()?;
        (done > 0).then(|| since.elapsed().mul_f64((total - done.min(total)) as f64 / done as f64))
    }
}

/// [`count_chordless_cycles_rayon`] that gives up (`None`) soon after `stop` is set, telling
/// `progress` how far it is: the automatic choice races it against a GPU.
pub(crate) fn count_rayon_until(
    g: &SimpleGraph,
    opts: &ChordlessOptions,
    stop: &AtomicBool,
    progress: &RayonProgress,
) -> Result<Option<CycleStats>, CyclesError> {
    let stopped = || stop.load(Ordering::Relaxed);
    // Set when some subtree was skipped or cut short: then the totals are incomplete.
    let cut = AtomicBool::new(false);
    let max_len = opts.check()?;
    let r = ranked(g);
    let g = &r.g;
    let n = g.num_vertices();
    let mut stats = CycleStats::default();
    let count = |len: usize, stats: &mut CycleStats| {
        if len as u32 >= opts.min_len {
            stats.add_cycle(len);
        }
    };
    // Triangles and initial paths.
    let mut frontier: Vec<Vec<u32>> = Vec::new();
    for u in 0..n {
        let adj = g.neighbours(u);
        let above = adj.partition_point(|&x| x <= u);
        for (a, &x) in adj[above..].iter().enumerate() {
            for &y in &adj[above + a + 1..] {
                if g.adjacent(x, y) {
                    if max_len >= 3 {
                        count(3, &mut stats);
                    }
                } else if max_len >= 4 {
                    stats.initial_paths += 1;
                    frontier.push(vec![x, u, y]);
                }
            }
        }
    }
    // Breadth-first levels (each level in parallel) until there is enough independent work: the
    // subtrees under single paths are very unequal, so many more paths than threads.
    let want = 256 * rayon::current_num_threads();
    while !frontier.is_empty() && frontier.len() < want {
        if stopped() {
            return Ok(None);
        }
        let (next, found): (Vec<Vec<Vec<u32>>>, Vec<CycleStats>) = frontier
            .par_iter()
            .map(|path| {
                let mut next = Vec::new();
                let mut found = CycleStats::default();
                let (v1, v2, vk) = (path[0], path[1], *path.last().expect("non-empty"));
                for &v in g.neighbours(vk) {
                    if v <= v2
                        || path.contains(&v)
                        || path[1..path.len() - 1].iter().any(|&w| g.adjacent(v, w))
                    {
                        continue;
                    }
                    if g.adjacent(v, v1) {
                        if (path.len() as u32) < max_len {
                            count(path.len() + 1, &mut found);
                        }
                    } else if path.len() as u32 + 2 <= max_len {
                        let mut p = path.clone();
                        p.push(v);
                        next.push(p);
                    }
                }
                (next, found)
            })
            .unzip();
        stats = found.into_iter().fold(stats, CycleStats::merge);
        frontier = next.into_iter().flatten().collect();
    }
    let _ = progress.since.set(std::time::Instant::now());
    progress.total.store(frontier.len(), Ordering::Relaxed);
    let rest = frontier
        .into_par_iter()
        .map_init(
            || Scratch::new(n),
            |s, mut path| {
                let mut local = CycleStats::default();
                if stopped() {
                    cut.store(true, Ordering::Relaxed);
                    return local;
                }
                let mut on = |c: &[u32]| {
                    if c.len() as u32 >= opts.min_len {
                        local.add_cycle(c.len());
                    }
                    ControlFlow::Continue(())
                };
                if expand(g, &mut path, s, max_len, &mut on, Some(&stopped)).is_break() {
                    cut.store(true, Ordering::Relaxed);
                }
                progress.done.fetch_add(1, Ordering::Relaxed);
                local
            },
        )
        .reduce(CycleStats::default, CycleStats::merge);
    Ok((!cut.load(Ordering::Relaxed)).then(|| stats.merge(rest)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The time left is the time so far scaled by the subtrees left per subtree done; unknown before
    /// the parallel phase and before its first subtree.
    #[test]
    fn rayon_progress_guesses_the_time_left() {
        let p = RayonProgress::default();
        assert_eq!(p.time_left(), None);
        let _ = p.since.set(std::time::Instant::now() - std::time::Duration::from_millis(200));
        p.total.store(100, Ordering::Relaxed);
        assert_eq!(p.time_left(), None, "no subtree done yet");
        p.done.store(25, Ordering::Relaxed);
        let left = p.time_left().unwrap().as_secs_f64();
        assert!((0.59..0.7).contains(&left), "{left}");
        p.done.store(100, Ordering::Relaxed);
        assert_eq!(p.time_left(), Some(std::time::Duration::ZERO));
    }

    /// A count that reports its progress gives the same totals, and counts every subtree.
    #[test]
    fn counting_reports_every_subtree() {
        let (g, _) =
            SimpleGraph::from_csr(&graph_core::generators::grid_2d(5, 6), crate::Simplify::Repair).unwrap();
        let opts = ChordlessOptions { count_only: true, ..Default::default() };
        let p = RayonProgress::default();
        let stats = count_rayon_until(&g, &opts, &AtomicBool::new(false), &p).unwrap().unwrap();
        assert_eq!(stats, count_chordless_cycles_rayon(&g, &opts).unwrap());
        let total = p.total.load(Ordering::Relaxed);
        assert!(total > 0);
        assert_eq!(p.done.load(Ordering::Relaxed), total);
    }
}
