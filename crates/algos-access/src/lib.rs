//! Accessibility and centrality over shortest-path trees, reduced where the trees are.
//!
//! Planners' everyday network questions are aggregates over shortest-path trees: how many jobs each
//! block reaches within 30 minutes, gravity-weighted accessibility, the nearest school from every
//! home, the closeness and betweenness of streets. A tree of a city has hundreds of thousands of
//! labels; a per-source answer has a few numbers. This crate reduces each tree as soon as it exists —
//! on the CPU while a bounded search settles or after a PHAST sweep, on a GPU in device memory right
//! after each pass — so that only the answers travel.
//!
//! | what | function | engines |
//! |---|---|---|
//! | opportunities within cutoffs: count, decayed sum, mean, min, max | [`accessibility`] | bounded searches, CPU sweeps, GPU (measured: [`engine`]) |
//! | harmonic or gravity closeness | [`closeness`] | the same |
//! | the k nearest points | [`nearest`] | bounded searches |
//! | betweenness (exact, sampled, within a cutoff) | [`betweenness`] | Brandes per source, on all cores |
//!
//! Points of interest come as [`Opportunities`] (vertex, weight), read from CSV by [`read_points`].
//! Distances are in the graph's weight units; every result is in the caller's source order.
//!
//! ```
//! use urbanflow::access::{AccessOptions, Opportunities, accessibility};
//! let g = urbanflow::graph::generators::grid_2d(10, 10); // unit weights
//! let jobs = Opportunities::new(100, &[(0, 5.0), (55, 20.0), (99, 1.0)])?;
//! let opts = AccessOptions { cutoffs: &[3, 10], ..Default::default() };
//! let a = accessibility(&g, &jobs, &[45, 54], &opts)?;
//! assert_eq!((a.count(0, 0), a.sum(0, 0)), (1, 20.0)); // 45 is 2 from 55
//! assert_eq!(a.max(1, 1), Some(20.0));
//! println!("{}", a.stats.why); // bounded searches: ... sources/s measured on 2 ...
//! # Ok::<(), urbanflow::access::AccessError>(())
//! ```

mod accessibility;
mod betweenness;
mod decay;
pub mod engine;
mod error;
#[cfg(feature = "gpu")]
mod gpu;
mod nearest;
mod opportunities;
pub mod picture;
mod points;
mod reducer;
mod reduction;
mod search;
mod sweep;

pub use accessibility::{AccessOptions, Accessibility, accessibility, closeness};
pub use betweenness::{Betweenness, BetweennessOptions, betweenness};
pub use decay::Decay;
pub use engine::{AccessStats, Engine};
pub use error::AccessError;
pub use nearest::{NO_POINT, Nearest, nearest};
pub use opportunities::Opportunities;
pub use points::{Location, PointRecord, read_points, read_source_ids};
pub use reduction::MAX_CUTOFFS;
