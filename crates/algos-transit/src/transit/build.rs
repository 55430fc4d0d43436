//! [`TransitNetwork::from_feed`] in named steps: check the options, find the day's services, index
//! stations and routes, group trips into patterns with their departures, lay out the vertices, then add
//! the arcs layer by layer (stations, patterns, walking and cycling, places, roads). Every step walks
//! the feed in id order, so the same feed always gives the same network.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use gtfs_structures::{Gtfs, PickupDropOffType};
use jiff::civil::Date;

use super::{
    Departure, GeoGrid, Pattern, RouteInfo, Station, TransitNetwork, TransitOptions, TransitStats,
    VertexKind, calendar_range, fifo_envelope, interpolate_times, label_of, seconds, services_on,
};
use crate::error::TdError;
use crate::graph::{TdGraphBuilder, label};
use crate::plf::{FnKind, PERIOD};

impl TransitNetwork {
    /// Builds the network of `date` from a parsed feed (`path` names it in errors).
    pub fn from_feed(feed: &Gtfs, path: &Path, date: Date, opts: &TransitOptions) -> Result<Self, TdError> {
        check_options(opts)?;
        let services = Services::on(feed, path, date)?;
        let stops = StopIndex::of(feed);
        let (routes, route_index) = routes_of(feed);
        let mut stats = TransitStats { services: services.today.len(), ..Default::default() };
        let table = PatternTable::of(feed, &stops, &route_index, &services, &mut stats);
        let layout = Layout::of(&stops.stations, &table, opts)?;

        let mut b = TdGraphBuilder::new(layout.kind.len() as u32);
        add_station_arcs(&mut b, feed, &stops, opts, &mut stats);
        add_pattern_arcs(&mut b, table, &layout.patterns, &routes, &mut stats);
        let station_coords: Vec<[f64; 2]> = stops.stations.iter().map(|s| s.coords).collect();
        add_street_arcs(&mut b, &station_coords, opts, &mut stats);
        add_place_arcs(&mut b, &station_coords, &layout.place, opts);
        add_road_arcs(&mut b, &layout, opts);

        let graph = b.build()?;
        let Layout { kind, coords, street, place, patterns, .. } = layout;
        Ok(Self { graph, kind, coords, stations: stops.stations, routes, patterns, stats, street, place })
    }
}

/// Speeds must be positive and radii non-negative.
fn check_options(opts: &TransitOptions) -> Result<(), TdError> {
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
    Ok(())
}

/// The service ids running on the date and on the day before (whose trips past midnight count).
pub(crate) struct Services {
    pub(crate) today: HashSet<String>,
    pub(crate) yesterday: HashSet<String>,
}

impl Services {
    /// The date's services; an error naming the feed's calendar range when neither day has any.
    pub(crate) fn on(feed: &Gtfs, path: &Path, date: Date) -> Result<Self, TdError> {
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
        Ok(Self { today, yesterday })
    }
}

/// Stations (a parent station, or a stop without one, with coordinates), in stop_id order.
pub(crate) struct StopIndex<'f> {
    /// Every stop id of the feed, sorted.
    pub(crate) stop_ids: Vec<&'f String>,
    /// The station each usable stop belongs to.
    pub(crate) station_of_stop: HashMap<&'f str, u32>,
    pub(crate) stations: Vec<Station>,
}

impl<'f> StopIndex<'f> {
    pub(crate) fn of(feed: &'f Gtfs) -> Self {
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
        Self { stop_ids, station_of_stop, stations }
    }
}

/// Routes in route_id order, and each route id's index.
pub(crate) fn routes_of(feed: &Gtfs) -> (Vec<RouteInfo>, HashMap<&str, u32>) {
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
    let route_index = route_ids.iter().enumerate().map(|(i, id)| (id.as_str(), i as u32)).collect();
    (routes, route_index)
}

/// A pattern: (route, stations, boarding allowed, alighting allowed) at each of its stops.
pub(crate) type PatternKey = (u32, Vec<u32>, Vec<bool>, Vec<bool>);

/// The day's trips grouped into patterns, with each ride arc's departures.
pub(crate) struct PatternTable {
    pub(crate) keys: Vec<PatternKey>,
    /// Per pattern, per ride arc (stop i → i + 1): (departure time of day, ride time).
    pub(crate) departures: Vec<Vec<Vec<Departure>>>,
    /// Per pattern, per stop: (departure time of day, dwell: departure − arrival) of every trip at its
    /// intermediate stops (empty at the first and last stop).
    pub(crate) dwells: Vec<Vec<Vec<Departure>>>,
    /// Trips (frequency expansions and yesterday's included) per pattern.
    pub(crate) trips: Vec<u32>,
}

