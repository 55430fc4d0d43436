//! Point-to-point routes on a customisable contraction hierarchy: build it once, then each query walks
//! two elimination-tree paths (microseconds) and unpacks the route to the graph's own arcs.
//!
//! ```text
//! urbanflow route --graph ../shared/data/road/weighted/NY.gr.xz --from 1 --to 5000 --json
//! urbanflow route --osm ../shared/data/osm/porto/porto_portugal.osm.pbf --profile car \
//!     --from 41.1579,-8.6291 --to 41.1456,-8.6108
//! ```
//! `--from`/`--to` are the file's vertex ids with `--graph`, `LAT,LON` with `--osm` (snapped to the road
//! graph within `--snap-limit-m`). `distance` is in the graph's weight units (milliseconds of travel time
//! for OSM graphs), `path` lists the file's vertex ids (OSM node ids). `--check` also runs Dijkstra to the
//! target and fails if the distances differ.
//!
//! `--matrix ORIGINS DESTS` reads two files of points (one vertex id, or `LAT,LON` with `--osm`, per line;
//! blank lines and `#` comments skipped) and computes every origin-to-destination distance through the
//! library's one matrix API (`sssp::matrix::distance_matrix`): the engine (one tree per origin, or bucket
//! walks on a customisable hierarchy, or their min-plus product on a GPU) is chosen inside unless
//! `--engine` names it, and the report says which ran and why. `--out F.csv` writes
//! `origin,destination,distance` rows, the distance left empty where the destination cannot be reached.
//!
//! `--within B` computes an isochrone instead: every vertex within `B` of `--from` (or of the nearest
//! point of `--origins FILE`, same format as the matrix files) by a bounded Dijkstra from all origins at
//! once (`isochrone::within`; no hierarchy is prepared). `B` is in minutes with `--osm`, in the graph's
//! weight units with `--graph`. `--out F.csv` writes `vertex,distance,origin` rows (file ids), and with
//! `--osm`, `--geojson F` writes the tree's arcs with their arrival times and origins.
//!
//! `--no-hierarchy` answers a `--from/--to` query with bidirectional Dijkstra on the graph itself (no
//! preparation: for one query on a graph read once).

use crate::outcome::Error;

use std::path::PathBuf;
use std::time::Instant;

use urbanflow::gpu::BackendChoice;
use urbanflow::graph::geojson::feature_collection;
use urbanflow::graph::osm::{DEFAULT_SNAP_LIMIT_M, OsmGraph, OsmOptions, Profile, import};
use urbanflow::graph::turns::TurnGraph;
use urbanflow::sssp::cch::{Cch, CchQuery};
use urbanflow::sssp::cpu::bidirectional::BidirectionalQuery;
use urbanflow::sssp::cpu::dijkstra::{Stop, dijkstra};
use urbanflow::sssp::isochrone::{Reach, within};
use urbanflow::sssp::matrix::{DistanceMatrix, Engine, MatrixOptions, distance_matrix};

