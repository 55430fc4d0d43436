//! Several user classes in one equilibrium: cars and trucks, tolled and untolled drivers, each with its
//! own demand, passenger-car equivalent (PCE), fixed costs and banned links, sharing the congestion.
//!
//! Model (the one AequilibraE solves, so results compare): class flows `x^k` counted in PCE units, total
//! `X = Σ_k x^k`; class `k` routes on `c^k_a = c_a(X_a) + φ^k_a` (the network's generalised cost at the
//! total, plus the class's fixed cost; a banned link is never used). This equilibrium minimises the
//! convex `Σ_a ∫_0^{X_a} c_a + Σ_k Σ_a φ^k_a x^k_a`, whose gradient in a class's vehicle flows is its
//! PCE times its cost, so the Frank–Wolfe family applies unchanged: one all-or-nothing loading per
//! class, the line search on the totals plus the fixed-cost term, conjugate coefficients from the totals
//! (cross-class products sum to them), every class's flows combined with the same steps. The relative
//! gap counts every class's costs in PCE units (AequilibraE's counts congested time only; they agree
//! where there are no fixed costs).

pub use crate::classes::UserClass;

use std::time::Instant;

use crate::aon::{SearchGraph, all_or_nothing, all_or_nothing_shared};
use crate::classes::{Class, validate};
use crate::demand::Demand;
use crate::error::TapError;
use crate::fixed::link_flows;
use crate::hierarchy::CchAon;
use crate::network::Network;
use crate::odme::EquilibriumRoutes;
use crate::solve::{
    Algorithm, AssignOptions, Combo, DirectionState, IterationLog, LineSearch, Monitor, Objective, Points,
};
use crate::vector::dot;

/// One class's equilibrium.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassFlows {
    /// The class's name.
    pub name: String,
    /// Link flows in vehicles of this class.
    pub vehicles: Vec<f64>,
    /// The class's generalised link cost at the equilibrium (`f64::INFINITY` on its banned links).
    pub costs: Vec<f64>,
}

/// The result of a multi-class assignment.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiAssignment {
    /// Total link flows in PCE units.
    pub pce_flows: Vec<f64>,
    /// The network's generalised link costs at those flows (without class fixed costs).
    pub costs: Vec<f64>,
    /// Every class, in the order given.
    pub classes: Vec<ClassFlows>,
    /// One entry per iteration (flows and costs in PCE units).
    pub history: Vec<IterationLog>,
    /// Whether the gap target was reached.
    pub converged: bool,
}

/// User equilibrium of several classes by the Frank–Wolfe family on the CPU (see the module
/// documentation). `opts.algorithm` is MSA, FW, CFW or BFW; system optimum, warm starts, select-link
/// and the GPU loader are refused.
///
/// ```
/// use urbanflow::tap::{AssignOptions, CostFactors, Demand, Link, Network};
/// use urbanflow::tap::multiclass::{UserClass, assign_classes};
/// let link = |from, to, t0| Link { from, to, capacity: 10.0, length: 1.0, free_flow_time: t0, b: 0.15, power: 4.0, toll: 0.0 };
/// let net = Network::new(3, &[link(0, 1, 1.0), link(1, 2, 1.0), link(0, 2, 2.5)], 0, CostFactors::default()).unwrap();
/// let cars = UserClass::new("cars", Demand::from_pairs(&net, [(0, 2, 30.0)]).unwrap());
/// // Trucks count 2.5 times and may not take the direct link.
/// let trucks = UserClass { banned: vec![2], ..UserClass::new("trucks", Demand::from_pairs(&net, [(0, 2, 4.0)]).unwrap()) }
///     .with_pce(2.5);
/// let r = assign_classes(&net, &[cars, trucks], &AssignOptions::default()).unwrap();
/// assert_eq!(r.classes[1].vehicles[2], 0.0);
/// assert!((r.classes[1].vehicles[0] - 4.0).abs() < 1e-9);
/// ```
pub fn assign_classes(
    net: &Network,
    classes: &[UserClass],
    opts: &AssignOptions,
) -> Result<MultiAssignment, TapError> {
    assign_classes_with_progress(net, classes, opts, |_| {})
}