impl PatternTable {
    pub(crate) fn of(
        feed: &Gtfs,
        stops: &StopIndex<'_>,
        route_index: &HashMap<&str, u32>,
        services: &Services,
        stats: &mut TransitStats,
    ) -> Self {
        let mut pattern_of: HashMap<PatternKey, usize> = HashMap::new();
        let mut table =
            Self { keys: Vec::new(), departures: Vec::new(), dwells: Vec::new(), trips: Vec::new() };
        let mut trip_ids: Vec<&String> = feed.trips.keys().collect();
        trip_ids.sort();
        for id in trip_ids {
            let trip = &feed.trips[id];
            // Day shift: 0 for today's trips, −Π for yesterday's (only their times past midnight).
            let shifts: Vec<i64> = [
                (services.today.contains(&trip.service_id), 0i64),
                (services.yesterday.contains(&trip.service_id), -(PERIOD as i64)),
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
                let Some(&station) = stops.station_of_stop.get(s.stop.id.as_str()) else { continue };
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
            let key: PatternKey = (
                route,
                st.iter().map(|s| s.0).collect(),
                st.iter().map(|s| s.3 != PickupDropOffType::NotAvailable).collect(),
                st.iter().map(|s| s.4 != PickupDropOffType::NotAvailable).collect(),
            );
            let p = *pattern_of.entry(key.clone()).or_insert_with(|| {
                table.keys.push(key);
                table.departures.push(vec![Vec::new(); st.len() - 1]);
                table.dwells.push(vec![Vec::new(); st.len()]);
                table.trips.push(0);
                table.keys.len() - 1
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
                        table.departures[p][i].push((dep as u32, (arr - dep) as u32));
                        if i > 0 {
                            let dwell = times[i].1 as i64 - times[i].0 as i64;
                            table.dwells[p][i].push((dep as u32, dwell.max(0) as u32));
                        }
                        any = true;
                    }
                    if any {
                        table.trips[p] += 1;
                        stats.trips += 1;
                    }
                }
            }
        }
        table
    }
}

/// The vertices: 3 per station (street, arrival platform, departure platform), then pattern stops,
/// places, road vertices.
struct Layout {
    kind: Vec<VertexKind>,
    coords: Vec<[f64; 2]>,
    /// Each station's street vertex.
    street: Vec<u32>,
    /// Each place's vertex.
    place: Vec<u32>,
    /// The first road vertex.
    road_first: u32,
    patterns: Vec<Pattern>,
}

