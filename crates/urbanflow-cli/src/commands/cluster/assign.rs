//! Static traffic assignment with all-or-nothing loading spread over the ranks of an MPI job.
//!
//! ```text
//! cargo install --path crates/urbanflow-cli --features mpi
//! mpirun -np 4 urbanflow cluster assign --net ../shared/data/tntp/Philadelphia/Philadelphia_net.tntp.xz \
//!     --algorithm bfw --gap 1e-4 --threads 4 --json
//! ```
//! Same network, trips, methods, stop rule and JSON as `urbanflow assign`, plus `ranks`: every rank
//! runs the same Frank–Wolfe iterations and loads only its share of the origins (CPU: contiguous
//! origin blocks, added in the single-process order along the ranks, so the flows are bit-identical
//! to `assign`'s; GPU: fixed-point loads all-reduced, bit-identical to one GPU's). Rank 0 prints
//! progress, the result and `--flows-out`. The JSON adds the time spent exchanging loads.

use super::Failure;

use std::path::PathBuf;
use std::time::Instant;

use urbanflow::cluster::assign::DistributedAon;
use urbanflow::cluster::{Comm, MpiComm};
use urbanflow::gpu::BackendChoice;
use urbanflow::gpu::devices::DeviceSelection;
use urbanflow::tap::{IterationLog, assign_with_loader};

/// Static traffic assignment of a TNTP network, all-or-nothing loading spread over MPI ranks.
///
/// Example: mpirun -np 2 urbanflow cluster assign --net ChicagoSketch_net.tntp --gap 1e-5 --json
#[derive(clap::Args)]
#[command(version, after_help = crate::outcome::EXIT_CODES)]
pub struct Args {
    #[command(flatten)]
    model: crate::args::model::ModelArgs,
    #[command(flatten)]
    turn_args: crate::args::model::TurnArgs,
    /// cpu (f64, the default) or gpu (fixed point) loading on every rank.
    #[arg(long)]
    backend: Option<BackendChoice>,
    /// GPUs of each rank: `all`, indices, names, or `local` (the GPU at the rank's index on its host).
    #[arg(long)]
    gpus: Option<String>,
    /// Worker threads per rank (default: all cores of the host; give cores / ranks per host).
    #[arg(long)]
    threads: Option<usize>,
    /// Write link flows and costs here (rank 0; `.csv` for CSV, else TNTP `_flow` format).
    #[arg(long)]
    flows_out: Option<PathBuf>,
    /// Print one JSON object (rank 0).
    #[arg(long)]
    json: bool,
}

