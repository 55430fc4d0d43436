//! Launch settings chosen by a short measurement on first use and cached per adapter, kernel and
//! problem (spec batched-apsp.md §4: the seed's occupancy rules need hardware counters WebGPU does not
//! expose, so the portable form is to time a few candidates).
//!
//! The cache lives for the process. `URBANFLOW_TUNE=off` skips measuring and takes the first
//! candidate (the kernel's portable default); callers can always pass their own settings instead.
//!
//! ```
//! use gpu_runtime::tuning::{LaunchConfig, tuned};
//! # let key = ("doc adapter", "doc kernel", "n=10");
//! let candidates = [LaunchConfig { workgroup_size: 64, batch: 8, param: 1 }, LaunchConfig { workgroup_size: 128, batch: 8, param: 1 }];
//! // The measurement returns seconds per unit of work; the fastest candidate wins and is remembered.
//! let best = tuned(key, &candidates, |c| Ok::<f64, ()>(1.0 / c.workgroup_size as f64)).unwrap();
//! assert_eq!(best.workgroup_size, 128);
//! let again = tuned(key, &candidates, |_| -> Result<f64, ()> { panic!("cached, not measured again") }).unwrap();
//! assert_eq!(again, best);
//! ```

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::context::GpuContext;

/// One launch setting of a kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    /// Invocations per workgroup.
    pub workgroup_size: u32,
    /// Independent problems (sources, tiles) per dispatch.
    pub batch: u32,
    /// A kernel-specific knob (for example a bucket width).
    pub param: u32,
}

type Key = (String, String, String);

fn cache() -> &'static Mutex<HashMap<Key, LaunchConfig>> {
    static CACHE: OnceLock<Mutex<HashMap<Key, LaunchConfig>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// Whether measuring is allowed (`URBANFLOW_TUNE` is not `off` / `0`).
pub fn enabled() -> bool {
    !matches!(std::env::var("URBANFLOW_TUNE").as_deref(), Ok("off" | "0"))
}

/// The cache key naming an adapter: name, driver and backend.
pub fn adapter_key(ctx: &GpuContext) -> String {
    format!("{} | {} {} | {:?}", ctx.info.name, ctx.info.driver, ctx.info.driver_info, ctx.info.backend)
}

/// The cached setting for `(adapter, kernel, problem)`, else the candidate with the smallest
/// `measure` (seconds per unit of work), which is then cached. Candidates whose measurement fails are
/// skipped; if every one fails, the first error is returned. With tuning off, the first candidate.
///
/// # Panics
/// If `candidates` is empty (a programming error of the calling kernel, not of its input).
pub fn tuned<E>(
    (adapter, kernel, problem): (&str, &str, &str),
    candidates: &[LaunchConfig],
    mut measure: impl FnMut(LaunchConfig) -> Result<f64, E>,
) -> Result<LaunchConfig, E> {
    let key = (adapter.to_string(), kernel.to_string(), problem.to_string());
    if let Some(c) = cache().lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(*c);
    }
    let Some(&first) = candidates.first() else {
        panic!("tuning `{kernel}` needs at least one candidate");
    };
    let best = if !enabled() || candidates.len() == 1 {
        first
    } else {
        let mut best: Option<(f64, LaunchConfig)> = None;
        let mut first_error = None;
        for &c in candidates {
            match measure(c) {
                Ok(t) if best.is_none_or(|(b, _)| t < b) => best = Some((t, c)),
                Ok(_) => {}
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        match (best, first_error) {
            (Some((_, c)), _) => c,
            (None, Some(e)) => return Err(e),
            (None, None) => first,
        }
    };
    cache().lock().unwrap_or_else(|e| e.into_inner()).insert(key, best);
    Ok(best)
}

/// Forgets every cached setting (tests, or after a driver change).
pub fn clear() {
    cache().lock().unwrap_or_else(|e| e.into_inner()).clear();
}
