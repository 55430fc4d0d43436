//! An indexed 4-ary min-heap of nodes keyed by f64 distance, with decrease-key: at most one entry per
//! node, so the heap stays as small as the search frontier (a lazy binary heap holds every improvement).

/// Min-heap over node ids `0..n` with a position index.
#[derive(Debug, Clone)]
pub(crate) struct IndexedHeap {
    entries: Vec<(f64, u32)>,
    /// Position of each node in `entries`, or `ABSENT`.
    pos: Vec<u32>,
}

const ABSENT: u32 = u32::MAX;

impl IndexedHeap {
    pub(crate) fn new(n: usize) -> Self {
        Self { entries: Vec::with_capacity(64), pos: vec![ABSENT; n] }
    }

    /// Inserts `node` with `key`, or lowers its key if it is already in the heap with a larger one.
    #[inline]
    pub(crate) fn push_or_decrease(&mut self, node: u32, key: f64) {
        let i = match self.pos[node as usize] {
            ABSENT => {
                self.entries.push((key, node));
                self.entries.len() - 1
            }
            p => {
                self.entries[p as usize].0 = key;
                p as usize
            }
        };
        self.sift_up(i);
    }

    /// Removes and returns the node with the smallest key (ties: whichever the heap holds first).
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<(f64, u32)> {
        let top = *self.entries.first()?;
        self.pos[top.1 as usize] = ABSENT;
        let last = self.entries.pop().expect("non-empty");
        if !self.entries.is_empty() {
            self.entries[0] = last;
            self.sift_down(0);
        }
        Some(top)
    }

    /// Empties the heap (after an early stop).
    pub(crate) fn clear(&mut self) {
        for &(_, v) in &self.entries {
            self.pos[v as usize] = ABSENT;
        }
        self.entries.clear();
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_key_order_with_decreases() {
        let mut rng = graph_core::rng::SplitMix64::new(7);
        let n = 500;
        let mut h = IndexedHeap::new(n);
        let mut best = vec![f64::INFINITY; n];
        for _ in 0..3000 {
            let v = (rng.next_u64() % n as u64) as usize;
            let k = (rng.next_u64() % 10_000) as f64;
            if k < best[v] {
                best[v] = k;
                h.push_or_decrease(v as u32, k);
            }
        }
        let mut last = f64::NEG_INFINITY;
        let mut count = 0;
        while let Some((k, v)) = h.pop() {
            assert!(k >= last);
            assert_eq!(k, best[v as usize]);
            last = k;
            count += 1;
        }
        assert_eq!(count, best.iter().filter(|b| b.is_finite()).count());
    }
}
