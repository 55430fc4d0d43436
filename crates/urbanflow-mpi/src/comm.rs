//! What the distributed algorithms need from a message-passing layer, as one small trait: the MPI
//! implementation (`MpiComm`, feature `mpi`) and a single-process one ([`Solo`]) that runs
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

/// `size` ranks as threads of this process, for tests and for trying a distributed run without MPI:
/// collectives through shared memory and a barrier, point-to-point through channels. `abort` panics
/// (ending the scope with that panic).
pub struct LocalComm {
    rank: usize,
    size: usize,
    shared: std::sync::Arc<LocalShared>,
    inbox: Vec<std::sync::Mutex<std::sync::mpsc::Receiver<Vec<f64>>>>,
    outbox: Vec<std::sync::mpsc::Sender<Vec<f64>>>,
}

struct LocalShared {
    barrier: std::sync::Barrier,
    words: std::sync::Mutex<Vec<Vec<u64>>>,
    bytes: std::sync::Mutex<Vec<u8>>,
}

impl LocalComm {
    /// Runs `f` on `size` ranks (threads) and returns their results in rank order.
    ///
    /// ```
    /// use urbanflow::cluster::{Comm, LocalComm};
    /// let sums = LocalComm::run(3, |c| {
    ///     let mut v = [c.rank() as u64 + 1];
    ///     c.all_reduce_sum_u64(&mut v);
    ///     v[0]
    /// });
    /// assert_eq!(sums, vec![6, 6, 6]);
    /// ```
    pub fn run<T: Send>(size: usize, f: impl Fn(&LocalComm) -> T + Sync) -> Vec<T> {
        assert!(size > 0, "at least one rank");
        let shared = std::sync::Arc::new(LocalShared {
            barrier: std::sync::Barrier::new(size),
            words: std::sync::Mutex::new(vec![Vec::new(); size]),
            bytes: std::sync::Mutex::new(Vec::new()),
        });
        // channel[from][to]
        let mut senders: Vec<Vec<std::sync::mpsc::Sender<Vec<f64>>>> =
            (0..size).map(|_| Vec::new()).collect();
        let mut receivers: Vec<Vec<std::sync::Mutex<std::sync::mpsc::Receiver<Vec<f64>>>>> =
            (0..size).map(|_| Vec::new()).collect();
        for outbox in senders.iter_mut() {
            for inbox in receivers.iter_mut() {
                let (tx, rx) = std::sync::mpsc::channel();
                outbox.push(tx);
                inbox.push(std::sync::Mutex::new(rx));
            }
        }
        let comms: Vec<LocalComm> = senders
            .into_iter()
            .zip(receivers)
            .enumerate()
            .map(|(rank, (outbox, inbox))| LocalComm { rank, size, shared: shared.clone(), inbox, outbox })
            .collect();
        std::thread::scope(|s| {
            let handles: Vec<_> = comms.iter().map(|c| s.spawn(|| f(c))).collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
        })
    }

    fn reduce(&self, values: &mut [u64], op: fn(u64, u64) -> u64) {
        self.shared.words.lock().unwrap_or_else(|e| e.into_inner())[self.rank] = values.to_vec();
        self.shared.barrier.wait();
        {
            let all = self.shared.words.lock().unwrap_or_else(|e| e.into_inner());
            for (i, v) in values.iter_mut().enumerate() {
                *v = all.iter().map(|w| w[i]).reduce(op).unwrap_or(0);
            }
        }
        self.shared.barrier.wait();
    }
}

impl Comm for LocalComm {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.size
    }
    fn barrier(&self) {
        self.shared.barrier.wait();
    }
    fn all_reduce_sum_u64(&self, values: &mut [u64]) {
        self.reduce(values, u64::wrapping_add);
    }
    fn all_reduce_max_u64(&self, values: &mut [u64]) {
        self.reduce(values, u64::max);
    }
    fn broadcast_f64(&self, root: usize, values: &mut [f64]) {
        let mut words: Vec<u64> = values.iter().map(|v| v.to_bits()).collect();
        if self.rank != root {
            words.iter_mut().for_each(|w| *w = 0);
        }
        // The root's bits plus zeros: a sum that is the root's values exactly.
        self.reduce(&mut words, u64::wrapping_add);
        values.iter_mut().zip(words).for_each(|(v, w)| *v = f64::from_bits(w));
    }
    fn broadcast_bytes(&self, root: usize, bytes: &mut Vec<u8>) {
        if self.rank == root {
            *self.shared.bytes.lock().unwrap_or_else(|e| e.into_inner()) = bytes.clone();
        }
        self.shared.barrier.wait();
        if self.rank != root {
            *bytes = self.shared.bytes.lock().unwrap_or_else(|e| e.into_inner()).clone();
        }
        self.shared.barrier.wait();
    }
    fn send_f64(&self, to: usize, values: &[f64]) {
        self.outbox[to].send(values.to_vec()).expect("the receiving rank is alive");
    }
    fn recv_f64(&self, from: usize) -> Vec<f64> {
        self.inbox[from].lock().unwrap_or_else(|e| e.into_inner()).recv().expect("the sending rank is alive")
    }
    fn abort(&self, code: i32) -> ! {
        panic!("rank {} aborted the job with code {code}", self.rank)
    }
    fn describe(&self) -> String {
        format!("{} ranks as threads of one process", self.size)
    }
}
