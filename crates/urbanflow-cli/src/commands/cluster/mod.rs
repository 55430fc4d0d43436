//! `urbanflow cluster`: the commands that run as the ranks of an MPI job (`mpirun -np 4 urbanflow cluster
//! trees ...`), with what they share: the GPUs of a rank (`--gpus local`) and how a failed rank ends the
//! job.

pub mod assign;
pub mod trees;

use std::process::ExitCode;

use urbanflow::cluster::{Comm, MpiComm};

use crate::outcome::{Error, Outcome};
use urbanflow::gpu::devices::DeviceSelection;

/// This rank's index on its host, from the launcher's environment (OpenMPI, Slurm, MPICH/Hydra).
fn local_rank() -> usize {
    ["OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID", "PMI_LOCAL_RANK"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse().ok())
        .unwrap_or(0)
}

/// `--gpus` of a rank: `local` is the GPU at the rank's index on its host (modulo the GPUs found),
/// anything else as `many_to_all --gpus` reads it.
pub fn rank_gpus(spec: Option<&str>, rank: usize) -> Result<Option<DeviceSelection>, Error> {
    match spec {
        None => Ok(None),
        Some("local") => {
            let found = urbanflow::gpu::devices::list(&Default::default()).len();
            if found == 0 {
                return Err(format!("rank {rank}: --gpus local: no GPU adapter on this host").into());
            }
            Ok(Some(DeviceSelection::Indices(vec![local_rank() % found])))
        }
        Some(s) => s.parse::<DeviceSelection>().map(Some).map_err(|e| format!("--gpus: {e}").into()),
    }
}

/// Why a rank stops.
pub enum Failure {
    /// An error every rank returns together (a collective step found it and told all ranks): each
    /// rank exits non-zero, rank 0 says why.
    Everyone(String),
    /// This rank's own error, outside any collective step: the others may be waiting for it, so the
    /// whole job is ended (MPI abort) after saying why.
    Local(String),
}

impl<E: Into<crate::outcome::Error>> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure::Local(e.into().to_string())
    }
}

/// Commands that run as the ranks of an MPI job: start them with `mpirun` or `srun`.
///
/// Example: mpirun -np 4 urbanflow cluster trees --graph NY.gr.xz --sources 100000 --json
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    Trees(trees::Args),
    Assign(assign::Args),
}

/// Runs the cluster command on this rank.
pub fn main(args: Args) -> ExitCode {
    match args.command {
        Command::Trees(a) => main_with(|comm| trees::run(comm, a)),
        Command::Assign(a) => main_with(|comm| assign::run(comm, a)),
    }
}

/// Initialises MPI, runs `run`, and ends the job as [`Failure`] says.
/// A missed target (every rank has the same result) exits with 2 on every rank, rank 0 saying which.
pub fn main_with<T: Into<Outcome>>(run: impl FnOnce(&MpiComm) -> Result<T, Failure>) -> ExitCode {
    let comm = match MpiComm::init() {
        Ok(c) => c,
        Err(e) => return crate::outcome::finish(Err::<(), _>(e.into())),
    };
    match run(&comm).map(Into::into) {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::Missed(why)) => {
            if comm.rank() == 0 {
                eprintln!("target not reached: {why}");
            }
            ExitCode::from(2)
        }
        Ok(Outcome::Interrupted(what)) => {
            if comm.rank() == 0 {
                eprintln!("interrupted: {what}");
            }
            ExitCode::from(130)
        }
        Err(Failure::Everyone(e)) => {
            // Only rank 0 prints: every rank holds the same failure (another rank's error names it).
            if comm.rank() == 0 {
                eprintln!("error: {e}");
            }
            ExitCode::FAILURE
        }
        Err(Failure::Local(e)) => {
            eprintln!("error: {e}");
            if comm.size() > 1 {
                comm.abort(1)
            }
            ExitCode::FAILURE
        }
    }
}
