//! Many (s, t) queries at once on the CPU: the reverse graph is built once, queries that share a
//! target share its preparation, and targets run in parallel on rayon's threads.

use std::time::{Duration, Instant};

use graph_core::Csr;
use rayon::prelude::*;

use super::{KspError, MpsTarget, Path, check_vertex};

/// What a batch did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BatchStats {
    /// Queries answered.
    pub queries: usize,
    /// Distinct targets (one preparation each).
    pub targets: usize,
    /// Candidates popped, over all queries.
    pub pops: u64,
    /// Of those, candidates that repeat a vertex.
    pub looped_pops: u64,
    /// Wall time of the whole batch.
    pub time: Duration,
    /// Queries answered by the GPU (the rest ran on the CPU).
    pub gpu_queries: usize,
}

/// One query's answer: its index, its paths, pops and looped pops.
type Answer = (u32, Vec<Path>, u64, u64);

/// The `k` cheapest loopless paths of every `(source, target)` query, in the order of `queries`, on
/// the CPU's threads.
///
/// ```
/// use algos_sssp::ksp::{ksp_batch_cpu, mps};
/// let g = graph_core::generators::grid_2d(4, 4); // unit weights: many ties
/// let queries = [(0, 15), (3, 12), (5, 15)];
/// let (answers, stats) = ksp_batch_cpu(&g, &queries, 5).unwrap();
/// assert_eq!(stats.targets, 2);
/// for (&(s, t), paths) in queries.iter().zip(&answers) {
///     assert_eq!(paths, &mps(&g, s, t, 5).unwrap().0);
/// }
/// ```
pub fn ksp_batch_cpu(
    g: &Csr<u32>,
    queries: &[(u32, u32)],
    k: usize,
) -> Result<(Vec<Vec<Path>>, BatchStats), KspError> {
    let start = Instant::now();
    for &(s, t) in queries {
        check_vertex(g, "source", s)?;
        check_vertex(g, "target", t)?;
    }
    // Query indices grouped by target, in first-appearance order.
    let mut order: Vec<u32> = (0..queries.len() as u32).collect();
    order.sort_by_key(|&i| (queries[i as usize].1, i));
    let groups: Vec<&[u32]> =
        order.chunk_by(|&a, &b| queries[a as usize].1 == queries[b as usize].1).collect();
    let rev = g.transpose().graph;
    let answered: Vec<Vec<Answer>> = groups
        .par_iter()
        .map(|group| {
            let t = queries[group[0] as usize].1;
            let target = MpsTarget::with_reverse(g, &rev, t)?;
            group
                .iter()
                .map(|&i| {
                    let mut it = target.iter(queries[i as usize].0)?;
                    let paths: Vec<Path> = it.by_ref().take(k).collect();
                    let st = it.stats();
                    Ok((i, paths, st.pops, st.looped_pops))
                })
                .collect()
        })
        .collect::<Result<_, KspError>>()?;
    let mut out = vec![Vec::new(); queries.len()];
    let mut stats = BatchStats { queries: queries.len(), targets: groups.len(), ..Default::default() };
    for (i, paths, pops, looped) in answered.into_iter().flatten() {
        out[i as usize] = paths;
        stats.pops += pops;
        stats.looped_pops += looped;
    }
    stats.time = start.elapsed();
    Ok((out, stats))
}
