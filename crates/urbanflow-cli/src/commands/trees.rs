//! Shortest-path trees from many sources at once, on the CPU, the GPU, or both together.
//!
//! ```text
//! urbanflow trees --graph ../shared/data/road/osm-small/bremen_time.gr.gz \
//!     --sources 10000 --backend gpu --json
//! urbanflow trees --graph ../shared/data/tntp/chicago-regional/ChicagoRegional_net.tntp \
//!     --sources zones --backend auto
//! ```
//! `--graph` takes a DIMACS `.gr` file (plain, .gz, .xz) or a TNTP `_net` file, read as a plain graph
//! whose weights are the free-flow times × `--units` (default 1000), rounded. Without `--graph`, the
//! bundled Sioux Falls network. `--sources` is `all`, `zones` (TNTP zones) or a count N of distinct
//! vertices drawn with a fixed seed. Prints trees per second and a checksum: the sum of all finite
//! distances over all trees, mod 2^64 (equal on every backend). `--json` prints one JSON object with
//! `sources` (ids as in the file), `trees_per_s`, `rows_gb_per_s` (the rows' bytes per second of
//! solve), `checksum`, `solve_s` and how the work was split.

use crate::outcome::Error;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use urbanflow::gpu::{BackendChoice, GpuContext, Resolved};
#[cfg(feature = "gpu")]
use urbanflow::sssp::gpu::BatchConfig;
use urbanflow::sssp::many::{ManyOptions, Method, Schedule, many_to_all_shared};
#[cfg(feature = "gpu")]
use urbanflow::sssp::tuning;

