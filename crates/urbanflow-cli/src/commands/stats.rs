//! Loads a road graph and prints its statistics and the compute backend chosen.
//!
//! ```text
//! urbanflow stats                 # the bundled small road graph
//! urbanflow stats FILE.gr.xz   # any DIMACS / PACE / edge-list file
//! ```
//! `URBANFLOW_BACKEND=cpu|gpu|auto` (or `--backend`) chooses the backend.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use urbanflow::gpu::context::auto_adapter;
use urbanflow::gpu::{BackendChoice, Resolved};
use urbanflow::graph::Permutation;
use urbanflow::graph::io::{GraphFormat, LoadOptions, load_graph};

/// Statistics of a graph file (size, degrees, weights, bandwidth) and the backend urbanflow would use.
///
/// Example: urbanflow stats ../shared/data/road/weighted/NY.gr.xz
#[derive(clap::Args)]
#[command(version, after_help = crate::outcome::EXIT_CODES)]
pub struct Args {
    /// Graph file (DIMACS `.gr`, PACE `.gr`, 0-based `a u v w`, edge list, TNTP `_net`; plain, .gz or
    /// .xz). Default: the bundled small road graph.
    #[arg(value_parser = crate::args::files::input_file)]
    graph: Option<PathBuf>,
    /// The file's format: auto, dimacs, dimacs0, pace, edges or tntp.
    #[arg(long, default_value = "auto")]
    format: GraphFormat,
    /// cpu, gpu or auto (default: $URBANFLOW_BACKEND, else auto).
    #[arg(long)]
    backend: Option<BackendChoice>,
}

/// Prints the statistics.
pub fn run(args: Args) -> ExitCode {
    let path = args.graph.unwrap_or_else(crate::args::files::bundled_road_graph);
    let choice = match args.backend.map_or_else(BackendChoice::from_env, Ok) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let t = Instant::now();
    let g = match load_graph(&path, &LoadOptions { format: args.format, ..Default::default() }) {
        Ok(loaded) => loaded.graph,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let load = t.elapsed();
    let s = g.degree_stats();
    println!("graph      {}", path.display());
    println!("vertices   {}", s.vertices);
    println!("arcs       {}", s.arcs);
    println!(
        "out-degree min {} / mean {:.3} / max {}  (max in-degree {})",
        s.min_out, s.mean_out, s.max_out, s.max_in
    );
    println!("isolated   {}   self-loops {}", s.isolated, s.self_loops);
    if let (Some(lo), Some(hi)) = (s.min_weight, s.max_weight) {
        println!("weights    {lo} ..= {hi}");
    }
    let hist: Vec<String> = s
        .out_degree_histogram
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(d, c)| format!("{}{}:{c}", d, if d == 16 { "+" } else { "" }))
        .collect();
    println!("degrees    {}", hist.join(" "));
    let t = Instant::now();
    let rcm = Permutation::rcm(&g);
    let bw_after = g.relabel(&rcm).bandwidth();
    println!(
        "bandwidth  {} as read, {} after RCM relabelling ({:.2?})",
        g.bandwidth(),
        bw_after,
        t.elapsed()
    );
    println!("loaded in  {load:.2?} ({:.1} MiB as CSR)", g.size_in_bytes() as f64 / (1 << 20) as f64);
    match choice.backend() {
        Ok(b) => match b.resolve() {
            Resolved::Cpu if choice == BackendChoice::Auto => {
                println!("backend    cpu ({} threads): {}", rayon_threads(), auto_adapter().reason)
            }
            Resolved::Cpu => println!("backend    cpu ({} threads)", rayon_threads()),
            Resolved::Gpu(ctx) => println!("backend    gpu: {}", ctx.describe()),
        },
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
