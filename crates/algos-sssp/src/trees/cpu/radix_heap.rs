//! A radix heap (Ahuja, Mehlhorn, Orlin and Tarjan 1990) for monotone integer keys: Dijkstra never
//! inserts a key below the last one extracted, so items live in 33 buckets indexed by the highest bit
//! in which their key differs from that last key. Push is O(1); each item moves between buckets at
//! most 32 times. Much cheaper than a binary heap on road graphs (no sift-down per pop).

/// Min-priority queue of `(key, value)` with keys never below the last popped key.
#[derive(Debug, Clone)]
pub struct RadixHeap {
    last: u32,
    len: usize,
    buckets: [Vec<(u32, u32)>; 33],
}

impl Default for RadixHeap {
    fn default() -> Self {
        Self::new()
    }
}

impl RadixHeap {
    /// An empty heap (last key 0).
    pub fn new() -> Self {
        Self { last: 0, len: 0, buckets: std::array::from_fn(|_| Vec::new()) }
    }

    /// An empty heap (last key 0) that keeps `old`'s bucket allocations.
    pub fn new_reusing(mut old: RadixHeap) -> Self {
        for b in &mut old.buckets {
            b.clear();
        }
        Self { last: 0, len: 0, buckets: old.buckets }
    }

    #[inline]
    fn bucket(&self, key: u32) -> usize {
        (32 - (key ^ self.last).leading_zeros()) as usize
    }

    /// Inserts `value` with `key` (`key >= ` the last popped key).
    #[inline]
    pub fn push(&mut self, key: u32, value: u32) {
        debug_assert!(key >= self.last, "radix heap keys must be monotone");
        let b = self.bucket(key);
        self.buckets[b].push((key, value));
        self.len += 1;
    }

    /// Removes an item with the smallest key.
    #[inline]
    pub fn pop(&mut self) -> Option<(u32, u32)> {
        if self.buckets[0].is_empty() {
            let i = self.buckets.iter().position(|b| !b.is_empty())?;
            let items = std::mem::take(&mut self.buckets[i]);
            self.last = items.iter().map(|&(k, _)| k).min().expect("non-empty bucket");
            for &(k, v) in &items {
                let b = self.bucket(k);
                self.buckets[b].push((k, v));
            }
            // Give the (now empty) allocation back so it is reused.
            let mut items = items;
            items.clear();
            if self.buckets[i].is_empty() {
                self.buckets[i] = items;
            }
        }
        self.len -= 1;
        self.buckets[0].pop()
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_key_order_with_monotone_pushes() {
        let mut h = RadixHeap::new();
        let mut rng = graph_core::rng::SplitMix64::new(3);
        let mut model = std::collections::BinaryHeap::new();
        let mut last = 0u32;
        for step in 0..20_000 {
            if step % 3 != 2 {
                let k = last + rng.below(1000) as u32;
                h.push(k, step);
                model.push(std::cmp::Reverse(k));
            } else if let Some((k, _)) = h.pop() {
                let std::cmp::Reverse(m) = model.pop().unwrap();
                assert_eq!(k, m);
                last = k;
            }
        }
        while let Some((k, _)) = h.pop() {
            assert_eq!(k, model.pop().unwrap().0);
        }
        assert!(model.is_empty() && h.is_empty());
    }
}
