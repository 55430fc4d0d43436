//! CPU algorithms: one generic Dijkstra ([`search`], queues in [`queue`]) and its integer engine
//! ([`dijkstra`], reference and default), point-to-point queries without a hierarchy
//! ([`bidirectional`]), Δ-stepping on rayon, Bellman–Ford (reference).

pub mod bellman_ford;
pub mod bidirectional;
pub mod delta;
pub mod dijkstra;
pub mod label;
pub mod queue;
pub mod radix_heap;
pub mod search;
