//! Where the trees of a many-source run go — PHAST or one tree per source, the CPU, the GPUs or both —
//! decided from the caller's options and from what [`measure`](super::measure()) found. Planning
//! computes no tree, opens no device and times nothing: given the same measurements it always
//! decides the same, and [`Plan::run`](super::Plan::run) then only executes.

use gpu_runtime::{Backend, GpuContext, Resolved};
use graph_core::Csr;

use super::measured::{CpuProbe, Measurements};
use super::{AutoDecision, ManyOptions, ManyStats, Method, Schedule};
use crate::auto::HierarchyCost;
use crate::gpu::BatchConfig;

/// What a many-source run will do: how each tree is computed and where, decided before the run.
///
/// ```
/// use urbanflow::sssp::many::{ManyOptions, Method, Placement, measure, plan};
/// use urbanflow::gpu::Backend;
/// let g = urbanflow::graph::generators::grid_2d(8, 8);
/// let sources = [0, 9, 63];
/// let opts = ManyOptions { backend: Backend::Cpu, ..Default::default() };
/// let mut rows = 0;
/// let measured = measure(&g, &sources, &opts, |b| rows += b.sources.len())?; // nothing to time here
/// let plan = plan(&g, &sources, &opts, &measured);
/// assert_eq!((plan.method, plan.done), (Method::Trees, 0));
/// assert!(matches!(plan.placement, Placement::Cpu));
/// let stats = plan.run(&g, &sources, |b| rows += b.sources.len())?;
/// assert_eq!((rows, stats.cpu_trees), (3, 3));
/// # Ok::<(), urbanflow::sssp::SsspError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Plan<'a> {
    /// How each tree is computed (never [`Method::Auto`]).
    pub method: Method,
    /// Where the trees go.
    pub placement: Placement<'a>,
    /// Sources [`measure`](super::measure()) already computed and delivered (the automatic
    /// schedule's CPU probe): the run computes the others.
    pub done: usize,
    /// The automatic choice's measurements and reason, when a choice was automatic.
    pub decision: Option<AutoDecision>,
    /// The options planned for (the run uses them as they are).
    pub(super) opts: ManyOptions<'a>,
    /// How many sources were planned for (a run with another list is refused).
    pub(super) sources: usize,
    /// Counters of the measurement (the probe's trees, the tuning's seconds), carried into the run's.
    pub(super) measured: ManyStats,
}

/// The devices of a [`Plan`].
#[derive(Debug, Clone)]
pub enum Placement<'a> {
    /// The CPU's threads alone.
    Cpu,
    /// GPUs, with CPU threads beside them or not.
    Gpus {
        /// The GPUs, each with its launch settings when one tree per source runs on them (`None`: the
        /// portable defaults, `BatchConfig::for_graph`).
        devices: Vec<(&'a GpuContext, Option<BatchConfig>)>,
        /// [`Schedule::Single`]: the GPUs without CPU threads; else how the CPU threads join them.
        schedule: Schedule,
    },
}

/// Decides a run from `opts` and `measured` (see [`Plan`]). The measurements must be of the same graph,
/// sources and options; missing ones leave the choice to the CPU (and the reason says so).
pub fn plan<'a>(
    graph: &Csr<u32>,
    sources: &[u32],
    opts: &ManyOptions<'a>,
    measured: &Measurements<'a>,
) -> Plan<'a> {
    let mut plan = Plan {
        method: Method::Trees,
        placement: Placement::Cpu,
        done: 0,
        decision: None,
        opts: *opts,
        sources: sources.len(),
        measured: measured.stats.clone(),
    };
    if let Some((gpus, why)) = phast_choice(graph, sources, opts, &measured.devices, measured.hierarchy) {
        plan.method = Method::Phast;
        plan.decision = why.map(|reason| AutoDecision {
            probe_trees: 0,
            cpu_trees_per_s: 0.0,
            gpu_trees_per_s: None,
            reason,
        });
        if !gpus.is_empty() {
            let schedule = if gpus.len() > 1 { Schedule::WorkQueue } else { Schedule::Single };
            plan.placement =
                Placement::Gpus { devices: gpus.into_iter().map(|g| (g, None)).collect(), schedule };
        }
        return plan;
    }
    match (opts.backend, opts.schedule) {
        (Backend::Cpu, _) => {}
        (backend, Schedule::Auto) => auto_placement(&mut plan, backend, opts, sources.len(), measured),
        (_, schedule) => {
            if !measured.devices.is_empty() {
                let devices = measured
                    .devices
                    .iter()
                    .map(|&ctx| (ctx, opts.gpu.or_else(|| measured.tuned_config(ctx))))
                    .collect();
                plan.placement = Placement::Gpus { devices, schedule };
            }
        }
    }
    plan
}

