//! Accessibility and centrality of every vertex: opportunities within cutoffs, closeness, the nearest
//! points, betweenness.
//!
//! ```text
//! urbanflow access --osm ../shared/data/osm/porto/porto_portugal.osm.pbf --profile walk \
//!     --points jobs.csv --cutoffs 5,10,15 --out access.csv --map access.svg
//! urbanflow access --graph ny.gr.gz --points jobs.csv --cutoffs 2000,10000 --decay exp:0.0005
//! urbanflow access --osm porto.osm.pbf --closeness --cutoffs 20 --out closeness.csv
//! urbanflow access --graph bremen.gr.gz --betweenness --cutoff 60000 --sample 2000
//! ```
//! Points: `vertex,weight` (the graph file's ids) with `--graph`, `lat,lon,weight` with `--osm` (snapped
//! to the nearest vertex within `--snap-limit-m`); `weight` is optional. Cutoffs are minutes with
//! `--osm` (or metres with `--metric distance`), the graph's weight units with `--graph`. Rows:
//! `vertex,cutoff,count,sum,mean,min,max` (accessibility), `vertex,harmonic` or `vertex,cutoff,harmonic`
//! (`--closeness`; `gravity` with `--decay exp:β`), `vertex,rank,point_vertex,distance` (`--nearest K`),
//! `vertex,betweenness[,std_error]` (`--betweenness`), all in the file's vertex ids and the cutoffs'
//! units. `--out F.geojson` (with `--osm`) writes points with the values instead; `--map F.svg|F.png`
//! draws the first value column on the streets.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::Ordering;
use std::time::Instant;

use urbanflow::access::{
    AccessOptions, Accessibility, BetweennessOptions, Decay, Engine, Location, Opportunities, accessibility,
    betweenness, closeness, nearest, read_points, read_source_ids,
};
use urbanflow::gpu::BackendChoice;
use urbanflow::graph::Csr;
use urbanflow::graph::osm::{DEFAULT_SNAP_LIMIT_M, OsmGraph, OsmOptions, Profile, import};

use crate::outcome::{Error, Outcome};

/// Accessibility and centrality of every vertex: opportunities within cutoffs (count, decayed sum,
/// mean, min, max), harmonic or gravity closeness, the nearest points, betweenness.
///
/// Example: urbanflow access --osm porto.osm.pbf --profile walk --points jobs.csv --cutoffs 5,10,15 --out access.csv --map access.svg
///
/// The trees are reduced where they are: while a bounded search settles, after a CPU PHAST sweep, or on
/// the GPU right after each pass (only per-source results leave the device). `--engine auto` times the
/// engines on this run and says which it chose and why.
#[derive(clap::Args)]
#[command(version, after_help = crate::outcome::EXIT_CODES)]
pub struct Args {
    #[command(flatten)]
    graph: crate::args::graph::GraphArgs,
    /// An OpenStreetMap extract (.osm.pbf or .osm) instead of --graph: the road graph of --profile.
    #[arg(long, conflicts_with = "graph")]
    osm: Option<PathBuf>,
    /// With --osm: car, bike or walk.
    #[arg(long, default_value = "walk")]
    profile: Profile,
    /// With --osm: `time` (cutoffs in minutes) or `distance` (metres).
    #[arg(long, default_value = "time")]
    metric: String,
    /// With --osm: refuse points farther than this many metres from every vertex.
    #[arg(long, default_value_t = DEFAULT_SNAP_LIMIT_M)]
    snap_limit_m: f64,
    /// Points of interest: CSV with a header, `vertex[,weight]` (--graph) or `lat,lon[,weight]` (--osm).
    #[arg(long, value_parser = crate::args::files::input_file)]
    points: Option<PathBuf>,
    /// Cutoffs, ascending, comma-separated: minutes (--osm), metres (--metric distance) or the graph's
    /// weight units. Default for --closeness: none (everything reachable).
    #[arg(long, value_delimiter = ',')]
    cutoffs: Vec<f64>,
    /// flat, linear (1 − d/cutoff), exp:β (e^(−βd), β per cutoff unit), power:β (min(1, d^−β)) or harmonic (1/d).
    #[arg(long, default_value = "flat")]
    decay: String,
    /// Sources: `all` (default), N vertices drawn with --seed, or a CSV file with a `vertex` column.
    #[arg(long, default_value = "all")]
    sources: String,
    /// Seed of --sources N and of --sample.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Harmonic closeness (Σ 1/d over the vertices reached; with --decay exp:β the gravity closeness).
    #[arg(long, conflicts_with_all = ["betweenness", "nearest"])]
    closeness: bool,
    /// The K nearest points of every source (within the last cutoff, when given).
    #[arg(long, value_name = "K", conflicts_with = "betweenness")]
    nearest: Option<usize>,
    /// Betweenness of every vertex (Brandes; directed, unnormalised).
    #[arg(long)]
    betweenness: bool,
    /// With --betweenness: only pairs within this distance (the cutoffs' units).
    #[arg(long, requires = "betweenness")]
    cutoff: Option<f64>,
    /// With --betweenness: estimate from N sampled sources (with standard errors) instead of all.
    #[arg(long, requires = "betweenness")]
    sample: Option<usize>,
    /// auto (measured), search (bounded Dijkstra), sweep (CPU PHAST) or gpu.
    #[arg(long, default_value = "auto")]
    engine: Engine,
    /// cpu, gpu or auto: where --engine auto may use a GPU (default: $URBANFLOW_BACKEND, else auto).
    #[arg(long)]
    backend: Option<BackendChoice>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Rows as CSV (or GeoJSON points with --osm and a .geojson name).
    #[arg(long)]
    out: Option<PathBuf>,
    /// A map of the first value column on the streets (.svg, or .png with the pictures feature); --osm only.
    #[arg(long, requires = "osm")]
    map: Option<PathBuf>,
    /// Print one JSON object (the summary; rows go to --out).
    #[arg(long)]
    json: bool,
}

