//! Traffic assignment: `Network`, `Demand` and `assign`, returning plain columns (numpy arrays) that
//! the Python layer turns into pandas DataFrames when pandas is installed.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use urbanflow::tap::demand_cache::read_demand_cached;
use urbanflow::tap::multiclass::{UserClass, assign_classes_with_progress, read_classes};
use urbanflow::tap::turns::{Split, TurnFlow, TurnNetwork, TurnTable};
use urbanflow::tap::{
    Algorithm, AssignOptions, CostFactors, Demand as RustDemand, IterationLog, Network as RustNetwork,
    assign_with_progress,
};

use crate::errors::Error;
use crate::run::{Run, backend_of, report_progress, run, run_watching};

/// A road network for assignment (TNTP `_net` files), with BPR link costs.
#[pyclass(frozen, module = "urbanflow._urbanflow")]
pub struct Network {
    pub(crate) net: Arc<RustNetwork>,
}

#[pymethods]
impl Network {
    /// Reads a TNTP `_net` file (plain, `.gz` or `.xz`); generalised cost = time + toll_factor × toll +
    /// distance_factor × length.
    #[staticmethod]
    #[pyo3(signature = (path, *, toll_factor = 0.0, distance_factor = 0.0))]
    fn from_tntp(py: Python<'_>, path: PathBuf, toll_factor: f64, distance_factor: f64) -> PyResult<Self> {
        let path = crate::paths::input_path(path)?;
        let factors = CostFactors { toll: toll_factor, distance: distance_factor };
        let net = run(py, Run { threads: None }, move |_| Ok(RustNetwork::read_tntp(&path, factors)?))?;
        Ok(Self { net: Arc::new(net) })
    }

    /// Nodes.
    #[getter]
    fn num_nodes(&self) -> usize {
        self.net.num_nodes()
    }

    /// Links.
    #[getter]
    fn num_links(&self) -> usize {
        self.net.num_links()
    }

    /// Zones.
    #[getter]
    fn num_zones(&self) -> u32 {
        self.net.num_zones()
    }

    /// The links as columns: `from`, `to` (file node ids, uint64), `capacity`, `length`,
    /// `free_flow_time`, `b`, `power`, `toll` (float64).
    fn links<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let net = &self.net;
        let l = net.links();
        let d = PyDict::new(py);
        d.set_item("from", l.iter().map(|x| net.node_id(x.from)).collect::<Vec<u64>>().into_pyarray(py))?;
        d.set_item("to", l.iter().map(|x| net.node_id(x.to)).collect::<Vec<u64>>().into_pyarray(py))?;
        let col = |f: fn(&urbanflow::tap::Link) -> f64| l.iter().map(f).collect::<Vec<f64>>();
        d.set_item("capacity", col(|x| x.capacity).into_pyarray(py))?;
        d.set_item("length", col(|x| x.length).into_pyarray(py))?;
        d.set_item("free_flow_time", col(|x| x.free_flow_time).into_pyarray(py))?;
        d.set_item("b", col(|x| x.b).into_pyarray(py))?;
        d.set_item("power", col(|x| x.power).into_pyarray(py))?;
        d.set_item("toll", col(|x| x.toll).into_pyarray(py))?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "Network(nodes={}, links={}, zones={})",
            self.net.num_nodes(),
            self.net.num_links(),
            self.net.num_zones()
        )
    }
}

/// Trips between zones (TNTP `_trips` files).
#[pyclass(frozen, module = "urbanflow._urbanflow")]
pub struct Demand {
    pub(crate) demand: Arc<RustDemand>,
}