/// A shortest route between two points, on a customisable contraction hierarchy (CPU); also
/// origin-destination matrices (--matrix: the engine chosen for the job, or --engine) and isochrones
/// (--within).
///
/// Example: urbanflow route --graph NY.gr.xz --from 1 --to 5000 --json
#[derive(clap::Args)]
#[command(version, after_help = crate::outcome::EXIT_CODES)]
pub struct Args {
    /// The graph file (default: the bundled small road graph; not with --osm).
    #[command(flatten)]
    input: crate::args::graph::GraphArgs,
    /// An OpenStreetMap PBF extract instead of --graph (travel times in milliseconds).
    #[arg(long, value_parser = crate::args::files::input_file, conflicts_with = "graph")]
    osm: Option<PathBuf>,
    /// With --osm: car, bike or walk.
    #[arg(long, default_value = "car")]
    profile: Profile,
    /// Start: a vertex id of the file, or LAT,LON with --osm.
    #[arg(long, allow_hyphen_values = true, default_value = "1")]
    from: String,
    /// Destination: a vertex id of the file, or LAT,LON with --osm.
    #[arg(long, allow_hyphen_values = true, default_value = "2")]
    to: String,
    /// With --osm: refuse points farther than this many metres from every road vertex.
    #[arg(long, default_value_t = DEFAULT_SNAP_LIMIT_M)]
    snap_limit_m: f64,
    /// Also run Dijkstra to the target and fail (exit 1) if the distances differ.
    #[arg(long)]
    check: bool,
    /// An origin-destination matrix: two files of points (a vertex id, or LAT,LON with --osm, per line)
    /// instead of --from/--to.
    #[arg(long, num_args = 2, value_names = ["ORIGINS", "DESTS"], value_parser = crate::args::files::input_file)]
    matrix: Option<Vec<PathBuf>>,
    /// With --matrix: write `origin,destination,distance` rows here (CSV); with --within:
    /// `vertex,distance,origin` rows.
    #[arg(long)]
    out: Option<PathBuf>,
    /// An isochrone: everything within this budget of --from (or of --origins), in minutes with --osm,
    /// in the graph's weight units with --graph.
    #[arg(long, conflicts_with = "matrix")]
    within: Option<f64>,
    /// With --within: several origins, one point per line (a vertex id, or LAT,LON with --osm), instead
    /// of --from.
    #[arg(long, requires = "within", value_parser = crate::args::files::input_file)]
    origins: Option<PathBuf>,
    /// With --within and --osm: write the isochrone's tree arcs as GeoJSON (arrival time, origin).
    #[arg(long, requires = "within")]
    geojson: Option<PathBuf>,
    /// With --matrix: cpu, gpu (the GPU engines: trees on the GPU, or the hierarchy's walks as a
    /// min-plus product on it) or auto (default: $URBANFLOW_BACKEND, else auto: the CPU unless a GPU is
    /// measured faster; see docs/performance.md).
    #[arg(long, requires = "matrix")]
    backend: Option<BackendChoice>,
    /// With --matrix: auto (default: one tree per origin for few origins, else bucket walks on a
    /// customisable hierarchy, or their min-plus product on a GPU: with --backend gpu, or under auto
    /// where this machine's GPU is predicted clearly faster), trees, buckets, min-plus or
    /// floyd-warshall.
    #[arg(long, requires = "matrix", default_value = "auto")]
    engine: Engine,
    /// With --osm: ignore turn restrictions and turn costs (by default cars and bicycles obey the
    /// file's `type=restriction` relations, U-turn only at dead ends and pay OSRM-style turn costs).
    #[arg(long, requires = "osm")]
    no_turns: bool,
    /// Answer --from/--to with bidirectional Dijkstra on the graph itself, preparing no hierarchy.
    #[arg(long, conflicts_with_all = ["matrix", "within"])]
    no_hierarchy: bool,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// A graph with the ids its file gives its vertices.
struct Input {
    graph: urbanflow::Csr<u32>,
    ids: Vec<i128>,
    from: u32,
    to: u32,
    /// With --matrix: the origins and destinations.
    matrix: Option<OdPoints>,
    /// With --origins: the isochrone's origins.
    origins: Option<Vec<u32>>,
    /// With --osm: the imported graph (coordinates for GeoJSON).
    osm: Option<OsmGraph>,
    /// With --osm and turns: `graph` is this turn graph; points are its source (from) and target (to)
    /// vertices, paths map back to road nodes through it.
    turns: Option<TurnGraph>,
    /// What the turns line says (with --osm).
    turns_line: Option<String>,
    what: String,
}

impl Input {
    /// The table's first lines: the graph (and how long reading it took) and the turn table, if any.
    fn print_header(&self, read_s: f64) {
        println!("graph      {} (read in {read_s:.2} s)", self.what);
        if let Some(line) = &self.turns_line {
            println!("turns      {line}");
        }
    }

    /// The file's id of a point: a road node, or with turns the node of a source or target vertex.
    fn point_id(&self, v: u32) -> i128 {
        match &self.turns {
            None => self.ids[v as usize],
            Some(t) => self.ids[t.terminal_node(v).expect("points are terminals") as usize],
        }
    }

