//! # algos-reduce
//!
//! Generic GPU reductions (sum, min, max, arg-min, count), prefix scans and stream compaction with
//! rayon CPU twins. Specification: `shared/specs/reduce.md`. Not implemented yet: this crate holds no
//! API until its issue is done.
