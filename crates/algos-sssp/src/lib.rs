//! # algos-sssp
//!
//! Shortest paths on CPU and GPU: single source (Dijkstra, Δ-stepping, Harish, Martín, Crauser,
//! locality-based relaxation, Jradi's GPU Dijkstra, near-far), many sources, all pairs, K shortest
//! loopless paths and time-dependent multimodal queries. Specification: `shared/specs/sssp.md`.
//! Not implemented yet: this crate holds no API until its issue is done.
