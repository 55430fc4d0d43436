//! Where all-or-nothing loading runs: as asked, or — for [`Backend::Auto`], the default — on a GPU
//! only where one was measured faster for a network this large, counting the GPU's setup. Never
//! slower than the CPU on the networks measured, and it says why it chose.
//!
//! Measured on the H100 host (16 cores), `assign --gap 1e-4` (bi-conjugate Frank–Wolfe), wall time
//! CPU vs GPU (docs/benchmarks.md, "Assignment: where Auto loads"): below a million origin × link
//! pairs per loading the CPU wins by 2–40× (a GPU run pays 0.2–0.9 s of device and pipeline setup that
//! the CPU's whole solve does not take); Berlin-Center (24.5 M) is a tie (0.80 vs 0.82 s); the GPU wins
//! from Philadelphia (61 M: 4.5 vs 22.7 s) and Austin (140 M: 24.6 vs 76.8 s, both at the 1,000-iteration
//! cap). Hessen (1.6 M) is the one network measured where the GPU was faster below the threshold (3.87
//! vs 4.17 s, over 355 and 367 iterations).

use gpu_runtime::context::auto_adapter;
use gpu_runtime::{Backend, GpuContext, Resolved};

use super::options::{Algorithm, AssignOptions};
use crate::demand::Demand;
use crate::network::Network;

/// Fewest origin × link pairs per all-or-nothing loading at which [`Backend::Auto`] loads on a GPU,
/// for 16 CPU threads (measured); scaled by the thread count, since the CPU's rate is.
pub const GPU_MIN_WORK_16_THREADS: u64 = 30_000_000;

/// Adapters (name substrings) on which [`Backend::Auto`] may load on the GPU: where the threshold was
/// measured. Elsewhere Auto stays on the CPU until measured.
pub const GPU_MEASURED_ON: &[&str] = &["NVIDIA H100"];

/// Where all-or-nothing loading runs, and why.
#[derive(Debug, Clone)]
pub struct LoaderChoice<'a> {
    /// The GPUs loading (empty: the CPU).
    pub devices: Vec<&'a GpuContext>,
    /// One sentence: asked for, or the automatic rule's numbers.
    pub why: String,
}

impl LoaderChoice<'_> {
    /// `cpu (N threads)` or `gpu (adapter name)` (`gpu × k (first name)` for several).
    pub fn describe(&self) -> String {
        match self.devices.as_slice() {
            [] => Resolved::Cpu.to_string(),
            [one] => format!("gpu ({})", one.info.name),
            [first, ..] => format!("gpu × {} ({} first)", self.devices.len(), first.info.name),
        }
    }
}

/// Where [`super::assign`] loads for `opts` on this network and demand. Auto looks for a GPU only
/// when the loading is large enough for one to pay, so small networks never pay an adapter search.
pub fn choose_loader<'a>(net: &Network, demand: &Demand, opts: &AssignOptions<'a>) -> LoaderChoice<'a> {
    let cpu = |why: String| LoaderChoice { devices: Vec::new(), why };
    if !opts.devices.is_empty() && !matches!(opts.backend, Backend::Cpu) {
        return LoaderChoice {
            devices: opts.devices.iter().collect(),
            why: "asked for (devices given)".into(),
        };
    }
    match opts.backend {
        Backend::Cpu => cpu("asked for".into()),
        Backend::Gpu(ctx) => LoaderChoice { devices: vec![ctx], why: "asked for".into() },
        Backend::Auto if opts.algorithm == Algorithm::AlgorithmB => {
            cpu("auto: Algorithm B runs on the CPU (its gaps below 1e-7 need f64 shortest paths)".into())
        }
        Backend::Auto => {
            let threads = rayon::current_num_threads().max(1) as u64;
            let work = demand.num_origins() as u64 * net.num_links() as u64;
            let threshold = GPU_MIN_WORK_16_THREADS * threads / 16;
            let size = format!(
                "{:.1} M origin × link pairs per loading, GPU from {:.1} M at {threads} threads",
                work as f64 / 1e6,
                threshold as f64 / 1e6
            );
            if work < threshold {
                return cpu(format!("auto: {size}: the CPU is faster on networks this small"));
            }
            let auto = auto_adapter();
            let Some(i) = auto.chosen else { return cpu(format!("auto: {}", auto.reason)) };
            let name = &auto.found[i].name;
            if !GPU_MEASURED_ON.iter().any(|m| name.contains(m)) {
                return cpu(format!("auto: {size}, but the GPU loader was not measured on {name}"));
            }
            match Backend::Auto.resolve() {
                Resolved::Gpu(ctx) => LoaderChoice { devices: vec![ctx], why: format!("auto: {size}") },
                Resolved::Cpu => cpu(format!("auto: {size}, but no GPU could be opened")),
            }
        }
    }
}
