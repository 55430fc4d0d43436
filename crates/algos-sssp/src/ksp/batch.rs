//! Many (s, t) queries at once on the CPU: the reverse graph is built once, queries that share a
//! target share its preparation, and targets, and the sources of each target, run in parallel on
//! rayon's threads. The distances to the targets come from one Dijkstra each, or for many targets
//! from PHAST on the graph's reversed hierarchy ([`TargetDistances`]).

use crate::SsspError;
use std::time::{Duration, Instant};

use graph_core::Csr;
use rayon::prelude::*;

use gpu_runtime::{Backend, GpuContext};

#[cfg(feature = "gpu")]
use super::{KspGpuOptions, ksp_batch_gpu};
use super::{MpsTarget, Path, check_vertex};
use crate::ch::{ContractionHierarchy, LANES};

/// What a batch did.
#[derive(Debug, Clone, Default, PartialEq)]
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
    /// Queries the GPU handed to the CPU, by reason: candidate pool, pops, arena, a cost beyond u32,
    /// more equal-cost paths at the K-th cost than it keeps, gather buffer.
    pub gpu_overflows: [u32; 6],
    /// Why the backend ran: what [`ksp_batch`] decided for `Backend::Auto`, or "asked for".
    pub why: String,
    /// How the distances to the targets were computed (never [`TargetDistances::Auto`]).
    pub distances: TargetDistances,
    /// Why: "asked for", or what the automatic choice weighed.
    pub distances_why: &'static str,
    /// Seconds spent preparing the hierarchy for [`TargetDistances::Phast`] (its order loaded or
    /// built, then customised); part of [`Self::time`], on the GPU beside the ranker's allocations.
    pub hierarchy_s: f64,
    /// Where a GPU batch's time went (zero on the CPU), seconds; see [`GpuPhases`].
    pub gpu: GpuPhases,
}

/// Where a GPU batch's time went, in seconds of the calling thread, which drives the device.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct GpuPhases {
    /// Allocating the ranker's buffers and the distance rows' source (with the hierarchy's
    /// preparation beside it).
    pub setup_s: f64,
    /// The targets' distances, summed over the batches: their device time with
    /// `KspGpuOptions::split_times`, else only the time to submit them.
    pub distances_s: f64,
    /// Tree arcs, the rankings and reading their rows back, summed over the batches.
    pub ranking_s: f64,
    /// After the last batch's rows: waiting for the threads that turn rows into paths and answer the
    /// queries handed back to the CPU.
    pub tail_s: f64,
    /// Giving the device its buffers back.
    pub release_s: f64,
}

/// How a batch computes every target's distances to it, the tree each ranking starts from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TargetDistances {
    /// One search per distinct target on the reverse graph: Dijkstra on the CPU, the batched
    /// many-source kernel on a GPU. No preparation.
    Searches,
    /// PHAST from every target on the graph's customisable hierarchy, reversed
    /// ([`crate::ch::ContractionHierarchy::reversed`]): its order from the cache folder (or built and
    /// saved), customised with the graph's weights, then 16 targets a sweep on the CPU cores or a pass
    /// per batch on the GPU. The same distances, so the same paths.
    Phast,
    /// PHAST when the distinct targets pay for the hierarchy ([`ksp_phast_threshold`] on the CPU,
    /// the many-source rule [`crate::auto::phast_pays`] on a GPU), on road-like graphs; else searches.
    #[default]
    Auto,
}

