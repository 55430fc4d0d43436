//! Matrix estimation from counts: `estimate_od`, returning plain columns and the dense matrix.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use urbanflow::tap::Stop;
use urbanflow::tap::odme::{
    CountUnits, LinkCounts, OdmeIteration, OdmeOptions, estimate_od as estimate, estimate_od_classes,
};

use crate::errors::Error;
use crate::run::{Run, backend_of, report_progress, run_watching};
use crate::tap::{Demand, Network};

/// Where the counts come from: a CSV file, or columns of node ids, counts and weights.
enum Counts {
    File(PathBuf),
    Columns(Vec<(u64, u64, f64, f64, Option<String>)>),
}

/// Origin–destination matrix estimation (see the Python `estimate_od`); returns a dict of results.
#[pyfunction]
#[pyo3(signature = (net, demand, counts, *, outer = 10, inner_gap = 1e-4, max_change = 10.0, target = 0.95, threads = None, progress = None, classes = None, all_counts = None, backend = None))]
#[allow(clippy::too_many_arguments)] // keyword arguments of one Python function
pub fn estimate_od<'py>(
    py: Python<'py>,
    net: &Network,
    demand: &Demand,
    counts: Bound<'py, PyAny>,
    outer: u32,
    inner_gap: f64,
    max_change: f64,
    target: f64,
    threads: Option<usize>,
    progress: Option<Py<PyAny>>,
    classes: Option<Bound<'py, PyAny>>,
    all_counts: Option<&str>,
    backend: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let choice = backend_of(backend)?;
    let classes = classes.map(|c| crate::tap::user_classes(py, &c, net, demand)).transpose()?;
    let by_class = classes.is_some();
    let all_counts = match all_counts {
        None => None,
        Some("vehicles") => Some(CountUnits::Vehicles),
        Some("pce") => Some(CountUnits::Pce),
        Some(other) => {
            return Err(
                Error::Input(format!("all_counts {other:?}: expected \"vehicles\" or \"pce\"")).into()
            );
        }
    };
    let counts = if let Ok(columns) = counts.cast::<PyDict>() {
        let column = |name: &str| -> PyResult<Option<Vec<f64>>> {
            columns.get_item(name)?.map(|c| c.extract::<Vec<f64>>()).transpose()
        };
        let (Some(from), Some(to), Some(count)) = (column("from")?, column("to")?, column("count")?) else {
            return Err(Error::Input(
                "counts: expected columns \"from\", \"to\" (node ids) and \"count\"".into(),
            )
            .into());
        };
        let weight = column("weight")?.unwrap_or_else(|| vec![1.0; count.len()]);
        // A class per count: its name, or empty (or "all") for all vehicles.
        let class: Vec<Option<String>> = match columns.get_item("class")? {
            Some(c) => c
                .extract::<Vec<String>>()?
                .into_iter()
                .map(|k| (!k.is_empty() && !k.eq_ignore_ascii_case("all")).then_some(k))
                .collect(),
            None => vec![None; count.len()],
        };
        if from.len() != count.len()
            || to.len() != count.len()
            || weight.len() != count.len()
            || class.len() != count.len()
        {
            return Err(Error::Input("counts: columns of different lengths".into()).into());
        }
        let id = |x: f64| {
            if x >= 0.0 && x.fract() == 0.0 {
                Ok(x as u64)
            } else {
                Err(Error::Input(format!("counts: node id {x}: expected an integer ≥ 0")))
            }
        };
        let mut rows = Vec::with_capacity(count.len());
        for i in 0..count.len() {
            rows.push((id(from[i])?, id(to[i])?, count[i], weight[i], class[i].clone()));
        }
        Counts::Columns(rows)
    } else {
        let path: PathBuf = py.import("os")?.call_method1("fspath", (counts,))?.extract()?;
        Counts::File(crate::paths::input_path(path)?)
    };
    let (n, d) = (Arc::clone(&net.net), Arc::clone(&demand.demand));
    let logs: Arc<Mutex<Vec<OdmeIteration>>> = Arc::default();
    let sent = Arc::clone(&logs);
    let tick = move |py: Python<'_>| -> PyResult<()> {
        let Some(callback) = &progress else { return Ok(()) };
        let new: Vec<OdmeIteration> = std::mem::take(&mut *logs.lock().unwrap_or_else(|p| p.into_inner()));
        for log in new {
            let d = PyDict::new(py);
            d.set_item("iteration", log.iteration)?;
            d.set_item("seconds", log.seconds)?;
            d.set_item("objective", log.fit.objective)?;
            d.set_item("rmse", log.fit.rmse)?;
            d.set_item("geh_below_5", log.fit.geh_below_5)?;
            d.set_item("total_demand", log.total_demand)?;
            report_progress(py, callback, (d,))?;
        }
        Ok(())
    };
    let (result, counts) = run_watching(
        py,
        Run { threads },
        move |cancel| {
            let counts = match counts {
                Counts::File(path) => LinkCounts::read_csv(&path, &n)?,
                Counts::Columns(rows) => LinkCounts::between_nodes_by_class(&n, rows)?,
            };
            let opts = OdmeOptions {
                outer_iterations: outer,
                inner: Stop { relative_gap: inner_gap, ..Stop::default() },
                max_change,
                target_geh_share: target,
                // Ctrl-C or a callback's False stops at the end of the outer iteration.
                cancel: Some(cancel.flag()),
                all_counts,
                backend: choice.backend().map_err(Error::Gpu)?,
                ..OdmeOptions::default()
            };
            let log = |it: &OdmeIteration| sent.lock().unwrap_or_else(|p| p.into_inner()).push(*it);
            let result = match &classes {
                Some(classes) => estimate_od_classes(&n, classes, &counts, &opts, log)?,
                None => estimate(&n, &d, &counts, &opts, log)?,
            };
            Ok((result, counts))
        },
        tick,
    )?;
    let rust_net = &net.net;
    let out = PyDict::new(py);
    let (matrix, pairs) = dense(py, rust_net, &result.demand)?;
    out.set_item("matrix", matrix)?;
    out.set_item("pairs", pairs)?;
    if by_class {
        let per_class = PyDict::new(py);
        for c in &result.classes {
            let (matrix, pairs) = dense(py, rust_net, &c.demand)?;
            let entry = PyDict::new(py);
            entry.set_item("matrix", matrix)?;
            entry.set_item("pairs", pairs)?;
            entry.set_item("demand", Demand { demand: Arc::new(c.demand.clone()) }.into_pyobject(py)?)?;
            entry.set_item("vehicles", c.vehicles.clone().into_pyarray(py))?;
            per_class.set_item(&c.name, entry)?;
        }
        out.set_item("classes", per_class)?;
    }
    let links = rust_net.links();
    let c = PyDict::new(py);
    c.set_item("link", result.counted.iter().map(|x| x.link + 1).collect::<Vec<u32>>().into_pyarray(py))?;
    c.set_item(
        "from",
        result
            .counted
            .iter()
            .map(|x| rust_net.node_id(links[x.link as usize].from))
            .collect::<Vec<u64>>()
            .into_pyarray(py),
    )?;
    c.set_item(
        "to",
        result
            .counted
            .iter()
            .map(|x| rust_net.node_id(links[x.link as usize].to))
            .collect::<Vec<u64>>()
            .into_pyarray(py),
    )?;
    if result.counted.iter().any(|x| x.class.is_some()) {
        let names: Vec<&str> = result.counted.iter().map(|x| x.class.as_deref().unwrap_or("")).collect();
        c.set_item("class", names)?;
    }
    c.set_item("count", result.counted.iter().map(|x| x.count).collect::<Vec<f64>>().into_pyarray(py))?;
    c.set_item("weight", counts.weights().to_vec().into_pyarray(py))?;
    c.set_item("flow", result.counted.iter().map(|x| x.flow).collect::<Vec<f64>>().into_pyarray(py))?;
    c.set_item("geh", result.counted.iter().map(|x| x.geh).collect::<Vec<f64>>().into_pyarray(py))?;
    out.set_item("counted", c)?;
    let h = PyDict::new(py);
    let col = |f: fn(&OdmeIteration) -> f64| result.history.iter().map(f).collect::<Vec<f64>>();
    h.set_item(
        "iteration",
        result.history.iter().map(|x| x.iteration).collect::<Vec<u32>>().into_pyarray(py),
    )?;
    h.set_item("seconds", col(|x| x.seconds).into_pyarray(py))?;
    h.set_item("objective", col(|x| x.fit.objective).into_pyarray(py))?;
    h.set_item("rmse", col(|x| x.fit.rmse).into_pyarray(py))?;
    h.set_item("percent_rmse", col(|x| x.fit.percent_rmse).into_pyarray(py))?;
    h.set_item("r_squared", col(|x| x.fit.r_squared).into_pyarray(py))?;
    h.set_item("geh_below_5", col(|x| x.fit.geh_below_5).into_pyarray(py))?;
    h.set_item("max_geh", col(|x| x.fit.max_geh).into_pyarray(py))?;
    h.set_item("total_demand", col(|x| x.total_demand).into_pyarray(py))?;
    h.set_item("step", col(|x| x.step).into_pyarray(py))?;
    h.set_item("min_factor", col(|x| x.min_factor).into_pyarray(py))?;
    h.set_item("max_factor", col(|x| x.max_factor).into_pyarray(py))?;
    h.set_item(
        "inner_iterations",
        result.history.iter().map(|x| x.inner_iterations).collect::<Vec<u32>>().into_pyarray(py),
    )?;
    h.set_item("inner_gap", col(|x| x.inner_gap).into_pyarray(py))?;
    h.set_item("gradient_s", col(|x| x.gradient_s).into_pyarray(py))?;
    h.set_item("upload_s", col(|x| x.upload_s).into_pyarray(py))?;
    h.set_item("halvings", result.history.iter().map(|x| x.halvings).collect::<Vec<u32>>().into_pyarray(py))?;
    out.set_item("history", h)?;
    out.set_item("demand", Demand { demand: Arc::new(result.demand) }.into_pyobject(py)?)?;
    out.set_item("reached_target", result.reached_target)?;
    out.set_item("stopped", &result.stopped)?;
    out.set_item("passes_on", &result.passes_on)?;
    out.set_item("flows", result.flows.into_pyarray(py))?;
    out.set_item("costs", result.costs.into_pyarray(py))?;
    Ok(out)
}

