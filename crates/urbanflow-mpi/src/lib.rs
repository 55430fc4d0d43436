//! # urbanflow-mpi
//!
//! urbanflow on a cluster, through MPI — the engine HPC centres and transport modellers already run —
//! via the `mpi` crate (rsmpi) on the system's OpenMPI or MPICH:
//!
//! - [`many::many_to_all`]: trees or distance-matrix rows from 100k+ sources, sources in blocks spread
//!   over ranks, each rank on its own CPU cores and GPUs, rows written per block, progress across
//!   ranks, checkpoints so a restarted job skips completed blocks;
//! - [`assign::DistributedAon`]: all-or-nothing loading for traffic assignment split by origins, loads
//!   exchanged every iteration, flows bit-identical to the single-process run;
//! - [`overlay::DistributedDist`]: the overlay bound's distributed subgradient (DIST) with the nodes
//!   split over ranks and the multipliers exchanged every round, bounds bit-identical to one process.
//!
//! The transport is one small trait, [`Comm`]: `MpiComm` (feature `mpi`) or [`Solo`], which runs the
//! same code in one process without MPI. Run the examples as
//! `mpirun -np 4 target/release/examples/many_to_all_mpi --graph G --sources 100000`
//! (README, "Running on a cluster", has the Slurm line).
//!
//! ```
//! use urbanflow::cluster::{Solo, many::{DistOptions, many_to_all}};
//! let g = urbanflow::graph::generators::grid_2d(4, 4);
//! let report = many_to_all(&Solo, &g, &[0, 5, 15], &DistOptions::default(), |_| {}).unwrap();
//! assert_eq!((report.trees, report.checksum), (3, 3 * 48 - 16));
//! ```

pub mod assign;
pub mod checkpoint;
pub mod comm;
pub mod error;
pub mod many;
#[cfg(feature = "mpi")]
mod mpi_comm;
pub mod overlay;

pub use comm::{Comm, LocalComm, Solo};
pub use error::MpiError;
#[cfg(feature = "mpi")]
pub use mpi_comm::MpiComm;
