//! Accessibility and centrality: `accessibility` (and closeness through it) and `betweenness`,
//! returning plain arrays that `urbanflow/__init__.py` shapes into results.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use urbanflow::access::{AccessOptions, BetweennessOptions, Decay, Engine, Opportunities};

use crate::errors::Error;
use crate::graph::Graph;
use crate::run::{Run, backend_of, report_progress, run_watching};

/// Progress counters shared by the worker (which stores) and the Python thread (which reports).
#[derive(Clone, Default)]
struct Counters {
    done: Arc<AtomicUsize>,
    total: Arc<AtomicUsize>,
}

impl Counters {
    /// What the Python thread calls every 50 ms: the callback, when something new was done.
    fn ticker(&self, progress: Option<Py<PyAny>>) -> impl FnMut(Python<'_>) -> PyResult<()> + use<> {
        let (done, total, seen) = (Arc::clone(&self.done), Arc::clone(&self.total), AtomicUsize::new(0));
        move |py| {
            let Some(callback) = &progress else { return Ok(()) };
            let now = done.load(Ordering::Relaxed);
            if now > seen.swap(now, Ordering::Relaxed) {
                report_progress(py, callback, (now, total.load(Ordering::Relaxed)))?;
            }
            Ok(())
        }
    }
}

fn vec_of<T: numpy::Element + Copy>(a: &PyReadonlyArray1<'_, T>, what: &str) -> Result<Vec<T>, Error> {
    a.as_slice()
        .map(<[T]>::to_vec)
        .map_err(|_| Error::Input(format!("{what}: expected a contiguous one-dimensional array")))
}

/// Opportunities within cutoffs of every source (see the Python `accessibility`); `closeness=True`
/// puts a point of weight 1 on every vertex instead of `vertices`/`weights`.
#[pyfunction]
#[pyo3(signature = (graph, vertices, weights, cutoffs, decay = "flat", *, sources = None, closeness = false, engine = "auto", backend = None, threads = None, progress = None))]
#[allow(clippy::too_many_arguments)] // keyword arguments of one Python function
pub fn accessibility<'py>(
    py: Python<'py>,
    graph: &Graph,
    vertices: Option<PyReadonlyArray1<'_, u32>>,
    weights: Option<PyReadonlyArray1<'_, f64>>,
    cutoffs: Vec<u32>,
    decay: &str,
    sources: Option<PyReadonlyArray1<'_, u32>>,
    closeness: bool,
    engine: &str,
    backend: Option<&str>,
    threads: Option<usize>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let g = Arc::clone(&graph.graph);
    let n = g.num_vertices();
    let decay: Decay =
        decay.parse().map_err(|e: urbanflow::access::AccessError| Error::Input(e.to_string()))?;
    let engine: Engine =
        engine.parse().map_err(|e: urbanflow::access::AccessError| Error::Input(e.to_string()))?;
    let choice = backend_of(backend)?;
    let points: Option<Vec<(u32, f64)>> = match (&vertices, &weights) {
        (Some(v), w) => {
            let v = vec_of(v, "vertices")?;
            let w = match w {
                Some(w) => vec_of(w, "weights")?,
                None => vec![1.0; v.len()],
            };
            if v.len() != w.len() {
                return Err(Error::Input(format!(
                    "{} vertices and {} weights: expected one weight per point",
                    v.len(),
                    w.len()
                ))
                .into());
            }
            Some(v.into_iter().zip(w).collect())
        }
        (None, _) if closeness => None,
        (None, _) => {
            return Err(Error::Input("accessibility needs points (vertices and weights)".into()).into());
        }
    };
    let sources: Vec<u32> = match &sources {
        Some(s) => vec_of(s, "sources")?,
        None => (0..n).collect(),
    };
    let counters = Counters::default();
    let (done, total) = (Arc::clone(&counters.done), Arc::clone(&counters.total));
    let source_list = sources.clone();
    let a = run_watching(
        py,
        Run { threads },
        move |cancel| {
            let backend = choice.backend().map_err(Error::Gpu)?;
            let report = |d: usize, t: usize| {
                total.store(t, Ordering::Relaxed);
                done.store(d, Ordering::Relaxed);
                cancel.check().is_ok()
            };
            let opts = AccessOptions {
                cutoffs: &cutoffs,
                decay,
                engine,
                backend,
                hierarchy: None,
                progress: Some(&report),
            };
            let r = match &points {
                Some(p) => {
                    let o = Opportunities::new(g.num_vertices(), p).map_err(Error::from)?;
                    urbanflow::access::accessibility(&g, &o, &source_list, &opts)
                }
                None => urbanflow::access::closeness(&g, &source_list, &opts),
            };
            r.map_err(Error::from)
        },
        counters.ticker(progress),
    )?;
    let (s, c) = (a.sources.len(), a.cutoffs.len());
    let grid = |f: &dyn Fn(usize, usize) -> f64| -> PyResult<Array2<f64>> {
        let v: Vec<f64> = (0..s).flat_map(|i| (0..c).map(move |k| (i, k))).map(|(i, k)| f(i, k)).collect();
        Array2::from_shape_vec((s, c), v).map_err(|e| Error::Input(e.to_string()).into())
    };
    let counts: Vec<u32> =
        (0..s).flat_map(|i| (0..c).map(move |k| (i, k))).map(|(i, k)| a.count(i, k)).collect();
    let out = PyDict::new(py);
    out.set_item("sources", sources.into_pyarray(py))?;
    out.set_item("cutoffs", a.cutoffs.clone().into_pyarray(py))?;
    out.set_item(
        "count",
        Array2::from_shape_vec((s, c), counts).map_err(|e| Error::Input(e.to_string()))?.into_pyarray(py),
    )?;
    out.set_item("sum", grid(&|i, k| a.sum(i, k))?.into_pyarray(py))?;
    out.set_item("mean", grid(&|i, k| a.mean(i, k).unwrap_or(f64::NAN))?.into_pyarray(py))?;
    out.set_item("min", grid(&|i, k| a.min(i, k).unwrap_or(f64::NAN))?.into_pyarray(py))?;
    out.set_item("max", grid(&|i, k| a.max(i, k).unwrap_or(f64::NAN))?.into_pyarray(py))?;
    out.set_item("engine", a.stats.engine.to_string())?;
    out.set_item("why", a.stats.why.clone())?;
    out.set_item("device", a.stats.device.clone())?;
    out.set_item("preprocess_s", a.stats.preprocess_s)?;
    out.set_item("setup_s", a.stats.setup_s)?;
    out.set_item("solve_s", a.stats.solve_s)?;
    Ok(out)
}

