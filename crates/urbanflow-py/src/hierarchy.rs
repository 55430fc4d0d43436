//! `Hierarchy`: a graph's customisable contraction hierarchy (CCH), for repeated routes and matrices
//! from Python at the Rust library's speed. The order (the slow part) is built once per graph shape and
//! kept in urbanflow's cache folder; a customisation puts a metric (the graph's weights, or new ones)
//! on it; then `distance`, `path` (vertex indices) and `matrix` answer without a search of the graph.

use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1};
use pyo3::prelude::*;
use urbanflow::Csr;
use urbanflow::sssp::cch::perfect::thin_for_queries;
use urbanflow::sssp::cch::{CacheUse, Cch, CchQuery, Unpacking};
use urbanflow::sssp::ch::ContractionHierarchy;
use urbanflow::sssp::matrix::{Engine, MatrixOptions, distance_matrix};

use crate::errors::Error;
use crate::run::{Run, run};

/// One customisation: the hierarchy's weights and how each of its arcs unpacks into graph arcs. The
/// unpacking borrows the metric-independent `Cch`, which the cell owns (shared between customisations).
type Metric<'a> = (ContractionHierarchy, Unpacking<'a>);

self_cell::self_cell!(
    struct Customised {
        owner: Arc<Cch>,
        #[covariant]
        dependent: Metric,
    }
);

impl Customised {
    /// The customisation of `weights`; with `perfect`, thinned to the arcs some shortest path may need
    /// (`cch::perfect::thin_for_queries`: about half the arcs on road graphs, distance queries about
    /// twice as fast, for the time of a few customisations).
    fn of(cch: Arc<Cch>, weights: &[u32], perfect: bool) -> Result<Self, Error> {
        Ok(Self::try_new(cch, |cch| {
            let (ch, unpacking) = cch.customise_with_unpacking(weights)?;
            if perfect { thin_for_queries(&ch, &unpacking) } else { Ok((ch, unpacking)) }
        })?)
    }
}

/// A customisable contraction hierarchy of a `Graph`, customised with a metric.
#[pyclass(module = "urbanflow._urbanflow", frozen)]
pub struct Hierarchy {
    graph: Arc<Csr<u32>>,
    cch: Arc<Cch>,
    metric: RwLock<Arc<Customised>>,
    /// One query state, reused by `distance` and `path` (a fresh one costs four arrays of n).
    query: Mutex<Option<CchQuery>>,
    cache: String,
    build_s: f64,
    customise_s: Mutex<f64>,
}

impl Hierarchy {
    /// Builds (or loads from the cache folder, with `cache`) the order of `graph` and customises it
    /// with the graph's weights.
    pub fn build(graph: Arc<Csr<u32>>, cache: bool) -> Result<Self, Error> {
        let t = Instant::now();
        let (cch, used) = if cache {
            Cch::build_cached(&graph)?
        } else {
            (Cch::build(&graph)?, CacheUse::Uncached("cache=False".into()))
        };
        let cache = used.to_string();
        let build_s = t.elapsed().as_secs_f64();
        let cch = Arc::new(cch);
        let t = Instant::now();
        let metric = Customised::of(Arc::clone(&cch), graph.weights(), false)?;
        let customise_s = t.elapsed().as_secs_f64();
        Ok(Self {
            graph,
            cch,
            metric: RwLock::new(Arc::new(metric)),
            query: Mutex::new(None),
            cache,
            build_s,
            customise_s: Mutex::new(customise_s),
        })
    }

