//! The level-synchronous expansion that the GPU runs (spec cycles.md §3.5), step for step on the CPU:
//! the mirror that the GPU's output is tested against, and the pieces both share (row layout, initial
//! paths, capacities, decoding a cycle record).
//!
//! A path is a row `[v1, v2, last, bitmap of its vertices]` in ranked ids. Paths of depth d (d + 3
//! vertices) live on stack d % 2; a step pops a chunk from the deepest non-empty depth (the suffix of a
//! window of its last rows whose children fit the other stack, and whose cycles fit the cycle buffer)
//! and pushes its children. When whole levels fit, that is plain breadth-first expansion in the CPU's
//! order; when they do not, memory stays bounded by chunks carried depth-first. Each step's decisions
//! depend only on the state, so the mirror and `shaders/cycles_levels.wgsl` make the same ones and write
//! the same records in the same order.

use std::ops::ControlFlow;

use crate::CyclesError;
use crate::enumerate::{CycleStats, Ranked};
use crate::graph::SimpleGraph;

/// Rows that `plan` always offers to count, however little room is left (the fit may take fewer).
const MIN_WINDOW: u32 = 1024;

/// Row layout for a graph of `n` vertices.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout {
    /// Bitmap words per row.
    pub words: u32,
    /// Words per row (3 + words).
    pub stride: u32,
}

impl Layout {
    pub fn new(n: u32) -> Self {
        let words = n.div_ceil(32).max(1);
        Self { words, stride: 3 + words }
    }
}

/// How big the machine's buffers are, in rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Capacities {
    /// Path rows per stack (there are two).
    pub rows_per_stack: u32,
    /// Cycle records held before the host must drain them (0: count only, none are written).
    pub cycle_rows: u32,
    /// Most rows counted in one step.
    pub window: u32,
}

/// What a run gives besides the cycles.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Machine {
    pub steps: u64,
    pub peak_rows: u64,
}

/// The initial paths `⟨x, u, y⟩` (rank(u) < rank(x) < rank(y), x ≁ y) as rows, in the sequential
/// order; triangles go to `triangle` (which may stop the enumeration: then `None`).
pub(crate) fn initial_rows(
    g: &SimpleGraph,
    lay: Layout,
    max_len: u32,
    triangle: &mut dyn FnMut(&[u32]) -> ControlFlow<()>,
) -> Option<(Vec<u32>, u64)> {
    let mut rows = Vec::new();
    let mut count = 0u64;
    for u in 0..g.num_vertices() {
        let adj = g.neighbours(u);
        let above = adj.partition_point(|&x| x <= u);
        for (a, &x) in adj[above..].iter().enumerate() {
            for &y in &adj[above + a + 1..] {
                if g.adjacent(x, y) {
                    if max_len >= 3 && triangle(&[x, u, y]).is_break() {
                        return None;
                    }
                } else if max_len >= 4 {
                    let at = rows.len();
                    rows.extend([x, u, y]);
                    rows.resize(at + lay.stride as usize, 0);
                    for v in [x, u, y] {
                        rows[at + 3 + (v >> 5) as usize] |= 1 << (v & 31);
                    }
                    count += 1;
                }
            }
        }
    }
    Some((rows, count))
}

/// The cycle of a record `[v1, v2, closing vertex, vertex bitmap]`, in order from v1 then v2 (each
/// vertex of a chordless cycle has exactly two neighbours on it).
pub(crate) fn decode(g: &SimpleGraph, record: &[u32], out: &mut Vec<u32>) {
    let on = |v: u32| (record[3 + (v >> 5) as usize] >> (v & 31)) & 1 != 0;
    let (v1, v2, close) = (record[0], record[1], record[2]);
    out.clear();
    out.extend([v1, v2]);
    let (mut prev, mut cur) = (v1, v2);
    while cur != close {
        let next = g
            .neighbours(cur)
            .iter()
            .copied()
            .find(|&w| w != prev && on(w))
            .expect("a chordless cycle record: two neighbours on the cycle per vertex");
        out.push(next);
        (prev, cur) = (cur, next);
    }
}

/// Machine state (the `control` words of the shader).
struct State {
    depth: Option<u32>,
    top: [u32; 2],
    seg: Vec<u32>,
    stored: u32,
    steps: u64,
    peak: u64,
}

/// A planned step: window rows `[win, win + w)` of depth `depth` (paths of `len` vertices).
struct Window {
    depth: u32,
    win: u32,
    w: u32,
    /// Rows left at this depth (the window is all of them when `w == rest`).
    rest: u32,
    out: u32,
    len: u32,
}

/// The CPU mirror of the GPU machine.
pub(crate) struct CyclesLevelsMirror<'a> {
    g: &'a SimpleGraph,
    lay: Layout,
    caps: Capacities,
    min_len: u32,
    max_len: u32,
    arena: Vec<u32>,
    cycles: Vec<u32>,
    /// Cycles found per length (`[k]` for length k).
    pub lengths: Vec<u64>,
    state: State,
    pub machine: Machine,
}