/// The graph, its ids, coordinates (with --osm), and how cutoffs convert to weight units.
struct Input {
    graph: Csr<u32>,
    ids: Vec<i128>,
    osm: Option<OsmGraph>,
    /// Weight units per cutoff unit.
    per_unit: f64,
    unit: &'static str,
    what: String,
    load_s: f64,
}

fn read_input(args: &Args) -> Result<Input, Error> {
    let t = Instant::now();
    if let Some(path) = &args.osm {
        let g = import(path, &OsmOptions::new(args.profile))?;
        let (graph, per_unit, unit) = match args.metric.as_str() {
            "time" => (g.graph.clone(), 60_000.0, "minutes"),
            "distance" => {
                let metres: Vec<u32> = g.length_m.iter().map(|&m| m.round() as u32).collect();
                (g.graph.with_weights(metres)?, 1.0, "metres")
            }
            other => return Err(format!("--metric `{other}`: expected time or distance").into()),
        };
        let ids = g.osm_ids.iter().map(|&i| i as i128).collect();
        let what = format!("{} ({} profile, {})", path.display(), args.profile, unit);
        return Ok(Input {
            graph,
            ids,
            osm: Some(g),
            per_unit,
            unit,
            what,
            load_s: t.elapsed().as_secs_f64(),
        });
    }
    let input = args.graph.load(crate::args::files::bundled_road_graph)?;
    let ids = input.loaded.ids.iter().map(|&i| i as i128).collect();
    let what = format!("{} ({} format)", input.path.display(), input.loaded.format);
    Ok(Input {
        graph: input.loaded.graph,
        ids,
        osm: None,
        per_unit: 1.0,
        unit: "weight units",
        what,
        load_s: input.load_s,
    })
}

/// A vertex of the file's ids.
fn vertex_of(ids: &[i128]) -> impl Fn(u64) -> Option<u32> + '_ {
    let index: std::collections::HashMap<i128, u32> =
        ids.iter().enumerate().map(|(v, &id)| (id, v as u32)).collect();
    move |id| index.get(&(id as i128)).copied()
}

fn read_opportunities(path: &Path, input: &Input, snap_limit_m: f64) -> Result<Opportunities, Error> {
    let records = read_points(path)?;
    let lookup = vertex_of(&input.ids);
    let mut points = Vec::with_capacity(records.len());
    for r in &records {
        let v = match (r.location, &input.osm) {
            (Location::Vertex(id), None) => lookup(id)
                .ok_or_else(|| format!("{}:{}: vertex {id} is not in the graph", path.display(), r.line))?,
            (Location::LatLon(lat, lon), Some(g)) => {
                g.snap(lat, lon, snap_limit_m).map_err(|e| format!("{}:{}: {e}", path.display(), r.line))?.0
            }
            (Location::Vertex(_), Some(_)) => {
                return Err(format!("{}: with --osm, points are `lat,lon[,weight]`", path.display()).into());
            }
            (Location::LatLon(..), None) => {
                return Err(format!("{}: with --graph, points are `vertex[,weight]`", path.display()).into());
            }
        };
        points.push((v, r.weight));
    }
    Ok(Opportunities::new(input.graph.num_vertices(), &points)?)
}

