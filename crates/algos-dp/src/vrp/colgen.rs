//! A CVRP root lower bound by column generation over a route relaxation.
//!
//! Master LP (set partitioning over the relaxation's routes r, with a_ir the visits of customer i):
//! `min Σ c_r x_r  s.t.  Σ_r a_ir x_r = 1 ∀ i,  x ≥ 0`, solved for its duals u by a warm-started
//! primal simplex or an interior point ([`MasterLp`]). Pricing runs a [`Pricer`] on the reduced costs `c_ij − u_j`: the CPU's q-path
//! or ng-path DP (with subset dominance), or a GPU engine ([`super::GpuNgPricer`], [`super::GpuQPaths`]).
//!
//! **Certified bound every round**: for any u, every feasible x has
//! `Σ c_r x_r = Σ_i u_i + Σ_r x_r rc_r ≥ Σ_i u_i + D · min(0, ρ)` where ρ is the least reduced cost per
//! unit of load over all routes of the relaxation (the DP's exact minimum of `rc_r / q_r`) and
//! `D = Σ_r q_r x_r = Σ_i d_i` the total demand. The reported bound is the best of these, so LP
//! tolerances can weaken it but never make it invalid.

use std::collections::HashSet;
use std::time::Instant;

use super::master::{Master, MasterLp};
use super::{ArcCosts, Costs, CpuPricer, Cvrp, DpError, Pricer};

/// Which relaxation prices the columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relaxation {
    /// q-routes with 2-cycle elimination.
    QRoute,
    /// ng-routes with Δ nearest neighbours.
    NgRoute {
        /// |N_i|.
        delta: usize,
    },
}

/// Options of [`root_bound`].
#[derive(Debug, Clone)]
pub struct BoundOptions {
    /// The relaxation.
    pub relaxation: Relaxation,
    /// rayon over customers within a DP stage.
    pub parallel: bool,
    /// Pricing rounds at most.
    pub max_rounds: u32,
    /// Columns added per round at most (the most negative ones).
    pub columns_per_round: usize,
    /// Stop when the least reduced cost is ≥ −tolerance.
    pub tolerance: f64,
    /// ng labels kept at most per DP call (24 bytes each; default 50 M ≈ 1.2 GB).
    pub max_states: usize,
    /// Stop after this many seconds (the bound so far stays valid).
    pub max_seconds: Option<f64>,
    /// Wentges dual smoothing factor α in [0, 1) (0: none).
    pub smoothing: f64,
    /// Master columns per customer at most (0: no limit): beyond `n ·` this, the columns of largest
    /// reduced cost are dropped down to half (the single-customer routes stay), and may come back.
    /// The LP's time grows with its columns and dominates once pricing runs on a GPU: 20 took
    /// X-n153-k22 from 24.3 s of LP to 5.9 s (147 → 182 rounds, same bound; docs/benchmarks.md).
    pub columns_per_customer: usize,
    /// The master LP's solver.
    pub master: MasterLp,
}

impl Default for BoundOptions {
    fn default() -> Self {
        Self {
            relaxation: Relaxation::NgRoute { delta: 8 },
            parallel: true,
            max_rounds: 10_000,
            columns_per_round: 100,
            tolerance: 1e-6,
            max_states: 50_000_000,
            max_seconds: None,
            smoothing: 0.8,
            columns_per_customer: 20,
            master: MasterLp::default(),
        }
    }
}

/// One pricing round.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Round {
    /// 1-based.
    pub round: u32,
    /// The restricted master's value.
    pub lp_value: f64,
    /// The least reduced cost the DP found (at the point priced last).
    pub min_reduced_cost: f64,
    /// The certified bound of this round, `Σ u + D · min(0, min rc/load)`.
    pub bound: f64,
    /// Columns added.
    pub added: usize,
    /// Seconds since the start.
    pub seconds: f64,
    /// Seconds of this round's DP.
    pub pricing_s: f64,
    /// Seconds of this round's master LP.
    pub lp_s: f64,
}

/// The result of [`root_bound`].
#[derive(Debug, Clone)]
pub struct BoundReport {
    /// The best certified lower bound (the relaxation's LP bound once `converged`).
    pub lower_bound: f64,
    /// True when pricing found no column below −tolerance.
    pub converged: bool,
    /// Pricing rounds.
    pub rounds: u32,
    /// Columns generated (the n single-customer routes included; purged ones still counted).
    pub columns: usize,
    /// Seconds.
    pub seconds: f64,
    /// Seconds in the DPs.
    pub pricing_s: f64,
    /// Seconds in the master LP.
    pub lp_s: f64,
    /// Simplex pivots of the master in all (0 with [`MasterLp::InteriorPoint`]).
    pub lp_pivots: u64,
    /// The final duals, one per customer.
    pub duals: Vec<f64>,
    /// One entry per round.
    pub history: Vec<Round>,
}

