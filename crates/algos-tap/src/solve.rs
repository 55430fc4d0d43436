//! The Frank–Wolfe family: MSA, Frank–Wolfe, conjugate and bi-conjugate Frank–Wolfe (Mitradjieva &
//! Lindberg 2013), for user equilibrium or system optimum, with an exact line search on the objective's
//! derivative.

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use gpu_runtime::{Backend, Resolved};
use rayon::prelude::*;

use crate::aon::{SearchGraph, all_or_nothing};
use crate::demand::Demand;
use crate::error::TapError;
use crate::hierarchy::CchAon;
use crate::loader::{AllOrNothing, CpuAon, GpuLoader};
use crate::network::Network;

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

impl Default for Stop {
    fn default() -> Self {
        Self { relative_gap: 1e-4, max_iterations: 500, max_time: None, consecutive_below: 1 }
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
    /// [`Assignment::select_link`]. Frank–Wolfe family on the CPU loader, from a cold start.
    pub select_links: Vec<u32>,
    /// Where all-or-nothing loading runs: `Cpu` (the default: f64 costs, rayon), `Gpu(&ctx)` (fixed-point
    /// costs, see [`crate::fixed`]; its gap floors near 1e-6), or `Auto` (the GPU when there is one).
    pub backend: Backend<'a>,
    /// Several GPUs ([`gpu_runtime::devices::open`]): when not empty and the backend is not `Cpu`,
    /// all-or-nothing loading runs on all of them at once ([`crate::loader::GpuLoader`], the origins
    /// split between them); flows equal one GPU's bit for bit.
    pub devices: &'a [gpu_runtime::GpuContext],
    /// How all-or-nothing trees are grown: `Trees` (Dijkstra per origin on the CPU in f64, the batched
    /// kernel on a GPU), `Phast` (a customisable contraction hierarchy of the network, re-customised
    /// every iteration, PHAST sweeps: [`crate::hierarchy::CchAon`] on the CPU in the GPU's fixed point,
    /// [`crate::gpu::GpuAon`] on a GPU), or `Auto` (the default: PHAST on a GPU, where it was faster on
    /// every network measured; exact f64 trees on the CPU).
    pub trees: crate::gpu::Method,
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
            backend: Backend::Cpu,
            devices: &[],
            trees: crate::gpu::Method::Auto,
        }
    }
}

impl<'a> AssignOptions<'a> {
    /// These options stopping at relative gap `gap` (the rest of the stop rule unchanged).
    ///
    /// ```
    /// use algos_tap::AssignOptions;
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

/// One iteration's measurements (of the flows at the start of the iteration).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IterationLog {
    /// 1-based iteration.
    pub iteration: u32,
    /// Seconds since the solve started, at the end of this iteration's all-or-nothing loading.
    pub seconds: f64,
    /// Total system travel cost `Σ c_a(x) x_a`.
    pub tstt: f64,
    /// Shortest-path total `Σ d κ` at the current costs (marginal costs for system optimum).
    pub sptt: f64,
    /// `(TSTT − SPTT) / TSTT` (with marginal costs for system optimum).
    pub relative_gap: f64,
    /// `TSTT / SPTT − 1`.
    pub relative_gap_sptt: f64,
    /// `(TSTT − SPTT) / demand`.
    pub average_excess_cost: f64,
    /// Beckmann objective (user equilibrium), total cost (system optimum), NaN for non-separable costs.
    pub objective: f64,
    /// Best lower bound on the optimal objective so far (user equilibrium).
    pub lower_bound: f64,
    /// The step size that produced these flows (0 for the first iteration).
    pub step: f64,
}

/// The result of an assignment.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    /// Link flows, in the network's link order.
    pub flows: Vec<f64>,
    /// Generalised link costs at those flows.
    pub costs: Vec<f64>,
    /// One entry per iteration.
    pub history: Vec<IterationLog>,
    /// Whether the gap target was reached.
    pub converged: bool,
    /// One entry per link of [`AssignOptions::select_links`]: the OD flows that use it.
    pub select_link: Vec<crate::select::SelectLink>,
}