fn pick_sources(spec: &str, input: &Input, seed: u64) -> Result<Vec<u32>, Error> {
    let n = input.graph.num_vertices();
    if spec == "all" || spec.parse::<u32>().is_ok() {
        return crate::args::graph::pick_sources(spec, n, None, seed);
    }
    let lookup = vertex_of(&input.ids);
    read_source_ids(spec)?
        .into_iter()
        .map(|(id, line)| {
            lookup(id).ok_or_else(|| format!("{spec}:{line}: vertex {id} is not in the graph").into())
        })
        .collect()
}

/// Cutoffs in weight units, from the user's units.
fn to_weight_units(cutoffs: &[f64], per_unit: f64) -> Result<Vec<u32>, Error> {
    cutoffs
        .iter()
        .map(|&c| {
            let w = (c * per_unit).round();
            if !(c.is_finite() && c >= 0.0 && w < (u32::MAX - 1) as f64) {
                return Err(format!("--cutoffs {c}: expected a number ≥ 0 within the graph's range").into());
            }
            Ok(w as u32)
        })
        .collect()
}

pub fn run(args: Args) -> Result<Outcome, Error> {
    if let Some(t) = args.threads {
        rayon::ThreadPoolBuilder::new().num_threads(t).build_global()?;
    }
    let mut decay: Decay = args.decay.parse()?;
    let input = read_input(&args)?;
    // exp:β is per cutoff unit (per minute with --osm): the library's β is per weight unit.
    if let Decay::Exp(b) = decay {
        decay = Decay::Exp(b / input.per_unit);
    }
    let choice = match args.backend {
        Some(c) => c,
        None => BackendChoice::from_env()?,
    };
    let backend = choice.backend()?;
    let cutoffs = to_weight_units(&args.cutoffs, input.per_unit)?;
    let sources = pick_sources(&args.sources, &input, args.seed)?;
    let interrupt = crate::outcome::interrupt_flag();
    let total = if args.betweenness {
        args.sample.unwrap_or(input.graph.num_vertices() as usize)
    } else {
        sources.len()
    };
    let bar = Mutex::new(crate::progress::Progress::new("sources", total as u64, args.json));
    let progress = |done: usize, total: usize| {
        if let Ok(mut p) = bar.lock() {
            p.update_total(done as u64, total as u64, || format!("{done} of {total} sources"));
        }
        !interrupt.load(Ordering::SeqCst)
    };
    let t = Instant::now();
    let opts = AccessOptions {
        cutoffs: &cutoffs,
        decay,
        engine: args.engine,
        backend,
        hierarchy: None,
        progress: Some(&progress),
    };
    let mut summary = serde_json::json!({
        "graph": input.what,
        "n": input.graph.num_vertices(),
        "m": input.graph.num_arcs(),
        "load_s": input.load_s,
        "threads": rayon::current_num_threads(),
    });
    let unit = input.per_unit;
    let id = |v: u32| input.ids[v as usize];
    // Rows (header, then lines) and the per-vertex value the map draws.
    let mut header = String::new();
    // Each row with the vertex it describes (the GeoJSON output places it there).
    let mut lines: Vec<(u32, String)> = Vec::new();
    let mut map_values: Option<(Vec<f64>, String)> = None;
    let result = if args.betweenness {
        let cutoff = args.cutoff.map(|c| to_weight_units(&[c], unit)).transpose()?.map(|c| c[0]);
        let b = betweenness(
            &input.graph,
            &BetweennessOptions { cutoff, sample: args.sample, seed: args.seed, progress: Some(&progress) },
        );
        b.map(|b| {
            header =
                if b.std_error.is_some() { "vertex,betweenness,std_error" } else { "vertex,betweenness" }
                    .into();
            for v in 0..input.graph.num_vertices() {
                let se = b.std_error.as_ref().map(|s| format!(",{}", s[v as usize])).unwrap_or_default();
                lines.push((v, format!("{},{}{se}", id(v), b.value[v as usize])));
            }
            summary["kind"] = "betweenness".into();
            summary["sources_used"] = b.sources.into();
            summary["cutoff"] = args.cutoff.into();
            map_values = Some((b.value.clone(), "betweenness".into()));
        })
    } else if let Some(k) = args.nearest {
        let o = read_opportunities(
            args.points.as_ref().ok_or("--nearest needs --points")?,
            &input,
            args.snap_limit_m,
        )?;
        let near = nearest(&input.graph, &o, &sources, k, cutoffs.last().copied());
        near.map(|near| {
            header = "vertex,rank,point_vertex,distance".into();
            for (i, &s) in sources.iter().enumerate() {
                for (r, (p, d)) in near.of(i).enumerate() {
                    lines.push((s, format!("{},{},{},{}", id(s), r + 1, id(p), d as f64 / unit)));
                }
            }
            let mut first = vec![f64::NAN; input.graph.num_vertices() as usize];
            for (i, &s) in sources.iter().enumerate() {
                first[s as usize] = near.of(i).next().map_or(f64::NAN, |(_, d)| d as f64 / unit);
            }
            map_values = Some((first, format!("nearest point, {}", input.unit)));
            summary["kind"] = "nearest".into();
        })
    } else {
        let result = if args.closeness {
            closeness(&input.graph, &sources, &opts)
        } else {
            let path = args
                .points
                .as_ref()
                .ok_or("accessibility needs --points (or --closeness, --nearest K, --betweenness)")?;
            if args.cutoffs.is_empty() {
                return Err("accessibility needs --cutoffs".into());
            }
            let o = read_opportunities(path, &input, args.snap_limit_m)?;
            summary["points"] = o.num_points().into();
            accessibility(&input.graph, &o, &sources, &opts)
        };
        result.map(|a| {
            rows(&a, &args, &sources, unit, &id, &mut header, &mut lines);
            let mut values = vec![f64::NAN; input.graph.num_vertices() as usize];
            let last = a.cutoffs.len() - 1;
            for (i, &s) in sources.iter().enumerate() {
                values[s as usize] = a.sum(i, last);
            }
            let label = if args.closeness {
                "closeness".to_string()
            } else {
                format!("{} within {} {}", if decay == Decay::Flat { "sum" } else { "decayed sum" }, args.cutoffs[last], input.unit)
            };
            map_values = Some((values, label));
            summary["kind"] = if args.closeness { "closeness" } else { "accessibility" }.into();
            summary["engine"] = a.stats.engine.to_string().into();
            summary["why"] = a.stats.why.clone().into();
            summary["hierarchy"] = a.stats.hierarchy.clone().into();
            summary["device"] = a.stats.device.clone().into();
            summary["preprocess_s"] = a.stats.preprocess_s.into();
            summary["setup_s"] = a.stats.setup_s.into();
            summary["solve_s"] = a.stats.solve_s.into();
            summary["sources_by_engine"] =
                serde_json::json!({"search": a.stats.sources_by_engine[0], "sweep": a.stats.sources_by_engine[1], "gpu": a.stats.sources_by_engine[2]});
        })
    };
    if let Ok(p) = bar.into_inner() {
        p.finish();
    }
    match result {
        Err(urbanflow::access::AccessError::Cancelled { done, total }) => {
            return Ok(Outcome::Interrupted(format!("after {done} of {total} sources; nothing written")));
        }
        r => r?,
    }
    let wall_s = t.elapsed().as_secs_f64();
    summary["sources"] = sources.len().into();
    summary["decay"] = args.decay.clone().into();
    summary["cutoffs"] = args.cutoffs.clone().into();
    summary["unit"] = input.unit.into();
    summary["wall_s"] = wall_s.into();
    summary["rows"] = lines.len().into();
    if let Some(out) = &args.out {
        write_rows(out, &header, &lines, &input)?;
        summary["out"] = out.display().to_string().into();
    }
    if let (Some(path), Some(g), Some((values, label))) = (&args.map, &input.osm, &map_values) {
        let title = format!("{label} — {}", input.what);
        let svg = urbanflow::access::picture::map_svg(&input.graph, &g.coords, values, &title, label);
        write_picture(path, &svg)?;
        summary["map"] = path.display().to_string().into();
    }
    if args.json {
        println!("{summary}");
    } else {
        println!(
            "graph     {} ({} vertices, {} arcs, read in {:.2} s)",
            input.what,
            input.graph.num_vertices(),
            input.graph.num_arcs(),
            input.load_s
        );
        if let Some(e) = summary.get("engine") {
            println!("engine    {} — {}", e.as_str().unwrap_or(""), summary["why"].as_str().unwrap_or(""));
            let h = summary["hierarchy"].as_str().unwrap_or("");
            if !h.is_empty() {
                println!("hierarchy {h} in {:.2} s", summary["preprocess_s"].as_f64().unwrap_or(0.0));
            }
        }
        println!("sources   {} in {wall_s:.2} s", sources.len());
        match &args.out {
            Some(out) => println!("rows      {} written to {}", lines.len(), out.display()),
            None => {
                let mut stdout = std::io::stdout().lock();
                writeln!(stdout, "{header}")?;
                for (_, l) in lines.iter().take(20) {
                    writeln!(stdout, "{l}")?;
                }
                if lines.len() > 20 {
                    writeln!(stdout, "... {} more rows (--out F.csv writes them all)", lines.len() - 20)?;
                }
            }
        }
        if let Some(m) = &args.map {
            println!("map       {}", m.display());
        }
    }
    Ok(Outcome::Done)
}