    fn metric(&self) -> Arc<Customised> {
        Arc::clone(&self.metric.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// Runs `f` with the reusable query state (a new one when another call holds it).
    fn with_query<T>(
        &self,
        metric: &Customised,
        f: impl FnOnce(&mut CchQuery, &Metric<'_>) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let taken = self.query.lock().unwrap_or_else(|p| p.into_inner()).take();
        let mut q = match taken {
            Some(q) => q,
            None => CchQuery::new(&metric.borrow_dependent().0)?,
        };
        let out = f(&mut q, metric.borrow_dependent());
        *self.query.lock().unwrap_or_else(|p| p.into_inner()) = Some(q);
        out
    }

    fn check_vertex(&self, v: u32, what: &str) -> Result<(), Error> {
        let n = self.graph.num_vertices();
        if v >= n {
            return Err(Error::Input(format!("{what} {v}: expected a vertex index in 0..{n}")));
        }
        Ok(())
    }
}

#[pymethods]
impl Hierarchy {
    /// Puts new arc weights on the hierarchy (uint32, one per arc in the graph's CSR order, as
    /// `Graph.weights`), or the graph's own with `None`. The order is kept: only the metric changes.
    /// `perfect` also thins it to the arcs some shortest path may need (faster queries afterwards).
    #[pyo3(signature = (weights = None, *, threads = None, perfect = false))]
    fn customise(
        &self,
        py: Python<'_>,
        weights: Option<PyReadonlyArray1<'_, u32>>,
        threads: Option<usize>,
        perfect: bool,
    ) -> PyResult<()> {
        let weights: Vec<u32> = match weights {
            None => self.graph.weights().to_vec(),
            Some(w) => {
                let w = w.as_slice().map_err(|e| Error::Input(format!("weights: {e}")))?.to_vec();
                if w.len() != self.graph.num_arcs() as usize {
                    return Err(Error::Input(format!(
                        "weights: {} values for a graph of {} arcs (one per arc, in Graph.weights order)",
                        w.len(),
                        self.graph.num_arcs()
                    ))
                    .into());
                }
                w
            }
        };
        let cch = Arc::clone(&self.cch);
        let t = Instant::now();
        let metric = run(py, Run { threads }, move |_| Customised::of(cch, &weights, perfect))?;
        *self.customise_s.lock().unwrap_or_else(|p| p.into_inner()) = t.elapsed().as_secs_f64();
        *self.metric.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(metric);
        // The query state fits any metric of the same order: it is kept.
        Ok(())
    }

    /// The shortest distance from `source` to `target`, or `None` when it cannot be reached.
    fn distance(&self, py: Python<'_>, source: u32, target: u32) -> PyResult<Option<u32>> {
        self.check_vertex(source, "source")?;
        self.check_vertex(target, "target")?;
        let metric = self.metric();
        // Microseconds of work: no helper thread, but other Python threads run meanwhile.
        let found =
            py.detach(|| self.with_query(&metric, |q, (ch, _)| Ok(q.distance(ch, source, target)?)))?;
        Ok(found)
    }

    /// A shortest path: `(distance, vertices)` with the vertices (uint32, from `source` to `target`),
    /// or `None` when `target` cannot be reached.
    fn path<'py>(
        &self,
        py: Python<'py>,
        source: u32,
        target: u32,
    ) -> PyResult<Option<(u32, Bound<'py, PyArray1<u32>>)>> {
        self.check_vertex(source, "source")?;
        self.check_vertex(target, "target")?;
        let metric = self.metric();
        let graph = &self.graph;
        let found = py.detach(|| {
            self.with_query(&metric, |q, (ch, unpacking)| {
                Ok(q.path_vertices(ch, unpacking, graph, source, target)?)
            })
        })?;
        Ok(found.map(|(d, v)| (d, v.into_pyarray(py))))
    }

    /// Distances from every source to every target: a (len(sources), len(targets)) uint32 array,
    /// `UNREACHABLE` where no path exists (buckets on all cores: no search per pair).
    #[pyo3(signature = (sources, targets, *, threads = None))]
    fn matrix<'py>(
        &self,
        py: Python<'py>,
        sources: PyReadonlyArray1<'_, u32>,
        targets: PyReadonlyArray1<'_, u32>,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray2<u32>>> {
        let s = sources.as_slice().map_err(|e| Error::Input(format!("sources: {e}")))?.to_vec();
        let t = targets.as_slice().map_err(|e| Error::Input(format!("targets: {e}")))?.to_vec();
        for &v in &s {
            self.check_vertex(v, "source")?;
        }
        for &v in &t {
            self.check_vertex(v, "target")?;
        }
        let (k, l) = (s.len(), t.len());
        let (metric, graph) = (self.metric(), Arc::clone(&self.graph));
        let data = run(py, Run { threads }, move |_| {
            // The hierarchy's metric (which may differ from the graph's weights), by its buckets.
            let ch = &metric.borrow_dependent().0;
            let opts = MatrixOptions { engine: Engine::Buckets, hierarchy: Some(ch), ..Default::default() };
            Ok(distance_matrix(&graph, &s, &t, &opts)?.matrix.data)
        })?;
        let array = Array2::from_shape_vec((k, l), data).map_err(|e| Error::Input(e.to_string()))?;
        Ok(array.into_pyarray(py))
    }

    /// How the order was obtained ("loaded from …", "built, saved to …", …).
    #[getter]
    fn cache(&self) -> &str {
        &self.cache
    }

    /// Seconds to build or load the order (with its supergraph).
    #[getter]
    fn build_s(&self) -> f64 {
        self.build_s
    }

    /// Seconds of the last customisation.
    #[getter]
    fn customise_s(&self) -> f64 {
        *self.customise_s.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn __repr__(&self) -> String {
        format!(
            "Hierarchy(n={}, edges={}, shortcuts={}, order {})",
            self.cch.num_vertices(),
            self.cch.num_edges(),
            self.metric().borrow_dependent().0.shortcuts,
            self.cache
        )
    }
}
