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
pub use routes::{EquilibriumRoutes, RoutePasses, Solved};
pub use synthetic::perturbed;

use crate::classes::UserClass;
use crate::demand::Demand;
use crate::error::TapError;
use crate::network::Network;
use crate::solve::Stop;
use gpu_runtime::Backend;

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
    /// With several classes, what a count of all classes counts: vehicles or PCE units. Needed only
    /// when some class's PCE is not 1 and some count is of all classes (no guess: an error asks for
    /// it).
    pub all_counts: Option<CountUnits>,
    /// Where the gradient's and the step's passes over the routes run ([`EquilibriumRoutes::passes`]):
    /// the CPU by default; [`Backend::Gpu`] uploads each class's bushes once per outer iteration.
    /// [`Backend::Auto`] is the CPU, and [`OdmeResult::passes_on`] gives the passes' measured share of
    /// the run (1–2 % of an outer iteration on 16 cores: the most a GPU could save). The equilibria run
    /// on the CPU either way.
    pub backend: Backend<'a>,
}

/// What a count of all classes counts ([`OdmeOptions::all_counts`]); where every PCE is 1 the two
/// are the same.
///
/// The gradient holds the equilibrium's routes, so it takes one more truck as `pce` more units of
/// flow along the trucks' routes. Counted in PCE units, that is what the congested equilibrium
/// roughly keeps (as with one class). Counted in vehicles, the equilibrium's own response can have the
/// other sign — the cars a truck pushes off its route outnumber it — so steps that the gradient
/// promises lower the objective may raise it; the estimation then tries each class's step alone, and
/// converges more slowly than with counts in PCE units (measured in docs/odme.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountUnits {
    /// Vehicles: a truck counts 1 (a loop detector's count).
    Vehicles,
    /// Passenger-car units: a truck counts its PCE (counts converted to PCU, as assignments report
    /// flows).
    Pce,
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
            all_counts: None,
            backend: Backend::Cpu,
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
    /// How many steps were tried and rejected before this one because the re-solved equilibrium fitted
    /// worse than the last matrix: halvings, and with several classes the steps of all classes together
    /// before a step of one class (each re-solves the equilibrium once more).
    pub halvings: u32,
    /// Seconds of this iteration in the gradient, the flows' derivative and the line search (passes
    /// over the bushes); the rest since the previous report is the equilibrium (warm start, Algorithm
    /// B, the halvings' re-solves).
    pub gradient_s: f64,
    /// Of [`Self::gradient_s`], the seconds spent putting the classes' bushes on the GPU (building the
    /// blocks and uploading them, and in the first iteration compiling the kernels: the passes' setup with
    /// [`OdmeOptions::backend`] on a GPU; 0 on the CPU).
    pub upload_s: f64,
}

/// One class's estimate ([`estimate_od_classes`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ClassEstimate {
    /// The class's name.
    pub name: String,
    /// Its estimated matrix (the seed's pairs, other flows).
    pub demand: Demand,
    /// Its vehicles per link at the estimate's equilibrium, in the network's link order.
    pub vehicles: Vec<f64>,
}

/// The result of an estimation.
#[derive(Debug, Clone, PartialEq)]
pub struct OdmeResult {
    /// The estimated matrix (the seed's pairs, other flows); with several classes, the first class's
    /// (every class's is in [`Self::classes`]).
    pub demand: Demand,
    /// Every class's estimate, in the classes' order (one for [`estimate_od`]).
    pub classes: Vec<ClassEstimate>,
    /// Its equilibrium link flows, in the network's link order (PCE units with several classes).
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
    /// Where the passes over the routes ran: `cpu`, `gpu (adapter)`, or with [`Backend::Auto`] `cpu
    /// (auto: …)` with the passes' measured share of the outer iterations.
    pub passes_on: String,
}

impl OdmeResult {
    /// The last iteration's report: that of [`Self::demand`] and [`Self::flows`].
    pub fn last(&self) -> &OdmeIteration {
        self.history.last().expect("an estimation reports at least the seed")
    }
}