/// A demand as a zones × zones array (row = origin zone index) and its pairs' table in node ids.
fn dense<'py>(
    py: Python<'py>,
    rust_net: &urbanflow::tap::Network,
    demand: &urbanflow::tap::Demand,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    let zones = rust_net.num_zones() as usize;
    let mut matrix = vec![0.0; zones * zones];
    let (mut o, mut dd, mut g) = (Vec::new(), Vec::new(), Vec::new());
    for (origin, destination, flow) in demand.pairs() {
        let (i, j) = (origin as usize, destination as usize);
        if i >= zones || j >= zones {
            return Err(Error::Input(format!(
                "a pair {}→{} between nodes that are not zones (the network declares {zones} zones)",
                rust_net.node_id(origin),
                rust_net.node_id(destination)
            ))
            .into());
        }
        matrix[i * zones + j] = flow;
        o.push(rust_net.node_id(origin));
        dd.push(rust_net.node_id(destination));
        g.push(flow);
    }
    let matrix = numpy::ndarray::Array2::from_shape_vec((zones, zones), matrix)
        .map_err(|e| Error::Input(e.to_string()))?;
    let pairs = PyDict::new(py);
    pairs.set_item("origin", o.into_pyarray(py))?;
    pairs.set_item("destination", dd.into_pyarray(py))?;
    pairs.set_item("demand", g.into_pyarray(py))?;
    Ok((matrix.into_pyarray(py).into_any(), pairs))
}
