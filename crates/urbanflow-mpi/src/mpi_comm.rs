//! [`Comm`] over MPI (rsmpi): the world communicator of an `mpirun`/`srun` job.

use mpi::collective::SystemOperation;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::*;

use crate::comm::Comm;
use crate::error::MpiError;

/// The MPI world of this job. Create it once, first thing in `main`; MPI is finalised when it is
/// dropped. MPI is initialised for one calling thread (`MPI_THREAD_FUNNELED`): rayon threads and GPU
/// threads compute, only the main thread communicates.
pub struct MpiComm {
    // Field order: the world communicator goes before the universe that finalises MPI.
    world: SimpleCommunicator,
    _universe: mpi::environment::Universe,
}

impl MpiComm {
    /// Initialises MPI. Fails when MPI was initialised already or the library cannot give
    /// `MPI_THREAD_FUNNELED`.
    pub fn init() -> Result<Self, MpiError> {
        let (universe, threading) = mpi::initialize_with_threading(mpi::Threading::Funneled)
            .ok_or_else(|| MpiError::Init("MPI was initialised already".into()))?;
        if threading < mpi::Threading::Funneled {
            return Err(MpiError::Init(format!(
                "the MPI library gives thread support {threading:?}; MPI_THREAD_FUNNELED is needed"
            )));
        }
        let world = universe.world();
        Ok(Self { world, _universe: universe })
    }
}

impl Comm for MpiComm {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }
    fn size(&self) -> usize {
        self.world.size() as usize
    }
    fn barrier(&self) {
        self.world.barrier();
    }
    fn all_reduce_sum_u64(&self, values: &mut [u64]) {
        if values.is_empty() {
            return;
        }
        let send = values.to_vec();
        self.world.all_reduce_into(&send[..], values, SystemOperation::sum());
    }
    fn all_reduce_max_u64(&self, values: &mut [u64]) {
        if values.is_empty() {
            return;
        }
        let send = values.to_vec();
        self.world.all_reduce_into(&send[..], values, SystemOperation::max());
    }
    fn broadcast_f64(&self, root: usize, values: &mut [f64]) {
        if values.is_empty() {
            return;
        }
        self.world.process_at_rank(root as i32).broadcast_into(values);
    }
    fn broadcast_bytes(&self, root: usize, bytes: &mut Vec<u8>) {
        let mut len = [bytes.len() as u64];
        self.world.process_at_rank(root as i32).broadcast_into(&mut len[..]);
        bytes.resize(len[0] as usize, 0);
        // Every rank knows the length now; an empty buffer is not broadcast (MPI rejects a null one).
        if !bytes.is_empty() {
            self.world.process_at_rank(root as i32).broadcast_into(&mut bytes[..]);
        }
    }
    fn send_f64(&self, to: usize, values: &[f64]) {
        self.world.process_at_rank(to as i32).send(values);
    }
    fn recv_f64(&self, from: usize) -> Vec<f64> {
        self.world.process_at_rank(from as i32).receive_vec::<f64>().0
    }
    fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }
    fn describe(&self) -> String {
        let lib = mpi::environment::library_version().unwrap_or_else(|_| "MPI".into());
        let lib = lib.split(',').next().unwrap_or("MPI").trim().to_string();
        format!("MPI: {lib}, {} ranks", self.size())
    }
}
