//! Networks from GTFS feeds: a timetabled layer for one service date, walking (and optionally cycling)
//! between stops, places given by coordinates, and an optional road layer.
//!
//! # Model
//! Every station (a GTFS parent station, or a stop without one) has three vertices: its **street**
//! node (where walks, cycles and queries start and end), its **arrival platform** and its
//! **departure platform**. Trips that visit the same stops in the same order on one route form a
//! **pattern**, with one vertex per stop of the pattern:
//!
//! | arc | label | time |
//! |---|---|---|
//! | pattern stop i → i + 1 | the route's mode | wait for the next departure, ride (timetable of the day) |
//! | departure platform → pattern stop (where boarding is allowed) | `TRANSFER` | 0 |
//! | pattern stop → arrival platform (where alighting is allowed) | `TRANSFER` | 0 |
//! | arrival → departure platform | `TRANSFER` | the station's change time (`transfers.txt` from the station to itself, else [`TransitOptions::change_time_s`]) |
//! | arrival platform of a → departure platform of b | `TRANSFER` | `transfers.txt` `min_transfer_time` (type 2) |
//! | street → departure platform | `ENTER` | 0 |
//! | arrival platform → street | `EXIT` | 0 |
//! | street ↔ street within [`TransitOptions::walk_radius_m`] | `WALK` | great-circle distance / walking speed, rounded up |
//!
//! The profile [`Nfa::walk_transit`] forbids `EXIT` followed by `ENTER` without a walk between them,
//! so the change time cannot be skipped by stepping out of the station and back in — a constraint only
//! the product semantics can express.
//!
//! Timetables: for service date D, the network holds the departures of date D's trips that leave
//! before midnight and those of D − 1's trips that leave after midnight (GTFS times ≥ 24:00:00), as
//! one periodic day (a journey that runs past midnight continues on the same timetable). Where two
//! trips of a pattern overtake, the earlier departure keeps the later trip's arrival (the FIFO
//! envelope: a traveller could wait for the faster trip), counted in [`TransitStats::overtaken`].
//! `frequencies.txt` trips are expanded to one departure per headway.

pub(crate) mod build;

use std::collections::HashMap;
use std::path::Path;

use gtfs_structures::{Exception, Gtfs, RouteType};
use jiff::civil::Date;

use crate::error::TdError;
use crate::graph::{TdGraph, label};
use crate::nfa::Nfa;
use crate::plf::PERIOD;

/// Mean Earth radius (m), for great-circle distances.
const EARTH_RADIUS_M: f64 = 6_371_008.8;

/// Great-circle distance in metres between two `[lat, lon]` points (degrees).
pub fn distance_m(a: [f64; 2], b: [f64; 2]) -> f64 {
    let (la1, la2) = (a[0].to_radians(), b[0].to_radians());
    let dla = la2 - la1;
    let dlo = (b[1] - a[1]).to_radians();
    let h = (dla / 2.0).sin().powi(2) + la1.cos() * la2.cos() * (dlo / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_M * h.sqrt().min(1.0).asin()
}

/// A road graph with coordinates to join to the transit network.
#[derive(Debug, Clone)]
pub struct RoadLayer {
    /// The roads; weights are travel times in `seconds_per_unit` units.
    pub graph: graph_core::Csr<u32>,
    /// `[lat, lon]` of every road vertex.
    pub coords: Vec<[f64; 2]>,
    /// The label of road arcs (e.g. [`label::CAR`] or [`label::WALK`]).
    pub label: u8,
    /// Seconds per weight unit.
    pub seconds_per_unit: f64,
}

/// How a transit network is built. [`Default`] gives the documented values.
#[derive(Debug, Clone)]
pub struct TransitOptions {
    /// Walking speed, m/s (default 1.3, about 4.7 km/h).
    pub walk_speed_mps: f64,
    /// Stations whose street nodes are at most this far apart get walking arcs (default 500 m).
    pub walk_radius_m: f64,
    /// Change time inside a station that `transfers.txt` does not give (default 120 s).
    pub change_time_s: u32,
    /// Cycling between stations and places: `Some((radius m, speed m/s))`, default `None`.
    pub bike: Option<(f64, f64)>,
    /// Places (`[lat, lon]`) to add as vertices, joined by walking (and cycling) to every station
    /// within [`Self::place_radius_m`] and always to the nearest one.
    pub places: Vec<[f64; 2]>,
    /// How far a place reaches stations on foot (default 1,000 m).
    pub place_radius_m: f64,
    /// An optional road layer: its vertices join the nearest station street node and place by walking.
    pub roads: Option<RoadLayer>,
}

impl Default for TransitOptions {
    fn default() -> Self {
        Self {
            walk_speed_mps: 1.3,
            walk_radius_m: 500.0,
            change_time_s: 120,
            bike: None,
            places: Vec::new(),
            place_radius_m: 1000.0,
            roads: None,
        }
    }
}

/// What a vertex of a [`TransitNetwork`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VertexKind {
    /// A station's street node.
    Street(u32),
    /// A station's arrival platform.
    ArrivalPlatform(u32),
    /// A station's departure platform.
    DeparturePlatform(u32),
    /// Stop `position` of a pattern.
    PatternStop {
        /// The pattern.
        pattern: u32,
        /// Position in its stop sequence.
        position: u32,
    },
    /// A place given in [`TransitOptions::places`].
    Place(u32),
    /// A vertex of the road layer.
    Road(u32),
}