#[pymethods]
impl Demand {
    /// Reads a TNTP `_trips` file for `net`, every flow multiplied by `scale`. With `cache=True` the
    /// parsed table is kept in urbanflow's cache folder (`$URBANFLOW_CACHE_DIR`, else the user's cache
    /// directory), keyed by the file's bytes and the network's node ids, and read from there next time.
    #[staticmethod]
    #[pyo3(signature = (path, net, *, scale = 1.0, cache = false))]
    fn from_tntp(py: Python<'_>, path: PathBuf, net: &Network, scale: f64, cache: bool) -> PyResult<Self> {
        let path = crate::paths::input_path(path)?;
        let n = Arc::clone(&net.net);
        let demand = run(py, Run { threads: None }, move |_| {
            let d = if cache {
                let dir = urbanflow::gpu::tuning::cache_dir();
                let read = read_demand_cached(&path, &n, Default::default(), dir.as_deref())?;
                read.demand
            } else {
                RustDemand::read_tntp(&path, &n)?
            };
            Ok(if scale == 1.0 { d } else { d.scaled(scale) })
        })?;
        Ok(Self { demand: Arc::new(demand) })
    }

    /// Total trips assigned (intrazonal trips excluded).
    #[getter]
    fn total(&self) -> f64 {
        self.demand.total()
    }

    fn __repr__(&self) -> String {
        format!(
            "Demand(origins={}, pairs={}, total={})",
            self.demand.num_origins(),
            self.demand.num_pairs(),
            self.demand.total()
        )
    }
}

/// What one solve gives back, before it becomes Python objects.
struct Solved {
    result: urbanflow::tap::Assignment,
    /// Per class: name, PCE, vehicle flows, costs (the network's links).
    classes: Vec<(String, f64, Vec<f64>, Vec<f64>)>,
    /// Turning movements: junction, from-link, to-link, volume, penalty.
    turns: Vec<TurnFlow>,
}

