//! # algos-cycles
//!
//! Every chordless (induced) cycle of an undirected graph, exactly once: cycles with no edge between
//! two of their vertices other than the cycle's own. Uses: the "holes" of road networks, rings in
//! chemistry, niche-overlap graphs of food webs.
//!
//! - [`SimpleGraph`]: symmetric, sorted adjacency; built from edge lists or any graph-core graph with an
//!   explicit policy for self-loops, repeated edges and directed input ([`Simplify`]), reporting what it
//!   changed.
//! - [`chordless_cycles`]: the sequential enumeration, streamed to a sink that can stop it, with length
//!   bounds and a limit; [`chordless_cycles_vec`] collects them.
//! - [`count_chordless_cycles_rayon`]: counts on every core, identical to the sequential counts.
//! - [`chordless_cycles_gpu`]: on any GPU, level by level (every path of a level extended at once),
//!   chunked depth-first when a level does not fit its memory budget; [`cycles_levels_mirror`] is
//!   its CPU mirror (same steps, same output order). On an H100 it counts the 8 × 10 grid's 71.5
//!   million cycles 19× faster than rayon on 16 cores (docs/benchmarks.md).
//! - [`chordless_cycles_on`]: on a [`gpu_runtime::Backend`]; `Auto` finishes small graphs with a
//!   short sequential probe and races rayon against starting a measured GPU on large ones.
//!
//! ```
//! use urbanflow::cycles::{ChordlessOptions, SimpleGraph, Simplify, count_chordless_cycles_rayon};
//! // The Petersen graph: 12 five-cycles and 10 six-cycles are chordless.
//! let g = urbanflow::graph::generators::petersen();
//! let (g, _) = SimpleGraph::from_csr(&g, Simplify::Repair).unwrap();
//! let stats = count_chordless_cycles_rayon(&g, &ChordlessOptions::default()).unwrap();
//! assert_eq!((stats.total, stats.by_length[5], stats.by_length[6]), (22, 12, 10));
//! ```

mod auto;
mod enumerate;
mod error;
mod gpu;
mod graph;
mod levels;

pub use auto::{
    GPU_HEAD_START, GPU_QUIET_TIME, GPU_TAKEOVER_LEFT, GpuRecord, PROBE_TIME, Ran, chordless_cycles_on,
    gpu_may_win, gpu_takes_over, settle,
};
pub use enumerate::{
    ChordlessOptions, CycleStats, chordless_cycles, chordless_cycles_vec, count_chordless_cycles_rayon,
    degeneracy_order,
};
pub use error::CyclesError;
pub use gpu::{LevelsConfig, chordless_cycles_gpu, chordless_cycles_gpu_with, cycles_levels_mirror};
pub use graph::{SimpleGraph, Simplify, SimplifyReport};