impl Assignment {
    /// The last iteration's measurements.
    pub fn last(&self) -> &IterationLog {
        self.history.last().expect("an assignment has at least one iteration")
    }
}

/// Objective, totals and gaps of given flows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evaluation {
    /// Beckmann objective.
    pub objective: f64,
    /// `Σ c_a(x) x_a`.
    pub tstt: f64,
    /// Shortest-path total at those costs.
    pub sptt: f64,
    /// `(TSTT − SPTT) / TSTT`.
    pub relative_gap: f64,
    /// `TSTT / SPTT − 1`.
    pub relative_gap_sptt: f64,
    /// `(TSTT − SPTT) / demand`.
    pub average_excess_cost: f64,
}

/// Measures given flows (for example a published equilibrium): objective, TSTT, SPTT and gaps, with
/// zones blocked as in [`AssignOptions::allow_zone_transit`].
pub fn evaluate(
    net: &Network,
    demand: &Demand,
    flows: &[f64],
    allow_zone_transit: bool,
) -> Result<Evaluation, TapError> {
    check_flows(net, flows, "flows")?;
    let g = SearchGraph::new(net, !allow_zone_transit);
    let mut costs = vec![0.0; net.num_links()];
    net.costs(flows, &mut costs);
    let mut y = vec![0.0; net.num_links()];
    let sptt = all_or_nothing(net, &g, demand, &costs, &mut y)?;
    let tstt = dot(&costs, flows);
    Ok(Evaluation {
        objective: net.beckmann(flows),
        tstt,
        sptt,
        relative_gap: (tstt - sptt) / tstt,
        relative_gap_sptt: tstt / sptt - 1.0,
        average_excess_cost: (tstt - sptt) / demand.total(),
    })
}

pub(crate) fn check_flows(net: &Network, flows: &[f64], what: &'static str) -> Result<(), TapError> {
    if flows.len() != net.num_links() || flows.iter().any(|f| !(*f >= 0.0 && f.is_finite())) {
        return Err(TapError::BadFlows { what, found: flows.len(), expected: net.num_links() });
    }
    Ok(())
}

pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Solves the assignment. See [`assign_with_progress`] for a per-iteration callback.
///
/// ```
/// use algos_tap::{assign, AssignOptions, CostFactors, Demand, Link, Network};
/// // Two parallel roads from 0 to 1: t1 = 10 + x/100 (BPR, power 1), t2 = 20 (constant).
/// let road = |t0, b| Link { from: 0, to: 1, capacity: 1000.0, length: 0.0, free_flow_time: t0, b, power: 1.0, toll: 0.0 };
/// let net = Network::new(2, &[road(10.0, 1.0), road(20.0, 0.0)], 0, CostFactors::default()).unwrap();
/// let demand = Demand::from_pairs(&net, [(0, 1, 3000.0)]).unwrap();
/// let mut opts = AssignOptions::default();
/// opts.stop.relative_gap = 1e-9;
/// let result = assign(&net, &demand, &opts).unwrap();
/// // Equilibrium: 10 + x1/100 = 20, so x1 = 1000 and the rest takes road 2.
/// assert!((result.flows[0] - 1000.0).abs() < 1e-3, "{:?}", result.flows);
/// ```
pub fn assign(net: &Network, demand: &Demand, opts: &AssignOptions) -> Result<Assignment, TapError> {
    assign_with_progress(net, demand, opts, |_| {})
}

