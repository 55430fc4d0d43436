//! Priority queues of `(label, vertex)` for [`crate::cpu::search`]: what a Dijkstra pops next.
//!
//! - [`LazyHeap`]: a binary heap of packed keys with lazy deletion (a vertex may sit in it several
//!   times; the search skips stale entries). Cheapest per operation on small graphs.
//! - [`IndexedHeap`]: a 4-ary heap with decrease-key, at most one entry per vertex, so it stays as
//!   small as the frontier: assignment's f64 trees, where a lazy heap holds every improvement.
//! - [`RadixHeap`]: integer labels only, O(1) pushes, for large
//!   graphs (measured in docs/benchmarks.md).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::cpu::label::Label;
use crate::cpu::radix_heap::RadixHeap;

/// A min-queue of vertices by label, popped in non-decreasing order (labels pushed are never below
/// the last popped one: Dijkstra's monotonicity).
pub trait Frontier<L: Label> {
    /// Offers `v` with label `key` (an improvement of its label).
    fn push(&mut self, v: u32, key: L);
    /// The vertex with the smallest label and that label (possibly a stale entry for lazy queues).
    fn pop(&mut self) -> Option<(L, u32)>;
    /// Empties the queue (after an early stop).
    fn clear(&mut self);
}

/// A binary heap with lazy deletion over `(label, vertex)` packed into one ordered key
/// ([`Label::pack`]: one `u64` for u32 labels, the bits and the vertex for f64 and u64 ones).
#[derive(Debug, Clone, Default)]
pub struct LazyHeap<L: Label> {
    heap: BinaryHeap<Reverse<L::Packed>>,
}

impl<L: Label> LazyHeap<L> {
    /// An empty heap with room for `capacity` entries.
    pub fn with_capacity(capacity: usize) -> Self {
        Self { heap: BinaryHeap::with_capacity(capacity) }
    }
}

impl<L: Label> Frontier<L> for LazyHeap<L> {
    #[inline]
    fn push(&mut self, v: u32, key: L) {
        self.heap.push(Reverse(key.pack(v)));
    }
    #[inline]
    fn pop(&mut self) -> Option<(L, u32)> {
        self.heap.pop().map(|Reverse(k)| L::unpack(k))
    }
    fn clear(&mut self) {
        self.heap.clear();
    }
}

impl Frontier<u32> for RadixHeap {
    #[inline]
    fn push(&mut self, v: u32, key: u32) {
        RadixHeap::push(self, key, v)
    }
    #[inline]
    fn pop(&mut self) -> Option<(u32, u32)> {
        RadixHeap::pop(self)
    }
    fn clear(&mut self) {
        *self = RadixHeap::new_reusing(std::mem::take(self));
    }
}

/// Min-heap over vertex ids `0..n` with a position index and decrease-key (4-ary).
#[derive(Debug, Clone)]
pub struct IndexedHeap<L: Label> {
    entries: Vec<(L, u32)>,
    /// Position of each vertex in `entries`, or `ABSENT`.
    pos: Vec<u32>,
}

const ABSENT: u32 = u32::MAX;

impl<L: Label> IndexedHeap<L> {
    /// A heap for vertices `0..n`.
    pub fn new(n: usize) -> Self {
        Self { entries: Vec::with_capacity(64), pos: vec![ABSENT; n] }
    }

    /// Empties the heap and makes room for vertices `0..n` (keeping its allocations).
    pub fn reset(&mut self, n: usize) {
        self.entries.clear();
        self.pos.clear();
        self.pos.resize(n, ABSENT);
    }

    /// Inserts `v`, or moves it to the place of its new key whether that fell or rose (a search's
    /// [`Frontier::push`] only ever lowers keys).
    pub fn update(&mut self, v: u32, key: L) {
        let i = self.place(v, key);
        let i = self.sift_up(i);
        self.sift_down(i);
    }

    /// Sets `v`'s key, appending it when absent; its index (the heap order still to restore).
    #[inline]
    fn place(&mut self, v: u32, key: L) -> usize {
        match self.pos[v as usize] {
            ABSENT => {
                self.entries.push((key, v));
                self.entries.len() - 1
            }
            p => {
                self.entries[p as usize].0 = key;
                p as usize
            }
        }
    }

    /// Moves entry `i` up to its place; where it ends.
    #[inline]
    fn sift_up(&mut self, mut i: usize) -> usize {
        let item = self.entries[i];
        while i > 0 {
            let parent = (i - 1) / 4;
            let p = self.entries[parent];
            if p.0 <= item.0 {
                break;
            }
            self.entries[i] = p;
            self.pos[p.1 as usize] = i as u32;
            i = parent;
        }
        self.entries[i] = item;
        self.pos[item.1 as usize] = i as u32;
        i
    }

    #[inline]
    fn sift_down(&mut self, mut i: usize) {
        let item = self.entries[i];
        let len = self.entries.len();
        loop {
            let first = 4 * i + 1;
            if first >= len {
                break;
            }
            let mut best = first;
            let mut best_key = self.entries[first].0;
            for c in first + 1..(first + 4).min(len) {
                let k = self.entries[c].0;
                if k < best_key {
                    best = c;
                    best_key = k;
                }
            }
            if best_key >= item.0 {
                break;
            }
            self.entries[i] = self.entries[best];
            self.pos[self.entries[i].1 as usize] = i as u32;
            i = best;
        }
        self.entries[i] = item;
        self.pos[item.1 as usize] = i as u32;
    }
}

impl<L: Label> Frontier<L> for IndexedHeap<L> {
    /// Inserts `v`, or lowers its key if it is already in the heap.
    #[inline]
    fn push(&mut self, v: u32, key: L) {
        let i = self.place(v, key);
        self.sift_up(i);
    }

    #[inline]
    fn pop(&mut self) -> Option<(L, u32)> {
        let top = *self.entries.first()?;
        self.pos[top.1 as usize] = ABSENT;
        let last = self.entries.pop().expect("non-empty");
        if !self.entries.is_empty() {
            self.entries[0] = last;
            self.sift_down(0);
        }
        Some(top)
    }

    fn clear(&mut self) {
        for &(_, v) in &self.entries {
            self.pos[v as usize] = ABSENT;
        }
        self.entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pops_in_order<F: Frontier<f64>>(mut h: F, lazy: bool) {
        let mut rng = graph_core::rng::SplitMix64::new(7);
        let n = 500;
        let mut best = vec![f64::INFINITY; n];
        for _ in 0..3000 {
            let v = rng.below(n as u64) as usize;
            let k = rng.below(10_000) as f64 / 8.0;
            if k < best[v] {
                best[v] = k;
                h.push(v as u32, k);
            }
        }
        let mut last = f64::NEG_INFINITY;
        let mut seen = vec![false; n];
        while let Some((k, v)) = h.pop() {
            assert!(k >= last);
            last = k;
            if lazy && (seen[v as usize] || k > best[v as usize]) {
                continue;
            }
            assert_eq!(k, best[v as usize]);
            assert!(!seen[v as usize]);
            seen[v as usize] = true;
        }
        assert_eq!(seen.iter().filter(|&&s| s).count(), best.iter().filter(|b| b.is_finite()).count());
    }

    #[test]
    fn every_queue_pops_each_vertex_at_its_best_label_in_order() {
        pops_in_order(IndexedHeap::new(500), false);
        pops_in_order(LazyHeap::with_capacity(16), true);
    }
}
