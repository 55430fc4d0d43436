//! Time-dependent, multimodal earliest arrival with mode constraints (spec td-multimodal.md).
//!
//! - [`TdGraph`]: a network whose arcs carry a label (mode, [`label`]) and a periodic piecewise-linear
//!   travel-time function ([`PlfStore`]: interpolated for roads, next departure for timetables), FIFO
//!   checked when built.
//! - [`Nfa`]: which label sequences a traveller profile may use ([`Nfa::walk_transit`],
//!   [`Nfa::bike_transit`], …).
//! - [`earliest_arrival`]: time-dependent Dijkstra on the implicit product of network and automaton,
//!   with early exit on a target and journeys ([`Journey`], legs by mode); [`Semantics::PerProfileFilter`]
//!   reproduces what the seed computed.
//! - [`arrival_times`]: many queries × profiles, serially or with rayon; [`gpu::GpuTdBatch`] runs them
//!   on a GPU, one query per workgroup, with the same integer results.
//! - [`transit`]: networks from GTFS feeds (service date, frequencies, transfers) with walking, cycling
//!   and road layers; [`generate`]: the spec's seeded synthetic road + timetable instances.
//! - [`strategies`]: frequency-based transit assignment of a demand matrix by optimal strategies
//!   (Spiess & Florian): edge volumes and zone-to-zone skims on a hyperpath graph.
//!
//! Journey times are whole seconds (`u32`, absolute; the time of day is `t % 86,400`); [`strategies`]
//! takes f64 times and frequencies in the user's units.

mod error;
pub mod generate;
pub mod gpu;
mod graph;
mod nfa;
mod plf;
mod search;
pub mod strategies;
pub mod transit;

pub use error::TdError;
pub use graph::{MAX_LABELS, TdGraph, TdGraphBuilder, label};
pub use nfa::Nfa;
pub use plf::{FnKind, PERIOD, PlfStore, interpolate_up};
pub use search::{
    BatchStats, EapQuery, EapResult, Journey, Leg, ProfileQuery, SATURATED, Semantics, Step, UNREACHED,
    Workspace, arrival_times, earliest_arrival, journey_along,
};