/// Static user equilibrium (or system optimum) by the named method; returns a dict of results (see
/// the Python `assign`).
#[pyfunction]
#[pyo3(signature = (net, demand, *, algorithm = "bfw", gap = 1e-4, max_iters = None, system_optimum = false, backend = None, trees = "auto", threads = None, progress = None, classes = None, turns = None, split_all_junctions = false, select_link = None))]
#[allow(clippy::too_many_arguments)] // keyword arguments of one Python function
pub fn assign<'py>(
    py: Python<'py>,
    net: &Network,
    demand: &Demand,
    algorithm: &str,
    gap: f64,
    max_iters: Option<u32>,
    system_optimum: bool,
    backend: Option<&str>,
    trees: &str,
    threads: Option<usize>,
    progress: Option<Py<PyAny>>,
    classes: Option<Bound<'py, PyAny>>,
    turns: Option<PathBuf>,
    split_all_junctions: bool,
    select_link: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let select_link = select_link
        .map(|s| node_pairs(&s).map_err(|e| Error::Input(format!("select_link: {e}"))))
        .transpose()?;
    let algorithm: Algorithm = algorithm.parse().map_err(Error::Input)?;
    let classes = match classes {
        None => None,
        Some(c) => Some(user_classes(py, &c, net, demand)?),
    };
    let trees: urbanflow::sssp::many::Method = trees.parse().map_err(Error::Input)?;
    let choice = backend_of(backend)?;
    let selected = match &select_link {
        None => Vec::new(),
        Some(_) if classes.is_some() => {
            return Err(Error::Input("select_link: computed for one class only (no classes=)".into()).into());
        }
        Some(pairs) if pairs.is_empty() => Vec::new(),
        Some(pairs) => {
            let list: Vec<String> = pairs.iter().map(|(a, b)| format!("{a}-{b}")).collect();
            net.net.links_named(&list.join(",")).map_err(|e| Error::Input(format!("select_link: {e}")))?
        }
    };
    let turns = turns.map(crate::paths::input_path).transpose()?;
    let with_turns = turns.is_some();
    let (n, d) = (Arc::clone(&net.net), Arc::clone(&demand.demand));
    // Iterations logged by the worker, handed to `progress` on the Python thread.
    let logs: Arc<Mutex<Vec<IterationLog>>> = Arc::default();
    let sent = Arc::clone(&logs);
    let tick = move |py: Python<'_>| -> PyResult<()> {
        let Some(callback) = &progress else { return Ok(()) };
        let new: Vec<IterationLog> = std::mem::take(&mut *logs.lock().unwrap_or_else(|p| p.into_inner()));
        for log in new {
            let d = PyDict::new(py);
            d.set_item("iteration", log.iteration)?;
            d.set_item("seconds", log.seconds)?;
            d.set_item("relative_gap", log.relative_gap)?;
            d.set_item("objective", log.objective)?;
            d.set_item("tstt", log.tstt)?;
            d.set_item("sptt", log.sptt)?;
            report_progress(py, callback, (d,))?;
        }
        Ok(())
    };
    let solved = run_watching(
        py,
        Run { threads },
        move |cancel| {
            let log = |log: &IterationLog| sent.lock().unwrap_or_else(|p| p.into_inner()).push(*log);
            let mut opts = AssignOptions {
                algorithm,
                trees,
                backend: choice.backend()?,
                select_links: selected,
                // Ctrl-C or a callback's False stops the solve at the end of its iteration.
                cancel: Some(cancel.flag()),
                ..AssignOptions::default()
            };
            opts = opts.with_gap(gap);
            if let Some(k) = max_iters {
                opts = opts.with_max_iterations(k);
            }
            if system_optimum {
                opts.objective = urbanflow::tap::Objective::SystemOptimum;
            }
            // With turns the solve runs on the expanded network; results speak of `n`'s links.
            let expanded = match &turns {
                None => None,
                Some(path) => {
                    let table = TurnTable::read(path, &n)?;
                    let split = if split_all_junctions { Split::Everywhere } else { Split::WhereTurnsMatter };
                    Some((TurnNetwork::build_with(&n, &table, split)?, table))
                }
            };
            let model = expanded.as_ref().map_or(&*n, |(e, _)| &e.network);
            let cut = |v: Vec<f64>| match &expanded {
                None => v,
                Some((e, _)) => e.link_flows(&v).to_vec(),
            };
            let (result, per_class) = match classes {
                None => (assign_with_progress(model, &d, &opts, log)?, Vec::new()),
                Some(classes) => {
                    let classes: Vec<UserClass> = match &expanded {
                        None => classes,
                        Some((e, table)) => {
                            if let Some(name) = e
                                .class_names()
                                .into_iter()
                                .find(|&name| !classes.iter().any(|c| c.name == name))
                            {
                                return Err(Error::Input(format!(
                                    "{}: class `{name}` is not among classes=",
                                    table.path.display()
                                )));
                            }
                            classes.iter().map(|c| e.class(c)).collect()
                        }
                    };
                    let r = assign_classes_with_progress(model, &classes, &opts, log)?;
                    let per_class = classes
                        .iter()
                        .zip(r.classes)
                        .map(|(c, f)| (f.name, c.pce, cut(f.vehicles), cut(f.costs)))
                        .collect();
                    let result = urbanflow::tap::Assignment {
                        flows: r.pce_flows,
                        costs: r.costs,
                        history: r.history,
                        converged: r.converged,
                        select_link: Vec::new(),
                        loaded_by: "cpu: several classes load on the CPU".into(),
                    };
                    (result, per_class)
                }
            };
            let turns = expanded.as_ref().map_or_else(Vec::new, |(e, _)| e.turn_flows(&result.flows));
            let result =
                urbanflow::tap::Assignment { flows: cut(result.flows), costs: cut(result.costs), ..result };
            Ok(Solved { result, classes: per_class, turns })
        },
        tick,
    )?;
    let Solved { result, classes: per_class, turns } = solved;
    let out = PyDict::new(py);
    if !per_class.is_empty() {
        let list = pyo3::types::PyList::empty(py);
        for (name, pce, vehicles, costs) in per_class {
            let c = PyDict::new(py);
            c.set_item("name", name)?;
            c.set_item("pce", pce)?;
            c.set_item("vehicles", vehicles.into_pyarray(py))?;
            c.set_item("costs", costs.into_pyarray(py))?;
            list.append(c)?;
        }
        out.set_item("classes", list)?;
    }
    let rust_net = &net.net;
    let links = rust_net.links();
    let ids = |v: &mut dyn Iterator<Item = u32>| v.map(|x| rust_net.node_id(x)).collect::<Vec<u64>>();
    if with_turns {
        let t = PyDict::new(py);
        t.set_item("node", ids(&mut turns.iter().map(|t| t.node)).into_pyarray(py))?;
        t.set_item(
            "from_node",
            ids(&mut turns.iter().map(|t| links[t.from_link as usize].from)).into_pyarray(py),
        )?;
        t.set_item("to_node", ids(&mut turns.iter().map(|t| links[t.to_link as usize].to)).into_pyarray(py))?;
        t.set_item("from_link", turns.iter().map(|t| t.from_link).collect::<Vec<u32>>().into_pyarray(py))?;
        t.set_item("to_link", turns.iter().map(|t| t.to_link).collect::<Vec<u32>>().into_pyarray(py))?;
        t.set_item("volume", turns.iter().map(|t| t.volume).collect::<Vec<f64>>().into_pyarray(py))?;
        t.set_item("penalty", turns.iter().map(|t| t.penalty).collect::<Vec<f64>>().into_pyarray(py))?;
        out.set_item("turns", t)?;
    }
    if select_link.is_some() {
        // One row per selected link and OD pair with flow on it, as `assign --select-link` writes.
        let (mut lf, mut lt, mut o, mut dd, mut f) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for s in &result.select_link {
            let l = &links[s.link as usize];
            for ((origin, destination, _), &flow) in demand.demand.pairs().zip(&s.pair_flows) {
                if flow > 0.0 {
                    lf.push(rust_net.node_id(l.from));
                    lt.push(rust_net.node_id(l.to));
                    o.push(rust_net.node_id(origin));
                    dd.push(rust_net.node_id(destination));
                    f.push(flow);
                }
            }
        }
        let t = PyDict::new(py);
        t.set_item("link_from", lf.into_pyarray(py))?;
        t.set_item("link_to", lt.into_pyarray(py))?;
        t.set_item("origin", o.into_pyarray(py))?;
        t.set_item("destination", dd.into_pyarray(py))?;
        t.set_item("flow", f.into_pyarray(py))?;
        out.set_item("select_link", t)?;
    }
    let last = *result.last();
    out.set_item("converged", result.converged)?;
    out.set_item("loaded_by", &result.loaded_by)?;
    out.set_item("iterations", result.history.len())?;
    out.set_item("relative_gap", last.relative_gap)?;
    out.set_item("tstt", last.tstt)?;
    out.set_item("sptt", last.sptt)?;
    out.set_item("objective", last.objective)?;
    let h = PyDict::new(py);
    let col =
        |f: fn(&urbanflow::tap::IterationLog) -> f64| result.history.iter().map(f).collect::<Vec<f64>>();
    h.set_item(
        "iteration",
        result.history.iter().map(|x| x.iteration).collect::<Vec<u32>>().into_pyarray(py),
    )?;
    h.set_item("seconds", col(|x| x.seconds).into_pyarray(py))?;
    h.set_item("relative_gap", col(|x| x.relative_gap).into_pyarray(py))?;
    h.set_item("average_excess_cost", col(|x| x.average_excess_cost).into_pyarray(py))?;
    h.set_item("objective", col(|x| x.objective).into_pyarray(py))?;
    h.set_item("tstt", col(|x| x.tstt).into_pyarray(py))?;
    h.set_item("sptt", col(|x| x.sptt).into_pyarray(py))?;
    h.set_item("all_or_nothing_s", col(|x| x.all_or_nothing_s).into_pyarray(py))?;
    out.set_item("history", h)?;
    out.set_item("flows", result.flows.into_pyarray(py))?;
    out.set_item("costs", result.costs.into_pyarray(py))?;
    Ok(out)
}

