//! Transit assignment by optimal strategies: `transit_assign`, returning plain columns and skim arrays.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use urbanflow::transit::strategies::{
    GtfsGraphOptions, HyperpathGraph, StrategyOptions, TransitDemand, Zones, assign, graph_from_gtfs,
    read_zone_points,
};

use crate::errors::Error;
use crate::run::{Run, report_progress, run_watching};

/// Optimal-strategies transit assignment (see the Python `transit_assign`); returns a dict of results.
#[pyfunction]
#[pyo3(signature = (edges, demand, zones = None, *, gtfs = None, date = None, window = (25_200, 32_400), skims = false, allow_unconnected = false, threads = None, progress = None))]
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
    threads: Option<usize>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
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
    let (g, zones, r) = run_watching(
        py,
        Run { threads },
        move |_cancel| {
            let (g, zones) = match (&edges, &gtfs) {
                (Some(edges), None) => {
                    let g = HyperpathGraph::read_csv(edges)?;
                    let zones = match &zones {
                        Some(z) => Zones::read_csv(z, &g)?,
                        None => Zones::every_vertex(&g),
                    };
                    (g, zones)
                }
                (None, Some(feed)) => {
                    let date = date
                        .as_deref()
                        .ok_or_else(|| Error::Input("gtfs needs date=\"YYYY-MM-DD\"".into()))?;
                    let points = zones.as_ref().map(read_zone_points).transpose()?;
                    let opts = GtfsGraphOptions { window, ..GtfsGraphOptions::default() };
                    let built = graph_from_gtfs(feed, date, points.as_deref(), &opts)?;
                    (built.graph, built.zones)
                }
                _ => return Err(Error::Input("give edges (a CSV path) or gtfs (a feed), not both".into())),
            };
            let demand = TransitDemand::read_csv(&demand, &zones)?;
            let opts = StrategyOptions { skims, allow_unconnected };
            let report = |n: usize, of: usize| {
                t.store(of, Ordering::Relaxed);
                d.fetch_max(n, Ordering::Relaxed);
            };
            let r = assign(&g, &zones, &demand, &opts, &report).map_err(Error::from)?;
            Ok((g, zones, r))
        },
        tick,
    )?;
    let out = PyDict::new(py);
    let links = PyDict::new(py);
    let ids: Vec<i64> = (0..g.num_edges()).map(|e| g.link_id(e)).collect();
    links.set_item("link_id", ids.into_pyarray(py))?;
    links.set_item("volume", r.volumes.clone().into_pyarray(py))?;
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
    Ok(out)
}
