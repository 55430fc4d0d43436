//! `Graph`: a directed graph with `u32` weights and the ids its file gave its vertices, and the
//! shortest-path calls on it. Vertices are 0-based indices; `ids` maps them back.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1};
use pyo3::prelude::*;
use urbanflow::Csr;
use urbanflow::graph::io::{GraphFormat, LoadOptions, load_graph};
use urbanflow::sssp::many::{ManyOptions, Method, many_to_all_into, many_to_all_shared, many_to_all_with};
use urbanflow::sssp::{Algorithm, NO_ARC, Query, UNREACHABLE, solve};

use crate::errors::Error;
use crate::hierarchy::Hierarchy;
use crate::run::{Cancel, Run, backend_of, report_progress, run, run_watching};

/// Sources per `many_to_all` call: how soon an interrupted many-source call stops.
const CANCEL_BLOCK: usize = 256;

/// Rows of many trees into `dist` (and parent vertices into `pred`), row `i` from `sources[i]`.
/// Sources go in blocks of [`CANCEL_BLOCK`] trees so that an interrupted call stops soon (PHAST, which
/// prepares a hierarchy per call, in one); `done` counts the trees finished. With parents the workers write their rows themselves, in
/// parallel, each row behind its own lock (rows are disjoint; the locks are never contended).
fn many_rows(
    graph: &Csr<u32>,
    sources: &[u32],
    opts: &ManyOptions<'_>,
    cancel: &Cancel,
    dist: &mut [u32],
    pred: Option<&mut [u32]>,
    done: &AtomicUsize,
) -> Result<(), Error> {
    let n = graph.num_vertices() as usize;
    if n == 0 || sources.is_empty() {
        // No rows to fill; a source is still checked against the empty graph.
        many_to_all_with(graph, sources, opts, |_| {})?;
        return Ok(());
    }
    let block = if opts.method == Method::Trees { CANCEL_BLOCK } else { sources.len() };
    let Some(pred) = pred else {
        // Distances alone: the library writes the rows in place (on the CPU without a copy).
        for (b, chunk) in sources.chunks(block).enumerate() {
            cancel.check()?;
            let start = b * block * n;
            many_to_all_into(graph, chunk, opts, &mut dist[start..start + chunk.len() * n])?;
            done.fetch_add(chunk.len(), Ordering::Relaxed);
        }
        return Ok(());
    };
    let tails = graph.arc_tails();
    let dist_rows: Vec<Mutex<&mut [u32]>> = dist.chunks_mut(n).map(Mutex::new).collect();
    let pred_rows: Vec<Mutex<&mut [u32]>> = pred.chunks_mut(n).map(Mutex::new).collect();
    fn lock<'a, 'b>(m: &'a Mutex<&'b mut [u32]>) -> std::sync::MutexGuard<'a, &'b mut [u32]> {
        m.lock().unwrap_or_else(|p| p.into_inner())
    }
    for (b, chunk) in sources.chunks(block).enumerate() {
        cancel.check()?;
        many_to_all_shared(graph, chunk, opts, |trees| {
            for i in 0..trees.sources.len() {
                let row = b * block + trees.first + i;
                lock(&dist_rows[row]).copy_from_slice(trees.dist_row(i));
                if let (Some(arcs), Some(out)) = (trees.pred, pred_rows.get(row)) {
                    let arcs = &arcs[i * n..(i + 1) * n];
                    for (p, &a) in lock(out).iter_mut().zip(arcs) {
                        *p = if a == NO_ARC { UNREACHABLE } else { tails[a as usize] };
                    }
                }
            }
        })?;
    }
    Ok(())
}

/// A directed graph with non-negative integer weights (`u32`).
#[pyclass(frozen, module = "urbanflow._urbanflow")]
pub struct Graph {
    pub(crate) graph: Arc<Csr<u32>>,
    pub(crate) ids: Arc<Vec<u64>>,
}

