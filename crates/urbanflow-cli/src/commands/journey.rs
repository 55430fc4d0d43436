//! Earliest-arrival journeys on a real timetable (GTFS) with walking, cycling and roads, or on a
//! generated road + timetable instance.
//!
//! ```text
//! urbanflow journey --gtfs ../shared/data/transit/nyc_subway_gtfs.zip \
//!     --date 2024-12-16 --from 40.8898,-73.8986 --to 40.7020,-74.0130 --depart 08:00 --profile walk+transit
//! urbanflow journey --gtfs ../shared/data/transit/nyc_subway_gtfs.zip --date 2024-12-16 --queries 10000
//! urbanflow journey --generate road=100000,layers=4,lines=40 --queries 1000 --backend gpu
//! ```

use crate::outcome::Error;

use std::path::PathBuf;
use std::time::Instant;

use urbanflow::graph::geojson::{Feature, feature_collection};
use urbanflow::transit::generate::{GenSpec, generate, park_and_ride};
use urbanflow::transit::gpu::{GpuTdBatch, arrival_times_auto};
use urbanflow::transit::transit::{
    RoadLayer, TransitNetwork, TransitOptions, VertexKind, distance_m, first_weekday, parse_date, read_feed,
};
use urbanflow::transit::{
    EapQuery, Journey, Nfa, PERIOD, ProfileQuery, Semantics, TdGraph, UNREACHED, arrival_times,
    earliest_arrival, label,
};