/// A station: a GTFS parent station or a stop without one.
#[derive(Debug, Clone, PartialEq)]
pub struct Station {
    /// GTFS `stop_id`.
    pub id: String,
    /// GTFS `stop_name`.
    pub name: String,
    /// `[lat, lon]`.
    pub coords: [f64; 2],
}

/// A GTFS route.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteInfo {
    /// GTFS `route_id`.
    pub id: String,
    /// Short name (`route_short_name`, else the long name, else the id).
    pub name: String,
    /// Label of its ride arcs.
    pub label: u8,
}

/// Trips that serve the same stations in the same order on one route.
#[derive(Debug, Clone, PartialEq)]
pub struct Pattern {
    /// Index into [`TransitNetwork::routes`].
    pub route: u32,
    /// Stations, in order.
    pub stations: Vec<u32>,
    /// First vertex (stop i is vertex `first_vertex + i`).
    pub first_vertex: u32,
    /// Trips of the service day (after frequency expansion).
    pub trips: u32,
}

/// Counts of what was loaded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TransitStats {
    /// Services running on the date.
    pub services: usize,
    /// Trips whose departures are in the day (after frequency expansion).
    pub trips: usize,
    /// Stop times read from those trips.
    pub stop_times: usize,
    /// Departures on ride arcs.
    pub departures: usize,
    /// Departures whose arrival was replaced by a later trip's earlier arrival (FIFO envelope).
    pub overtaken: usize,
    /// Walking arcs.
    pub walk_arcs: usize,
    /// Cycling arcs.
    pub bike_arcs: usize,
    /// Station-to-station transfers from `transfers.txt`.
    pub transfers: usize,
}

/// A network built from a GTFS feed: the graph, and what its vertices mean.
#[derive(Debug, Clone)]
pub struct TransitNetwork {
    /// The network.
    pub graph: TdGraph,
    /// What each vertex is.
    pub kind: Vec<VertexKind>,
    /// `[lat, lon]` of each vertex.
    pub coords: Vec<[f64; 2]>,
    /// Stations.
    pub stations: Vec<Station>,
    /// Routes.
    pub routes: Vec<RouteInfo>,
    /// Patterns.
    pub patterns: Vec<Pattern>,
    /// Counts.
    pub stats: TransitStats,
    /// Street node of each station.
    pub street: Vec<u32>,
    /// Vertex of each place.
    pub place: Vec<u32>,
}

fn feed_error(path: &Path, e: impl std::fmt::Display) -> TdError {
    TdError::Feed { path: path.display().to_string(), message: e.to_string() }
}

fn label_of(route_type: RouteType) -> u8 {
    match route_type {
        RouteType::Tramway => label::TRAM,
        RouteType::Subway => label::METRO,
        RouteType::Rail => label::RAIL,
        RouteType::Bus => label::BUS,
        RouteType::Ferry => label::FERRY,
        RouteType::CableCar | RouteType::Gondola | RouteType::Funicular => label::CABLE,
        RouteType::Extended(e) => match e.to_standard_route_type() {
            RouteType::Extended(_) => label::OTHER,
            std => label_of(std),
        },
        _ => label::OTHER,
    }
}

/// Parses `YYYY-MM-DD` (or `YYYYMMDD`).
pub fn parse_date(s: &str) -> Result<Date, TdError> {
    let iso = if s.len() == 8 && s.bytes().all(|b| b.is_ascii_digit()) {
        format!("{}-{}-{}", &s[..4], &s[4..6], &s[6..])
    } else {
        s.to_string()
    };
    iso.parse::<Date>().map_err(|e| TdError::InvalidParameter(format!("date `{s}` is not YYYY-MM-DD: {e}")))
}

