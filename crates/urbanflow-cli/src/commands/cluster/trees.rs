//! Shortest-path trees from many sources over the ranks of an MPI job (`many_to_all` on a cluster).
//!
//! ```text
//! cargo install --path crates/urbanflow-cli --features mpi
//! mpirun -np 4 urbanflow cluster trees --graph ../shared/data/road/weighted/NY.gr.xz \
//!     --sources 100000 --checkpoint /scratch/ny-ckpt --json
//! srun -N 8 --ntasks-per-node=2 urbanflow cluster trees --graph G --sources all --gpus local
//! ```
//! Same graph, sources, backends and checksum as the `many_to_all` example, plus the rank layout: the
//! sources are cut into blocks of `--block`, block `b` goes to rank `b mod ranks`, and every rank
//! computes its blocks on its own cores and GPUs. Rank 0 prints progress on stderr after every round
//! and the result (`--json`: one object, with `ranks`). `--checkpoint DIR` records completed blocks so
//! a restarted job skips them; `--rows-dir DIR` writes each block's rows (or `--targets` columns).

use super::Failure;

use std::path::PathBuf;
use std::time::Instant;

use urbanflow::cluster::many::{DistOptions, many_to_all};
use urbanflow::cluster::{Comm, MpiComm};
use urbanflow::gpu::BackendChoice;
use urbanflow::sssp::auto::{HierarchyCost, phast_pays};
use urbanflow::sssp::cch::Cch;
use urbanflow::sssp::many::{ManyOptions, Method, Schedule};

/// Shortest-path trees from many sources, spread over the ranks of an MPI job.
///
/// Example: mpirun -np 4 urbanflow cluster trees --graph bremen_time.gr.gz --sources 10000 --json
#[derive(clap::Args)]
#[command(version, after_help = crate::outcome::EXIT_CODES)]
pub struct Args {
    #[command(flatten)]
    input: crate::args::graph::GraphSourceArgs,
    /// cpu, gpu or auto, on every rank (default: $URBANFLOW_BACKEND, else auto).
    #[arg(long)]
    backend: Option<BackendChoice>,
    /// GPUs of each rank: `all`, indices, names, or `local` (the GPU at the rank's index on its host,
    /// from OMPI_COMM_WORLD_LOCAL_RANK / SLURM_LOCALID / MPI_LOCALRANKID, modulo the GPUs found).
    #[arg(long)]
    gpus: Option<String>,
    /// single, equitable, work-queue or auto, within each rank.
    #[arg(long)]
    schedule: Option<Schedule>,
    /// Worker threads per rank (default: all cores of the host; give cores / ranks per host).
    #[arg(long)]
    threads: Option<usize>,
    /// Sources per block (the unit of distribution and of checkpoints).
    #[arg(long, default_value_t = urbanflow::cluster::many::DEFAULT_BLOCK)]
    block: usize,
    /// Checkpoint directory (shared by the ranks): completed blocks are recorded and skipped on restart.
    #[arg(long)]
    checkpoint: Option<PathBuf>,
    /// Write every block's rows here (`block-<b>.u32`, little-endian, row-major).
    #[arg(long)]
    rows_dir: Option<PathBuf>,
    /// Columns of the written rows: `all` (default), `zones` or N vertices drawn with --seed + 1.
    #[arg(long)]
    targets: Option<String>,
    /// dijkstra or batch (one search per source), phast (each rank contracts the graph once — timed
    /// apart — then PHAST sweeps for all its blocks), or auto (PHAST when this rank's share of the sources
    /// pays for the contraction).
    #[arg(long, default_value = "auto")]
    method: Method,
    /// Print one JSON object (rank 0).
    #[arg(long)]
    json: bool,
    /// Testing: rank 0 aborts the job once this many blocks are complete (a crash to restart from).
    #[arg(long, hide = true)]
    abort_after_blocks: Option<usize>,
}

