//! Where the trees of a many-source run go: PHAST or one tree per source, the CPU, the GPUs or both —
//! from the caller's options or from rates measured on this input ([`Schedule::Auto`], [`crate::auto`]).

use gpu_runtime::{Backend, GpuContext, Resolved};
use graph_core::Csr;

use super::schedule::cpu_blocks;
use super::{AutoDecision, CPU_BLOCK, ManyOptions, ManyStats, Method, RowSink, Schedule};
use crate::error::SsspError;
use crate::gpu::BatchConfig;

/// PHAST's placement: the GPUs that sweep (none: the CPU), and Auto's reason when it chose PHAST
/// without a hierarchy given.
pub(super) struct PhastPlan<'a> {
    pub gpus: Vec<&'a GpuContext>,
    pub why: Option<String>,
}

/// Where PHAST runs when the method says PHAST, or `None` when the trees are computed one per source.
/// Auto prices the hierarchy once, here, and says why with the same threshold it decided by.
pub(super) fn phast_plan<'a>(
    graph: &Csr<u32>,
    sources: &[u32],
    opts: &ManyOptions<'a>,
) -> Option<PhastPlan<'a>> {
    use crate::auto::{HierarchyCost, phast_pays, phast_threshold};
    if opts.method == Method::Trees {
        return None;
    }
    // Looked up only now: resolving `Auto` may create the process's device.
    let gpus: Vec<&GpuContext> = devices_of(opts.backend, opts)
        .into_iter()
        // `Auto` never takes a software adapter (slower than the CPU); an explicit one is taken.
        .filter(|ctx| !ctx.is_software() || !matches!(opts.backend, Backend::Auto))
        .collect();
    if opts.method == Method::Phast {
        return Some(PhastPlan { gpus, why: None });
    }
    let threads = rayon::current_num_threads();
    let cost = HierarchyCost::of(graph, opts.hierarchy.is_some());
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
    Some(PhastPlan { gpus, why })
}

/// The GPUs a backend stands for: [`ManyOptions::devices`] when given, else the backend's one GPU
/// (none for the CPU).
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

/// Where the trees go after the automatic choice.
#[cfg_attr(not(feature = "gpu"), allow(dead_code))]
pub(super) enum Plan<'a> {
    Cpu,
    /// These GPUs (launch settings when already known), under this schedule.
    Gpu(Vec<(&'a GpuContext, Option<BatchConfig>)>, Schedule),
}

/// [`Schedule::Auto`]: time the first trees on the CPU (delivered as part of the result), then place
/// the rest by measured rates ([`crate::auto`]). Returns the plan and how many sources are done.
pub(super) fn auto_plan<'a>(
    graph: &Csr<u32>,
    sources: &[u32],
    backend: Backend<'a>,
    opts: &ManyOptions<'a>,
    out: &mut ManyStats,
    emit: &mut RowSink<'_>,
) -> Result<(Plan<'a>, usize), SsspError> {
    use crate::auto::MIN_CPU_SECONDS_FOR_GPU;
    let threads = rayon::current_num_threads();
    let probe = sources.len().min((threads * 4).clamp(8, CPU_BLOCK));
    let t = std::time::Instant::now();
    cpu_blocks(graph, &sources[..probe], out, emit)?;
    let cpu_rate = probe as f64 / t.elapsed().as_secs_f64().max(1e-9);
    let rest = sources.len() - probe;
    let cpu_seconds = rest as f64 / cpu_rate;
    let mut decision = AutoDecision {
        probe_trees: probe,
        cpu_trees_per_s: cpu_rate,
        gpu_trees_per_s: None,
        reason: String::new(),
    };
    let cpu = |decision: AutoDecision, out: &mut ManyStats| {
        out.decision = Some(decision);
        Ok((Plan::Cpu, probe))
    };
    if rest == 0 {
        decision.reason = "every source was computed while timing the CPU".into();
        return cpu(decision, out);
    }
    let software =
        |ctx: &GpuContext| format!("`{}` is a software adapter: slower than the CPU", ctx.info.name);
    if let Some(ctx) = opts.devices.iter().find(|c| c.is_software()) {
        decision.reason = software(ctx);
        return cpu(decision, out);
    }
    if let Backend::Gpu(ctx) = backend
        && ctx.is_software()
        && opts.devices.is_empty()
    {
        decision.reason = software(ctx);
        return cpu(decision, out);
    }
    if cpu_seconds < MIN_CPU_SECONDS_FOR_GPU {
        decision.reason = format!(
            "the CPU needs about {cpu_seconds:.2} s for the rest: too little for a GPU's fixed costs to pay off"
        );
        return cpu(decision, out);
    }
    if matches!(backend, Backend::Auto)
        && opts.devices.is_empty()
        && gpu_runtime::context::auto_adapter().chosen.is_none()
    {
        decision.reason = gpu_runtime::context::auto_adapter().reason.clone();
        return cpu(decision, out);
    }
    let gpus = devices_of(backend, opts);
    if gpus.is_empty() {
        decision.reason = "no GPU could be opened".into();
        return cpu(decision, out);
    }
    if let Some(ctx) = gpus.iter().find(|c| c.is_software()) {
        decision.reason = software(ctx);
        return cpu(decision, out);
    }
    #[cfg(feature = "gpu")]
    return measure_and_place(graph, rest, gpus, cpu_rate, probe, opts, out, decision);
    #[cfg(not(feature = "gpu"))]
    match gpus.first() {
        Some(ctx) => ctx.unbuilt(),
        None => cpu(decision, out),
    }
}

