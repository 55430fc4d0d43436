//! Where the trees of an accessibility run are computed and reduced, and how Auto chooses: from rates
//! measured on this machine during the run itself (the measured sources are part of the answer).
//!
//! - [`Engine::Search`]: bounded Dijkstra per source (CPU). Costs the vertices within the largest
//!   cutoff: fastest when the cutoffs reach a small part of the graph.
//! - [`Engine::Sweep`]: PHAST sweeps of a hierarchy (CPU), the whole graph per 16 sources.
//! - [`Engine::Gpu`]: PHAST passes on a GPU, the trees reduced on the device.
//!
//! Auto first runs bounded searches on a sample of the sources and times them. When the rest would
//! take the searches less than [`SEARCH_ONLY_SECONDS`], they do it: no hierarchy is built. Otherwise
//! the hierarchy is built (or loaded from the cache), the CPU sweep is timed on the next block, and
//! the GPU — when the backend offers one — on the block after; the rest goes to the fastest measured
//! rate. The reason, with the rates, is in [`AccessStats::why`].

use std::time::Instant;

use algos_sssp::ch::ContractionHierarchy;
use gpu_runtime::{Backend, Resolved};
use graph_core::Csr;

use crate::error::AccessError;
use crate::reducer::Reducer;
use crate::reduction::{Cell, Reduction};

/// When the bounded searches would finish the remaining sources in less than this (estimated from the
/// sample), Auto lets them: a hierarchy costs about a second on a city (NY from the cache: 0.7 s).
pub const SEARCH_ONLY_SECONDS: f64 = 1.0;

/// Which engine computes and reduces the trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// Measured on this run: see the module description.
    #[default]
    Auto,
    /// Bounded Dijkstra per source, on all CPU cores.
    Search,
    /// PHAST sweeps of a hierarchy, on all CPU cores.
    Sweep,
    /// PHAST passes on the GPU, reduced on the device.
    Gpu,
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Engine::Auto => "auto",
            Engine::Search => "search",
            Engine::Sweep => "sweep",
            Engine::Gpu => "gpu",
        })
    }
}

impl std::str::FromStr for Engine {
    type Err = AccessError;
    fn from_str(s: &str) -> Result<Self, AccessError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Engine::Auto),
            "search" | "dijkstra" => Ok(Engine::Search),
            "sweep" | "phast" | "cpu-phast" => Ok(Engine::Sweep),
            "gpu" => Ok(Engine::Gpu),
            other => Err(AccessError::InvalidParameter(format!(
                "engine `{other}`: expected auto, search, sweep or gpu"
            ))),
        }
    }
}

/// How a run went: what ran, why, and where the time went.
#[derive(Debug, Clone, Default)]
pub struct AccessStats {
    /// The engine that computed the remaining sources (after Auto's samples).
    pub engine: Engine,
    /// Why, with the measured rates.
    pub why: String,
    /// The hierarchy used (`given`, `cch, loaded from …`), empty when none was needed.
    pub hierarchy: String,
    /// The GPU used, if any.
    pub device: Option<String>,
    /// Building or loading the hierarchy, seconds.
    pub preprocess_s: f64,
    /// GPU setup (the DAG's upload, pipelines, buffers), seconds.
    pub setup_s: f64,
    /// Trees and their reduction, seconds (the samples included).
    pub solve_s: f64,
    /// Sources done by each engine: search, sweep, GPU.
    pub sources_by_engine: [usize; 3],
}

/// Progress and cancellation: called with (sources done, sources asked); returning `false` stops the
/// run with [`AccessError::Cancelled`].
pub type Progress<'a> = &'a (dyn Fn(usize, usize) -> bool + Sync);

/// The driver's state: sources, their cells, how far it got.
pub(crate) struct Run<'r> {
    pub sources: &'r [u32],
    pub cells: &'r mut [Cell],
    pub nc: usize,
    pub done: usize,
    pub progress: Option<Progress<'r>>,
}

