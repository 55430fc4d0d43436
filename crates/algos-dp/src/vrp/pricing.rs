//! Pricing engines for column generation: the [`Pricer`] trait, the CPU's DPs ([`CpuPricer`]), the GPU
//! engines, and the automatic choice between them ([`pricer`]).

use gpu_runtime::GpuContext;

use super::colgen::{BoundOptions, Relaxation};
use super::{ArcCosts, Cvrp, DpError, GpuNgPricer, GpuQPaths, NgSets, Route, ng_paths_dominated, q_paths};

/// The result of one pricing call.
#[derive(Debug, Clone, PartialEq)]
pub struct Priced {
    /// The cheapest routes below the threshold, cheapest first.
    pub routes: Vec<Route>,
    /// `min over (q, i) of (f(q, i) + a_i0) / q`, the least reduced cost per unit of load (`+∞` when
    /// no route exists): the certified bound of column generation needs it.
    pub min_ratio: f64,
}

/// `min over (q, i) of (value(q, i) + a_i0) / q`: the least reduced cost per unit of load.
pub(crate) fn min_ratio(inst: &Cvrp, arcs: &ArcCosts, value: impl Fn(u32, usize) -> f64) -> f64 {
    let mut out = f64::INFINITY;
    for q in 1..=inst.capacity() {
        for i in 1..=inst.customers() {
            let v = value(q, i);
            if v.is_finite() {
                out = out.min((v + arcs.get(i, 0)) / q as f64);
            }
        }
    }
    out
}

/// A pricing engine: the relaxation's cheapest routes under reduced arc costs. Column generation
/// ([`root_bound_with`](super::root_bound_with)) takes any; the CPU's ([`CpuPricer`]) and the GPU's give the same routes.
pub trait Pricer {
    /// Up to `k` cheapest routes under `arcs` (cheapest first, one per load and last customer) and the
    /// least cost per unit of load over all routes of the relaxation.
    fn price(&mut self, arcs: &ArcCosts, k: usize) -> Result<Priced, DpError>;
}

/// The CPU's DPs: q-paths, or ng-paths with subset dominance (rayon within a stage when `parallel`).
#[derive(Debug, Clone)]
pub struct CpuPricer<'a> {
    inst: &'a Cvrp,
    ng: Option<NgSets>,
    parallel: bool,
    max_states: usize,
}

impl<'a> CpuPricer<'a> {
    /// The pricer of `relaxation` on `inst`; ng labels beyond `max_states` are an error.
    pub fn new(
        inst: &'a Cvrp,
        relaxation: Relaxation,
        parallel: bool,
        max_states: usize,
    ) -> Result<Self, DpError> {
        let ng = match relaxation {
            Relaxation::NgRoute { delta } => Some(NgSets::nearest(inst, delta.min(inst.customers()))?),
            Relaxation::QRoute => None,
        };
        Ok(Self { inst, ng, parallel, max_states })
    }
}

impl Pricer for CpuPricer<'_> {
    fn price(&mut self, arcs: &ArcCosts, k: usize) -> Result<Priced, DpError> {
        let inst = self.inst;
        Ok(match &self.ng {
            None => {
                let t = q_paths(inst, arcs, self.parallel);
                Priced {
                    routes: t.best_routes(inst, arcs, k, f64::INFINITY),
                    min_ratio: min_ratio(inst, arcs, |q, i| t.value(q, i)),
                }
            }
            Some(ng) => {
                let t = ng_paths_dominated(inst, arcs, ng, self.parallel, self.max_states)?;
                Priced {
                    routes: t.best_routes(inst, arcs, k, f64::INFINITY),
                    min_ratio: min_ratio(inst, arcs, |q, i| t.value(q, i)),
                }
            }
        })
    }
}

impl Pricer for GpuNgPricer<'_> {
    fn price(&mut self, arcs: &ArcCosts, k: usize) -> Result<Priced, DpError> {
        GpuNgPricer::price(self, arcs, k, f64::INFINITY)
    }
}

