//! What the distributed algorithms need from a message-passing layer, as one small trait: the MPI
//! implementation ([`crate::MpiComm`], feature `mpi`) and a single-process one ([`Solo`]) that runs
//! the same code without MPI.

/// Ranks `0..size` exchanging plain numbers. Every call is collective unless it says otherwise: all
/// ranks make it, in the same order. Only the thread that created the communicator calls it.
pub trait Comm {
    /// This process's rank.
    fn rank(&self) -> usize;
    /// Number of ranks.
    fn size(&self) -> usize;
    /// Waits for every rank.
    fn barrier(&self);
    /// Element-wise sum over ranks, wrapping modulo 2^64, into every rank's `values`.
    fn all_reduce_sum_u64(&self, values: &mut [u64]);
    /// Element-wise maximum over ranks into every rank's `values`.
    fn all_reduce_max_u64(&self, values: &mut [u64]);
    /// Rank `root`'s `values` into every rank's (all ranks pass the same length).
    fn broadcast_f64(&self, root: usize, values: &mut [f64]);
    /// Rank `root`'s bytes into every rank's `bytes` (other ranks' contents are replaced).
    fn broadcast_bytes(&self, root: usize, bytes: &mut Vec<u8>);
    /// Sends `values` to rank `to` (point to point, not collective).
    fn send_f64(&self, to: usize, values: &[f64]);
    /// Receives what rank `from` sent with [`Comm::send_f64`] (point to point, not collective).
    fn recv_f64(&self, from: usize) -> Vec<f64>;
    /// Ends every rank of the job with `code` (a rank that cannot go on must not leave the others
    /// waiting in a collective call).
    fn abort(&self, code: i32) -> !;
    /// Where this runs, in a few words ("MPI: Open MPI v4.1.4, 4 ranks").
    fn describe(&self) -> String;
}

/// One process, no MPI: collectives are identities. The distributed algorithms on [`Solo`] compute
/// exactly what the single-process library does.
#[derive(Debug, Clone, Copy, Default)]
pub struct Solo;

impl Comm for Solo {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn barrier(&self) {}
    fn all_reduce_sum_u64(&self, _values: &mut [u64]) {}
    fn all_reduce_max_u64(&self, _values: &mut [u64]) {}
    fn broadcast_f64(&self, _root: usize, _values: &mut [f64]) {}
    fn broadcast_bytes(&self, _root: usize, _bytes: &mut Vec<u8>) {}
    fn send_f64(&self, to: usize, _values: &[f64]) {
        panic!("Solo has no rank {to} to send to");
    }
    fn recv_f64(&self, from: usize) -> Vec<f64> {
        panic!("Solo has no rank {from} to receive from");
    }
    fn abort(&self, code: i32) -> ! {
        std::process::exit(code)
    }
    fn describe(&self) -> String {
        "one process (no MPI)".into()
    }
}