/// Solves the assignment, calling `progress` after every iteration's measurements.
pub fn assign_with_progress(
    net: &Network,
    demand: &Demand,
    opts: &AssignOptions,
    progress: impl FnMut(&IterationLog),
) -> Result<Assignment, TapError> {
    check_stop(&opts.stop)?;
    let start = Instant::now();
    let separable = net.vdf().is_separable();
    if !separable && (opts.objective == Objective::SystemOptimum || opts.algorithm == Algorithm::AlgorithmB) {
        return Err(TapError::InvalidOption(
            "non-separable costs (PET-Gyn) are solved by diagonalisation for user equilibrium with the \
             Frank–Wolfe family only"
                .into(),
        ));
    }
    if !opts.select_links.is_empty() && opts.algorithm == Algorithm::AlgorithmB {
        return Err(TapError::InvalidOption(
            "select-link analysis follows the Frank–Wolfe family's loadings: use msa, fw, cfw or bfw".into(),
        ));
    }
    if opts.algorithm == Algorithm::AlgorithmB {
        return assign_b(net, demand, opts, start, progress);
    }
    let devices: Vec<&gpu_runtime::GpuContext> = match opts.backend {
        Backend::Cpu => Vec::new(),
        _ if !opts.devices.is_empty() => opts.devices.iter().collect(),
        backend => match backend.resolve() {
            Resolved::Cpu => Vec::new(),
            Resolved::Gpu(ctx) => vec![ctx],
        },
    };
    use crate::gpu::Method;
    let mut loader: Box<dyn AllOrNothing> = match (devices.is_empty(), opts.trees) {
        (true, Method::Phast) => Box::new(CchAon::new(net, demand, opts.allow_zone_transit)?),
        (true, _) => Box::new(CpuAon::new(net, opts.allow_zone_transit)),
        (false, method) => {
            let all = 0..demand.num_origins();
            Box::new(GpuLoader::with_method(&devices, net, demand, opts.allow_zone_transit, all, method)?)
        }
    };
    frank_wolfe_family(net, demand, opts, loader.as_mut(), start, progress)
}

/// Solves the assignment by the Frank–Wolfe family with a given all-or-nothing loader (Algorithm B
/// builds its own bushes and is refused here); `opts.backend` and `opts.devices` are ignored.
/// What a cluster run uses: every rank runs the same iterations on the same loads.
pub fn assign_with_loader(
    net: &Network,
    demand: &Demand,
    opts: &AssignOptions,
    loader: &mut dyn AllOrNothing,
    progress: impl FnMut(&IterationLog),
) -> Result<Assignment, TapError> {
    if opts.algorithm == Algorithm::AlgorithmB {
        return Err(TapError::InvalidOption(
            "Algorithm B loads bushes, not all-or-nothing trees: use msa, fw, cfw or bfw with a loader"
                .into(),
        ));
    }
    check_stop(&opts.stop)?;
    frank_wolfe_family(net, demand, opts, loader, Instant::now(), progress)
}

/// A stop rule that can stop: a gap target ≥ 0 and at least one iteration.
fn check_stop(stop: &Stop) -> Result<(), TapError> {
    if stop.relative_gap.is_nan() || stop.relative_gap < 0.0 || stop.max_iterations == 0 {
        return Err(TapError::InvalidOption(
            "the stop rule needs a gap target ≥ 0 and at least one iteration".into(),
        ));
    }
    Ok(())
}

