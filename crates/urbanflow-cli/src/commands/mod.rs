//! One module per subcommand, named after it; each has its `Args` and a `run`.

pub mod assign;
#[cfg(feature = "mpi")]
pub mod cluster;
#[cfg(feature = "dp")]
pub mod cut;
#[cfg(feature = "cycles")]
pub mod cycles;
pub mod doctor;
pub mod generate;
#[cfg(feature = "transit")]
pub mod journey;
pub mod ksp;
pub mod matrix;
pub mod model;
pub mod odme;
#[cfg(feature = "overlay")]
pub mod overlay;
pub mod route;
pub mod sssp;
pub mod stats;
#[cfg(feature = "transit")]
pub mod transit_assign;
pub mod trees;
#[cfg(feature = "dp")]
pub mod vrp;