/// Zone-to-zone skims along the shortest paths at `costs`: a dict of (zones, zones) float64 arrays
/// `time`, `distance`, `toll`, `cost` (`inf` where unreachable).
#[pyfunction]
#[pyo3(signature = (net, flows, costs, *, threads = None))]
pub fn skims<'py>(
    py: Python<'py>,
    net: &Network,
    flows: numpy::PyReadonlyArray1<'_, f64>,
    costs: numpy::PyReadonlyArray1<'_, f64>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let flows =
        flows.as_slice().map_err(|_| Error::Input("flows: expected a contiguous array".into()))?.to_vec();
    let costs =
        costs.as_slice().map_err(|_| Error::Input("costs: expected a contiguous array".into()))?.to_vec();
    let n = Arc::clone(&net.net);
    let s = run(py, Run { threads }, move |_| Ok(urbanflow::tap::skim::skims(&n, &flows, &costs)?))?;
    let z = s.zones;
    let d = PyDict::new(py);
    for (name, values) in [("time", s.time), ("distance", s.distance), ("toll", s.toll), ("cost", s.cost)] {
        let a = numpy::ndarray::Array2::from_shape_vec((z, z), values)
            .map_err(|e| Error::Input(e.to_string()))?;
        d.set_item(name, a.into_pyarray(py))?;
    }
    Ok(d)
}