    /// The file's ids of the nodes along a path of `graph` vertices.
    fn path_ids(&self, vertices: &[u32]) -> Vec<i128> {
        match &self.turns {
            None => vertices.iter().map(|&v| self.ids[v as usize]).collect(),
            Some(t) => t.path_nodes(vertices).iter().map(|&v| self.ids[v as usize]).collect(),
        }
    }

    /// Road nodes reached in an isochrone, with the distance and the origin (both `graph` vertices).
    fn reached_nodes<'a>(&'a self, reach: &'a Reach) -> Box<dyn Iterator<Item = (u32, u32, u32)> + 'a> {
        match &self.turns {
            None => Box::new(
                reach.vertices().into_iter().map(move |(v, d)| (v, d, reach.origin_of(v).expect("reached"))),
            ),
            Some(t) => Box::new((0..t.num_nodes()).filter_map(move |v| {
                let tv = t.target(v);
                let d = reach.dist[tv as usize];
                (d != urbanflow::sssp::UNREACHABLE).then(|| (v, d, reach.origin_of(tv).expect("reached")))
            })),
        }
    }
}

/// The origins and destinations of --matrix (graph vertices).
type OdPoints = (Vec<u32>, Vec<u32>);

/// The points of a --matrix file, each through `point` (which names what it could not place).
fn read_points(
    path: &std::path::Path,
    point: impl Fn(&str, &str) -> Result<u32, Error>,
) -> Result<Vec<u32>, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let what = format!("matrix point at {}:{}", path.display(), i + 1);
        out.push(point(line, &what)?);
    }
    if out.is_empty() {
        return Err(format!(
            "{}: no points (one vertex id, or LAT,LON with --osm, per line)",
            path.display()
        )
        .into());
    }
    Ok(out)
}

/// Both --matrix files.
fn read_matrix(
    files: Option<&Vec<PathBuf>>,
    point: impl Fn(&str, &str) -> Result<u32, Error>,
) -> Result<Option<OdPoints>, Error> {
    let Some(files) = files else { return Ok(None) };
    Ok(Some((read_points(&files[0], &point)?, read_points(&files[1], &point)?)))
}

fn read(args: &Args) -> Result<Input, Error> {
    if let Some(path) = &args.osm {
        let g = import(path, &OsmOptions::new(args.profile))?;
        let (turns, turns_line) = if crate::args::osm::turns_wanted(args.profile, args.no_turns) {
            let (t, line) = crate::args::osm::turn_graph(&g)?;
            (Some(t), line)
        } else {
            (
                None,
                format!("off ({} profile{})", args.profile, if args.no_turns { ", --no-turns" } else { "" }),
            )
        };
        let snap = |s: &str, what: &str| -> Result<u32, Error> {
            let (lat, lon) = crate::args::files::lat_lon(s, what)?;
            g.snap(lat, lon, args.snap_limit_m).map(|(v, _)| v).map_err(|e| format!("{what}: {e}").into())
        };
        // Routes start at a node's source vertex and end at a node's target vertex of the turn graph.
        let start = |v: u32| turns.as_ref().map_or(v, |t| t.source(v));
        let end = |v: u32| turns.as_ref().map_or(v, |t| t.target(v));
        // Only the points this run uses are placed (an isochrone has no --to, a matrix neither).
        let from = if args.matrix.is_some() || args.origins.is_some() {
            0
        } else {
            start(snap(&args.from, "--from")?)
        };
        let to =
            if args.matrix.is_some() || args.within.is_some() { 0 } else { end(snap(&args.to, "--to")?) };
        let origins =
            args.origins.as_ref().map(|f| read_points(f, |s, what| Ok(start(snap(s, what)?)))).transpose()?;
        let matrix = read_matrix(args.matrix.as_ref(), snap)?
            .map(|(o, d)| (o.into_iter().map(start).collect(), d.into_iter().map(end).collect()));
        let ids = g.osm_ids.iter().map(|&i| i as i128).collect();
        let what = format!(
            "{} ({} profile, milliseconds{})",
            path.display(),
            args.profile,
            if turns.is_some() { ", turn graph" } else { "" }
        );
        let graph = turns.as_ref().map_or_else(|| g.graph.clone(), |t| t.graph.clone());
        return Ok(Input {
            graph,
            ids,
            from,
            to,
            matrix,
            origins,
            osm: Some(g),
            turns,
            turns_line: Some(turns_line),
            what,
        });
    }
    let crate::args::graph::LoadedInput { path, loaded, .. } =
        args.input.load(crate::args::files::bundled_road_graph)?;
    let vertex = |s: &str, what: &str| -> Result<u32, String> {
        let id: u64 =
            s.trim().parse().map_err(|_| format!("{what} `{s}`: expected a vertex id of the file"))?;
        loaded.vertex(id).ok_or_else(|| format!("{what} {id}: no such vertex in {}", path.display()))
    };
    let from =
        if args.matrix.is_some() || args.origins.is_some() { 0 } else { vertex(&args.from, "--from")? };
    let to = if args.matrix.is_some() || args.within.is_some() { 0 } else { vertex(&args.to, "--to")? };
    let matrix = read_matrix(args.matrix.as_ref(), |s, what| Ok(vertex(s, what)?))?;
    let origins =
        args.origins.as_ref().map(|f| read_points(f, |s, what| Ok(vertex(s, what)?))).transpose()?;
    let ids = loaded.ids.iter().map(|&i| i as i128).collect();
    let what = path.display().to_string();
    Ok(Input {
        graph: loaded.graph,
        ids,
        from,
        to,
        matrix,
        origins,
        osm: None,
        turns: None,
        turns_line: None,
        what,
    })
}

