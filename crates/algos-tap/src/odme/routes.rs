//! An equilibrium that remembers its routes: Algorithm B's bushes kept between solves, with the two
//! passes over them that matrix estimation needs.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::aon::SearchGraph;
use crate::bush::{BushSolver, Overlap};
use crate::classes::{MeasuredClass, UserClass, classes_sptt};
use crate::demand::Demand;
use crate::error::TapError;
use crate::network::Network;
use crate::solve::{IterationLog, Monitor, Stop};
use crate::vector::dot;
use gpu_runtime::Backend;

/// The two passes over one class's routes ([`EquilibriumRoutes::passes`]), on the CPU or resident on a
/// GPU; the routes cannot change while they live.
pub struct RoutePasses<'a> {
    routes: &'a EquilibriumRoutes,
    class: usize,
    #[cfg(feature = "gpu")]
    device: Option<crate::bush::GpuBushes<'a>>,
    #[cfg(not(feature = "gpu"))]
    device: Option<std::convert::Infallible>,
}

impl RoutePasses<'_> {
    /// [`EquilibriumRoutes::class_od_mean_costs`] of this class.
    pub fn od_mean_costs(&self, net: &Network, link_cost: &[f64]) -> Result<Vec<f64>, TapError> {
        match &self.device {
            None => self.routes.class_od_mean_costs(net, self.class, link_cost),
            #[cfg(feature = "gpu")]
            Some(gpu) => {
                crate::solve::check_length(link_cost.len(), net.num_links(), "link costs")?;
                gpu.od_mean_costs(&self.routes.solver.topo.to_internal_order(link_cost))
            }
            #[cfg(not(feature = "gpu"))]
            Some(never) => match *never {},
        }
    }

    /// [`EquilibriumRoutes::class_route_flows`] of this class.
    pub fn route_flows(&self, net: &Network, values: &[f64]) -> Result<Vec<f64>, TapError> {
        match &self.device {
            None => self.routes.class_route_flows(net, self.class, values),
            #[cfg(feature = "gpu")]
            Some(gpu) => {
                let pairs = self.routes.class(self.class)?.pairs.num_pairs();
                crate::solve::check_length(values.len(), pairs, "OD values")?;
                Ok(self.routes.solver.topo.to_network_order(&gpu.route_flows(values)?))
            }
            #[cfg(not(feature = "gpu"))]
            Some(never) => match *never {},
        }
    }

    /// Whether the passes run on a GPU.
    pub fn on_gpu(&self) -> bool {
        self.device.is_some()
    }
}

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
    /// Per class: its name, PCE, extra cost per link (network order; empty for none) and the demand
    /// first solved, whose pairs index its bushes.
    classes: Vec<RouteClass>,
    graph: SearchGraph,
    flows: Vec<f64>,
}