/// User classes from Python: the path of a class file (`assign --classes` format, shares of `demand`
/// or trips files), or a list of dicts `{"name", "pce" = 1, "share" = 1 or "demand": Demand,
/// "toll_factor" = 0, "distance_factor" = 0, "banned": [(from, to), ...] node ids}`.
pub(crate) fn user_classes(
    py: Python<'_>,
    spec: &Bound<'_, PyAny>,
    net: &Network,
    demand: &Demand,
) -> PyResult<Vec<UserClass>> {
    let os = py.import("os")?;
    if spec.is_instance_of::<pyo3::types::PyString>() || spec.hasattr("__fspath__")? {
        let path: PathBuf = os.call_method1("fspath", (spec,))?.extract()?;
        let path = crate::paths::input_path(path)?;
        let (n, d) = (Arc::clone(&net.net), Arc::clone(&demand.demand));
        return run(py, Run { threads: None }, move |_| Ok(read_classes(&path, &n, &d)?));
    }
    let bad = |why: String| -> PyErr { Error::Input(format!("classes: {why}")).into() };
    let mut out = Vec::new();
    for (i, item) in spec.try_iter()?.enumerate() {
        let item = item?;
        let entry = item.cast::<PyDict>().map_err(|_| bad(format!("item {i}: expected a dict")))?;
        let get = |key: &str| entry.get_item(key);
        let name: String = match get("name")? {
            Some(v) => v.extract()?,
            None => return Err(bad(format!("item {i}: no \"name\""))),
        };
        let f64_or = |key: &str, default: f64| -> PyResult<f64> {
            get(key)?.map_or(Ok(default), |v| v.extract::<f64>())
        };
        let trips = match (get("demand")?, get("share")?) {
            (Some(_), Some(_)) => {
                return Err(bad(format!("class {name}: give \"demand\" or \"share\", not both")));
            }
            (Some(d), None) => {
                let d = d
                    .cast::<Demand>()
                    .map_err(|_| bad(format!("class {name}: \"demand\" must be a Demand")))?;
                (*d.get().demand).clone()
            }
            (None, share) => {
                let share: f64 = share.map_or(Ok(1.0), |v| v.extract())?;
                if !(share.is_finite() && share >= 0.0) {
                    return Err(bad(format!("class {name}: share {share} (expected a number ≥ 0)")));
                }
                demand.demand.scaled(share)
            }
        };
        let mut class = UserClass::new(name.clone(), trips).with_pce(f64_or("pce", 1.0)?).with_factors(
            &net.net,
            f64_or("toll_factor", 0.0)?,
            f64_or("distance_factor", 0.0)?,
        );
        if let Some(banned) = get("banned")? {
            let pairs = node_pairs(&banned).map_err(|e| bad(format!("class {name}: \"banned\": {e}")))?;
            let list: Vec<String> = pairs.iter().map(|(a, b)| format!("{a}-{b}")).collect();
            if !list.is_empty() {
                class.banned =
                    net.net.links_named(&list.join(",")).map_err(|e| bad(format!("class {name}: {e}")))?;
            }
        }
        out.push(class);
    }
    Ok(out)
}

/// Links named by their end nodes: a list of `(from, to)` node ids of the file.
fn node_pairs(value: &Bound<'_, PyAny>) -> Result<Vec<(u64, u64)>, String> {
    value.extract::<Vec<(u64, u64)>>().map_err(|_| {
        let got = value.get_type().name().map_or_else(|_| "?".into(), |n| n.to_string());
        format!("expected a list of (from, to) node id pairs, got {got}")
    })
}