/// [`assign_classes`], calling `progress` after every iteration's measurements (gaps in PCE units,
/// as in [`MultiAssignment::history`]).
pub fn assign_classes_with_progress(
    net: &Network,
    classes: &[UserClass],
    opts: &AssignOptions,
    mut progress: impl FnMut(&IterationLog),
) -> Result<MultiAssignment, TapError> {
    let start = Instant::now();
    let invalid = |msg: String| Err(TapError::InvalidOption(msg));
    let checked = validate(net, classes)?;
    if opts.objective != Objective::UserEquilibrium
        || opts.warm_start.is_some()
        || !opts.select_links.is_empty()
        || matches!(opts.backend, gpu_runtime::Backend::Gpu(_))
    {
        return invalid(
            "multi-class assignment: user equilibrium by msa, fw, cfw, bfw or b on the CPU, from a cold start, \
             without select-link"
                .into(),
        );
    }
    let stop = opts.stop;
    if stop.relative_gap.is_nan() || stop.relative_gap < 0.0 || stop.max_iterations == 0 {
        return invalid("the stop rule needs a gap target ≥ 0 and at least one iteration".into());
    }
    if opts.algorithm == Algorithm::AlgorithmB {
        return assign_classes_b(net, &checked, opts, start, progress);
    }
    let m = net.num_links();
    let g = SearchGraph::new(net, !opts.allow_zone_transit);
    // Trees: f64 Dijkstra per origin, or PHAST on one hierarchy all classes share (customised per
    // group of equal costs), by the same rule as one class.
    let work: u64 = classes.iter().map(|c| c.demand.num_origins() as u64 * m as u64).sum();
    let hierarchy = if crate::solve::choose_cpu_trees(work, opts).0 {
        let demands: Vec<&Demand> = classes.iter().map(|c| &c.demand).collect();
        Some(CchAon::for_demands(net, &demands, opts.allow_zone_transit)?)
    } else {
        None
    };
    let total_pce: f64 = classes.iter().map(|c| c.pce * c.demand.total()).sum();
    let mut monitor = Monitor::new(start, stop, total_pce, opts.cancel);
    let kc = classes.len();
    // Classes with the same costs (fixed costs and bans alike) share their shortest-path trees.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (k, c) in checked.iter().enumerate() {
        let same = |g: &Vec<usize>| {
            let o = &checked[g[0]];
            o.banned == c.banned && o.fixed.iter().zip(&c.fixed).all(|(a, b)| a.to_bits() == b.to_bits())
        };
        match groups.iter_mut().find(|g| same(g)) {
            Some(g) => g.push(k),
            None => groups.push(vec![k]),
        }
    }
    let mut class_cost = vec![0.0; m];
    let mut loads: Vec<Vec<f64>> = vec![vec![0.0; m]; kc];
    // Loads every class at the network's `base` costs: class loadings in PCE units, stacked, and
    // Σ_k c^k · y^k.
    let mut load_all = |base: &[f64], stacked: &mut [f64]| -> Result<f64, TapError> {
        let mut sptt = 0.0;
        for group in &groups {
            checked[group[0]].costs(base, &mut class_cost);
            let named = |e: TapError, k: usize| {
                TapError::InvalidOption(format!("class {}: {e}", checked[k].spec.name))
            };
            let per_class: Vec<f64> = if let Some(h) = &hierarchy {
                let demands: Vec<&Demand> = group.iter().map(|&k| &checked[k].spec.demand).collect();
                let arc_loads = match h.loads_shared(net, &demands, &class_cost) {
                    Ok(l) => l,
                    // A pair reached only over banned links saturates in fixed point: the f64 trees
                    // name it (unreachable origin and destination) where the hierarchy cannot.
                    Err(TapError::FixedPointSaturated { .. }) => {
                        for &k in group {
                            let (demand, y) = (&checked[k].spec.demand, &mut loads[k]);
                            all_or_nothing(net, &g, demand, &class_cost, y).map_err(|e| named(e, k))?;
                        }
                        return Err(TapError::InvalidOption(
                            "class costs saturate the fixed-point trees: use f64 trees (`Method::Trees`, `--trees dijkstra`)".into(),
                        ));
                    }
                    Err(e) => return Err(named(e, group[0])),
                };
                group
                    .iter()
                    .zip(arc_loads)
                    .map(|(&k, l)| {
                        loads[k] = link_flows(h.graph(), &l, m);
                        // Banned links carry no flow (their cost is infinite): leave them out of the sum.
                        loads[k].iter().zip(&class_cost).filter(|(y, _)| **y > 0.0).map(|(y, c)| y * c).sum()
                    })
                    .collect()
            } else if let [k] = group.as_slice() {
                vec![
                    all_or_nothing(net, &g, &checked[*k].spec.demand, &class_cost, &mut loads[*k])
                        .map_err(|e| named(e, *k))?,
                ]
            } else {
                let demands: Vec<&Demand> = group.iter().map(|&k| &checked[k].spec.demand).collect();
                let mut ys: Vec<Vec<f64>> = group.iter().map(|&k| std::mem::take(&mut loads[k])).collect();
                let s = all_or_nothing_shared(net, &g, &demands, &class_cost, &mut ys)
                    .map_err(|e| named(e, group[0]))?;
                for (&k, y) in group.iter().zip(ys) {
                    loads[k] = y;
                }
                s
            };
            for (&k, s) in group.iter().zip(per_class) {
                let pce = checked[k].spec.pce;
                sptt += pce * s;
                for (t, l) in stacked[k * m..(k + 1) * m].iter_mut().zip(&loads[k]) {
                    *t = pce * l;
                }
            }
        }
        Ok(sptt)
    };
    let totals = |stacked: &[f64], out: &mut [f64]| {
        out.iter_mut().for_each(|v| *v = 0.0);
        for k in 0..kc {
            for (o, v) in out.iter_mut().zip(&stacked[k * m..(k + 1) * m]) {
                *o += v;
            }
        }
    };
    let fixed_term = |stacked: &[f64]| -> f64 {
        checked.iter().enumerate().map(|(k, c)| c.fixed_dot(&stacked[k * m..(k + 1) * m])).sum()
    };

    // Start: all-or-nothing at the costs of zero flow.
    let mut base = vec![0.0; m];
    net.costs(&vec![0.0; m], &mut base);
    let mut xs = vec![0.0; kc * m];
    load_all(&base, &mut xs)?;
    let mut x = vec![0.0; m];
    totals(&xs, &mut x);

    let separable = net.vdf().is_separable();
    let mut ys = vec![0.0; kc * m];
    let mut y = vec![0.0; m];
    let mut state = DirectionState::default();
    let mut points = Points::default();
    let mut ls = LineSearch::new(m);
    let mut step = 0.0;
    loop {
        net.costs(&x, &mut base);
        net.vdf().freeze_partners(&x);
        let sptt = monitor.all_or_nothing(|| load_all(&base, &mut ys))?;
        totals(&ys, &mut y);
        let gtx = dot(&base, &x) + fixed_term(&xs);
        let objective = net.beckmann(&x) + fixed_term(&xs);
        if monitor.record(gtx, gtx, sptt, objective, step, separable, &mut progress) {
            break;
        }
        let k = monitor.history.len();
        if opts.algorithm == Algorithm::Msa {
            step = 1.0 / (k as f64 + 1.0);
            x.iter_mut().zip(&y).for_each(|(xa, ya)| *xa += step * (ya - *xa));
            xs.iter_mut().zip(&ys).for_each(|(xa, ya)| *xa += step * (ya - *xa));
            continue;
        }
        let combo = state.direction(net, opts.algorithm, k, &x, &y, false);
        points.apply(combo, &ys);
        let tol = (monitor.last_gap() * 1e-5).clamp(1e-12, 1e-6);
        let sd = points.sd.as_ref().expect("a direction point");
        ls.constant = fixed_term(sd) - fixed_term(&xs);
        step = match ls.search(net, &x, state.current().expect("a direction point"), false, tol) {
            Some(t) => t,
            None => {
                state.restart(&y);
                points.apply(Combo::Restart, &ys);
                ls.constant = fixed_term(&ys) - fixed_term(&xs);
                ls.search(net, &x, &y, false, tol).unwrap_or(0.0)
            }
        };
        let target = state.current().expect("a direction point");
        x.iter_mut().zip(target).for_each(|(xa, sa)| *xa += step * (sa - *xa));
        let sd = points.sd.as_ref().expect("a direction point");
        xs.iter_mut().zip(sd).for_each(|(xa, sa)| *xa += step * (sa - *xa));
        state.last_step = step;
    }
    let pce: Vec<f64> = checked.iter().map(|c| c.spec.pce).collect();
    let vehicles = |k: usize| xs[k * m..(k + 1) * m].iter().map(|v| v / pce[k]).collect();
    Ok(multi_assignment(net, &checked, x, vehicles, monitor))
}

