//! What the examples share: exit codes (0 done, 1 error, 2 a target missed), progress on stderr, and the
//! argument groups of examples that read the same inputs.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

// What every command does first (the doctor, which shares nothing else, includes it alone).
#[path = "startup.rs"]
pub mod startup;

use urbanflow::tap::{Demand, Network};

/// The exit codes, as every `--help` states them.
pub const EXIT_CODES: &str = "Exit codes: 0 success, 1 error (bad input or arguments, failed run), \
                              2 a target not reached (gap, iteration cap, time limit; named on stderr).";

/// How a run that did its work ended.
#[allow(dead_code)] // only the examples with targets return Missed
pub enum Outcome {
    /// Everything asked for was done.
    Done,
    /// The result is printed, but a target was not reached (the text names it).
    Missed(String),
    /// Ctrl-C stopped the run; what it had done is printed and written (the text says what).
    Interrupted(String),
}

#[allow(dead_code)] // only the examples with targets
impl Outcome {
    /// Done, or the target named by `missed`.
    pub fn missed_if(missed: Option<String>) -> Self {
        missed.map_or(Outcome::Done, Outcome::Missed)
    }
}

impl From<()> for Outcome {
    fn from((): ()) -> Self {
        Outcome::Done
    }
}

/// What an example's `run` fails with: any library error (each crate's one error enum, kept whole so
/// `?` needs no conversion) or a message about the command line.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// The exit code of `run`'s result: 0 when done, 2 with `target not reached: …` on stderr when a target
/// was missed, 1 with `error: …` on stderr for an error.
#[allow(dead_code)] // graph_stats reports its own errors
pub fn finish<T: Into<Outcome>>(result: Result<T, Error>) -> ExitCode {
    match result.map(Into::into) {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::Missed(why)) => {
            eprintln!("target not reached: {why}");
            ExitCode::from(2)
        }
        // 128 + SIGINT, as a shell reports a process that Ctrl-C ended.
        Ok(Outcome::Interrupted(what)) => {
            eprintln!("interrupted: {what}");
            ExitCode::from(130)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The flag Ctrl-C sets: the first press asks the run to stop where it can keep its results (an
/// assignment at the end of its iteration, [`urbanflow::tap::AssignOptions::cancel`]); a second press
/// ends the process at once with 130.
#[allow(dead_code)] // only the examples that stop cleanly
pub fn interrupt_flag() -> &'static std::sync::atomic::AtomicBool {
    use std::sync::atomic::{AtomicBool, Ordering};
    static FLAG: AtomicBool = AtomicBool::new(false);
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let installed = ctrlc::set_handler(|| {
            if FLAG.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            eprintln!("\ninterrupted: stopping at the end of this iteration (Ctrl-C again to quit now)");
        });
        // Without a handler (another one installed by an embedding program) Ctrl-C ends the process
        // as it would anyway.
        if let Err(e) = installed {
            eprintln!("note: Ctrl-C will end the run without its results ({e})");
        }
    });
    &FLAG
}

/// Parses the command line; a usage error exits with 1 (clap's own default, 2, is the code of a
/// missed target here), `--help` and `--version` with 0. Called first in `main`, it also quiets the
/// device probe ([`startup::quiet_device_probe`]).
pub fn parse_args<A: clap::Parser>() -> A {
    startup::quiet_device_probe();
    A::try_parse().unwrap_or_else(|e| {
        let _ = e.print();
        std::process::exit(if e.use_stderr() { 1 } else { 0 })
    })
}

/// The one default rule of every example's `--backend`: the flag as given, else `$URBANFLOW_BACKEND`,
/// else `auto` (each library's measured choice, which never runs slower than the CPU and says why).
/// Lowercase, so `GPU` and `gpu` mean the same.
#[allow(dead_code)] // not every example has a backend
pub fn backend_flag(flag: Option<&str>) -> String {
    flag.map(str::to_string)
        .or_else(|| std::env::var("URBANFLOW_BACKEND").ok())
        .unwrap_or_else(|| "auto".into())
        .trim()
        .to_ascii_lowercase()
}