/// Services running on `date`: `calendar.txt` by weekday and range, then `calendar_dates.txt`
/// additions and removals.
fn services_on(feed: &Gtfs, date: Date) -> std::collections::HashSet<String> {
    let mut on: std::collections::HashSet<String> = feed
        .calendar
        .values()
        .filter(|c| c.start_date <= date && date <= c.end_date && c.valid_weekday(date))
        .map(|c| c.id.clone())
        .collect();
    for (service, dates) in &feed.calendar_dates {
        for d in dates.iter().filter(|d| d.date == date) {
            match d.exception_type {
                Exception::Added => on.insert(service.clone()),
                Exception::Deleted => on.remove(service),
            };
        }
    }
    on
}

/// Reads a GTFS feed (zip or folder), with the file and line of the first error.
pub fn read_feed(path: &Path) -> Result<Gtfs, TdError> {
    if !path.exists() {
        return Err(feed_error(path, "no such file or folder"));
    }
    Gtfs::from_path(path).map_err(|e| {
        let mut msg = e.to_string();
        let mut src = std::error::Error::source(&e);
        while let Some(s) = src {
            msg.push_str(": ");
            msg.push_str(&s.to_string());
            src = s.source();
        }
        // gtfs-structures spells its missing-file message "Cound not find file".
        feed_error(path, msg.replace("Cound not find file", "the feed has no file"))
    })
}

/// The first weekday (Monday to Friday) on which some service of the feed runs, within the first
/// four weeks of its calendar: a sensible default service date.
pub fn first_weekday(feed: &Gtfs) -> Option<Date> {
    let first = feed
        .calendar
        .values()
        .map(|c| c.start_date)
        .chain(feed.calendar_dates.values().flatten().map(|d| d.date))
        .min()?;
    let mut day = first;
    for _ in 0..28 {
        let weekend = matches!(day.weekday(), jiff::civil::Weekday::Saturday | jiff::civil::Weekday::Sunday);
        if !weekend && !services_on(feed, day).is_empty() {
            return Some(day);
        }
        day = day.tomorrow().ok()?;
    }
    None
}

/// The calendar's first and last dates, for error messages.
fn calendar_range(feed: &Gtfs) -> (String, String) {
    let dates = feed
        .calendar
        .values()
        .flat_map(|c| [c.start_date, c.end_date])
        .chain(feed.calendar_dates.values().flatten().map(|d| d.date));
    let (mut lo, mut hi): (Option<Date>, Option<Date>) = (None, None);
    for d in dates {
        lo = Some(lo.map_or(d, |l| l.min(d)));
        hi = Some(hi.map_or(d, |h| h.max(d)));
    }
    let show = |d: Option<Date>| d.map_or("(empty)".to_string(), |d| d.to_string());
    (show(lo), show(hi))
}

/// A uniform grid over projected coordinates for radius searches.
pub(crate) struct GeoGrid {
    cell: f64,
    lat0: f64,
    cells: HashMap<(i64, i64), Vec<u32>>,
}

impl GeoGrid {
    fn project(&self, p: [f64; 2]) -> (f64, f64) {
        let m = EARTH_RADIUS_M.to_radians();
        (p[0] * m, p[1] * m * self.lat0.to_radians().cos())
    }

    pub(crate) fn new(points: &[[f64; 2]], cell: f64) -> Self {
        let lat0 = if points.is_empty() {
            0.0
        } else {
            points.iter().map(|p| p[0]).sum::<f64>() / points.len() as f64
        };
        let mut g = Self { cell: cell.max(1.0), lat0, cells: HashMap::new() };
        for (i, &p) in points.iter().enumerate() {
            let k = g.key(p);
            g.cells.entry(k).or_default().push(i as u32);
        }
        g
    }

    fn key(&self, p: [f64; 2]) -> (i64, i64) {
        let (y, x) = self.project(p);
        ((y / self.cell).floor() as i64, (x / self.cell).floor() as i64)
    }