/// Estimates a matrix from `seed` (whose pairs are the only ones that can carry demand) so that its
/// equilibrium reproduces `counts` (all of all vehicles); `progress` is called after every outer
/// iteration (the seed's included). See the [module](self) for the method and an example.
pub fn estimate_od(
    net: &Network,
    seed: &Demand,
    counts: &LinkCounts,
    opts: &OdmeOptions,
    progress: impl FnMut(&OdmeIteration),
) -> Result<OdmeResult, TapError> {
    if let Some(name) = counts.class_names().first() {
        return Err(TapError::InvalidOption(format!(
            "counts of class {name}: estimate one matrix per class (estimate_od_classes, `--classes`)"
        )));
    }
    check_options(net, std::slice::from_ref(seed), counts, opts)?;
    let start = Instant::now();
    let solved = EquilibriumRoutes::solve(net, seed, opts.inner, opts.allow_zone_transit, opts.cancel)?;
    let seeds = vec![("all".to_string(), seed.clone())];
    estimate(net, solved, (seeds, vec![1.0]), vec![None; counts.len()], counts, opts, start, progress)
}

/// Estimates one matrix per user class (each class's seed in [`UserClass::demand`], its PCE, fixed
/// costs and bans as in [`crate::multiclass`]) so that the classes' equilibrium reproduces `counts`:
/// a count of all vehicles against the sum of every class's vehicles on its link, a count of one
/// class (by name) against that class's. The gradient of each class's cells is the mean of its own
/// counts' errors over its own routes; one step length moves every class.
///
/// ```
/// use urbanflow::tap::odme::{estimate_od_classes, CountUnits, LinkCounts, OdmeOptions};
/// use urbanflow::tap::multiclass::{UserClass, assign_classes};
/// use urbanflow::tap::{AssignOptions, Algorithm, CostFactors, Demand, Network};
/// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data");
/// let net = Network::read_tntp(format!("{dir}/SiouxFalls_net.tntp"), CostFactors::default())?;
/// let trips = Demand::read_tntp(format!("{dir}/SiouxFalls_trips.tntp"), &net)?;
/// let classes = |cars: f64, trucks: f64| {
///     [UserClass::new("cars", trips.scaled(cars)), UserClass::new("trucks", trips.scaled(trucks)).with_pce(2.5)]
/// };
/// // Counts of all vehicles (in PCE units) on every third link and of trucks on every seventh, from a
/// // known equilibrium.
/// let opts = AssignOptions { algorithm: Algorithm::AlgorithmB, ..Default::default() }.with_gap(1e-8);
/// let truth = assign_classes(&net, &classes(0.9, 0.1), &opts)?;
/// let all = (0..net.num_links()).step_by(3).map(|a| (a as u32, truth.pce_flows[a], 1.0, None));
/// let trucks = (0..net.num_links()).step_by(7).map(|a| (a as u32, truth.classes[1].vehicles[a], 1.0, Some("trucks".into())));
/// let counts = LinkCounts::by_class(&net, all.chain(trucks))?;
/// // From twice too many trucks and too few cars, ten steps move towards the counts.
/// let odme = OdmeOptions { all_counts: Some(CountUnits::Pce), ..OdmeOptions::default() };
/// let result = estimate_od_classes(&net, &classes(0.7, 0.2), &counts, &odme, |_| {})?;
/// let (first, last) = (result.history[0].fit, result.last().fit);
/// assert!(last.rmse < 0.3 * first.rmse, "{} → {}", first.rmse, last.rmse);
/// let trucks = result.classes[1].demand.total() / trips.total();
/// assert!(trucks < 0.19, "trucks {trucks} of the trips"); // the seed has 0.2, the truth 0.1
/// # Ok::<(), urbanflow::tap::TapError>(())
/// ```
pub fn estimate_od_classes(
    net: &Network,
    classes: &[UserClass],
    counts: &LinkCounts,
    opts: &OdmeOptions,
    progress: impl FnMut(&OdmeIteration),
) -> Result<OdmeResult, TapError> {
    let seeds: Vec<Demand> = classes.iter().map(|c| c.demand.clone()).collect();
    check_options(net, &seeds, counts, opts)?;
    // Each count's class, as an index into `classes`.
    let mut by_name = Vec::with_capacity(counts.class_names().len());
    for name in counts.class_names() {
        match classes.iter().position(|c| &c.name == name) {
            Some(k) => by_name.push(k),
            None => {
                let known: Vec<&str> = classes.iter().map(|c| c.name.as_str()).collect();
                return Err(TapError::InvalidOption(format!(
                    "counts of class {name}, which is not one of the classes ({})",
                    known.join(", ")
                )));
            }
        }
    }
    let count_class: Vec<Option<usize>> =
        counts.class_indices().iter().map(|k| k.map(|k| by_name[k as usize])).collect();
    if opts.all_counts.is_none() && count_class.iter().any(Option::is_none) {
        if let Some(c) = classes.iter().find(|c| c.pce != 1.0) {
            return Err(TapError::InvalidOption(format!(
                "counts of all classes with class {} at PCE {}: say whether they count vehicles or PCE \
                 units (OdmeOptions::all_counts, `--all-counts vehicles|pce`)",
                c.name, c.pce
            )));
        }
    }
    let start = Instant::now();
    let solved =
        EquilibriumRoutes::solve_classes(net, classes, opts.inner, opts.allow_zone_transit, opts.cancel)?;
    let seeds = classes.iter().map(|c| c.name.clone()).zip(seeds).collect();
    let pces = classes.iter().map(|c| c.pce).collect();
    estimate(net, solved, (seeds, pces), count_class, counts, opts, start, progress)
}