impl Run<'_> {
    /// Runs `reducer` on up to `limit` of the remaining sources (all of them when `None`), block by
    /// block; returns the sources done and the seconds it took.
    pub fn advance(
        &mut self,
        reducer: &mut dyn Reducer,
        limit: Option<usize>,
    ) -> Result<(usize, f64), AccessError> {
        let t = Instant::now();
        let total = self.sources.len();
        let end = limit.map_or(total, |l| (self.done + l).min(total));
        let start = self.done;
        while self.done < end {
            let b = reducer.block().max(1).min(end - self.done);
            let (a, z) = (self.done, self.done + b);
            reducer.reduce(&self.sources[a..z], &mut self.cells[a * self.nc..z * self.nc])?;
            self.done = z;
            if let Some(p) = self.progress {
                if !p(self.done, total) {
                    return Err(AccessError::Cancelled { done: self.done, total });
                }
            }
        }
        Ok((self.done - start, t.elapsed().as_secs_f64()))
    }

    pub fn remaining(&self) -> usize {
        self.sources.len() - self.done
    }
}

/// The hierarchy a sweep needs: the given one, else a customisable one (its order from the cache).
pub(crate) fn hierarchy<'h>(
    graph: &Csr<u32>,
    given: Option<&'h ContractionHierarchy>,
    stats: &mut AccessStats,
) -> Result<std::borrow::Cow<'h, ContractionHierarchy>, AccessError> {
    if let Some(ch) = given {
        if ch.num_vertices() != graph.num_vertices() {
            return Err(AccessError::InvalidParameter(format!(
                "the hierarchy has {} vertices, the graph {}",
                ch.num_vertices(),
                graph.num_vertices()
            )));
        }
        stats.hierarchy = "given".into();
        return Ok(std::borrow::Cow::Borrowed(ch));
    }
    let t = Instant::now();
    let (cch, used) = algos_sssp::cch::Cch::build_cached(graph)?;
    let ch = cch.customise(graph.weights())?;
    stats.preprocess_s += t.elapsed().as_secs_f64();
    stats.hierarchy = format!("cch, order {used}");
    Ok(std::borrow::Cow::Owned(ch))
}

/// The GPU the backend offers, if any.
pub(crate) fn gpu_of(backend: Backend<'_>) -> Option<&gpu_runtime::GpuContext> {
    match backend.resolve() {
        Resolved::Gpu(ctx) => Some(ctx),
        Resolved::Cpu => None,
    }
}

/// Runs `engine` over every source of `run`.
pub(crate) fn drive(
    graph: &Csr<u32>,
    reduction: &Reduction<'_>,
    engine: Engine,
    backend: Backend<'_>,
    given: Option<&ContractionHierarchy>,
    run: &mut Run<'_>,
) -> Result<AccessStats, AccessError> {
    let mut stats = AccessStats { engine, ..Default::default() };
    let t = Instant::now();
    let mut search = crate::search::SearchReducer { graph, reduction };
    match engine {
        Engine::Search => {
            stats.why = "asked for".into();
            run.advance(&mut search, None)?;
            stats.sources_by_engine[0] = run.sources.len();
        }
        Engine::Sweep => {
            stats.why = "asked for".into();
            let ch = hierarchy(graph, given, &mut stats)?;
            let t = Instant::now();
            run.advance(&mut crate::sweep::SweepReducer::new(&ch, reduction), None)?;
            stats.solve_s = t.elapsed().as_secs_f64();
            stats.sources_by_engine[1] = run.sources.len();
            return Ok(stats);
        }
        Engine::Gpu => {
            stats.why = "asked for".into();
            gpu_all(graph, reduction, backend, given, run, &mut stats)?;
            return Ok(stats);
        }
        Engine::Auto => auto(graph, reduction, backend, given, run, &mut stats)?,
    }
    stats.solve_s = t.elapsed().as_secs_f64() - stats.preprocess_s - stats.setup_s;
    Ok(stats)
}