/// An input file argument: as given when it exists, else under `$URBANFLOW_DATA` (or the `shared/data`
/// beside the checkout), where the documentation's `../shared/data/…` names are looked up too.
#[allow(dead_code)] // not every example reads files
pub fn input_file(s: &str) -> Result<PathBuf, Error> {
    let root = urbanflow::graph::datasets::data_root();
    Ok(urbanflow::graph::datasets::resolve_input(Path::new(s), root.as_deref()))
}

/// Progress of a long run on stderr: a bar on a terminal; elsewhere (a pipe, a CI log, a batch job) a
/// plain line at most every few seconds, so that a log shows the run is alive.
#[allow(dead_code)] // not every example runs long
pub struct Progress {
    bar: Option<indicatif::ProgressBar>,
    what: String,
    start: Instant,
    last_line: Option<Instant>,
    every: Duration,
}

#[allow(dead_code)] // not every example uses every method
impl Progress {
    /// Progress towards `total` steps of `what` (hidden entirely when `quiet`).
    pub fn new(what: &str, total: u64, quiet: bool) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let bar = (terminal && !quiet).then(|| {
            let bar = indicatif::ProgressBar::new(total.max(1));
            bar.set_style(
                indicatif::ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {msg}")
                    .expect("valid template"),
            );
            bar
        });
        // URBANFLOW_PROGRESS_SECONDS sets the interval of the plain lines (default 3 s; 0: every step).
        let interval = std::env::var("URBANFLOW_PROGRESS_SECONDS").ok().and_then(|s| s.parse::<f64>().ok());
        let every = match (quiet, terminal) {
            (true, _) | (false, true) => Duration::MAX,
            _ => Duration::from_secs_f64(interval.unwrap_or(3.0).clamp(0.0, 86_400.0)),
        };
        Self { bar, what: what.to_string(), start: Instant::now(), last_line: None, every }
    }

    /// `done` steps of the total, with a message.
    pub fn update(&mut self, done: u64, message: impl FnOnce() -> String) {
        if let Some(bar) = &self.bar {
            bar.set_position(done);
            bar.set_message(message());
            return;
        }
        let due = self.last_line.map_or(self.start.elapsed(), |t| t.elapsed());
        if self.every != Duration::MAX && due >= self.every {
            self.last_line = Some(Instant::now());
            eprintln!("[{:7.1} s] {}: {}", self.start.elapsed().as_secs_f64(), self.what, message());
        }
    }

    /// Removes the bar.
    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The small road graph bundled in `examples/data`: the default input of the graph examples.
#[allow(dead_code)] // not every example reads a graph
pub fn bundled_road_graph() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data/small-road.gr.gz");
    p.canonicalize().unwrap_or(p)
}

/// The GPUs of `--gpus` (none when the flag is absent); an empty selection (`all` on a machine with no
/// hardware GPU) is an error, not a silent CPU run.
#[allow(dead_code)] // only the examples with --gpus
pub fn open_gpus(
    selection: Option<&urbanflow::gpu::devices::DeviceSelection>,
) -> Result<Vec<urbanflow::gpu::GpuContext>, Error> {
    let Some(sel) = selection else { return Ok(Vec::new()) };
    #[cfg(not(feature = "gpu"))]
    return Err(format!("--gpus {sel}: {}", urbanflow::gpu::GpuError::NotBuilt).into());
    #[cfg(feature = "gpu")]
    let devices =
        urbanflow::gpu::devices::open(sel, &Default::default()).map_err(|e| format!("--gpus {sel}: {e}"))?;
    #[cfg(feature = "gpu")]
    if devices.is_empty() {
        let found = urbanflow::gpu::devices::list(&Default::default());
        return Err(format!(
            "--gpus {sel}: no hardware GPU (found: {}); name a software adapter by index to test with it",
            if found.is_empty() {
                "none".to_string()
            } else {
                found.iter().map(|a| a.to_string()).collect::<Vec<_>>().join("; ")
            }
        )
        .into());
    }
    #[cfg(feature = "gpu")]
    Ok(devices)
}

