//! Where optimal strategies run: [`assign_on`] a [`Backend`], and under [`Backend::Auto`] the CPU's
//! label setting or the GPU's batches ([`super::gpu`]), whichever this machine's measured profiles
//! ([`gpu_runtime::profile`]) predict faster, never from an adapter's name. A close call keeps the
//! CPU.
//!
//! The models were fitted on the one-GPU H200 host (16 threads; docs/benchmarks.md, "Transit
//! assignment on the GPU"), on the grid cities of 900 and 3,600 stops and NYC: the CPU costs a fixed
//! time per destination and edge; the GPU, after its start and the graph's upload, costs the host's
//! grouping of the demand (per OD pair), then per destination and edge in bytes of device bandwidth
//! (the sweeps read labels and shares), plus one submission and one read of the volumes per batch.
//!
//! ```
//! use urbanflow::gpu::profile::{CpuProfile, DeviceProfile};
//! use urbanflow::transit::strategies::auto::{Work, predict_cpu, predict_gpu};
//! let (cpu, gpu) = (CpuProfile::synthetic(16), DeviceProfile::synthetic_discrete());
//! // 900 stops: the CPU answers about when a device has started.
//! let city30 = Work { destinations: 900, pairs: 405_156, edges: 12_864, vertices: 4_108 };
//! assert!(predict_cpu(&city30, &cpu).seconds < predict_gpu(&city30, &cpu, &gpu, false).seconds);
//! // 3,600 stops: the GPU, by more than the models' margin.
//! let city60 = Work { destinations: 3_600, pairs: 648_219, edges: 52_992, vertices: 16_864 };
//! assert!(2.0 * predict_gpu(&city60, &cpu, &gpu, false).seconds < predict_cpu(&city60, &cpu).seconds);
//! ```

use gpu_runtime::predict::{Choice, Estimate};
use gpu_runtime::profile::{CpuProfile, DeviceProfile};
use gpu_runtime::{Backend, GpuContext};

use super::gpu::{GpuStrategyConfig, assign_congested_gpu, assign_gpu_with};
use super::{CongestedAssignment, CongestedIteration, CongestionOptions};
use super::{HyperpathGraph, StrategyAssignment, StrategyOptions, TransitDemand, Zones, assign};
use crate::TdError;

/// CPU seconds per destination and edge, all threads of the fit host (6.8–10 ns measured on the
/// three cases, 16 threads), scaled by [`CpuProfile::slowdown`].
pub const CPU_S_PER_DEST_EDGE: f64 = 7.5e-9;
/// Device bytes per destination and edge: the sweeps' reads of labels, frontiers and shares (fit
/// host: 1.7 ns per destination and edge at ~3·10¹² bytes a second).
pub const GPU_BYTES_PER_DEST_EDGE: f64 = 5_200.0;
/// Host seconds per OD pair of the GPU path's grouping and batching (fit host, 16 threads), scaled by
/// [`CpuProfile::slowdown`].
pub const HOST_S_PER_PAIR: f64 = 5e-8;
/// Bytes uploaded per OD pair (its origin entry).
const UPLOAD_BYTES_PER_PAIR: f64 = 24.0;
/// Pipelines the GPU path compiles.
const PIPELINES: u32 = 4;
/// Device bytes a destination holds ([`super::gpu::GpuStrategyConfig::for_graph`]): per vertex, two
/// f64 halves and five u32 rows; per edge, a share.
const BYTES_PER_DEST: (usize, usize) = (36, 8);

/// The size of an assignment, for the models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Work {
    /// Destination zones with demand.
    pub destinations: usize,
    /// OD pairs with demand.
    pub pairs: usize,
    /// Edges of the graph.
    pub edges: usize,
    /// Vertices of the graph.
    pub vertices: usize,
}

impl Work {
    /// The work of assigning `demand` on `g`.
    pub fn of(g: &HyperpathGraph, demand: &TransitDemand) -> Self {
        Self {
            destinations: destinations(demand),
            pairs: demand.num_pairs(),
            edges: g.num_edges(),
            vertices: g.num_vertices() as usize,
        }
    }

    fn dest_edges(&self) -> f64 {
        self.destinations as f64 * self.edges as f64
    }
}

/// The CPU's predicted seconds for `work`.
pub fn predict_cpu(work: &Work, cpu: &CpuProfile) -> Estimate {
    let s = CPU_S_PER_DEST_EDGE * work.dest_edges() * cpu.slowdown();
    Estimate::new(
        s,
        format!("{} destinations × {} edges on {} threads", work.destinations, work.edges, cpu.threads),
    )
}