/// [`Schedule::Auto`]'s choice for one tree per source: the CPU unless the GPUs were measured faster
/// ([`crate::auto::place`]), with the reason.
fn auto_placement<'a>(
    plan: &mut Plan<'a>,
    backend: Backend<'a>,
    opts: &ManyOptions<'a>,
    sources: usize,
    measured: &Measurements<'a>,
) {
    use crate::auto::{Placement as Share, place};
    let Some(probe) = measured.probe else {
        plan.decision = Some(AutoDecision {
            probe_trees: 0,
            cpu_trees_per_s: 0.0,
            gpu_trees_per_s: None,
            reason: "the CPU was not measured: it runs".into(),
        });
        return;
    };
    plan.done = probe.trees;
    let rest = sources - probe.trees;
    let mut decision = AutoDecision {
        probe_trees: probe.trees,
        cpu_trees_per_s: probe.trees_per_s,
        gpu_trees_per_s: None,
        reason: String::new(),
    };
    let why_cpu =
        cpu_before_opening(backend, opts, &probe, rest).or_else(|| cpu_after_opening(&measured.devices));
    if let Some(reason) = why_cpu {
        decision.reason = reason;
        plan.decision = Some(decision);
        return;
    }
    let placed: Vec<(&GpuContext, Option<BatchConfig>)> =
        measured.gpus.iter().map(|t| (t.device, Some(t.config))).collect();
    // The GPUs' combined rate; unknown when any of them could not be measured.
    let gpu_rate = measured.gpus.iter().try_fold(0.0, |sum, t| t.trees_per_s.map(|r| sum + r));
    let cpu_rate = probe.trees_per_s;
    decision.gpu_trees_per_s = gpu_rate;
    let share = match (opts.gpu, placed.is_empty()) {
        (_, true) => Share::Cpu,
        (Some(_), false) => Share::Gpu,
        (None, false) => place(cpu_rate, gpu_rate),
    };
    let which = if placed.len() == 1 { "GPU".to_string() } else { format!("{} GPUs", placed.len()) };
    decision.reason = match (share, gpu_rate) {
        _ if placed.is_empty() => "no GPU was measured: the CPU runs".into(),
        (_, None) if opts.gpu.is_some() => format!("launch settings were given: the {which} run alone"),
        (_, None) => "the GPU could not be measured: the CPU runs".into(),
        (Share::Cpu, Some(g)) => format!("{which} {g:.0} trees/s is not faster than CPU {cpu_rate:.0}"),
        (Share::Gpu, Some(g)) => format!(
            "{which} {g:.0} trees/s; the CPU's {cpu_rate:.0} adds less than {:.0}% of that",
            crate::auto::WORK_QUEUE_MIN_CPU_SHARE * 100.0
        ),
        (Share::Both, Some(g)) => {
            format!("{which} {g:.0} trees/s and CPU {cpu_rate:.0} together (work queue)")
        }
    };
    plan.decision = Some(decision);
    plan.placement = match share {
        Share::Cpu => Placement::Cpu,
        Share::Gpu => Placement::Gpus { devices: placed, schedule: Schedule::Single },
        Share::Both => Placement::Gpus { devices: placed, schedule: Schedule::WorkQueue },
    };
}