/// Shortest-path trees from many sources at once, on the CPU, the GPU or both, with trees per second.
///
/// Example: urbanflow trees --graph bremen_time.gr.gz --sources 10000 --json
///
/// With the default `--backend auto --schedule auto`, the first trees are timed on the CPU and the GPU
/// is used only when measured faster (launch settings are measured once per graph and adapter and kept
/// in the user's cache directory; URBANFLOW_TUNE=off|refresh). The output says what ran and why.
#[derive(clap::Args)]
#[command(version, after_help = crate::outcome::EXIT_CODES)]
pub struct Args {
    #[command(flatten)]
    input: crate::args::graph::GraphSourceArgs,
    /// cpu, gpu or auto (default: $URBANFLOW_BACKEND, else auto: a hardware GPU if there is one).
    #[arg(long)]
    backend: Option<BackendChoice>,
    /// Several GPUs: `all` (every hardware GPU), indices such as `0,1`, or parts of adapter names; the
    /// trees are shared between them (and the CPU threads, by --schedule) by measured rate. Implies
    /// `--backend gpu`.
    #[arg(long)]
    gpus: Option<urbanflow::gpu::devices::DeviceSelection>,
    /// single (the backend alone), equitable, work-queue (CPU threads beside the GPU) or auto (measured:
    /// CPU, GPU or both). `--backend gpu` defaults to single.
    #[arg(long)]
    schedule: Option<Schedule>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// GPU invocations per workgroup (default: tuned).
    #[arg(long)]
    workgroup_size: Option<u32>,
    /// GPU near–far window Δ in weight units (default: tuned).
    #[arg(long)]
    delta: Option<u32>,
    /// GPU sources per batch (default: from the device's memory limits).
    #[arg(long)]
    slots: Option<usize>,
    /// dijkstra or batch (one search per source: Dijkstra on the CPU, the batched kernel on a GPU,
    /// scheduled by --schedule), phast (a customisable hierarchy first — timed apart as preprocessing,
    /// its order built on all cores or loaded from the cache folder — then PHAST sweeps: 16 sources
    /// per sweep on the CPU cores, 128 per pass streamed from the first GPU), or auto (PHAST from
    /// 2,048 sources on a GPU or 128 per CPU thread, the measured crossovers; `why` says so).
    #[arg(long, default_value = "auto")]
    method: Method,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<(), Error> {
    if let Some(t) = args.threads {
        rayon::ThreadPoolBuilder::new().num_threads(t).build_global()?;
    }
    let choice = match (args.backend, &args.gpus) {
        (Some(c), _) => c,
        (None, Some(_)) => BackendChoice::Gpu,
        (None, None) => BackendChoice::from_env()?,
    };
    // The devices of --gpus or --backend gpu start while the graph is read.
    let (devices, input) =
        crate::devices::read_beside_devices(choice, args.gpus.as_ref(), || args.input.load());
    let devices = devices?;
    let backend = match devices.first() {
        Some(ctx) => urbanflow::Backend::Gpu(ctx),
        None => choice.backend()?,
    };
    let schedule =
        args.schedule.unwrap_or(if choice == BackendChoice::Gpu { Schedule::Single } else { Schedule::Auto });
    let input = input?;
    let (path, loaded, sources, load_s) = (input.path, input.loaded, input.sources, input.load_s);
    let (g, ids) = (&loaded.graph, &loaded.ids);
    // Launch settings given on the command line replace the tuned ones (the others stay tuned).
    let launch_flags = args.workgroup_size.is_some() || args.delta.is_some() || args.slots.is_some();
    // Resolving the backend creates a device: only when launch flags need one.
    let gpu = match if launch_flags { backend.resolve() } else { Resolved::Cpu } {
        #[cfg(not(feature = "gpu"))]
        Resolved::Gpu(ctx) => ctx.unbuilt(),
        #[cfg(feature = "gpu")]
        Resolved::Gpu(ctx) => {
            let tuned = tuning::tune_for(ctx, g, sources.len())?.config;
            Some(BatchConfig {
                workgroup_size: args.workgroup_size.unwrap_or(tuned.workgroup_size),
                delta: args.delta.unwrap_or(tuned.delta),
                slots: args.slots.unwrap_or(tuned.slots),
                ..tuned
            })
        }
        _ => None,
    };
    let opts =
        ManyOptions { backend, schedule, gpu, devices: &devices, method: args.method, ..Default::default() };
    let clock = crate::devices::SetupClock::start(&devices);
    let t = Instant::now();
    // A sink every GPU's thread may call at once: the rows never leave their readback buffers.
    let (sum, count) = (AtomicU64::new(0), AtomicUsize::new(0));
    // Trees done on stderr: a bar on a terminal, a line every few seconds in a log.
    let progress =
        std::sync::Mutex::new(crate::progress::Progress::new("trees", sources.len() as u64, args.json));
    let out = many_to_all_shared(g, &sources, &opts, |b| {
        sum.fetch_add(crate::args::graph::row_checksum(b.dist), Ordering::Relaxed);
        let done = count.fetch_add(b.sources.len(), Ordering::Relaxed) + b.sources.len();
        if let Ok(mut p) = progress.lock() {
            p.update(done as u64, || format!("{done} of {} trees", sources.len()));
        }
    })?;
    if let Ok(p) = progress.into_inner() {
        p.finish();
    }
    let (checksum, trees) = (sum.into_inner(), count.into_inner());
    let total_s = t.elapsed().as_secs_f64();
    // Tuning happens once per adapter and graph (then it is read from the cache), the hierarchy's order
    // once per graph, device and pipelines once per process: all timed apart. (Tuning compiles its
    // candidates' pipelines: what it took covers those.)
    let (setup_s, work_s) = clock.split(total_s, &devices);
    let setup_inside = total_s - work_s;
    let solve_s = (total_s - out.preprocess_s - out.tune_s.max(setup_inside)).max(1e-12);
    if trees != sources.len() {
        return Err(format!("internal error: {trees} trees delivered for {} sources", sources.len()).into());
    }
    let trees_per_s = trees as f64 / solve_s;
    // The rows the sink received per second: on a GPU, what crossed the host link (4 bytes a label).
    let rows_gb_per_s = trees as f64 * g.num_vertices() as f64 * 4.0 / solve_s / 1e9;
    let threads = rayon::current_num_threads();
    let device = match (out.gpu_trees, GpuContext::shared().filter(|_| GpuContext::shared_is_created())) {
        (1.., _) if !devices.is_empty() => crate::devices::backend_name(backend, &devices),
        (1.., Some(ctx)) => Resolved::Gpu(ctx).to_string(),
        _ => format!("cpu ({threads} threads)"),
    };
    let why = out.decision.as_ref().map_or("asked for".to_string(), |d| d.reason.clone());
    if args.json {
        let src: Vec<u64> = sources.iter().map(|&s| ids[s as usize]).collect();
        let gpu_config = out.gpu_config.map(|c| {
            serde_json::json!({
                "workgroup_size": c.workgroup_size, "slots": c.slots, "delta": c.delta, "budget": c.budget,
            })
        });
        let json = serde_json::json!({
            "graph": path.display().to_string(),
            "format": loaded.format.to_string(),
            "n": g.num_vertices(),
            "m": g.num_arcs(),
            "device": device,
            "schedule": format!("{:?}", out.schedule),
            "why": why,
            "threads": threads,
            "sources": src,
            "trees": trees,
            "gpu_trees": out.gpu_trees,
            "gpu_trees_per_device": out.gpu_trees_per_device,
            "cpu_trees": out.cpu_trees,
            "trees_per_s": trees_per_s,
            "rows_gb_per_s": rows_gb_per_s,
            "checksum": checksum,
            "solve_s": solve_s,
            "setup_s": setup_s,
            "load_s": load_s,
            "tune_s": out.tune_s,
            "gpu_config": gpu_config,
            "method": format!("{:?}", out.method),
            "preprocess_s": out.preprocess_s,
            "hierarchy": out.hierarchy,
        });
        println!("{json}");
    } else {
        println!(
            "graph     {} ({} format, {} vertices, {} arcs, read in {load_s:.2} s)",
            path.display(),
            loaded.format,
            g.num_vertices(),
            g.num_arcs()
        );
        println!("device    {device}, schedule {:?}", out.schedule);
        println!("why       {why}");
        if let Some(c) = out.gpu_config {
            println!("gpu       {c:?} (tuning took {:.2} s)", out.tune_s);
        }
        println!("method    {:?}", out.method);
        if out.preprocess_s > 0.0 {
            println!("preproc   {} in {:.2} s (not in the time below)", out.hierarchy, out.preprocess_s);
        }
        println!("trees     {trees} ({} on the GPU, {} on the CPU)", out.gpu_trees, out.cpu_trees);
        println!(
            "time      {solve_s:.3} s, {trees_per_s:.1} trees/s, rows at {rows_gb_per_s:.1} GB/s (GPU setup {setup_s:.3} s apart)"
        );
        println!("checksum  {checksum}");
    }
    Ok(())
}