    /// Points within `radius` (≤ the cell size) of `p`, by exact great-circle distance.
    pub(crate) fn within(&self, points: &[[f64; 2]], p: [f64; 2], radius: f64) -> Vec<(u32, f64)> {
        let (ky, kx) = self.key(p);
        let mut out = Vec::new();
        for dy in -1..=1 {
            for dx in -1..=1 {
                if let Some(c) = self.cells.get(&(ky + dy, kx + dx)) {
                    for &i in c {
                        let d = distance_m(p, points[i as usize]);
                        if d <= radius {
                            out.push((i, d));
                        }
                    }
                }
            }
        }
        out.sort_by_key(|&(i, _)| i);
        out
    }

    /// The nearest point to `p`: rings of cells outwards until no farther ring can hold a closer point
    /// (then, past 64 rings, a linear scan).
    fn nearest(&self, points: &[[f64; 2]], p: [f64; 2]) -> Option<(u32, f64)> {
        let (ky, kx) = self.key(p);
        let mut best: Option<(u32, f64)> = None;
        for ring in 0i64..=64 {
            for dy in -ring..=ring {
                for dx in -ring..=ring {
                    if dy.abs() != ring && dx.abs() != ring {
                        continue;
                    }
                    for &i in self.cells.get(&(ky + dy, kx + dx)).into_iter().flatten() {
                        let d = distance_m(p, points[i as usize]);
                        if best.is_none_or(|b| (d, i) < (b.1, b.0)) {
                            best = Some((i, d));
                        }
                    }
                }
            }
            // Points beyond this ring are at least `ring` cells away (with 1 % slack for the projection).
            if best.is_some_and(|b| b.1 <= ring as f64 * self.cell * 0.99) {
                return best;
            }
        }
        nearest(points, p)
    }
}

/// The nearest of `points` to `p` by a linear scan (small sets, and the grid's fallback).
fn nearest(points: &[[f64; 2]], p: [f64; 2]) -> Option<(u32, f64)> {
    points.iter().enumerate().map(|(i, &q)| (i as u32, distance_m(p, q))).min_by(|a, b| a.1.total_cmp(&b.1))
}

fn seconds(distance_m: f64, speed_mps: f64) -> u32 {
    (distance_m / speed_mps).ceil().max(1.0) as u32
}

/// One departure of a pattern's ride arc: (time of day, ride time).
pub(crate) type Departure = (u32, u32);

impl TransitNetwork {
    /// Reads a GTFS feed (zip or folder) and builds the network of `date` (`YYYY-MM-DD`).
    ///
    /// ```no_run
    /// use urbanflow::transit::transit::{TransitNetwork, TransitOptions};
    /// let net = TransitNetwork::from_gtfs("nyc_subway_gtfs.zip", "2024-12-16", &TransitOptions::default())?;
    /// println!("{} stations, {} patterns", net.stations.len(), net.patterns.len());
    /// # Ok::<(), urbanflow::transit::TdError>(())
    /// ```
    pub fn from_gtfs(path: impl AsRef<Path>, date: &str, opts: &TransitOptions) -> Result<Self, TdError> {
        let path = path.as_ref();
        let date = parse_date(date)?;
        let feed = read_feed(path)?;
        Self::from_feed(&feed, path, date, opts)
    }

    /// The station nearest to `[lat, lon]`.
    pub fn nearest_station(&self, p: [f64; 2]) -> Option<u32> {
        nearest(&self.stations.iter().map(|s| s.coords).collect::<Vec<_>>(), p).map(|x| x.0)
    }

    /// The station of a vertex, if it belongs to one (street node, platform or pattern stop).
    pub fn station_of(&self, v: u32) -> Option<u32> {
        match self.kind[v as usize] {
            VertexKind::Street(s) | VertexKind::ArrivalPlatform(s) | VertexKind::DeparturePlatform(s) => {
                Some(s)
            }
            VertexKind::PatternStop { pattern, position } => {
                Some(self.patterns[pattern as usize].stations[position as usize])
            }
            _ => None,
        }
    }

    /// A human name for a vertex (station name, `place 0`, `road vertex 17`).
    pub fn name_of(&self, v: u32) -> String {
        match self.kind[v as usize] {
            VertexKind::Place(i) => format!("place {i}"),
            VertexKind::Road(i) => format!("road vertex {i}"),
            _ => self.station_of(v).map(|s| self.stations[s as usize].name.clone()).unwrap_or_default(),
        }
    }