fn frank_wolfe_family(
    net: &Network,
    demand: &Demand,
    opts: &AssignOptions,
    loader: &mut dyn AllOrNothing,
    start: Instant,
    mut progress: impl FnMut(&IterationLog),
) -> Result<Assignment, TapError> {
    let stop = opts.stop;
    let separable = net.vdf().is_separable();
    if !separable && opts.objective == Objective::SystemOptimum {
        return Err(TapError::InvalidOption(
            "non-separable costs (PET-Gyn) are solved by diagonalisation for user equilibrium with the \
             Frank–Wolfe family only"
                .into(),
        ));
    }
    let m = net.num_links();
    let system_optimum = opts.objective == Objective::SystemOptimum;
    let mut monitor = Monitor::new(start, stop, demand.total());
    // Select-link pair flows ride along with the link flows (crate::select).
    let selection = if opts.select_links.is_empty() {
        None
    } else {
        if opts.warm_start.is_some() || !loader.exact_trees() {
            return Err(TapError::InvalidOption(
                "select-link analysis needs a cold start and the CPU loader (its trees are the ones recorded)".into(),
            ));
        }
        Some(crate::select::Selection::new(net, demand, &opts.select_links)?)
    };
    // The same search graph as the CPU loader's, so the recorded trees are the loaded ones.
    let select_graph = selection.as_ref().map(|_| SearchGraph::new(net, !opts.allow_zone_transit));
    let select_load = |costs: &[f64]| match (&selection, &select_graph) {
        (Some(sel), Some(g)) => Some(sel.load(net, g, demand, costs)),
        _ => None,
    };
    let mut shadow_x: Option<Vec<f64>> = None;
    let mut shadow = Points::default();

    let mut x = match &opts.warm_start {
        Some(w) => {
            check_flows(net, w, "warm start")?;
            w.clone()
        }
        None => {
            let zero = vec![0.0; m];
            let mut c0 = vec![0.0; m];
            direction_costs(net, &zero, system_optimum, &mut c0);
            let mut y = vec![0.0; m];
            shadow_x = select_load(&c0);
            loader.load(net, demand, &c0, &mut y)?;
            y
        }
    };

    let mut state = DirectionState::default();
    let mut cost = vec![0.0; m];
    let mut g_cost = vec![0.0; m];
    let mut y = vec![0.0; m];
    let mut step = 0.0;
    let mut ls = LineSearch::new(m);
    loop {
        net.costs(&x, &mut cost);
        // Diagonalisation: partners' flows stay at x for this iteration's line search.
        net.vdf().freeze_partners(&x);
        direction_costs(net, &x, system_optimum, &mut g_cost);
        let shadow_y = select_load(&g_cost);
        let sptt = loader.load(net, demand, &g_cost, &mut y)?;
        let gtx = dot(&g_cost, &x);
        let tstt = dot(&cost, &x);
        let objective = if system_optimum { tstt } else { net.beckmann(&x) };
        if monitor.record(gtx, tstt, sptt, objective, step, !system_optimum && separable, &mut progress) {
            break;
        }

        let k = monitor.history.len();
        if opts.algorithm == Algorithm::Msa {
            step = 1.0 / (k as f64 + 1.0);
            for (xa, ya) in x.iter_mut().zip(&y) {
                *xa += step * (ya - *xa);
            }
            if let (Some(sx), Some(sy)) = (shadow_x.as_mut(), &shadow_y) {
                sx.iter_mut().zip(sy).for_each(|(xa, ya)| *xa += step * (ya - *xa));
            }
            continue;
        }
        let combo = state.direction(net, opts.algorithm, k, &x, &y, system_optimum);
        if let Some(sy) = &shadow_y {
            shadow.apply(combo, sy);
        }
        // AequilibraE's tolerance: tighter as the gap closes.
        let tol = (monitor.last_gap() * 1e-5).clamp(1e-12, 1e-6);
        step = match ls.search(net, &x, state.current().expect("a direction point"), system_optimum, tol) {
            Some(t) => t,
            None => {
                // The conjugate point is not a descent direction: restart from plain Frank–Wolfe.
                state.restart(&y);
                if let Some(sy) = &shadow_y {
                    shadow.apply(Combo::Restart, sy);
                }
                ls.search(net, &x, &y, system_optimum, tol).unwrap_or(0.0)
            }
        };
        let target = state.current();
        for (xa, sa) in x.iter_mut().zip(target.unwrap_or(&y)) {
            *xa += step * (sa - *xa);
        }
        if let (Some(sx), Some(ss)) = (shadow_x.as_mut(), shadow.sd.as_ref()) {
            sx.iter_mut().zip(ss).for_each(|(xa, sa)| *xa += step * (sa - *xa));
        }
        state.last_step = step;
    }
    net.costs(&x, &mut cost);
    let select_link = match (&selection, shadow_x) {
        (Some(sel), Some(sx)) => sel.finish(sx),
        _ => Vec::new(),
    };
    Ok(Assignment {
        flows: x,
        costs: cost,
        history: monitor.history,
        converged: monitor.converged,
        select_link,
    })
}