impl Pricer for GpuQPaths<'_> {
    fn price(&mut self, arcs: &ArcCosts, k: usize) -> Result<Priced, DpError> {
        GpuQPaths::price(self, arcs, k, f64::INFINITY)
    }
}

/// Where pricing runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PricingBackend {
    /// The CPU's DPs (rayon when the options say parallel).
    Cpu,
    /// The GPU (the process-wide adapter, software ones included): an error when there is none or it
    /// lacks 64-bit floats.
    Gpu,
    /// The GPU where it was measured faster than a 16-core CPU ([`gpu_pays`]) and a
    /// hardware adapter with 64-bit floats exists; the CPU otherwise, and whenever the GPU engine cannot
    /// be built (its tables beyond the device's limits).
    Auto,
}

/// Whether the GPU engine beats the CPU's DP on `inst`: ng-routes with Δ ≤ 8 and Q · n ≥ 20,000,
/// q-routes with Q · n ≥ 80,000. Measured inside column generation on the H100 host against its 16
/// cores (docs/benchmarks.md, issue 18), pricing time per round — ng(8): X-n101-k25 (Q · n = 20,600)
/// 11.8 ms against 16.1, X-n200-k36 33.9 against 72.5, X-n162-k11 (Q = 1174) 81.5 against 346;
/// q-routes: X-n200-k36 (79,998) 12.2 against 22.7, X-n401-k29 69 against 86. Smaller instances were
/// not measured and stay on the CPU, where a DP call takes microseconds to milliseconds; so does
/// Δ > 8, where the dense tables double per step of Δ (at Δ = 10 the CPU was faster on X-n101-k25 and
/// X-n200-k36).
pub fn gpu_pays(inst: &Cvrp, relaxation: Relaxation) -> bool {
    let size = inst.capacity() as u64 * inst.customers() as u64;
    match relaxation {
        Relaxation::NgRoute { delta } => delta <= 8 && size >= 20_000,
        Relaxation::QRoute => size >= 79_000,
    }
}

/// The pricing engine `backend` names for `opts.relaxation` on `inst`, and a line saying which it is.
pub fn pricer<'a>(
    inst: &'a Cvrp,
    opts: &BoundOptions,
    backend: PricingBackend,
) -> Result<(Box<dyn Pricer + 'a>, String), DpError> {
    let cpu = |why: &str| -> Result<(Box<dyn Pricer + 'a>, String), DpError> {
        let threads = if opts.parallel { rayon::current_num_threads() } else { 1 };
        let p = CpuPricer::new(inst, opts.relaxation, opts.parallel, opts.max_states)?;
        Ok((Box::new(p), format!("cpu ({threads} threads){why}")))
    };
    let gpu = |ctx: &'static GpuContext| -> Result<(Box<dyn Pricer + 'a>, String), DpError> {
        let name = ctx.info.name.clone();
        Ok(match opts.relaxation {
            Relaxation::NgRoute { delta } => {
                let ng = NgSets::nearest(inst, delta.min(inst.customers()))?;
                (Box::new(GpuNgPricer::new(ctx, inst, &ng)?), format!("gpu ({name})"))
            }
            Relaxation::QRoute => (Box::new(GpuQPaths::new(ctx, inst)?), format!("gpu ({name})")),
        })
    };
    match backend {
        PricingBackend::Cpu => cpu(""),
        PricingBackend::Gpu => {
            let ctx = GpuContext::shared().ok_or_else(|| {
                DpError::Gpu(gpu_runtime::GpuError::NoAdapter("no GPU adapter for --backend gpu".into()))
            })?;
            gpu(ctx)
        }
        PricingBackend::Auto => match GpuContext::auto() {
            Some(ctx) if ctx.features().f64 && gpu_pays(inst, opts.relaxation) => match gpu(ctx) {
                Ok(p) => Ok(p),
                Err(e) => cpu(&format!(", the GPU engine could not be built: {e}")),
            },
            _ => cpu(""),
        },
    }
}
