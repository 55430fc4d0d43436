//! Frequency-based transit assignment of a demand matrix by optimal strategies (Spiess & Florian).
//!
//! ```text
//! urbanflow transit-assign --edges ../shared/data/transit/coquimbo/edges.csv \
//!     --zones ../shared/data/transit/coquimbo/zones.csv --demand ../shared/data/transit/coquimbo/demand.csv \
//!     --allow-unconnected --out volumes.csv --skims skims.csv --boardings boardings.csv
//! ```
//! The graph is an edge list (AequilibraE's transit graph schema); zones map zone ids to vertices, the
//! demand is `origin,destination,demand` in zone ids. `--vehicle-capacity` makes it a congested
//! assignment: effective frequencies that fall as lines fill, iterated to an equilibrium.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use urbanflow::transit::strategies::auto::{CongestedRun, assign_congested_on, assign_on};
use urbanflow::transit::strategies::{
    CongestedAssignment, CongestionOptions, EdgeKind, GtfsGraphOptions, HyperpathGraph, StrategyAssignment,
    StrategyOptions, TransitDemand, TransitSkims, Zones, assign, graph_from_gtfs, line_capacities_by_line,
    read_vehicle_capacities, read_zone_points,
};

use crate::outcome::{Error, Outcome};

/// Transit assignment by optimal strategies: a demand matrix loaded onto a frequency-based transit
/// graph, with edge volumes, boardings per stop and line, and zone-to-zone skims.
///
/// Example: urbanflow transit-assign --edges edges.csv --zones zones.csv --demand demand.csv --out volumes.csv
///
/// Travellers wait at a stop for the first vehicle of the lines that shorten their expected trip; the
/// result equals AequilibraE's `HyperpathGenerating.assign` on the same edges (crates/algos-transit
/// tests). With --vehicle-capacity, lines have a capacity and full lines come less often to those
/// waiting (effective frequencies, Cepeda, Cominetti & Florian 2006), iterated until the equilibrium's
/// relative gap reaches --gap (exit code 2 when it does not). Runs on every CPU core, or loads the
/// volumes on a GPU (--backend).
#[derive(clap::Args)]
#[command(version, after_help = crate::outcome::EXIT_CODES)]
#[command(group = clap::ArgGroup::new("congestion").multiple(true).args(["vehicle_capacity", "line_capacities"]))]
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
    /// (expected values; pairs that cannot be reached are left out), or an OMX file (`.omx`, feature
    /// `omx`) with those five cores over the zone ids (unreachable: infinity). Every zone becomes a
    /// destination.
    #[arg(long)]
    skims: Option<PathBuf>,
    /// Write boardings and alightings per stop and line here: CSV `stop_id,line_id,boardings,alightings`
    /// (needs the edges' `stop_id` and `line_id`; a transfer `A>B` alights A and boards B).
    #[arg(long)]
    boardings: Option<PathBuf>,
    /// Congested assignment: passengers a vehicle carries (every line not in --line-capacities; a
    /// line's capacity over the demand period is frequency × this × --period).
    #[arg(long, help_heading = "Congestion")]
    vehicle_capacity: Option<f64>,
    /// Congested assignment: vehicle capacities per line, CSV `line_id,vehicle_capacity` (GTFS lines are
    /// route_ids); lines not listed take --vehicle-capacity, or are unlimited without it.
    #[arg(long, value_parser = crate::args::files::input_file, help_heading = "Congestion")]
    line_capacities: Option<PathBuf>,
    /// Congested: the time the demand covers, in the frequencies' time unit (seconds for
    /// --gtfs graphs, where the default is the --window's length).
    #[arg(long, requires = "congestion", help_heading = "Congestion")]
    period: Option<f64>,
    /// Congested: the effective frequency's exponent β (large: lines keep their
    /// frequency until nearly full, and the equilibrium is harder to reach; docs/transit-assignment.md).
    #[arg(long, default_value_t = 0.5, requires = "congestion", help_heading = "Congestion")]
    beta: f64,
    /// Congested: stop at this relative gap.
    #[arg(long, default_value_t = 1e-3, requires = "congestion", help_heading = "Congestion")]
    gap: f64,
    /// Congested: stop after this many iterations (exit code 2 if the gap is not reached).
    #[arg(long, default_value_t = 100, requires = "congestion", help_heading = "Congestion")]
    max_iterations: usize,
    /// Congested: write each edge with a wait here: CSV
    /// `link_id,frequency,effective_frequency,capacity,boarding,on_board`.
    #[arg(long, requires = "congestion", help_heading = "Congestion")]
    frequencies: Option<PathBuf>,
    /// Where the strategies run: cpu, gpu (volumes on the device, a batch of destinations at a time,
    /// and with --vehicle-capacity every iteration there; needs 64-bit floats; skims are the CPU's) or
    /// auto (default: $URBANFLOW_BACKEND, else auto: the GPU where this machine's measured profiles
    /// predict it faster, else the CPU; the run says why).
    #[arg(long)]
    backend: Option<urbanflow::gpu::BackendChoice>,
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
    let choice = match args.backend {
        Some(c) => c,
        None => urbanflow::gpu::BackendChoice::from_env()?,
    };
    let congestion = args.vehicle_capacity.is_some() || args.line_capacities.is_some();
    if !congestion && args.skims.is_some() && choice == urbanflow::gpu::BackendChoice::Gpu {
        return Err("--backend gpu: skims run on the CPU (the GPU path loads volumes only); use --backend \
                    cpu or auto"
            .into());
    }
    let t = Instant::now();
    // The device of --backend gpu starts while the files are read.
    let (devices, read) = crate::devices::read_beside_devices(choice, None, || read_inputs(&args));
    devices?;
    let Inputs { g, zones, source, window_s, demand } = read?;
    let load_s = t.elapsed().as_secs_f64();
    let opts = StrategyOptions { skims: args.skims.is_some(), allow_unconnected: args.allow_unconnected };
    let progress = std::sync::Mutex::new(crate::progress::Progress::new("destinations", 1, args.json));
    let report = |done: usize, total: usize| {
        if let Ok(mut p) = progress.lock() {
            p.update_total(done as u64, total as u64, || format!("{done} of {total} destinations"));
        }
    };
    let clock = crate::devices::SetupClock::start(&[]);
    let congested = congested_run(&args, choice, &g, &zones, &demand, &opts, window_s)?;
    let threads = rayon::current_num_threads();
    let on_cpu = format!("cpu ({threads} threads)");
    let (r, backend, why) = match &congested {
        Some((c, _, _)) => (c.congested.assignment.clone(), c.backend.clone(), c.why.clone()),
        None if opts.skims => {
            (assign(&g, &zones, &demand, &opts, &report)?, on_cpu, "skims run on the CPU".into())
        }
        None => {
            let run = assign_on(choice.backend()?, &g, &zones, &demand, &opts, &report)?;
            (run.assignment, run.backend, run.why)
        }
    };
    if let Ok(p) = progress.into_inner() {
        p.finish();
    }
    // Device creation and shader compilation inside the run are setup, the rest the solve.
    let (setup_s, solve_s) = clock.split(r.seconds, &[]);
    if let (Some(path), Some((c, capacity, _))) = (&args.frequencies, &congested) {
        write_csv(path, |w| {
            writeln!(w, "link_id,frequency,effective_frequency,capacity,boarding,on_board")?;
            for (e, z) in capacity.iter().enumerate() {
                let f = g.edge(e).3;
                if f.is_finite() {
                    let (fe, v, vb) =
                        (c.congested.effective_frequency[e], r.volumes[e], c.congested.on_board[e]);
                    writeln!(w, "{},{f},{fe},{z},{v},{vb}", g.link_id(e))?;
                }
            }
            Ok(())
        })?;
    }
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
        write_skims(path, &zones, s)?;
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
    let summary = congested
        .as_ref()
        .map(|(c, capacity, period)| congestion_summary(&c.congested, capacity, &args, *period));
    if args.json {
        let mut json = serde_json::json!({
            "edges": g.num_edges(), "vertices": g.num_vertices(), "zones": zones.len(),
            "pairs": demand.num_pairs(), "trips": demand.total(), "assigned": r.assigned,
            "intrazonal": r.intrazonal, "unassigned": r.unassigned, "unassigned_pairs": r.unassigned_pairs,
            "destinations": r.destinations, "load_s": load_s, "setup_s": setup_s, "solve_s": solve_s, "threads": threads,
            "backend": backend, "why": why,
        });
        if let Some((s, _)) = &summary {
            json["congestion"] = s.clone();
        }
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
            "assigned {:.1} trips ({:.1} intrazonal, {:.1} unassigned in {} pairs) over {} destinations in {solve_s:.3} s{setup} on {backend} ({why})",
            r.assigned,
            r.intrazonal,
            r.unassigned,
            r.unassigned_pairs,
            r.destinations,
            setup = if setup_s > 0.0 { format!(" (+ {setup_s:.3} s GPU setup)") } else { String::new() }
        );
        if let Some((_, line)) = &summary {
            println!("{line}");
        }
        for (what, path) in [
            ("volumes", &args.out),
            ("skims", &args.skims),
            ("boardings", &args.boardings),
            ("frequencies", &args.frequencies),
        ] {
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
    Ok(Outcome::missed_if(congested.as_ref().map(|(c, _, _)| &c.congested).filter(|c| !c.converged).map(|c| {
        let last = c.iterations.last().map_or(f64::INFINITY, |i| i.relative_gap);
        format!(
            "congested assignment stopped after {} iterations at relative gap {last:.3e} (--gap {:e}); the volumes \
             written are those of the last iteration",
            c.iterations.len(),
            args.gap
        )
    })))
}