/// Algorithm B with the same measurements and stop rule as the Frank–Wolfe family.
fn assign_b(
    net: &Network,
    demand: &Demand,
    opts: &AssignOptions,
    start: Instant,
    mut progress: impl FnMut(&IterationLog),
) -> Result<Assignment, TapError> {
    if opts.objective != Objective::UserEquilibrium || opts.warm_start.is_some() {
        return Err(TapError::InvalidOption(
            "Algorithm B solves user equilibrium from its own initial bushes (no system optimum, no warm start)"
                .into(),
        ));
    }
    if matches!(opts.backend, Backend::Gpu(_)) {
        return Err(TapError::InvalidOption(
            "Algorithm B runs on the CPU: its gaps below 1e-7 need f64 shortest paths".into(),
        ));
    }
    let stop = opts.stop;
    let g = SearchGraph::new(net, !opts.allow_zone_transit);
    let mut monitor = Monitor::new(start, stop, demand.total());
    let flows = crate::bush::solve(net, demand, opts.allow_zone_transit, |x, cost, y| {
        let sptt = all_or_nothing(net, &g, demand, cost, y)?;
        let tstt = dot(cost, x);
        Ok(monitor.record(tstt, tstt, sptt, net.beckmann(x), 0.0, true, &mut progress))
    })?;
    let mut costs = vec![0.0; net.num_links()];
    net.costs(&flows, &mut costs);
    Ok(Assignment {
        flows,
        costs,
        history: monitor.history,
        converged: monitor.converged,
        select_link: Vec::new(),
    })
}

/// The per-iteration measurements and the stop rule, shared by every method.
pub(crate) struct Monitor {
    start: Instant,
    stop: Stop,
    total_demand: f64,
    pub(crate) history: Vec<IterationLog>,
    lower_bound: f64,
    below: u32,
    pub(crate) converged: bool,
}

impl Monitor {
    pub(crate) fn new(start: Instant, stop: Stop, total_demand: f64) -> Self {
        Self {
            start,
            stop,
            total_demand,
            history: Vec::new(),
            lower_bound: f64::NEG_INFINITY,
            below: 0,
            converged: false,
        }
    }

    pub(crate) fn last_gap(&self) -> f64 {
        self.history.last().map_or(1.0, |h| h.relative_gap)
    }

    /// Logs one iteration (`gtx` = cost of the flows at the direction costs, which are the generalised
    /// costs except for system optimum) and says whether to stop.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn record(
        &mut self,
        gtx: f64,
        tstt: f64,
        sptt: f64,
        objective: f64,
        step: f64,
        beckmann_bound: bool,
        progress: &mut impl FnMut(&IterationLog),
    ) -> bool {
        if beckmann_bound {
            self.lower_bound = self.lower_bound.max(objective - (gtx - sptt));
        }
        let log = IterationLog {
            iteration: self.history.len() as u32 + 1,
            seconds: self.start.elapsed().as_secs_f64(),
            tstt,
            sptt,
            relative_gap: if gtx > 0.0 { (gtx - sptt) / gtx } else { 0.0 },
            relative_gap_sptt: if sptt > 0.0 { gtx / sptt - 1.0 } else { 0.0 },
            average_excess_cost: if self.total_demand > 0.0 { (gtx - sptt) / self.total_demand } else { 0.0 },
            objective,
            lower_bound: self.lower_bound,
            step,
        };
        progress(&log);
        self.history.push(log);
        if log.relative_gap <= self.stop.relative_gap {
            self.below += 1;
            if self.below >= self.stop.consecutive_below.max(1) {
                self.converged = true;
                return true;
            }
        } else {
            self.below = 0;
        }
        self.history.len() >= self.stop.max_iterations as usize
            || self.stop.max_time.is_some_and(|t| self.start.elapsed() >= t)
    }
}