pub fn run(comm: &MpiComm, args: Args) -> Result<crate::outcome::Outcome, Failure> {
    let (rank, ranks) = (comm.rank(), comm.size());
    if let Some(n) = args.threads {
        rayon::ThreadPoolBuilder::new().num_threads(n).build_global()?;
    }
    if args.model.max_seconds.is_some() && ranks > 1 {
        // The same flags on every rank: every rank stops here.
        return Err(Failure::Everyone(
            "--max-seconds would let ranks stop at different iterations: use --max-iters".into(),
        ));
    }
    let (net_path, trips_path) = args.model.files()?;
    let t = Instant::now();
    // Every rank reads the same files, so a refused file stops every rank with the same error.
    let (net, demand, _) =
        args.model.read(&net_path, &trips_path).map_err(|e| Failure::Everyone(e.to_string()))?;
    // With turns every rank expands the network the same way and assigns on the expansion.
    let expanded = args.turn_args.expand(&net_path, &net).map_err(|e| Failure::Everyone(e.to_string()))?;
    let model = expanded.as_ref().map_or(&net, |(e, _)| &e.network);
    let load_s = t.elapsed().as_secs_f64();
    let choice = match (args.backend, &args.gpus) {
        (Some(c), _) => c,
        (None, Some(_)) => BackendChoice::Gpu,
        (None, None) => BackendChoice::Cpu,
    };
    let selection = match choice {
        BackendChoice::Cpu => None,
        _ => super::rank_gpus(args.gpus.as_deref(), rank)?.or(Some(DeviceSelection::Indices(vec![0]))),
    };
    let devices = crate::devices::open_gpus(selection.as_ref())?;
    let device_refs: Vec<&urbanflow::gpu::GpuContext> = devices.iter().collect();
    let mut loader = if device_refs.is_empty() {
        DistributedAon::cpu(comm, model, &demand, false)
    } else {
        DistributedAon::gpu(comm, &device_refs, model, &demand, false)?
    };
    let opts = args.model.options();
    let t = Instant::now();
    let result = assign_with_loader(model, &demand, &opts, &mut loader, |log: &IterationLog| {
        if rank == 0 && !args.json {
            eprintln!("iteration {:>5}  gap {:.3e}  {:.2} s", log.iteration, log.relative_gap, log.seconds);
        }
    })
    // Every rank runs the same iterations on the same loads, so it fails the same way (a loading
    // failure aborts the job inside the loader).
    .map_err(|e| Failure::Everyone(format!("rank {rank}: {e}")))?;
    let solve_s = t.elapsed().as_secs_f64();
    // Every rank's loading, waiting and exchange times, to rank 0 (as bits through the integer sum).
    let mut per_rank = vec![0u64; 3 * ranks];
    per_rank[rank] = loader.comm_seconds.to_bits();
    per_rank[ranks + rank] = loader.load_seconds.to_bits();
    per_rank[2 * ranks + rank] = loader.wait_seconds.to_bits();
    comm.all_reduce_sum_u64(&mut per_rank);
    let seconds = |k: usize| -> Vec<f64> {
        per_rank[k * ranks..(k + 1) * ranks].iter().map(|&b| f64::from_bits(b)).collect()
    };
    let (comm_s, load_share_s, wait_s) = (seconds(0), seconds(1), seconds(2));
    let outcome = crate::outcome::Outcome::missed_if(args.model.missed(&result));
    if rank != 0 {
        return Ok(outcome);
    }
    // Results in the network's own links.
    let turns_line = expanded.as_ref().map(|(e, table)| crate::args::model::turns_summary(&net, e, table));
    let result = match &expanded {
        None => result,
        Some((e, _)) => urbanflow::tap::Assignment {
            flows: e.link_flows(&result.flows).to_vec(),
            costs: e.link_flows(&result.costs).to_vec(),
            ..result
        },
    };
    if let Some(out) = &args.flows_out {
        crate::args::model::write_flows(out, &net, &result.flows, &result.costs)?;
    }
    let last = result.last();
    let iterations = result.history.len();
    // The exchange's share of the solve (largest over ranks), and the wait for uneven shares apart.
    let overhead = comm_s.iter().cloned().fold(0.0, f64::max) / solve_s.max(1e-12);
    let waiting = wait_s.iter().cloned().fold(0.0, f64::max) / solve_s.max(1e-12);
    if args.json {
        let mut json = crate::args::model::assignment_json(
            (&net_path, &trips_path),
            &args.model,
            loader_name(&device_refs),
            (&net, &result),
            load_s,
            solve_s,
        );
        let extra = serde_json::json!({
            "ranks": ranks,
            "mpi": comm.describe(),
            "exchange_s_per_rank": comm_s,
            "loading_s_per_rank": load_share_s,
            "exchange_share": overhead,
            "wait_s_per_rank": wait_s,
            "wait_share": waiting,
            "turns": turns_line.clone().unwrap_or_default(),
        });
        for (k, v) in extra.as_object().expect("an object") {
            json[k] = v.clone();
        }
        println!("{json}");
        return Ok(outcome);
    }
    println!("network   {} ({} links), {}", net_path.display(), net.num_links(), comm.describe());
    println!("loading   {} on every rank", loader_name(&device_refs));
    if let Some(line) = &turns_line {
        println!("turns     {line}");
    }
    println!(
        "result    gap {:.3e} after {iterations} iterations in {solve_s:.3} s (converged: {}), objective {:.6}",
        last.relative_gap, result.converged, last.objective
    );
    println!(
        "exchange  {:.1}% of the solve at most ({:?} s per rank); waiting for uneven shares {:.1}% at most; \
         loading {:?} s",
        overhead * 100.0,
        comm_s,
        waiting * 100.0,
        load_share_s
    );
    Ok(outcome)
}

fn loader_name(devices: &[&urbanflow::gpu::GpuContext]) -> String {
    match devices.len() {
        0 => format!("cpu ({} threads)", rayon::current_num_threads()),
        1 => format!("gpu ({})", devices[0].info.name),
        k => format!("{k} gpus"),
    }
}
