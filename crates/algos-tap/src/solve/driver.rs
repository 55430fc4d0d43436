//! The iteration loops: the Frank–Wolfe family over an all-or-nothing loader, Algorithm B over bushes,
//! and the per-iteration measurements with the stop rule that both share ([`Monitor`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use gpu_runtime::Backend;

use super::direction::{Combo, DirectionState, Points, direction_costs};
use super::line_search::LineSearch;
use super::{Algorithm, AssignOptions, Assignment, IterationLog, Objective, Stop, check_flows};
use crate::aon::{SearchGraph, all_or_nothing};
use crate::demand::Demand;
use crate::error::TapError;
use crate::loader::AllOrNothing;
use crate::network::Network;
use crate::vector::dot;

pub(super) fn frank_wolfe_family(
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
    let mut monitor = Monitor::new(start, stop, demand.total(), opts.cancel);
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
            let (mut free_flow, mut c0) = (vec![0.0; m], vec![0.0; m]);
            net.costs(&zero, &mut free_flow);
            direction_costs(net, &zero, &free_flow, system_optimum, &mut c0);
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
        direction_costs(net, &x, &cost, system_optimum, &mut g_cost);
        let shadow_y = select_load(&g_cost);
        let sptt = monitor.all_or_nothing(|| loader.load(net, demand, &g_cost, &mut y))?;
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
        loaded_by: loader.describe(),
    })
}

/// Algorithm B with the same measurements and stop rule as the Frank–Wolfe family.
pub(super) fn assign_b(
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
    let mut monitor = Monitor::new(start, stop, demand.total(), opts.cancel);
    let flows = crate::bush::solve(net, demand, opts.allow_zone_transit, |m, y| {
        let sptt = monitor.all_or_nothing(|| all_or_nothing(net, &g, demand, &m.cost, y))?;
        let tstt = dot(&m.cost, &m.x);
        Ok(monitor.record(tstt, tstt, sptt, net.beckmann(&m.x), 0.0, true, &mut progress))
    })?;
    let mut costs = vec![0.0; net.num_links()];
    net.costs(&flows, &mut costs);
    Ok(Assignment {
        flows,
        costs,
        history: monitor.history,
        converged: monitor.converged,
        select_link: Vec::new(),
        loaded_by: format!("cpu ({} threads), Algorithm B's bushes", rayon::current_num_threads()),
    })
}

/// The per-iteration measurements and the stop rule, shared by every method.
pub(crate) struct Monitor<'a> {
    start: Instant,
    /// Set from another thread to stop after the current iteration ([`AssignOptions::cancel`]).
    cancel: Option<&'a AtomicBool>,
    stop: Stop,
    total_demand: f64,
    pub(crate) history: Vec<IterationLog>,
    lower_bound: f64,
    below: u32,
    pub(crate) converged: bool,
    /// The current iteration's all-or-nothing time, for its log.
    all_or_nothing_s: f64,
}

impl<'a> Monitor<'a> {
    pub(crate) fn new(start: Instant, stop: Stop, total_demand: f64, cancel: Option<&'a AtomicBool>) -> Self {
        Self {
            start,
            cancel,
            stop,
            total_demand,
            history: Vec::new(),
            lower_bound: f64::NEG_INFINITY,
            below: 0,
            converged: false,
            all_or_nothing_s: 0.0,
        }
    }

    /// Runs the iteration's all-or-nothing loading, timed for its log ([`IterationLog::all_or_nothing_s`]).
    pub(crate) fn all_or_nothing<T>(&mut self, load: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let result = load();
        self.all_or_nothing_s = t.elapsed().as_secs_f64();
        result
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
            all_or_nothing_s: std::mem::take(&mut self.all_or_nothing_s),
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
            || self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }
}