/// The costs the direction is computed on: generalised costs, or marginal costs `c + x c'` for system
/// optimum.
fn direction_costs(net: &Network, x: &[f64], system_optimum: bool, out: &mut [f64]) {
    net.costs(x, out);
    if system_optimum {
        let vdf = net.vdf();
        for (a, o) in out.iter_mut().enumerate() {
            *o += x[a] * vdf.derivative(a, x[a]);
        }
    }
}

/// How a new direction point is made from the loading `y` and the previous points: the flows and the
/// select-link pair flows follow the same combination.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Combo {
    /// Plain Frank–Wolfe: the point is `y`.
    Restart,
    /// Conjugate: `α s̄ + (1 − α) y`.
    Conjugate { alpha: f64 },
    /// Bi-conjugate: `b0 y + b1 s̄ + b2 s̄'`.
    Biconjugate { b0: f64, b1: f64, b2: f64 },
}

/// The latest direction point s̄ and the one before it, s̄', of some vector.
#[derive(Debug, Default)]
pub(crate) struct Points {
    pub(crate) sd: Option<Vec<f64>>,
    sd_prev: Option<Vec<f64>>,
}

impl Points {
    pub(crate) fn apply(&mut self, combo: Combo, y: &[f64]) {
        let new = match combo {
            Combo::Restart => y.to_vec(),
            Combo::Conjugate { alpha } => {
                let sd = self.sd.as_ref().expect("a previous point");
                sd.iter().zip(y).map(|(s, ya)| alpha * s + (1.0 - alpha) * ya).collect()
            }
            Combo::Biconjugate { b0, b1, b2 } => {
                let (sd, prev) =
                    (self.sd.as_ref().expect("a point"), self.sd_prev.as_ref().expect("two points"));
                (0..y.len()).map(|a| b0 * y[a] + b1 * sd[a] + b2 * prev[a]).collect()
            }
        };
        self.sd_prev = self.sd.take();
        self.sd = Some(new);
    }
}

/// Conjugate direction bookkeeping (the previous direction points and step).
#[derive(Debug, Default)]
pub(crate) struct DirectionState {
    points: Points,
    pub(crate) last_step: f64,
    /// The next step must be plain Frank–Wolfe.
    fw_next: bool,
    /// The next step must be conjugate (after a Frank–Wolfe restart).
    conjugate_next: bool,
}

impl DirectionState {
    pub(crate) fn current(&self) -> Option<&Vec<f64>> {
        self.points.sd.as_ref()
    }

    pub(crate) fn restart(&mut self, y: &[f64]) {
        self.points.apply(Combo::Restart, y);
        self.fw_next = false;
        self.conjugate_next = true;
    }

    /// Computes the new direction point for iteration `k` (1-based) and says how it was made.
    pub(crate) fn direction(
        &mut self,
        net: &Network,
        algorithm: Algorithm,
        k: usize,
        x: &[f64],
        y: &[f64],
        system_optimum: bool,
    ) -> Combo {
        let fw = algorithm == Algorithm::FrankWolfe
            || k == 1
            || self.points.sd.is_none()
            || self.last_step >= 1.0
            || self.fw_next;
        if fw {
            self.restart(y);
            return Combo::Restart;
        }
        let vdf = net.vdf();
        let scale = if system_optimum { 2.0 } else { 1.0 };
        let h = |a: usize| scale * vdf.derivative(a, x[a]);
        let sd = self.points.sd.as_ref().expect("checked");
        let bfw_prev = match (&self.points.sd_prev, self.conjugate_next, algorithm) {
            (Some(prev), false, Algorithm::BiconjugateFw) => Some(prev),
            _ => None,
        };
        let combo = if let Some(prev) = bfw_prev {
            let tau = self.last_step;
            let (mut mu_n, mut mu_d, mut nu_n, mut nu_d) = (0.0, 0.0, 0.0, 0.0);
            for a in 0..x.len() {
                let ha = h(a);
                let xh = tau * sd[a] + (1.0 - tau) * prev[a] - x[a];
                let yh = y[a] - x[a];
                let zh = sd[a] - x[a];
                let wh = prev[a] - sd[a];
                mu_n += ha * xh * yh;
                mu_d += ha * xh * wh;
                nu_n += ha * zh * yh;
                nu_d += ha * zh * zh;
            }
            let mu = if mu_d != 0.0 { (-mu_n / mu_d).max(0.0) } else { 0.0 };
            let nu = if nu_d != 0.0 { (-nu_n / nu_d + mu * tau / (1.0 - tau)).max(0.0) } else { 0.0 };
            let b0 = 1.0 / (1.0 + mu + nu);
            Combo::Biconjugate { b0, b1: nu * b0, b2: mu * b0 }
        } else {
            self.conjugate_next = false;
            let (mut num, mut den) = (0.0, 0.0);
            for a in 0..x.len() {
                let p = sd[a] - x[a];
                let ha = h(a);
                num += ha * p * (y[a] - x[a]);
                den += ha * p * (y[a] - sd[a]);
            }
            let alpha = if den != 0.0 { (num / den).clamp(0.0, 0.99999) } else { 0.0 };
            Combo::Conjugate { alpha }
        };
        self.points.apply(combo, y);
        combo
    }
}

