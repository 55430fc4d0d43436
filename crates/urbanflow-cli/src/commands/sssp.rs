//! Single-source shortest paths on a road graph.
//!
//! ```text
//! urbanflow sssp --graph ../shared/data/road/weighted/NY.gr.xz --source 1 \
//!     --algorithm near-far --backend gpu --json
//! ```
//! Vertex ids on the command line are the file's own (1-based in DIMACS files). Prints the number of
//! reached vertices, a checksum (sum of finite distances mod 2^64), and load and solve times; `--json`
//! prints one JSON object with those fields instead.
//!
//! On an OpenStreetMap extract, a route between two coordinates (travel time and length):
//!
//! ```text
//! urbanflow sssp --osm ../shared/data/osm/porto/porto_portugal.osm.pbf \
//!     --profile car --from 41.1579,-8.6291 --to 41.1456,-8.6108 --json --geojson route.geojson
//! ```
//! Without `--to`, everything reachable within `--within` minutes, and with `--geojson` its tree.

use crate::outcome::Error;

use std::path::PathBuf;
use std::time::Instant;

use urbanflow::gpu::{Backend, BackendChoice, GpuContext, Resolved};
use urbanflow::graph::geojson::feature_collection;
use urbanflow::graph::osm::{OsmOptions, Profile, import};
use urbanflow::sssp::auto::single_source_choice;
use urbanflow::sssp::{Algorithm, Query, solve};

/// Shortest paths from one source of a road graph, on the CPU or a GPU.
///
/// Example: urbanflow sssp --graph NY.gr.xz --source 1 --target 5000 --json
///
/// Vertex ids are the file's own (1-based in DIMACS files, node numbers in TNTP files). `--algorithm
/// auto` runs Dijkstra on the CPU unless the GPU is measured faster for a graph this large on this
/// adapter, counting what this one call pays (device, compilation, upload); the output says which ran
/// and why.
#[derive(clap::Args)]
#[command(version, after_help = crate::outcome::EXIT_CODES)]
pub struct Args {
    /// The graph file (default: the bundled small road graph).
    #[command(flatten)]
    input: crate::args::graph::GraphArgs,
    /// Source vertex, as numbered in the file.
    #[arg(long, default_value_t = 1)]
    source: u64,
    /// Target vertex (as in the file): print its distance and path length; Dijkstra stops when it is
    /// settled.
    #[arg(long)]
    target: Option<u64>,
    /// dijkstra, delta, bellman-ford, harish, martin, crauser, crauser-in, near-far, lbr (k = 4), jradi
    /// or auto.
    #[arg(long, default_value = "auto")]
    algorithm: Algorithm,
    /// cpu, gpu or auto (default: $URBANFLOW_BACKEND, else auto: a hardware GPU if there is one).
    #[arg(long)]
    backend: Option<BackendChoice>,
    /// Solve this many times in the process and report the first and the fastest solve (the later ones
    /// find the device and pipelines ready).
    #[arg(long, default_value_t = 1)]
    repeat: u32,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// An OpenStreetMap PBF extract: route from --from to --to (instead of --graph and --source).
    #[arg(long, value_parser = crate::args::files::input_file, conflicts_with = "graph", requires = "from")]
    osm: Option<PathBuf>,
    /// With --osm: car, bike or walk.
    #[arg(long, default_value = "car")]
    profile: Profile,
    /// With --osm: the start as LAT,LON (snapped to the nearest vertex of the routable graph).
    #[arg(long, allow_hyphen_values = true)]
    from: Option<String>,
    /// With --osm: the destination as LAT,LON. Without it: the shortest-path tree of everything
    /// reachable within --within minutes (written by --geojson: each tree arc with its arrival time).
    #[arg(long, allow_hyphen_values = true)]
    to: Option<String>,
    /// With --osm: refuse --from/--to points farther than this many metres from every road vertex.
    #[arg(long, default_value_t = urbanflow::graph::osm::DEFAULT_SNAP_LIMIT_M)]
    snap_limit_m: f64,
    /// With --osm and no --to: the tree's time limit in minutes.
    #[arg(long, default_value_t = 10.0)]
    within: f64,
    /// With --osm: write the route as a GeoJSON feature (longitude, latitude), for QGIS or geojson.io.
    #[arg(long)]
    geojson: Option<PathBuf>,
    /// With --osm: ignore turn restrictions and turn costs (by default cars and bicycles obey the
    /// file's `type=restriction` relations, U-turn only at dead ends and pay OSRM-style turn costs).
    #[arg(long, requires = "osm")]
    no_turns: bool,
}

