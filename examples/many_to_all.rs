//! Shortest-path trees from many sources at once, on the CPU, the GPU, or both together.
//!
//! ```text
//! cargo run --release --example many_to_all -- --graph ../shared/data/road/osm-small/bremen_time.gr.gz \
//!     --sources 10000 --backend gpu --json
//! cargo run --release --example many_to_all -- --graph ../shared/data/tntp/chicago-regional/ChicagoRegional_net.tntp \
//!     --sources zones --backend auto
//! ```
//! `--graph` takes a DIMACS `.gr` file (plain, .gz, .xz) or a TNTP `_net` file, read as a plain graph
//! whose weights are the free-flow times × `--units` (default 1000), rounded. Without `--graph`, the
//! bundled Sioux Falls network. `--sources` is `all`, `zones` (TNTP zones) or a count N of distinct
//! vertices drawn with a fixed seed. Prints trees per second and a checksum: the sum of all finite
//! distances over all trees, mod 2^64 (equal on every backend). `--json` prints one JSON object with
//! `sources` (ids as in the file), `trees_per_s`, `checksum`, `solve_s` and how the work was split.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use rayon::prelude::*;
use urbanflow::gpu::{BackendChoice, Resolved};
use urbanflow::graph::Csr;
use urbanflow::graph::io::tntp::read_net;
use urbanflow::graph::io::{ReadOptions, read_graph};
use urbanflow::graph::rng::SplitMix64;
use urbanflow::sssp::UNREACHABLE;
use urbanflow::sssp::gpu::BatchConfig;
use urbanflow::sssp::many::{ManyOptions, Schedule, many_to_all_with};
use urbanflow::sssp::tuning;

