//! Where all-or-nothing loading runs: as asked, or — for [`Backend::Auto`], the default — on the CPU
//! first, raced against this machine's GPU on one loading where the CPU's loadings are worth a GPU's
//! start ([`super::race`]): the faster loads the rest. No adapter list or size threshold decides; the
//! race measures this machine, and a GPU whose predicted start-up the assignment cannot repay is never
//! started.
//!
//! On the CPU, [`Method::Auto`] trees come from PHAST on a customisable hierarchy ([`crate::hierarchy`])
//! where that was measured faster, from [`CPU_PHAST_MIN_WORK_PER_THREAD`] origin × link pairs per
//! thread (docs/benchmarks.md, "Assignment: CPU trees by default"). On the 2-core machine (`--threads
//! 2`, dijkstra vs phast) PHAST took 0.55–0.80 of Dijkstra's time from Barcelona (0.28 M pairs) up
//! (Chicago-Sketch 0.43 vs 0.85 s, Berlin-Center 2.72 vs 4.05 s, Hessen 8.05 vs 14.64 s); below 0.1 M
//! the two are within milliseconds. On 32 threads Dijkstra per origin scales further: Barcelona,
//! Winnipeg, Chicago-Sketch and Berlin-Center were ties or Dijkstra's by up to 1.4×, Philadelphia PHAST's
//! by 2.0× (30 iterations: 1.60 vs 3.22 s) and Hessen's by 1.15×. The hierarchy's fixed-point trees
//! reached relative gap 1e-7 on Chicago-Sketch (3,136 iterations, 26 s against Dijkstra's 75 s); below
//! that target, and for select-link analysis (which records the f64 trees), Auto keeps the exact f64
//! trees.
//!
//! Several GPUs given to one assignment split its origins only where that was measured faster; on the
//! two-H100 host it never was (Philadelphia 6.70 s against 5.09–5.80 s on one, Austin 100 iterations
//! 2.56 vs 2.15–2.19 s, Berlin-Center 0.66 vs 0.54–0.56 s, Hessen 4.38 vs 3.86–3.93 s: each loading is
//! milliseconds, and the second device adds its transfers and a join to every one), so the assignment
//! runs on the first and says so. [`crate::loader::GpuLoader`] still splits for callers who build it.

use gpu_runtime::{Backend, GpuContext, Resolved};

use algos_sssp::many::Method;

use super::options::{Algorithm, AssignOptions};
use crate::demand::Demand;
use crate::network::Network;

/// Fewest origin × link pairs per loading and per CPU thread at which [`Method::Auto`] grows the CPU's
/// trees by PHAST on a customisable hierarchy (measured at 2 and 32 threads; below it Dijkstra per
/// origin is as fast and builds nothing).
pub const CPU_PHAST_MIN_WORK_PER_THREAD: u64 = 50_000;

/// Smallest relative-gap target for which [`Method::Auto`] takes the hierarchy's fixed-point trees on
/// the CPU (the smallest measured reached; below it the f64 trees are exact to any gap).
pub const CPU_PHAST_MIN_GAP: f64 = 1e-7;

/// Where all-or-nothing loading runs, and why.
#[derive(Debug, Clone)]
pub struct LoaderChoice<'a> {
    /// The GPUs loading (empty: the CPU).
    pub devices: Vec<&'a GpuContext>,
    /// On the CPU: trees by PHAST on a customisable hierarchy ([`crate::hierarchy::CchAon`]) rather
    /// than f64 Dijkstra per origin. (GPUs take `opts.trees` as it is.)
    pub cpu_hierarchy: bool,
    /// Auto: the CPU loads first and a GPU is raced against it on one loading ([`super::race`]).
    pub race: bool,
    /// One sentence: asked for, or the automatic rule's numbers.
    pub why: String,
}

impl LoaderChoice<'_> {
    /// `cpu (N threads)` or `gpu (adapter name)` (`gpu × k (first name)` for several).
    pub fn describe(&self) -> String {
        match self.devices.as_slice() {
            [] if self.cpu_hierarchy => format!("{}, cch+phast trees", Resolved::Cpu),
            [] => Resolved::Cpu.to_string(),
            [one] => format!("gpu ({})", one.info.name),
            [first, ..] => format!("gpu × {} ({} first)", self.devices.len(), first.info.name),
        }
    }
}

