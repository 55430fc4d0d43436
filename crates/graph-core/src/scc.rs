//! Strongly connected components (Tarjan 1972, iterative: road graphs are deep enough to overflow a
//! recursive version's stack).

use crate::csr::Csr;
use crate::weight::Weight;

/// The strongly connected components of a directed graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Components {
    /// Component of each vertex, `0..count`.
    pub of: Vec<u32>,
    /// Number of components.
    pub count: u32,
    /// Vertices in each component.
    pub sizes: Vec<u32>,
}

impl Components {
    /// The largest component (the smallest id among equally large ones), if the graph has vertices.
    pub fn largest(&self) -> Option<u32> {
        (0..self.count).max_by_key(|&c| (self.sizes[c as usize], std::cmp::Reverse(c)))
    }
}

/// Strongly connected components of `g`.
///
/// ```
/// use urbanflow::graph::{GraphBuilder, scc::strongly_connected};
/// let mut b = GraphBuilder::<u32>::new(4);
/// b.add_arc(0, 1, 1).add_arc(1, 0, 1).add_arc(1, 2, 1).add_arc(2, 3, 1);
/// let (g, _) = b.build().unwrap();
/// let c = strongly_connected(&g);
/// assert_eq!(c.count, 3);
/// assert_eq!(c.of[0], c.of[1]);
/// assert_eq!(c.sizes[c.largest().unwrap() as usize], 2);
/// ```
pub fn strongly_connected<W: Weight>(g: &Csr<W>) -> Components {
    const NONE: u32 = u32::MAX;
    let n = g.num_vertices() as usize;
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut of = vec![NONE; n];
    let mut stack: Vec<u32> = Vec::new();
    // (vertex, next arc to look at)
    let mut calls: Vec<(u32, usize)> = Vec::new();
    let mut next_index = 0u32;
    let mut count = 0u32;
    let mut sizes = Vec::new();
    for root in 0..n as u32 {
        if index[root as usize] != NONE {
            continue;
        }
        calls.push((root, g.arc_range(root).start));
        index[root as usize] = next_index;
        low[root as usize] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        while let Some(&mut (v, ref mut arc)) = calls.last_mut() {
            let end = g.arc_range(v).end;
            if *arc < end {
                let w = g.targets()[*arc];
                *arc += 1;
                if index[w as usize] == NONE {
                    index[w as usize] = next_index;
                    low[w as usize] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    calls.push((w, g.arc_range(w).start));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent as usize] = low[parent as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                let mut size = 0;
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on_stack[w as usize] = false;
                    of[w as usize] = count;
                    size += 1;
                    if w == v {
                        break;
                    }
                }
                sizes.push(size);
                count += 1;
            }
        }
    }
    Components { of, count, sizes }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GraphBuilder;

    /// Reachability both ways, by brute force.
    fn same_component_brute(g: &Csr<u32>, a: u32, b: u32) -> bool {
        let reach = |from: u32| {
            let mut seen = vec![false; g.num_vertices() as usize];
            let mut todo = vec![from];
            seen[from as usize] = true;
            while let Some(v) = todo.pop() {
                for &w in g.targets_of(v) {
                    if !seen[w as usize] {
                        seen[w as usize] = true;
                        todo.push(w);
                    }
                }
            }
            seen
        };
        reach(a)[b as usize] && reach(b)[a as usize]
    }

    #[test]
    fn equals_mutual_reachability_on_random_graphs() {
        let mut rng = crate::rng::SplitMix64::new(3);
        for case in 0..60 {
            let n = 1 + rng.below(25) as u32;
            let mut b = GraphBuilder::<u32>::new(n);
            for _ in 0..rng.below(3 * n as u64 + 1) {
                b.add_arc(rng.below(n as u64) as u32, rng.below(n as u64) as u32, 1);
            }
            let (g, _) = b.build().unwrap();
            let c = strongly_connected(&g);
            assert_eq!(c.sizes.iter().sum::<u32>(), n, "case {case}");
            for a in 0..n {
                for b in 0..n {
                    assert_eq!(
                        c.of[a as usize] == c.of[b as usize],
                        same_component_brute(&g, a, b),
                        "case {case}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_long_path_does_not_overflow_the_stack() {
        let n = 1_000_000;
        let mut b = GraphBuilder::<u32>::new(n);
        for v in 0..n - 1 {
            b.add_arc(v, v + 1, 1);
        }
        b.add_arc(n - 1, 0, 1);
        let (g, _) = b.build().unwrap();
        let c = strongly_connected(&g);
        assert_eq!((c.count, c.sizes[0]), (1, n));
    }
}
