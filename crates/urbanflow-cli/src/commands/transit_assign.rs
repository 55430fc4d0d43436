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
    EdgeKind, HyperpathGraph, StrategyAssignment, StrategyOptions, TransitDemand, Zones, assign,
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
    #[arg(long, value_parser = crate::args::files::input_file)]
    edges: PathBuf,
    /// Zones: CSV `zone_id,origin_vertex,destination_vertex` (or `zone_id,vertex`). Default: every vertex
    /// is a zone with its own id.
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
    let g = HyperpathGraph::read_csv(&args.edges)?;
    let zones = match &args.zones {
        Some(z) => Zones::read_csv(z, &g)?,
        None => Zones::every_vertex(&g),
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
            "{}: {} vertices, {} edges; {} zones, {} OD pairs, {:.1} trips; read in {load_s:.3} s",
            args.edges.display(),
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
