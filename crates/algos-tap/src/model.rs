//! A travel model's loop: skims → trip distribution → assignment → skims, until demand and congestion
//! agree.
//!
//! Loop 1 distributes trips over the free-flow skims and assigns them. Every later loop skims the last
//! equilibrium (generalised cost along its shortest paths), distributes again by the gravity model,
//! averages the new matrix with the current one (the method of successive averages by default: loop
//! `k` moves `1/k` of the way), and re-solves the equilibrium warm: Algorithm B's bushes keep their
//! routes and carry the new matrix ([`crate::odme::EquilibriumRoutes::resolve`]). The loop ends when the
//! matrix changes by less than [`ModelOptions::demand_change`] (relative, summed over cells) and the
//! equilibrium met its gap.
//!
//! ```
//! use urbanflow::tap::model::{ModelOptions, run_model};
//! use urbanflow::tap::matrix::Deterrence;
//! use urbanflow::tap::{CostFactors, Network};
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data");
//! let net = Network::read_tntp(format!("{dir}/SiouxFalls_net.tntp"), CostFactors::default())?;
//! let totals = vec![15_000.0; 24]; // productions = attractions for every zone
//! let opts = ModelOptions::new(Deterrence::Exponential { beta: 0.1 });
//! let result = run_model(&net, &totals, &totals, &opts, |_| {})?;
//! assert!(result.converged, "{:?}", result.history.last());
//! # Ok::<(), urbanflow::tap::TapError>(())
//! ```

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::demand::Demand;
use crate::error::TapError;
use crate::matrix::{Constraint, Deterrence, IpfOptions, gravity, mean_cost};
use crate::network::Network;
use crate::odme::EquilibriumRoutes;
use crate::skim::{Skims, skims};
use crate::solve::Stop;

/// How the new matrix of a loop is averaged with the current one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Averaging {
    /// Loop `k` moves `1/k` of the way (the method of successive averages).
    Msa,
    /// Every loop moves this share of the way (0 < w ≤ 1).
    Fixed(f64),
}

/// How to run the loop.
#[derive(Debug, Clone)]
pub struct ModelOptions<'a> {
    /// The gravity model's deterrence of the generalised cost.
    pub deterrence: Deterrence,
    /// Doubly constrained (IPF) or production constrained.
    pub constraint: Constraint,
    /// IPF's tolerance and cap.
    pub ipf: IpfOptions,
    /// Each equilibrium's stop rule (Algorithm B). Default: relative gap 1e-4.
    pub assignment: Stop,
    /// At most this many loops.
    pub max_loops: u32,
    /// Stop when the matrix changes by less than this, `Σ |D_k − D_{k−1}| / Σ D_{k−1}`. Default 1e-3.
    pub demand_change: f64,
    /// MSA by default.
    pub averaging: Averaging,
    /// Let paths pass through zones below `<FIRST THRU NODE>` (blocked by default).
    pub allow_zone_transit: bool,
    /// Stops at the end of the loop during which it is set.
    pub cancel: Option<&'a AtomicBool>,
}

impl ModelOptions<'_> {
    /// The defaults with this deterrence.
    pub fn new(deterrence: Deterrence) -> Self {
        Self {
            deterrence,
            constraint: Constraint::Doubly,
            ipf: IpfOptions::default(),
            assignment: Stop { relative_gap: 1e-4, ..Stop::default() },
            max_loops: 50,
            demand_change: 1e-3,
            averaging: Averaging::Msa,
            allow_zone_transit: false,
            cancel: None,
        }
    }
}

/// One loop's report.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelLoop {
    /// 1-based.
    pub iteration: u32,
    /// Seconds since the run started, at the end of this loop.
    pub seconds: f64,
    /// `Σ |D_k − D_{k−1}| / Σ D_{k−1}` (1 for the first loop).
    pub demand_change: f64,
    /// The equilibrium's relative gap.
    pub relative_gap: f64,
    /// Its Algorithm B iterations.
    pub assignment_iterations: u32,
    /// Trips between distinct zones (assigned).
    pub total_demand: f64,
    /// The trip-weighted mean generalised cost of the skims the matrix was distributed on.
    pub mean_cost: f64,
    /// IPF iterations of this loop's distribution.
    pub ipf_iterations: u32,
}

/// The loop's result.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelResult {
    /// The final matrix, dense (`zones × zones`, row-major, zone indices), intrazonal cells included.
    pub matrix: Vec<f64>,
    /// The same, as the assigned demand (intrazonal trips are not assigned).
    pub demand: Demand,
    /// Its equilibrium's link flows and costs.
    pub flows: Vec<f64>,
    /// See `flows`.
    pub costs: Vec<f64>,
    /// Skims of that equilibrium.
    pub skims: Skims,
    /// One entry per loop.
    pub history: Vec<ModelLoop>,
    /// Whether the matrix settled (and the last equilibrium met its gap) within `max_loops`.
    pub converged: bool,
}

