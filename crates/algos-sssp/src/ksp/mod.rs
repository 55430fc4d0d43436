//! K shortest loopless paths: the K cheapest s→t paths that repeat no vertex, in non-decreasing cost.
//!
//! - [`MpsTarget`]: everything that depends on the target only (distances to it, the tree towards
//!   it; the sorted forward star where a ranking deviates), built once and reused for any number of
//!   sources.
//! - [`MpsIter`]: the MPS ranking (Martins, Pascoal and Santos) as a lazy iterator: `take(k)` when K
//!   is not known in advance. [`mps`] is the one-call form.
//! - [`yen`]: Yen's algorithm, the classic baseline (one restricted shortest-path search per spur).
//!   MPS hands over to it where looped candidates explode (see [`MpsIter`]).
//! - [`ksp_batch`]: many (source, target) queries at once, on the CPU's threads ([`ksp_batch_cpu`],
//!   one preparation per distinct target) or on a GPU ([`ksp_batch_gpu`], one workgroup per query).
//!
//! Semantics: parallel arcs are distinct paths; `s = t` gives one path with no arcs and cost 0; an
//! unreachable target or `k = 0` gives none. Costs are summed in u64. Weights are `u32`, so negative
//! weights cannot occur. Paths come in one canonical order — cost, then the sequence of arc ids
//! compared lexicographically — so every implementation and backend returns the same list, zero-weight
//! arcs and ties included.
//!
//! ```
//! use urbanflow::sssp::ksp::mps;
//! use urbanflow::graph::GraphBuilder;
//! // Two routes 0 → 3: through 1 (cost 2) and through 2 (cost 3); plus a slow direct arc (cost 10).
//! let mut b = GraphBuilder::new(4);
//! b.add_arc(0, 1, 1).add_arc(1, 3, 1).add_arc(0, 2, 1).add_arc(2, 3, 2).add_arc(0, 3, 10);
//! let g = b.build().unwrap().0;
//! let (paths, _) = mps(&g, 0, 3, 5).unwrap();
//! let costs: Vec<u64> = paths.iter().map(|p| p.cost).collect();
//! assert_eq!(costs, [2, 3, 10]);
//! assert_eq!(paths[1].vertices(&g), [0, 2, 3]);
//! ```

pub mod auto;
mod batch;
#[cfg(feature = "gpu")]
mod gpu;
mod heap;
mod mps;
mod target;
mod yen;

use std::time::Duration;

use graph_core::Csr;

use crate::error::SsspError;

pub use batch::{
    AUTO_GPU_MAX_K, BatchStats, GpuPhases, KSP_PHAST_MAX_TARGETS_TO_BUILD,
    KSP_PHAST_MIN_TARGETS_PER_THREAD_CACHED, KSP_PHAST_MIN_TARGETS_PER_THREAD_TO_BUILD, TargetDistances,
    ksp_batch, ksp_batch_cpu, ksp_batch_cpu_with, ksp_batch_with, ksp_phast_threshold,
};
#[cfg(feature = "gpu")]
pub use gpu::{DEFAULT_SLOTS, DEFAULT_SLOTS_MAX_K, KspGpuOptions, ksp_batch_gpu};
pub use mps::{MpsIter, mps};
pub use target::MpsTarget;
pub use yen::yen;

/// One s→t path: its cost, its arcs (ids of the graph) and its source (so that a path with no arc, s = t,
/// still names its vertex). Paths order by cost, then arcs.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Path {
    /// Total weight (u64: long paths on graphs with large weights exceed u32).
    pub cost: u64,
    /// Arc ids from the source to the target.
    pub arcs: Vec<u32>,
    /// The vertex the path starts from.
    pub source: u32,
}

impl Path {
    /// The vertices, from the source to the target.
    pub fn vertices(&self, g: &Csr<u32>) -> Vec<u32> {
        let mut v = Vec::with_capacity(self.arcs.len() + 1);
        v.push(self.source);
        v.extend(self.arcs.iter().map(|&a| g.targets()[a as usize]));
        v
    }

    /// The vertices in the file's own ids (`loaded.ids`), from the source to the target.
    ///
    /// ```
    /// use urbanflow::graph::io::{LoadOptions, load_graph};
    /// # let dir = std::env::temp_dir().join(format!("uf-ksp-ids-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// # let file = dir.join("tiny.gr");
    /// # std::fs::write(&file, "p sp 3 3\na 1 2 4\na 2 3 1\na 1 3 9\n").unwrap();
    /// let g = load_graph(&file, &LoadOptions::default())?;
    /// let (s, t) = (g.vertex(1).unwrap(), g.vertex(3).unwrap());
    /// let (paths, _) = urbanflow::sssp::ksp::yen(&g.graph, s, t, 2)?;
    /// assert_eq!(paths[0].file_ids(&g), [1, 2, 3]);
    /// assert_eq!(paths[1].file_ids(&g), [1, 3]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn file_ids(&self, loaded: &graph_core::io::LoadedGraph) -> Vec<u64> {
        self.vertices(&loaded.graph).iter().map(|&v| loaded.ids[v as usize]).collect()
    }
}

/// What a ranking did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KspStats {
    /// Candidates taken from the heap (MPS) or paths accepted (Yen).
    pub pops: u64,
    /// Popped candidates that repeat a vertex (MPS expands them, never outputs them).
    pub looped_pops: u64,
    /// Largest number of candidates held at once.
    pub max_heap: usize,
    /// Shortest-path searches run (1 for MPS: the tree towards the target; one per spur for Yen).
    pub searches: u64,
    /// Time spent on what depends on the target only (the reverse tree and every vertex's tree arc).
    pub prep_time: Duration,
    /// MPS met so many looped candidates that the ranking went on with Yen (see [`MpsIter`]).
    pub switched_to_yen: bool,
}

pub(crate) fn check_vertex(g: &Csr<u32>, role: &'static str, vertex: u32) -> Result<(), SsspError> {
    let n = g.num_vertices();
    match role {
        _ if vertex < n => Ok(()),
        "source" => Err(SsspError::SourceOutOfRange { vertex, n }),
        _ => Err(SsspError::TargetOutOfRange { target: vertex, n }),
    }
}
