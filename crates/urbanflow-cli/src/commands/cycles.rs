//! Every chordless (induced) cycle of a graph.
//!
//! ```text
//! urbanflow cycles --generate grid:6x10 --count-only --json
//! urbanflow cycles --graph examples/data/SiouxFalls_net.tntp --out cycles.txt
//! ```

use crate::outcome::Error;

use std::io::Write;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use urbanflow::cycles::{
    ChordlessOptions, CycleStats, LevelsConfig, Ran, SimpleGraph, Simplify, chordless_cycles,
    chordless_cycles_gpu_with, chordless_cycles_on,
};
use urbanflow::gpu::{BackendChoice, GpuContext};
use urbanflow::graph::generators;
use urbanflow::graph::io::{GraphFormat, LoadOptions, load_graph};

/// Every chordless cycle of an undirected graph (cycles with no chord), each once: count, lengths, and
/// the cycles themselves.
///
/// Example: urbanflow cycles --generate grid:6x10 --count-only
///
/// Graph files are read as undirected: both directions of an edge (the usual way road graphs are
/// stored) count once, self-loops are dropped, and the report says what was merged. `--out` writes
/// one cycle per line in the file's own vertex ids. `--backend serial` is the depth-first search on
/// one thread; `cpu` counts on every core (`--count-only`, else one thread); `gpu` expands all paths
/// level by level on the GPU; `auto` (the default) finishes small graphs with a short sequential probe,
/// and counts larger ones on every core while starting a GPU measured faster than the CPU, which takes
/// over if the CPU is not done by the time it is ready (listing stays on the CPU). `setup_s` in the JSON
/// is the time spent starting an explicitly chosen GPU, not included in `solve_s`.
#[derive(clap::Args)]
#[command(version, after_help = crate::outcome::EXIT_CODES)]
pub struct Args {
    /// Graph file (DIMACS, PACE, edge list, TNTP _net; plain, .gz or .xz).
    #[arg(long, value_parser = crate::args::files::input_file, conflicts_with = "generate")]
    graph: Option<PathBuf>,
    /// The file's format: auto, dimacs, dimacs0, pace, edges or tntp.
    #[arg(long, default_value = "auto")]
    format: GraphFormat,
    /// grid:RxC, grid3:AxBxC, hypercube:D, complete:N, bipartite:M,N, wheel:N, petersen or gnp:N,P,SEED.
    #[arg(long)]
    generate: Option<String>,
    /// Shortest cycle to report (at least 3).
    #[arg(long, default_value_t = 3)]
    min_len: u32,
    /// Longest cycle to report.
    #[arg(long)]
    max_len: Option<u32>,
    /// Stop after this many cycles.
    #[arg(long)]
    limit: Option<u64>,
    /// Count only (no cycle is kept or written).
    #[arg(long)]
    count_only: bool,
    /// serial, cpu, gpu or auto (default: auto, or URBANFLOW_BACKEND).
    #[arg(long)]
    backend: Option<String>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Write the cycles here, one per line.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// With --backend gpu: MiB of the two path stacks on the device (default: the library's, 1 GiB on
    /// a GPU). Smaller stacks never change the cycles found, only how levels are cut into chunks.
    #[arg(long)]
    path_mib: Option<u64>,
}

fn generated(spec: &str) -> Result<SimpleGraph, Error> {
    let bad = || {
        format!(
            "--generate `{spec}`: expected grid:RxC, grid3:AxBxC, hypercube:D, complete:N, bipartite:M,N, wheel:N, petersen or gnp:N,P,SEED"
        )
    };
    let (kind, rest) = spec.split_once(':').unwrap_or((spec, ""));
    let nums = |sep: char| -> Result<Vec<u32>, String> {
        rest.split(sep).map(|s| s.trim().parse::<u32>().map_err(|_| bad())).collect()
    };
    let repair = |g: &urbanflow::graph::Csr<u32>| SimpleGraph::from_csr(g, Simplify::Repair).map(|(g, _)| g);
    let g = match (kind, spec) {
        ("grid", _) => match nums('x')?.as_slice() {
            &[r, c] => repair(&generators::grid_2d(r, c)),
            _ => return Err(bad().into()),
        },
        ("grid3", _) => match nums('x')?.as_slice() {
            &[a, b, c] => repair(&generators::grid_3d(a, b, c)),
            _ => return Err(bad().into()),
        },
        ("hypercube", _) => match nums(',')?.as_slice() {
            &[d] => repair(&generators::hypercube(d)?),
            _ => return Err(bad().into()),
        },
        ("complete", _) => match nums(',')?.as_slice() {
            &[n] => repair(&generators::complete(n)),
            _ => return Err(bad().into()),
        },
        ("bipartite", _) => match nums(',')?.as_slice() {
            &[a, b] => repair(&generators::complete_bipartite(a, b)),
            _ => return Err(bad().into()),
        },
        ("wheel", _) => match nums(',')?.as_slice() {
            &[n] => repair(&generators::wheel(n)?),
            _ => return Err(bad().into()),
        },
        ("petersen", _) => repair(&generators::petersen()),
        ("gnp", _) => {
            let parts: Vec<&str> = rest.split(',').collect();
            let [n, p, seed] = parts.as_slice() else { return Err(bad().into()) };
            let n: u32 = n.trim().parse().map_err(|_| bad())?;
            let p: f64 = p.trim().parse().map_err(|_| bad())?;
            let seed: u64 = seed.trim().parse().map_err(|_| bad())?;
            repair(&generators::gnp_undirected(n, p, seed))
        }
        _ => return Err(bad().into()),
    };
    Ok(g?)
}