/// Algorithm B with one set of bushes per class (see [`crate::bush`]), measured as the Frank–Wolfe family
/// is.
fn assign_classes_b(
    net: &Network,
    checked: &[Class],
    opts: &AssignOptions,
    start: Instant,
    mut progress: impl FnMut(&IterationLog),
) -> Result<MultiAssignment, TapError> {
    if !net.vdf().is_separable() {
        return Err(TapError::InvalidOption(
            "Algorithm B needs separable link costs (use bfw for this network's costs)".into(),
        ));
    }
    let measured = checked.iter().map(Class::measured).collect();
    let mut routes = EquilibriumRoutes::new(net, measured, opts.allow_zone_transit)?;
    let mut monitor = Monitor::new(start, opts.stop, routes.total_pce(None), opts.cancel);
    // Measured before each iteration: the classes' flows read off the bushes are those measured last.
    routes.equilibrate_with(net, None, &mut monitor, &mut progress)?;
    let x = routes.flows().to_vec();
    Ok(multi_assignment(net, checked, x, |k| routes.class_flows(k), monitor))
}

/// The result of a multi-class solve ending at PCE flows `x`, with each class's vehicles.
fn multi_assignment(
    net: &Network,
    checked: &[Class],
    x: Vec<f64>,
    vehicles: impl Fn(usize) -> Vec<f64>,
    monitor: Monitor,
) -> MultiAssignment {
    let m = net.num_links();
    let mut base = vec![0.0; m];
    net.costs(&x, &mut base);
    let classes = checked
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let mut costs = vec![0.0; m];
            c.costs(&base, &mut costs);
            ClassFlows { name: c.spec.name.clone(), vehicles: vehicles(k), costs }
        })
        .collect();
    MultiAssignment {
        pce_flows: x,
        costs: base,
        classes,
        history: monitor.history,
        converged: monitor.converged,
    }
}