/// What the host needs from a machine (the GPU's or the mirror).
pub(crate) trait LevelMachine {
    /// Runs over `rows` (initial paths, at most a stack's worth), passing each cycle record to `drain`
    /// whenever the cycle buffer fills and at the end; stops when `drain` breaks.
    fn run(
        &mut self,
        rows: &[u32],
        drain: &mut dyn FnMut(&[u32]) -> ControlFlow<()>,
    ) -> Result<ControlFlow<()>, CyclesError>;
    /// Cycles found so far per length (`[k]` for length k), records or not.
    fn lengths(&mut self) -> Result<Vec<u64>, CyclesError>;
    /// Steps and peak rows so far.
    fn machine(&self) -> Machine;
}

impl<'a> CyclesLevelsMirror<'a> {
    pub fn new(g: &'a SimpleGraph, caps: Capacities, min_len: u32, max_len: u32) -> Self {
        let lay = Layout::new(g.num_vertices());
        Self {
            g,
            lay,
            caps,
            min_len,
            max_len,
            arena: vec![0; 2 * caps.rows_per_stack as usize * lay.stride as usize],
            cycles: vec![0; caps.cycle_rows as usize * lay.stride as usize],
            lengths: vec![0; g.num_vertices() as usize + 2],
            state: State {
                depth: None,
                top: [0, 0],
                seg: vec![0; g.num_vertices() as usize + 1],
                stored: 0,
                steps: 0,
                peak: 0,
            },
            machine: Machine::default(),
        }
    }

    fn row(&self, r: u32) -> usize {
        r as usize * self.lay.stride as usize
    }

    /// Children and cycles of the path in row `row`; with `out`, writes them at `(child_row,
    /// cycle_row)` onward (the shader's `visit`).
    fn visit(&mut self, row: u32, len: u32, out: Option<(u32, u32)>) -> (u32, u32) {
        let g = self.g;
        let at = self.row(row);
        let grow = len + 2 <= self.max_len;
        let close = len < self.max_len && len + 1 >= self.min_len;
        let mut found = (0u32, 0u32);
        if !grow && len + 1 > self.max_len {
            return found;
        }
        let (v1, v2, last) = (self.arena[at], self.arena[at + 1], self.arena[at + 2]);
        let on = |arena: &[u32], v: u32| (arena[at + 3 + (v >> 5) as usize] >> (v & 31)) & 1 != 0;
        for &v in g.neighbours(last) {
            if v <= v2 || on(&self.arena, v) {
                continue;
            }
            let mut chord = false;
            let mut closes = false;
            for &w in g.neighbours(v) {
                if w != last && on(&self.arena, w) {
                    if w == v1 {
                        closes = true;
                    } else {
                        chord = true;
                        break;
                    }
                }
            }
            if chord {
                continue;
            }
            let (target, dst) = if closes {
                if !close {
                    continue;
                }
                let dst = out.filter(|_| self.caps.cycle_rows > 0).map(|(_, c)| self.row(c + found.1));
                found.1 += 1;
                (true, dst)
            } else if grow {
                let dst = out.map(|(r, _)| self.row(r + found.0));
                found.0 += 1;
                (false, dst)
            } else {
                continue;
            };
            if let Some(dst) = dst {
                let stride = self.lay.stride as usize;
                let mut rec: Vec<u32> = self.arena[at..at + stride].to_vec();
                rec[2] = v;
                rec[3 + (v >> 5) as usize] |= 1 << (v & 31);
                let buf = if target { &mut self.cycles } else { &mut self.arena };
                buf[dst..dst + stride].copy_from_slice(&rec);
            }
        }
        found
    }

    fn plan(&mut self) -> Option<Window> {
        let s = &mut self.state;
        let mut d = s.depth?;
        loop {
            if s.top[(d & 1) as usize] > s.seg[d as usize] {
                break;
            }
            if d == 0 {
                s.depth = None;
                return None;
            }
            d -= 1;
        }
        s.depth = Some(d);
        let (side, other) = ((d & 1) as usize, 1 - (d & 1) as usize);
        let r = s.top[side] - s.seg[d as usize];
        let free = self.caps.rows_per_stack - s.top[other];
        let w = r.min(self.caps.window).min(free.max(MIN_WINDOW));
        let cap = self.caps.rows_per_stack;
        Some(Window {
            depth: d,
            win: side as u32 * cap + s.top[side] - w,
            w,
            rest: r,
            out: other as u32 * cap + s.top[other],
            len: d + 3,
        })
    }

    fn flush(&mut self, drain: &mut dyn FnMut(&[u32]) -> ControlFlow<()>) -> ControlFlow<()> {
        let stride = self.lay.stride as usize;
        let stored = std::mem::take(&mut self.state.stored) as usize;
        for rec in self.cycles[..stored * stride].chunks_exact(stride) {
            drain(rec)?;
        }
        ControlFlow::Continue(())
    }
}