#[cfg(feature = "gpu")]
fn gpu_all(
    graph: &Csr<u32>,
    reduction: &Reduction<'_>,
    backend: Backend<'_>,
    given: Option<&ContractionHierarchy>,
    run: &mut Run<'_>,
    stats: &mut AccessStats,
) -> Result<(), AccessError> {
    let Some(ctx) = gpu_of(backend) else {
        return Err(AccessError::InvalidParameter(
            "the GPU engine was asked for, but the backend offers no GPU (Backend::Cpu, or no hardware adapter for Auto)"
                .into(),
        ));
    };
    let ch = hierarchy(graph, given, stats)?;
    let t = Instant::now();
    let mut gpu = crate::gpu::GpuReducer::new(ctx, &ch, reduction)?;
    stats.setup_s = t.elapsed().as_secs_f64();
    stats.device = Some(ctx.info.name.clone());
    let t = Instant::now();
    run.advance(&mut gpu, None)?;
    stats.solve_s = t.elapsed().as_secs_f64();
    stats.sources_by_engine[2] = run.sources.len();
    Ok(())
}

#[cfg(not(feature = "gpu"))]
fn gpu_all(
    _: &Csr<u32>,
    _: &Reduction<'_>,
    _: Backend<'_>,
    _: Option<&ContractionHierarchy>,
    _: &mut Run<'_>,
    _: &mut AccessStats,
) -> Result<(), AccessError> {
    Err(AccessError::InvalidParameter("the GPU engine needs urbanflow's `gpu` feature".into()))
}

/// Auto: see the module description.
fn auto(
    graph: &Csr<u32>,
    reduction: &Reduction<'_>,
    backend: Backend<'_>,
    given: Option<&ContractionHierarchy>,
    run: &mut Run<'_>,
    stats: &mut AccessStats,
) -> Result<(), AccessError> {
    let threads = rayon::current_num_threads();
    let mut search = crate::search::SearchReducer { graph, reduction };
    let sample = (8 * threads).max(16);
    let (did, secs) = run.advance(&mut search, Some(sample))?;
    stats.sources_by_engine[0] += did;
    let search_rate = did as f64 / secs.max(1e-9);
    let left = run.remaining() as f64 / search_rate;
    if left < SEARCH_ONLY_SECONDS {
        stats.engine = Engine::Search;
        stats.why = format!(
            "bounded searches: {search_rate:.0} sources/s measured on {did}, the remaining {} estimated at {left:.2} s (under {SEARCH_ONLY_SECONDS} s: no hierarchy built)",
            run.remaining()
        );
        let (d, _) = run.advance(&mut search, None)?;
        stats.sources_by_engine[0] += d;
        return Ok(());
    }
    let ch = hierarchy(graph, given, stats)?;
    let mut sweep = crate::sweep::SweepReducer::new(&ch, reduction);
    let first = sweep.block();
    let (did, secs) = run.advance(&mut sweep, Some(first))?;
    stats.sources_by_engine[1] += did;
    let sweep_rate = did as f64 / secs.max(1e-9);
    let mut rates = format!("searches {search_rate:.0}/s, CPU sweeps {sweep_rate:.0}/s");
    #[cfg(feature = "gpu")]
    if let Some(ctx) = gpu_of(backend).filter(|_| run.remaining() > 0) {
        let t = Instant::now();
        let mut gpu = crate::gpu::GpuReducer::new(ctx, &ch, reduction)?;
        stats.setup_s = t.elapsed().as_secs_f64();
        let first = 2 * gpu.lanes();
        let (did, secs) = run.advance(&mut gpu, Some(first))?;
        stats.sources_by_engine[2] += did;
        let gpu_rate = did as f64 / secs.max(1e-9);
        rates += &format!(", GPU ({}) {gpu_rate:.0}/s", ctx.info.name);
        stats.device = Some(ctx.info.name.clone());
        if gpu_rate > search_rate.max(sweep_rate) {
            stats.engine = Engine::Gpu;
            stats.why = format!("the GPU measured fastest: {rates}");
            let (d, _) = run.advance(&mut gpu, None)?;
            stats.sources_by_engine[2] += d;
            return Ok(());
        }
    }
    #[cfg(not(feature = "gpu"))]
    let _ = backend;
    if sweep_rate >= search_rate {
        stats.engine = Engine::Sweep;
        stats.why = format!("CPU sweeps measured fastest: {rates}");
        let (d, _) = run.advance(&mut sweep, None)?;
        stats.sources_by_engine[1] += d;
    } else {
        stats.engine = Engine::Search;
        stats.why = format!("bounded searches measured fastest: {rates}");
        let (d, _) = run.advance(&mut search, None)?;
        stats.sources_by_engine[0] += d;
    }
    Ok(())
}