pub fn run(args: Args) -> Result<(), Error> {
    let t = Instant::now();
    // A matrix on the GPU: its device starts (on its own thread) while the graph is read, which takes
    // about as long; the matrix step then finds it made (or waits for it).
    if args.matrix.is_some() && args.backend.map_or_else(BackendChoice::from_env, Ok)? == BackendChoice::Gpu {
        std::thread::spawn(|| {
            let _ = urbanflow::gpu::GpuContext::shared();
        });
    }
    let input = read(&args)?;
    let read_s = t.elapsed().as_secs_f64();
    let g = &input.graph;
    if let Some(budget) = args.within {
        return isochrone(&args, &input, budget, read_s);
    }
    if args.no_hierarchy {
        return bidirectional(&args, &input, read_s);
    }
    if let Some((origins, dests)) = &input.matrix {
        return matrix(&args, &input, (origins, dests), read_s);
    }
    let t = Instant::now();
    // The order (the slow part) comes from the cache folder when this graph was prepared before.
    let (cch, cache) = Cch::build_cached(g)?;
    let build_s = t.elapsed().as_secs_f64();
    let cache = cache.to_string();
    let t = Instant::now();
    let (ch, unpacking) = cch.customise_with_unpacking(g.weights())?;
    let customise_s = t.elapsed().as_secs_f64();
    let mut query = CchQuery::new(&ch)?;
    let t = Instant::now();
    let found = query.path(&ch, &unpacking, input.from, input.to)?;
    let query_s = t.elapsed().as_secs_f64();
    let (from_id, to_id) = (input.point_id(input.from), input.point_id(input.to));
    let Some((distance, arcs)) = found else {
        // Unreachable is an answer (exit 0), the same in every command: `"distance": null`, no path.
        if args.check {
            let stop = Stop { targets: Some(&[input.to]), ..Stop::default() };
            let (d, _) = dijkstra(g, input.from, &stop)?;
            if d[input.to as usize] != urbanflow::sssp::UNREACHABLE {
                return Err(format!(
                    "internal error: the hierarchy finds no path, Dijkstra {} ({from_id} → {to_id})",
                    d[input.to as usize]
                )
                .into());
            }
        }
        if args.json {
            let json = serde_json::json!({
                "graph": input.what, "from": from_id, "to": to_id, "distance": null, "path": [],
                "read_s": read_s, "cch_build_s": build_s, "cch_cache": cache, "customise_s": customise_s,
                "query_s": query_s, "checked": args.check, "turns": input.turns_line.as_deref().unwrap_or(""),
            });
            println!("{json}");
        } else {
            println!("route      {from_id} → {to_id}: unreachable (no path)");
        }
        return Ok(());
    };
    if args.check {
        let stop = Stop { targets: Some(&[input.to]), ..Stop::default() };
        let (d, _) = dijkstra(g, input.from, &stop)?;
        if d[input.to as usize] != distance {
            return Err(format!(
                "internal error: the hierarchy says {distance}, Dijkstra {} ({from_id} → {to_id})",
                d[input.to as usize]
            )
            .into());
        }
    }
    let mut vertices = vec![input.from];
    vertices.extend(arcs.iter().map(|&a| g.targets()[a as usize]));
    let path = input.path_ids(&vertices);
    if args.json {
        let json = serde_json::json!({
            "graph": input.what, "from": from_id, "to": to_id, "distance": distance, "path": path,
            "read_s": read_s, "cch_build_s": build_s, "cch_cache": cache, "customise_s": customise_s,
            "query_s": query_s, "checked": args.check, "turns": input.turns_line.as_deref().unwrap_or(""),
        });
        println!("{json}");
    } else {
        println!(
            "graph      {} ({} vertices, {} arcs, read in {read_s:.2} s)",
            input.what,
            g.num_vertices(),
            g.num_arcs()
        );
        if let Some(line) = &input.turns_line {
            println!("turns      {line}");
        }
        println!(
            "hierarchy  {build_s:.3} s ({cache}), customised in {customise_s:.3} s (once per graph and metric)"
        );
        println!(
            "route      {from_id} → {to_id}: distance {distance}, {} road arcs, query {:.1} µs",
            path.len() - 1,
            query_s * 1e6
        );
        let shown: Vec<String> = path.iter().take(12).map(i128::to_string).collect();
        println!("path       {}{}", shown.join(" "), if path.len() > 12 { " …" } else { "" });
    }
    Ok(())
}

