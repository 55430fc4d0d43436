//! What the MPI examples share: the GPUs of a rank (`--gpus local`) and how a failed rank ends the job.

use std::process::ExitCode;

use urbanflow::cluster::{Comm, MpiComm};
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
pub fn rank_gpus(spec: Option<&str>, rank: usize) -> Result<Option<DeviceSelection>, String> {
    match spec {
        None => Ok(None),
        Some("local") => {
            let found = urbanflow::gpu::devices::list(&Default::default()).len();
            if found == 0 {
                return Err(format!("rank {rank}: --gpus local: no GPU adapter on this host"));
            }
            Ok(Some(DeviceSelection::Indices(vec![local_rank() % found])))
        }
        Some(s) => s.parse::<DeviceSelection>().map(Some).map_err(|e| format!("--gpus: {e}")),
    }
}

/// Initialises MPI, runs `run`, and ends the job: a failure that every rank reports (another rank's,
/// detected together) is printed once by rank 0; a failure of this rank alone ends the whole job (MPI
/// abort), so no rank is left waiting in a collective call.
pub fn main_with(run: impl FnOnce(&MpiComm) -> Result<(), String>) -> ExitCode {
    let comm = match MpiComm::init() {
        Ok(c) => c,
        Err(e) => return crate::common::finish(Err(e.to_string())),
    };
    match run(&comm) {
        Err(e) if comm.size() > 1 => {
            if comm.rank() == 0 || !e.contains(" failed: ") {
                eprintln!("error: {e}");
            }
            comm.abort(1)
        }
        other => crate::common::finish(other),
    }
}
