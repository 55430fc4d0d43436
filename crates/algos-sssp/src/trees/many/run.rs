//! Executing a [`Plan`]: the sources it left, on the method and devices it names. Nothing here
//! decides or measures; the work itself is in `schedule` (CPU), `gpu_schedule` (GPUs, with or without
//! CPU threads) and `phast`.

#[cfg(feature = "gpu")]
use gpu_runtime::GpuContext;
use graph_core::Csr;

use super::phast::run_phast;
use super::plan::{Placement, Plan};
use super::schedule::cpu_blocks;
use super::{ManyStats, Method, RowSink, Schedule, SharedSink, TreeBlock, check, deliver};
use crate::error::SsspError;
#[cfg(feature = "gpu")]
use crate::gpu::BatchConfig;

impl Plan<'_> {
    /// Computes the trees of the sources the plan left (all but the first [`Plan::done`]), handed to
    /// `sink` block by block as [`many_to_all_with`](super::many_to_all_with) hands them, and returns
    /// the counters of the whole run (the measurement's included). `sources` must be the list planned
    /// for.
    pub fn run(
        &self,
        graph: &Csr<u32>,
        sources: &[u32],
        mut sink: impl FnMut(TreeBlock<'_>),
    ) -> Result<ManyStats, SsspError> {
        check(graph, sources)?;
        let predecessors = self.opts.predecessors;
        let mut emit = |first: usize, block: &[u32], dist: &[u32]| {
            deliver(graph, predecessors, first, block, dist, &mut sink)
        };
        self.execute(graph, sources, &mut emit, None)
    }

    /// [`Plan::run`] with a sink every worker may call at once, as
    /// [`many_to_all_shared`](super::many_to_all_shared) has.
    pub fn run_shared(
        &self,
        graph: &Csr<u32>,
        sources: &[u32],
        sink: impl Fn(TreeBlock<'_>) + Sync,
    ) -> Result<ManyStats, SsspError> {
        check(graph, sources)?;
        let predecessors = self.opts.predecessors;
        let shared = |first: usize, block: &[u32], dist: &[u32]| {
            deliver(graph, predecessors, first, block, dist, &sink)
        };
        let mut emit = |first: usize, block: &[u32], dist: &[u32]| shared(first, block, dist);
        self.execute(graph, sources, &mut emit, Some(&shared))
    }

    /// Whether the run is one Dijkstra tree per source on the CPU's threads (which can grow its trees
    /// in the caller's rows: [`many_to_all_into`](super::many_to_all_into)).
    pub(super) fn is_cpu_trees(&self) -> bool {
        self.method == Method::Trees && matches!(self.placement, Placement::Cpu)
    }

    /// The run behind both: `emit` runs on the calling thread; `shared`, when given, may run on any
    /// worker's thread.
    pub(super) fn execute(
        &self,
        graph: &Csr<u32>,
        sources: &[u32],
        emit: &mut RowSink<'_>,
        shared: Option<&SharedSink<'_>>,
    ) -> Result<ManyStats, SsspError> {
        if sources.len() != self.sources {
            return Err(SsspError::InvalidParameter(format!(
                "a plan made for {} sources was run with {}",
                self.sources,
                sources.len()
            )));
        }
        let mut out = ManyStats { decision: self.decision.clone(), ..self.measured.clone() };
        let done = self.done;
        if self.method == Method::Phast {
            let gpus: Vec<_> = match &self.placement {
                Placement::Cpu => Vec::new(),
                Placement::Gpus { devices, .. } => devices.iter().map(|&(ctx, _)| ctx).collect(),
            };
            run_phast(graph, sources, &self.opts, &gpus, &mut out, emit, shared)?;
            return Ok(out);
        }
        let rest = &sources[done..];
        let mut emit_rest = |first: usize, block: &[u32], dist: &[u32]| emit(done + first, block, dist);
        match &self.placement {
            Placement::Cpu => {
                out.schedule = Schedule::Single;
                cpu_blocks(graph, rest, &mut out, &mut emit_rest)?;
            }
            #[cfg(feature = "gpu")]
            Placement::Gpus { devices, schedule } => {
                let shared = shared.map(|f| (f, done));
                run_on_gpus(graph, rest, devices, *schedule, &self.opts, &mut out, &mut emit_rest, shared)?;
            }
            #[cfg(not(feature = "gpu"))]
            Placement::Gpus { devices, .. } => {
                let _ = shared; // only the GPU schedules deliver on workers' threads
                match devices.first() {
                    Some((ctx, _)) => ctx.unbuilt(),
                    None => cpu_blocks(graph, rest, &mut out, &mut emit_rest)?,
                }
            }
        }
        Ok(out)
    }
}

/// [`Placement::Gpus`] for one tree per source: one GPU alone, or the heterogeneous scheduler over
/// several GPUs and CPU threads. A GPU without launch settings runs the portable defaults.
#[cfg(feature = "gpu")]
#[allow(clippy::too_many_arguments)]
fn run_on_gpus(
    graph: &Csr<u32>,
    rest: &[u32],
    devices: &[(&GpuContext, Option<BatchConfig>)],
    schedule: Schedule,
    opts: &super::ManyOptions<'_>,
    out: &mut ManyStats,
    emit_rest: &mut RowSink<'_>,
    shared: Option<(&SharedSink<'_>, usize)>,
) -> Result<(), SsspError> {
    use super::gpu_schedule::{gpu_solver, hetero};
    let configured: Vec<(&GpuContext, BatchConfig)> = devices
        .iter()
        .map(|&(ctx, config)| (ctx, config.unwrap_or_else(|| BatchConfig::for_graph(ctx, graph))))
        .collect();
    out.schedule = schedule;
    out.gpu_config = configured.first().map(|&(_, c)| c);
    out.gpu_trees_per_device = vec![0; configured.len()];
    if rest.is_empty() {
        return Ok(());
    }
    if schedule == Schedule::Single && configured.len() == 1 {
        let mut solver = gpu_solver(configured[0].0, graph, configured[0].1, rest.len())?;
        let stats = solver.for_each_block(rest, |first, block, dist| emit_rest(first, block, dist))?;
        out.stats.phases += stats.phases;
        out.stats.dispatches += stats.dispatches;
        out.stats.readbacks += stats.readbacks;
        out.gpu_trees += rest.len();
        out.gpu_trees_per_device[0] += rest.len();
    } else {
        let threads = match schedule {
            Schedule::Single => 0,
            _ => opts.cpu_threads.unwrap_or(rayon::current_num_threads().saturating_sub(1)).max(1),
        };
        hetero(graph, rest, &configured, schedule, threads, out, emit_rest, shared)?;
    }
    Ok(())
}
