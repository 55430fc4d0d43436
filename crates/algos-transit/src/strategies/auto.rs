//! Where optimal strategies run: [`assign_on`] a [`Backend`], and under [`Backend::Auto`] the CPU's
//! label setting or the GPU's batches ([`super::gpu`]), whichever this machine's measured profiles
//! ([`gpu_runtime::profile`]) predict faster, never from an adapter's name. A close call keeps the
//! CPU.
//!
//! The models were fitted on the one-GPU H200 host (16 threads; docs/benchmarks.md, "Transit
//! assignment on the GPU"): the CPU costs a fixed time per destination and edge; the GPU, after its
//! start and the graph's upload, costs per destination and edge in bytes of device bandwidth (each
//! sweep of a destination reads its rows), plus one submission and one read of the volumes per batch.
//!
//! ```
//! use urbanflow::gpu::profile::{CpuProfile, DeviceProfile};
//! use urbanflow::transit::strategies::auto::{predict_cpu, predict_gpu};
//! let (cpu, gpu) = (CpuProfile::synthetic(16), DeviceProfile::synthetic_discrete());
//! // A small city: the CPU answers before a device starts.
//! assert!(predict_cpu(900, 12_864, &cpu).seconds < predict_gpu(900, 12_864, 4_108, 900, &gpu, false).seconds);
//! ```

use gpu_runtime::predict::{Choice, Estimate};
use gpu_runtime::profile::{CpuProfile, DeviceProfile};
use gpu_runtime::{Backend, GpuContext};

use super::gpu::{GpuStrategyConfig, assign_gpu_with};
use super::{HyperpathGraph, StrategyAssignment, StrategyOptions, TransitDemand, Zones, assign};
use crate::TdError;

/// CPU seconds per destination and edge, all threads of the fit host (the grid city, 900 destinations
/// × 12,864 edges: 0.095 s on 16 threads), scaled by [`CpuProfile::slowdown`].
pub const CPU_S_PER_DEST_EDGE: f64 = 8.2e-9;
/// Device bytes per destination and edge: the sweeps' reads of labels and shares (fit host).
pub const GPU_BYTES_PER_DEST_EDGE: f64 = 2_000.0;
/// Pipelines the GPU path compiles.
const PIPELINES: u32 = 4;

/// The CPU's predicted seconds for `destinations` over a graph of `edges`.
pub fn predict_cpu(destinations: usize, edges: usize, cpu: &CpuProfile) -> Estimate {
    let s = CPU_S_PER_DEST_EDGE * destinations as f64 * edges as f64 * cpu.slowdown();
    Estimate::new(s, format!("{destinations} destinations × {edges} edges on {} threads", cpu.threads))
}

/// The GPU's predicted seconds for `destinations` over a graph of `edges` and `vertices`, in batches
/// of `batch`, its start included unless `warm`.
pub fn predict_gpu(
    destinations: usize,
    edges: usize,
    vertices: usize,
    batch: usize,
    d: &DeviceProfile,
    warm: bool,
) -> Estimate {
    let start = d.start_s(warm, PIPELINES);
    let up = d.upload_s((32 * edges + 8 * vertices) as f64);
    let kernel = GPU_BYTES_PER_DEST_EDGE * destinations as f64 * edges as f64 / d.device_bytes_per_s;
    let batches = destinations.div_ceil(batch.max(1)) as f64;
    let down = batches * (d.submit_s + d.download_s(8.0 * edges as f64));
    Estimate::new(
        start + up + kernel + down,
        format!(
            "{start:.2} s start + upload {up:.3} s + sweeps {kernel:.3} s + {batches:.0} batches back {down:.3} s"
        ),
    )
}

/// Auto's choice for `demand` on `g` on this machine, with both predictions.
pub fn choose(g: &HyperpathGraph, demand: &TransitDemand) -> Choice {
    let cpu = gpu_runtime::profile::cpu_profile(rayon::current_num_threads());
    let destinations = destinations(demand);
    let (m, n) = (g.num_edges(), g.num_vertices() as usize);
    gpu_runtime::predict::auto_choice(predict_cpu(destinations, m, &cpu), |d, warm| {
        // The batch the device would take: as many as 1 GiB of rows allows, at most 4,096.
        let batch = ((1usize << 30) / (32 * n.max(1) + 8 * m.max(1))).clamp(1, 4096);
        predict_gpu(destinations, m, n, batch, d, warm)
    })
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
        Backend::Auto => {
            let choice = choose(g, demand);
            if !choice.gpu_clearly() {
                return on_cpu(choice.why);
            }
            match GpuContext::auto() {
                Some(ctx) if ctx.features().f64 => on_gpu(ctx, choice.why),
                Some(ctx) => on_cpu(format!("{}; but `{}` has no 64-bit floats", choice.why, ctx.info.name)),
                None => on_cpu(format!("{}; but the GPU could not be opened", choice.why)),
            }
        }
    }
}
