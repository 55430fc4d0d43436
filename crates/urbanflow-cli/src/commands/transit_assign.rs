//! Frequency-based transit assignment of a demand matrix by optimal strategies (Spiess & Florian).
//!
//! ```text
//! urbanflow transit-assign --edges ../shared/data/transit/coquimbo/edges.csv \
//!     --zones ../shared/data/transit/coquimbo/zones.csv --demand ../shared/data/transit/coquimbo/demand.csv \
//!     --allow-unconnected --out volumes.csv --skims skims.csv --boardings boardings.csv
//! ```
//! The graph is an edge list (AequilibraE's transit graph schema); zones map zone ids to vertices, the
//! demand is `origin,destination,demand` in zone ids.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use urbanflow::transit::strategies::{
    EdgeKind, GtfsGraphOptions, HyperpathGraph, StrategyAssignment, StrategyOptions, TransitDemand, Zones,
    assign, graph_from_gtfs, read_zone_points,
};

use crate::outcome::{Error, Outcome};

/// Transit assignment by optimal strategies: a demand matrix loaded onto a frequency-based transit
/// graph, with edge volumes, boardings per stop and line, and zone-to-zone skims.
///
/// Example: urbanflow transit-assign --edges edges.csv --zones zones.csv --demand demand.csv --out volumes.csv
///
/// Travellers wait at a stop for the first vehicle of the lines that shorten their expected trip; the
/// result equals AequilibraE's `HyperpathGenerating.assign` on the same edges (crates/algos-transit
/// tests). Runs on every CPU core; there is no GPU path yet.
#[derive(clap::Args)]
#[command(version, after_help = crate::outcome::EXIT_CODES)]
pub struct Args {
    /// The transit graph: CSV `tail,head,trav_time,freq` (vertex ids from 0, `inf` where there is no
    /// wait) with optional `link_id,link_type,line_id,stop_id`, as AequilibraE's transit graphs.
    #[arg(long, value_parser = crate::args::files::input_file, required_unless_present = "gtfs", conflicts_with = "gtfs")]
    edges: Option<PathBuf>,
    /// Build the graph from a GTFS feed (zip or folder) instead: every pattern with trips leaving its
    /// first stop in --window is a line with their frequency and mean ride times; walking transfers
    /// join stations within --transfer-radius.
    #[arg(long, value_parser = crate::args::files::input_file)]
    gtfs: Option<PathBuf>,
    /// With --gtfs: the service date, YYYY-MM-DD.
    #[arg(long, requires = "gtfs")]
    date: Option<String>,
    /// With --gtfs: the time window, HH:MM-HH:MM.
    #[arg(long, default_value = "07:00-09:00")]
    window: String,
    /// With --gtfs: walking transfers between stations this close, m.
    #[arg(long, default_value_t = 200.0)]
    transfer_radius: f64,
    /// With --gtfs: zones join every station within this, m (and the nearest one in any case).
    #[arg(long, default_value_t = 500.0)]
    connector_radius: f64,
    /// With --gtfs: write the built graph here (the --edges schema), to inspect it or use it elsewhere.
    #[arg(long)]
    graph_out: Option<PathBuf>,
    /// Zones: with --edges, CSV `zone_id,origin_vertex,destination_vertex` (or `zone_id,vertex`); with
    /// --gtfs, CSV `zone_id,lat,lon` joined to stations by walking connectors. Default: every vertex
    /// (with --gtfs, every station, numbered from 1 in stop id order) is a zone.
    #[arg(long, value_parser = crate::args::files::input_file)]
    zones: Option<PathBuf>,
    /// Demand: CSV `origin,destination,demand` in zone ids.
    #[arg(long, value_parser = crate::args::files::input_file)]
    demand: PathBuf,
    /// Assign what can be assigned when zones with demand have no connector (their trips are reported
    /// as unassigned); refused otherwise.
    #[arg(long)]
    allow_unconnected: bool,
    /// Write edge volumes here: CSV `link_id,volume`.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write zone-to-zone skims here: CSV `origin,destination,total,in_vehicle,waiting,walking,boardings`
    /// (expected values; pairs that cannot be reached are left out). Every zone becomes a destination.
    #[arg(long)]
    skims: Option<PathBuf>,
    /// Write boardings and alightings per stop and line here: CSV `stop_id,line_id,boardings,alightings`
    /// (needs the edges' `stop_id` and `line_id`; a transfer `A>B` alights A and boards B).
    #[arg(long)]
    boardings: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Print one JSON object instead of the summary.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<Outcome, Error> {
    if let Some(t) = args.threads {
        rayon::ThreadPoolBuilder::new().num_threads(t).build_global()?;
    }
    let t = Instant::now();
    let (g, zones, source) = match (&args.edges, &args.gtfs) {
        (Some(edges), _) => {
            let g = HyperpathGraph::read_csv(edges)?;
            let zones = match &args.zones {
                Some(z) => Zones::read_csv(z, &g)?,
                None => Zones::every_vertex(&g),
            };
            (g, zones, edges.display().to_string())
        }
        (None, Some(feed)) => {
            let date = args.date.as_deref().ok_or("--gtfs needs --date YYYY-MM-DD")?;
            let opts = GtfsGraphOptions {
                window: window(&args.window)?,
                transfer_radius_m: args.transfer_radius,
                connector_radius_m: args.connector_radius,
                ..GtfsGraphOptions::default()
            };
            let points = args.zones.as_ref().map(read_zone_points).transpose()?;
            let built = graph_from_gtfs(feed, date, points.as_deref(), &opts)?;
            if let Some(out) = &args.graph_out {
                built.graph.write_csv(out).map_err(|e| format!("{}: {e}", out.display()))?;
            }
            let what = format!(
                "{} on {date} {}: {} stations, {} lines with {} trips",
                feed.display(),
                args.window,
                built.stations.len(),
                built.patterns,
                built.trips
            );
            (built.graph, built.zones, what)
        }
        (None, None) => return Err("give --edges FILE or --gtfs FEED".into()),
    };
    let demand = TransitDemand::read_csv(&args.demand, &zones)?;
    let load_s = t.elapsed().as_secs_f64();
    let opts = StrategyOptions { skims: args.skims.is_some(), allow_unconnected: args.allow_unconnected };
    let progress = std::sync::Mutex::new(crate::progress::Progress::new("destinations", 1, args.json));
    let r = assign(&g, &zones, &demand, &opts, &|done, total| {
        if let Ok(mut p) = progress.lock() {
            p.update_total(done as u64, total as u64, || format!("{done} of {total} destinations"));
        }
    })?;
    if let Ok(p) = progress.into_inner() {
        p.finish();
    }
    let solve_s = r.seconds;
    if let Some(out) = &args.out {
        write_csv(out, |w| {
            writeln!(w, "link_id,volume")?;
            for (e, v) in r.volumes.iter().enumerate() {
                writeln!(w, "{},{v}", g.link_id(e))?;
            }
            Ok(())
        })?;
    }
    if let (Some(path), Some(s)) = (&args.skims, &r.skims) {
        write_csv(path, |w| {
            writeln!(w, "origin,destination,total,in_vehicle,waiting,walking,boardings")?;
            for o in 0..s.zones {
                for d in 0..s.zones {
                    let k = o * s.zones + d;
                    if o != d && s.total[k].is_finite() {
                        let (id_o, id_d) = (zones.id(o), zones.id(d));
                        let (t, i, wa, wk, b) =
                            (s.total[k], s.in_vehicle[k], s.waiting[k], s.walking[k], s.boardings[k]);
                        writeln!(w, "{id_o},{id_d},{t},{i},{wa},{wk},{b}")?;
                    }
                }
            }
            Ok(())
        })?;
    }
    if let Some(path) = &args.boardings {
        let table = boardings(&g, &r);
        write_csv(path, |w| {
            writeln!(w, "stop_id,line_id,boardings,alightings")?;
            for ((stop, line), (on, off)) in &table {
                writeln!(w, "{stop},{line},{on},{off}")?;
            }
            Ok(())
        })?;
    }
    let threads = rayon::current_num_threads();
    let why = "optimal strategies run on the CPU (no GPU path yet)";
    if args.json {
        let json = serde_json::json!({
            "edges": g.num_edges(), "vertices": g.num_vertices(), "zones": zones.len(),
            "pairs": demand.num_pairs(), "trips": demand.total(), "assigned": r.assigned,
            "intrazonal": r.intrazonal, "unassigned": r.unassigned, "unassigned_pairs": r.unassigned_pairs,
            "destinations": r.destinations, "load_s": load_s, "solve_s": solve_s, "threads": threads,
            "backend": format!("cpu ({threads} threads)"), "why": why,
        });
        println!("{json}");
    } else {
        println!(
            "{source}: {} vertices, {} edges; {} zones, {} OD pairs, {:.1} trips; read in {load_s:.3} s",
            g.num_vertices(),
            g.num_edges(),
            zones.len(),
            demand.num_pairs(),
            demand.total()
        );
        println!(
            "assigned {:.1} trips ({:.1} intrazonal, {:.1} unassigned in {} pairs) over {} destinations in {solve_s:.3} s on {threads} threads ({why})",
            r.assigned, r.intrazonal, r.unassigned, r.unassigned_pairs, r.destinations
        );
        for (what, path) in [("volumes", &args.out), ("skims", &args.skims), ("boardings", &args.boardings)] {
            if let Some(p) = path {
                println!("{what:<9} written to {}", p.display());
            }
        }
    }
    if r.unassigned > 0.0 {
        eprintln!(
            "warning: {:.1} trips in {} OD pairs could not reach their destination and were not assigned",
            r.unassigned, r.unassigned_pairs
        );
    }
    Ok(Outcome::Done)
}

/// Boardings and alightings per (stop, line): edges with a wait board their line, alighting edges
/// leave theirs, a transfer `A>B` does both.
fn boardings(g: &HyperpathGraph, r: &StrategyAssignment) -> BTreeMap<(String, String), (f64, f64)> {
    let mut table: BTreeMap<(String, String), (f64, f64)> = BTreeMap::new();
    for (e, &v) in r.volumes.iter().enumerate() {
        let (stop, line) = (g.stop(e), g.line(e));
        if stop.is_empty() || line.is_empty() {
            continue;
        }
        let (from, to) = line.split_once('>').unwrap_or((line, line));
        if g.edge(e).3.is_finite() {
            table.entry((stop.to_string(), to.to_string())).or_default().0 += v;
        }
        if g.kind(e) == EdgeKind::Alighting || g.kind(e) == EdgeKind::Transfer {
            table.entry((stop.to_string(), from.to_string())).or_default().1 += v;
        }
    }
    table
}

/// `HH:MM-HH:MM` as seconds of the day.
fn window(s: &str) -> Result<(u32, u32), Error> {
    let clock = |t: &str| -> Option<u32> {
        let (h, m) = t.trim().split_once(':')?;
        let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
        (m < 60 && h <= 48).then_some(h * 3600 + m * 60)
    };
    match s.split_once('-').and_then(|(a, b)| Some((clock(a)?, clock(b)?))) {
        Some((a, b)) if b > a => Ok((a, b)),
        _ => Err(format!("--window `{s}`: expected HH:MM-HH:MM with the end after the start").into()),
    }
}

/// Writes a file through `fill`, naming the file in any error.
fn write_csv(
    path: &Path,
    fill: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> Result<(), Error> {
    let named = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).map_err(named)?);
    fill(&mut w).and_then(|()| w.flush()).map_err(named)?;
    Ok(())
}
