//! Origin–destination matrix estimation from link counts (ODME): Spiess's gradient method (1990) on
//! the user equilibrium.
//!
//! Find a matrix `g` near the seed whose equilibrium flows `v(g)` reproduce the counts `ĉ`:
//! minimise `Z(g) = ½ Σ_a w_a (v_a(g) − ĉ_a)²` over the counted links. Each outer iteration
//! - takes the gradient `∂Z/∂g_ij = Σ_a w_a (v_a − ĉ_a) p_ij^a` with the equilibrium's route
//!   proportions `p` held: the flow-weighted mean "error cost" of OD `ij`'s routes when link `a` costs
//!   `w_a (v_a − ĉ_a)` — one forward pass over each origin's bush, no matrix per count, so memory does
//!   not grow with the number of counts;
//! - moves every cell multiplicatively, `g_ij ← g_ij (1 − λ ∂Z/∂g_ij)` (zero cells stay zero), with
//!   `λ` the exact minimiser of `Z` along that change (the flows' derivative is one backward pass over
//!   the bushes), reduced so that no cell changes by more than the factor
//!   [`OdmeOptions::max_change`];
//! - re-solves the equilibrium, warm: the bushes keep their routes and shares and carry the new
//!   demand, then Algorithm B iterates to the inner gap.
//!
//! The inner equilibrium is Algorithm B's because its bushes *are* origin-based link flows on acyclic
//! subnetworks — what the proportions are read from; the Frank–Wolfe family keeps only total flows.
//! docs/odme.md derives the passes and says what the gradient is and is not (it holds the routes'
//! proportions: the equilibrium's own response to a demand change is not in it).
//!
//! ```
//! use urbanflow::tap::odme::{estimate_od, LinkCounts, OdmeOptions};
//! use urbanflow::tap::{assign, AssignOptions, Algorithm, CostFactors, Demand, Network};
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data");
//! let net = Network::read_tntp(format!("{dir}/SiouxFalls_net.tntp"), CostFactors::default())?;
//! let truth = Demand::read_tntp(format!("{dir}/SiouxFalls_trips.tntp"), &net)?;
//! // Counts on every fifth link, made by assigning the true matrix.
//! let opts = AssignOptions { algorithm: Algorithm::AlgorithmB, ..Default::default() }.with_gap(1e-8);
//! let flows = assign(&net, &truth, &opts)?.flows;
//! let counts = LinkCounts::new(&net, (0..net.num_links() as u32).step_by(5).map(|a| (a, flows[a as usize], 1.0)))?;
//! // A seed 30 % too high everywhere: the estimate brings the counted flows back.
//! let seed = truth.scaled(1.3);
//! let result = estimate_od(&net, &seed, &counts, &OdmeOptions::default(), |_| {})?;
//! let (first, last) = (result.history[0].fit, result.last().fit);
//! assert!(last.rmse < 0.1 * first.rmse, "{} → {}", first.rmse, last.rmse);
//! # Ok::<(), urbanflow::tap::TapError>(())
//! ```

mod counts;
mod fit;
mod routes;
mod synthetic;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

pub use counts::LinkCounts;
pub use fit::{CountedFlow, Fit, GEH_THRESHOLD, geh, write_counted_csv};
pub use routes::{EquilibriumRoutes, Solved};
pub use synthetic::perturbed;

use crate::demand::Demand;
use crate::error::TapError;
use crate::network::Network;
use crate::solve::Stop;

/// How to estimate.
#[derive(Debug, Clone)]
pub struct OdmeOptions<'a> {
    /// Outer iterations (gradient steps), each followed by a re-solved equilibrium.
    pub outer_iterations: u32,
    /// When each inner equilibrium stops (relative gap, iteration cap). Default: gap 1e-4.
    pub inner: Stop,
    /// No cell changes by more than this factor in one outer iteration (up or down): the step is
    /// shortened until every cell's factor lies in `[1/max_change, max_change]`. Must be > 1.
    pub max_change: f64,
    /// The fit to reach: at least this share (0 to 1) of counted links with GEH below 5
    /// ([`OdmeResult::reached_target`]). Default 0.95.
    pub target_geh_share: f64,
    /// Let paths pass through zones below `<FIRST THRU NODE>` (blocked by default, as in assignment).
    pub allow_zone_transit: bool,
    /// Stops at the end of the outer iteration during which it is set: the estimate so far comes back.
    pub cancel: Option<&'a AtomicBool>,
}

impl Default for OdmeOptions<'_> {
    fn default() -> Self {
        Self {
            outer_iterations: 10,
            inner: Stop { relative_gap: 1e-4, ..Stop::default() },
            max_change: 10.0,
            target_geh_share: 0.95,
            allow_zone_transit: false,
            cancel: None,
        }
    }
}