impl Layout {
    fn of(stations: &[Station], table: &PatternTable, opts: &TransitOptions) -> Result<Self, TdError> {
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
        for (p, key) in table.keys.iter().enumerate() {
            let first = kind.len() as u32;
            for (i, &s) in key.1.iter().enumerate() {
                kind.push(VertexKind::PatternStop { pattern: p as u32, position: i as u32 });
                coords.push(stations[s as usize].coords);
            }
            patterns.push(Pattern {
                route: key.0,
                stations: key.1.clone(),
                first_vertex: first,
                trips: table.trips[p],
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
        Ok(Self { kind, coords, street, place, road_first, patterns })
    }
}

/// A station's arrival platform.
fn arrival_platform(s: u32) -> u32 {
    3 * s + 1
}

/// A station's departure platform.
fn departure_platform(s: u32) -> u32 {
    3 * s + 2
}

/// Entering and leaving each station, changing inside it and between stations (`transfers.txt`).
fn add_station_arcs(
    b: &mut TdGraphBuilder,
    feed: &Gtfs,
    stops: &StopIndex<'_>,
    opts: &TransitOptions,
    stats: &mut TransitStats,
) {
    let mut change: HashMap<(u32, u32), u32> = HashMap::new();
    for id in &stops.stop_ids {
        let stop = &feed.stops[*id];
        let Some(&a) = stops.station_of_stop.get(id.as_str()) else { continue };
        for t in &stop.transfers {
            let Some(&bst) = stops.station_of_stop.get(t.to_stop_id.as_str()) else { continue };
            if let Some(m) = t.min_transfer_time {
                let e = change.entry((a, bst)).or_insert(m);
                *e = (*e).max(m);
            }
        }
    }
    for s in 0..stops.stations.len() as u32 {
        b.add_constant_arc(3 * s, departure_platform(s), label::ENTER, 0);
        b.add_constant_arc(arrival_platform(s), 3 * s, label::EXIT, 0);
        let c = change.get(&(s, s)).copied().unwrap_or(opts.change_time_s);
        b.add_constant_arc(arrival_platform(s), departure_platform(s), label::TRANSFER, c);
    }
    let mut pairs: Vec<_> = change.iter().filter(|((a, c), _)| a != c).collect();
    pairs.sort();
    for (&(a, c), &t) in pairs {
        b.add_constant_arc(arrival_platform(a), departure_platform(c), label::TRANSFER, t);
        stats.transfers += 1;
    }
}

/// Boarding and alighting where allowed, and each ride arc with its FIFO envelope of departures.
fn add_pattern_arcs(
    b: &mut TdGraphBuilder,
    mut table: PatternTable,
    patterns: &[Pattern],
    routes: &[RouteInfo],
    stats: &mut TransitStats,
) {
    for (p, key) in table.keys.iter().enumerate() {
        let first = patterns[p].first_vertex;
        let mode = routes[key.0 as usize].label;
        let k = key.1.len();
        for i in 0..k {
            let s = key.1[i];
            if i + 1 < k && key.2[i] {
                b.add_constant_arc(departure_platform(s), first + i as u32, label::TRANSFER, 0);
            }
            if i > 0 && key.3[i] {
                b.add_constant_arc(first + i as u32, arrival_platform(s), label::TRANSFER, 0);
            }
        }
        for (i, deps) in table.departures[p].iter_mut().enumerate() {
            if deps.is_empty() {
                continue;
            }
            stats.overtaken += fifo_envelope(deps);
            stats.departures += deps.len();
            let f = b.store_mut().push(FnKind::NextDeparture, deps.iter().copied());
            b.add_arc(first + i as u32, first + i as u32 + 1, mode, f);
        }
    }
}

/// Walking (and cycling, when asked) between station streets within the radius.
fn add_street_arcs(
    b: &mut TdGraphBuilder,
    station_coords: &[[f64; 2]],
    opts: &TransitOptions,
    stats: &mut TransitStats,
) {
    let mut layers = vec![(label::WALK, opts.walk_radius_m, opts.walk_speed_mps)];
    if let Some((r, v)) = opts.bike {
        layers.push((label::BIKE, r, v));
    }
    for &(l, radius, speed) in &layers {
        let grid = GeoGrid::new(station_coords, radius);
        for a in 0..station_coords.len() as u32 {
            for (c, d) in grid.within(station_coords, station_coords[a as usize], radius) {
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
}

/// Places: to and from every station in reach, and always the nearest on foot. One grid per mode,
/// built once for all places.
fn add_place_arcs(b: &mut TdGraphBuilder, station_coords: &[[f64; 2]], place: &[u32], opts: &TransitOptions) {
    let mut reach = vec![(label::WALK, opts.place_radius_m, opts.walk_speed_mps)];
    if let Some((r, speed)) = opts.bike {
        reach.push((label::BIKE, r, speed));
    }
    let grids: Vec<GeoGrid> =
        reach.iter().map(|&(_, radius, _)| GeoGrid::new(station_coords, radius)).collect();
    for (i, &p) in opts.places.iter().enumerate() {
        let v = place[i];
        for (&(l, radius, speed), grid) in reach.iter().zip(&grids) {
            let mut near = grid.within(station_coords, p, radius);
            if near.is_empty()
                && l == label::WALK
                && let Some(n) = grid.nearest(station_coords, p)
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
}

/// The road layer, joined to station streets and places through their nearest road vertex.
fn add_road_arcs(b: &mut TdGraphBuilder, layout: &Layout, opts: &TransitOptions) {
    let Some(r) = &opts.roads else { return };
    let road_first = layout.road_first;
    for (u, w, x) in r.graph.arcs() {
        let secs = (x as f64 * r.seconds_per_unit).ceil() as u32;
        b.add_constant_arc(road_first + u, road_first + w, r.label, secs);
    }
    let joins = layout.street.iter().chain(&layout.place).copied();
    let grid = GeoGrid::new(&r.coords, 500.0);
    for v in joins {
        if let Some((x, d)) = grid.nearest(&r.coords, layout.coords[v as usize]) {
            let t = seconds(d, opts.walk_speed_mps);
            b.add_constant_arc(v, road_first + x, label::WALK, t);
            b.add_constant_arc(road_first + x, v, label::WALK, t);
        }
    }
}