/// --within: the isochrone of --from or --origins, by a bounded Dijkstra from all origins at once.
fn isochrone(args: &Args, input: &Input, budget: f64, read_s: f64) -> Result<(), Error> {
    let unit = if input.osm.is_some() { 60_000.0 } else { 1.0 };
    if !(budget.is_finite() && budget >= 0.0) || budget * unit >= (u32::MAX - 2) as f64 {
        return Err(format!(
            "--within {budget}: expected a number of {} from 0 below {:.0}",
            if input.osm.is_some() { "minutes" } else { "weight units" },
            (u32::MAX - 2) as f64 / unit
        )
        .into());
    }
    let limit = (budget * unit).floor() as u32;
    let origins = input.origins.clone().unwrap_or_else(|| vec![input.from]);
    let g = &input.graph;
    let t = Instant::now();
    let reach = within(g, &origins, limit)?;
    let within_s = t.elapsed().as_secs_f64();
    let id = |v: u32| input.ids[v as usize];
    if let Some(out) = &args.out {
        use std::io::Write;
        let file = std::fs::File::create(out).map_err(|e| format!("{}: cannot write: {e}", out.display()))?;
        let mut w = std::io::BufWriter::new(file);
        writeln!(w, "vertex,distance,origin")?;
        for (v, d, origin) in input.reached_nodes(&reach) {
            writeln!(w, "{},{d},{}", id(v), input.point_id(origin))?;
        }
        w.flush()?;
    }
    if let Some(file) = &args.geojson {
        let osm = input.osm.as_ref().ok_or("--geojson needs --osm (coordinates)")?;
        // Tree arcs into road-arc vertices of a turn graph draw that road arc.
        let road_arc = |v: u32| match &input.turns {
            None => None,
            Some(t) => t
                .base_arc
                .get(v as usize)
                .map(|&a| (osm.graph.arc_tails()[a as usize], osm.graph.targets()[a as usize])),
        };
        let features = reach.tree_arcs(g).filter_map(|(u, v, _)| {
            let ends = match &input.turns {
                None => (u, v),
                Some(_) => road_arc(v)?,
            };
            let origin = input.point_id(reach.origin_of(v).expect("reached"));
            Some(
                osm.path_feature(&[ends.0, ends.1])
                    .number("arrival_s", reach.dist[v as usize] as f64 / 1000.0)
                    .integer("origin_osm_node", origin as u64),
            )
        });
        std::fs::write(file, feature_collection(features)).map_err(|e| format!("{}: {e}", file.display()))?;
    }
    let reached = input.reached_nodes(&reach).count();
    let nodes = input.turns.as_ref().map_or(g.num_vertices(), TurnGraph::num_nodes);
    if args.json {
        let ids: Vec<_> = origins.iter().map(|&o| input.point_id(o)).collect();
        let json = serde_json::json!({
            "graph": input.what, "origins": ids, "within": budget, "budget": limit, "reached": reached,
            "vertices": nodes, "read_s": read_s, "within_s": within_s,
            "out": args.out.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
            "geojson": args.geojson.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
            "turns": input.turns_line.as_deref().unwrap_or(""),
        });
        println!("{json}");
    } else {
        input.print_header(read_s);
        println!(
            "isochrone  {reached} of {nodes} vertices within {budget}{} of {} origin(s), in {within_s:.4} s",
            if input.osm.is_some() { " min" } else { "" },
            origins.len()
        );
        for written in [&args.out, &args.geojson].into_iter().flatten() {
            println!("written    {}", written.display());
        }
    }
    Ok(())
}

