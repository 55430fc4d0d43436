//! A binary min-heap of candidate ids whose order is decided by the caller: ties in cost are broken by
//! the candidates' arc sequences, which live in the ranking's own storage, not in the heap entries.

use std::cmp::Ordering;

#[derive(Debug, Default)]
pub(crate) struct IdHeap {
    ids: Vec<u32>,
}

impl IdHeap {
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    /// The least id, without removing it.
    pub(crate) fn peek(&self) -> Option<u32> {
        self.ids.first().copied()
    }

    pub(crate) fn push(&mut self, id: u32, cmp: &mut impl FnMut(u32, u32) -> Ordering) {
        self.ids.push(id);
        let mut at = self.ids.len() - 1;
        while at > 0 {
            let up = (at - 1) / 2;
            if cmp(self.ids[at], self.ids[up]) != Ordering::Less {
                break;
            }
            self.ids.swap(at, up);
            at = up;
        }
    }

    pub(crate) fn pop(&mut self, cmp: &mut impl FnMut(u32, u32) -> Ordering) -> Option<u32> {
        let last = self.ids.len().checked_sub(1)?;
        self.ids.swap(0, last);
        let top = self.ids.pop();
        let n = self.ids.len();
        let mut at = 0;
        loop {
            let (l, r) = (2 * at + 1, 2 * at + 2);
            let mut least = at;
            if l < n && cmp(self.ids[l], self.ids[least]) == Ordering::Less {
                least = l;
            }
            if r < n && cmp(self.ids[r], self.ids[least]) == Ordering::Less {
                least = r;
            }
            if least == at {
                break;
            }
            self.ids.swap(at, least);
            at = least;
        }
        top
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_the_callers_order() {
        let keys = [5u32, 1, 9, 3, 3, 7, 0, 8];
        let mut cmp = |a: u32, b: u32| keys[a as usize].cmp(&keys[b as usize]).then(a.cmp(&b));
        let mut h = IdHeap::default();
        for id in 0..keys.len() as u32 {
            h.push(id, &mut cmp);
        }
        let order: Vec<u32> = std::iter::from_fn(|| h.pop(&mut cmp)).collect();
        assert_eq!(order, [6, 1, 3, 4, 0, 5, 7, 2]);
    }
}
