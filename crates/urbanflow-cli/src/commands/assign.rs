//! Static user-equilibrium traffic assignment of a TNTP network.
//!
//! ```text
//! urbanflow assign                      # the bundled Sioux Falls network
//! urbanflow assign --net ../shared/data/tntp/Chicago-Sketch/ChicagoSketch_net.tntp \
//!     --trips ../shared/data/tntp/Chicago-Sketch/ChicagoSketch_trips.tntp.xz \
//!     --toll-factor 0.02 --distance-factor 0.04 --algorithm bfw --gap 1e-5 --json
//! ```
//! Without `--json` it shows a progress bar and prints the convergence table; `--json` prints one JSON
//! object (final gaps, objective, TSTT, SPTT, iterations, solve time and the per-iteration history).
//! `--flows-out F` writes link flows and costs (CSV when F ends in `.csv`, else TNTP `_flow` format).
//! `--select-link 10-15,15-10` writes the OD flows using those links to `--select-out F.csv`.
//! `--links-out F.csv` adds capacity, V/C, time and delay per link; `--skims F.csv` (or `F.omx`) writes
//! zone-to-zone time, distance, toll and cost along the final shortest paths. `--trips` takes a TNTP
//! trips file or an OMX matrix (`--core`, `--mapping`). Pictures: `--plot F.svg` (relative gap per iteration), `--map F.svg` (links from the `_node` file's
//! coordinates, width by flow, colour by volume/capacity) and `--geojson F` (links with their results).

use crate::outcome::Error;

use std::path::{Path, PathBuf};
use std::time::Instant;

use urbanflow::gpu::BackendChoice;
use urbanflow::tap::multiclass::{assign_classes, read_classes};
use urbanflow::tap::nodes::read_node_tntp;
use urbanflow::tap::output::write_link_results_csv;
use urbanflow::tap::picture::{convergence_svg, flow_map_svg, links_geojson, svg_to_png};
use urbanflow::tap::skim::skims;
use urbanflow::tap::solve::{choose_cpu_trees, choose_loader};
use urbanflow::tap::turns::write_turn_flows_csv;
use urbanflow::tap::{AssignOptions, Assignment, IterationLog, assign_with_progress};

use crate::progress::RowThinning;

