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

use std::collections::HashMap;
use std::path::Path;

use gtfs_structures::{Exception, Gtfs, PickupDropOffType, RouteType};
use jiff::civil::Date;

use super::error::TdError;
use super::graph::{TdGraph, TdGraphBuilder, label};
use super::nfa::Nfa;
use super::plf::{FnKind, PERIOD};

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
struct GeoGrid {
    cell: f64,
    lat0: f64,
    cells: HashMap<(i64, i64), Vec<u32>>,
}

impl GeoGrid {
    fn project(&self, p: [f64; 2]) -> (f64, f64) {
        let m = EARTH_RADIUS_M.to_radians();
        (p[0] * m, p[1] * m * self.lat0.to_radians().cos())
    }

    fn new(points: &[[f64; 2]], cell: f64) -> Self {
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
    fn within(&self, points: &[[f64; 2]], p: [f64; 2], radius: f64) -> Vec<(u32, f64)> {
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
type Departure = (u32, u32);

impl TransitNetwork {
    /// Reads a GTFS feed (zip or folder) and builds the network of `date` (`YYYY-MM-DD`).
    ///
    /// ```no_run
    /// use algos_transit::transit::{TransitNetwork, TransitOptions};
    /// let net = TransitNetwork::from_gtfs("nyc_subway_gtfs.zip", "2024-12-16", &TransitOptions::default())?;
    /// println!("{} stations, {} patterns", net.stations.len(), net.patterns.len());
    /// # Ok::<(), algos_transit::TdError>(())
    /// ```
    pub fn from_gtfs(path: impl AsRef<Path>, date: &str, opts: &TransitOptions) -> Result<Self, TdError> {
        let path = path.as_ref();
        let date = parse_date(date)?;
        let feed = read_feed(path)?;
        Self::from_feed(&feed, path, date, opts)
    }

    /// Builds the network of `date` from a parsed feed (`path` names it in errors).
    pub fn from_feed(feed: &Gtfs, path: &Path, date: Date, opts: &TransitOptions) -> Result<Self, TdError> {
        let positive = |x: f64| x > 0.0;
        let non_negative = |x: f64| x >= 0.0;
        if !positive(opts.walk_speed_mps)
            || !non_negative(opts.walk_radius_m)
            || !non_negative(opts.place_radius_m)
        {
            return Err(TdError::InvalidParameter(
                "walking speed must be positive and radii non-negative".into(),
            ));
        }
        if let Some((r, v)) = opts.bike
            && (!positive(v) || !non_negative(r))
        {
            return Err(TdError::InvalidParameter(
                "cycling speed must be positive and radius non-negative".into(),
            ));
        }
        let today = services_on(feed, date);
        let yesterday =
            services_on(feed, date.yesterday().map_err(|e| TdError::InvalidParameter(e.to_string()))?);
        if today.is_empty() && yesterday.is_empty() {
            let (first, last) = calendar_range(feed);
            return Err(TdError::NoService {
                path: path.display().to_string(),
                date: date.to_string(),
                first,
                last,
            });
        }

        // Stations, in stop_id order (deterministic).
        let mut stop_ids: Vec<&String> = feed.stops.keys().collect();
        stop_ids.sort();
        let mut station_of_stop: HashMap<&str, u32> = HashMap::new();
        let mut stations: Vec<Station> = Vec::new();
        let mut station_index: HashMap<&str, u32> = HashMap::new();
        for id in &stop_ids {
            let stop = &feed.stops[*id];
            let root = match &stop.parent_station {
                Some(p) if feed.stops.contains_key(p) => p.as_str(),
                _ => id.as_str(),
            };
            let s = match station_index.get(root) {
                Some(&s) => s,
                None => {
                    let r = &feed.stops[root];
                    let (Some(lat), Some(lon)) =
                        (r.latitude.or(stop.latitude), r.longitude.or(stop.longitude))
                    else {
                        continue; // entrances and nodes without coordinates serve no trip
                    };
                    let s = stations.len() as u32;
                    stations.push(Station {
                        id: root.to_string(),
                        name: r.name.clone().unwrap_or_else(|| root.to_string()),
                        coords: [lat, lon],
                    });
                    station_index.insert(root, s);
                    s
                }
            };
            station_of_stop.insert(id.as_str(), s);
        }

        // Routes, in route_id order.
        let mut route_ids: Vec<&String> = feed.routes.keys().collect();
        route_ids.sort();
        let routes: Vec<RouteInfo> = route_ids
            .iter()
            .map(|id| {
                let r = &feed.routes[*id];
                RouteInfo {
                    id: r.id.clone(),
                    name: r
                        .short_name
                        .clone()
                        .filter(|s| !s.is_empty())
                        .or_else(|| r.long_name.clone())
                        .unwrap_or_else(|| r.id.clone()),
                    label: label_of(r.route_type),
                }
            })
            .collect();
        let route_index: HashMap<&str, u32> =
            route_ids.iter().enumerate().map(|(i, id)| (id.as_str(), i as u32)).collect();

        // Patterns and their departures.
        let mut stats = TransitStats { services: today.len(), ..Default::default() };
        // key: (route, stations, boarding allowed, alighting allowed)
        type Key = (u32, Vec<u32>, Vec<bool>, Vec<bool>);
        let mut pattern_of: HashMap<Key, usize> = HashMap::new();
        let mut pattern_keys: Vec<Key> = Vec::new();
        let mut departures: Vec<Vec<Vec<Departure>>> = Vec::new();
        let mut pattern_trips: Vec<u32> = Vec::new();
        let mut trip_ids: Vec<&String> = feed.trips.keys().collect();
        trip_ids.sort();
        for id in trip_ids {
            let trip = &feed.trips[id];
            // Day shift: 0 for today's trips, −Π for yesterday's (only their times past midnight).
            let shifts: Vec<i64> = [
                (today.contains(&trip.service_id), 0i64),
                (yesterday.contains(&trip.service_id), -(PERIOD as i64)),
            ]
            .into_iter()
            .filter_map(|(on, s)| on.then_some(s))
            .collect();
            if shifts.is_empty() || trip.stop_times.len() < 2 {
                continue;
            }
            let Some(&route) = route_index.get(trip.route_id.as_str()) else { continue };
            let mut st = Vec::with_capacity(trip.stop_times.len());
            for s in &trip.stop_times {
                let Some(&station) = station_of_stop.get(s.stop.id.as_str()) else { continue };
                st.push((
                    station,
                    s.arrival_time.or(s.departure_time),
                    s.departure_time.or(s.arrival_time),
                    s.pickup_type,
                    s.drop_off_type,
                ));
            }
            if st.len() < 2 {
                continue;
            }
            let times = interpolate_times(&st.iter().map(|s| (s.1, s.2)).collect::<Vec<_>>());
            let Some(times) = times else { continue };
            stats.stop_times += st.len();
            let key: Key = (
                route,
                st.iter().map(|s| s.0).collect(),
                st.iter().map(|s| s.3 != PickupDropOffType::NotAvailable).collect(),
                st.iter().map(|s| s.4 != PickupDropOffType::NotAvailable).collect(),
            );
            let p = *pattern_of.entry(key.clone()).or_insert_with(|| {
                pattern_keys.push(key);
                departures.push(vec![Vec::new(); st.len() - 1]);
                pattern_trips.push(0);
                pattern_keys.len() - 1
            });
            // Frequency-based trips repeat their stop times every headway.
            let starts: Vec<i64> = if trip.frequencies.is_empty() {
                vec![0]
            } else {
                let t0 = times[0].1 as i64;
                trip.frequencies
                    .iter()
                    .flat_map(|f| {
                        let h = f.headway_secs.max(1) as i64;
                        (f.start_time as i64..f.end_time as i64).step_by(h as usize).map(move |s| s - t0)
                    })
                    .collect()
            };
            for &shift in &shifts {
                for &start in &starts {
                    let mut any = false;
                    for i in 0..st.len() - 1 {
                        let dep = times[i].1 as i64 + start + shift;
                        let arr = times[i + 1].0 as i64 + start + shift;
                        if !(0..PERIOD as i64).contains(&dep) || arr < dep {
                            continue;
                        }
                        departures[p][i].push((dep as u32, (arr - dep) as u32));
                        any = true;
                    }
                    if any {
                        pattern_trips[p] += 1;
                        stats.trips += 1;
                    }
                }
            }
        }

        // Vertices: 3 per station, then pattern stops, places, road vertices.
        let ns = stations.len() as u32;
        let street: Vec<u32> = (0..ns).map(|s| 3 * s).collect();
        let mut kind: Vec<VertexKind> = Vec::new();
        let mut coords: Vec<[f64; 2]> = Vec::new();
        for (s, st) in stations.iter().enumerate() {
            let s = s as u32;
            kind.extend([
                VertexKind::Street(s),
                VertexKind::ArrivalPlatform(s),
                VertexKind::DeparturePlatform(s),
            ]);
            coords.extend([st.coords; 3]);
        }
        let mut patterns = Vec::new();
        for (p, key) in pattern_keys.iter().enumerate() {
            let first = kind.len() as u32;
            for (i, &s) in key.1.iter().enumerate() {
                kind.push(VertexKind::PatternStop { pattern: p as u32, position: i as u32 });
                coords.push(stations[s as usize].coords);
            }
            patterns.push(Pattern {
                route: key.0,
                stations: key.1.clone(),
                first_vertex: first,
                trips: pattern_trips[p],
            });
        }
        let place: Vec<u32> = (0..opts.places.len() as u32).map(|i| kind.len() as u32 + i).collect();
        for (i, &p) in opts.places.iter().enumerate() {
            kind.push(VertexKind::Place(i as u32));
            coords.push(p);
        }
        let road_first = kind.len() as u32;
        if let Some(r) = &opts.roads {
            if r.coords.len() != r.graph.num_vertices() as usize {
                return Err(TdError::InvalidParameter(format!(
                    "the road layer has {} vertices but {} coordinates",
                    r.graph.num_vertices(),
                    r.coords.len()
                )));
            }
            for (i, &c) in r.coords.iter().enumerate() {
                kind.push(VertexKind::Road(i as u32));
                coords.push(c);
            }
        }

        let mut b = TdGraphBuilder::new(kind.len() as u32);
        let (arr_pf, dep_pf) = (|s: u32| 3 * s + 1, |s: u32| 3 * s + 2);
        // Change times inside stations and between them.
        let mut change: HashMap<(u32, u32), u32> = HashMap::new();
        for id in &stop_ids {
            let stop = &feed.stops[*id];
            let Some(&a) = station_of_stop.get(id.as_str()) else { continue };
            for t in &stop.transfers {
                let Some(&bst) = station_of_stop.get(t.to_stop_id.as_str()) else { continue };
                if let Some(m) = t.min_transfer_time {
                    let e = change.entry((a, bst)).or_insert(m);
                    *e = (*e).max(m);
                }
            }
        }
        for s in 0..ns {
            b.add_constant_arc(3 * s, dep_pf(s), label::ENTER, 0);
            b.add_constant_arc(arr_pf(s), 3 * s, label::EXIT, 0);
            let c = change.get(&(s, s)).copied().unwrap_or(opts.change_time_s);
            b.add_constant_arc(arr_pf(s), dep_pf(s), label::TRANSFER, c);
        }
        let mut pairs: Vec<_> = change.iter().filter(|((a, c), _)| a != c).collect();
        pairs.sort();
        for (&(a, c), &t) in pairs {
            b.add_constant_arc(arr_pf(a), dep_pf(c), label::TRANSFER, t);
            stats.transfers += 1;
        }
        // Patterns: boarding, alighting, rides.
        for (p, key) in pattern_keys.iter().enumerate() {
            let first = patterns[p].first_vertex;
            let mode = routes[key.0 as usize].label;
            let k = key.1.len();
            for i in 0..k {
                let s = key.1[i];
                if i + 1 < k && key.2[i] {
                    b.add_constant_arc(dep_pf(s), first + i as u32, label::TRANSFER, 0);
                }
                if i > 0 && key.3[i] {
                    b.add_constant_arc(first + i as u32, arr_pf(s), label::TRANSFER, 0);
                }
            }
            for (i, deps) in departures[p].iter_mut().enumerate() {
                if deps.is_empty() {
                    continue;
                }
                stats.overtaken += fifo_envelope(deps);
                stats.departures += deps.len();
                let f = b.store_mut().push(FnKind::NextDeparture, deps.iter().copied());
                b.add_arc(first + i as u32, first + i as u32 + 1, mode, f);
            }
        }
        // Walking and cycling between stations.
        let station_coords: Vec<[f64; 2]> = stations.iter().map(|s| s.coords).collect();
        let mut layers = vec![(label::WALK, opts.walk_radius_m, opts.walk_speed_mps)];
        if let Some((r, v)) = opts.bike {
            layers.push((label::BIKE, r, v));
        }
        for &(l, radius, speed) in &layers {
            let grid = GeoGrid::new(&station_coords, radius);
            for a in 0..ns {
                for (c, d) in grid.within(&station_coords, station_coords[a as usize], radius) {
                    if c != a {
                        b.add_constant_arc(3 * a, 3 * c, l, seconds(d, speed));
                        if l == label::WALK {
                            stats.walk_arcs += 1;
                        } else {
                            stats.bike_arcs += 1;
                        }
                    }
                }
            }
        }
        // Places: to every station in reach, and always the nearest.
        // One grid per mode, built once for all places.
        let mut reach = vec![(label::WALK, opts.place_radius_m, opts.walk_speed_mps)];
        if let Some((r, speed)) = opts.bike {
            reach.push((label::BIKE, r, speed));
        }
        let grids: Vec<GeoGrid> =
            reach.iter().map(|&(_, radius, _)| GeoGrid::new(&station_coords, radius)).collect();
        for (i, &p) in opts.places.iter().enumerate() {
            let v = place[i];
            for (&(l, radius, speed), grid) in reach.iter().zip(&grids) {
                let mut near = grid.within(&station_coords, p, radius);
                if near.is_empty()
                    && l == label::WALK
                    && let Some(n) = grid.nearest(&station_coords, p)
                {
                    near.push(n);
                }
                for (s, d) in near {
                    let t = seconds(d, speed);
                    b.add_constant_arc(v, 3 * s, l, t);
                    b.add_constant_arc(3 * s, v, l, t);
                }
            }
        }
        // The road layer, joined to station streets and places through their nearest road vertex.
        if let Some(r) = &opts.roads {
            for (u, w, x) in r.graph.arcs() {
                let secs = (x as f64 * r.seconds_per_unit).ceil() as u32;
                b.add_constant_arc(road_first + u, road_first + w, r.label, secs);
            }
            let joins: Vec<u32> = street.iter().copied().chain(place.iter().copied()).collect();
            let grid = GeoGrid::new(&r.coords, 500.0);
            for v in joins {
                if let Some((x, d)) = grid.nearest(&r.coords, coords[v as usize]) {
                    let t = seconds(d, opts.walk_speed_mps);
                    b.add_constant_arc(v, road_first + x, label::WALK, t);
                    b.add_constant_arc(road_first + x, v, label::WALK, t);
                }
            }
        }
        let graph = b.build()?;
        Ok(Self { graph, kind, coords, stations, routes, patterns, stats, street, place })
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