/// Shortest-path trees from many sources.
#[derive(Parser)]
#[command(version, about)]
struct Args {
    /// Graph file: DIMACS .gr or TNTP _net (plain, .gz or .xz). Default: the bundled Sioux Falls network.
    #[arg(long)]
    graph: Option<PathBuf>,
    /// `all`, `zones` (TNTP files only) or N distinct vertices drawn with `--seed`.
    #[arg(long, default_value = "zones")]
    sources: String,
    /// Seed of the drawn sources.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// cpu, gpu or auto (default: $URBANFLOW_BACKEND, else auto).
    #[arg(long)]
    backend: Option<BackendChoice>,
    /// With a GPU: single (GPU alone), equitable, work-queue (CPU threads beside the GPU) or auto
    /// (work-queue on a hardware GPU). `--backend gpu` defaults to single.
    #[arg(long)]
    schedule: Option<Schedule>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// TNTP weight units per free-flow time unit.
    #[arg(long, default_value_t = 1000.0)]
    units: f64,
    /// GPU invocations per workgroup (default: autotuned on first use).
    #[arg(long)]
    workgroup_size: Option<u32>,
    /// GPU near–far window Δ in weight units (default: autotuned).
    #[arg(long)]
    delta: Option<u32>,
    /// GPU sources per batch (default: from the device's memory limits).
    #[arg(long)]
    slots: Option<usize>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// A graph read from a file.
struct Loaded {
    graph: Csr<u32>,
    /// The file's id of each vertex.
    ids: Vec<u64>,
    /// The zone vertices (TNTP files).
    zones: Option<Vec<u32>>,
}

fn load(path: &Path, units: f64) -> Result<Loaded, String> {
    let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    if name.contains("_net") || name.contains(".tntp") {
        let net = read_net(path).map_err(|e| e.to_string())?;
        let g = net.free_flow_graph(units).map_err(|e| e.to_string())?;
        let zones = g.zone_vertices(net.zones);
        Ok(Loaded { graph: g.graph, ids: g.node_ids, zones })
    } else {
        let g: Csr<u32> = read_graph(path, ReadOptions::default()).map_err(|e| e.to_string())?;
        let ids = (1..=g.num_vertices() as u64).collect(); // DIMACS ids are 1-based
        Ok(Loaded { graph: g, ids, zones: None })
    }
}

fn pick_sources(spec: &str, n: u32, zones: Option<&[u32]>, seed: u64) -> Result<Vec<u32>, String> {
    match spec {
        "all" => Ok((0..n).collect()),
        "zones" => zones.map(<[u32]>::to_vec).ok_or(
            "--sources zones needs a TNTP _net file whose zones are nodes 1..=<NUMBER OF ZONES> \
             (sparse-id files such as Munich's are not): use all or a count"
                .into(),
        ),
        count => {
            let k: u32 =
                count.parse().map_err(|_| format!("--sources `{count}`: expected all, zones or a count"))?;
            if k > n {
                return Err(format!("--sources {k}: the graph has only {n} vertices"));
            }
            // A partial Fisher–Yates shuffle: k distinct vertices, the same for every backend.
            let mut rng = SplitMix64::new(seed);
            let mut all: Vec<u32> = (0..n).collect();
            for i in 0..k as usize {
                let j = i + rng.below((n as usize - i) as u64) as usize;
                all.swap(i, j);
            }
            all.truncate(k as usize);
            Ok(all)
        }
    }
}

fn run(args: Args) -> Result<(), String> {
    if let Some(t) = args.threads {
        rayon::ThreadPoolBuilder::new().num_threads(t).build_global().map_err(|e| e.to_string())?;
    }
    let path = args.graph.unwrap_or_else(|| {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data/SiouxFalls_net.tntp");
        p.canonicalize().unwrap_or(p)
    });
    let choice = args.backend.map_or_else(BackendChoice::from_env, Ok)?;
    let backend = choice.backend().map_err(|e| e.to_string())?;
    let schedule =
        args.schedule.unwrap_or(if choice == BackendChoice::Gpu { Schedule::Single } else { Schedule::Auto });
    let t = Instant::now();
    let Loaded { graph: g, ids, zones } = load(&path, args.units)?;
    let load_s = t.elapsed().as_secs_f64();
    let sources = pick_sources(&args.sources, g.num_vertices(), zones.as_deref(), args.seed)?;
    let gpu = match backend.resolve() {
        Resolved::Gpu(ctx)
            if args.workgroup_size.is_some() || args.delta.is_some() || args.slots.is_some() =>
        {
            let tuned = tuning::batch_config(ctx, &g).map_err(|e| e.to_string())?;
            Some(BatchConfig {
                workgroup_size: args.workgroup_size.unwrap_or(tuned.workgroup_size),
                delta: args.delta.unwrap_or(tuned.delta),
                slots: args.slots.unwrap_or(tuned.slots),
                ..tuned
            })
        }
        _ => None,
    };
    let t = Instant::now();
    // Tuning happens once per adapter and graph; it is timed apart from the trees.
    let config = match (gpu, backend.resolve()) {
        (Some(c), _) => Some(c),
        (None, Resolved::Gpu(ctx)) => Some(tuning::batch_config(ctx, &g).map_err(|e| e.to_string())?),
        _ => None,
    };
    let tune_s = t.elapsed().as_secs_f64();
    let opts = ManyOptions { backend, schedule, gpu: config, ..Default::default() };
    let mut checksum = 0u64;
    let mut trees = 0usize;
    let t = Instant::now();
    let out = many_to_all_with(&g, &sources, &opts, |b| {
        let sum = b
            .dist
            .par_chunks(4096)
            .map(|c| c.iter().filter(|&&d| d != UNREACHABLE).fold(0u64, |s, &d| s.wrapping_add(d as u64)))
            .reduce(|| 0, u64::wrapping_add);
        checksum = checksum.wrapping_add(sum);
        trees += b.sources.len();
    })
    .map_err(|e| e.to_string())?;
    let solve_s = t.elapsed().as_secs_f64();
    assert_eq!(trees, sources.len(), "every tree is delivered once");
    let trees_per_s = trees as f64 / solve_s.max(1e-12);
    let device = match backend.resolve() {
        Resolved::Cpu => format!("cpu ({} threads)", rayon::current_num_threads()),
        r => r.to_string(),
    };
    if args.json {
        let src: Vec<String> = sources.iter().map(|&s| ids[s as usize].to_string()).collect();
        println!(
            "{{\"graph\":{:?},\"n\":{},\"m\":{},\"device\":{:?},\"schedule\":\"{:?}\",\"threads\":{},\
             \"sources\":[{}],\"trees\":{trees},\"gpu_trees\":{},\"cpu_trees\":{},\"trees_per_s\":{trees_per_s:.3},\
             \"checksum\":{checksum},\"solve_s\":{solve_s:.6},\"load_s\":{load_s:.6},\"tune_s\":{tune_s:.6},\"gpu_config\":\"{}\"}}",
            path.display().to_string(),
            g.num_vertices(),
            g.num_arcs(),
            device,
            out.schedule,
            rayon::current_num_threads(),
            src.join(","),
            out.gpu_trees,
            out.cpu_trees,
            config.map_or(String::new(), |c| format!("{c:?}")),
        );
    } else {
        println!(
            "graph     {} ({} vertices, {} arcs, read in {load_s:.2} s)",
            path.display(),
            g.num_vertices(),
            g.num_arcs()
        );
        println!("device    {device}, schedule {:?}", out.schedule);
        if let Some(c) = config {
            println!("gpu       {c:?} (chosen in {tune_s:.2} s)");
        }
        println!("trees     {trees} ({} on the GPU, {} on the CPU)", out.gpu_trees, out.cpu_trees);
        println!("time      {solve_s:.3} s, {trees_per_s:.1} trees/s");
        println!("checksum  {checksum}");
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