/// Brandes' betweenness of every vertex (see the Python `betweenness`).
#[pyfunction]
#[pyo3(signature = (graph, *, cutoff = None, sample = None, seed = 1, threads = None, progress = None))]
pub fn betweenness<'py>(
    py: Python<'py>,
    graph: &Graph,
    cutoff: Option<u32>,
    sample: Option<usize>,
    seed: u64,
    threads: Option<usize>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let g = Arc::clone(&graph.graph);
    let counters = Counters::default();
    let (done, total) = (Arc::clone(&counters.done), Arc::clone(&counters.total));
    let b = run_watching(
        py,
        Run { threads },
        move |cancel| {
            let report = |d: usize, t: usize| {
                total.store(t, Ordering::Relaxed);
                done.store(d, Ordering::Relaxed);
                cancel.check().is_ok()
            };
            let opts = BetweennessOptions { cutoff, sample, seed, progress: Some(&report) };
            urbanflow::access::betweenness(&g, &opts).map_err(Error::from)
        },
        counters.ticker(progress),
    )?;
    let out = PyDict::new(py);
    out.set_item("value", b.value.into_pyarray(py))?;
    out.set_item("std_error", b.std_error.map(|s| s.into_pyarray(py)))?;
    out.set_item("sources", b.sources)?;
    Ok(out)
}

/// The `k` nearest points from every source (see the Python `nearest`).
#[pyfunction]
#[pyo3(signature = (graph, vertices, k, *, max_distance = None, sources = None, threads = None))]
pub fn nearest<'py>(
    py: Python<'py>,
    graph: &Graph,
    vertices: PyReadonlyArray1<'_, u32>,
    k: usize,
    max_distance: Option<u32>,
    sources: Option<PyReadonlyArray1<'_, u32>>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let g = Arc::clone(&graph.graph);
    let points: Vec<(u32, f64)> = vec_of(&vertices, "vertices")?.into_iter().map(|v| (v, 1.0)).collect();
    let sources: Vec<u32> = match &sources {
        Some(s) => vec_of(s, "sources")?,
        None => (0..g.num_vertices()).collect(),
    };
    let near = crate::run::run(py, Run { threads }, move |_| {
        let o = Opportunities::new(g.num_vertices(), &points)?;
        Ok(urbanflow::access::nearest(&g, &o, &sources, k, max_distance)?)
    })?;
    let s = near.sources.len();
    let shape = |v: Vec<u32>| Array2::from_shape_vec((s, k), v).map_err(|e| Error::Input(e.to_string()));
    let out = PyDict::new(py);
    out.set_item("sources", near.sources.into_pyarray(py))?;
    out.set_item("vertex", shape(near.vertex)?.into_pyarray(py))?;
    out.set_item("distance", shape(near.distance)?.into_pyarray(py))?;
    Ok(out)
}
