//! The graph-file arguments (`--graph`, `--format`, ...) and the sources of many-source commands.

use std::path::PathBuf;

use super::files::{bundled, input_file, lenient_hint, print_warnings};
use crate::outcome::Error;

/// Sources of the many-source commands: `all`, `zones` (TNTP zones) or a count of distinct vertices
/// drawn with `seed` (a partial Fisher–Yates shuffle: the same vertices on every backend and rank).
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

/// Sum of the reached distances of some rows mod 2^64 (the many-source commands' checksum, equal for
/// every method, backend and rank count).
pub fn row_checksum(rows: &[u32]) -> u64 {
    use rayon::prelude::*;
    rows.par_chunks(4096)
        .map(|c| c.iter().filter(|&&d| d != u32::MAX).fold(0u64, |s, &d| s.wrapping_add(d as u64)))
        .reduce(|| 0, u64::wrapping_add)
}

/// The graph-file arguments every graph example shares: `--graph`, `--format`, `--units`, `--lenient`.
#[derive(clap::Args, Debug, Clone)]
pub struct GraphArgs {
    /// Graph file: DIMACS .gr, PACE .gr, edge list or TNTP _net (plain, .gz or .xz). Default: the
    /// command's bundled graph.
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
pub struct LoadedInput {
    /// The file read.
    pub path: PathBuf,
    /// The graph, ids, zones and format.
    pub loaded: urbanflow::graph::io::LoadedGraph,
    /// Seconds reading the file.
    pub load_s: f64,
}

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

/// The many-source commands' input: a graph file and the sources.
#[derive(clap::Args)]
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