/// A route on an OpenStreetMap extract: snap both ends, shortest travel time (milliseconds on the
/// arcs), then the path's real-valued travel time and length.
fn run_osm(args: &Args, path: &std::path::Path, backend: Backend<'_>) -> Result<(), Error> {
    let from = crate::args::files::lat_lon(args.from.as_deref().unwrap_or_default(), "--from")?;
    let t = Instant::now();
    let g = import(path, &OsmOptions::new(args.profile))?;
    let import_s = t.elapsed().as_secs_f64();
    let (s, from_m) = g.snap(from.0, from.1, args.snap_limit_m).map_err(|e| format!("--from: {e}"))?;
    let Some(to) = args.to.as_deref() else {
        return reach_tree(args, &g, s, from_m, import_s, backend);
    };
    let to = crate::args::files::lat_lon(to, "--to")?;
    let (d, to_m) = g.snap(to.0, to.1, args.snap_limit_m).map_err(|e| format!("--to: {e}"))?;
    let turns = crate::args::osm::turns_wanted(args.profile, args.no_turns)
        .then(|| crate::args::osm::turn_graph(&g))
        .transpose()?;
    let t = Instant::now();
    // With turns the route runs on the turn graph, from s's source vertex to d's target vertex.
    let (graph, from_v, to_v) = match &turns {
        Some((tg, _)) => (&tg.graph, tg.source(s), tg.target(d)),
        None => (&g.graph, s, d),
    };
    let q = Query { source: from_v, targets: Some(vec![to_v]), predecessors: true, ..Default::default() };
    let r = solve(graph, &q, args.algorithm, backend)?;
    let route_s = t.elapsed().as_secs_f64();
    let Some(path_v) = r.path_to(graph, to_v) else {
        // Unreachable is an answer (exit 0), as in `route` and `ksp`.
        let (from_node, to_node) = (g.osm_ids[s as usize], g.osm_ids[d as usize]);
        if args.json {
            let json = serde_json::json!({
                "osm": path.display().to_string(), "profile": args.profile.to_string(),
                "from_osm_node": from_node, "to_osm_node": to_node, "from_snap_m": from_m, "to_snap_m": to_m,
                "travel_time_s": null, "length_m": null, "path_vertices": 0,
                "algorithm": r.algorithm.to_string(), "import_s": import_s, "route_s": route_s,
            });
            println!("{json}");
        } else {
            println!("route      OSM node {from_node} → OSM node {to_node}: unreachable (no path)");
        }
        return Ok(());
    };
    let path_v = match &turns {
        Some((tg, _)) => tg.path_nodes(&path_v),
        None => path_v,
    };
    let (time_s, length_m) = g.path_totals(&path_v).ok_or("internal error: the path leaves the graph")?;
    let ms = r.distance(to_v).unwrap_or(0);
    // What the route pays for turning: routed milliseconds beyond its arcs' own.
    let arcs_ms: u64 =
        path_v.windows(2).filter_map(|p| g.arc(p[0], p[1])).map(|a| g.graph.weights()[a] as u64).sum();
    let turn_s = (ms as u64).saturating_sub(arcs_ms) as f64 / 1000.0;
    // Travel time counts the turns (the arcs' real-valued seconds plus the turn costs).
    let time_s = time_s + turn_s;
    let turns_line = match &turns {
        Some((_, line)) => line.clone(),
        None => format!("off ({} profile{})", args.profile, if args.no_turns { ", --no-turns" } else { "" }),
    };
    if let Some(file) = &args.geojson {
        let route = g
            .path_feature(&path_v)
            .text("profile", &args.profile.to_string())
            .number("travel_time_s", (time_s * 1e3).round() / 1e3)
            .number("turn_cost_s", turn_s)
            .number("length_m", (length_m * 10.0).round() / 10.0);
        std::fs::write(file, feature_collection([route])).map_err(|e| format!("{}: {e}", file.display()))?;
    }
    let rep = &g.report;
    if args.json {
        let json = serde_json::json!({
            "osm": path.display().to_string(), "profile": args.profile.to_string(),
            "vertices": g.graph.num_vertices(), "arcs": g.graph.num_arcs(),
            "from_osm_node": g.osm_ids[s as usize], "to_osm_node": g.osm_ids[d as usize],
            "from_snap_m": from_m, "to_snap_m": to_m, "travel_time_s": time_s, "length_m": length_m,
            "travel_time_ms_routed": ms, "path_vertices": path_v.len(), "algorithm": r.algorithm.to_string(),
            "import_s": import_s, "route_s": route_s, "ways_used": rep.ways_used, "ways_cut": rep.ways_cut,
            "vertices_before_scc": rep.vertices_before_scc, "components": rep.components,
            "turn_cost_s": turn_s, "turns": turns_line,
        });
        println!("{json}");
    } else {
        println!(
            "graph      {} ({} profile: {} vertices, {} arcs in the largest strongly connected component of {} vertices)",
            path.display(),
            args.profile,
            g.graph.num_vertices(),
            g.graph.num_arcs(),
            rep.vertices_before_scc
        );
        println!(
            "from       {:.6},{:.6} → OSM node {} ({from_m:.0} m away)",
            from.0, from.1, g.osm_ids[s as usize]
        );
        println!(
            "to         {:.6},{:.6} → OSM node {} ({to_m:.0} m away)",
            to.0, to.1, g.osm_ids[d as usize]
        );
        println!("turns      {turns_line}");
        println!(
            "route      {:.1} min ({:.1} s of it turning), {:.2} km, {} vertices ({})",
            time_s / 60.0,
            turn_s,
            length_m / 1000.0,
            path_v.len(),
            r.algorithm
        );
        println!("import     {import_s:.3} s; route {route_s:.6} s");
    }
    Ok(())
}

