//! # algos-cycles
//!
//! Enumeration of chordless (induced) cycles on CPU and GPU. Specification: `shared/specs/cycles.md`.
//! Not implemented yet: this crate holds no API until its issue is filed and done.