/// The GPU `d`'s predicted seconds for `work`, its start included unless `warm`.
pub fn predict_gpu(work: &Work, cpu: &CpuProfile, d: &DeviceProfile, warm: bool) -> Estimate {
    let start = d.start_s(warm, PIPELINES);
    let host = HOST_S_PER_PAIR * work.pairs as f64 * cpu.slowdown();
    let up =
        d.upload_s((32 * work.edges + 8 * work.vertices) as f64 + UPLOAD_BYTES_PER_PAIR * work.pairs as f64);
    let kernel = GPU_BYTES_PER_DEST_EDGE * work.dest_edges() / d.device_bytes_per_s;
    // The batch the device takes: as many destinations as 1 GiB of rows holds, at most 4,096.
    let per_dest = BYTES_PER_DEST.0 * work.vertices.max(1) + BYTES_PER_DEST.1 * work.edges.max(1);
    let batch = ((1usize << 30) / per_dest).clamp(1, 4096);
    let batches = work.destinations.div_ceil(batch) as f64;
    let down = batches * (d.submit_s + d.download_s(8.0 * work.edges as f64));
    Estimate::new(
        start + host + up + kernel + down,
        format!(
            "{start:.2} s start + grouping {host:.3} s + upload {up:.3} s + sweeps {kernel:.3} s + {batches:.0} batches back {down:.3} s"
        ),
    )
}

/// Auto's choice for `demand` on `g` on this machine, with both predictions.
pub fn choose(g: &HyperpathGraph, demand: &TransitDemand) -> Choice {
    let cpu = gpu_runtime::profile::cpu_profile(rayon::current_num_threads());
    let work = Work::of(g, demand);
    gpu_runtime::predict::auto_choice(predict_cpu(&work, &cpu), |d, warm| predict_gpu(&work, &cpu, d, warm))
}

/// Auto's choice for a congested assignment of `demand` on `g`: each of its iterations is one
/// assignment, and on the GPU the start and the grouping of the demand are paid once. The iterations
/// are not known before the run: the prediction counts `iterations` (at most 10, fewer than any
/// congested run measured took).
pub fn choose_congested(g: &HyperpathGraph, demand: &TransitDemand, iterations: usize) -> Choice {
    let cpu = gpu_runtime::profile::cpu_profile(rayon::current_num_threads());
    let work = Work::of(g, demand);
    let runs = iterations.clamp(1, 10) as f64;
    let one = predict_cpu(&work, &cpu);
    let cpu_estimate = Estimate::new(runs * one.seconds, format!("{runs:.0} iterations of {}", one.terms));
    gpu_runtime::predict::auto_choice(cpu_estimate, |d, warm| {
        let first = predict_gpu(&work, &cpu, d, warm);
        let start = d.start_s(warm, PIPELINES + 1) + HOST_S_PER_PAIR * work.pairs as f64 * cpu.slowdown();
        let each = (first.seconds - d.start_s(warm, PIPELINES)).max(0.0)
            - HOST_S_PER_PAIR * work.pairs as f64 * cpu.slowdown();
        Estimate::new(
            start + runs * each.max(0.0),
            format!("{start:.2} s start and grouping + {runs:.0} iterations of {:.3} s", each.max(0.0)),
        )
    })
}

/// A congested assignment with where it ran and why.
#[derive(Debug, Clone)]
pub struct CongestedRun {
    /// The assignment.
    pub congested: CongestedAssignment,
    /// Where its iterations ran.
    pub backend: String,
    /// Why there.
    pub why: String,
}

/// [`assign_congested`](super::assign_congested) on `backend`: the CPU, a GPU
/// ([`super::gpu::assign_congested_gpu`]) or Auto's choice ([`choose_congested`]). Skims, when asked
/// for, are the CPU's at the final frequencies either way.
#[allow(clippy::too_many_arguments)]
pub fn assign_congested_on(
    backend: Backend<'_>,
    g: &HyperpathGraph,
    zones: &Zones,
    demand: &TransitDemand,
    capacity: &[f64],
    opts: &StrategyOptions,
    copts: &CongestionOptions,
    progress: &(dyn Fn(&CongestedIteration) + Sync),
) -> Result<CongestedRun, TdError> {
    let threads = rayon::current_num_threads();
    let on_cpu = |why: String| -> Result<CongestedRun, TdError> {
        let congested = super::assign_congested(g, zones, demand, capacity, opts, copts, progress)?;
        Ok(CongestedRun { congested, backend: format!("cpu ({threads} threads)"), why })
    };
    let on_gpu = |ctx: &GpuContext, why: String| -> Result<CongestedRun, TdError> {
        let congested = assign_congested_gpu(ctx, g, zones, demand, capacity, opts, copts, progress)?;
        Ok(CongestedRun { congested, backend: format!("gpu ({})", ctx.info.name), why })
    };
    match backend {
        Backend::Cpu => on_cpu("--backend cpu".into()),
        Backend::Gpu(ctx) => on_gpu(ctx, "--backend gpu".into()),
        Backend::Auto => match auto_device(choose_congested(g, demand, copts.max_iterations)) {
            Ok((ctx, why)) => on_gpu(ctx, why),
            Err(why) => on_cpu(why),
        },
    }
}

