//! # urbanflow
//!
//! Urban-traffic and combinatorial-optimisation algorithms on any GPU (wgpu / WGSL compute, so Vulkan,
//! Metal, DX12 and WebGPU) with first-class rayon CPU paths: shortest paths from one, many or all
//! sources, and static traffic assignment. Every GPU kernel has a CPU twin with identical results;
//! automatic choices ([`Backend::Auto`], `Algorithm::Auto`, `Schedule::Auto`) never pick a path
//! measured slower than the CPU.
//!
//! The things most programs need are at the top level: [`load_graph`] / [`read_graph`] to read a
//! graph file, [`Csr`] the graph, [`Backend`] where to compute. Everything else lives in the modules:
//!
//! | module | crate | what |
//! |---|---|---|
//! | [`graph`] | `graph-core` | CSR graphs, readers and writers, generators, relabelling |
//! | [`gpu`] | `gpu-runtime` | device setup, buffers, pipelines, backend choice, tuning cache |
//! | [`reduce`] | `algos-reduce` | GPU reductions, scans and compaction |
//! | [`sssp`] | `algos-sssp` | shortest paths: one source, many sources, all pairs, K shortest loopless paths |
//! | [`tap`] | `algos-tap` | static traffic assignment |
//! | [`access`] | `algos-access` | accessibility and centrality: opportunities within cutoffs, closeness, nearest points, betweenness (CPU and GPU) |
//! | [`transit`] | `algos-transit` | time-dependent multimodal journeys: GTFS transit, walking, cycling, driving (CPU and GPU) |
//! | [`cycles`] | `algos-cycles` | chordless cycle enumeration (CPU and GPU) |
//! | [`dp`] | `algos-dp` | dynamic programmes: guillotine cutting, CVRP relaxations and root bounds (CPU and GPU) |
//! | [`overlay`] | `algos-overlay` | membership overlay problem: certified Lagrangean bounds (STD, DIST; CPU and GPU) |
//! | [`cluster`] | `urbanflow-mpi` | MPI clusters: distributed many-to-all, distance matrices and assignment loading (feature `mpi`) |
//!
//! Cargo features choose what is built (all on by default; the README's "Cargo features" table gives
//! the crates and build time of each set): `gpu` (wgpu, every GPU path, [`reduce`]), `osm-pbf`, `metis`,
//! `pictures` (PNG), `transit`, `cycles`, `dp`, `overlay`, `cluster` and `mpi`. With
//! `default-features = false` urbanflow is its CPU core — graphs, shortest paths, assignment — and every
//! [`Backend`] runs on the CPU, with the same results.
//!
//! Shortest paths on a road graph, in the file's own vertex ids:
//!
//! ```
//! use urbanflow::{Backend, LoadOptions, load_graph};
//! use urbanflow::sssp::{Algorithm, Query, solve};
//! # let dir = std::env::temp_dir().join(format!("uf-facade-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! # let path = dir.join("tiny.gr");
//! # std::fs::write(&path, "c a DIMACS file\np sp 3 3\na 1 2 4\na 2 3 1\na 1 3 9\n").unwrap();
//! let g = load_graph(&path, &LoadOptions::default())?; // format detected, ids kept
//! let source = g.vertex(1).expect("vertex 1 is in the file");
//! let q = Query { source, predecessors: true, ..Default::default() };
//! let r = solve(&g.graph, &q, Algorithm::Auto, Backend::Auto)?;
//! let target = g.vertex(3).unwrap();
//! assert_eq!(r.distance(target), Some(5));
//! let path: Vec<u64> = r.path_to(&g.graph, target).unwrap().iter().map(|&v| g.ids[v as usize]).collect();
//! assert_eq!(path, [1, 2, 3]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Traffic assignment of the Sioux Falls network (bundled with the repository):
//!
//! ```
//! use urbanflow::tap::{AssignOptions, CostFactors, Demand, Network, assign};
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data");
//! let net = Network::read_tntp(format!("{dir}/SiouxFalls_net.tntp"), CostFactors::default())?;
//! let demand = Demand::read_tntp(format!("{dir}/SiouxFalls_trips.tntp"), &net)?;
//! let result = assign(&net, &demand, &AssignOptions::default())?;
//! assert!(result.last().relative_gap <= 1e-4);
//! # Ok::<(), urbanflow::tap::TapError>(())
//! ```

#[cfg(feature = "access")]
#[doc(inline)]
pub use algos_access as access;
// Inlined, so that `cargo doc -p urbanflow --no-deps` documents every module under the facade's names.
#[cfg(feature = "cycles")]
#[doc(inline)]
pub use algos_cycles as cycles;
#[cfg(feature = "dp")]
#[doc(inline)]
pub use algos_dp as dp;
#[cfg(feature = "overlay")]
#[doc(inline)]
pub use algos_overlay as overlay;
#[cfg(feature = "gpu")]
#[doc(inline)]
pub use algos_reduce as reduce;
#[doc(inline)]
pub use algos_sssp as sssp;
#[doc(inline)]
pub use algos_tap as tap;
#[cfg(feature = "transit")]
#[doc(inline)]
pub use algos_transit as transit;
#[doc(inline)]
pub use gpu_runtime as gpu;
#[doc(inline)]
pub use graph_core as graph;
#[cfg(feature = "cluster")]
#[doc(inline)]
pub use urbanflow_mpi as cluster;

pub use gpu_runtime::Backend;
pub use graph_core::Csr;
pub use graph_core::io::{
    GraphFormat, LoadOptions, LoadedGraph, ReadOptions, ReadWarning, load_graph, read_graph, read_graph_as,
};