/// What the command reads: the graph (from an edge list or a GTFS feed), zones and demand.
struct Inputs {
    g: HyperpathGraph,
    zones: Zones,
    /// The graph's origin, in words.
    source: String,
    /// With --gtfs: the window's length in seconds (the congested period's default).
    window_s: Option<f64>,
    demand: TransitDemand,
}

fn read_inputs(args: &Args) -> Result<Inputs, Error> {
    let mut window_s = None;
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
            let (w0, w1) = window(&args.window)?;
            window_s = Some(f64::from(w1 - w0));
            let opts = GtfsGraphOptions {
                window: (w0, w1),
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
    Ok(Inputs { g, zones, source, window_s, demand })
}

/// Zone-to-zone skims: an OMX file with five cores over the zone ids (`.omx`), or CSV rows of the
/// pairs that can be reached.
fn write_skims(path: &Path, zones: &Zones, s: &TransitSkims) -> Result<(), Error> {
    if crate::args::matrices::is_omx(path) {
        let ids = (0..s.zones)
            .map(|z| {
                u64::try_from(zones.id(z)).map_err(|_| {
                    format!("{}: zone id {} cannot be an OMX zone (ids ≥ 0)", path.display(), zones.id(z))
                })
            })
            .collect::<Result<Vec<u64>, String>>()?;
        let cores: [(&str, &[f64]); 5] = [
            ("total", &s.total),
            ("in_vehicle", &s.in_vehicle),
            ("waiting", &s.waiting),
            ("walking", &s.walking),
            ("boardings", &s.boardings),
        ];
        crate::args::matrices::write_matrices(path, &ids, &cores)?;
    } else {
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
    Ok(())
}

/// With `--vehicle-capacity` or `--line-capacities`: the congested assignment, with the capacities
/// and the demand period it used; `None` otherwise.
fn congested_run(
    args: &Args,
    choice: urbanflow::gpu::BackendChoice,
    g: &HyperpathGraph,
    zones: &Zones,
    demand: &TransitDemand,
    opts: &StrategyOptions,
    window_s: Option<f64>,
) -> Result<Option<(CongestedRun, Vec<f64>, f64)>, Error> {
    if args.vehicle_capacity.is_none() && args.line_capacities.is_none() {
        return Ok(None);
    }
    if let Some(c) = args.vehicle_capacity.filter(|c| !(*c > 0.0 && c.is_finite())) {
        return Err(format!("--vehicle-capacity {c}: expected a positive number").into());
    }
    let period = args.period.or(window_s).ok_or(
        "a congested assignment with --edges needs --period (the time the demand covers, in the \
             frequencies' time unit)",
    )?;
    if !(period > 0.0 && period.is_finite()) {
        return Err(format!("--period {period}: expected a positive number").into());
    }
    let per_line =
        args.line_capacities.as_ref().map(read_vehicle_capacities).transpose()?.unwrap_or_default();
    let capacity = line_capacities_by_line(g, &per_line, args.vehicle_capacity, period)?;
    let copts =
        CongestionOptions { beta: args.beta, relative_gap: args.gap, max_iterations: args.max_iterations };
    let quiet = args.json;
    let c = assign_congested_on(choice.backend()?, g, zones, demand, &capacity, opts, &copts, &|it| {
        if !quiet {
            if it.iteration == 0 {
                eprintln!("congestion: iteration 0 (uncongested) in {:.2} s", it.seconds);
            } else {
                eprintln!(
                    "congestion: iteration {}, relative gap {:.3e}, {:.2} s",
                    it.iteration, it.relative_gap, it.seconds
                );
            }
        }
    })?;
    Ok(Some((c, capacity, period)))
}

/// The congested run in JSON and in one line: iterations, gap, and how full the lines leave their stops.
fn congestion_summary(
    c: &CongestedAssignment,
    capacity: &[f64],
    args: &Args,
    period: f64,
) -> (serde_json::Value, String) {
    let last = c.iterations.last().map_or(f64::INFINITY, |i| i.relative_gap);
    // Per edge with a wait: the line's load as it leaves the stop, as a share of its capacity.
    let loads: Vec<f64> = (0..capacity.len())
        .filter(|&e| capacity[e].is_finite() && capacity[e] > 0.0)
        .map(|e| c.on_board[e] / capacity[e])
        .collect();
    let fullest = loads.iter().copied().fold(0.0f64, f64::max);
    let over_90 = loads.iter().filter(|&&l| l > 0.9).count();
    let json = serde_json::json!({
        "iterations": c.iterations.len(), "relative_gap": last, "converged": c.converged,
        "target_gap": args.gap, "beta": args.beta, "vehicle_capacity": args.vehicle_capacity,
        "line_capacities": args.line_capacities.as_ref().map(|p| p.display().to_string()),
        "period": period, "fullest_load": fullest, "stops_over_90_percent": over_90,
        "gaps": c.iterations.iter().skip(1).map(|i| i.relative_gap).collect::<Vec<_>>(),
    });
    let line = format!(
        "congestion: {} iterations, relative gap {last:.3e} ({}); fullest line leaves a stop at {:.0} % of capacity, \
         {over_90} line stops above 90 %",
        c.iterations.len(),
        if c.converged { "converged" } else { "not converged" },
        100.0 * fullest
    );
    (json, line)
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