/// Where [`super::assign`] loads for `opts` on this network and demand. Auto looks for a GPU only
/// when the loading is large enough for one to pay, so small networks never pay an adapter search.
pub fn choose_loader<'a>(net: &Network, demand: &Demand, opts: &AssignOptions<'a>) -> LoaderChoice<'a> {
    let mut choice = choose_devices(opts);
    if choice.devices.is_empty() {
        let work = demand.num_origins() as u64 * net.num_links() as u64;
        let (hierarchy, why) = choose_cpu_trees(work, opts);
        choice.cpu_hierarchy = hierarchy;
        choice.why = format!("{}; trees: {why}", choice.why);
    }
    choice
}

/// The CPU's trees for `opts.trees` when one loading touches `work` origin × link pairs (summed over
/// user classes): (PHAST on a customisable hierarchy?, why).
///
/// ```
/// use urbanflow::tap::AssignOptions;
/// use urbanflow::tap::solve::choose_cpu_trees;
/// let big = 100_000_000; // origins × links, e.g. 2,000 origins on 50,000 links
/// let (hierarchy, why) = choose_cpu_trees(big, &AssignOptions::default());
/// assert!(hierarchy, "{why}");
/// let (hierarchy, why) = choose_cpu_trees(big, &AssignOptions::default().with_gap(1e-9));
/// assert!(!hierarchy && why.contains("gap"), "{why}");
/// ```
pub fn choose_cpu_trees(work: u64, opts: &AssignOptions) -> (bool, String) {
    match opts.trees {
        Method::Phast => (true, "cch+phast, asked for".into()),
        Method::Trees => (false, "f64 dijkstra, asked for".into()),
        Method::Auto => {
            let threads = rayon::current_num_threads().max(1) as u64;
            let threshold = CPU_PHAST_MIN_WORK_PER_THREAD * threads;
            if !opts.select_links.is_empty() {
                (false, "f64 dijkstra (select-link records the exact trees)".into())
            } else if opts.stop.relative_gap < CPU_PHAST_MIN_GAP {
                (
                    false,
                    format!(
                        "f64 dijkstra (gap target below {CPU_PHAST_MIN_GAP:e}, the hierarchy's measured floor)"
                    ),
                )
            } else {
                let (hierarchy, verdict) = if work < threshold {
                    (false, "f64 dijkstra: a hierarchy does not pay below")
                } else {
                    (true, "cch+phast (auto): measured faster from")
                };
                let m = |x: u64| x as f64 / 1e6;
                (
                    hierarchy,
                    format!(
                        "{verdict} {:.2} M at {threads} threads, {:.2} M pairs here",
                        m(threshold),
                        m(work)
                    ),
                )
            }
        }
    }
}

/// Where loading runs (devices or the CPU), and why.
fn choose_devices<'a>(opts: &AssignOptions<'a>) -> LoaderChoice<'a> {
    let cpu = |why: String| LoaderChoice { devices: Vec::new(), cpu_hierarchy: false, race: false, why };
    let gpus = |devices: Vec<&'a GpuContext>, why: String| LoaderChoice {
        devices,
        cpu_hierarchy: false,
        race: false,
        why,
    };
    match opts.devices {
        _ if matches!(opts.backend, Backend::Cpu) => {}
        [] => {}
        [one] => return gpus(vec![one], "asked for (devices given)".into()),
        [first, ..] => {
            return gpus(
                vec![first],
                format!(
                    "{} GPUs given, the first loads: splitting an assignment's origins over several GPUs \
                     was measured slower than one on every network (tap::solve::choose_loader)",
                    opts.devices.len()
                ),
            );
        }
    }
    match opts.backend {
        Backend::Cpu => cpu("asked for".into()),
        Backend::Gpu(ctx) => gpus(vec![ctx], "asked for".into()),
        Backend::Auto if opts.algorithm == Algorithm::AlgorithmB => {
            cpu("auto: Algorithm B runs on the CPU (its gaps below 1e-7 need f64 shortest paths)".into())
        }
        Backend::Auto if !gpu_runtime::BUILT_WITH_GPU => cpu("auto: built without the `gpu` feature".into()),
        Backend::Auto if !opts.select_links.is_empty() => {
            cpu("auto: select-link analysis records the CPU loader's exact trees".into())
        }
        Backend::Auto => LoaderChoice {
            race: true,
            ..cpu("auto: the CPU loads first, timed; a GPU is raced on one loading where that can pay".into())
        },
    }
}
