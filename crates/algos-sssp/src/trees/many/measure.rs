//! What a many-source run's plan is decided from, measured on this machine in named steps: the
//! backend's GPUs opened, the hierarchy's cache looked up, the CPU timed on the first trees (which are
//! delivered: nothing measured is thrown away), the GPUs' launch settings tuned. Each step runs only
//! when the options leave a choice that needs it.

use gpu_runtime::Backend;
use graph_core::Csr;

#[cfg(feature = "gpu")]
use super::measured::TunedGpu;
use super::measured::{CpuProbe, Measurements};
use super::plan::{cpu_after_opening, cpu_before_opening, devices_of, phast_choice};
use super::schedule::cpu_blocks;
use super::{CPU_BLOCK, ManyOptions, ManyStats, Method, RowSink, Schedule, TreeBlock, check, deliver};
use crate::auto::HierarchyCost;
use crate::error::SsspError;
use crate::gpu::BatchConfig;

/// Takes the measurements `opts` leave to be taken for these sources (see [`Measurements`]); trees
/// computed while timing the CPU go to `sink`, and the plan's run starts after them
/// ([`Plan::done`](super::Plan::done)).
pub fn measure<'a>(
    graph: &Csr<u32>,
    sources: &[u32],
    opts: &ManyOptions<'a>,
    mut sink: impl FnMut(TreeBlock<'_>),
) -> Result<Measurements<'a>, SsspError> {
    check(graph, sources)?;
    let mut emit = |first: usize, block: &[u32], dist: &[u32]| {
        deliver(graph, opts.predecessors, first, block, dist, &mut sink)
    };
    measure_with(graph, sources, opts, &mut emit)
}

/// [`measure`] with the rows' sink of the entry points.
pub(super) fn measure_with<'a>(
    graph: &Csr<u32>,
    sources: &[u32],
    opts: &ManyOptions<'a>,
    emit: &mut RowSink<'_>,
) -> Result<Measurements<'a>, SsspError> {
    let mut m = Measurements::default();
    if opts.method != Method::Trees {
        // Looked up only now: resolving `Auto` may create the process's device.
        m.devices = devices_of(opts.backend, opts);
        if opts.method == Method::Auto {
            m.hierarchy = Some(HierarchyCost::of(graph, opts.hierarchy.is_some()));
        }
        if phast_choice(graph, sources, opts, &m.devices, m.hierarchy).is_some() {
            return Ok(m);
        }
    }
    match (opts.backend, opts.schedule) {
        (Backend::Cpu, _) => m.devices.clear(),
        (backend, Schedule::Auto) => {
            let probe = probe_cpu(graph, sources, &mut m.stats, emit)?;
            m.probe = Some(probe);
            let rest = sources.len() - probe.trees;
            if cpu_before_opening(backend, opts, &probe, rest).is_some() {
                m.devices.clear();
                return Ok(m);
            }
            if opts.method == Method::Trees {
                m.devices = devices_of(backend, opts);
            }
            if cpu_after_opening(&m.devices).is_none() {
                tune_gpus(graph, &mut m, opts.gpu, rest, true)?;
            }
        }
        (backend, _) => {
            if opts.method == Method::Trees {
                m.devices = devices_of(backend, opts);
            }
            if opts.gpu.is_none() {
                tune_gpus(graph, &mut m, None, sources.len(), false)?;
            }
        }
    }
    Ok(m)
}

/// The automatic schedule's first step: the first sources' trees on all CPU threads, timed (and
/// delivered). A few blocks' worth: enough to time, little enough that a GPU still has the rest.
fn probe_cpu(
    graph: &Csr<u32>,
    sources: &[u32],
    stats: &mut ManyStats,
    emit: &mut RowSink<'_>,
) -> Result<CpuProbe, SsspError> {
    let threads = rayon::current_num_threads();
    let trees = sources.len().min((threads * 4).clamp(8, CPU_BLOCK));
    let t = std::time::Instant::now();
    cpu_blocks(graph, &sources[..trees], stats, emit)?;
    Ok(CpuProbe { trees, trees_per_s: trees as f64 / t.elapsed().as_secs_f64().max(1e-9) })
}

/// The launch settings of `m.devices` for a run of `sources` trees: the caller's `given` (nothing
/// measured), else tuned ([`crate::tuning::tune_for`]). With `first_decides`, a job the first GPU alone
/// finishes in under [`crate::auto::MIN_GPU_SECONDS_FOR_MORE_GPUS`] measures no other: their set-up
/// would cost more than they save.
#[cfg(feature = "gpu")]
fn tune_gpus<'a>(
    graph: &Csr<u32>,
    m: &mut Measurements<'a>,
    given: Option<BatchConfig>,
    sources: usize,
    first_decides: bool,
) -> Result<(), SsspError> {
    let mut first_rate = None;
    for &ctx in &m.devices {
        if first_decides
            && let Some(r) = first_rate
            && (sources as f64) / r < crate::auto::MIN_GPU_SECONDS_FOR_MORE_GPUS
        {
            break;
        }
        let tuned = match given {
            Some(config) => TunedGpu { device: ctx, config, trees_per_s: None },
            None => {
                let t = crate::tuning::tune_for(ctx, graph, sources)?;
                m.stats.tune_s += t.tune_s;
                if first_rate.is_none() {
                    first_rate = t.trees_per_s;
                }
                TunedGpu { device: ctx, config: t.config, trees_per_s: t.trees_per_s }
            }
        };
        m.gpus.push(tuned);
    }
    Ok(())
}

/// Without the `gpu` feature nothing can be tuned: a GPU named here fails when the plan runs.
#[cfg(not(feature = "gpu"))]
fn tune_gpus(
    _graph: &Csr<u32>,
    m: &mut Measurements<'_>,
    given: Option<BatchConfig>,
    _sources: usize,
    _first_decides: bool,
) -> Result<(), SsspError> {
    let _ = given;
    match m.devices.first() {
        Some(ctx) => ctx.unbuilt(),
        None => Ok(()),
    }
}
