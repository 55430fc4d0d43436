//! A frequency-based transit graph for optimal strategies from a GTFS feed: the trips of a service date
//! that leave their first stop within a time window, grouped into patterns (route and stop sequence),
//! each pattern a line with the frequency, mean ride times and mean dwell times of its trips in the
//! window.

use std::path::Path;

use super::demand::Zones;
use super::graph::{EdgeKind, HyperpathGraph};
use crate::TdError;
use crate::transit::build::{PatternTable, Services, StopIndex, routes_of};
use crate::transit::{GeoGrid, Station, TransitStats, distance_m, parse_date, read_feed};

/// How a feed becomes a transit graph. Every value is a parameter with this documented default.
#[derive(Debug, Clone, PartialEq)]
pub struct GtfsGraphOptions {
    /// Seconds of the service day `[start, end)`: a trip counts when it leaves its first stop within
    /// it, and a pattern's frequency is its trips ÷ the window. Default 07:00–09:00.
    pub window: (u32, u32),
    /// Walking speed, m/s (transfers between stops, connectors). Default 1.0, AequilibraE's.
    pub walk_speed_mps: f64,
    /// Walking transfers between stations this close, m (great-circle). Default 200.
    pub transfer_radius_m: f64,
    /// Time to board, s (half a dwell, as AequilibraE's builder charges it). Default 15.
    pub boarding_s: f64,
    /// Time to alight, s. Default 15.
    pub alighting_s: f64,
    /// Zones connect to every station within this, m. Default 500.
    pub connector_radius_m: f64,
    /// ... and to at least this many nearest stations, whatever the distance. Default 1.
    pub min_connectors: usize,
}

impl Default for GtfsGraphOptions {
    fn default() -> Self {
        Self {
            window: (7 * 3600, 9 * 3600),
            walk_speed_mps: 1.0,
            transfer_radius_m: 200.0,
            boarding_s: 15.0,
            alighting_s: 15.0,
            connector_radius_m: 500.0,
            min_connectors: 1,
        }
    }
}

/// What [`graph_from_gtfs`] builds.
#[derive(Debug, Clone)]
pub struct GtfsGraph {
    /// The graph: station vertices first (`0..stations.len()`), then zone vertices, then per pattern and
    /// stop one vertex, or two (arriving, leaving) where its trips dwell.
    pub graph: HyperpathGraph,
    /// The zones: the points given, or every station (zone id = 1-based station index).
    pub zones: Zones,
    /// The stations (a parent station, or a stop without one), in stop id order.
    pub stations: Vec<Station>,
    /// Patterns with a trip in the window (lines of the graph).
    pub patterns: usize,
    /// Trips in the window.
    pub trips: u32,
}

