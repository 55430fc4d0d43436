//! An equilibrium that remembers its routes: Algorithm B's bushes kept between solves, with the two
//! passes over them that matrix estimation needs.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::aon::{SearchGraph, all_or_nothing};
use crate::bush::{BushSolver, Overlap};
use crate::demand::Demand;
use crate::error::TapError;
use crate::network::Network;
use crate::solve::{Monitor, Stop};
use crate::vector::dot;

/// How one equilibrium solve ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Solved {
    /// Measured iterations (the first measures the starting flows).
    pub iterations: u32,
    /// The final relative gap.
    pub gap: f64,
    /// Whether it reached the stop rule's gap.
    pub converged: bool,
}

/// A user equilibrium by origin: every origin's flow on an acyclic subnetwork (its bush), so the
/// share of each OD pair's flow on every link — its route proportions — can be read off. Re-solved
/// warm after the demand changes.
///
/// ```
/// use urbanflow::tap::odme::EquilibriumRoutes;
/// use urbanflow::tap::{CostFactors, Demand, Link, Network, Stop};
/// // Two parallel roads from 0 to 1: t1 = 10 + x/100, t2 = 20; 3000 trips split 1000 / 2000.
/// let road = |t0, b| Link { from: 0, to: 1, capacity: 1000.0, length: 0.0, free_flow_time: t0, b, power: 1.0, toll: 0.0 };
/// let net = Network::new(2, &[road(10.0, 1.0), road(20.0, 0.0)], 0, CostFactors::default()).unwrap();
/// let demand = Demand::from_pairs(&net, [(0, 1, 3000.0)]).unwrap();
/// let stop = Stop { relative_gap: 1e-12, ..Stop::default() };
/// let (routes, _) = EquilibriumRoutes::solve(&net, &demand, stop, false, None).unwrap();
/// // The mean of a link attribute over the pair's routes: a third of the trips use road 1.
/// let mean = routes.od_mean_costs(&net, &[3.0, 0.0]).unwrap();
/// assert!((mean[0] - 1.0).abs() < 1e-9);
/// // 300 more trips along the same routes, in the same shares.
/// let extra = routes.route_flows(&net, &[300.0]).unwrap();
/// assert!((extra[0] - 100.0).abs() < 1e-6 && (extra[1] - 200.0).abs() < 1e-6);
/// ```
pub struct EquilibriumRoutes {
    solver: BushSolver,
    /// The demand first solved: its pairs index the bushes.
    pairs: Demand,
    graph: SearchGraph,
    flows: Vec<f64>,
}

impl EquilibriumRoutes {
    /// Solves the equilibrium of `demand` by Algorithm B from free-flow bushes until `stop`.
    pub fn solve(
        net: &Network,
        demand: &Demand,
        stop: Stop,
        allow_zone_transit: bool,
        cancel: Option<&AtomicBool>,
    ) -> Result<(Self, Solved), TapError> {
        if !net.vdf().is_separable() {
            return Err(TapError::InvalidOption(
                "route proportions need separable link costs (Algorithm B)".into(),
            ));
        }
        let mut routes = Self {
            solver: BushSolver::new(net, demand, allow_zone_transit)?,
            pairs: demand.clone(),
            graph: SearchGraph::new(net, !allow_zone_transit),
            flows: Vec::new(),
        };
        let solved = routes.equilibrate(net, demand, stop, cancel)?;
        Ok((routes, solved))
    }

    /// Puts `demand` — the pairs of the demand first solved, with other flows — on the current routes
    /// in their current shares, then solves its equilibrium from there until `stop`.
    pub fn resolve(
        &mut self,
        net: &Network,
        demand: &Demand,
        stop: Stop,
        cancel: Option<&AtomicBool>,
    ) -> Result<Solved, TapError> {
        if !demand.same_pairs(&self.pairs) {
            return Err(TapError::InvalidOption(
                "a demand with other OD pairs than the one solved: its routes are not these".into(),
            ));
        }
        self.solver.reload(net, demand);
        self.equilibrate(net, demand, stop, cancel)
    }

    /// The equilibrium's link flows, in the network's link order.
    pub fn flows(&self) -> &[f64] {
        &self.flows
    }

    /// For every OD pair of the demand solved (in [`Demand::pairs`] order), the mean of `link_cost`
    /// (one per link, network order) over the pair's routes, weighted by the routes' flows:
    /// `Σ_a link_cost_a p_ij^a`.
    pub fn od_mean_costs(&self, net: &Network, link_cost: &[f64]) -> Result<Vec<f64>, TapError> {
        crate::solve::check_length(link_cost.len(), net.num_links(), "link costs")?;
        Ok(self.solver.od_mean_costs(net, &self.pairs, link_cost))
    }

    /// The link flows (network order) of `values` (one per OD pair of the demand solved, in
    /// [`Demand::pairs`] order) along the current routes in their current shares:
    /// `Σ_ij values_ij p_ij^a`.
    pub fn route_flows(&self, net: &Network, values: &[f64]) -> Result<Vec<f64>, TapError> {
        crate::solve::check_length(values.len(), self.pairs.num_pairs(), "OD values")?;
        Ok(self.solver.route_flows(net, &self.pairs, values))
    }

    fn equilibrate(
        &mut self,
        net: &Network,
        demand: &Demand,
        stop: Stop,
        cancel: Option<&AtomicBool>,
    ) -> Result<Solved, TapError> {
        let mut monitor = Monitor::new(Instant::now(), stop, demand.total(), cancel);
        let graph = &self.graph;
        self.flows = self.solver.run(
            net,
            |x, cost, y| {
                let sptt = all_or_nothing(net, graph, demand, cost, y)?;
                let tstt = dot(cost, x);
                Ok(monitor.record(tstt, tstt, sptt, net.beckmann(x), 0.0, true, &mut |_| {}))
            },
            Overlap::MeasureThenIterate,
        )?;
        let last = monitor.history.last().expect("a solve measures at least once");
        Ok(Solved { iterations: last.iteration, gap: last.relative_gap, converged: monitor.converged })
    }
}