/// One outer iteration's report (iteration 0 is the seed's equilibrium).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OdmeIteration {
    /// 0 for the seed, then 1-based.
    pub iteration: u32,
    /// Seconds since the estimation started, at the end of this iteration.
    pub seconds: f64,
    /// The fit of this iteration's equilibrium to the counts.
    pub fit: Fit,
    /// Total demand of the matrix.
    pub total_demand: f64,
    /// The step `λ` taken (0 for the seed).
    pub step: f64,
    /// The smallest and largest factor any cell was multiplied by in this step (1 for the seed).
    pub min_factor: f64,
    /// See [`Self::min_factor`].
    pub max_factor: f64,
    /// Iterations of the inner equilibrium.
    pub inner_iterations: u32,
    /// Its final relative gap.
    pub inner_gap: f64,
    /// How many times the step was halved because the re-solved equilibrium fitted worse than the
    /// last matrix (each halving re-solves the equilibrium once more).
    pub halvings: u32,
    /// Seconds of this iteration in the gradient, the flows' derivative and the line search (passes
    /// over the bushes); the rest since the previous report is the equilibrium (warm start, Algorithm
    /// B, the halvings' re-solves).
    pub gradient_s: f64,
}

/// The result of an estimation.
#[derive(Debug, Clone, PartialEq)]
pub struct OdmeResult {
    /// The estimated matrix (the seed's pairs, other flows).
    pub demand: Demand,
    /// Its equilibrium link flows, in the network's link order.
    pub flows: Vec<f64>,
    /// Link costs at those flows.
    pub costs: Vec<f64>,
    /// One entry per outer iteration, the seed's first.
    pub history: Vec<OdmeIteration>,
    /// Counted links with the estimate's flows, in the counts' order.
    pub counted: Vec<CountedFlow>,
    /// Whether the last fit reached [`OdmeOptions::target_geh_share`].
    pub reached_target: bool,
    /// Why the iterations stopped.
    pub stopped: String,
}

impl OdmeResult {
    /// The last iteration's report: that of [`Self::demand`] and [`Self::flows`].
    pub fn last(&self) -> &OdmeIteration {
        self.history.last().expect("an estimation reports at least the seed")
    }
}

/// Estimates a matrix from `seed` (whose pairs are the only ones that can carry demand) so that its
/// equilibrium reproduces `counts`; `progress` is called after every outer iteration (the seed's
/// included). See the [module](self) for the method and an example.
pub fn estimate_od(
    net: &Network,
    seed: &Demand,
    counts: &LinkCounts,
    opts: &OdmeOptions,
    mut progress: impl FnMut(&OdmeIteration),
) -> Result<OdmeResult, TapError> {
    check_options(net, seed, counts, opts)?;
    let start = Instant::now();
    let (mut routes, mut solved) =
        EquilibriumRoutes::solve(net, seed, opts.inner, opts.allow_zone_transit, opts.cancel)?;
    let mut demand = seed.clone();
    let mut fit = Fit::of(counts, routes.flows());
    let mut history = Vec::new();
    let mut report = |iteration,
                      fit,
                      demand: &Demand,
                      step,
                      factors: (f64, f64),
                      solved: Solved,
                      (halvings, gradient_s)| {
        let log = OdmeIteration {
            iteration,
            seconds: start.elapsed().as_secs_f64(),
            fit,
            total_demand: demand.total(),
            step,
            min_factor: factors.0,
            max_factor: factors.1,
            inner_iterations: solved.iterations,
            inner_gap: solved.gap,
            halvings,
            gradient_s,
        };
        progress(&log);
        history.push(log);
    };
    report(0, fit, &demand, 0.0, (1.0, 1.0), solved, (0, 0.0));
    let mut stopped = format!("{} outer iterations done", opts.outer_iterations);
    // The flows of the last accepted matrix when the routes moved on from it (a rejected step).
    let mut kept_flows = None;
    for iteration in 1..=opts.outer_iterations {
        if opts.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            stopped = "cancelled".into();
            break;
        }
        // The counts' errors as link costs; the gradient is their mean over each pair's routes.
        let passes = Instant::now();
        let flows = routes.flows();
        let mut error = vec![0.0; net.num_links()];
        for ((&a, &c), &w) in counts.links().iter().zip(counts.counts()).zip(counts.weights()) {
            error[a as usize] = w * (flows[a as usize] - c);
        }
        let gradient = routes.od_mean_costs(net, &error)?;
        let change: Vec<f64> = demand.flows().iter().zip(&gradient).map(|(g, d)| -g * d).collect();
        let slope = routes.route_flows(net, &change)?;
        // Z(λ) = ½ Σ w (v + λ v' − ĉ)² with the routes held: its minimiser, then the step cap.
        let (mut along, mut curvature) = (0.0, 0.0);
        for (&a, &w) in counts.links().iter().zip(counts.weights()) {
            along += error[a as usize] * slope[a as usize];
            curvature += w * slope[a as usize] * slope[a as usize];
        }
        if !(curvature > 0.0 && along < 0.0) {
            stopped = format!(
                "no descent left after {} outer iterations (the counts' errors have no gradient)",
                iteration - 1
            );
            break;
        }
        let cap = step_cap(&gradient, opts.max_change);
        let mut step = (-along / curvature).min(cap);
        // With the routes held the step lowers Z; the re-solved equilibrium may not (its own response,
        // and the inner gap's noise): halve the step until it does, or stop at the last accepted matrix.
        let accepted = (demand.clone(), routes.flows().to_vec(), fit);
        let gradient_s = passes.elapsed().as_secs_f64();
        let mut tried = 0;
        loop {
            let factors: Vec<f64> = gradient.iter().map(|d| 1.0 - step * d).collect();
            let range = factors.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &f| (lo.min(f), hi.max(f)));
            let next: Vec<f64> = accepted.0.flows().iter().zip(&factors).map(|(g, f)| g * f).collect();
            demand = accepted.0.with_flows(next).ok_or_else(|| {
                TapError::InvalidOption(
                    "a matrix cell left the positive finite range (a step the cap should forbid)".into(),
                )
            })?;
            solved = routes.resolve(net, &demand, opts.inner, opts.cancel)?;
            fit = Fit::of(counts, routes.flows());
            if fit.objective <= accepted.2.objective {
                report(iteration, fit, &demand, step, range, solved, (tried, gradient_s));
                break;
            }
            tried += 1;
            // Cancelled during this re-solve: its flows are not an equilibrium, keep the last matrix.
            if opts.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                stopped = "cancelled".into();
                (demand, kept_flows, fit) = (accepted.0, Some(accepted.1), accepted.2);
                break;
            }
            if tried > MAX_HALVINGS {
                stopped = format!(
                    "the objective rose after every step tried in outer iteration {iteration} (the last {}): \
                     the inner gap {:.0e} limits the fit; a smaller inner gap goes further",
                    MAX_HALVINGS + 1,
                    opts.inner.relative_gap
                );
                (demand, kept_flows, fit) = (accepted.0, Some(accepted.1), accepted.2);
                break;
            }
            step *= 0.5;
        }
        if kept_flows.is_some() {
            break;
        }
    }
    let flows = kept_flows.unwrap_or_else(|| routes.flows().to_vec());
    let mut costs = vec![0.0; net.num_links()];
    net.costs(&flows, &mut costs);
    let counted = counts
        .links()
        .iter()
        .zip(counts.counts())
        .map(|(&a, &c)| CountedFlow {
            link: a,
            count: c,
            flow: flows[a as usize],
            geh: geh(flows[a as usize], c),
        })
        .collect();
    Ok(OdmeResult {
        reached_target: fit.geh_below_5 >= opts.target_geh_share,
        demand,
        flows,
        costs,
        history,
        counted,
        stopped,
    })
}

