//! K shortest loopless paths between two vertices of a graph, or for many random pairs at once.
//!
//! ```text
//! urbanflow ksp --graph ../shared/data/road/weighted/NY.gr.xz \
//!     --source 1 --target 5000 --k 10
//! urbanflow ksp --graph ../shared/data/road/weighted/NY.gr.xz \
//!     --pairs 1000 --seed 1 --k 10 --backend gpu --json --out paths.tsv
//! ```
//! Vertex ids are the file's own (1-based in DIMACS files). Paths come cheapest first; equal costs in
//! the order of their arc sequences, the same on every algorithm and backend.

use crate::outcome::Error;

use std::path::PathBuf;
use std::time::Instant;

use clap::ValueEnum;
use urbanflow::gpu::{BackendChoice, Resolved};
use urbanflow::graph::rng::SplitMix64;
use urbanflow::sssp::ksp::{Path, TargetDistances, ksp_batch_with, mps, yen};

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Algo {
    /// Martins–Pascoal–Santos deviation ranking (the default).
    Mps,
    /// Yen's algorithm (one restricted Dijkstra per spur: slow, the classic baseline).
    Yen,
}

/// The K cheapest loopless paths from a source to a target (or for N random pairs).
///
/// Example: urbanflow ksp --graph NY.gr.xz --source 1 --target 5000 --k 10 --json
#[derive(clap::Args)]
#[command(version, after_help = crate::outcome::EXIT_CODES)]
pub struct Args {
    /// The graph file (default: the bundled small road graph).
    #[command(flatten)]
    input: crate::args::graph::GraphArgs,
    /// Source vertex, as numbered in the file.
    #[arg(long, default_value_t = 1)]
    source: u64,
    /// Target vertex, as numbered in the file.
    #[arg(long, default_value_t = 2)]
    target: u64,
    /// Paths per query (at least 1).
    #[arg(long, default_value_t = 10, value_parser = at_least_one)]
    k: usize,
    /// mps or yen (one query; batches always use MPS).
    #[arg(long, value_enum, default_value = "mps")]
    algorithm: Algo,
    /// cpu, gpu or auto for batches (default: $URBANFLOW_BACKEND, else auto).
    #[arg(long)]
    backend: Option<BackendChoice>,
    /// Batch mode: this many random (source, target) pairs instead of --source/--target.
    #[arg(long)]
    pairs: Option<usize>,
    /// Seed of the random pairs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Batch mode: write every path to this file, one per line: query number, source, target, rank,
    /// cost, then the vertices (file ids), tab-separated.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Batch mode: how the distances to the targets are computed: searches (one per target), phast
    /// (on the graph's customisable hierarchy, reversed; its order cached) or auto (PHAST when the
    /// targets pay for the hierarchy).
    #[arg(long, default_value = "auto")]
    distances: TargetDistances,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// `--k`: a count of paths, 0 refused (it would print "none" as if the target were unreachable).
fn at_least_one(s: &str) -> Result<usize, Error> {
    match s.parse::<usize>() {
        Ok(0) => Err("expected at least 1 path; 0 asks for nothing".into()),
        Ok(k) => Ok(k),
        Err(_) => Err(format!("`{s}` is not a count of paths").into()),
    }
}

pub fn run(args: Args) -> Result<(), Error> {
    let choice = args.backend.map_or_else(BackendChoice::from_env, Ok)?;
    // The device of --backend gpu starts while the graph is read.
    let (devices, input) = crate::devices::read_beside_devices(choice, None, || {
        args.input.load(crate::args::files::bundled_road_graph)
    });
    devices?;
    let backend = choice.backend()?;
    let crate::args::graph::LoadedInput { path, loaded, load_s } = input?;
    let g = &loaded.graph;
    let n = g.num_vertices();
    if let Some(pairs) = args.pairs {
        let mut rng = SplitMix64::new(args.seed);
        let queries: Vec<(u32, u32)> =
            (0..pairs).map(|_| (rng.below(n as u64) as u32, rng.below(n as u64) as u32)).collect();
        let clock = crate::devices::SetupClock::start(&[]);
        let t = Instant::now();
        let (answers, stats) = ksp_batch_with(g, &queries, args.k, backend, args.distances)?;
        let (setup_s, solve_s) = clock.split(t.elapsed().as_secs_f64(), &[]);
        let paths: usize = answers.iter().map(Vec::len).sum();
        if let Some(out) = &args.out {
            write_paths(out, &queries, &answers, g, &loaded.ids)
                .map_err(|e| format!("{}: {e}", out.display()))?;
        }
        let ran = if stats.gpu_queries > 0 {
            format!("{}", backend.resolve())
        } else {
            format!("{}", Resolved::Cpu)
        };
        if args.json {
            let json = serde_json::json!({
                "graph": path.display().to_string(), "vertices": n, "arcs": g.num_arcs(), "pairs": pairs,
                "k": args.k, "paths_found": paths, "gpu_queries": stats.gpu_queries, "backend": ran,
                "why": stats.why, "distances": format!("{:?}", stats.distances),
                "distances_why": stats.distances_why, "hierarchy_s": stats.hierarchy_s,
                "gpu_phases_s": {
                    "setup": stats.gpu.setup_s, "distances": stats.gpu.distances_s,
                    "ranking": stats.gpu.ranking_s, "tail": stats.gpu.tail_s,
                    "release": stats.gpu.release_s, "batch": stats.time.as_secs_f64(),
                },
                "load_s": load_s, "solve_s": solve_s, "setup_s": setup_s,
                "queries_per_s": pairs as f64 / solve_s,
            });
            println!("{json}");
        } else {
            println!("graph      {} ({n} vertices, {} arcs)", path.display(), g.num_arcs());
            println!("queries    {pairs} random pairs (seed {}), K = {}", args.seed, args.k);
            println!("backend    {ran} ({}; {} of {pairs} queries on the GPU)", stats.why, stats.gpu_queries);
            println!(
                "distances  to {} targets by {} ({}; hierarchy {:.3} s)",
                stats.targets,
                match stats.distances {
                    TargetDistances::Phast => "PHAST on the reversed hierarchy",
                    _ => "one search per target",
                },
                stats.distances_why,
                stats.hierarchy_s
            );
            if stats.gpu_queries > 0 {
                let p = stats.gpu;
                println!(
                    "GPU        setup {:.3} s, distances submitted {:.3} s, ranking {:.3} s, then answers {:.3} s",
                    p.setup_s, p.distances_s, p.ranking_s, p.tail_s
                );
            }
            println!(
                "paths      {paths} ({} targets unreachable or short of K)",
                answers.iter().filter(|a| a.len() < args.k).count()
            );
            println!(
                "solve      {solve_s:.3} s, {:.1} queries/s (load {load_s:.3} s, GPU setup {setup_s:.3} s)",
                pairs as f64 / solve_s
            );
        }
        return Ok(());
    }
    let vertex = |id: u64, what: &str| {
        loaded.vertex(id).ok_or(format!(
            "{what} {id} is not a vertex of {}: ids run {}..={}",
            path.display(),
            loaded.ids.first().copied().unwrap_or(0),
            loaded.ids.last().copied().unwrap_or(0)
        ))
    };
    let (s, t) = (vertex(args.source, "source")?, vertex(args.target, "target")?);
    let clock = Instant::now();
    let (paths, stats) = match args.algorithm {
        Algo::Mps => mps(g, s, t, args.k),
        Algo::Yen => yen(g, s, t, args.k),
    }?;
    let solve_s = clock.elapsed().as_secs_f64();
    let ids = |p: &Path| -> Vec<u64> { p.file_ids(&loaded) };
    if args.json {
        let list: Vec<_> =
            paths.iter().map(|p| serde_json::json!({"cost": p.cost, "vertices": ids(p)})).collect();
        let json = serde_json::json!({
            "graph": path.display().to_string(), "source": args.source, "target": args.target, "k": args.k,
            "algorithm": format!("{:?}", args.algorithm).to_lowercase(), "found": paths.len(),
            "pops": stats.pops, "looped_pops": stats.looped_pops, "searches": stats.searches,
            "load_s": load_s, "solve_s": solve_s, "paths": list,
        });
        println!("{json}");
    } else {
        println!("graph      {} ({n} vertices, {} arcs)", path.display(), g.num_arcs());
        println!("query      {} -> {}, K = {} ({:?})", args.source, args.target, args.k, args.algorithm);
        if paths.is_empty() {
            println!("paths      none: {} cannot be reached from {}", args.target, args.source);
        }
        for (i, p) in paths.iter().enumerate() {
            let v = ids(p);
            let shown: Vec<String> = if v.len() > 12 {
                v[..5]
                    .iter()
                    .map(u64::to_string)
                    .chain(["…".into()])
                    .chain(v[v.len() - 5..].iter().map(u64::to_string))
                    .collect()
            } else {
                v.iter().map(u64::to_string).collect()
            };
            println!("{:>4}  cost {:>10}  {:>5} vertices  {}", i + 1, p.cost, v.len(), shown.join(" "));
        }
        println!(
            "work       {} pops ({} looped), {} shortest-path searches",
            stats.pops, stats.looped_pops, stats.searches
        );
        println!("solve      {solve_s:.6} s (load {load_s:.3} s)");
    }
    Ok(())
}

/// One line per path of a batch.
fn write_paths(
    out: &std::path::Path,
    queries: &[(u32, u32)],
    answers: &[Vec<Path>],
    g: &urbanflow::graph::Csr<u32>,
    ids: &[u64],
) -> std::io::Result<()> {
    use std::io::Write;
    let mut w = std::io::BufWriter::new(std::fs::File::create(out)?);
    for (q, (&(s, t), paths)) in queries.iter().zip(answers).enumerate() {
        for (rank, p) in paths.iter().enumerate() {
            write!(w, "{q}\t{}\t{}\t{}\t{}", ids[s as usize], ids[t as usize], rank + 1, p.cost)?;
            for v in p.vertices(g) {
                write!(w, "\t{}", ids[v as usize])?;
            }
            writeln!(w)?;
        }
    }
    w.flush()
}