/// Runs `read` (the input files) on this thread while the devices start on another: the GPUs of
/// `--gpus`, else the shared device of `--backend gpu` (`choice.backend()` afterwards finds it; `auto`
/// and `cpu` create none here, since auto may not use one). Creating a device takes about 0.1 s warm,
/// more on a driver's first start, about what reading a city's files takes: the run pays the longer of
/// the two instead of their sum.
#[allow(dead_code)] // only the GPU examples
pub fn read_beside_devices<T>(
    choice: urbanflow::gpu::BackendChoice,
    gpus: Option<&urbanflow::gpu::devices::DeviceSelection>,
    read: impl FnOnce() -> T,
) -> (Result<Vec<urbanflow::gpu::GpuContext>, Error>, T) {
    std::thread::scope(|scope| {
        let opening = scope.spawn(move || -> Result<_, Error> {
            let devices = open_gpus(gpus)?;
            if devices.is_empty() && choice == urbanflow::gpu::BackendChoice::Gpu {
                urbanflow::gpu::GpuContext::shared();
            }
            Ok(devices)
        });
        let read = read();
        (opening.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)), read)
    })
}

/// Splits a run's wall time into GPU setup and work, the same way in every example: `setup_s` is device
/// creation (of the process's shared device and of `--gpus` devices) plus shader and pipeline
/// compilation during the run (the slowest device's, where several compile at once); `solve_s` is the
/// run's wall time less the setup paid inside it. CPU runs report `setup_s` 0.
#[allow(dead_code)] // only the GPU examples
pub struct SetupClock {
    /// Compile time per context when the clock started (shared context first).
    compiled: Vec<std::time::Duration>,
    shared_existed: bool,
}

#[allow(dead_code)] // only the GPU examples
impl SetupClock {
    /// Starts just before the work (after any device opened for `--gpus`).
    pub fn start(devices: &[urbanflow::gpu::GpuContext]) -> Self {
        Self { compiled: Self::compile_times(devices), shared_existed: Self::shared().is_some() }
    }

    fn shared() -> Option<&'static urbanflow::gpu::GpuContext> {
        urbanflow::gpu::GpuContext::shared_is_created().then(urbanflow::gpu::GpuContext::shared).flatten()
    }

    fn compile_times(devices: &[urbanflow::gpu::GpuContext]) -> Vec<std::time::Duration> {
        let shared = Self::shared().map_or(std::time::Duration::ZERO, |c| c.compile_time());
        std::iter::once(shared).chain(devices.iter().map(|d| d.compile_time())).collect()
    }

    /// `(setup_s, solve_s)` of a run of `wall_s` seconds on the shared device and `devices`.
    pub fn split(&self, wall_s: f64, devices: &[urbanflow::gpu::GpuContext]) -> (f64, f64) {
        let now = Self::compile_times(devices);
        let compiled =
            now.iter().zip(&self.compiled).map(|(n, b)| n.saturating_sub(*b)).max().unwrap_or_default();
        let shared_created = Self::shared().map_or(0.0, |c| c.creation_time().as_secs_f64());
        // A device created during the run is setup inside the wall time; one created before it is
        // setup the process paid all the same.
        let inside = if self.shared_existed { 0.0 } else { shared_created };
        let created = shared_created + devices.iter().map(|d| d.creation_time().as_secs_f64()).sum::<f64>();
        let setup = created + compiled.as_secs_f64();
        (setup, (wall_s - inside - compiled.as_secs_f64()).max(0.0))
    }
}