/// The estimation from the seeds' equilibrium `routes` (one class per seed, named); `count_class` is
/// each count's class (an index into `seeds`) or `None` for all vehicles.
#[allow(clippy::too_many_arguments)]
fn estimate(
    net: &Network,
    (mut routes, mut solved): (EquilibriumRoutes, Solved),
    (seeds, pces): (Vec<(String, Demand)>, Vec<f64>),
    count_class: Vec<Option<usize>>,
    counts: &LinkCounts,
    opts: &OdmeOptions,
    start: Instant,
    mut progress: impl FnMut(&OdmeIteration),
) -> Result<OdmeResult, TapError> {
    let kc = seeds.len();
    let (names, mut demands): (Vec<String>, Vec<Demand>) = seeds.into_iter().unzip();
    // How much one vehicle of class `k` on its link adds to count `i`: 1 for a count of its class, 0 for
    // another class's, and for a count of all classes 1 (vehicles) or the class's PCE.
    let share = |i: usize, k: usize| match count_class[i] {
        Some(c) => f64::from(u8::from(c == k)),
        None if opts.all_counts == Some(CountUnits::Pce) => pces[k],
        None => 1.0,
    };
    // Each count's assigned flow: its class's vehicles on its link, or all classes'.
    let counted_flows = |routes: &EquilibriumRoutes| -> (Vec<f64>, Vec<Vec<f64>>) {
        let vehicles: Vec<Vec<f64>> = (0..kc).map(|k| routes.class_flows(k)).collect();
        let counted = counts
            .links()
            .iter()
            .enumerate()
            .map(|(i, &a)| match count_class[i] {
                Some(k) => vehicles[k][a as usize],
                None => (1..kc).fold(share(i, 0) * vehicles[0][a as usize], |s, k| {
                    s + share(i, k) * vehicles[k][a as usize]
                }),
            })
            .collect();
        (counted, vehicles)
    };
    let (mut counted, mut vehicles) = counted_flows(&routes);
    let mut fit = Fit::of_counted(counts, &counted);
    let mut history = Vec::new();
    let total = |demands: &[Demand]| demands.iter().map(Demand::total).sum::<f64>();
    let mut report = |iteration,
                      fit,
                      total_demand,
                      step,
                      factors: (f64, f64),
                      solved: Solved,
                      (halvings, gradient_s, upload_s)| {
        let log = OdmeIteration {
            iteration,
            seconds: start.elapsed().as_secs_f64(),
            fit,
            total_demand,
            step,
            min_factor: factors.0,
            max_factor: factors.1,
            inner_iterations: solved.iterations,
            inner_gap: solved.gap,
            halvings,
            gradient_s,
            upload_s,
        };
        progress(&log);
        history.push(log);
    };
    report(0, fit, total(&demands), 0.0, (1.0, 1.0), solved, (0, 0.0, 0.0));
    let mut stopped = format!("{} outer iterations done", opts.outer_iterations);
    // The flows of the last accepted matrices when the routes moved on from them (a rejected step).
    let mut kept: Option<(Vec<f64>, Vec<Vec<f64>>)> = None;
    for iteration in 1..=opts.outer_iterations {
        if opts.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            stopped = "cancelled".into();
            break;
        }
        // The counts' errors as link costs of the classes they count; the gradient of a class's cells
        // is their mean over its routes.
        let passes = Instant::now();
        let error: Vec<f64> = counted
            .iter()
            .zip(counts.counts())
            .zip(counts.weights())
            .map(|((v, c), w)| w * (v - c))
            .collect();
        let mut upload_s = 0.0;
        let mut gradients = Vec::with_capacity(kc);
        // Per class, each count's flow derivative along the class's change.
        let mut class_slopes = vec![vec![0.0; counts.len()]; kc];
        for (k, demand) in demands.iter().enumerate() {
            let mut link_error = vec![0.0; net.num_links()];
            for (i, &a) in counts.links().iter().enumerate() {
                let share = share(i, k);
                if share != 0.0 {
                    link_error[a as usize] += share * error[i];
                }
            }
            let upload = Instant::now();
            let passes = routes.passes(opts.backend, k)?;
            if passes.on_gpu() {
                upload_s += upload.elapsed().as_secs_f64();
            }
            let gradient = passes.od_mean_costs(net, &link_error)?;
            let change: Vec<f64> = demand.flows().iter().zip(&gradient).map(|(g, d)| -g * d).collect();
            let slope = passes.route_flows(net, &change)?;
            for (i, &a) in counts.links().iter().enumerate() {
                let share = share(i, k);
                if share != 0.0 {
                    class_slopes[k][i] = share * slope[a as usize];
                }
            }
            gradients.push(gradient);
        }
        let accepted = (demands.clone(), routes.flows().to_vec(), fit, counted.clone(), vehicles.clone());
        let gradient_s = passes.elapsed().as_secs_f64();
        // Which classes move: all together first; with several classes, then each alone, since the
        // re-solved equilibrium can answer one class's change against the gradient's sign (docs/odme.md,
        // "Several classes") while another's still lowers the objective.
        let mut moves: Vec<Vec<bool>> = vec![vec![true; kc]];
        if kc > 1 {
            moves.extend((0..kc).map(|k| (0..kc).map(|j| j == k).collect()));
        }
        let mut tried = 0;
        let mut descent = false;
        let mut moved = false;
        for moving in &moves {
            // Z(λ) = ½ Σ w (v + λ v' − ĉ)² with the routes held: its minimiser, then the step cap.
            let mut slopes = vec![0.0; counts.len()];
            for (class_slope, _) in class_slopes.iter().zip(moving).filter(|(_, m)| **m) {
                for (s, c) in slopes.iter_mut().zip(class_slope) {
                    *s += c;
                }
            }
            let (mut along, mut curvature) = (0.0, 0.0);
            for ((e, s), w) in error.iter().zip(&slopes).zip(counts.weights()) {
                along += e * s;
                curvature += w * s * s;
            }
            if !(curvature > 0.0 && along < 0.0) {
                continue;
            }
            descent = true;
            let cap = (0..kc)
                .filter(|&k| moving[k])
                .map(|k| step_cap(&gradients[k], opts.max_change))
                .fold(f64::INFINITY, f64::min);
            let mut step = (-along / curvature).min(cap);
            // With the routes held the step lowers Z; the re-solved equilibrium may not (its own
            // response, and the inner gap's noise): halve the step until it does.
            for _ in 0..=MAX_HALVINGS {
                let mut range = (f64::INFINITY, 0.0f64);
                for (k, gradient) in gradients.iter().enumerate() {
                    if !moving[k] {
                        demands[k] = accepted.0[k].clone();
                        continue;
                    }
                    let factors: Vec<f64> = gradient.iter().map(|d| 1.0 - step * d).collect();
                    range = factors.iter().fold(range, |(lo, hi), &f| (lo.min(f), hi.max(f)));
                    let next: Vec<f64> =
                        accepted.0[k].flows().iter().zip(&factors).map(|(g, f)| g * f).collect();
                    demands[k] = accepted.0[k].with_flows(next).ok_or_else(|| {
                        TapError::InvalidOption(
                            "a matrix cell left the finite range (a step the cap should forbid)".into(),
                        )
                    })?;
                }
                solved = routes.resolve_classes(net, &demands, opts.inner, opts.cancel)?;
                (counted, vehicles) = counted_flows(&routes);
                fit = Fit::of_counted(counts, &counted);
                if fit.objective <= accepted.2.objective {
                    report(
                        iteration,
                        fit,
                        total(&demands),
                        step,
                        range,
                        solved,
                        (tried, gradient_s, upload_s),
                    );
                    moved = true;
                    break;
                }
                tried += 1;
                // Cancelled during this re-solve: its flows are not an equilibrium.
                if opts.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                    break;
                }
                step *= 0.5;
            }
            if moved || opts.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                break;
            }
        }
        if moved {
            continue;
        }
        stopped = if !descent {
            format!(
                "no descent left after {} outer iterations (the counts' errors have no gradient)",
                iteration - 1
            )
        } else if opts.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            "cancelled".into()
        } else {
            format!(
                "the objective rose after every step tried in outer iteration {iteration} (the last {}{}): \
                 the inner gap {:.0e} limits the fit; a smaller inner gap goes further",
                MAX_HALVINGS + 1,
                if kc > 1 { " for all classes together and for each alone" } else { "" },
                opts.inner.relative_gap
            )
        };
        // Keep the last accepted matrix (the routes may have moved on from it).
        if tried > 0 {
            let (d, flows, f, c, v) = accepted;
            (demands, fit, counted) = (d, f, c);
            kept = Some((flows, v));
        }
        break;
    }
    let (flows, vehicles) = kept.unwrap_or_else(|| (routes.flows().to_vec(), vehicles));
    let mut costs = vec![0.0; net.num_links()];
    net.costs(&flows, &mut costs);
    let counted = counts
        .links()
        .iter()
        .enumerate()
        .map(|(i, &a)| CountedFlow {
            link: a,
            class: counts.class_of(i).map(str::to_string),
            count: counts.counts()[i],
            flow: counted[i],
            geh: geh(counted[i], counts.counts()[i]),
        })
        .collect();
    let classes: Vec<ClassEstimate> = names
        .into_iter()
        .zip(demands)
        .zip(vehicles)
        .map(|((name, demand), vehicles)| ClassEstimate { name, demand, vehicles })
        .collect();
    let passes_on = match opts.backend {
        Backend::Gpu(ctx) => format!("gpu ({})", ctx.info.name),
        Backend::Cpu => "cpu".to_string(),
        Backend::Auto => auto_reason(&history),
    };
    Ok(OdmeResult {
        reached_target: fit.geh_below_5 >= opts.target_geh_share,
        demand: classes[0].demand.clone(),
        classes,
        flows,
        costs,
        history,
        counted,
        stopped,
        passes_on,
    })
}

/// What [`Backend::Auto`] says: the CPU, with the passes' measured share of this run's outer
/// iterations — the most a GPU could have saved.
fn auto_reason(history: &[OdmeIteration]) -> String {
    let outer = history.last().map_or(0.0, |l| l.seconds) - history.first().map_or(0.0, |f| f.seconds);
    let passes: f64 = history.iter().skip(1).map(|it| it.gradient_s).sum();
    if history.len() < 2 || outer <= 0.0 {
        return "cpu (auto)".to_string();
    }
    format!(
        "cpu (auto: the passes took {:.1} % of the outer iterations here, the most a GPU could save)",
        100.0 * passes / outer
    )
}

/// Step halvings tried for each move (all classes together, or one class) before it gives up (the step
/// is then 1/32 of the first).
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
    seeds: &[Demand],
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
    if counts.is_empty() || seeds.iter().all(|s| s.num_pairs() == 0) {
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