impl LevelMachine for CyclesLevelsMirror<'_> {
    fn lengths(&mut self) -> Result<Vec<u64>, CyclesError> {
        Ok(self.lengths.clone())
    }

    fn machine(&self) -> Machine {
        self.machine
    }

    fn run(
        &mut self,
        rows: &[u32],
        drain: &mut dyn FnMut(&[u32]) -> ControlFlow<()>,
    ) -> Result<ControlFlow<()>, CyclesError> {
        let stride = self.lay.stride as usize;
        let count = (rows.len() / stride) as u32;
        self.arena[..rows.len()].copy_from_slice(rows);
        self.state.top = [count, 0];
        self.state.seg[0] = 0;
        self.state.depth = Some(0);
        self.state.stored = 0;
        while let Some(win) = self.plan() {
            let counts: Vec<(u32, u32)> =
                (0..win.w).map(|i| self.visit(win.win + i, win.len, None)).collect();
            let total = counts.iter().fold((0u32, 0u32), |a, c| (a.0 + c.0, a.1 + c.1));
            let side = (win.depth & 1) as usize;
            let mut free_rows = self.caps.rows_per_stack - self.state.top[1 - side];
            let free_cycles =
                if self.caps.cycle_rows > 0 { self.caps.cycle_rows - self.state.stored } else { u32::MAX };
            // A whole level that fits runs breadth-first; a chunk takes at most half the room left,
            // so the depths below it still find some.
            if win.w != win.rest || total.0 > free_rows || total.1 > free_cycles {
                free_rows /= 2;
            }
            // The longest suffix that fits.
            let mut prefix = (0u32, 0u32);
            let mut cut = win.w;
            let mut cut_prefix = total;
            for (i, c) in counts.iter().enumerate() {
                if total.0 - prefix.0 <= free_rows && total.1 - prefix.1 <= free_cycles {
                    cut = i as u32;
                    cut_prefix = prefix;
                    break;
                }
                prefix = (prefix.0 + c.0, prefix.1 + c.1);
            }
            if cut == win.w {
                if self.caps.cycle_rows > 0 && self.state.stored > 0 {
                    if self.flush(drain).is_break() {
                        return Ok(ControlFlow::Break(()));
                    }
                    continue;
                }
                return Err(CyclesError::MemoryBudget {
                    depth: win.depth,
                    rows: self.caps.rows_per_stack as u64,
                    bytes: self.caps.rows_per_stack as u64 * stride as u64 * 8,
                });
            }
            let (mut child, mut cycle) = (win.out, self.state.stored);
            for i in cut..win.w {
                let c = counts[i as usize];
                if c.0 + c.1 > 0 {
                    self.visit(win.win + i, win.len, Some((child, cycle)));
                }
                child += c.0;
                cycle += c.1;
            }
            let chunk = (total.0 - cut_prefix.0, total.1 - cut_prefix.1);
            let s = &mut self.state;
            s.top[side] -= win.w - cut;
            self.lengths[win.len as usize + 1] += chunk.1 as u64;
            if self.caps.cycle_rows > 0 {
                s.stored += chunk.1;
            }
            if chunk.0 > 0 {
                s.seg[win.depth as usize + 1] = s.top[1 - side];
                s.top[1 - side] += chunk.0;
                s.depth = Some(win.depth + 1);
            }
            s.steps += 1;
            s.peak = s.peak.max(s.top[0] as u64 + s.top[1] as u64);
        }
        self.machine = Machine { steps: self.state.steps, peak_rows: self.state.peak };
        Ok(self.flush(drain))
    }
}

/// The host side shared by the mirror and the GPU: triangles and initial paths on the CPU, batches of
/// initial paths through the machine, cycle records decoded to original ids and passed through the
/// options; in count-only mode the machine's own per-length counters.
pub(crate) fn drive(
    r: &Ranked,
    opts: &crate::ChordlessOptions,
    max_len: u32,
    caps: Capacities,
    sink: &mut dyn FnMut(&[u32]) -> ControlFlow<()>,
    machine: &mut dyn LevelMachine,
) -> Result<CycleStats, CyclesError> {
    let g = &r.g;
    let lay = Layout::new(g.num_vertices());
    let mut stats = CycleStats::default();
    let mut out = Vec::new();
    let mut cycle = Vec::new();
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
    let Some((rows, initial)) = initial_rows(g, lay, max_len, &mut |c| found(c, &mut stats)) else {
        return Ok(stats);
    };
    stats.initial_paths = initial;
    // Half a stack of initial paths at a time: the depths below them stack above on the same stack.
    let batch = caps.rows_per_stack.div_ceil(2) as usize * lay.stride as usize;
    for rows in rows.chunks(batch.max(lay.stride as usize)) {
        let mut on_record = |rec: &[u32]| {
            decode(g, rec, &mut cycle);
            found(&cycle, &mut stats)
        };
        if machine.run(rows, &mut on_record)?.is_break() {
            break;
        }
    }
    if caps.cycle_rows == 0 {
        for (len, &k) in machine.lengths()?.iter().enumerate() {
            if k > 0 {
                stats.total += k;
                if stats.by_length.len() <= len {
                    stats.by_length.resize(len + 1, 0);
                }
                stats.by_length[len] += k;
            }
        }
    }
    let m = machine.machine();
    stats.levels = m.steps;
    stats.peak_paths = m.peak_rows;
    Ok(stats)
}