/// Where loading or trees ran, for reports: the GPUs of `--gpus`, else the backend.
#[allow(dead_code)] // only the examples with --gpus
pub fn backend_name(backend: urbanflow::Backend, devices: &[urbanflow::gpu::GpuContext]) -> String {
    match devices.len() {
        0 => backend.resolve().to_string(),
        1 => format!("gpu ({})", devices[0].info.name),
        k => format!(
            "{k} gpus ({})",
            devices.iter().map(|d| d.info.name.as_str()).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// Sources of the many-source examples: `all`, `zones` (TNTP zones) or a count of distinct vertices
/// drawn with `seed` (a partial Fisher–Yates shuffle: the same vertices on every backend and rank).
#[allow(dead_code)] // only the many-source examples
pub fn pick_sources(spec: &str, n: u32, zones: Option<&[u32]>, seed: u64) -> Result<Vec<u32>, Error> {
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
                return Err(format!("--sources {k}: the graph has only {n} vertices").into());
            }
            let mut rng = urbanflow::graph::rng::SplitMix64::new(seed);
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

/// Sum of the reached distances of some rows mod 2^64 (the many-source examples' checksum, equal for
/// every method, backend and rank count).
#[allow(dead_code)] // only the many-source examples
pub fn row_checksum(rows: &[u32]) -> u64 {
    use rayon::prelude::*;
    rows.par_chunks(4096)
        .map(|c| c.iter().filter(|&&d| d != u32::MAX).fold(0u64, |s, &d| s.wrapping_add(d as u64)))
        .reduce(|| 0, u64::wrapping_add)
}

/// A file bundled in `examples/data`.
#[allow(dead_code)] // not every example reads one
pub fn bundled(name: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data").join(name);
    p.canonicalize().unwrap_or(p)
}

/// The `_trips` file beside a `_net` file (same name with `_net` → `_trips`, any compression).
#[allow(dead_code)] // only the assignment examples
pub fn trips_beside(net: &Path) -> Result<PathBuf, Error> {
    let found = urbanflow::graph::io::tntp::companion(net, "trips");
    Ok(found.ok_or_else(|| {
        format!(
            "no _trips.tntp[.gz|.xz] beside {} (named like it, `_net` → `_trips`): pass --trips",
            net.display()
        )
    })?)
}

/// The model and stop rule of the assignment examples (`assign`, `assign_mpi`).
#[derive(clap::Args)]
#[allow(dead_code)] // only the assignment examples
pub struct ModelArgs {
    /// TNTP network file (`_net.tntp`, plain, .gz or .xz). Default: the bundled Sioux Falls network.
    #[arg(long, value_parser = input_file)]
    pub net: Option<PathBuf>,
    /// TNTP trips file. Default: the `_trips` file beside the network.
    #[arg(long, value_parser = input_file)]
    pub trips: Option<PathBuf>,
    /// Time units per toll unit in the generalised cost.
    #[arg(long, default_value_t = 0.0)]
    pub toll_factor: f64,
    /// Time units per length unit in the generalised cost.
    #[arg(long, default_value_t = 0.0)]
    pub distance_factor: f64,
    /// Multiply every OD flow by this.
    #[arg(long, default_value_t = 1.0)]
    pub demand_scale: f64,
    /// msa, fw, cfw, bfw, or b (Algorithm B: bush-based, for gaps down to 1e-12; CPU, `assign` only).
    #[arg(long, default_value = "bfw")]
    pub algorithm: urbanflow::tap::Algorithm,
    /// Stop at this relative gap (TSTT − SPTT) / TSTT.
    #[arg(long, default_value_t = 1e-4)]
    pub gap: f64,
    /// Stop after this many iterations.
    #[arg(long, default_value_t = urbanflow::tap::Stop::DEFAULT_MAX_ITERATIONS)]
    pub max_iters: u32,
    /// Stop after this many seconds.
    #[arg(long)]
    pub max_seconds: Option<f64>,
    /// Solve for the system optimum instead of user equilibrium.
    #[arg(long)]
    pub system_optimum: bool,
    /// Accept files whose rows disagree with their header (a `<TOTAL OD FLOW>` the entries do not add up
    /// to, more node or zone ids than declared, a last row cut short): the disagreements are printed as
    /// warnings on stderr instead of refusing the file.
    #[arg(long)]
    pub lenient: bool,
    /// Parse the trips text even when urbanflow's cache folder holds this trip table already parsed
    /// (for this network), and keep nothing there.
    #[arg(long)]
    pub no_cache: bool,
}

#[allow(dead_code)] // only the assignment examples
impl ModelArgs {
    /// The network and trips files (the bundled Sioux Falls network by default); a missing network
    /// file is the error, not the trips file guessed from its name.
    pub fn files(&self) -> Result<(PathBuf, PathBuf), Error> {
        match &self.net {
            None => Ok((
                bundled("SiouxFalls_net.tntp"),
                self.trips.clone().unwrap_or_else(|| bundled("SiouxFalls_trips.tntp")),
            )),
            Some(net) => {
                if !net.exists() {
                    return Err(format!("{}: no such network file", net.display()).into());
                }
                let trips = match &self.trips {
                    Some(t) => t.clone(),
                    None => trips_beside(net)?,
                };
                Ok((net.clone(), trips))
            }
        }
    }

    /// Reads the network and the demand (scaled by `--demand-scale`); with `--lenient`, what disagrees
    /// with the files' headers is printed on stderr as `warning: file:line: …`. The trip table comes
    /// from urbanflow's cache folder when an earlier run parsed it for this network (unless
    /// `--no-cache`); the third value says whether it did.
    pub fn read(&self, net_path: &Path, trips_path: &Path) -> Result<(Network, Demand, bool), Error> {
        use urbanflow::graph::io::ReadOptions;
        use urbanflow::graph::io::tntp::{read_net_with, read_trips_with};
        use urbanflow::tap::demand_cache::{DemandFrom, read_demand_cached};
        let opts = ReadOptions { lenient: self.lenient, ..Default::default() };
        let cache = if self.no_cache { None } else { urbanflow::gpu::tuning::cache_dir() };
        // The cache's key needs the network's node ids, so with a cache the network comes first (0.03 s
        // on Philadelphia); without one both files are read at once.
        let (parsed, text) = match cache {
            Some(_) => (read_net_with(net_path, opts), None),
            None => {
                let (net, trips) =
                    rayon::join(|| read_net_with(net_path, opts), || read_trips_with(trips_path, opts));
                (net, Some(trips))
            }
        };
        let parsed = parsed.map_err(|e| lenient_hint(e.to_string()))?;
        // What the reader had to interpret (columns mapped by position, empty fields read as 0).
        for note in &parsed.notes {
            eprintln!("note: {}: {note}", net_path.display());
        }
        print_warnings(&parsed.warnings);
        let net = Network::from_tntp(&parsed, self.factors())?;
        let (demand, cached) = match text {
            Some(trips) => {
                let trips = trips.map_err(|e| lenient_hint(e.to_string()))?;
                print_warnings(&trips.warnings);
                (Demand::from_tntp(&trips, &net)?, false)
            }
            None => {
                let read = read_demand_cached(trips_path, &net, opts, cache.as_deref())
                    .map_err(|e| lenient_hint(e.to_string()))?;
                print_warnings(&read.warnings);
                (read.demand, matches!(read.from, DemandFrom::Cached(_)))
            }
        };
        Ok((net, demand.scaled(self.demand_scale), cached))
    }

    /// What was missed when an assignment stopped before its gap: the iteration cap or the time limit.
    pub fn missed(&self, result: &urbanflow::tap::Assignment) -> Option<String> {
        if result.converged {
            return None;
        }
        let limit = if result.history.len() >= self.max_iters as usize {
            format!("the iteration cap --max-iters {}", self.max_iters)
        } else {
            format!("the time limit --max-seconds {}", self.max_seconds.unwrap_or(f64::INFINITY))
        };
        Some(format!(
            "relative gap {:.3e} is above --gap {:.1e}: stopped by {limit}",
            result.last().relative_gap,
            self.gap
        ))
    }

    /// Toll and distance factors of the generalised cost.
    pub fn factors(&self) -> urbanflow::tap::CostFactors {
        urbanflow::tap::CostFactors { toll: self.toll_factor, distance: self.distance_factor }
    }

    /// Method, objective and stop rule as assignment options (backend and the rest at their defaults).
    pub fn options(&self) -> urbanflow::tap::AssignOptions<'static> {
        use urbanflow::tap::{AssignOptions, Objective, Stop};
        AssignOptions {
            algorithm: self.algorithm,
            objective: if self.system_optimum {
                Objective::SystemOptimum
            } else {
                Objective::UserEquilibrium
            },
            stop: Stop {
                relative_gap: self.gap,
                max_iterations: self.max_iters,
                max_time: self.max_seconds.map(std::time::Duration::from_secs_f64),
                ..Stop::default()
            },
            ..AssignOptions::default()
        }
    }
}

/// Adds how to read a file anyway to an error that `--lenient` would turn into a warning.
#[allow(dead_code)] // only the examples with --lenient
pub fn lenient_hint(message: String) -> String {
    let disagreement = ["declares", "the header announces", "is the file cut", "is it cut short"];
    if disagreement.iter().any(|d| message.contains(d)) {
        format!("{message} (--lenient reads the file anyway, printing this as a warning)")
    } else {
        message
    }
}

/// Prints a reader's warnings (disagreements `--lenient` let through) on stderr.
#[allow(dead_code)] // only the examples with --lenient
pub fn print_warnings(warnings: &[urbanflow::graph::io::ReadWarning]) {
    for w in warnings {
        eprintln!("warning: {w}");
    }
}

/// The graph-file arguments every graph example shares: `--graph`, `--format`, `--units`, `--lenient`.
#[derive(clap::Args, Debug, Clone)]
#[allow(dead_code)] // not every example reads graph files
pub struct GraphArgs {
    /// Graph file: DIMACS .gr, PACE .gr, edge list or TNTP _net (plain, .gz or .xz). Default: the
    /// example's bundled graph.
    #[arg(long, value_parser = input_file)]
    pub graph: Option<PathBuf>,
    /// The file's format: auto, dimacs, dimacs0 (0-based `a u v w`), pace, edges or tntp. `auto` refuses
    /// files that two formats would read differently.
    #[arg(long, default_value = "auto")]
    pub format: urbanflow::graph::io::GraphFormat,
    /// TNTP files: weight units per free-flow time unit.
    #[arg(long, default_value_t = 1000.0)]
    pub units: f64,
    /// Accept a TNTP file whose rows disagree with its header, printing the disagreements as warnings.
    #[arg(long)]
    pub lenient: bool,
    /// Parse the graph file even when urbanflow's cache folder holds it already parsed, and keep
    /// nothing there.
    #[arg(long)]
    pub no_cache: bool,
}

/// A graph read from `--graph`.
#[allow(dead_code)] // not every example reads graph files
pub struct LoadedInput {
    /// The file read.
    pub path: PathBuf,
    /// The graph, ids, zones and format.
    pub loaded: urbanflow::graph::io::LoadedGraph,
    /// Seconds reading the file.
    pub load_s: f64,
}

#[allow(dead_code)] // not every example reads graph files
impl GraphArgs {
    /// Reads `--graph` (or `default()` when not given), printing the warnings of a lenient read.
    pub fn load(&self, default: impl FnOnce() -> PathBuf) -> Result<LoadedInput, Error> {
        use urbanflow::graph::io::{LoadOptions, LoadedGraph, load_graph};
        let path = self.graph.clone().unwrap_or_else(default);
        let t = std::time::Instant::now();
        let read = urbanflow::graph::io::ReadOptions { lenient: self.lenient, ..Default::default() };
        let opts = LoadOptions { format: self.format, tntp_units: self.units, read };
        // Through the cache folder (gpu::parsed_cache): a graph parsed by an earlier run with these
        // options is read back (NY: 0.2-0.35 s of xz and parsing against a few hundredths).
        let cache = if self.no_cache { None } else { urbanflow::gpu::tuning::cache_dir() };
        let key = format!("{opts:?}");
        let parse = || {
            load_graph(&path, &opts).map(|g| {
                let clean = g.warnings.is_empty();
                (g, clean)
            })
        };
        let (loaded, _) = urbanflow::gpu::parsed_cache::through_cache(
            cache.as_deref(),
            "graph",
            1,
            &path,
            key.as_bytes(),
            LoadedGraph::to_bytes,
            LoadedGraph::from_bytes,
            parse,
        )
        .map_err(|e| lenient_hint(e.to_string()))?;
        print_warnings(&loaded.warnings);
        Ok(LoadedInput { path, loaded, load_s: t.elapsed().as_secs_f64() })
    }
}

/// The many-source examples' input: a graph file and the sources.
#[derive(clap::Args)]
#[allow(dead_code)] // only the many-source examples
pub struct GraphSourceArgs {
    #[command(flatten)]
    pub graph: GraphArgs,
    /// `all`, `zones` (TNTP files only) or N distinct vertices drawn with `--seed`. Default: the zones
    /// of a TNTP network, else 1,000 vertices (or all, when fewer).
    #[arg(long)]
    pub sources: Option<String>,
    /// Seed of the drawn sources.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// A loaded graph with the sources asked for.
#[allow(dead_code)] // only the many-source examples
pub struct GraphAndSources {
    /// The file read.
    pub path: PathBuf,
    /// The graph, ids, zones and format.
    pub loaded: urbanflow::graph::io::LoadedGraph,
    /// Sources (internal vertex indices).
    pub sources: Vec<u32>,
    /// Seconds reading the file.
    pub load_s: f64,
}

#[allow(dead_code)] // only the many-source examples
impl GraphSourceArgs {
    /// Reads the graph (default: the bundled Sioux Falls network) and picks the sources.
    pub fn load(&self) -> Result<GraphAndSources, Error> {
        let LoadedInput { path, loaded, load_s } = self.graph.load(|| bundled("SiouxFalls_net.tntp"))?;
        let n = loaded.graph.num_vertices();
        let spec = match &self.sources {
            Some(s) => s.clone(),
            None if loaded.zones.is_some() => "zones".into(),
            None => n.min(1000).to_string(),
        };
        let sources = pick_sources(&spec, n, loaded.zones.as_deref(), self.seed)?;
        Ok(GraphAndSources { path, loaded, sources, load_s })
    }
}

/// The assignment examples' JSON result (files, method, where loading ran, gaps, objective, totals,
/// times, the per-iteration history); each example adds its own fields.
#[allow(dead_code)] // only the assignment examples
pub fn assignment_json(
    files: (&Path, &Path),
    model: &ModelArgs,
    backend: String,
    (net, result): (&urbanflow::tap::Network, &urbanflow::tap::Assignment),
    load_s: f64,
    solve_s: f64,
) -> serde_json::Value {
    let last = result.last();
    let totals = result.totals(net);
    let history: Vec<_> = result
        .history
        .iter()
        .map(|h| {
            serde_json::json!({
                "iter": h.iteration, "seconds": h.seconds, "relative_gap": h.relative_gap,
                "objective": h.objective, "all_or_nothing_s": h.all_or_nothing_s,
            })
        })
        .collect();
    serde_json::json!({
        "net": files.0.display().to_string(),
        "trips": files.1.display().to_string(),
        "algorithm": model.algorithm.to_string(),
        "backend": backend,
        "threads": rayon::current_num_threads(),
        "converged": result.converged,
        "relative_gap": last.relative_gap,
        "relative_gap_sptt": last.relative_gap_sptt,
        "average_excess_cost": last.average_excess_cost,
        "objective": last.objective,
        "tstt": last.tstt,
        "sptt": last.sptt,
        "total_travel_time": totals.travel_time,
        "total_generalised_cost": totals.generalised_cost,
        "total_distance": totals.distance,
        "iterations": result.history.len(),
        "load_s": load_s,
        "solve_s": solve_s,
        // Of solve_s: the all-or-nothing loadings; the rest is setup, link costs, directions and line
        // searches.
        "all_or_nothing_s": result.history.iter().map(|h| h.all_or_nothing_s).sum::<f64>(),
        "history": history,
    })
}

/// A `LAT,LON` point in degrees (WGS 84); `what` names where it came from in the error (`--from`, or a
/// file and line).
#[allow(dead_code)] // only the examples that take coordinates
pub fn lat_lon(s: &str, what: &str) -> Result<(f64, f64), Error> {
    let parsed = s
        .split_once(',')
        .and_then(|(a, b)| Some((a.trim().parse::<f64>().ok()?, b.trim().parse::<f64>().ok()?)));
    match parsed {
        Some((lat, lon)) if (-90.0..=90.0).contains(&lat) && (-180.0..=180.0).contains(&lon) => {
            Ok((lat, lon))
        }
        _ => Err(format!(
            "{what} `{s}`: expected LAT,LON in degrees (latitude in [-90, 90], longitude in [-180, 180]), \
             e.g. 41.1579,-8.6291"
        )
        .into()),
    }
}

/// `--no-turns` and the profile: whether an OSM route obeys turn restrictions and pays turn costs.
/// On by default for cars and bicycles; pedestrians have no restrictions, U-turn anywhere and pay
/// nothing for turning, so their turn graph would give the node graph's answers at twice the size.
#[allow(dead_code)] // the OSM routing examples only
pub fn turns_wanted(profile: urbanflow::graph::osm::Profile, no_turns: bool) -> bool {
    !no_turns && profile != urbanflow::graph::osm::Profile::Walk
}

/// The turn graph of an OSM import with the profile's defaults, and one line saying what it obeys.
#[allow(dead_code)] // the OSM routing examples only
pub fn turn_graph(
    g: &urbanflow::graph::osm::OsmGraph,
) -> Result<(urbanflow::graph::turns::TurnGraph, String), Error> {
    use urbanflow::graph::turns::{TurnGraph, TurnOptions};
    let t = std::time::Instant::now();
    let tg = TurnGraph::from_osm(g, &TurnOptions::for_profile(g.profile))?;
    let r = &g.turn_rules.report;
    let skipped: Vec<String> = r.skipped.iter().map(|(why, n)| format!("{n} {}", why.name())).collect();
    let line = format!(
        "on ({} profile): {} of {} restriction relations applied ({} via node no_*, {} only_*, {} via way), \
         skipped: {}; {} turns banned, U-turns only at dead ends, turn costs after OSRM's {} profile; \
         turn graph {} vertices, {} arcs in {:.2} s (--no-turns ignores turns)",
        g.profile,
        r.applied(),
        r.relations,
        r.via_node_no,
        r.via_node_only,
        r.via_way,
        if skipped.is_empty() { "none".to_string() } else { skipped.join(", ") },
        tg.report.banned_by_restrictions,
        g.profile,
        tg.graph.num_vertices(),
        tg.graph.num_arcs(),
        t.elapsed().as_secs_f64()
    );
    Ok((tg, line))
}

/// The turn-file arguments of the assignment examples.
#[derive(clap::Args, Debug, Clone)]
#[allow(dead_code)] // the assignment examples only
pub struct TurnArgs {
    /// Turn penalties and bans: a `_turns.tntp` file (links as INIT,TERM node ids, a penalty in cost
    /// units or `ban`, optionally per class; format in `tap::turns`). The network is expanded so that
    /// turns are links; flows, skims and select-link stay in the network's own links and zones, and the
    /// gap is the expanded network's. Default: a `_turns.tntp` file beside the network if there is one.
    #[arg(long, value_parser = input_file)]
    pub turns: Option<PathBuf>,
    /// Ignore a `_turns.tntp` file beside the network.
    #[arg(long, conflicts_with = "turns")]
    pub no_turns: bool,
    /// With turns: split every junction into ports, not only those where turns are banned or
    /// penalised, so that every turning movement has a flow.
    #[arg(long)]
    pub split_all_junctions: bool,
}

#[allow(dead_code)] // the assignment examples only
impl TurnArgs {
    /// The expanded network and its table when turns apply (the flag, else a file beside the network).
    pub fn expand(
        &self,
        net_path: &Path,
        net: &Network,
    ) -> Result<Option<(urbanflow::tap::turns::TurnNetwork, urbanflow::tap::turns::TurnTable)>, Error> {
        use urbanflow::tap::turns::{Split, TurnNetwork, TurnTable};
        let path = match &self.turns {
            Some(p) => Some(p.clone()),
            None if self.no_turns => None,
            None => urbanflow::graph::io::tntp::companion(net_path, "turns"),
        };
        let Some(path) = path else { return Ok(None) };
        let table = TurnTable::read(&path, net)?;
        let split = if self.split_all_junctions { Split::Everywhere } else { Split::WhereTurnsMatter };
        Ok(Some((TurnNetwork::build_with(net, &table, split)?, table)))
    }
}

/// One line on what a turn expansion did, for the examples' output.
#[allow(dead_code)] // the assignment examples only
pub fn turns_summary(
    net: &Network,
    expanded: &urbanflow::tap::turns::TurnNetwork,
    table: &urbanflow::tap::turns::TurnTable,
) -> String {
    let banned = table.entries.iter().filter(|t| t.penalty.is_none() && t.class.is_none()).count();
    let split = (0..net.num_nodes() as u32).filter(|&v| expanded.is_split(v)).count();
    format!(
        "{}: {} turns listed ({banned} banned for every class), U-turns {:?}; {split} junctions split, {} turn \
         links; expanded network {} nodes, {} links (the gap is its own)",
        table.path.display(),
        table.entries.len(),
        table.u_turns,
        expanded.turns().len(),
        expanded.network.num_nodes(),
        expanded.network.num_links()
    )
}