/// Everything reachable from `s` within `--within` minutes: counts, and with --geojson the tree's arcs
/// (each with the arrival time at its head) as a GeoJSON feature collection.
fn reach_tree(
    args: &Args,
    g: &urbanflow::graph::osm::OsmGraph,
    s: u32,
    from_m: f64,
    import_s: f64,
    backend: Backend<'_>,
) -> Result<(), Error> {
    if !(args.within.is_finite() && args.within > 0.0) {
        return Err(format!("--within {}: expected a positive number of minutes", args.within).into());
    }
    let cutoff_ms = (args.within * 60_000.0).min(u32::MAX as f64 - 2.0) as u32;
    let turns = crate::args::osm::turns_wanted(args.profile, args.no_turns)
        .then(|| crate::args::osm::turn_graph(g))
        .transpose()?;
    let t = Instant::now();
    let (graph, from_v) = match &turns {
        Some((tg, _)) => (&tg.graph, tg.source(s)),
        None => (&g.graph, s),
    };
    let q = Query { source: from_v, cutoff: Some(cutoff_ms), predecessors: true, ..Default::default() };
    let r = solve(graph, &q, args.algorithm, backend)?;
    let tree_s = t.elapsed().as_secs_f64();
    let mut features = Vec::new();
    let reached = match &turns {
        None => {
            let pred = r.pred_arc.as_ref().ok_or("internal error: no predecessors")?;
            for v in 0..g.graph.num_vertices() {
                let (Some(ms), a) = (r.distance(v), pred[v as usize]) else { continue };
                if a == urbanflow::sssp::NO_ARC {
                    continue;
                }
                let u = urbanflow::sssp::tail_of(&g.graph, a);
                features.push(g.path_feature(&[u, v]).number("arrival_s", ms as f64 / 1000.0));
            }
            r.reached()
        }
        Some((tg, _)) => {
            // Each road arc reached, drawn with the arrival time at its head (via-way copies left out:
            // their original is drawn).
            let tails = g.graph.arc_tails();
            for a in 0..g.graph.num_arcs() {
                let Some(ms) = r.distance(a) else { continue };
                let (u, v) = (tails[a as usize], g.graph.targets()[a as usize]);
                features.push(g.path_feature(&[u, v]).number("arrival_s", ms as f64 / 1000.0));
            }
            (0..tg.num_nodes()).filter(|&v| r.distance(tg.target(v)).is_some()).count()
        }
    };
    let turns_line = match &turns {
        Some((_, line)) => line.clone(),
        None => format!("off ({} profile{})", args.profile, if args.no_turns { ", --no-turns" } else { "" }),
    };
    let tree_arcs = features.len();
    if let Some(file) = &args.geojson {
        std::fs::write(file, feature_collection(features)).map_err(|e| format!("{}: {e}", file.display()))?;
    }
    if args.json {
        let json = serde_json::json!({
            "osm": args.osm.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
            "profile": args.profile.to_string(), "from_osm_node": g.osm_ids[s as usize], "from_snap_m": from_m,
            "within_min": args.within, "reached": reached, "tree_arcs": tree_arcs, "import_s": import_s,
            "tree_s": tree_s, "turns": turns_line,
        });
        println!("{json}");
    } else {
        println!("turns      {turns_line}");
        println!(
            "reached    {reached} of {} vertices within {} min ({} profile) from OSM node {} ({from_m:.0} m away); tree {tree_s:.4} s",
            g.graph.num_vertices(),
            args.within,
            args.profile,
            g.osm_ids[s as usize]
        );
    }
    Ok(())
}

