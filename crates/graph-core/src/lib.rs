//! # graph-core
//!
//! The graph layer of urbanflow: a compressed-sparse-row graph ([`Csr`]) whose arrays upload to a GPU
//! without copying, builders with explicit policies for parallel arcs and self-loops, transposition,
//! symmetrisation, locality-improving relabelling that remembers the caller's ids, streaming readers and
//! writers for the usual road-graph formats (plain, `.gz` or `.xz`), and seeded generators.
//!
//! ```
//! use urbanflow::graph::{GraphBuilder, DuplicatePolicy};
//!
//! let mut b = GraphBuilder::<u32>::new(3).duplicates(DuplicatePolicy::KeepMin);
//! b.add_arc(0, 1, 5).add_arc(0, 1, 3).add_arc(1, 2, 1);
//! let (g, report) = b.build().unwrap();
//! assert_eq!(g.num_arcs(), 2);
//! assert_eq!(report.parallel_arcs_dropped, 1);
//! assert_eq!(g.out_arcs(0).collect::<Vec<_>>(), vec![(1, 3)]);
//! ```

pub mod builder;
pub mod csr;
pub mod datasets;
pub mod error;
pub mod generators;
pub mod geojson;
#[cfg(feature = "petgraph")]
pub mod interop;
pub mod io;
pub mod osm;
pub mod relabel;
pub mod rng;
pub mod scc;
pub mod stats;
pub mod transform;
pub mod turns;
pub mod weight;

pub use builder::{BuildReport, DuplicatePolicy, GraphBuilder, SelfLoopPolicy};
pub use csr::Csr;
pub use error::GraphError;
pub use relabel::Permutation;
pub use stats::DegreeStats;
pub use transform::Transposed;
pub use weight::{Weight, WeightIssue};

/// A vertex id. Ids are dense, `0..n`, in the graph's own numbering.
pub type VertexId = u32;