/// Accessibility or closeness rows.
fn rows(
    a: &Accessibility,
    args: &Args,
    sources: &[u32],
    unit: f64,
    id: &dyn Fn(u32) -> i128,
    header: &mut String,
    lines: &mut Vec<(u32, String)>,
) {
    let opt = |x: Option<f64>| x.map_or(String::new(), |v| v.to_string());
    if args.closeness {
        let name = if matches!(a.decay, Decay::Exp(_)) { "gravity" } else { "harmonic" };
        *header =
            if args.cutoffs.is_empty() { format!("vertex,{name}") } else { format!("vertex,cutoff,{name}") };
        for (i, &s) in sources.iter().enumerate() {
            for (c, &cut) in a.cutoffs.iter().enumerate() {
                if args.cutoffs.is_empty() {
                    lines.push((s, format!("{},{}", id(s), a.sum(i, c))));
                } else {
                    lines.push((s, format!("{},{},{}", id(s), cut as f64 / unit, a.sum(i, c))));
                }
            }
        }
        return;
    }
    *header = "vertex,cutoff,count,sum,mean,min,max".into();
    for (i, &s) in sources.iter().enumerate() {
        for (c, &cut) in a.cutoffs.iter().enumerate() {
            lines.push((
                s,
                format!(
                    "{},{},{},{},{},{},{}",
                    id(s),
                    cut as f64 / unit,
                    a.count(i, c),
                    a.sum(i, c),
                    opt(a.mean(i, c)),
                    opt(a.min(i, c)),
                    opt(a.max(i, c))
                ),
            ));
        }
    }
}

