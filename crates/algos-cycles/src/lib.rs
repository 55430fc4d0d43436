//! # algos-cycles
//!
//! Enumeration of chordless (induced) cycles on CPU and GPU. Not implemented yet:
//! this crate holds no API yet.
