//! Single-source shortest paths on a road graph.
//!
//! ```text
//! cargo run --release --example sssp -- --graph ../shared/data/road/weighted/NY.gr.xz --source 1 \
//!     --algorithm near-far --backend gpu --json
//! ```
//! Vertex ids on the command line are 1-based, as in DIMACS files. Prints the number of reached
//! vertices, a checksum (sum of finite distances mod 2^64), and load and solve times; `--json` prints one
//! JSON object with those fields instead.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use urbanflow::gpu::BackendChoice;
use urbanflow::graph::Csr;
use urbanflow::graph::io::{ReadOptions, read_graph};
use urbanflow::sssp::{Algorithm, Query, solve};

/// Shortest paths from one source.
#[derive(Parser)]
#[command(version, about)]
struct Args {
    /// Graph file (DIMACS .gr, plain, .gz or .xz). Default: the bundled small road graph.
    #[arg(long)]
    graph: Option<PathBuf>,
    /// Source vertex, 1-based as in the file.
    #[arg(long, default_value_t = 1)]
    source: u32,
    /// Target vertex (1-based): print its distance and path length; Dijkstra stops when it is settled.
    #[arg(long)]
    target: Option<u32>,
    /// dijkstra, delta, bellman-ford, harish, martin, crauser, crauser-in, near-far, lbr (k = 4), jradi
    /// or auto.
    #[arg(long, default_value = "auto")]
    algorithm: Algorithm,
    /// cpu, gpu or auto (default: $URBANFLOW_BACKEND, else auto).
    #[arg(long)]
    backend: Option<BackendChoice>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

fn run(args: Args) -> Result<(), String> {
    let path = args.graph.unwrap_or_else(|| {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data/small-road.gr.gz");
        p.canonicalize().unwrap_or(p)
    });
    let choice = args.backend.map_or_else(BackendChoice::from_env, Ok)?;
    let backend = choice.backend().map_err(|e| e.to_string())?;
    let t = Instant::now();
    let g: Csr<u32> = read_graph(&path, ReadOptions::default()).map_err(|e| e.to_string())?;
    let load_s = t.elapsed().as_secs_f64();
    let one_based = |v: u32, what: &str| {
        v.checked_sub(1)
            .filter(|&v| v < g.num_vertices())
            .ok_or(format!("{what} {v} is not a vertex: ids are 1..={} (1-based)", g.num_vertices()))
    };
    let source = one_based(args.source, "source")?;
    let target = args.target.map(|t| one_based(t, "target")).transpose()?;
    let q = Query {
        source,
        targets: target.map(|t| vec![t]),
        predecessors: target.is_some(),
        ..Default::default()
    };
    let t = Instant::now();
    let r = solve(&g, &q, args.algorithm, backend).map_err(|e| e.to_string())?;
    let solve_s = t.elapsed().as_secs_f64();
    let on_gpu = args.algorithm.is_gpu()
        || (args.algorithm == Algorithm::Auto && !matches!(backend.resolve(), urbanflow::gpu::Resolved::Cpu));
    let resolved = if on_gpu { backend.resolve().to_string() } else { "cpu".to_string() };
    let target_info = target.map(|t| (r.distance(t), r.path_to(&g, t).map(|p| p.len())));
    if args.json {
        let (td, tl) = match target_info {
            Some((d, l)) => {
                (d.map_or("null".into(), |d| d.to_string()), l.map_or("null".into(), |l| l.to_string()))
            }
            None => ("null".into(), "null".into()),
        };
        println!(
            "{{\"graph\":{:?},\"vertices\":{},\"arcs\":{},\"source\":{},\"algorithm\":\"{}\",\"backend\":{:?},\"reached\":{},\"checksum\":{},\"target_distance\":{td},\"target_path_vertices\":{tl},\"phases\":{},\"dispatches\":{},\"readbacks\":{},\"load_s\":{load_s:.6},\"solve_s\":{solve_s:.6}}}",
            path.display().to_string(),
            g.num_vertices(),
            g.num_arcs(),
            args.source,
            args.algorithm,
            resolved,
            r.reached(),
            r.checksum(),
            r.stats.phases,
            r.stats.dispatches,
            r.stats.readbacks,
        );
    } else {
        println!("graph      {} ({} vertices, {} arcs)", path.display(), g.num_vertices(), g.num_arcs());
        println!("algorithm  {} on {resolved}", args.algorithm);
        println!("source     {}", args.source);
        println!("reached    {}", r.reached());
        println!("checksum   {}", r.checksum());
        if let (Some(t), Some((d, len))) = (args.target, target_info) {
            match d {
                Some(d) => println!("target     {t}: distance {d}, path of {} vertices", len.unwrap_or(0)),
                None => println!("target     {t}: unreachable"),
            }
        }
        println!(
            "phases     {} ({} dispatches, {} readbacks)",
            r.stats.phases, r.stats.dispatches, r.stats.readbacks
        );
        println!("load       {load_s:.3} s");
        println!("solve      {solve_s:.6} s");
    }
    Ok(())
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