/// The GPUs' rates measured (launch settings tuned) and the trees placed on the GPUs, the CPU or both.
#[cfg(feature = "gpu")]
#[allow(clippy::too_many_arguments)]
fn measure_and_place<'a>(
    graph: &Csr<u32>,
    rest: usize,
    gpus: Vec<&'a GpuContext>,
    cpu_rate: f64,
    probe: usize,
    opts: &ManyOptions<'a>,
    out: &mut ManyStats,
    mut decision: AutoDecision,
) -> Result<(Plan<'a>, usize), SsspError> {
    use crate::auto::{Placement, place};
    let mut placed = Vec::with_capacity(gpus.len());
    // The GPUs' combined rate; unknown when any of them could not be measured.
    let mut gpu_rate = Some(0.0);
    let mut first_rate = None;
    for ctx in gpus {
        // A short job stays on the first GPU: each further device's set-up would cost more than it
        // saves (crate::auto::MIN_GPU_SECONDS_FOR_MORE_GPUS).
        if let Some(r) = first_rate
            && (rest as f64) / r < crate::auto::MIN_GPU_SECONDS_FOR_MORE_GPUS
        {
            break;
        }
        match opts.gpu {
            // Caller-given settings: nothing is measured, so there is no GPU rate to weigh the CPU
            // threads against; the caller chose these GPUs, which run alone.
            Some(c) => {
                placed.push((ctx, Some(c)));
                gpu_rate = None;
            }
            None => {
                let tuned = crate::tuning::tune_for(ctx, graph, rest)?;
                out.tune_s += tuned.tune_s;
                placed.push((ctx, Some(tuned.config)));
                if first_rate.is_none() {
                    first_rate = tuned.trees_per_s;
                }
                gpu_rate = match (gpu_rate, tuned.trees_per_s) {
                    (Some(a), Some(b)) => Some(a + b),
                    _ => None,
                };
            }
        }
    }
    decision.gpu_trees_per_s = gpu_rate;
    let placement = if opts.gpu.is_some() { Placement::Gpu } else { place(cpu_rate, gpu_rate) };
    let which = if placed.len() == 1 { "GPU".to_string() } else { format!("{} GPUs", placed.len()) };
    decision.reason = match (placement, gpu_rate) {
        (_, None) if opts.gpu.is_some() => format!("launch settings were given: the {which} run alone"),
        (_, None) => "the GPU could not be measured: the CPU runs".into(),
        (Placement::Cpu, Some(g)) => format!("{which} {g:.0} trees/s is not faster than CPU {cpu_rate:.0}"),
        (Placement::Gpu, Some(g)) => format!(
            "{which} {g:.0} trees/s; the CPU's {cpu_rate:.0} adds less than {:.0}% of that",
            crate::auto::WORK_QUEUE_MIN_CPU_SHARE * 100.0
        ),
        (Placement::Both, Some(g)) => {
            format!("{which} {g:.0} trees/s and CPU {cpu_rate:.0} together (work queue)")
        }
    };
    out.decision = Some(decision);
    Ok(match placement {
        Placement::Cpu => (Plan::Cpu, probe),
        Placement::Gpu => (Plan::Gpu(placed, Schedule::Single), probe),
        Placement::Both => (Plan::Gpu(placed, Schedule::WorkQueue), probe),
    })
}
