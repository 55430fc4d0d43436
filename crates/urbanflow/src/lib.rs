//! # urbanflow
//!
//! Urban-traffic and combinatorial-optimisation algorithms on any GPU (wgpu / WGSL compute, so Vulkan,
//! Metal, DX12 and WebGPU) with first-class rayon CPU paths. This facade re-exports the workspace crates
//! under short names:
//!
//! | module | crate | what |
//! |---|---|---|
//! | [`graph`] | `graph-core` | CSR graphs, readers and writers, generators, relabelling |
//! | [`gpu`] | `gpu-runtime` | device setup, buffers, pipelines, backend choice |
//! | [`reduce`] | `algos-reduce` | GPU reductions, scans and compaction |
//! | [`sssp`] | `algos-sssp` | shortest paths |
//! | [`tap`] | `algos-tap` | static traffic assignment |
//! | [`cycles`] | `algos-cycles` | chordless cycle enumeration |
//! | [`dp`] | `algos-dp` | dynamic programmes (guillotine cutting, VRP relaxations) |
//!
//! ```
//! use urbanflow::graph::generators;
//! let net = generators::road_like(1_000, 7).unwrap();
//! assert!(net.graph.num_vertices() >= 1_000);
//! ```

pub use algos_cycles as cycles;
pub use algos_dp as dp;
pub use algos_reduce as reduce;
pub use algos_sssp as sssp;
pub use algos_tap as tap;
pub use gpu_runtime as gpu;
pub use graph_core as graph;