/// Earliest arrival with mode constraints on a time-dependent multimodal network.
///
/// Prints the journey's legs (mode, from, to, departure, arrival, route for transit legs) and the
/// arrival time; with --queries N, runs N random queries and reports queries per second.
#[derive(clap::Args)]
#[command(version, after_help = crate::outcome::EXIT_CODES)]
pub struct Args {
    /// A GTFS feed (zip or folder).
    #[arg(long, value_parser = crate::args::files::input_file, conflicts_with = "generate")]
    gtfs: Option<PathBuf>,
    /// A road layer: DIMACS `.gr` travel times (in --road-unit seconds) with a `.co` file of the same stem
    /// beside it (longitude, latitude × 10^6).
    #[arg(long, value_parser = crate::args::files::input_file, requires = "gtfs")]
    roads: Option<PathBuf>,
    /// Seconds per road weight unit.
    #[arg(long, default_value_t = 1.0)]
    road_unit: f64,
    /// Generate an instance instead: `road=N,layers=K,lines=L,seed=S`.
    #[arg(long)]
    generate: Option<String>,
    /// Service date of the feed, YYYY-MM-DD (default: the first weekday the calendar covers).
    #[arg(long)]
    date: Option<String>,
    /// Origin `LAT,LON` (GTFS) or vertex id (generated; default vertex 0).
    #[arg(long, allow_hyphen_values = true)]
    from: Option<String>,
    /// Destination `LAT,LON` (GTFS) or vertex id (generated; default the last road vertex).
    #[arg(long, allow_hyphen_values = true)]
    to: Option<String>,
    /// Refuse a --from/--to point farther than this many metres from every station (and road vertex):
    /// a point outside the feed's area would otherwise walk thousands of kilometres to the nearest stop.
    #[arg(long, default_value_t = urbanflow::graph::osm::DEFAULT_SNAP_LIMIT_M)]
    snap_limit_m: f64,
    /// Departure time of day, HH:MM or HH:MM:SS.
    #[arg(long, default_value = "08:00")]
    depart: String,
    /// walk+transit, bike+transit, car or walk (generated: car, park+ride or all).
    #[arg(long, default_value = "walk+transit")]
    profile: String,
    /// product (labels read along the journey) or filter (the seed's per-profile arc filter).
    #[arg(long, default_value = "product")]
    semantics: String,
    /// Walking speed (m/s) and radius between stops (m).
    #[arg(long, default_value_t = 1.3)]
    walk_speed: f64,
    /// Radius for walking arcs between stations, m.
    #[arg(long, default_value_t = 500.0)]
    walk_radius: f64,
    /// Cycling radius (m) for bike+transit; speed 4.5 m/s.
    #[arg(long, default_value_t = 3000.0)]
    bike_radius: f64,
    /// Run N random queries (random origin and destination, departures across the day).
    #[arg(long)]
    queries: Option<usize>,
    /// Seed of the random queries.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// cpu (rayon over queries), serial, gpu or auto (default: $URBANFLOW_BACKEND, else auto).
    #[arg(long)]
    backend: Option<String>,
    /// Write the journey as GeoJSON (GTFS only).
    #[arg(long)]
    geojson: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

fn parse_hhmm(s: &str) -> Result<u32, Error> {
    let parts: Vec<&str> = s.split(':').collect();
    let nums: Result<Vec<u32>, _> = parts.iter().map(|p| p.parse::<u32>()).collect();
    match nums.as_deref() {
        Ok([h, m]) if *m < 60 => Ok(h * 3600 + m * 60),
        Ok([h, m, sec]) if *m < 60 && *sec < 60 => Ok(h * 3600 + m * 60 + sec),
        _ => Err(format!("--depart `{s}`: expected HH:MM or HH:MM:SS").into()),
    }
}

/// `HH:MM:SS`, with `+Nd` past midnight of the service day.
fn clock(t: u32) -> String {
    let (d, s) = (t / PERIOD, t % PERIOD);
    let base = format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
    if d > 0 { format!("{base}+{d}d") } else { base }
}

pub fn run(args: Args) -> Result<(), Error> {
    let depart = parse_hhmm(&args.depart)?;
    let sem = match args.semantics.as_str() {
        "product" => Semantics::Product,
        "filter" => Semantics::PerProfileFilter,
        other => return Err(format!("--semantics {other}: expected product or filter").into()),
    };
    let t0 = Instant::now();
    // The network, the query endpoints and how to name vertices.
    let (net, graph, profile, source, target): (Option<TransitNetwork>, TdGraph, Nfa, u32, u32) =
        if let Some(spec) = &args.generate {
            let spec = GenSpec::parse(spec)?;
            let g = generate(&spec)?;
            let profile = match args.profile.as_str() {
                "car" => Nfa::car(),
                "park+ride" => park_and_ride(),
                "all" => Nfa::any_of(&(0..16).collect::<Vec<u8>>()),
                other => {
                    return Err(
                        format!("--profile {other}: a generated instance has car, park+ride or all").into()
                    );
                }
            };
            let vertex = |s: &Option<String>, default: u32| -> Result<u32, String> {
                s.as_deref().map_or(Ok(default), |s| s.parse().map_err(|e| format!("vertex `{s}`: {e}")))
            };
            let (s, t) = (vertex(&args.from, 0)?, vertex(&args.to, g.road_vertices - 1)?);
            (None, g.graph, profile, s, t)
        } else {
            let path = args.gtfs.clone().ok_or("give --gtfs FEED or --generate SPEC")?;
            let feed = read_feed(&path)?;
            let date = match &args.date {
                Some(d) => parse_date(d)?,
                None => {
                    first_weekday(&feed).ok_or("the feed's calendar has no weekday service; give --date")?
                }
            };
            let mut opts = TransitOptions {
                walk_speed_mps: args.walk_speed,
                walk_radius_m: args.walk_radius,
                ..Default::default()
            };
            if args.profile == "bike+transit" {
                opts.bike = Some((args.bike_radius, 4.5));
            }
            let (from, to) = match (&args.from, &args.to) {
                (Some(f), Some(t)) => {
                    let point = |s: &str, flag: &str| {
                        crate::args::files::lat_lon(s, flag).map(|(lat, lon)| [lat, lon])
                    };
                    (Some(point(f, "--from")?), Some(point(t, "--to")?))
                }
                (None, None) => (None, None),
                _ => return Err("give both --from and --to".into()),
            };
            if let (Some(f), Some(t)) = (from, to) {
                opts.places = vec![f, t];
            }
            if let Some(r) = &args.roads {
                opts.roads = Some(read_roads(r, args.road_unit)?);
            }
            let net = TransitNetwork::from_feed(&feed, &path, date, &opts)?;
            for (&place, what) in net.place.iter().zip(["--from", "--to"]) {
                let p = net.coords[place as usize];
                // Stations and road vertices (pattern stops and platforms carry no coordinates of
                // their own).
                let nearest = (0..net.coords.len())
                    .filter(|&v| matches!(net.kind[v], VertexKind::Street(_) | VertexKind::Road(_)))
                    .map(|v| distance_m(p, net.coords[v]))
                    .fold(f64::INFINITY, f64::min);
                if nearest > args.snap_limit_m {
                    return Err(format!(
                        "{what} {:.6},{:.6} is {nearest:.0} m from the nearest station or road vertex, beyond \
                         the {:.0} m snapping limit (outside the feed's area, or latitude and longitude \
                         swapped?); --snap-limit-m raises it",
                        p[0], p[1], args.snap_limit_m
                    ).into());
                }
            }
            let profile = Nfa::profile(&args.profile)?;
            if !args.json {
                let s = &net.stats;
                println!(
                    "{} on {date}: {} stations, {} routes, {} patterns, {} trips, {} departures ({} overtakings smoothed), {} walking arcs; {} vertices, {} arcs; built in {:.0} ms",
                    path.display(),
                    net.stations.len(),
                    net.routes.len(),
                    net.patterns.len(),
                    s.trips,
                    s.departures,
                    s.overtaken,
                    s.walk_arcs,
                    net.graph.num_vertices(),
                    net.graph.num_arcs(),
                    t0.elapsed().as_secs_f64() * 1e3
                );
            }
            let (s, t) = if net.place.len() == 2 {
                (net.place[0], net.place[1])
            } else {
                (net.street[0], net.street[net.street.len() - 1])
            };
            let g = net.graph.clone();
            (Some(net), g, profile, s, t)
        };
    let build_ms = t0.elapsed().as_secs_f64() * 1e3;

    if let Some(nq) = args.queries {
        return run_queries(&args, &net, &graph, &profile, sem, nq, build_ms);
    }

    let q = EapQuery { source, target: Some(target), depart };
    let t1 = Instant::now();
    let r = earliest_arrival(&graph, &profile, &q, sem)?;
    let query_ms = t1.elapsed().as_secs_f64() * 1e3;
    let journey = r.journey(&graph, target);
    if let (Some(path), Some(j), Some(net)) = (&args.geojson, &journey, &net) {
        std::fs::write(path, geojson(net, &graph, j)).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let name = |v: u32| net.as_ref().map_or(format!("vertex {v}"), |n| n.name_of(v));
    let route = |a: u32| net.as_ref().and_then(|n| n.route_of_arc(a)).map(|r| r.name.clone());
    let shown: Vec<_> = journey
        .as_ref()
        .map(|j| j.legs.iter().filter(|l| l.arrive > l.depart || label::is_transit(l.label)).collect())
        .unwrap_or_default();
    if args.json {
        let legs: Vec<_> = shown
            .iter()
            .map(|l| {
                serde_json::json!({
                    "mode": label::name(l.label), "from": name(l.from), "to": name(l.to),
                    "departure": clock(l.depart), "departure_s": l.depart, "arrival": clock(l.arrive),
                    "arrival_s": l.arrive, "route": route(l.steps[0].arc),
                })
            })
            .collect();
        let arrival = r.arrival_at(target);
        let json = serde_json::json!({
            "profile": args.profile, "semantics": args.semantics, "depart": clock(depart), "depart_s": depart,
            "arrival": arrival.map(clock), "arrival_s": arrival, "legs": legs, "settled": r.settled,
            "query_ms": query_ms, "build_ms": build_ms, "vertices": graph.num_vertices(),
            "arcs": graph.num_arcs(),
        });
        println!("{json}");
        return Ok(());
    }
    match &journey {
        None => {
            println!("no journey from {} to {} under profile {}", name(source), name(target), args.profile);
            if net.is_some() && args.roads.is_none() && matches!(args.profile.as_str(), "walk" | "car") {
                println!(
                    "(without --roads, walking joins only stations within --walk-radius {} m and places to stations within 1 km; there are no roads to drive on)",
                    args.walk_radius
                );
            }
        }
        Some(j) => {
            println!("journey ({}), departing {}:", args.profile, clock(depart));
            for l in &shown {
                let via = route(l.steps[0].arc).map(|r| format!(" [{r}]")).unwrap_or_default();
                println!(
                    "  {:<9} {} → {}  {} – {}{via}",
                    label::name(l.label),
                    name(l.from),
                    name(l.to),
                    clock(l.depart),
                    clock(l.arrive)
                );
            }
            println!(
                "arrival {} ({} min); {} product nodes settled in {query_ms:.3} ms",
                clock(j.arrival),
                (j.arrival - depart).div_ceil(60),
                r.settled
            );
        }
    }
    Ok(())
}

fn run_queries(
    args: &Args,
    net: &Option<TransitNetwork>,
    graph: &TdGraph,
    profile: &Nfa,
    sem: Semantics,
    nq: usize,
    build_ms: f64,
) -> Result<(), Error> {
    // Endpoints: station street nodes (GTFS) or road vertices (generated); departures across the day.
    let ends: Vec<u32> = match net {
        Some(n) => n.street.clone(),
        None => (0..graph.num_vertices())
            .filter(|&v| {
                graph.label[graph.arcs_of(v).start as usize..graph.arcs_of(v).end as usize]
                    .contains(&label::CAR)
            })
            .collect(),
    };
    if ends.len() < 2 {
        return Err("the network has fewer than two possible endpoints".into());
    }
    let mut rng = urbanflow::graph::rng::SplitMix64::new(args.seed);
    let queries: Vec<ProfileQuery> = (0..nq)
        .map(|_| ProfileQuery {
            query: EapQuery {
                source: ends[rng.below(ends.len() as u64) as usize],
                target: Some(ends[rng.below(ends.len() as u64) as usize]),
                depart: 5 * 3600 + rng.below(18 * 3600) as u32,
            },
            profile: 0,
        })
        .collect();
    let profiles = [profile.clone()];
    let backend = crate::devices::backend_flag(args.backend.as_deref());
    let backend = backend.as_str();
    let clock = crate::devices::SetupClock::start(&[]);
    let t = Instant::now();
    let (arrivals, settled, what) = match backend {
        "serial" | "cpu" => {
            let (a, s) = arrival_times(graph, &profiles, &queries, sem, backend != "serial")?;
            (a, s.settled, if backend == "serial" { "serial" } else { "rayon" })
        }
        "auto" => {
            let (a, s, d) = arrival_times_auto(graph, &profiles, &queries, sem)?;
            if !args.json {
                println!("auto: {} ({} on the CPU, {} on the GPU)", d.reason, d.cpu_queries, d.gpu_queries);
            }
            (a, s.settled, if d.gpu_queries > 0 { "auto: rayon, then gpu" } else { "auto: rayon" })
        }
        "gpu" => {
            let ctx = urbanflow::gpu::GpuContext::shared().ok_or("no GPU adapter")?;
            let mut batch = GpuTdBatch::new(ctx, graph, &profiles, sem)?;
            let (a, s) = batch.arrival_times(&queries)?;
            (a, s.settled, "gpu")
        }
        other => return Err(format!("--backend {other}: expected serial, cpu, gpu or auto").into()),
    };
    // `seconds` (kept for scripts) is `solve_s`: the work, GPU device and pipelines apart.
    let (setup_s, secs) = clock.split(t.elapsed().as_secs_f64(), &[]);
    let reached = arrivals.iter().filter(|&&a| a != UNREACHED).count();
    let mean_min = arrivals
        .iter()
        .zip(&queries)
        .filter(|(a, _)| **a != UNREACHED)
        .map(|(a, q)| (a - q.query.depart) as f64 / 60.0)
        .sum::<f64>()
        / reached.max(1) as f64;
    if args.json {
        let json = serde_json::json!({
            "queries": nq, "backend": what, "seconds": secs, "solve_s": secs, "setup_s": setup_s,
            "queries_per_second": nq as f64 / secs, "reached": reached, "mean_travel_min": mean_min,
            "settled": settled, "build_ms": build_ms, "vertices": graph.num_vertices(),
            "arcs": graph.num_arcs(),
        });
        println!("{json}");
    } else {
        println!(
            "{nq} random queries ({what}): {secs:.3} s, {:.1} queries/s; {reached} reached, mean travel {mean_min:.1} min; {settled} product nodes settled",
            nq as f64 / secs
        );
    }
    Ok(())
}

fn read_roads(path: &std::path::Path, unit: f64) -> Result<RoadLayer, Error> {
    let g = urbanflow::graph::io::read_dimacs_sp::<u32>(path, Default::default())?;
    let stem = path.to_string_lossy();
    let stem = stem.trim_end_matches(".gz").trim_end_matches(".xz").trim_end_matches(".gr");
    let co = PathBuf::from(format!("{stem}.co"));
    let xy =
        urbanflow::graph::io::read_dimacs_coordinates(&co).map_err(|e| format!("road coordinates: {e}"))?;
    let coords = xy.iter().map(|&[x, y]| [y as f64 / 1e6, x as f64 / 1e6]).collect();
    Ok(RoadLayer { graph: g, coords, label: label::CAR, seconds_per_unit: unit })
}

fn geojson(net: &TransitNetwork, g: &TdGraph, j: &Journey) -> String {
    // Zero-time legs (entering a station, boarding) are points, not lines.
    let legs = j.legs.iter().filter(|l| l.arrive > l.depart || label::is_transit(l.label));
    feature_collection(legs.map(|l| {
        let stops = std::iter::once(l.from).chain(l.steps.iter().map(|s| g.head(s.arc)));
        Feature::line(stops.map(|v| (net.coords[v as usize][0], net.coords[v as usize][1])))
            .text("mode", &label::name(l.label))
            .text("from", &net.name_of(l.from))
            .text("to", &net.name_of(l.to))
            .text("departure", &clock(l.depart))
            .text("arrival", &clock(l.arrive))
            .optional_text("route", net.route_of_arc(l.steps[0].arc).map(|r| r.name.as_str()))
    }))
}