/// Builds the graph of `date` (`YYYY-MM-DD`) from the feed at `path` (zip or folder). Zones are
/// `(id, [lat, lon])` points joined to stations by connectors (walking time); without them every
/// station is a zone.
///
/// Per pattern with `n` trips leaving its first stop in the window: frequency `n / window`, and per
/// stop a vertex with a boarding edge from the station (where the feed allows boarding; time
/// `boarding_s`, the pattern's frequency), an alighting edge back (where it allows alighting;
/// `alighting_s`) and the ride to the next stop (the mean of the window's ride times, departure to
/// arrival). Where the trips dwell at an intermediate stop (mean departure − arrival > 0), the stop
/// has two vertices: riders arrive at the first, alight from it, and stay on board to the second by
/// a dwell edge of that mean time (in-vehicle time, paid only by those who ride through), from which
/// boarders leave. Every edge of a pattern carries its GTFS route's id as `line_id`, so boardings sum
/// per route. Walking edges join stations within `transfer_radius_m` both ways.
pub fn graph_from_gtfs(
    path: impl AsRef<Path>,
    date: &str,
    zone_points: Option<&[(i64, [f64; 2])]>,
    opts: &GtfsGraphOptions,
) -> Result<GtfsGraph, TdError> {
    let path = path.as_ref();
    let (w0, w1) = opts.window;
    let positive = opts.walk_speed_mps > 0.0 && opts.walk_speed_mps.is_finite();
    let times_ok = opts.boarding_s >= 0.0 && opts.alighting_s >= 0.0;
    if w1 <= w0 || !positive || !times_ok {
        return Err(TdError::InvalidParameter(format!(
            "window {w0}–{w1} s must be non-empty, walking speed positive, boarding and alighting times ≥ 0"
        )));
    }
    let date = parse_date(date)?;
    let feed = read_feed(path)?;
    let services = Services::on(&feed, path, date)?;
    let stops = StopIndex::of(&feed);
    let (routes, route_index) = routes_of(&feed);
    let mut stats = TransitStats::default();
    let table = PatternTable::of(&feed, &stops, &route_index, &services, &mut stats);
    let ns = stops.stations.len() as u32;
    let coords: Vec<[f64; 2]> = stops.stations.iter().map(|s| s.coords).collect();
    let nz = zone_points.map_or(0, <[_]>::len) as u32;
    let mut edges: Vec<(u32, u32, f64, f64, EdgeKind, String, String)> = Vec::new();
    let mut next_vertex = ns + nz;
    let (mut patterns, mut trips) = (0usize, 0u32);
    let window = (w1 - w0) as f64;
    let in_window = |dep: u32| (w0..w1).contains(&dep);
    for (p, key) in table.keys.iter().enumerate() {
        let (route, stations, board_ok, alight_ok) = key;
        let arcs = &table.departures[p];
        let n = arcs[0].iter().filter(|d| in_window(d.0)).count();
        if n == 0 {
            continue;
        }
        patterns += 1;
        trips += n as u32;
        let freq = n as f64 / window;
        let line = routes[*route as usize].id.clone();
        // The mean of the window's values (all of them when none lies in the window).
        let mean = |values: &[crate::transit::Departure]| {
            let inside: Vec<f64> = values.iter().filter(|d| in_window(d.0)).map(|d| d.1 as f64).collect();
            let all = if inside.is_empty() { values.iter().map(|d| d.1 as f64).collect() } else { inside };
            if all.is_empty() { 0.0 } else { all.iter().sum::<f64>() / all.len() as f64 }
        };
        // Per stop: the vertex trains arrive at and the one they leave from (the same without dwell).
        let mut at = Vec::with_capacity(stations.len());
        for i in 0..stations.len() {
            let dwell = mean(&table.dwells[p][i]);
            let arrive = next_vertex;
            next_vertex += 1;
            let leave = if dwell > 0.0 {
                next_vertex += 1;
                edges.push((
                    arrive,
                    arrive + 1,
                    dwell,
                    f64::INFINITY,
                    EdgeKind::Dwell,
                    line.clone(),
                    String::new(),
                ));
                arrive + 1
            } else {
                arrive
            };
            at.push((arrive, leave));
        }
        for (i, &s) in stations.iter().enumerate() {
            let ((arrive, leave), stop) = (at[i], stops.stations[s as usize].id.clone());
            if i + 1 < stations.len() && board_ok[i] {
                edges.push((s, leave, opts.boarding_s, freq, EdgeKind::Boarding, line.clone(), stop.clone()));
            }
            if i > 0 && alight_ok[i] {
                edges.push((
                    arrive,
                    s,
                    opts.alighting_s,
                    f64::INFINITY,
                    EdgeKind::Alighting,
                    line.clone(),
                    stop,
                ));
            }
            if i + 1 < stations.len() {
                let ride = mean(&arcs[i]);
                edges.push((
                    leave,
                    at[i + 1].0,
                    ride,
                    f64::INFINITY,
                    EdgeKind::OnBoard,
                    line.clone(),
                    String::new(),
                ));
            }
        }
    }
    if patterns == 0 {
        return Err(TdError::InvalidParameter(format!(
            "{}: no trip leaves its first stop between {} and {} on {date}",
            path.display(),
            clock(w0),
            clock(w1)
        )));
    }
    let walk = |d: f64| d / opts.walk_speed_mps;
    let grid = GeoGrid::new(&coords, opts.transfer_radius_m);
    for a in 0..ns {
        for (b, d) in grid.within(&coords, coords[a as usize], opts.transfer_radius_m) {
            if b != a {
                edges.push((a, b, walk(d), f64::INFINITY, EdgeKind::Walking, String::new(), String::new()));
            }
        }
    }
    let zones_of: Vec<(i64, u32)> = match zone_points {
        None => (0..ns).map(|s| (s as i64 + 1, s)).collect(),
        Some(points) => {
            let grid = GeoGrid::new(&coords, opts.connector_radius_m);
            let mut out = Vec::with_capacity(points.len());
            for (k, &(id, p)) in points.iter().enumerate() {
                let z = ns + k as u32;
                let mut reach = grid.within(&coords, p, opts.connector_radius_m);
                if reach.len() < opts.min_connectors {
                    let mut all: Vec<(u32, f64)> =
                        (0..ns).map(|s| (s, distance_m(p, coords[s as usize]))).collect();
                    all.sort_by(|x, y| x.1.total_cmp(&y.1).then(x.0.cmp(&y.0)));
                    all.truncate(opts.min_connectors);
                    reach = all;
                }
                reach.sort_by_key(|r| r.0);
                for (s, d) in reach {
                    let stop = stops.stations[s as usize].id.clone();
                    edges.push((
                        z,
                        s,
                        walk(d),
                        f64::INFINITY,
                        EdgeKind::Connector,
                        String::new(),
                        stop.clone(),
                    ));
                    edges.push((s, z, walk(d), f64::INFINITY, EdgeKind::Connector, String::new(), stop));
                }
                out.push((id, z));
            }
            out
        }
    };
    let graph = HyperpathGraph::from_labelled(next_vertex, edges);
    let zones = Zones::new(&graph, zones_of.into_iter().map(|(id, v)| (id, v, v)))?;
    Ok(GtfsGraph { graph, zones, stations: stops.stations, patterns, trips })
}

/// `HH:MM` of seconds of the day.
fn clock(t: u32) -> String {
    format!("{:02}:{:02}", t / 3600, t / 60 % 60)
}