/// --no-hierarchy: one route by bidirectional Dijkstra, no preparation but the reverse graph.
fn bidirectional(args: &Args, input: &Input, read_s: f64) -> Result<(), Error> {
    let g = &input.graph;
    let t = Instant::now();
    let mut q = BidirectionalQuery::new(g);
    let reverse_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let found = q.path(input.from, input.to)?;
    let query_s = t.elapsed().as_secs_f64();
    let (from_id, to_id) = (input.point_id(input.from), input.point_id(input.to));
    let Some(route) = found else {
        if args.json {
            let json = serde_json::json!({
                "graph": input.what, "from": from_id, "to": to_id, "distance": null, "path": [],
                "read_s": read_s, "engine": "bidirectional-dijkstra", "reverse_graph_s": reverse_s,
                "query_s": query_s, "turns": input.turns_line.as_deref().unwrap_or(""),
            });
            println!("{json}");
        } else {
            println!("route      {from_id} → {to_id}: unreachable (no path)");
        }
        return Ok(());
    };
    let path = input.path_ids(&route.vertices);
    if args.json {
        let json = serde_json::json!({
            "graph": input.what, "from": from_id, "to": to_id, "distance": route.distance, "path": path,
            "read_s": read_s, "engine": "bidirectional-dijkstra", "reverse_graph_s": reverse_s,
            "query_s": query_s, "turns": input.turns_line.as_deref().unwrap_or(""),
        });
        println!("{json}");
    } else {
        input.print_header(read_s);
        println!(
            "route      {from_id} → {to_id}: distance {}, {} road arcs, bidirectional Dijkstra {:.2} ms (reverse graph {:.2} ms)",
            route.distance,
            path.len() - 1,
            query_s * 1e3,
            reverse_s * 1e3
        );
        let shown: Vec<String> = path.iter().take(12).map(i128::to_string).collect();
        println!("path       {}{}", shown.join(" "), if path.len() > 12 { " …" } else { "" });
    }
    Ok(())
}

/// --out: `origin,destination,distance` rows in the file's ids, the distance empty where unreachable.
fn write_matrix(
    args: &Args,
    input: &Input,
    m: &DistanceMatrix,
    (origins, dests): (&[u32], &[u32]),
) -> Result<(), Error> {
    let Some(out) = &args.out else { return Ok(()) };
    use std::io::Write;
    let file = std::fs::File::create(out).map_err(|e| format!("{}: cannot write: {e}", out.display()))?;
    let mut w = std::io::BufWriter::new(file);
    writeln!(w, "origin,destination,distance")?;
    for (i, &o) in origins.iter().enumerate() {
        for (j, &d) in dests.iter().enumerate() {
            let (oid, did) = (input.point_id(o), input.point_id(d));
            match m.get(i, j) {
                urbanflow::sssp::UNREACHABLE => writeln!(w, "{oid},{did},")?,
                dist => writeln!(w, "{oid},{did},{dist}")?,
            }
        }
    }
    w.flush()?;
    Ok(())
}