pub fn run(comm: &MpiComm, args: Args) -> Result<(), Failure> {
    let (rank, ranks) = (comm.rank(), comm.size());
    if let Some(t) = args.threads {
        rayon::ThreadPoolBuilder::new().num_threads(t).build_global()?;
    }
    let choice = match (args.backend, &args.gpus) {
        (Some(c), _) => c,
        (None, Some(_)) => BackendChoice::Gpu,
        (None, None) => BackendChoice::from_env()?,
    };
    let selection = super::rank_gpus(args.gpus.as_deref(), rank)?;
    let devices = crate::devices::open_gpus(selection.as_ref())?;
    let backend = match devices.first() {
        Some(ctx) => urbanflow::Backend::Gpu(ctx),
        None => choice.backend()?,
    };
    let schedule =
        args.schedule.unwrap_or(if choice == BackendChoice::Gpu { Schedule::Single } else { Schedule::Auto });
    let input = args.input.load().map_err(|e| format!("rank {rank}: {e}"))?;
    let (path, loaded, sources, load_s) = (input.path, input.loaded, input.sources, input.load_s);
    let (g, ids) = (&loaded.graph, &loaded.ids);
    let targets = match &args.targets {
        None => None,
        Some(t) => Some(crate::args::graph::pick_sources(
            t,
            g.num_vertices(),
            loaded.zones.as_deref(),
            args.input.seed + 1,
        )?),
    };
    // PHAST: one customisable hierarchy per rank (its order from the cache folder when this graph was
    // prepared before), shared by all its blocks (so `Auto` decides here, on the share).
    let threads = rayon::current_num_threads();
    let share = sources.len().div_ceil(ranks);
    let phast = match args.method {
        Method::Phast => true,
        Method::Trees => false,
        Method::Auto => {
            let cost = HierarchyCost::of(g, false);
            phast_pays(g.num_vertices(), g.num_arcs(), share, threads, !devices.is_empty(), cost)
        }
    };
    let t = Instant::now();
    let hierarchy = if phast {
        let (cch, _) = Cch::build_cached(g).map_err(|e| format!("rank {rank}: {e}"))?;
        Some(cch.customise(g.weights()).map_err(|e| format!("rank {rank}: {e}"))?)
    } else {
        None
    };
    let preprocess_s = t.elapsed().as_secs_f64();
    let dist = DistOptions {
        block: Some(args.block),
        checkpoint: args.checkpoint.clone(),
        rows_dir: args.rows_dir.clone(),
        targets: targets.as_deref(),
        many: ManyOptions {
            backend,
            schedule,
            devices: &devices,
            hierarchy: hierarchy.as_ref(),
            ..Default::default()
        },
        abort_after_blocks: args.abort_after_blocks,
    };
    let report = many_to_all(comm, g, &sources, &dist, |p| {
        eprintln!(
            "progress  blocks {}/{}  trees {}  {:.1} s  {:.0} trees/s",
            p.blocks_done,
            p.blocks,
            p.trees_done,
            p.seconds,
            p.trees_done as f64 / p.seconds.max(1e-9)
        );
    })
    // Every rank returns the failure of any rank together (RankFailed on the others).
    .map_err(|e| Failure::Everyone(format!("rank {rank}: {e}")))?;
    if rank != 0 {
        return Ok(());
    }
    let computed: u64 = report.trees_per_rank.iter().sum();
    let trees_per_s = computed as f64 / report.seconds.max(1e-12);
    let device = crate::devices::backend_name(backend, &devices);
    if args.json {
        let src: Vec<String> = sources.iter().map(|&s| ids[s as usize].to_string()).collect();
        let json = serde_json::json!({
            "graph": path.display().to_string(),
            "format": loaded.format.to_string(),
            "n": g.num_vertices(),
            "m": g.num_arcs(),
            "ranks": ranks,
            "mpi": comm.describe(),
            "device_rank0": device,
            "threads": rayon::current_num_threads(),
            "sources": src.join(","),
            "trees": report.trees,
            "trees_computed": computed,
            "trees_per_s": trees_per_s,
            "checksum": report.checksum,
            "solve_s": report.seconds,
            "load_s": load_s,
            "blocks": report.blocks,
            "blocks_computed": report.blocks_computed,
            "blocks_skipped": report.blocks_skipped,
            "trees_per_rank": report.trees_per_rank,
            "compute_s_per_rank": report.compute_seconds_per_rank,
            "method": if phast { "phast" } else { "trees" },
            "preprocess_s_rank0": preprocess_s,
        });
        println!("{json}");
    } else {
        println!(
            "graph     {} ({} vertices, {} arcs, read in {load_s:.2} s per rank)",
            path.display(),
            g.num_vertices(),
            g.num_arcs()
        );
        println!("cluster   {}; rank 0 on {device}", comm.describe());
        if phast {
            println!("method    phast (contraction {preprocess_s:.2} s per rank, not in the time below)");
        }
        println!(
            "blocks    {} of {} sources ({} computed, {} from the checkpoint)",
            report.blocks, args.block, report.blocks_computed, report.blocks_skipped
        );
        println!(
            "trees     {} ({computed} computed now: {:?} per rank)",
            report.trees, report.trees_per_rank
        );
        println!("time      {:.3} s, {trees_per_s:.1} trees/s", report.seconds);
        println!("checksum  {}", report.checksum);
    }
    Ok(())
}
