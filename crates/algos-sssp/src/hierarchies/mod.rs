//! Contraction hierarchies: contracted by witness searches ([`crate::ch`]) or customisable, from a
//! nested-dissection order kept in the cache folder ([`crate::cch`]); point-to-point queries with
//! their paths, and PHAST sweeps (CPU and GPU) for whole trees. Entry point:
//! `Cch::build_cached(graph)`, then `customise` and `CchQuery`.

pub mod cch;
pub mod ch;