/// --matrix: the library's matrix API on the graph as read (it prepares a hierarchy only when its
/// engine needs one), the report with the engine, its reason and its stages.
fn matrix(args: &Args, input: &Input, (origins, dests): (&[u32], &[u32]), read_s: f64) -> Result<(), Error> {
    let choice = args.backend.map_or_else(BackendChoice::from_env, Ok)?;
    let t = Instant::now();
    // A named GPU with an engine that wants a hierarchy: the hierarchy is prepared here while the device
    // finishes starting on its thread (begun in `run`), as long as each on NY; the library then finds
    // the hierarchy at hand. (Asked with the CPU, the library's choice wants a hierarchy exactly where,
    // with the GPU named, it takes the min-plus product.)
    let cpu_opts =
        MatrixOptions { backend: urbanflow::gpu::Backend::Cpu, engine: args.engine, ..Default::default() };
    let wants_hierarchy = matches!(
        urbanflow::sssp::matrix::engine_for(&input.graph, origins.len(), &cpu_opts).0,
        Engine::Buckets | Engine::MinPlus
    );
    let prepared = if choice == BackendChoice::Gpu && wants_hierarchy {
        Some(Cch::prepare_cached(&input.graph)?)
    } else {
        None
    };
    let prepare_s = t.elapsed().as_secs_f64();
    let backend = choice.backend()?;
    let opts = MatrixOptions {
        backend,
        engine: args.engine,
        hierarchy: prepared.as_ref().map(|p| &p.0),
        ..Default::default()
    };
    let mut run = distance_matrix(&input.graph, origins, dests, &opts)?;
    if let Some((_, how)) = &prepared {
        (run.hierarchy, run.preprocess_s) = (how.clone(), prepare_s);
    }
    let matrix_s = t.elapsed().as_secs_f64();
    let m = &run.matrix;
    // On all cores: 100 million entries at 10,000 × 10,000 take tens of milliseconds on one.
    let reached = {
        use rayon::prelude::*;
        m.data.par_iter().filter(|&&d| d != urbanflow::sssp::UNREACHABLE).count()
    };
    write_matrix(args, input, m, (origins, dests))?;
    let (rows, cols) = (origins.len(), dests.len());
    let device = run.device.clone().unwrap_or_default();
    if args.json {
        let mut json = serde_json::json!({
            "graph": input.what, "origins": rows, "destinations": cols, "reachable_pairs": reached,
            "engine": run.engine.name(), "engine_why": run.reason, "device": device,
            "hierarchy": run.hierarchy, "read_s": read_s, "preprocess_s": run.preprocess_s,
            "solve_s": run.solve_s, "matrix_s": matrix_s,
            "out": args.out.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
            "turns": input.turns_line.as_deref().unwrap_or(""),
        });
        if let Some(g) = &run.gpu_times {
            json["gpu"] = serde_json::json!({
                "walks_s": g.walks_s, "upload_s": g.upload_s, "kernel_s": g.kernel_s,
                "readback_s": g.readback_s, "result_gb_per_s": g.result_gb_per_s(),
            });
        }
        println!("{json}");
    } else {
        input.print_header(read_s);
        let on = if device.is_empty() { String::new() } else { format!(" on {device}") };
        println!("engine     {}{on}: {}", run.engine, run.reason);
        if !run.hierarchy.is_empty() {
            println!("hierarchy  {} in {:.3} s", run.hierarchy, run.preprocess_s);
        }
        if let Some(g) = &run.gpu_times {
            println!(
                "gpu        walks {:.3} s, upload {:.3} s, kernel and bus {:.3} s, host copy {:.3} s, result at {:.1} GB/s",
                g.walks_s,
                g.upload_s,
                g.kernel_s,
                g.readback_s,
                g.result_gb_per_s()
            );
        }
        println!(
            "matrix     {rows} × {cols} in {matrix_s:.3} s ({:.2} µs a pair), {reached} pairs reachable",
            matrix_s * 1e6 / (rows * cols).max(1) as f64
        );
        if let Some(out) = &args.out {
            println!("written    {}", out.display());
        }
    }
    Ok(())
}
