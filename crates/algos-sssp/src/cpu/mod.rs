//! CPU algorithms: Dijkstra (reference and default), Δ-stepping on rayon, Bellman–Ford (reference).

pub mod bellman_ford;
pub mod delta;
pub mod dijkstra;
pub mod radix_heap;