pub fn run(args: Args) -> Result<(), Error> {
    let choice = args.backend.map_or_else(BackendChoice::from_env, Ok)?;
    if let Some(osm) = &args.osm {
        return run_osm(&args, osm, choice.backend()?);
    }
    // The device of --backend gpu starts while the graph is read.
    let (devices, input) = crate::devices::read_beside_devices(choice, None, || {
        args.input.load(crate::args::files::bundled_road_graph)
    });
    devices?;
    let backend = choice.backend()?;
    let crate::args::graph::LoadedInput { path, loaded, load_s } = input?;
    let g = &loaded.graph;
    let vertex = |id: u64, what: &str| {
        loaded.vertex(id).ok_or(format!(
            "{what} {id} is not a vertex of {}: ids run {}..={} ({} format)",
            path.display(),
            loaded.ids.first().copied().unwrap_or(0),
            loaded.ids.last().copied().unwrap_or(0),
            loaded.format
        ))
    };
    let source = vertex(args.source, "source")?;
    let target = args.target.map(|t| vertex(t, "target")).transpose()?;
    let why = match args.algorithm {
        Algorithm::Auto => single_source_choice(g, backend).2,
        a if a.is_gpu() => "asked for".into(),
        _ => "asked for (a CPU algorithm)".into(),
    };
    let q = Query {
        source,
        targets: target.map(|t| vec![t]),
        predecessors: target.is_some(),
        ..Default::default()
    };
    let (mut first_s, mut best_s) = (0.0, f64::INFINITY);
    let mut result = None;
    let mut setup_s = 0.0;
    for i in 0..args.repeat.max(1) {
        let clock = crate::devices::SetupClock::start(&[]);
        let t = Instant::now();
        let r = solve(g, &q, args.algorithm, backend)?;
        let (setup, s) = clock.split(t.elapsed().as_secs_f64(), &[]);
        if i == 0 {
            setup_s = setup;
        }
        if i == 0 {
            first_s = s;
        }
        best_s = best_s.min(s);
        result = Some(r);
    }
    let r = result.expect("at least one solve");
    let device = if r.algorithm.is_gpu() {
        match backend {
            Backend::Gpu(ctx) => Resolved::Gpu(ctx).to_string(),
            _ => GpuContext::shared().map_or("gpu".into(), |c| Resolved::Gpu(c).to_string()),
        }
    } else {
        "cpu".to_string()
    };
    let context_s = GpuContext::shared()
        .filter(|_| GpuContext::shared_is_created() && r.algorithm.is_gpu())
        .map_or(0.0, |c| c.creation_time().as_secs_f64());
    let target_info = target.map(|t| (r.distance(t), r.path_to(g, t).map(|p| p.len())));
    if args.json {
        let (td, tl) = target_info.unwrap_or((None, None));
        let json = serde_json::json!({
            "graph": path.display().to_string(), "format": loaded.format.to_string(),
            "vertices": g.num_vertices(), "arcs": g.num_arcs(), "source": args.source,
            "algorithm": args.algorithm.to_string(), "ran": r.algorithm.to_string(), "backend": device,
            "why": why, "reached": r.reached(), "checksum": r.checksum(), "target_distance": td,
            "target_path_vertices": tl, "phases": r.stats.phases, "dispatches": r.stats.dispatches,
            "readbacks": r.stats.readbacks, "load_s": load_s, "solve_s": first_s, "best_solve_s": best_s,
            "repeat": args.repeat.max(1), "context_s": context_s, "setup_s": setup_s,
        });
        println!("{json}");
    } else {
        println!(
            "graph      {} ({} format, {} vertices, {} arcs)",
            path.display(),
            loaded.format,
            g.num_vertices(),
            g.num_arcs()
        );
        println!("algorithm  {} on {device} ({why})", r.algorithm);
        println!("source     {}", args.source);
        println!("reached    {}", r.reached());
        println!("checksum   {}", r.checksum());
        if let (Some(t), Some((d, len))) = (args.target, target_info) {
            match d {
                Some(d) => println!("target     {t}: distance {d}, path of {} vertices", len.unwrap_or(0)),
                None => println!("target     {t}: unreachable"),
            }
        }
        if r.algorithm.is_gpu() {
            println!(
                "phases     {} ({} dispatches, {} readbacks)",
                r.stats.phases, r.stats.dispatches, r.stats.readbacks
            );
        }
        println!("load       {load_s:.3} s");
        if args.repeat > 1 {
            println!("solve      {first_s:.6} s first, {best_s:.6} s fastest of {}", args.repeat);
        } else {
            println!("solve      {first_s:.6} s");
        }
        if setup_s > 0.0 {
            println!("setup      {setup_s:.3} s of GPU device and pipelines (not in the solve time)");
        }
    }
    Ok(())
}