/// Reads a class file for `net`: one class per line, whitespace-separated, `#` starts a comment:
///
/// ```text
/// # name   pce   demand              toll_factor   distance_factor   banned links
/// cars     1.0   0.9                 0             0                 -
/// trucks   2.5   0.1                 0.02          0.04              10-15,15-10
/// buses    3.0   buses_trips.tntp    0             0                 -
/// ```
///
/// `demand` is a share of `trips` (the assignment's own trips) or a TNTP trips file (relative to the
/// class file); banned links are `FROM-TO` node numbers, comma-separated, or `-`. Errors name the file
/// and line.
pub fn read_classes(
    path: impl AsRef<std::path::Path>,
    net: &Network,
    trips: &Demand,
) -> Result<Vec<UserClass>, TapError> {
    use graph_core::GraphError;
    use graph_core::io::ParseIssue;
    let path = path.as_ref();
    let text = std::fs::read_to_string(path)
        .map_err(|source| TapError::Graph(GraphError::Open { path: path.to_path_buf(), source }))?;
    let err = |line: usize, field: &'static str, found: &str, expected: &'static str| {
        TapError::Graph(GraphError::Parse {
            path: path.to_path_buf(),
            line: line as u64,
            kind: ParseIssue::BadField { field, found: found.to_string(), expected },
        })
    };
    let number = |line: usize, field: &'static str, s: &str| {
        s.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| err(line, field, s, "a finite number ≥ 0"))
    };
    let mut classes = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        let body = raw.split('#').next().unwrap_or("").trim();
        if body.is_empty() {
            continue;
        }
        let f: Vec<&str> = body.split_whitespace().collect();
        if f.len() != 6 {
            return Err(err(
                line,
                "line",
                body,
                "6 fields: name pce demand toll_factor distance_factor banned",
            ));
        }
        let pce = number(line, "pce", f[1])?;
        if pce == 0.0 {
            return Err(err(line, "pce", f[1], "a positive number"));
        }
        let demand = match f[2].parse::<f64>() {
            Ok(share) if share.is_finite() && share >= 0.0 => trips.scaled(share),
            Ok(_) => return Err(err(line, "demand", f[2], "a share ≥ 0 or a trips file")),
            Err(_) => {
                let file = path.parent().unwrap_or(std::path::Path::new(".")).join(f[2]);
                Demand::read_tntp(&file, net)?
            }
        };
        let (toll, distance) = (number(line, "toll_factor", f[3])?, number(line, "distance_factor", f[4])?);
        let mut banned = Vec::new();
        if f[5] != "-" {
            for item in f[5].split(',') {
                let ends = item.split_once('-').and_then(|(a, b)| {
                    let (a, b) = (net.node_index(a.parse().ok()?)?, net.node_index(b.parse().ok()?)?);
                    net.links().iter().position(|l| l.from == a && l.to == b)
                });
                match ends {
                    Some(link) => banned.push(link as u32),
                    None => {
                        return Err(err(
                            line,
                            "banned",
                            item,
                            "FROM-TO node numbers of a link of the network",
                        ));
                    }
                }
            }
        }
        let class = UserClass { banned, ..UserClass::new(f[0], demand) }.with_pce(pce);
        classes.push(if toll > 0.0 || distance > 0.0 {
            class.with_factors(net, toll, distance)
        } else {
            class
        });
    }
    if classes.is_empty() {
        return Err(TapError::Graph(GraphError::Parse {
            path: path.to_path_buf(),
            line: text.lines().count().max(1) as u64,
            kind: ParseIssue::Empty { expected: "one class per line" },
        }));
    }
    Ok(classes)
}