pub fn run(args: Args) -> Result<(), Error> {
    if let Some(t) = args.threads {
        rayon::ThreadPoolBuilder::new().num_threads(t).build_global()?;
    }
    let (name, g, ids, note) = match (&args.graph, &args.generate) {
        (Some(path), _) => {
            let loaded = load_graph(path, &LoadOptions { format: args.format, ..Default::default() })?;
            let (g, r) = SimpleGraph::from_csr(&loaded.graph, Simplify::Repair)?;
            let note = format!(
                "read as undirected: {} repeated edges merged (both directions count once), {} self-loops dropped, {} one-way arcs taken as edges",
                r.repeated, r.self_loops, r.one_way
            );
            (path.display().to_string(), g, loaded.ids, Some(note))
        }
        (None, Some(spec)) => {
            let g = generated(spec)?;
            let ids = (0..g.num_vertices() as u64).collect();
            (spec.clone(), g, ids, None)
        }
        (None, None) => return Err("give --graph FILE or --generate SPEC (see --help)".into()),
    };
    let opts = ChordlessOptions {
        min_len: args.min_len,
        max_len: args.max_len,
        limit: args.limit,
        count_only: args.count_only && args.out.is_none(),
    };
    let choice = match args.backend.as_deref() {
        Some("serial") => None,
        Some(other) => Some(other.parse::<BackendChoice>()?),
        None => Some(BackendChoice::from_env()?),
    };
    let mut out = match &args.out {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()))?,
        )),
        None => None,
    };
    let progress = (!args.json).then(|| {
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar
    });
    // Starting a GPU (device, queue) is timed apart: a program that keeps its context pays it once.
    let setup = Instant::now();
    let backend = choice.map(|c| c.backend()).transpose()?;
    let setup_s = setup.elapsed().as_secs_f64();
    let t = Instant::now();
    if let Some(bar) = &progress {
        bar.enable_steady_tick(Duration::from_millis(200));
        bar.set_message("enumerating");
    }
    let mut write_error = None;
    let mut seen = 0u64;
    let mut sink = |c: &[u32]| {
        seen += 1;
        if seen.is_multiple_of(1 << 16)
            && let Some(bar) = &progress
            && t.elapsed() > Duration::from_secs(1)
        {
            bar.set_message(format!("{seen} cycles"));
        }
        if let (Some(w), false) = (&mut out, args.count_only) {
            let line: Vec<String> = c.iter().map(|&v| ids[v as usize].to_string()).collect();
            if let Err(e) = writeln!(w, "{}", line.join(" ")) {
                write_error = Some(e.to_string());
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    };
    let (stats, ran): (CycleStats, Ran) = match (backend, args.path_mib) {
        (None, None) => (chordless_cycles(&g, &opts, &mut sink)?, Ran::Serial),
        (Some(backend), None) => chordless_cycles_on(&g, &opts, backend, &mut sink)?,
        (Some(urbanflow::Backend::Gpu(ctx)), Some(mib)) => {
            let cfg = LevelsConfig { path_bytes: Some(mib << 20), ..LevelsConfig::default() };
            (chordless_cycles_gpu_with(ctx, &g, &opts, &cfg, &mut sink)?, Ran::Gpu)
        }
        (_, Some(_)) => return Err("--path-mib sizes the GPU's path stacks: give --backend gpu".into()),
    };
    if let Some(e) = write_error {
        return Err(format!("writing the cycles: {e}").into());
    }
    let solve_s = t.elapsed().as_secs_f64();
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    if let Some(mut w) = out {
        w.flush()?;
    }
    let by_length: serde_json::Map<String, serde_json::Value> = stats
        .by_length
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(k, c)| (k.to_string(), (*c).into()))
        .collect();
    let backend = match ran {
        Ran::Serial => "cpu (1 thread)".to_string(),
        Ran::Rayon => format!("cpu ({} threads)", rayon::current_num_threads()),
        Ran::Gpu => match (choice, GpuContext::auto()) {
            (Some(BackendChoice::Auto), Some(ctx)) => format!("gpu ({})", ctx.info.name),
            _ => match GpuContext::shared() {
                Some(ctx) => format!("gpu ({})", ctx.info.name),
                None => "gpu".into(),
            },
        },
    };
    if args.json {
        let json = serde_json::json!({
            "graph": name, "vertices": g.num_vertices(), "edges": g.num_edges(), "cycles": stats.total,
            "by_length": by_length, "initial_paths": stats.initial_paths, "levels": stats.levels,
            "peak_paths": stats.peak_paths, "stopped_early": stats.stopped_early, "solve_s": solve_s,
            "setup_s": setup_s, "cycles_per_s": stats.total as f64 / solve_s.max(1e-12), "backend": backend,
        });
        println!("{json}");
    } else {
        println!("graph      {name} ({} vertices, {} edges)", g.num_vertices(), g.num_edges());
        if let Some(n) = note {
            println!("           {n}");
        }
        println!(
            "cycles     {}{}",
            stats.total,
            if stats.stopped_early { " (stopped at the limit)" } else { "" }
        );
        let lengths: Vec<String> = by_length.iter().map(|(k, c)| format!("{k}:{c}")).collect();
        println!("by length  {}", lengths.join(" "));
        println!(
            "time       {solve_s:.3} s on {backend}, {:.0} cycles/s{}",
            stats.total as f64 / solve_s.max(1e-12),
            if setup_s >= 1e-3 { format!(" (and {setup_s:.3} s starting the GPU)") } else { String::new() }
        );
        if let Some(p) = &args.out {
            println!("written    {}", p.display());
        }
    }
    Ok(())
}

/// Runs `cycles`, then lets a GPU device still being created settle before the process exits.
pub fn main(args: Args) -> ExitCode {
    let code = crate::outcome::finish(run(args));
    // A race the CPU won may still be creating the GPU's device: exiting under it can crash the driver.
    urbanflow::cycles::settle();
    code
}