    /// The route of a ride arc (its tail is a pattern stop), if it is one.
    pub fn route_of_arc(&self, a: u32) -> Option<&RouteInfo> {
        if !label::is_transit(self.graph.label[a as usize]) {
            return None;
        }
        match self.kind[self.graph.tail(a) as usize] {
            VertexKind::PatternStop { pattern, .. } => {
                Some(&self.routes[self.patterns[pattern as usize].route as usize])
            }
            _ => None,
        }
    }

    /// The profile automata by name (see [`Nfa::profile`]).
    pub fn profile(name: &str) -> Result<Nfa, TdError> {
        Nfa::profile(name)
    }
}

/// Fills missing stop times by linear interpolation between known ones (GTFS allows blank times at
/// stops that are not time points); `None` when the first or last time is missing or times decrease.
fn interpolate_times(t: &[(Option<u32>, Option<u32>)]) -> Option<Vec<(u32, u32)>> {
    let known: Vec<usize> = (0..t.len()).filter(|&i| t[i].0.is_some()).collect();
    if known.first() != Some(&0) || known.last() != Some(&(t.len() - 1)) {
        return None;
    }
    let mut out: Vec<(u32, u32)> = t.iter().map(|&(a, d)| (a.unwrap_or(0), d.unwrap_or(0))).collect();
    for w in known.windows(2) {
        let (i, j) = (w[0], w[1]);
        let (d0, a1) = (out[i].1, out[j].0);
        if a1 < d0 {
            return None;
        }
        for (k, o) in out.iter_mut().enumerate().take(j).skip(i + 1) {
            let x = d0 + ((a1 - d0) as u64 * (k - i) as u64 / (j - i) as u64) as u32;
            *o = (x, x);
        }
    }
    for o in &out {
        if o.1 < o.0 {
            return None;
        }
    }
    Some(out)
}

/// Sorts departures, merges equal times (fastest ride) and makes arrivals non-decreasing around the
/// day (a departure arrives no later than the next one does, wrapping to tomorrow's first); returns
/// how many arrivals were lowered.
fn fifo_envelope(deps: &mut Vec<Departure>) -> usize {
    deps.sort_unstable();
    deps.dedup_by(|later, earlier| later.0 == earlier.0); // keeps the first (smallest ride)
    let k = deps.len();
    let before: Vec<u32> = deps.iter().map(|d| d.1).collect();
    // Two backward passes: the second carries tomorrow's first departure into tonight's last ones.
    for _ in 0..2 {
        for i in (0..k).rev() {
            let (next_dep, next_ride) = if i + 1 < k { deps[i + 1] } else { (deps[0].0 + PERIOD, deps[0].1) };
            deps[i].1 = deps[i].1.min((next_dep + next_ride) - deps[i].0);
        }
    }
    deps.iter().zip(&before).filter(|(d, b)| d.1 < **b).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_lets_the_earlier_departure_use_the_faster_trip() {
        let mut d = vec![(600, 500), (0, 300), (60, 100), (60, 50)];
        let lowered = fifo_envelope(&mut d);
        assert_eq!(d, vec![(0, 110), (60, 50), (600, 500)]);
        assert_eq!(lowered, 1);
    }

    #[test]
    fn blank_times_are_interpolated() {
        let t = [(Some(100), Some(100)), (None, None), (None, None), (Some(400), Some(410))];
        assert_eq!(interpolate_times(&t), Some(vec![(100, 100), (200, 200), (300, 300), (400, 410)]));
        assert_eq!(interpolate_times(&[(None, None), (Some(1), Some(1))]), None);
    }

    #[test]
    fn grid_nearest_equals_a_linear_scan() {
        let mut rng = graph_core::rng::SplitMix64::new(3);
        let pts: Vec<[f64; 2]> =
            (0..500).map(|_| [40.0 + rng.unit_f64() * 0.2, -74.0 + rng.unit_f64() * 0.3]).collect();
        for cell in [50.0, 500.0, 5000.0] {
            let grid = GeoGrid::new(&pts, cell);
            for _ in 0..200 {
                // Queries inside and far outside the points' box.
                let p = [39.5 + rng.unit_f64() * 1.2, -74.5 + rng.unit_f64() * 1.3];
                let (a, b) = (grid.nearest(&pts, p).unwrap(), nearest(&pts, p).unwrap());
                assert!((a.1 - b.1).abs() < 1e-9, "cell {cell}: {a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn distances_are_great_circle() {
        // One degree of latitude ≈ 111.2 km.
        let d = distance_m([40.0, -74.0], [41.0, -74.0]);
        assert!((d - 111_195.0).abs() < 10.0, "{d}");
    }
}
