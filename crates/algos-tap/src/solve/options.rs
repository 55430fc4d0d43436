//! What an assignment is asked: the method, the objective, the stop rule and every other option.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use gpu_runtime::Backend;

/// The assignment method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Algorithm {
    /// Method of successive averages: step `1/(k+1)`, no line search.
    Msa,
    /// Frank–Wolfe with an exact line search.
    FrankWolfe,
    /// Conjugate Frank–Wolfe.
    ConjugateFw,
    /// Bi-conjugate Frank–Wolfe (the default: the fastest of the family).
    #[default]
    BiconjugateFw,
    /// Algorithm B (Dial 2006): bush-based, converges to relative gaps of 1e-10 and below. User
    /// equilibrium, CPU, no warm start.
    AlgorithmB,
}

impl FromStr for Algorithm {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "msa" => Ok(Self::Msa),
            "fw" | "frank-wolfe" => Ok(Self::FrankWolfe),
            "cfw" => Ok(Self::ConjugateFw),
            "bfw" => Ok(Self::BiconjugateFw),
            "b" | "algorithm-b" => Ok(Self::AlgorithmB),
            other => Err(format!("unknown algorithm `{other}`: expected msa, fw, cfw, bfw or b")),
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Msa => "msa",
            Self::FrankWolfe => "fw",
            Self::ConjugateFw => "cfw",
            Self::BiconjugateFw => "bfw",
            Self::AlgorithmB => "b",
        })
    }
}

/// Which equilibrium to find.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Objective {
    /// Wardrop's first principle: used paths have equal, minimal cost (Beckmann's program).
    #[default]
    UserEquilibrium,
    /// Wardrop's second principle: total travel cost is minimal (loads on marginal costs).
    SystemOptimum,
}

/// When to stop.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stop {
    /// Target relative gap `(TSTT − SPTT) / TSTT`.
    pub relative_gap: f64,
    /// At most this many iterations (each one all-or-nothing loading).
    pub max_iterations: u32,
    /// At most this long.
    pub max_time: Option<Duration>,
    /// The gap must be below the target this many iterations in a row (conjugate methods' gaps are
    /// noisy).
    pub consecutive_below: u32,
}

impl Stop {
    /// The iteration cap of [`Stop::default`], the library's and the examples' (`--max-iters`) alike.
    pub const DEFAULT_MAX_ITERATIONS: u32 = 1_000;
}

impl Default for Stop {
    fn default() -> Self {
        Self {
            relative_gap: 1e-4,
            max_iterations: Self::DEFAULT_MAX_ITERATIONS,
            max_time: None,
            consecutive_below: 1,
        }
    }
}

/// How to assign.
#[derive(Debug, Clone)]
pub struct AssignOptions<'a> {
    /// The method.
    pub algorithm: Algorithm,
    /// User equilibrium or system optimum.
    pub objective: Objective,
    /// When to stop.
    pub stop: Stop,
    /// Let paths pass through zones below `<FIRST THRU NODE>` (false, the default, blocks them, as the
    /// published solutions do).
    pub allow_zone_transit: bool,
    /// Start from these link flows instead of all-or-nothing at free flow.
    pub warm_start: Option<Vec<f64>>,
    /// Select-link analysis: for these links (indices in the network's link order, at most
    /// [`crate::select::MAX_SELECTED`]), the flow of every OD pair that uses them, in
    /// [`Assignment::select_link`](super::Assignment::select_link). Frank–Wolfe family on the CPU loader, from a cold start.
    pub select_links: Vec<u32>,
    /// Where all-or-nothing loading runs: `Cpu` (f64 costs, rayon), `Gpu(&ctx)` (fixed-point costs, see
    /// [`crate::fixed`]; its gap floors near 1e-6), or `Auto` (the default: a GPU only where one was
    /// measured faster for a network this large, else the CPU; [`super::choose_loader`] says which and
    /// why).
    pub backend: Backend<'a>,
    /// Several GPUs ([`gpu_runtime::devices::open`]): when not empty and the backend is not `Cpu`,
    /// all-or-nothing loading runs on all of them at once ([`crate::loader::GpuLoader`], the origins
    /// split between them); flows equal one GPU's bit for bit.
    pub devices: &'a [gpu_runtime::GpuContext],
    /// How all-or-nothing trees are grown: `Trees` (Dijkstra per origin on the CPU in f64, the batched
    /// kernel on a GPU), `Phast` (a customisable contraction hierarchy of the network, re-customised
    /// every iteration, PHAST sweeps: [`crate::hierarchy::CchAon`] on the CPU in the GPU's fixed point,
    /// [`crate::gpu::GpuAon`] on a GPU), or `Auto` (the default: PHAST on a GPU, where it was faster on
    /// every network measured; on the CPU, PHAST from the size where it was measured faster and f64 Dijkstra
    /// below it, for gap targets below [`super::CPU_PHAST_MIN_GAP`] and for select-link:
    /// [`super::choose_loader`] says which and why).
    pub trees: algos_sssp::many::Method,
    /// Stops the solve at the end of the iteration during which it is set (checked once per
    /// iteration): the flows so far come back with `converged` false, like a run that reached its
    /// iteration cap. For callers that end a run from another thread (a user interface, Ctrl-C in the
    /// Python binding); `None` (the default) never stops early.
    pub cancel: Option<&'a std::sync::atomic::AtomicBool>,
}

impl Default for AssignOptions<'_> {
    fn default() -> Self {
        Self {
            algorithm: Algorithm::default(),
            objective: Objective::default(),
            stop: Stop::default(),
            allow_zone_transit: false,
            warm_start: None,
            select_links: Vec::new(),
            backend: Backend::Auto,
            devices: &[],
            trees: algos_sssp::many::Method::Auto,
            cancel: None,
        }
    }
}

impl<'a> AssignOptions<'a> {
    /// These options stopping at relative gap `gap` (the rest of the stop rule unchanged).
    ///
    /// ```
    /// use urbanflow::tap::AssignOptions;
    /// let opts = AssignOptions::default().with_gap(1e-5).with_max_iterations(2_000);
    /// assert_eq!((opts.stop.relative_gap, opts.stop.max_iterations), (1e-5, 2_000));
    /// ```
    pub fn with_gap(mut self, gap: f64) -> Self {
        self.stop.relative_gap = gap;
        self
    }

    /// These options stopping after at most `iterations` iterations.
    pub fn with_max_iterations(mut self, iterations: u32) -> Self {
        self.stop.max_iterations = iterations;
        self
    }

    /// These options loading all-or-nothing on `backend`.
    pub fn with_backend(mut self, backend: Backend<'a>) -> Self {
        self.backend = backend;
        self
    }
}