fn slice<'a, T: numpy::Element>(a: &'a PyReadonlyArray1<'_, T>, what: &str) -> Result<&'a [T], Error> {
    a.as_slice().map_err(|_| Error::Input(format!("{what}: expected a contiguous one-dimensional array")))
}

#[pymethods]
impl Graph {
    /// Reads a graph file: DIMACS (`.gr`), PACE, an edge list, or a TNTP network (free-flow times
    /// scaled by `tntp_units` and rounded); plain, `.gz` or `.xz`. `format` names the format where
    /// detection cannot ("dimacs", "dimacs0", "pace", "edges", "tntp"; default "auto").
    #[staticmethod]
    #[pyo3(signature = (path, format = "auto", *, tntp_units = 1000.0, threads = None))]
    fn from_file(
        py: Python<'_>,
        path: PathBuf,
        format: &str,
        tntp_units: f64,
        threads: Option<usize>,
    ) -> PyResult<Self> {
        let path = crate::paths::input_path(path)?;
        let format: GraphFormat = format.parse().map_err(Error::Input)?;
        let opts = LoadOptions { format, tntp_units, ..LoadOptions::default() };
        let loaded = run(py, Run { threads }, move |_| Ok(load_graph(&path, &opts)?))?;
        Ok(Self { graph: Arc::new(loaded.graph), ids: Arc::new(loaded.ids) })
    }

    /// A graph on `n` vertices (default: one more than the largest index) from arc arrays of equal
    /// length: tails, heads (0-based indices) and weights. Parallel arcs and self-loops are kept.
    #[staticmethod]
    #[pyo3(signature = (tails, heads, weights, *, n = None))]
    fn from_edges(
        tails: PyReadonlyArray1<'_, u32>,
        heads: PyReadonlyArray1<'_, u32>,
        weights: PyReadonlyArray1<'_, u32>,
        n: Option<u32>,
    ) -> PyResult<Self> {
        let (t, h, w) = (slice(&tails, "tails")?, slice(&heads, "heads")?, slice(&weights, "weights")?);
        if t.len() != h.len() || t.len() != w.len() {
            return Err(Error::Input(format!(
                "tails, heads and weights have {}, {} and {} entries: expected equal lengths",
                t.len(),
                h.len(),
                w.len()
            ))
            .into());
        }
        let top = t.iter().chain(h).max().map_or(0, |&v| v as u64 + 1);
        let n = match n {
            Some(n) if (n as u64) < top => {
                return Err(Error::Input(format!("n = {n}, but an arc names vertex {}", top - 1)).into());
            }
            Some(n) => n,
            None if top > u32::MAX as u64 => {
                return Err(Error::Input("more than 2**32 - 1 vertices".into()).into());
            }
            None => top as u32,
        };
        let g = Csr::from_edges(n, t.iter().zip(h).zip(w).map(|((&a, &b), &c)| (a, b, c)))
            .map_err(Error::from)?;
        Ok(Self { graph: Arc::new(g), ids: Arc::new((0..n as u64).collect()) })
    }

    /// Number of vertices.
    #[getter]
    fn n(&self) -> u32 {
        self.graph.num_vertices()
    }

    /// Number of arcs.
    #[getter]
    fn m(&self) -> u32 {
        self.graph.num_arcs()
    }