/// The device Auto's `choice` takes, with why; or why the CPU (the GPU not predicted clearly faster,
/// not opened, or without 64-bit floats). The device is opened only when the GPU is chosen.
fn auto_device(choice: Choice) -> Result<(&'static GpuContext, String), String> {
    if !choice.gpu_clearly() {
        return Err(choice.why);
    }
    match GpuContext::auto() {
        Some(ctx) if ctx.features().f64 => Ok((ctx, choice.why)),
        Some(ctx) => Err(format!("{}; but `{}` has no 64-bit floats", choice.why, ctx.info.name)),
        None => Err(format!("{}; but the GPU could not be opened", choice.why)),
    }
}

/// Destination zones with demand.
fn destinations(demand: &TransitDemand) -> usize {
    let mut d: Vec<u32> = demand.pairs.iter().filter(|p| p.0 != p.1).map(|p| p.1).collect();
    d.sort_unstable();
    d.dedup();
    d.len()
}

/// An assignment with where it ran and why.
#[derive(Debug, Clone)]
pub struct BackendRun {
    /// The assignment.
    pub assignment: StrategyAssignment,
    /// Where it ran: `cpu (16 threads)` or `gpu (adapter)`.
    pub backend: String,
    /// Why there.
    pub why: String,
}

/// [`assign`] on `backend`: the CPU, a GPU ([`super::gpu::assign_gpu`]; refuses skims), or Auto's
/// choice ([`choose`]; skims keep to the CPU).
///
/// ```
/// use urbanflow::gpu::Backend;
/// use urbanflow::transit::strategies::auto::assign_on;
/// use urbanflow::transit::strategies::{HyperpathGraph, StrategyOptions, TransitDemand, Zones};
/// let inf = f64::INFINITY;
/// let g = HyperpathGraph::from_edges(3, &[(0, 2, 0.0, 0.1), (2, 1, 15.0, inf)])?;
/// let zones = Zones::every_vertex(&g);
/// let demand = TransitDemand::new(&zones, [(0, 1, 30.0)])?;
/// let run = assign_on(Backend::Auto, &g, &zones, &demand, &StrategyOptions::default(), &|_, _| {})?;
/// assert!(run.backend.starts_with("cpu") && (run.assignment.volumes[1] - 30.0).abs() < 1e-9);
/// # Ok::<(), urbanflow::transit::TdError>(())
/// ```
pub fn assign_on(
    backend: Backend<'_>,
    g: &HyperpathGraph,
    zones: &Zones,
    demand: &TransitDemand,
    opts: &StrategyOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<BackendRun, TdError> {
    let threads = rayon::current_num_threads();
    let on_cpu = |why: String| -> Result<BackendRun, TdError> {
        let assignment = assign(g, zones, demand, opts, progress)?;
        Ok(BackendRun { assignment, backend: format!("cpu ({threads} threads)"), why })
    };
    let on_gpu = |ctx: &GpuContext, why: String| -> Result<BackendRun, TdError> {
        let config = GpuStrategyConfig::for_graph(ctx, g);
        let (assignment, sweeps) = assign_gpu_with(ctx, g, zones, demand, opts, config, progress)?;
        Ok(BackendRun {
            assignment,
            backend: format!("gpu ({})", ctx.info.name),
            why: format!("{why}; {sweeps}"),
        })
    };
    match backend {
        Backend::Cpu => on_cpu("--backend cpu".into()),
        Backend::Gpu(ctx) => on_gpu(ctx, "--backend gpu".into()),
        Backend::Auto if opts.skims => on_cpu("skims run on the CPU".into()),
        Backend::Auto => match auto_device(choose(g, demand)) {
            Ok((ctx, why)) => on_gpu(ctx, why),
            Err(why) => on_cpu(why),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_runtime::predict::{Verdict, choose};

    #[test]
    fn cities_on_synthetic_machines() {
        let cpu = CpuProfile::synthetic(16);
        let on = |w: &Work, d: &DeviceProfile| {
            choose(predict_cpu(w, &cpu), Ok(predict_gpu(w, &cpu, d, false))).verdict
        };
        // The fit: 3,600 stops measured 3.4-3.7x faster on the H200 (solve), 900 stops about even.
        let city60 = Work { destinations: 3_600, pairs: 648_219, edges: 52_992, vertices: 16_864 };
        let city30 = Work { destinations: 900, pairs: 405_156, edges: 12_864, vertices: 4_108 };
        assert_eq!(on(&city60, &DeviceProfile::synthetic_discrete()), Verdict::Gpu);
        assert_eq!(on(&city30, &DeviceProfile::synthetic_discrete()), Verdict::Cpu);
        // Shaders on the CPU never beat the CPU itself.
        assert_eq!(on(&city60, &DeviceProfile::synthetic_software()), Verdict::Cpu);
    }
}
