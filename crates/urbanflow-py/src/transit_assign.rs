//! Transit assignment by optimal strategies: `transit_assign`, returning plain columns and skim arrays.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use urbanflow::transit::strategies::auto::{assign_congested_on, assign_on};
use urbanflow::transit::strategies::{
    CongestedAssignment, CongestionOptions, GtfsGraphOptions, HyperpathGraph, StrategyOptions, TransitDemand,
    Zones, graph_from_gtfs, line_capacities_by_line, read_vehicle_capacities, read_zone_points,
};

use crate::errors::Error;
use crate::run::{Run, report_progress, run_watching};

/// Optimal-strategies transit assignment (see the Python `transit_assign`); returns a dict of results.
#[pyfunction]
#[pyo3(signature = (edges, demand, zones = None, *, gtfs = None, date = None, window = (25_200, 32_400), skims = false, allow_unconnected = false, vehicle_capacity = None, line_capacities = None, period = None, beta = 0.5, gap = 1e-3, max_iterations = 100, backend = None, threads = None, progress = None))]
#[allow(clippy::too_many_arguments)] // keyword arguments of one Python function
pub fn transit_assign<'py>(
    py: Python<'py>,
    edges: Option<PathBuf>,
    demand: PathBuf,
    zones: Option<PathBuf>,
    gtfs: Option<PathBuf>,
    date: Option<String>,
    window: (u32, u32),
    skims: bool,
    allow_unconnected: bool,
    vehicle_capacity: Option<f64>,
    line_capacities: Option<PathBuf>,
    period: Option<f64>,
    beta: f64,
    gap: f64,
    max_iterations: usize,
    backend: Option<&str>,
    threads: Option<usize>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    if let Some(c) = vehicle_capacity.filter(|c| !(*c > 0.0 && c.is_finite())) {
        return Err(Error::Input(format!("vehicle_capacity {c}: expected a positive number")).into());
    }
    let line_capacities = line_capacities.map(crate::paths::input_path).transpose()?;
    let congested_run = vehicle_capacity.is_some() || line_capacities.is_some();
    let choice = crate::run::backend_of(backend)?;
    if !congested_run && skims && choice == urbanflow::gpu::BackendChoice::Gpu {
        return Err(Error::Input(
            "backend=\"gpu\": skims run on the CPU (the GPU path loads volumes only)".into(),
        )
        .into());
    }
    let edges = edges.map(crate::paths::input_path).transpose()?;
    let gtfs = gtfs.map(crate::paths::input_path).transpose()?;
    let demand = crate::paths::input_path(demand)?;
    let zones = zones.map(crate::paths::input_path).transpose()?;
    let done = Arc::new(AtomicUsize::new(0));
    let total = Arc::new(AtomicUsize::new(0));
    let (seen, (d, t)) = (AtomicUsize::new(0), (Arc::clone(&done), Arc::clone(&total)));
    let tick = move |py: Python<'_>| -> PyResult<()> {
        let Some(callback) = &progress else { return Ok(()) };
        let now = done.load(Ordering::Relaxed);
        if now > seen.swap(now, Ordering::Relaxed) {
            report_progress(py, callback, (now, total.load(Ordering::Relaxed)))?;
        }
        Ok(())
    };
    let (g, zones, r, congested, ran) = run_watching(
        py,
        Run { threads },
        move |_cancel| {
            let (g, zones, window_s) = match (&edges, &gtfs) {
                (Some(edges), None) => {
                    let g = HyperpathGraph::read_csv(edges)?;
                    let zones = match &zones {
                        Some(z) => Zones::read_csv(z, &g)?,
                        None => Zones::every_vertex(&g),
                    };
                    (g, zones, None)
                }
                (None, Some(feed)) => {
                    let date = date
                        .as_deref()
                        .ok_or_else(|| Error::Input("gtfs needs date=\"YYYY-MM-DD\"".into()))?;
                    let points = zones.as_ref().map(read_zone_points).transpose()?;
                    let opts = GtfsGraphOptions { window, ..GtfsGraphOptions::default() };
                    let built = graph_from_gtfs(feed, date, points.as_deref(), &opts)?;
                    (built.graph, built.zones, Some(f64::from(window.1.saturating_sub(window.0))))
                }
                _ => return Err(Error::Input("give edges (a CSV path) or gtfs (a feed), not both".into())),
            };
            let demand = TransitDemand::read_csv(&demand, &zones)?;
            let opts = StrategyOptions { skims, allow_unconnected };
            let report = |n: usize, of: usize| {
                t.store(of, Ordering::Relaxed);
                d.fetch_max(n, Ordering::Relaxed);
            };
            if !congested_run {
                let backend = choice.backend().map_err(Error::Gpu)?;
                let run = assign_on(backend, &g, &zones, &demand, &opts, &report).map_err(Error::from)?;
                return Ok((g, zones, run.assignment, None, (run.backend, run.why)));
            }
            let period = period.or(window_s).ok_or_else(|| {
                Error::Input(
                    "a congested assignment with edges needs period (the time the demand covers, in the \
                     frequencies' time unit)"
                        .into(),
                )
            })?;
            if !(period > 0.0 && period.is_finite()) {
                return Err(Error::Input(format!("period {period}: expected a positive number")));
            }
            let per_line =
                line_capacities.as_ref().map(read_vehicle_capacities).transpose()?.unwrap_or_default();
            let capacity = line_capacities_by_line(&g, &per_line, vehicle_capacity, period)?;
            let copts = CongestionOptions { beta, relative_gap: gap, max_iterations };
            let iteration = AtomicUsize::new(0);
            let backend = choice.backend().map_err(Error::Gpu)?;
            let run = assign_congested_on(backend, &g, &zones, &demand, &capacity, &opts, &copts, &|_| {
                report(iteration.fetch_add(1, Ordering::Relaxed) + 1, max_iterations.max(1));
            })
            .map_err(Error::from)?;
            let (c, ran) = (run.congested, (run.backend, run.why));
            Ok((g, zones, c.assignment.clone(), Some((c, capacity)), ran))
        },
        tick,
    )?;
    let out = PyDict::new(py);
    let links = PyDict::new(py);
    let ids: Vec<i64> = (0..g.num_edges()).map(|e| g.link_id(e)).collect();
    links.set_item("link_id", ids.into_pyarray(py))?;
    links.set_item("volume", r.volumes.clone().into_pyarray(py))?;
    if let Some((c, capacity)) = &congested {
        let nominal: Vec<f64> = (0..g.num_edges()).map(|e| g.edge(e).3).collect();
        links.set_item("frequency", nominal.into_pyarray(py))?;
        links.set_item("effective_frequency", c.effective_frequency.clone().into_pyarray(py))?;
        links.set_item("capacity", capacity.clone().into_pyarray(py))?;
        links.set_item("on_board", c.on_board.clone().into_pyarray(py))?;
        out.set_item("congestion", congestion_dict(py, c)?)?;
    }
    out.set_item("links", links)?;
    let zone_ids: Vec<i64> = (0..zones.len()).map(|z| zones.id(z)).collect();
    out.set_item("zones", zone_ids.into_pyarray(py))?;
    if let Some(s) = r.skims {
        let n = s.zones;
        let skim = PyDict::new(py);
        for (name, values) in [
            ("total", s.total),
            ("in_vehicle", s.in_vehicle),
            ("waiting", s.waiting),
            ("walking", s.walking),
            ("boardings", s.boardings),
        ] {
            let m = numpy::ndarray::Array2::from_shape_vec((n, n), values)
                .map_err(|e| Error::Input(e.to_string()))?;
            skim.set_item(name, m.into_pyarray(py))?;
        }
        out.set_item("skims", skim)?;
    }
    out.set_item("assigned", r.assigned)?;
    out.set_item("intrazonal", r.intrazonal)?;
    out.set_item("unassigned", r.unassigned)?;
    out.set_item("unassigned_pairs", r.unassigned_pairs)?;
    out.set_item("seconds", r.seconds)?;
    out.set_item("backend", ran.0)?;
    out.set_item("why", ran.1)?;
    Ok(out)
}

/// The congested run's iterations: their count, gaps (one per iteration after the first), whether the
/// gap was reached, and the last relative gap.
fn congestion_dict<'py>(py: Python<'py>, c: &CongestedAssignment) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let gaps: Vec<f64> = c.iterations.iter().skip(1).map(|i| i.relative_gap).collect();
    d.set_item("iterations", c.iterations.len())?;
    d.set_item("relative_gap", c.iterations.last().map_or(f64::INFINITY, |i| i.relative_gap))?;
    d.set_item("converged", c.converged)?;
    d.set_item("gaps", gaps.into_pyarray(py))?;
    Ok(d)
}