struct RouteClass {
    name: String,
    pce: f64,
    extra: Vec<f64>,
    pairs: Demand,
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
        Self::solve_measured(net, vec![MeasuredClass::plain(demand)], stop, allow_zone_transit, cancel)
    }

    /// Solves the equilibrium of several user classes (their own demand, PCE, fixed costs and banned
    /// links, sharing the congestion: [`crate::multiclass`]) by Algorithm B, one set of bushes per class,
    /// until `stop`. [`Self::flows`] are then in PCE units; [`Self::class_flows`] gives each class's
    /// vehicles.
    ///
    /// ```
    /// use urbanflow::tap::odme::EquilibriumRoutes;
    /// use urbanflow::tap::multiclass::UserClass;
    /// use urbanflow::tap::{CostFactors, Demand, Link, Network, Stop};
    /// // Two parallel roads: t1 = 10 + x/100, t2 = 20. Trucks (PCE 2) may not use road 1.
    /// let road = |t0, b| Link { from: 0, to: 1, capacity: 1000.0, length: 0.0, free_flow_time: t0, b, power: 1.0, toll: 0.0 };
    /// let net = Network::new(2, &[road(10.0, 1.0), road(20.0, 0.0)], 0, CostFactors::default()).unwrap();
    /// let cars = UserClass::new("cars", Demand::from_pairs(&net, [(0, 1, 3000.0)]).unwrap());
    /// let trucks = UserClass { banned: vec![0], ..UserClass::new("trucks", Demand::from_pairs(&net, [(0, 1, 100.0)]).unwrap()) }.with_pce(2.0);
    /// let stop = Stop { relative_gap: 1e-12, ..Stop::default() };
    /// let (routes, _) = EquilibriumRoutes::solve_classes(&net, &[cars, trucks], stop, false, None).unwrap();
    /// assert_eq!(routes.class_flows(1), vec![0.0, 100.0]);
    /// // Cars fill road 1 until it costs 20: 1000 cars, the other 2000 on road 2 beside 200 PCE of trucks.
    /// assert!((routes.flows()[0] - 1000.0).abs() < 1e-6 && (routes.flows()[1] - 2200.0).abs() < 1e-6);
    /// ```
    pub fn solve_classes(
        net: &Network,
        classes: &[UserClass],
        stop: Stop,
        allow_zone_transit: bool,
        cancel: Option<&AtomicBool>,
    ) -> Result<(Self, Solved), TapError> {
        let measured = crate::classes::measured_classes(net, classes)?;
        Self::solve_measured(net, measured, stop, allow_zone_transit, cancel)
    }

    fn solve_measured(
        net: &Network,
        classes: Vec<MeasuredClass>,
        stop: Stop,
        allow_zone_transit: bool,
        cancel: Option<&AtomicBool>,
    ) -> Result<(Self, Solved), TapError> {
        let mut routes = Self::new(net, classes, allow_zone_transit)?;
        let solved = routes.equilibrate(net, None, stop, cancel)?;
        Ok((routes, solved))
    }

    /// Free-flow bushes of every class, not yet solved.
    pub(crate) fn new(
        net: &Network,
        classes: Vec<MeasuredClass>,
        allow_zone_transit: bool,
    ) -> Result<Self, TapError> {
        if !net.vdf().is_separable() {
            return Err(TapError::InvalidOption(
                "Algorithm B and route proportions need separable link costs".into(),
            ));
        }
        let topo = crate::bush::Topology::new(net);
        let bush_classes: Vec<_> = classes.iter().map(|c| (c.bush_class(&topo), c.demand)).collect();
        Ok(Self {
            solver: BushSolver::new(net, &bush_classes, allow_zone_transit)?,
            classes: classes
                .iter()
                .map(|c| RouteClass {
                    name: c.name.clone(),
                    pce: c.pce,
                    extra: c.extra.clone(),
                    pairs: c.demand.clone(),
                })
                .collect(),
            graph: SearchGraph::new(net, !allow_zone_transit),
            flows: Vec::new(),
        })
    }

    /// Puts `demand` — the pairs of the demand first solved, with other flows — on the current routes
    /// in their current shares, then solves its equilibrium from there until `stop` (one class).
    pub fn resolve(
        &mut self,
        net: &Network,
        demand: &Demand,
        stop: Stop,
        cancel: Option<&AtomicBool>,
    ) -> Result<Solved, TapError> {
        self.resolve_classes(net, std::slice::from_ref(demand), stop, cancel)
    }

    /// [`Self::resolve`] with one demand per class, in the classes' order.
    pub fn resolve_classes(
        &mut self,
        net: &Network,
        demands: &[Demand],
        stop: Stop,
        cancel: Option<&AtomicBool>,
    ) -> Result<Solved, TapError> {
        if demands.len() != self.classes.len() {
            return Err(TapError::InvalidOption(format!(
                "{} demands for {} classes",
                demands.len(),
                self.classes.len()
            )));
        }
        for (d, c) in demands.iter().zip(&self.classes) {
            if !d.same_pairs(&c.pairs) {
                return Err(TapError::InvalidOption(format!(
                    "class {}: a demand with other OD pairs than the one solved: its routes are not these",
                    c.name
                )));
            }
        }
        let refs: Vec<&Demand> = demands.iter().collect();
        self.solver.reload(net, &refs);
        self.equilibrate(net, Some(demands), stop, cancel)
    }

    /// The equilibrium's link flows, in the network's link order (PCE units: vehicles with one plain
    /// class).
    pub fn flows(&self) -> &[f64] {
        &self.flows
    }

    /// Number of classes.
    pub fn num_classes(&self) -> usize {
        self.classes.len()
    }

    /// Class `class`'s vehicles per link, in the network's link order.
    pub fn class_flows(&self, class: usize) -> Vec<f64> {
        self.solver.class_flows(class)
    }

    /// For every OD pair of the demand solved (in [`Demand::pairs`] order), the mean of `link_cost`
    /// (one per link, network order) over the pair's routes, weighted by the routes' flows:
    /// `Σ_a link_cost_a p_ij^a` (the first class; [`Self::class_od_mean_costs`] for others).
    pub fn od_mean_costs(&self, net: &Network, link_cost: &[f64]) -> Result<Vec<f64>, TapError> {
        self.class_od_mean_costs(net, 0, link_cost)
    }

    /// [`Self::od_mean_costs`] over class `class`'s routes.
    pub fn class_od_mean_costs(
        &self,
        net: &Network,
        class: usize,
        link_cost: &[f64],
    ) -> Result<Vec<f64>, TapError> {
        crate::solve::check_length(link_cost.len(), net.num_links(), "link costs")?;
        let c = self.class(class)?;
        Ok(self.solver.od_mean_costs(net, class, &c.pairs, link_cost))
    }

    /// The link flows (network order) of `values` (one per OD pair of the demand solved, in
    /// [`Demand::pairs`] order) along the current routes in their current shares:
    /// `Σ_ij values_ij p_ij^a` (the first class; [`Self::class_route_flows`] for others).
    pub fn route_flows(&self, net: &Network, values: &[f64]) -> Result<Vec<f64>, TapError> {
        self.class_route_flows(net, 0, values)
    }

    /// [`Self::route_flows`] along class `class`'s routes (vehicles of the class).
    pub fn class_route_flows(
        &self,
        net: &Network,
        class: usize,
        values: &[f64],
    ) -> Result<Vec<f64>, TapError> {
        let c = self.class(class)?;
        crate::solve::check_length(values.len(), c.pairs.num_pairs(), "OD values")?;
        Ok(self.solver.route_flows(net, class, &c.pairs, values))
    }

    /// The two passes over class `class`'s routes on `backend`, for as long as the routes stay as they
    /// are: on a GPU the class's bushes are uploaded here, once, and each pass then sends one vector
    /// and reads one back. [`Backend::Auto`] runs them on the CPU: in matrix estimation they take 1–2 %
    /// of an outer iteration on 16 cores (docs/odme.md), the rest being the equilibrium.
    ///
    /// ```
    /// use urbanflow::gpu::Backend;
    /// use urbanflow::tap::odme::EquilibriumRoutes;
    /// use urbanflow::tap::{CostFactors, Demand, Link, Network, Stop};
    /// let road = |t0, b| Link { from: 0, to: 1, capacity: 1000.0, length: 0.0, free_flow_time: t0, b, power: 1.0, toll: 0.0 };
    /// let net = Network::new(2, &[road(10.0, 1.0), road(20.0, 0.0)], 0, CostFactors::default()).unwrap();
    /// let demand = Demand::from_pairs(&net, [(0, 1, 3000.0)]).unwrap();
    /// let stop = Stop { relative_gap: 1e-12, ..Stop::default() };
    /// let (routes, _) = EquilibriumRoutes::solve(&net, &demand, stop, false, None).unwrap();
    /// let passes = routes.passes(Backend::Cpu, 0).unwrap();
    /// let mean = passes.od_mean_costs(&net, &[3.0, 0.0]).unwrap();
    /// assert!((mean[0] - 1.0).abs() < 1e-9);
    /// ```
    pub fn passes<'a>(&'a self, backend: Backend<'a>, class: usize) -> Result<RoutePasses<'a>, TapError> {
        self.passes_in_blocks(backend, class, None)
    }

    /// [`Self::passes`] with the bushes on a GPU in blocks of at most `block_bytes` per buffer (tests:
    /// several blocks on a small network).
    #[doc(hidden)]
    pub fn passes_in_blocks<'a>(
        &'a self,
        backend: Backend<'a>,
        class: usize,
        block_bytes: Option<usize>,
    ) -> Result<RoutePasses<'a>, TapError> {
        self.class(class)?;
        let device = match backend {
            Backend::Cpu | Backend::Auto => None,
            #[cfg(not(feature = "gpu"))]
            Backend::Gpu(ctx) => {
                let _ = block_bytes;
                ctx.unbuilt()
            }
            #[cfg(feature = "gpu")]
            Backend::Gpu(ctx) => {
                Some(self.solver.upload_class(ctx, class, &self.class(class)?.pairs, block_bytes)?)
            }
        };
        Ok(RoutePasses { routes: self, class, device })
    }

    fn class(&self, class: usize) -> Result<&RouteClass, TapError> {
        self.classes.get(class).ok_or_else(|| {
            TapError::InvalidOption(format!("class {class}: there are {} classes", self.classes.len()))
        })
    }

    fn equilibrate(
        &mut self,
        net: &Network,
        demands: Option<&[Demand]>,
        stop: Stop,
        cancel: Option<&AtomicBool>,
    ) -> Result<Solved, TapError> {
        let mut monitor = Monitor::new(Instant::now(), stop, self.total_pce(demands), cancel);
        self.equilibrate_with(net, demands, &mut monitor, &mut |_| {})?;
        let last = monitor.history.last().expect("a solve measures at least once");
        Ok(Solved { iterations: last.iteration, gap: last.relative_gap, converged: monitor.converged })
    }

    /// `Σ_k pce_k` × class `k`'s total demand (`demands`, or the pairs first solved).
    pub(crate) fn total_pce(&self, demands: Option<&[Demand]>) -> f64 {
        self.classes
            .iter()
            .enumerate()
            .map(|(k, c)| c.pce * demands.map_or(&c.pairs, |d| &d[k]).total())
            .sum()
    }

    /// Algorithm B from the bushes as they are until `monitor` (measuring every class at its own
    /// costs, in PCE units) says stop; `demands` are the classes' demands on the bushes (`None`: the
    /// pairs first solved).
    pub(crate) fn equilibrate_with(
        &mut self,
        net: &Network,
        demands: Option<&[Demand]>,
        monitor: &mut Monitor,
        progress: &mut impl FnMut(&IterationLog),
    ) -> Result<(), TapError> {
        let graph = &self.graph;
        let measured: Vec<MeasuredClass> = self
            .classes
            .iter()
            .enumerate()
            .map(|(k, c)| MeasuredClass {
                name: c.name.clone(),
                pce: c.pce,
                extra: c.extra.clone(),
                demand: demands.map_or(&c.pairs, |d| &d[k]),
            })
            .collect();
        self.flows = self.solver.run(
            net,
            |m, y| {
                let sptt = monitor.all_or_nothing(|| classes_sptt(net, graph, &measured, &m.cost, y))?;
                let tstt = dot(&m.cost, &m.x) + m.class_extra;
                let objective = net.beckmann(&m.x) + m.class_extra;
                Ok(monitor.record(tstt, tstt, sptt, objective, 0.0, true, progress))
            },
            Overlap::MeasureThenIterate,
        )?;
        Ok(())
    }
}
