//! # algos-sssp
//!
//! Single-source shortest paths on road graphs, on the CPU and on any GPU, with identical integer
//! results everywhere:
//!
//! | algorithm | backend | notes |
//! |---|---|---|
//! | [`Algorithm::Dijkstra`] | CPU | binary heap, early exit on targets, cutoff |
//! | [`Algorithm::DeltaStepping`] | CPU (rayon) | GAP-style buckets |
//! | [`Algorithm::BellmanFord`] | CPU | FIFO label-correcting reference |
//! | [`Algorithm::Harish`] | GPU | vertex-parallel relaxation, race fixed with `atomicMin` |
//! | [`Algorithm::Martin`], [`Algorithm::CrauserOut`], [`Algorithm::CrauserInOut`] | GPU | label-setting frontier phases (Martín et al. 2009; Crauser et al. 1998, OUT and IN criteria; as in Ortega-Arranz 2015) |
//! | [`Algorithm::NearFar`] | GPU | near–far work queues, the loop kept on the GPU |
//! | [`Algorithm::Lbr`] | GPU | locality-based relaxation, depth-first up to k hops (Safari & Ebneenasir, TTCS 2017) |
//! | [`Algorithm::Jradi`] | GPU | Jradi's Dijkstra in one workgroup (Jradi 2016, ch. 7; WebGPU-safe) |
//!
//! K shortest loopless paths (MPS, Yen, batches of queries on the CPU and GPU) are in [`ksp`].
//!
//! Distances are `u32`; [`UNREACHABLE`] marks vertices not reached. Sums saturate at [`SATURATED`]
//! (`u32::MAX − 1`); a distance reaching it is an error ([`SsspError::WeightOverflow`]), never
//! "unreachable". Predecessors are *arcs* (parallel arcs exist in real data) chosen by one canonical
//! rule on every backend ([`pred`]), so trees compare exactly.
//!
//! ```
//! use urbanflow::sssp::{solve, Algorithm, Query};
//! use urbanflow::graph::GraphBuilder;
//! use urbanflow::gpu::Backend;
//! let mut b = GraphBuilder::new(4);
//! b.add_arc(0, 1, 4).add_arc(0, 2, 1).add_arc(2, 1, 2).add_arc(1, 3, 5);
//! let g = b.build().unwrap().0;
//! let q = Query { source: 0, predecessors: true, ..Default::default() };
//! let r = solve(&g, &q, Algorithm::Dijkstra, Backend::Cpu).unwrap();
//! assert_eq!(r.dist, vec![0, 3, 1, 8]);
//! assert_eq!(r.path_to(&g, 3), Some(vec![0, 2, 1, 3]));
//! ```

// The source is laid out by family (`trees/`, `hierarchies/`, `queries/`, `ksp/`), with what they share
// at the top (automatic choices, errors, path and predecessor conventions); the public paths stay flat
// (`urbanflow::sssp::cch`, `::many`, `::matrix`, …) so a caller never names the folder.
pub mod auto;
mod error;
pub mod hierarchies;
pub mod ksp;
mod paths;
pub mod pred;
pub mod queries;
pub mod trees;

pub use hierarchies::{cch, ch};
pub use queries::{floyd, isochrone, matrix};
#[cfg(feature = "gpu")]
pub use trees::tuning;
pub use trees::{cpu, gpu, many, real};

pub(crate) use trees::{algorithm, api};

pub use error::{SsspError, TreeIssue};
pub use paths::{
    NO_ARC, SATURATED, ShortestPaths, SsspStats, UNREACHABLE, check_shortest_path_tree, sat_add, tail_of,
};
pub use trees::algorithm::Algorithm;
pub use trees::api::{Query, shortest_paths, solve, validate};