/// Static traffic assignment of a TNTP network: user equilibrium (or system optimum) by MSA, Frank–Wolfe,
/// conjugate and bi-conjugate Frank–Wolfe, or Algorithm B.
///
/// Example: urbanflow assign --net ChicagoSketch_net.tntp --algorithm b --gap 1e-8 --json
///
/// Without arguments it solves the bundled Sioux Falls network to a relative gap of 1e-4 and prints the
/// convergence table.
#[derive(clap::Args)]
#[command(version, after_help = crate::outcome::EXIT_CODES)]
pub struct Args {
    #[command(flatten)]
    model: crate::args::model::ModelArgs,
    /// Where all-or-nothing loading runs: cpu (f64, rayon), gpu (fixed-point costs; gaps floor near
    /// 1e-6) or auto (default: $URBANFLOW_BACKEND, else auto: a GPU only where one was measured faster
    /// for a network this large; the output says which and why).
    #[arg(long)]
    backend: Option<BackendChoice>,
    /// Which GPU: `all` (every hardware GPU), indices such as `0,1`, or parts of adapter names. Of
    /// several, the first loads: splitting origins over GPUs was measured slower than one on every
    /// network (docs/benchmarks.md); the output says so. Implies `--backend gpu`.
    #[arg(long)]
    gpus: Option<urbanflow::gpu::devices::DeviceSelection>,
    /// How all-or-nothing trees are grown: dijkstra (per origin; the batched kernel on a GPU), phast
    /// (a customisable contraction hierarchy re-customised every iteration, PHAST sweeps; on the CPU in
    /// the GPU's fixed point) or auto (default: phast on a GPU; on the CPU phast where measured faster,
    /// dijkstra on small networks, below gap 1e-7 and for select-link: the output says which and why).
    #[arg(long, default_value = "auto")]
    trees: urbanflow::sssp::many::Method,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Write link flows and costs here (`.csv` for CSV, else TNTP `_flow` format; `.gz`/`.xz` compress).
    #[arg(long)]
    flows_out: Option<PathBuf>,
    /// Write per-link results as CSV: flow, cost, capacity, V/C, free-flow time, time and delay.
    #[arg(long)]
    links_out: Option<PathBuf>,
    /// Write zone-to-zone skims (time, distance, toll, generalised cost along the final shortest paths):
    /// CSV rows, or an OMX file with one core each (`.omx`, feature `omx`).
    #[arg(long, alias = "skims-out")]
    skims: Option<PathBuf>,
    /// Several user classes in one equilibrium: a class file (one class per line: name, PCE, demand share
    /// of --trips or a trips file, toll factor, distance factor, banned FROM-TO links or -; see
    /// `tap::multiclass::read_classes`). Flows and pictures are then totals in PCE units.
    #[arg(long, value_parser = crate::args::files::input_file)]
    classes: Option<PathBuf>,
    /// Select-link analysis: links as FROM-TO node numbers, comma-separated (e.g. 10-15,15-10); writes
    /// the OD flows that use each one to --select-out.
    #[arg(long)]
    select_link: Option<String>,
    /// CSV of the select-link OD flows: `link_from,link_to,origin,destination,flow` (non-zero flows).
    #[arg(long, default_value = "select_link.csv")]
    select_out: PathBuf,
    #[command(flatten)]
    turn_args: crate::args::model::TurnArgs,
    /// With turns: write turning-movement flows as CSV (`node,from_link,to_link,volume,penalty`).
    #[arg(long)]
    turn_flows_out: Option<PathBuf>,
    /// Write the convergence chart (relative gap per iteration, log scale) as SVG, or PNG for a .png name.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// Write a map of the network (width by flow, colour by volume/capacity) as SVG or PNG; needs node
    /// coordinates (--nodes, or the `_node.tntp` file beside the network).
    #[arg(long)]
    map: Option<PathBuf>,
    /// Write the links with flow, cost, V/C and delay as GeoJSON (needs node coordinates, like --map).
    #[arg(long)]
    geojson: Option<PathBuf>,
    /// TNTP `_node` file (node, x, y) for --map and --geojson; default: the one beside the network.
    #[arg(long, value_parser = crate::args::files::input_file)]
    nodes: Option<PathBuf>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

/// The table's head: the network, the demand, and where loading runs.
fn print_head(
    net_path: &Path,
    net: &urbanflow::tap::Network,
    demand: &urbanflow::tap::Demand,
    load_s: f64,
    trips_cached: bool,
    loader: &str,
    loader_why: &str,
) {
    println!(
        "{}: {} nodes, {} links, {} zones; {:.1} trips from {} origins ({:.1} intrazonal not assigned); read in {load_s:.3} s{}",
        net_path.display(),
        net.num_nodes(),
        net.num_links(),
        net.num_zones(),
        demand.total(),
        demand.num_origins(),
        demand.intrazonal(),
        if trips_cached {
            " (trips parsed by an earlier run, from the cache; --no-cache reads the text)"
        } else {
            ""
        }
    );
    println!("all-or-nothing loading on {loader}: {loader_why}");
}

/// One row of the convergence table.
fn table_row(h: &IterationLog) -> String {
    format!(
        "{:>6} {:>10.4} {:>14.3e} {:>14.3e} {:>20.6}",
        h.iteration, h.seconds, h.relative_gap, h.average_excess_cost, h.objective
    )
}

/// The `_node` file beside a `_net` file (same name with `_net` → `_node`, any compression).
fn nodes_beside(net: &Path) -> Result<PathBuf, Error> {
    let found = urbanflow::graph::io::tntp::companion(net, "node");
    Ok(found.ok_or_else(|| {
        format!("no node coordinates beside {} for --map/--geojson: pass --nodes", net.display())
    })?)
}

pub fn run(args: Args) -> Result<crate::outcome::Outcome, Error> {
    // Ctrl-C from here on stops the solve at the end of its iteration; every output below is then
    // written from that last whole iteration, and the run exits 130.
    let interrupt = crate::outcome::interrupt_flag();
    if let Some(n) = args.threads {
        rayon::ThreadPoolBuilder::new().num_threads(n).build_global()?;
    }
    // The commands' one rule: the flag, else $URBANFLOW_BACKEND, else auto (tap::solve::choose_loader:
    // a GPU only where one was measured faster for a network this large).
    let choice = match args.backend {
        Some(c) => c,
        None if args.gpus.is_some() => BackendChoice::Gpu,
        None => BackendChoice::from_env()?,
    };
    let (net_path, trips_path) = args.model.files()?;
    // The device starts while the files are read; `load_s` is the reading alone.
    let (devices, (read, read_s)) = crate::devices::read_beside_devices(choice, args.gpus.as_ref(), || {
        let t = Instant::now();
        let read = args.model.read(&net_path, &trips_path);
        (read, t.elapsed().as_secs_f64())
    });
    let devices = devices?;
    let (net, demand, trips_cached) = read?;
    let backend = match devices.first() {
        Some(ctx) => urbanflow::Backend::Gpu(ctx),
        None => choice.backend()?,
    };
    let t = Instant::now();
    // With turns the assignment runs on the expanded network; outputs speak of `net`'s links.
    let expanded = args.turn_args.expand(&net_path, &net)?;
    let model = expanded.as_ref().map_or(&net, |(e, _)| &e.network);
    let load_s = read_s + t.elapsed().as_secs_f64();
    if args.turn_flows_out.is_some() && expanded.is_none() {
        return Err(
            "--turn-flows-out needs turns (--turns FILE, or a _turns.tntp file beside the network)".into()
        );
    }
    let select_links = match &args.select_link {
        None => Vec::new(),
        Some(list) => net.links_named(list).map_err(|e| format!("--select-link: {e}"))?,
    };
    let opts = AssignOptions {
        backend,
        devices: &devices,
        select_links,
        trees: args.trees,
        cancel: Some(interrupt),
        ..args.model.options()
    };
    let classes =
        args.classes.as_ref().map(|f| read_classes(f, &net, &demand)).transpose()?.unwrap_or_default();
    // What loads, why, and the trees it grows ("dijkstra" or "phast").
    let (mut loader, mut loader_why, trees, raced) = if args.classes.is_some() {
        // Classes load on the CPU; the work counts every class's origins (the class file's shares of
        // the trips keep the trips' origins).
        let work = classes.iter().map(|c| c.demand.num_origins() as u64 * model.num_links() as u64).sum();
        let (hierarchy, why) = choose_cpu_trees(work, &opts);
        let cpu = urbanflow::gpu::Resolved::Cpu;
        let loader = if hierarchy { format!("{cpu}, cch+phast trees") } else { cpu.to_string() };
        let why = if opts.algorithm == urbanflow::tap::Algorithm::AlgorithmB {
            format!(
                "several classes run on the CPU, Algorithm B with one set of bushes per class; trees: {why}"
            )
        } else {
            format!("several classes load on the CPU; trees: {why}")
        };
        (loader, why, if hierarchy { "phast" } else { "dijkstra" }, false)
    } else {
        let c = choose_loader(model, &demand, &opts);
        let trees = match (c.devices.is_empty(), c.cpu_hierarchy, args.trees) {
            (true, true, _)
            | (false, _, urbanflow::sssp::many::Method::Phast | urbanflow::sssp::many::Method::Auto) => {
                "phast"
            }
            _ => "dijkstra",
        };
        (c.describe(), c.why, trees, c.race)
    };

    // A bar on a terminal, a line every few seconds in a log (hidden with --json).
    let mut bar = crate::progress::Progress::new("assignment", 1000, args.json);
    // The table's head now and its rows as the iterations end, so that a pipe (`| tee log`) shows the
    // run as it goes.
    let mut thinning = RowThinning::new();
    let turn_summary = expanded.as_ref().map(|(e, table)| crate::args::model::turns_summary(&net, e, table));
    if !args.json {
        print_head(&net_path, &net, &demand, load_s, trips_cached, &loader, &loader_why);
        if let Some(line) = &turn_summary {
            println!("turns {line}");
        }
        println!(
            "{:>6} {:>10} {:>14} {:>14} {:>20}",
            "iter", "seconds", "relative gap", "avg excess", "objective"
        );
    }
    // Progress is the gap's way down from 1 to the target on a log scale.
    let target_log = args.model.gap.max(1e-16).log10();
    let clock = crate::devices::SetupClock::start(&devices);
    let t = Instant::now();
    let mut class_table = Vec::new();
    let result = match &args.classes {
        None => assign_with_progress(model, &demand, &opts, |log: &IterationLog| {
            let done = (log.relative_gap.max(1e-16).log10() / target_log).clamp(0.0, 1.0);
            bar.update((done * 1000.0) as u64, || {
                format!("iteration {} gap {:.3e}", log.iteration, log.relative_gap)
            });
            if !args.json && thinning.due(log.iteration) {
                bar.println(&table_row(log));
            }
        })?,
        Some(file) => {
            if args.skims.is_some() || args.select_link.is_some() {
                return Err("--classes: skims and select-link are computed for one class only".into());
            }
            let mut classes = classes.clone();
            if let Some((e, table)) = &expanded {
                for name in e.class_names() {
                    if !classes.iter().any(|c| c.name == name) {
                        return Err(format!(
                            "{}: class `{name}` is not in --classes {}",
                            table.path.display(),
                            file.display()
                        )
                        .into());
                    }
                }
                classes = classes.iter().map(|c| e.class(c)).collect();
            }
            let r = assign_classes(model, &classes, &opts)?;
            for (spec, c) in classes.iter().zip(&r.classes) {
                let cost: f64 =
                    c.vehicles.iter().zip(&c.costs).filter(|(v, _)| **v > 0.0).map(|(v, k)| v * k).sum();
                class_table.push((c.name.clone(), spec.pce, spec.demand.total(), cost));
            }
            Assignment {
                flows: r.pce_flows,
                costs: r.costs,
                history: r.history,
                converged: r.converged,
                select_link: Vec::new(),
                loaded_by: loader.clone(),
            }
        }
    };
    let (setup_s, solve_s) = clock.split(t.elapsed().as_secs_f64(), &devices);
    bar.finish();
    // Skims follow the shortest paths of the model (with turns: turn penalties and bans included).
    if let Some(out) = &args.skims {
        let s = skims(model, &result.flows, &result.costs)?;
        crate::args::matrices::write_skims(out, model, &s)?;
    }
    // Turning flows, then the results cut to the network's own links for every output below.
    let result = match &expanded {
        None => result,
        Some((e, _)) => {
            let turning = e.turn_flows(&result.flows);
            if let Some(out) = &args.turn_flows_out {
                write_turn_flows_csv(out, &net, &turning).map_err(|e| format!("{}: {e}", out.display()))?;
            }
            Assignment {
                flows: e.link_flows(&result.flows).to_vec(),
                costs: e.link_flows(&result.costs).to_vec(),
                ..result
            }
        }
    };
    if let Some(out) = &args.flows_out {
        crate::args::model::write_flows(out, &net, &result.flows, &result.costs)?;
    }
    let title = format!(
        "{} — {} to relative gap {:.1e}",
        net_path.file_name().map_or("network".into(), |n| n.to_string_lossy().into_owned()),
        args.model.algorithm,
        result.last().relative_gap
    );
    let write = |path: &Path, text: String| {
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    // Pictures as SVG, or PNG (twice the SVG's pixel size) when the file name ends in .png.
    let picture = |path: &Path, svg: String| {
        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("png")) {
            let png = svg_to_png(&svg, 2.0).map_err(|e| format!("{}: {e}", path.display()))?;
            std::fs::write(path, png).map_err(|e| format!("{}: {e}", path.display()))
        } else {
            write(path, svg)
        }
    };
    if let Some(out) = &args.plot {
        picture(out, convergence_svg(&result.history, &title))?;
    }
    if let Some(out) = &args.links_out {
        write_link_results_csv(out, &net, &result.flows, &result.costs)
            .map_err(|e| format!("{}: {e}", out.display()))?;
    }
    if !result.select_link.is_empty() {
        let mut csv = String::from("link_from,link_to,origin,destination,flow\n");
        for s in &result.select_link {
            let l = &net.links()[s.link as usize];
            for ((o, d, _), &f) in demand.pairs().zip(&s.pair_flows) {
                if f > 0.0 {
                    csv += &format!(
                        "{},{},{},{},{f}\n",
                        net.node_id(l.from),
                        net.node_id(l.to),
                        net.node_id(o),
                        net.node_id(d)
                    );
                }
            }
        }
        write(&args.select_out, csv)?;
    }
    if args.map.is_some() || args.geojson.is_some() {
        let nodes_path = match &args.nodes {
            Some(p) => p.clone(),
            None => nodes_beside(&net_path)?,
        };
        let coords = read_node_tntp(&nodes_path, &net)?;
        if let Some(out) = &args.map {
            picture(out, flow_map_svg(&net, &coords, &result.flows, &title))?;
        }
        if let Some(out) = &args.geojson {
            write(out, links_geojson(&net, &coords, &result.flows, &result.costs))?;
        }
    }
    let last = result.last();
    let outcome = if interrupt.load(std::sync::atomic::Ordering::SeqCst) && !result.converged {
        crate::outcome::Outcome::Interrupted(format!(
            "stopped after iteration {} (relative gap {:.3e}); the results and files written are that iteration's",
            result.history.len(),
            last.relative_gap
        ))
    } else {
        crate::outcome::Outcome::missed_if(args.model.missed(&result))
    };
    let interrupted = matches!(outcome, crate::outcome::Outcome::Interrupted(_));
    if raced {
        // Auto's race decided during the run: where the loads ran, and the times it measured.
        let (on, why) = result.loaded_by.split_once("; ").unwrap_or((&result.loaded_by, ""));
        (loader, loader_why) = (on.to_string(), why.to_string());
    }
    if args.json {
        let mut json = crate::args::model::assignment_json(
            (&net_path, &trips_path),
            &args.model,
            loader.clone(),
            (&net, &result),
            load_s,
            solve_s,
        );
        json["trees"] = trees.into();
        json["setup_s"] = setup_s.into();
        // Whether the trip table came parsed from the cache folder (a run before parsed it).
        json["trips_cached"] = trips_cached.into();
        if args.classes.is_some() {
            // Flows are passenger-car equivalents and each class has its own factors: the class
            // table carries the generalised costs; the totals keep the PCE-weighted time and distance.
            json["total_generalised_cost"] = serde_json::Value::Null;
        }
        json["backend_why"] = loader_why.into();
        json["interrupted"] = interrupted.into();
        json["turns"] = turn_summary.clone().unwrap_or_default().into();
        json["classes"] = class_table
            .iter()
            .map(|(name, pce, trips, cost)| {
                serde_json::json!({ "name": name, "pce": pce, "trips": trips, "total_cost": cost })
            })
            .collect();
        println!("{json}");
        return Ok(outcome);
    }
    // The rows the run did not print as it went: all of them for classes (solved without a
    // callback), else the last one when thinning skipped it.
    for h in &result.history {
        if (args.classes.is_some() && thinning.due(h.iteration))
            || (h.iteration as usize == result.history.len() && thinning.last_missing(h.iteration))
        {
            println!("{}", table_row(h));
        }
    }
    if raced {
        println!("all-or-nothing loading ran on {loader}: {loader_why}");
    }
    let n = result.history.len();
    println!(
        "{} after {n} iterations in {solve_s:.3} s ({} threads): relative gap {:.3e}, objective {:.6}, TSTT {:.6}, SPTT {:.6}",
        if result.converged {
            "converged"
        } else if interrupted {
            "interrupted (Ctrl-C)"
        } else {
            "stopped"
        },
        rayon::current_num_threads(),
        last.relative_gap,
        last.objective,
        last.tstt,
        last.sptt
    );
    if setup_s > 0.0 {
        println!("GPU setup {setup_s:.3} s (device and pipelines; not in the time above)");
    }
    for (name, pce, trips, cost) in &class_table {
        println!("class {name:<10} PCE {pce:<5} {trips:>12.1} trips, total cost {cost:.3}");
    }
    if let Some(out) = &args.flows_out {
        println!("link flows written to {}", out.display());
    }
    Ok(outcome)
}