/// Distinct targets per CPU thread from which [`TargetDistances::Auto`] takes PHAST with the
/// hierarchy's order cached. Measured on NY (`ksp --pairs N --k 10 --backend cpu`, docs/benchmarks.md
/// "Distances to the targets by PHAST"): a target's searched distances and ranking cost 23 ms of a
/// thread on 2 threads, 39 ms on 16; PHAST's 9 and 15 ms; the cached hierarchy 0.12–0.14 s. So PHAST
/// pays from about 18 targets on 2 threads and 77 on 16; this asks for more.
pub const KSP_PHAST_MIN_TARGETS_PER_THREAD_CACHED: usize = 16;
/// [`KSP_PHAST_MIN_TARGETS_PER_THREAD_CACHED`] when the hierarchy's order must be built first (NY:
/// 1.04 s on 2 threads, 0.6 s on 16, then saved for later runs): from about 140 targets on 2 threads
/// (measured 100: 1.52 s against 1.26 s for searches; 200: 1.90 against 2.32 s) and 390 on 16
/// (1,000: 1.58 against 2.46 s), capped at [`KSP_PHAST_MAX_TARGETS_TO_BUILD`].
pub const KSP_PHAST_MIN_TARGETS_PER_THREAD_TO_BUILD: usize = 72;
/// The most distinct targets [`TargetDistances::Auto`] asks for before building a hierarchy on the
/// CPU (the build is parallel too, so the per-thread rule overstates many threads' threshold).
pub const KSP_PHAST_MAX_TARGETS_TO_BUILD: usize = 576;

/// Distinct targets from which PHAST gives a CPU batch its distances on `threads` threads
/// ([`TargetDistances::Auto`]).
///
/// ```
/// use urbanflow::sssp::auto::HierarchyCost;
/// use urbanflow::sssp::ksp::ksp_phast_threshold;
/// assert_eq!(ksp_phast_threshold(2, HierarchyCost::Cached), 32);
/// assert_eq!(ksp_phast_threshold(2, HierarchyCost::ToBuild), 144);
/// assert_eq!(ksp_phast_threshold(16, HierarchyCost::ToBuild), 576);
/// ```
pub fn ksp_phast_threshold(threads: usize, hierarchy: crate::auto::HierarchyCost) -> usize {
    use crate::auto::HierarchyCost;
    let threads = threads.max(1);
    match hierarchy {
        HierarchyCost::AtHand => 0,
        HierarchyCost::Cached => KSP_PHAST_MIN_TARGETS_PER_THREAD_CACHED * threads,
        HierarchyCost::ToBuild => {
            (KSP_PHAST_MIN_TARGETS_PER_THREAD_TO_BUILD * threads).min(KSP_PHAST_MAX_TARGETS_TO_BUILD)
        }
    }
}

impl TargetDistances {
    /// What `self` comes to for `targets` distinct targets on `g`, on the GPU or the CPU's threads,
    /// and why.
    pub(crate) fn resolve(self, g: &Csr<u32>, targets: usize, gpu: bool) -> (Self, &'static str) {
        use crate::auto::{HierarchyCost, phast_pays, road_like};
        match self {
            Self::Auto => {
                let threads = rayon::current_num_threads();
                let cost = HierarchyCost::of(g, false);
                let (n, m) = (g.num_vertices(), g.num_arcs());
                let pays = if gpu {
                    phast_pays(n, m, targets, threads, true, cost)
                } else {
                    road_like(n, m) && targets >= ksp_phast_threshold(threads, cost)
                };
                match (pays, cost) {
                    (true, HierarchyCost::Cached) => {
                        (Self::Phast, "auto: enough targets for PHAST with the hierarchy's order cached")
                    }
                    (true, _) => (Self::Phast, "auto: enough targets to build the hierarchy for PHAST"),
                    (false, HierarchyCost::Cached) => {
                        (Self::Searches, "auto: too few targets for PHAST (hierarchy's order cached)")
                    }
                    (false, _) => (
                        Self::Searches,
                        "auto: too few targets to build a hierarchy for (or not a road-like graph)",
                    ),
                }
            }
            chosen => (chosen, "asked for"),
        }
    }
}

impl std::str::FromStr for TargetDistances {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "searches" | "dijkstra" => Ok(Self::Searches),
            "phast" => Ok(Self::Phast),
            "auto" => Ok(Self::Auto),
            o => {
                Err(format!("unknown way to the targets' distances `{o}`: expected searches, phast or auto"))
            }
        }
    }
}

/// The reversed hierarchy of `g` customised with its weights ([`TargetDistances::Phast`]), and the
/// seconds it took.
pub(crate) fn reversed_hierarchy(g: &Csr<u32>) -> Result<(ContractionHierarchy, f64), SsspError> {
    let t = Instant::now();
    let (cch, _) = crate::cch::Cch::build_cached(g)?;
    let ch = cch.customise(g.weights())?.reversed();
    Ok((ch, t.elapsed().as_secs_f64()))
}