/// The root bound of `inst` by column generation with `opts.relaxation` pricing; `progress` sees every
/// round.
///
/// ```
/// use urbanflow::dp::vrp::{BoundOptions, Cvrp, Relaxation, root_bound};
/// // Three customers on a line at 1, 2, 3 from the depot, capacity for two of them.
/// let x = [0.0f64, 1.0, 2.0, 3.0];
/// let cost: Vec<f64> = (0..16).map(|k| (x[k / 4] - x[k % 4]).abs()).collect();
/// let inst = Cvrp::new("line", vec![0, 1, 1, 1], 2, cost)?;
/// let opts = BoundOptions { relaxation: Relaxation::NgRoute { delta: 3 }, ..BoundOptions::default() };
/// let r = root_bound(&inst, &opts, &mut |_| {})?;
/// // The optimum is 0-3-2-0 (6) + 0-1-0 (2) = 8: a lower bound cannot exceed it.
/// assert!(r.converged && r.lower_bound <= 8.0 + 1e-6);
/// # Ok::<(), urbanflow::dp::DpError>(())
/// ```
pub fn root_bound(
    inst: &Cvrp,
    opts: &BoundOptions,
    progress: &mut dyn FnMut(&Round),
) -> Result<BoundReport, DpError> {
    let mut pricer = CpuPricer::new(inst, opts.relaxation, opts.parallel, opts.max_states)?;
    root_bound_with(inst, opts, &mut pricer, progress)
}

/// [`root_bound`] with a given pricing engine (for example a [`GpuNgPricer`](super::GpuNgPricer)); `opts.relaxation`,
/// `parallel` and `max_states` are the pricer's business then.
pub fn root_bound_with(
    inst: &Cvrp,
    opts: &BoundOptions,
    pricer: &mut dyn Pricer,
    progress: &mut dyn FnMut(&Round),
) -> Result<BoundReport, DpError> {
    let start = Instant::now();
    if !(0.0..1.0).contains(&opts.smoothing) {
        return Err(DpError::Shape(format!("smoothing α = {}: must lie in [0, 1)", opts.smoothing)));
    }
    let n = inst.customers();
    let mut master = Master::new(n, opts.master);
    let mut seen: HashSet<Vec<u32>> = HashSet::new();
    for i in 1..=n {
        master.add(&[i as u32], inst.cost(0, i) + inst.cost(i, 0));
        seen.insert(vec![i as u32]);
    }
    let mut report = BoundReport {
        lower_bound: f64::NEG_INFINITY,
        converged: false,
        rounds: 0,
        columns: n,
        seconds: 0.0,
        pricing_s: 0.0,
        lp_s: 0.0,
        lp_pivots: 0,
        duals: Vec::new(),
        history: Vec::new(),
    };
    let total_demand: f64 = inst.demands().iter().map(|&d| d as f64).sum();
    let k = opts.columns_per_round.max(1);
    // Wentges smoothing: price at α·(duals of the best bound) + (1 − α)·(LP duals); a round that finds
    // no new column there prices again at the LP duals ("misprice"), so convergence is unchanged.
    let mut center: Option<Vec<f64>> = None;
    while report.rounds < opts.max_rounds {
        report.rounds += 1;
        let t = Instant::now();
        let sol = master.solve()?;
        let lp_s = t.elapsed().as_secs_f64();
        report.lp_s += lp_s;
        let (lp_duals, lp_value) = (sol.duals, sol.value);
        let limit = opts.columns_per_customer.max(2) * n;
        if opts.columns_per_customer > 0 && master.len() > limit {
            for route in master.purge(&lp_duals, n, limit / 2) {
                seen.remove(&route);
            }
        }
        let mut alpha = if center.is_some() { opts.smoothing } else { 0.0 };
        let (mut added, mut pricing_s, mut rc_min, mut bound);
        loop {
            let point: Vec<f64> = match &center {
                Some(c) if alpha > 0.0 => {
                    c.iter().zip(&lp_duals).map(|(c, l)| alpha * c + (1.0 - alpha) * l).collect()
                }
                _ => lp_duals.clone(),
            };
            let t = Instant::now();
            let arcs = ArcCosts::new(inst, &Costs::Reduced(&point))?;
            let priced = pricer.price(&arcs, k)?;
            pricing_s = t.elapsed().as_secs_f64();
            report.pricing_s += pricing_s;
            rc_min = priced.routes.first().map_or(0.0, |r| r.cost);
            bound = point.iter().sum::<f64>() + total_demand * priced.min_ratio.min(0.0);
            if bound > report.lower_bound {
                report.lower_bound = bound;
                report.duals = point.clone();
                center = Some(point);
            }
            added = 0;
            for r in priced.routes.iter().filter(|r| r.cost < -opts.tolerance) {
                if seen.insert(r.customers.clone()) {
                    master.add(&r.customers, inst.route_cost(&r.customers));
                    added += 1;
                }
            }
            if added > 0 || alpha == 0.0 {
                break;
            }
            alpha = 0.0;
        }
        report.columns += added;
        let round = Round {
            round: report.rounds,
            lp_value,
            min_reduced_cost: rc_min,
            bound,
            added,
            seconds: start.elapsed().as_secs_f64(),
            pricing_s,
            lp_s,
        };
        report.history.push(round);
        progress(&round);
        // Converged: nothing prices out at the LP duals, or the certified bound reached the LP value.
        let gap_closed = report.lower_bound >= lp_value - opts.tolerance * lp_value.abs().max(1.0);
        if added == 0 || gap_closed {
            report.converged = rc_min >= -opts.tolerance || gap_closed;
            break;
        }
        if opts.max_seconds.is_some_and(|m| start.elapsed().as_secs_f64() >= m) {
            break;
        }
    }
    report.seconds = start.elapsed().as_secs_f64();
    report.lp_pivots = master.pivots();
    Ok(report)
}
