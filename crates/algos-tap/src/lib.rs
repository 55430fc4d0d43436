//! # algos-tap
//!
//! Static user-equilibrium traffic assignment (Frank–Wolfe family and bush-based Algorithm B) on TNTP
//! networks. Specification: `shared/specs/tap.md`. Not implemented yet: this crate holds no API until
//! its issue is done.