fn write_rows(path: &Path, header: &str, lines: &[(u32, String)], input: &Input) -> Result<(), Error> {
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut w = std::io::BufWriter::new(file);
    let geojson = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("geojson"));
    match (&input.osm, geojson) {
        (Some(g), true) => {
            // Points at each row's vertex, the row's fields as properties (numbers, null where empty;
            // the first column is the OSM node id), written by serde_json.
            let names: Vec<&str> = header.split(',').collect();
            let features: Vec<serde_json::Value> = lines
                .iter()
                .map(|(v, l)| {
                    let (lat, lon) = g.coords[*v as usize];
                    let props: serde_json::Map<String, serde_json::Value> = names
                        .iter()
                        .zip(l.split(','))
                        .map(|(n, f)| {
                            let value = f
                                .parse::<f64>()
                                .ok()
                                .map_or(serde_json::Value::Null, serde_json::Value::from);
                            (n.to_string(), value)
                        })
                        .collect();
                    serde_json::json!({
                        "type": "Feature",
                        "geometry": {"type": "Point", "coordinates": [lon, lat]},
                        "properties": props,
                    })
                })
                .collect();
            serde_json::to_writer(
                &mut w,
                &serde_json::json!({"type": "FeatureCollection", "features": features}),
            )?;
            writeln!(w)?;
        }
        (None, true) => return Err("--out F.geojson needs --osm (coordinates)".into()),
        _ => {
            writeln!(w, "{header}")?;
            for (_, l) in lines {
                writeln!(w, "{l}")?;
            }
        }
    }
    w.flush()?;
    Ok(())
}

fn write_picture(path: &Path, svg: &str) -> Result<(), Error> {
    let png = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("png"));
    if png {
        #[cfg(feature = "full")]
        {
            let bytes = urbanflow::tap::picture::svg_to_png(svg, 1.5)?;
            std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            return Ok(());
        }
        #[cfg(not(feature = "full"))]
        return Err("--map F.png needs the pictures feature: write F.svg".into());
    }
    std::fs::write(path, svg).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(())
}
