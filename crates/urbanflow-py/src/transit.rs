//! `Transit`: a GTFS feed built into a time-dependent network for one service day, and earliest-arrival
//! journeys on it (walking, transit, cycling to stations), as `urbanflow journey` answers them.

use std::path::PathBuf;
use std::sync::Arc;

use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use urbanflow::transit::transit::{TransitNetwork, TransitOptions, first_weekday, parse_date, read_feed};
use urbanflow::transit::{EapQuery, Nfa, Semantics, earliest_arrival, label};

use crate::errors::Error;
use crate::run::{Run, run};

/// A public-transport network of one service day, built from a GTFS feed.
#[pyclass(frozen, module = "urbanflow._urbanflow")]
pub struct Transit {
    net: Arc<TransitNetwork>,
    date: String,
}

/// The search's answer for one query: the arrival, and the legs as
/// (mode, from vertex, to vertex, departure, arrival, arc of the first step).
type Found = Option<(u32, Vec<(u8, u32, u32, u32, u32, u32)>)>;

#[pymethods]
impl Transit {
    /// Reads a GTFS feed (zip or folder) and builds the network of `date` (`YYYY-MM-DD`; default: the
    /// feed's first weekday with service). `places`: `(lat, lon)` points joined to the stations within
    /// `place_radius` metres on foot, to start or end journeys at; `bike_radius`: stations reachable
    /// by bicycle (metres, 4.5 m/s) for the "bike+transit" profile.
    #[staticmethod]
    #[pyo3(signature = (path, *, date = None, places = None, walk_speed = 1.3, walk_radius = 500.0, change_time = 120, place_radius = 1000.0, bike_radius = None))]
    #[allow(clippy::too_many_arguments)] // keyword arguments of one Python function
    fn from_gtfs(
        py: Python<'_>,
        path: PathBuf,
        date: Option<String>,
        places: Option<Vec<(f64, f64)>>,
        walk_speed: f64,
        walk_radius: f64,
        change_time: u32,
        place_radius: f64,
        bike_radius: Option<f64>,
    ) -> PyResult<Self> {
        let path = crate::paths::input_path(path)?;
        if !(walk_speed.is_finite() && walk_speed > 0.0) {
            return Err(
                Error::Input(format!("walk_speed = {walk_speed}: expected metres per second > 0")).into()
            );
        }
        for (what, v) in [("walk_radius", walk_radius), ("place_radius", place_radius)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::Input(format!("{what} = {v}: expected metres ≥ 0")).into());
            }
        }
        let opts = TransitOptions {
            walk_speed_mps: walk_speed,
            walk_radius_m: walk_radius,
            change_time_s: change_time,
            bike: bike_radius.map(|r| (r, 4.5)),
            places: places.unwrap_or_default().into_iter().map(|(lat, lon)| [lat, lon]).collect(),
            place_radius_m: place_radius,
            roads: None,
        };
        let (net, date) = run(py, Run { threads: None }, move |_| {
            let feed = read_feed(&path)?;
            let date = match date {
                Some(d) => parse_date(&d)?,
                None => first_weekday(&feed).ok_or_else(|| {
                    Error::Input(format!(
                        "{}: the feed's calendar has no weekday service; give date=",
                        path.display()
                    ))
                })?,
            };
            Ok((TransitNetwork::from_feed(&feed, &path, date, &opts)?, date.to_string()))
        })?;
        Ok(Self { net: Arc::new(net), date })
    }

    /// The service day (`YYYY-MM-DD`).
    #[getter]
    fn date(&self) -> &str {
        &self.date
    }

    /// Vertices of the network (street nodes, platforms, pattern stops, places).
    #[getter]
    fn num_vertices(&self) -> u32 {
        self.net.graph.num_vertices()
    }

    /// Arcs of the network.
    #[getter]
    fn num_arcs(&self) -> u32 {
        self.net.graph.num_arcs()
    }

    /// The stations as columns: `id`, `name` (lists of str), `lat`, `lon` (float64), `vertex` (the
    /// station's street node, uint32).
    fn stations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = &self.net.stations;
        let d = PyDict::new(py);
        d.set_item("id", s.iter().map(|x| x.id.clone()).collect::<Vec<_>>())?;
        d.set_item("name", s.iter().map(|x| x.name.clone()).collect::<Vec<_>>())?;
        d.set_item("lat", s.iter().map(|x| x.coords[0]).collect::<Vec<f64>>().into_pyarray(py))?;
        d.set_item("lon", s.iter().map(|x| x.coords[1]).collect::<Vec<f64>>().into_pyarray(py))?;
        d.set_item("vertex", self.net.street.clone().into_pyarray(py))?;
        Ok(d)
    }

    /// The vertex of each place given to `from_gtfs` (uint32).
    fn place_vertices<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<u32>> {
        self.net.place.clone().into_pyarray(py)
    }

    /// What the build counted: services, trips, stop_times, departures, overtaken, walk_arcs,
    /// bike_arcs, transfers, and the numbers of stations, routes and patterns.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = &self.net.stats;
        let d = PyDict::new(py);
        for (k, v) in [
            ("services", s.services),
            ("trips", s.trips),
            ("stop_times", s.stop_times),
            ("departures", s.departures),
            ("overtaken", s.overtaken),
            ("walk_arcs", s.walk_arcs),
            ("bike_arcs", s.bike_arcs),
            ("transfers", s.transfers),
            ("stations", self.net.stations.len()),
            ("routes", self.net.routes.len()),
            ("patterns", self.net.patterns.len()),
        ] {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// The station nearest to `(lat, lon)`: its index, its street node (the vertex journeys start
    /// and end at) and its distance in metres.
    fn nearest_station(&self, lat: f64, lon: f64) -> PyResult<(u32, u32, f64)> {
        let s = self
            .net
            .nearest_station([lat, lon])
            .ok_or_else(|| Error::Input("the network has no stations".into()))?;
        let d = urbanflow::transit::transit::distance_m([lat, lon], self.net.stations[s as usize].coords);
        Ok((s, self.net.street[s as usize], d))
    }

    /// The earliest-arrival journey from vertex `source` to vertex `target` leaving at `depart`
    /// (seconds after midnight of the service day) under `profile` ("walk", "walk+transit",
    /// "bike+transit", "car"): `None` when the target cannot be reached, else a dict with `depart`,
    /// `arrival` (seconds) and `legs`, a list of dicts (mode, from, to, from_vertex, to_vertex,
    /// departure, arrival, route) without the zero-length steps between platforms.
    #[pyo3(signature = (source, target, depart, *, profile = "walk+transit"))]
    fn journey<'py>(
        &self,
        py: Python<'py>,
        source: u32,
        target: u32,
        depart: u32,
        profile: &str,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let nfa = Nfa::profile(profile).map_err(Error::Transit)?;
        let net = Arc::clone(&self.net);
        let found: Found = run(py, Run { threads: None }, move |_| {
            let g = &net.graph;
            let q = EapQuery { source, target: Some(target), depart };
            let r = earliest_arrival(g, &nfa, &q, Semantics::Product)?;
            Ok(r.journey(g, target).map(|j| {
                let legs = j
                    .legs
                    .iter()
                    .filter(|l| l.arrive > l.depart || label::is_transit(l.label))
                    .map(|l| (l.label, l.from, l.to, l.depart, l.arrive, l.steps[0].arc))
                    .collect();
                (j.arrival, legs)
            }))
        })?;
        let Some((arrival, legs)) = found else { return Ok(None) };
        let out = PyDict::new(py);
        out.set_item("depart", depart)?;
        out.set_item("arrival", arrival)?;
        let list = PyList::empty(py);
        for (mode, from, to, dep, arr, arc) in legs {
            let leg = PyDict::new(py);
            leg.set_item("mode", label::name(mode))?;
            leg.set_item("from", self.net.name_of(from))?;
            leg.set_item("to", self.net.name_of(to))?;
            leg.set_item("from_vertex", from)?;
            leg.set_item("to_vertex", to)?;
            leg.set_item("departure", dep)?;
            leg.set_item("arrival", arr)?;
            leg.set_item("route", self.net.route_of_arc(arc).map(|r| r.name.clone()))?;
            list.append(leg)?;
        }
        out.set_item("legs", list)?;
        Ok(Some(out))
    }

    /// Earliest arrival at every station's street node from vertex `source` leaving at `depart`
    /// (seconds): a float64 array in station order, `inf` where unreachable (one search of the
    /// whole network).
    #[pyo3(signature = (source, depart, *, profile = "walk+transit"))]
    fn arrivals<'py>(
        &self,
        py: Python<'py>,
        source: u32,
        depart: u32,
        profile: &str,
    ) -> PyResult<Bound<'py, numpy::PyArray1<f64>>> {
        let nfa = Nfa::profile(profile).map_err(Error::Transit)?;
        let net = Arc::clone(&self.net);
        let times = run(py, Run { threads: None }, move |_| {
            let q = EapQuery { source, target: None, depart };
            let r = earliest_arrival(&net.graph, &nfa, &q, Semantics::Product)?;
            Ok(net
                .street
                .iter()
                .map(|&v| r.arrival_at(v).map_or(f64::INFINITY, f64::from))
                .collect::<Vec<f64>>())
        })?;
        Ok(times.into_pyarray(py))
    }

    fn __repr__(&self) -> String {
        format!(
            "Transit(date={}, stations={}, routes={}, vertices={}, arcs={})",
            self.date,
            self.net.stations.len(),
            self.net.routes.len(),
            self.net.graph.num_vertices(),
            self.net.graph.num_arcs()
        )
    }
}