/// Runs the loop for zone `productions` and `attractions` (one per zone, zone index order).
pub fn run_model(
    net: &Network,
    productions: &[f64],
    attractions: &[f64],
    opts: &ModelOptions,
    mut progress: impl FnMut(&ModelLoop),
) -> Result<ModelResult, TapError> {
    let zones = net.num_zones() as usize;
    if productions.len() != zones || attractions.len() != zones {
        return Err(TapError::InvalidOption(format!(
            "{} productions and {} attractions for {zones} zones",
            productions.len(),
            attractions.len()
        )));
    }
    if opts.max_loops == 0 || opts.demand_change.is_nan() || opts.demand_change < 0.0 {
        return Err(TapError::InvalidOption(
            "the loop needs at least one loop and a demand change ≥ 0".into(),
        ));
    }
    if let Averaging::Fixed(w) = opts.averaging {
        if !(w > 0.0 && w <= 1.0) {
            return Err(TapError::InvalidOption(format!("averaging weight {w}: expected 0 < w ≤ 1")));
        }
    }
    let start = Instant::now();
    let m = net.num_links();
    let (mut flows, mut costs) = (vec![0.0; m], vec![0.0; m]);
    net.costs(&flows, &mut costs);
    let mut matrix: Vec<f64> = Vec::new();
    let mut routes: Option<(EquilibriumRoutes, Demand)> = None;
    let mut history = Vec::new();
    let mut converged = false;
    let mut sk = skims(net, &flows, &costs)?;
    for iteration in 1..=opts.max_loops {
        let distributed =
            gravity(&sk.cost, productions, attractions, opts.deterrence.clone(), opts.constraint, &opts.ipf)?;
        let mean_cost = mean_cost(&distributed.matrix, &sk.cost);
        let change = if matrix.is_empty() {
            matrix = distributed.matrix;
            1.0
        } else {
            let w = match opts.averaging {
                Averaging::Msa => 1.0 / f64::from(iteration),
                Averaging::Fixed(w) => w,
            };
            let before: f64 = matrix.iter().sum();
            let mut moved = 0.0;
            for (d, g) in matrix.iter_mut().zip(&distributed.matrix) {
                let step = w * (g - *d);
                *d += step;
                moved += step.abs();
            }
            if before > 0.0 { moved / before } else { 0.0 }
        };
        let demand = demand_of(net, &matrix, zones)?;
        let solved = match &mut routes {
            Some((r, pairs)) if demand.same_pairs(pairs) => {
                r.resolve(net, &demand, opts.assignment, opts.cancel)?
            }
            _ => {
                let (r, solved) = EquilibriumRoutes::solve(
                    net,
                    &demand,
                    opts.assignment,
                    opts.allow_zone_transit,
                    opts.cancel,
                )?;
                routes = Some((r, demand.clone()));
                solved
            }
        };
        flows = routes.as_ref().expect("solved above").0.flows().to_vec();
        net.costs(&flows, &mut costs);
        let log = ModelLoop {
            iteration,
            seconds: start.elapsed().as_secs_f64(),
            demand_change: change,
            relative_gap: solved.gap,
            assignment_iterations: solved.iterations,
            total_demand: demand.total(),
            mean_cost,
            ipf_iterations: distributed.iterations,
        };
        progress(&log);
        history.push(log);
        sk = skims(net, &flows, &costs)?;
        if iteration > 1 && change < opts.demand_change && solved.converged {
            converged = true;
            break;
        }
        if opts.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            break;
        }
    }
    let demand = demand_of(net, &matrix, zones)?;
    Ok(ModelResult { matrix, demand, flows, costs, skims: sk, history, converged })
}

/// `demand` as a dense `zones × zones` matrix (row-major, zone indices; intrazonal cells 0: demand
/// keeps only their total). Pairs between nodes that are not zones are an error.
pub fn dense_matrix(demand: &Demand, zones: usize) -> Result<Vec<f64>, TapError> {
    let mut m = vec![0.0; zones * zones];
    for (o, d, f) in demand.pairs() {
        let (i, j) = (o as usize, d as usize);
        if i >= zones || j >= zones {
            return Err(TapError::InvalidOption(format!(
                "demand between nodes {i} and {j}, not both among the {zones} zones"
            )));
        }
        m[i * zones + j] = f;
    }
    Ok(m)
}

/// The dense matrix (zone indices) as demand between the network's zone nodes.
fn demand_of(net: &Network, matrix: &[f64], zones: usize) -> Result<Demand, TapError> {
    let pairs = matrix.iter().enumerate().map(|(k, &v)| ((k / zones) as u32, (k % zones) as u32, v));
    Demand::from_pairs(net, pairs)
}
