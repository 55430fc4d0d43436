//! The Frank–Wolfe family: MSA, Frank–Wolfe, conjugate and bi-conjugate Frank–Wolfe (Mitradjieva &
//! Lindberg 2013), for user equilibrium or system optimum, with an exact line search on the objective's
//! derivative; Algorithm B through the same entry points.
//!
//! This file holds the entry points and their results; `options` what a solve is asked, `driver` the
//! iteration loops and their stop rule, `direction` the search directions, `line_search` the step.

mod choice;
mod direction;
mod driver;
mod line_search;
mod options;
#[cfg(feature = "gpu")]
pub mod race;

use std::time::Instant;

pub use choice::{
    CPU_PHAST_MIN_GAP, CPU_PHAST_MIN_WORK_PER_THREAD, LoaderChoice, choose_cpu_trees, choose_loader,
};
pub(crate) use direction::{Combo, DirectionState, Points};
pub(crate) use driver::Monitor;
use driver::{assign_b, frank_wolfe_family};
pub(crate) use line_search::LineSearch;
pub use options::{Algorithm, AssignOptions, Objective, Stop};

use crate::aon::{SearchGraph, all_or_nothing};
use crate::demand::Demand;
use crate::error::TapError;
use crate::hierarchy::CchAon;
#[cfg(feature = "gpu")]
use crate::loader::GpuLoader;
use crate::loader::{AllOrNothing, CpuAon};
use crate::network::Network;
use crate::vector::dot;

/// One iteration's measurements, of the flows the iteration starts from (before its step). A solve
/// stops right after measuring, so the last entry measures exactly the flows it returns:
/// `result.last().tstt`, `.relative_gap` and `.objective` are those of [`Assignment::flows`].
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
    /// Seconds of this iteration spent in the all-or-nothing loading (shortest paths and loading).
    /// `seconds` minus the previous entry's `seconds` minus this is the rest between two loadings: the
    /// previous step's direction and line search, and this iteration's link costs and measures.
    pub all_or_nothing_s: f64,
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
    /// Where the all-or-nothing loadings ran (`cpu (16 threads)`, `gpu (NAME)`, ...) and, when
    /// [`gpu_runtime::Backend::Auto`] raced the CPU and a GPU, what it measured.
    pub loaded_by: String,
}

impl Assignment {
    /// The last iteration's measurements: those of [`Self::flows`] themselves.
    pub fn last(&self) -> &IterationLog {
        self.history.last().expect("an assignment has at least one iteration")
    }

    /// The network-wide totals of these flows, time-only and generalised side by side (the
    /// [`IterationLog::tstt`] of a run is the generalised total, or the marginal one for a system
    /// optimum).
    pub fn totals(&self, net: &Network) -> Totals {
        Totals::of(net, &self.flows)
    }
}

/// Network-wide totals of link flows, in the network's units: time, generalised cost and distance
/// travelled are reported apart, so that a toll or distance factor never hides inside a "travel time".
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Totals {
    /// Time spent on the network, `Σ t_a(x_a) x_a` (the cost function's time only), in the network's
    /// time unit (minutes for TNTP files) × vehicles.
    pub travel_time: f64,
    /// Generalised cost, `Σ c_a(x_a) x_a` = travel time + the toll and distance terms
    /// ([`crate::CostFactors`]), in time units × vehicles.
    pub generalised_cost: f64,
    /// Distance travelled, `Σ length_a x_a`, in the network's length unit × vehicles.
    pub distance: f64,
}

impl Totals {
    /// The totals of flows `x` (one per link, in the network's link order) on `net`.
    ///
    /// ```
    /// use urbanflow::tap::{CostFactors, Link, Network, Totals};
    /// let link = Link { from: 0, to: 1, capacity: 100.0, length: 3.0, free_flow_time: 10.0, b: 0.0, power: 4.0, toll: 5.0 };
    /// let net = Network::new(2, &[link], 1, CostFactors { toll: 0.5, distance: 0.0 }).unwrap();
    /// let t = Totals::of(&net, &[4.0]);
    /// assert_eq!((t.travel_time, t.generalised_cost, t.distance), (40.0, 50.0, 12.0));
    /// ```
    pub fn of(net: &Network, x: &[f64]) -> Self {
        let mut time = vec![0.0; x.len()];
        net.vdf().times(x, &mut time);
        let travel_time = time.iter().zip(x).map(|(t, f)| t * f).sum();
        let fixed: f64 = net.fixed_costs().iter().zip(x).map(|(c, f)| c * f).sum();
        let distance = net.links().iter().zip(x).map(|(l, f)| l.length * f).sum();
        Self { travel_time, generalised_cost: travel_time + fixed, distance }
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

/// `found` values where `expected` are needed (one per link, one per OD pair, ...).
pub(crate) fn check_length(found: usize, expected: usize, what: &str) -> Result<(), TapError> {
    if found != expected {
        return Err(TapError::InvalidOption(format!("{found} {what} given: expected {expected}")));
    }
    Ok(())
}

/// Solves the assignment. See [`assign_with_progress`] for a per-iteration callback.
///
/// ```
/// use urbanflow::tap::{assign, AssignOptions, CostFactors, Demand, Link, Network};
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
    let choice = choose_loader(net, demand, opts);
    let devices = choice.devices;
    let mut loader: Box<dyn AllOrNothing> = match (devices.is_empty(), choice.cpu_hierarchy) {
        (true, true) => Box::new(CchAon::new(net, demand, opts.allow_zone_transit)?),
        (true, false) => Box::new(CpuAon::new(net, opts.allow_zone_transit)),
        #[cfg(not(feature = "gpu"))]
        (false, _) => devices[0].unbuilt(),
        #[cfg(feature = "gpu")]
        (false, _) => {
            let all = 0..demand.num_origins();
            let method = opts.trees;
            Box::new(GpuLoader::with_method(&devices, net, demand, opts.allow_zone_transit, all, method)?)
        }
    };
    #[cfg(feature = "gpu")]
    if choice.race {
        let mut racer = race::RacingLoader::new(loader, opts.allow_zone_transit, opts.trees);
        let mut result = frank_wolfe_family(net, demand, opts, &mut racer, start, progress)?;
        result.loaded_by = format!("{}; {}", racer.describe(), racer.why());
        return Ok(result);
    }
    let mut result = frank_wolfe_family(net, demand, opts, loader.as_mut(), start, progress)?;
    result.loaded_by = format!("{}; {}", loader.describe(), choice.why);
    Ok(result)
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
