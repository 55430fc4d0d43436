//! `OsmGraph`: a routable graph imported from OpenStreetMap (PBF or XML) for a profile, with
//! coordinates, OSM ids, snapping, and the turn-aware graph the file's restrictions imply.

use std::path::PathBuf;
use std::sync::Arc;

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::prelude::*;
use urbanflow::graph::osm::{OsmGraph as RustOsm, OsmOptions, Profile, import};
use urbanflow::graph::turns::{TurnGraph, TurnOptions};

use crate::errors::Error;
use crate::graph::Graph;
use crate::run::{Run, run};

/// A road graph imported from OpenStreetMap: weights are travel times in milliseconds.
#[pyclass(frozen, module = "urbanflow._urbanflow")]
pub struct OsmGraph {
    osm: Arc<RustOsm>,
}

#[pymethods]
impl OsmGraph {
    /// Imports an OSM file (`.osm.pbf`, or OSM XML) for `profile` ("car", "bike" or "walk"), keeping
    /// the largest strongly connected component unless `largest_component=False`.
    #[staticmethod]
    #[pyo3(signature = (path, profile = "car", *, largest_component = true))]
    fn from_file(py: Python<'_>, path: PathBuf, profile: &str, largest_component: bool) -> PyResult<Self> {
        let path = crate::paths::input_path(path)?;
        let profile: Profile = profile.parse().map_err(Error::Input)?;
        let osm = run(py, Run { threads: None }, move |_| {
            Ok(import(&path, &OsmOptions { largest_component, ..OsmOptions::new(profile) })?)
        })?;
        Ok(Self { osm: Arc::new(osm) })
    }

    /// The graph (milliseconds of travel time on the arcs), to route on.
    #[getter]
    fn graph(&self) -> Graph {
        let ids = self.osm.osm_ids.iter().map(|&i| i as u64).collect();
        Graph { graph: Arc::new(self.osm.graph.clone()), ids: Arc::new(ids) }
    }

    /// OSM node id of each vertex (int64).
    #[getter]
    fn osm_ids<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        self.osm.osm_ids.clone().into_pyarray(py)
    }

    /// OSM way id of each arc (int64, CSR arc order).
    #[getter]
    fn way_ids<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        self.osm.way_ids.clone().into_pyarray(py)
    }

    /// Latitude and longitude of each vertex: an (n, 2) float64 array.
    #[getter]
    fn coords<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let flat: Vec<f64> = self.osm.coords.iter().flat_map(|&(a, b)| [a, b]).collect();
        let a = Array2::from_shape_vec((self.osm.coords.len(), 2), flat)
            .map_err(|e| Error::Input(e.to_string()))?;
        Ok(a.into_pyarray(py))
    }

    /// Travel time of each arc in seconds (float64).
    #[getter]
    fn travel_time_s<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.osm.travel_time_s.clone().into_pyarray(py)
    }

    /// Length of each arc in metres (float64).
    #[getter]
    fn length_m<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.osm.length_m.clone().into_pyarray(py)
    }

    /// The vertex nearest to a point and its distance in metres, refused beyond `limit_m` metres
    /// (default 1 km).
    #[pyo3(signature = (lat, lon, *, limit_m = urbanflow::graph::osm::DEFAULT_SNAP_LIMIT_M))]
    fn snap(&self, lat: f64, lon: f64, limit_m: f64) -> PyResult<(u32, f64)> {
        Ok(self.osm.snap(lat, lon, limit_m).map_err(Error::from)?)
    }

    /// What the import saw: counts of ways, cut ways, components, and the turn restrictions applied
    /// and skipped (by reason).
    fn report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let r = &self.osm.report;
        let t = &self.osm.turn_rules.report;
        let d = pyo3::types::PyDict::new(py);
        d.set_item("nodes_read", r.nodes_read)?;
        d.set_item("ways_read", r.ways_read)?;
        d.set_item("ways_used", r.ways_used)?;
        d.set_item("ways_cut", r.ways_cut)?;
        d.set_item("components", r.components)?;
        d.set_item("restrictions", t.relations)?;
        d.set_item("restrictions_applied", t.applied())?;
        let skipped = pyo3::types::PyDict::new(py);
        for (why, n) in &t.skipped {
            skipped.set_item(why.name(), n)?;
        }
        d.set_item("restrictions_skipped", skipped)?;
        Ok(d)
    }

    /// The turn-aware graph of the profile's defaults (restrictions, U-turns only at dead ends for cars
    /// and bicycles, turn costs in milliseconds): `(graph, sources, targets, road_arcs)`, where a route
    /// from node `s` to node `t` runs from vertex `sources[s]` to vertex `targets[t]` of `graph`, and its
    /// other vertices `v` stand for the road arcs `road_arcs[v]` of this graph (in CSR order).
    #[allow(clippy::type_complexity)] // a tuple of arrays, as Python sees it
    fn turn_graph<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Graph, Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<u32>>)>
    {
        let osm = Arc::clone(&self.osm);
        let t = run(py, Run { threads: None }, move |_| {
            Ok(TurnGraph::from_osm(&osm, &TurnOptions::for_profile(osm.profile))?)
        })?;
        let n = t.num_nodes();
        let sources: Vec<u32> = (0..n).map(|v| t.source(v)).collect();
        let targets: Vec<u32> = (0..n).map(|v| t.target(v)).collect();
        let m = t.graph.num_vertices() as u64;
        let road_arcs = t.base_arc.clone();
        let g = Graph { graph: Arc::new(t.graph), ids: Arc::new((0..m).collect()) };
        Ok((g, sources.into_pyarray(py), targets.into_pyarray(py), road_arcs.into_pyarray(py)))
    }

    fn __repr__(&self) -> String {
        format!(
            "OsmGraph(profile={}, n={}, m={})",
            self.osm.profile,
            self.osm.graph.num_vertices(),
            self.osm.graph.num_arcs()
        )
    }
}