/// Largest K for which `Backend::Auto` uses a measured GPU (measured faster at K = 10 and 100; at
/// K = 1,000 the GPU's capacities send many queries back to the CPU and it was slower).
pub const AUTO_GPU_MAX_K: usize = 100;

/// The `k` cheapest loopless paths of every `(source, target)` query, on `backend`:
/// [`ksp_batch_cpu`] or [`ksp_batch_gpu`] (identical answers). `Backend::Auto` uses the GPU where it is
/// predicted faster on this machine ([`super::auto`]), for K at most [`AUTO_GPU_MAX_K`], on a graph
/// without zero-weight arcs; [`BatchStats::why`] says what it decided, with both predictions.
///
/// ```
/// use urbanflow::sssp::ksp::ksp_batch;
/// use urbanflow::gpu::Backend;
/// let g = urbanflow::graph::generators::grid_2d(3, 3);
/// let (paths, stats) = ksp_batch(&g, &[(0, 8)], 3, Backend::Cpu).unwrap();
/// assert_eq!(paths[0].iter().map(|p| p.cost).collect::<Vec<_>>(), [4, 4, 4]);
/// assert_eq!(stats.gpu_queries, 0);
/// ```
pub fn ksp_batch(
    g: &Csr<u32>,
    queries: &[(u32, u32)],
    k: usize,
    backend: Backend,
) -> Result<(Vec<Vec<Path>>, BatchStats), SsspError> {
    ksp_batch_with(g, queries, k, backend, TargetDistances::Auto)
}

/// [`ksp_batch`] with the targets' distances computed as `distances` says (the same paths either way).
pub fn ksp_batch_with(
    g: &Csr<u32>,
    queries: &[(u32, u32)],
    k: usize,
    backend: Backend,
    distances: TargetDistances,
) -> Result<(Vec<Vec<Path>>, BatchStats), SsspError> {
    let (ctx, why) = match backend {
        Backend::Cpu => (None, "asked for".to_string()),
        Backend::Gpu(ctx) => (Some(ctx), "asked for".to_string()),
        Backend::Auto => auto_gpu(g, queries.len(), k),
    };
    let (paths, mut stats) = match ctx {
        #[cfg(feature = "gpu")]
        Some(ctx) => {
            ksp_batch_gpu(ctx, g, queries, k, &KspGpuOptions { distances, ..KspGpuOptions::for_k(k) })?
        }
        #[cfg(not(feature = "gpu"))]
        Some(ctx) => ctx.unbuilt(),
        None => ksp_batch_cpu_with(g, queries, k, distances)?,
    };
    stats.why = why;
    Ok((paths, stats))
}

/// `Backend::Auto`'s choice, with the reason.
fn auto_gpu(g: &Csr<u32>, queries: usize, k: usize) -> (Option<&'static GpuContext>, String) {
    if k > AUTO_GPU_MAX_K {
        return (None, "auto: K above what the GPU ranking was measured faster for".into());
    }
    if g.weights().contains(&0) {
        return (None, "auto: zero-weight arcs (the GPU ranking refuses them)".into());
    }
    let choice = super::auto::choose(queries, k, g.num_vertices() as usize);
    match choice.gpu_faster().then(GpuContext::auto).flatten() {
        Some(ctx) => (Some(ctx), format!("auto: {}", choice.why)),
        None => (None, format!("auto: {}", choice.why)),
    }
}

/// One query's answer: its index, its paths, pops and looped pops.
type Answer = (u32, Vec<Path>, u64, u64);

/// The `k` cheapest loopless paths of every `(source, target)` query, in the order of `queries`, on
/// the CPU's threads.
///
/// ```
/// use urbanflow::sssp::ksp::{ksp_batch_cpu, mps};
/// let g = urbanflow::graph::generators::grid_2d(4, 4); // unit weights: many ties
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
) -> Result<(Vec<Vec<Path>>, BatchStats), SsspError> {
    ksp_batch_cpu_with(g, queries, k, TargetDistances::Auto)
}

