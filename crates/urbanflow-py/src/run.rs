//! How a binding call runs: on a helper thread, outside the GIL, with the Python thread waking every
//! 50 ms to deliver signals — Ctrl-C raises `KeyboardInterrupt` at once instead of after the work — and,
//! with `threads=k`, inside a rayon pool of `k` threads (one pool per count and process, never the
//! global pool's configuration).
//!
//! An interrupted call returns at once and raises the signal's exception; its helper thread stops at
//! the work's next cancellation point ([`Cancel::check`]: the binding splits long work into blocks,
//! e.g. 256 trees) and drops what it computed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use pyo3::prelude::*;
use urbanflow::gpu::BackendChoice;

use crate::errors::{Error, UrbanflowError};

/// Set when the Python caller has gone (an exception from a signal handler): work stops at its next
/// check.
#[derive(Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// `Err(Error::Cancelled)` once the caller has gone.
    pub fn check(&self) -> Result<(), Error> {
        if self.0.load(Ordering::Relaxed) { Err(Error::Cancelled) } else { Ok(()) }
    }

    /// The flag itself, for library calls that watch one (`AssignOptions::cancel`).
    pub fn flag(&self) -> &AtomicBool {
        &self.0
    }
}

/// Options every computing call takes.
pub struct Run {
    /// Worker threads; `None`: rayon's global pool (`RAYON_NUM_THREADS`, else every core).
    pub threads: Option<usize>,
}

/// Pools by (process id, thread count): a forked child builds its own.
type Pools = Mutex<HashMap<(u32, usize), Arc<rayon::ThreadPool>>>;

/// The pool of `threads` threads of this process.
fn pool_for(threads: usize) -> Result<Arc<rayon::ThreadPool>, Error> {
    static POOLS: OnceLock<Pools> = OnceLock::new();
    if threads == 0 {
        return Err(Error::Input("threads = 0: expected at least 1".into()));
    }
    let key = (std::process::id(), threads);
    let mut pools = POOLS.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
    if let Some(p) = pools.get(&key) {
        return Ok(Arc::clone(p));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::Input(format!("threads = {threads}: {e}")))?;
    let pool = Arc::new(pool);
    pools.insert(key, Arc::clone(&pool));
    Ok(pool)
}

/// The backend a call asked for: `None` → `$URBANFLOW_BACKEND`, else "auto".
pub fn backend_of(name: Option<&str>) -> Result<BackendChoice, Error> {
    match name {
        Some(s) => s.parse().map_err(Error::Input),
        None => BackendChoice::from_env().map_err(Error::Input),
    }
}

/// Runs `work` outside the GIL (see the module documentation).
pub fn run<T: Send + 'static>(
    py: Python<'_>,
    opts: Run,
    work: impl FnOnce(&Cancel) -> Result<T, Error> + Send + 'static,
) -> PyResult<T> {
    run_watching(py, opts, work, |_| Ok(()))
}

/// [`run`], calling `tick` on the Python thread at every wake-up and once more when the work is done
/// (progress callbacks); an error from `tick` ends the call like a signal.
pub fn run_watching<T: Send + 'static>(
    py: Python<'_>,
    opts: Run,
    work: impl FnOnce(&Cancel) -> Result<T, Error> + Send + 'static,
    mut tick: impl FnMut(Python<'_>) -> PyResult<()>,
) -> PyResult<T> {
    let pool = opts.threads.map(pool_for).transpose()?;
    let cancel = Cancel::default();
    let flag = cancel.clone();
    let (tx, rx) = channel();
    std::thread::Builder::new()
        .name("urbanflow-call".into())
        .spawn(move || {
            let result = match pool {
                Some(p) => p.install(|| work(&flag)),
                None => work(&flag),
            };
            let _ = tx.send(result);
        })
        .map_err(|e| Error::Input(format!("cannot start a worker thread: {e}")))?;
    let mut rx = rx;
    loop {
        // The receiver moves into the GIL-free wait and back (it may be sent, not shared).
        let (got, back) = py.detach(move || (rx.recv_timeout(Duration::from_millis(50)), rx));
        rx = back;
        match got {
            Ok(result) => {
                let result = result.map_err(PyErr::from);
                tick(py)?;
                return result;
            }
            Err(RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals().and_then(|()| tick(py)) {
                    cancel.0.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(UrbanflowError::new_err(
                    "internal error: the worker thread panicked (a bug: please report it)",
                ));
            }
        }
    }
}

/// Calls a Python progress callback with `args`; a `False` answer ends the call (like an exception
/// from the callback, which is passed on).
pub fn report_progress<'py>(
    py: Python<'py>,
    callback: &Py<PyAny>,
    args: impl pyo3::call::PyCallArgs<'py>,
) -> PyResult<()> {
    let answer = callback.call1(py, args)?;
    if answer.bind(py).is(pyo3::types::PyBool::new(py, false)) {
        return Err(UrbanflowError::new_err("cancelled by the progress callback"));
    }
    Ok(())
}