/// Exact line search: the root of `φ'(τ) = Σ_a g_a(x + τ (s − x)) (s_a − x_a)` on [0, 1] by bisection.
pub(crate) struct LineSearch {
    d: Vec<f64>,
    /// A derivative term that does not depend on the step (several classes' fixed costs times their
    /// direction).
    pub(crate) constant: f64,
}

/// Links per block of the line search's parallel sums (fixed: the sums must not depend on threads).
const LINE_SEARCH_BLOCK: usize = 4096;

impl LineSearch {
    pub(crate) fn new(m: usize) -> Self {
        Self { d: vec![0.0; m], constant: 0.0 }
    }

    /// φ'(τ) = Σ c_a(x + τd) d_a, on all cores: partial sums over fixed blocks of links, added in
    /// block order, so the value (and every step) is the same on any number of threads.
    fn derivative(&mut self, net: &Network, x: &[f64], tau: f64, system_optimum: bool) -> f64 {
        let vdf = net.vdf();
        let fixed = net.fixed_costs();
        let block = |(b, d): (usize, &[f64])| -> f64 {
            let mut sum = 0.0;
            for (i, &da) in d.iter().enumerate() {
                if da == 0.0 {
                    continue;
                }
                let a = b * LINE_SEARCH_BLOCK + i;
                let xa = x[a] + tau * da;
                let mut c = vdf.time(a, xa) + fixed[a];
                if system_optimum {
                    c += xa * vdf.derivative(a, xa);
                }
                sum += c * da;
            }
            sum
        };
        let parts: Vec<f64> = if self.d.len() > LINE_SEARCH_BLOCK {
            self.d.par_chunks(LINE_SEARCH_BLOCK).enumerate().map(block).collect()
        } else {
            self.d.chunks(LINE_SEARCH_BLOCK).enumerate().map(block).collect()
        };
        parts.into_iter().fold(self.constant, |s, p| s + p)
    }

    /// The step, or `None` when `s − x` is not a descent direction (φ'(0) ≥ 0 with a non-zero direction).
    pub(crate) fn search(
        &mut self,
        net: &Network,
        x: &[f64],
        s: &[f64],
        system_optimum: bool,
        tol: f64,
    ) -> Option<f64> {
        for a in 0..x.len() {
            self.d[a] = s[a] - x[a];
        }
        let d0 = self.derivative(net, x, 0.0, system_optimum);
        if d0 >= 0.0 {
            return if self.d.iter().all(|&v| v == 0.0) { Some(0.0) } else { None };
        }
        if self.derivative(net, x, 1.0, system_optimum) <= 0.0 {
            return Some(1.0);
        }
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        while hi - lo > tol {
            let mid = 0.5 * (lo + hi);
            if self.derivative(net, x, mid, system_optimum) < 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(0.5 * (lo + hi))
    }
}