/// Bytes of distance rows a CPU batch holds per round of PHAST sweeps (two rounds live at once: one
/// being ranked, the next being swept): NY's 264,346 vertices take the 256 targets of 16 threads'
/// sweeps in one round.
const PHAST_ROUND_BYTES: usize = 300 << 20;

/// [`ksp_batch_cpu`] with the targets' distances computed as `distances` says.
///
/// ```
/// use urbanflow::sssp::ksp::{TargetDistances, ksp_batch_cpu_with};
/// let g = urbanflow::graph::generators::grid_2d(4, 4);
/// let queries = [(0, 15), (3, 12), (5, 15)];
/// let (by_phast, stats) = ksp_batch_cpu_with(&g, &queries, 5, TargetDistances::Phast).unwrap();
/// assert_eq!(stats.distances, TargetDistances::Phast);
/// let (by_dijkstra, _) = ksp_batch_cpu_with(&g, &queries, 5, TargetDistances::Searches).unwrap();
/// assert_eq!(by_phast, by_dijkstra);
/// ```
pub fn ksp_batch_cpu_with(
    g: &Csr<u32>,
    queries: &[(u32, u32)],
    k: usize,
    distances: TargetDistances,
) -> Result<(Vec<Vec<Path>>, BatchStats), SsspError> {
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
    let (distances, distances_why) = distances.resolve(g, groups.len(), false);
    let mut stats = BatchStats {
        queries: queries.len(),
        targets: groups.len(),
        why: "asked for".into(),
        distances,
        distances_why,
        ..Default::default()
    };
    // Sources of one target in parallel too (nested: rayon balances both levels).
    let rank = |group: &[u32], target: &MpsTarget<'_>| -> Result<Vec<Answer>, SsspError> {
        group
            .par_iter()
            .map(|&i| {
                let mut it = target.iter(queries[i as usize].0)?;
                let paths: Vec<Path> = it.by_ref().take(k).collect();
                let st = it.stats();
                Ok((i, paths, st.pops, st.looped_pops))
            })
            .collect()
    };
    let target_of = |group: &[u32]| queries[group[0] as usize].1;
    let answered: Vec<Vec<Answer>> = if distances == TargetDistances::Phast && !groups.is_empty() {
        let (to, hierarchy_s) = reversed_hierarchy(g)?;
        stats.hierarchy_s = hierarchy_s;
        // Rounds of whole sweeps, the next round swept while this one is ranked (both on all cores).
        let per_round = (PHAST_ROUND_BYTES / (4 * g.num_vertices().max(1) as usize) / LANES * LANES)
            .clamp(LANES, LANES * rayon::current_num_threads());
        let rounds: Vec<&[&[u32]]> = groups.chunks(per_round).collect();
        let sweep = |round: &[&[u32]]| to.phast(&round.iter().map(|gr| target_of(gr)).collect::<Vec<_>>());
        let mut rows = Some(sweep(rounds[0])?);
        let mut answered = Vec::with_capacity(groups.len());
        for (r, round) in rounds.iter().enumerate() {
            let pis = rows.take().unwrap_or_default();
            let (next, done) = rayon::join(
                || rounds.get(r + 1).map(|next| sweep(next)).transpose(),
                || {
                    round
                        .par_iter()
                        .zip(pis)
                        .map(|(group, pi)| {
                            rank(group, &MpsTarget::with_distances(g, &rev, target_of(group), pi)?)
                        })
                        .collect::<Result<Vec<_>, SsspError>>()
                },
            );
            answered.extend(done?);
            rows = next?;
        }
        answered
    } else {
        groups
            .par_iter()
            .map(|group| rank(group, &MpsTarget::with_reverse(g, &rev, target_of(group))?))
            .collect::<Result<_, SsspError>>()?
    };
    let mut out = vec![Vec::new(); queries.len()];
    for (i, paths, pops, looped) in answered.into_iter().flatten() {
        out[i as usize] = paths;
        stats.pops += pops;
        stats.looped_pops += looped;
    }
    stats.time = start.elapsed();
    Ok((out, stats))
}