/// Step halvings tried before an outer iteration gives up (the step is then 1/32 of the first).
const MAX_HALVINGS: u32 = 5;

/// The largest `λ` for which every factor `1 − λ d` lies in `[1/max_change, max_change]`.
fn step_cap(gradient: &[f64], max_change: f64) -> f64 {
    gradient.iter().fold(f64::INFINITY, |cap, &d| {
        if d > 0.0 {
            cap.min((1.0 - 1.0 / max_change) / d)
        } else if d < 0.0 {
            cap.min((max_change - 1.0) / -d)
        } else {
            cap
        }
    })
}

fn check_options(
    net: &Network,
    seed: &Demand,
    counts: &LinkCounts,
    opts: &OdmeOptions,
) -> Result<(), TapError> {
    if !net.vdf().is_separable() {
        return Err(TapError::InvalidOption(
            "matrix estimation needs separable link costs (Algorithm B's bushes)".into(),
        ));
    }
    if opts.max_change.is_nan() || opts.max_change <= 1.0 {
        return Err(TapError::InvalidOption(format!(
            "max change {}: expected a factor > 1",
            opts.max_change
        )));
    }
    if !(0.0..=1.0).contains(&opts.target_geh_share) {
        return Err(TapError::InvalidOption(format!(
            "target GEH share {}: expected a share from 0 to 1",
            opts.target_geh_share
        )));
    }
    if opts.inner.relative_gap.is_nan() || opts.inner.relative_gap < 0.0 || opts.inner.max_iterations == 0 {
        return Err(TapError::InvalidOption(
            "the inner stop rule needs a gap target ≥ 0 and at least one iteration".into(),
        ));
    }
    if counts.is_empty() || seed.num_pairs() == 0 {
        return Err(TapError::InvalidOption(
            "matrix estimation needs at least one count and one OD pair with demand".into(),
        ));
    }
    if counts.links().iter().any(|&a| a as usize >= net.num_links()) {
        return Err(TapError::InvalidOption(
            "counts of another network (a link number beyond this one's)".into(),
        ));
    }
    Ok(())
}