/// Auto's reasons to keep the CPU that need no device opened: nothing left after the probe, a
/// software adapter named, too little work for a GPU's fixed costs, no hardware adapter on this
/// machine. `None`: the GPUs are worth opening and measuring.
pub(super) fn cpu_before_opening(
    backend: Backend<'_>,
    opts: &ManyOptions<'_>,
    probe: &CpuProbe,
    rest: usize,
) -> Option<String> {
    use crate::auto::MIN_CPU_SECONDS_FOR_GPU;
    let software =
        |ctx: &GpuContext| format!("`{}` is a software adapter: slower than the CPU", ctx.info.name);
    if rest == 0 {
        return Some("every source was computed while timing the CPU".into());
    }
    if let Some(ctx) = opts.devices.iter().find(|c| c.is_software()) {
        return Some(software(ctx));
    }
    if let Backend::Gpu(ctx) = backend
        && ctx.is_software()
        && opts.devices.is_empty()
    {
        return Some(software(ctx));
    }
    let cpu_seconds = rest as f64 / probe.trees_per_s;
    if cpu_seconds < MIN_CPU_SECONDS_FOR_GPU {
        return Some(format!(
            "the CPU needs about {cpu_seconds:.2} s for the rest: too little for a GPU's fixed costs to pay off"
        ));
    }
    if matches!(backend, Backend::Auto)
        && opts.devices.is_empty()
        && gpu_runtime::context::auto_adapter().chosen.is_none()
    {
        return Some(gpu_runtime::context::auto_adapter().reason.clone());
    }
    None
}

/// Auto's reasons to keep the CPU once the backend's GPUs are opened: none, or a software one.
pub(super) fn cpu_after_opening(devices: &[&GpuContext]) -> Option<String> {
    if devices.is_empty() {
        return Some("no GPU could be opened".into());
    }
    devices
        .iter()
        .find(|c| c.is_software())
        .map(|ctx| format!("`{}` is a software adapter: slower than the CPU", ctx.info.name))
}

/// Whether the trees are PHAST's, and on which GPUs (none: the CPU), with Auto's reason when it chose
/// PHAST without a hierarchy given — decided with the same threshold the reason quotes.
pub(super) fn phast_choice<'a>(
    graph: &Csr<u32>,
    sources: &[u32],
    opts: &ManyOptions<'a>,
    devices: &[&'a GpuContext],
    hierarchy: Option<HierarchyCost>,
) -> Option<(Vec<&'a GpuContext>, Option<String>)> {
    use crate::auto::{phast_pays, phast_threshold};
    if opts.method == Method::Trees {
        return None;
    }
    let gpus: Vec<&GpuContext> = devices
        .iter()
        .copied()
        // `Auto` never takes a software adapter (slower than the CPU); an explicit one is taken.
        .filter(|ctx| !ctx.is_software() || !matches!(opts.backend, Backend::Auto))
        .collect();
    if opts.method == Method::Phast {
        return Some((gpus, None));
    }
    let threads = rayon::current_num_threads();
    let cost = hierarchy.unwrap_or(if opts.hierarchy.is_some() {
        HierarchyCost::AtHand
    } else {
        HierarchyCost::ToBuild
    });
    let gpu = !gpus.is_empty();
    if !phast_pays(graph.num_vertices(), graph.num_arcs(), sources.len(), threads, gpu, cost) {
        return None;
    }
    let why = (cost != HierarchyCost::AtHand).then(|| {
        let place = match gpus.len() {
            0 => format!("{threads} CPU threads"),
            1 => "the GPU".to_string(),
            k => format!("{k} GPUs"),
        };
        format!(
            "{} sources ≥ {} with {}: a customisable hierarchy and PHAST on {place} are measured faster \
             than one tree per source from there (auto::phast_pays)",
            sources.len(),
            phast_threshold(threads, gpu, cost),
            cost.describe()
        )
    });
    Some((gpus, why))
}

/// The GPUs a backend stands for: [`ManyOptions::devices`] when given, else the backend's one GPU
/// (none for the CPU). Resolving [`Backend::Auto`] may open the process's device: this is a step of
/// [`measure`](super::measure()), never of planning.
pub(super) fn devices_of<'a>(backend: Backend<'a>, opts: &ManyOptions<'a>) -> Vec<&'a GpuContext> {
    if matches!(backend, Backend::Cpu) {
        return Vec::new();
    }
    if !opts.devices.is_empty() {
        return opts.devices.iter().collect();
    }
    match backend.resolve() {
        Resolved::Cpu => Vec::new(),
        Resolved::Gpu(ctx) => vec![ctx],
    }
}