    /// The file's id of each vertex (uint64; `0..n` for graphs made from arrays).
    #[getter]
    fn ids<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        self.ids.to_vec().into_pyarray(py)
    }

    /// CSR offsets (uint32, n + 1 entries): the arcs of vertex v are `offsets[v]:offsets[v + 1]`.
    #[getter]
    fn offsets<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        self.graph.offsets().to_vec().into_pyarray(py)
    }

    /// Head of each arc (uint32), in CSR order.
    #[getter]
    fn heads<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        self.graph.targets().to_vec().into_pyarray(py)
    }

    /// Tail of each arc (uint32), in CSR order.
    #[getter]
    fn tails<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        self.graph.arc_tails().into_pyarray(py)
    }

    /// Weight of each arc (uint32), in CSR order.
    #[getter]
    fn weights<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        self.graph.weights().to_vec().into_pyarray(py)
    }

    /// Distances from one source (uint32, `UNREACHABLE` where no path exists).
    #[pyo3(signature = (source, *, algorithm = "auto", backend = None, threads = None))]
    fn distances_from<'py>(
        &self,
        py: Python<'py>,
        source: u32,
        algorithm: &str,
        backend: Option<&str>,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray1<u32>>> {
        let algorithm: Algorithm = algorithm.parse().map_err(Error::Input)?;
        let choice = backend_of(backend)?;
        let graph = Arc::clone(&self.graph);
        let dist = run(py, Run { threads }, move |_| {
            let q = Query { source, ..Default::default() };
            Ok(solve(&graph, &q, algorithm, choice.backend()?)?.dist)
        })?;
        Ok(dist.into_pyarray(py))
    }

    /// Distances from many sources: a (len(sources), n) uint32 array, row i from `sources[i]`.
    /// `method`: "trees" (a search per source), "phast" (a contraction hierarchy, then sweeps) or
    /// "auto" (by source count). `progress(done, total)` is called on this thread as blocks of trees
    /// finish (a false answer ends the call).
    #[pyo3(signature = (sources, *, method = "auto", backend = None, threads = None, progress = None))]
    #[allow(clippy::too_many_arguments)] // keyword arguments of one Python method
    fn distances_many<'py>(
        &self,
        py: Python<'py>,
        sources: PyReadonlyArray1<'_, u32>,
        method: &str,
        backend: Option<&str>,
        threads: Option<usize>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyArray2<u32>>> {
        let method: Method = method.parse().map_err(Error::Input)?;
        let choice = backend_of(backend)?;
        let sources = slice(&sources, "sources")?.to_vec();
        let graph = Arc::clone(&self.graph);
        let n = graph.num_vertices() as usize;
        let k = sources.len();
        let done = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&done);
        let mut shown = usize::MAX;
        let tick = move |py: Python<'_>| -> PyResult<()> {
            let Some(callback) = &progress else { return Ok(()) };
            let now = done.load(Ordering::Relaxed);
            if now != shown {
                shown = now;
                report_progress(py, callback, (now, k))?;
            }
            Ok(())
        };
        let rows = run_watching(
            py,
            Run { threads },
            move |cancel| {
                let mut out = vec![0u32; k * n];
                let opts = ManyOptions { backend: choice.backend()?, method, ..Default::default() };
                many_rows(&graph, &sources, &opts, cancel, &mut out, None, &counted)?;
                Ok(out)
            },
            tick,
        )?;
        let array = Array2::from_shape_vec((k, n), rows).map_err(|e| Error::Input(e.to_string()))?;
        Ok(array.into_pyarray(py))
    }

    /// Shortest-path trees from many sources: `(dist, pred)`, both (len(sources), n) uint32 arrays;
    /// `pred[i, v]` is `v`'s parent in the tree of `sources[i]` (the tail of its canonical predecessor
    /// arc: the same on every backend), `UNREACHABLE` at the source and where no path exists.
    #[pyo3(signature = (sources, *, method = "auto", backend = None, threads = None))]
    #[allow(clippy::type_complexity)] // a (distances, predecessors) pair of arrays
    fn trees<'py>(
        &self,
        py: Python<'py>,
        sources: PyReadonlyArray1<'_, u32>,
        method: &str,
        backend: Option<&str>,
        threads: Option<usize>,
    ) -> PyResult<(Bound<'py, PyArray2<u32>>, Bound<'py, PyArray2<u32>>)> {
        let method: Method = method.parse().map_err(Error::Input)?;
        let choice = backend_of(backend)?;
        let sources = slice(&sources, "sources")?.to_vec();
        let graph = Arc::clone(&self.graph);
        let (n, k) = (graph.num_vertices() as usize, sources.len());
        let (dist, pred) = run(py, Run { threads }, move |cancel| {
            let (mut dist, mut pred) = (vec![0u32; k * n], vec![0u32; k * n]);
            let opts =
                ManyOptions { backend: choice.backend()?, method, predecessors: true, ..Default::default() };
            many_rows(&graph, &sources, &opts, cancel, &mut dist, Some(&mut pred), &AtomicUsize::new(0))?;
            Ok((dist, pred))
        })?;
        let shape = |v| Array2::from_shape_vec((k, n), v).map_err(|e| Error::Input(e.to_string()));
        Ok((shape(dist)?.into_pyarray(py), shape(pred)?.into_pyarray(py)))
    }

    /// Shortest paths from `source` to each of `targets` along one tree: a list with, per target,
    /// `(distance, vertices)` (a uint32 array from source to target) or `None` when it cannot be
    /// reached.
    #[pyo3(signature = (source, targets, *, threads = None))]
    #[allow(clippy::type_complexity)] // a list of optional (distance, path) pairs
    fn paths<'py>(
        &self,
        py: Python<'py>,
        source: u32,
        targets: PyReadonlyArray1<'_, u32>,
        threads: Option<usize>,
    ) -> PyResult<Vec<Option<(u32, Bound<'py, PyArray1<u32>>)>>> {
        let targets = slice(&targets, "targets")?.to_vec();
        let graph = Arc::clone(&self.graph);
        let n = graph.num_vertices();
        if let Some(&t) = targets.iter().find(|&&t| t >= n) {
            return Err(Error::Input(format!("target {t}: expected a vertex index in 0..{n}")).into());
        }
        let found = run(py, Run { threads }, move |_| {
            // One tree with its canonical predecessor arcs; the library walks each path back.
            let q = Query { source, predecessors: true, ..Default::default() };
            let tree = solve(&graph, &q, Algorithm::Dijkstra, urbanflow::Backend::Cpu)?;
            let walk = |t: u32| Some((tree.distance(t)?, tree.path_to(&graph, t)?));
            Ok(targets.iter().map(|&t| walk(t)).collect::<Vec<_>>())
        })?;
        Ok(found.into_iter().map(|p| p.map(|(d, v)| (d, v.into_pyarray(py)))).collect())
    }

    /// A shortest path from `source` to `target`: `(distance, vertices)`, or `None` when the target
    /// cannot be reached.
    #[pyo3(signature = (source, target, *, threads = None))]
    fn path<'py>(
        &self,
        py: Python<'py>,
        source: u32,
        target: u32,
        threads: Option<usize>,
    ) -> PyResult<Option<(u32, Bound<'py, PyArray1<u32>>)>> {
        let graph = Arc::clone(&self.graph);
        let found = run(py, Run { threads }, move |_| {
            let mut q = urbanflow::sssp::cpu::bidirectional::BidirectionalQuery::new(&graph);
            Ok(q.path(source, target)?.map(|r| (r.distance, r.vertices)))
        })?;
        Ok(found.map(|(d, v)| (d, v.into_pyarray(py))))
    }

    /// The graph's customisable contraction hierarchy, customised with its weights: the order built
    /// once per graph shape (kept in urbanflow's cache folder with `cache=True`), then routes and
    /// matrices without a search of the graph.
    #[pyo3(signature = (*, cache = true, threads = None))]
    fn hierarchy(&self, py: Python<'_>, cache: bool, threads: Option<usize>) -> PyResult<Hierarchy> {
        let graph = Arc::clone(&self.graph);
        run(py, Run { threads }, move |_| Hierarchy::build(graph, cache))
    }

    /// Whether the cache folder holds this graph's hierarchy order (then `hierarchy()` loads it).
    fn hierarchy_cached(&self) -> bool {
        urbanflow::sssp::cch::Cch::is_cached(&self.graph)
    }

    /// The engine the matrix API would run for `sources` origins (`"trees"`, `"buckets"`, …) and why,
    /// decided without computing: the Python layer asks it before preparing its kept hierarchy.
    #[pyo3(signature = (sources, *, backend = None))]
    fn matrix_engine(&self, sources: usize, backend: Option<&str>) -> PyResult<(String, String)> {
        let backend = backend_of(backend)?.backend().map_err(Error::from)?;
        let opts = urbanflow::sssp::matrix::MatrixOptions { backend, ..Default::default() };
        let (engine, why) = urbanflow::sssp::matrix::engine_for(&self.graph, sources, &opts);
        Ok((engine.name().to_string(), why))
    }

    /// Distances from every source to every target: a (len(sources), len(targets)) uint32 array, by
    /// the library's matrix API. `engine`: "auto" (one tree per source for few sources, else bucket
    /// walks on a customisable hierarchy, its order kept in the cache folder), "trees", "buckets",
    /// "min-plus" (a GPU) or "floyd-warshall".
    #[pyo3(signature = (sources, targets, *, backend = None, engine = "auto", threads = None))]
    fn distance_matrix<'py>(
        &self,
        py: Python<'py>,
        sources: PyReadonlyArray1<'_, u32>,
        targets: PyReadonlyArray1<'_, u32>,
        backend: Option<&str>,
        engine: &str,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray2<u32>>> {
        let engine: urbanflow::sssp::matrix::Engine = engine.parse().map_err(Error::Input)?;
        let choice = backend_of(backend)?;
        let (s, t) = (slice(&sources, "sources")?.to_vec(), slice(&targets, "targets")?.to_vec());
        let (k, l) = (s.len(), t.len());
        let graph = Arc::clone(&self.graph);
        let m = run(py, Run { threads }, move |_| {
            let opts = urbanflow::sssp::matrix::MatrixOptions {
                backend: choice.backend()?,
                engine,
                ..Default::default()
            };
            Ok(urbanflow::sssp::matrix::distance_matrix(&graph, &s, &t, &opts)?.matrix.data)
        })?;
        let array = Array2::from_shape_vec((k, l), m).map_err(|e| Error::Input(e.to_string()))?;
        Ok(array.into_pyarray(py))
    }

    /// The `k` shortest loopless paths from `source` to `target`, shortest first: a list of `(cost,
    /// vertices)`. `algorithm`: "mps" (the default) or "yen".
    #[pyo3(signature = (source, target, k, *, algorithm = "mps", threads = None))]
    fn k_shortest_paths<'py>(
        &self,
        py: Python<'py>,
        source: u32,
        target: u32,
        k: usize,
        algorithm: &str,
        threads: Option<usize>,
    ) -> PyResult<Vec<(u64, Bound<'py, PyArray1<u32>>)>> {
        let yen = match algorithm {
            "mps" => false,
            "yen" => true,
            other => return Err(Error::Input(format!("algorithm `{other}`: expected mps or yen")).into()),
        };
        let graph = Arc::clone(&self.graph);
        let paths = run(py, Run { threads }, move |_| {
            let (paths, _) = if yen {
                urbanflow::sssp::ksp::yen(&graph, source, target, k)
            } else {
                urbanflow::sssp::ksp::mps(&graph, source, target, k)
            }?;
            Ok(paths.into_iter().map(|p| (p.cost, p.vertices(&graph))).collect::<Vec<_>>())
        })?;
        Ok(paths.into_iter().map(|(c, v)| (c, v.into_pyarray(py))).collect())
    }

    fn __repr__(&self) -> String {
        format!("Graph(n={}, m={})", self.graph.num_vertices(), self.graph.num_arcs())
    }
}
