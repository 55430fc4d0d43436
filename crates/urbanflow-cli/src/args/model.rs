//! The assignment commands' model arguments (network, trips, cost, method, stop rule), turn files and
//! the JSON result they share.

use std::path::{Path, PathBuf};

use urbanflow::tap::{Demand, Network};

use super::files::{bundled, input_file, lenient_hint, print_warnings};
use crate::outcome::Error;

/// The `_trips` file beside a `_net` file (same name with `_net` → `_trips`, any compression).
pub fn trips_beside(net: &Path) -> Result<PathBuf, Error> {
    let found = urbanflow::graph::io::tntp::companion(net, "trips");
    Ok(found.ok_or_else(|| {
        format!(
            "no _trips.tntp[.gz|.xz] beside {} (named like it, `_net` → `_trips`): pass --trips",
            net.display()
        )
    })?)
}

/// The trips beside a network and the generalised cost's factors: what every command that reads a
/// network and a matrix asks the same way (`assign`, `cluster assign`, `model`, `odme`).
#[derive(clap::Args)]
pub struct TripsAndCost {
    /// TNTP trips file, or an OMX matrix (`.omx`, zone ids = the network's zone node ids; `--core`
    /// and `--mapping` pick one where it has several). Default: the `_trips` file beside the network.
    #[arg(long, value_parser = input_file)]
    pub trips: Option<PathBuf>,
    #[command(flatten)]
    pub omx: crate::args::matrices::OmxSelect,
    /// Time units per toll unit in the generalised cost.
    #[arg(long, default_value_t = 0.0)]
    pub toll_factor: f64,
    /// Time units per length unit in the generalised cost.
    #[arg(long, default_value_t = 0.0)]
    pub distance_factor: f64,
}

impl TripsAndCost {
    /// Toll and distance factors of the generalised cost.
    pub fn factors(&self) -> urbanflow::tap::CostFactors {
        urbanflow::tap::CostFactors { toll: self.toll_factor, distance: self.distance_factor }
    }

    /// `--trips`, else the `_trips` file beside `net`.
    pub fn trips_for(&self, net: &Path) -> Result<PathBuf, Error> {
        match &self.trips {
            Some(t) => Ok(t.clone()),
            None => trips_beside(net),
        }
    }
}

/// Writes link flows and costs to `out`: CSV (`link,from,to,flow,cost`) when it ends in `.csv`, else
/// TNTP `_flow` format (`assign`, `cluster assign`); an error names the file.
pub fn write_flows(out: &Path, net: &Network, flows: &[f64], costs: &[f64]) -> Result<(), Error> {
    use urbanflow::tap::output::{write_flows_csv, write_flows_tntp};
    let written = if out.extension().is_some_and(|e| e == "csv") {
        write_flows_csv(out, net, flows, costs)
    } else {
        write_flows_tntp(out, net, flows, costs)
    };
    Ok(written.map_err(|e| format!("{}: {e}", out.display()))?)
}

/// A network and a trips matrix beside it (`model`, `odme`): the network required, the trips file
/// beside it by default.
#[derive(clap::Args)]
pub struct NetAndTrips {
    /// TNTP network file.
    #[arg(long, value_parser = input_file)]
    pub net: PathBuf,
    #[command(flatten)]
    pub matrix: TripsAndCost,
}

impl NetAndTrips {
    /// Reads the network (with the cost factors) and the trips.
    pub fn read(&self) -> Result<(Network, Demand), Error> {
        let net = Network::read_tntp(&self.net, self.matrix.factors())?;
        let trips = self.matrix.trips_for(&self.net)?;
        let demand = crate::args::matrices::read_demand(&trips, &net, &self.matrix.omx)?;
        Ok((net, demand))
    }
}

/// The model and stop rule of the assignment commands (`assign`, `cluster assign`).
#[derive(clap::Args)]
pub struct ModelArgs {
    /// TNTP network file (`_net.tntp`, plain, .gz or .xz). Default: the bundled Sioux Falls network.
    #[arg(long, value_parser = input_file)]
    pub net: Option<PathBuf>,
    #[command(flatten)]
    pub matrix: TripsAndCost,
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

impl ModelArgs {
    /// The network and trips files (the bundled Sioux Falls network by default); a missing network
    /// file is the error, not the trips file guessed from its name.
    pub fn files(&self) -> Result<(PathBuf, PathBuf), Error> {
        match &self.net {
            None => Ok((
                bundled("SiouxFalls_net.tntp"),
                self.matrix.trips.clone().unwrap_or_else(|| bundled("SiouxFalls_trips.tntp")),
            )),
            Some(net) => {
                if !net.exists() {
                    return Err(format!("{}: no such network file", net.display()).into());
                }
                Ok((net.clone(), self.matrix.trips_for(net)?))
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
        if crate::args::matrices::is_omx(trips_path) {
            let parsed = read_net_with(net_path, opts).map_err(|e| lenient_hint(e.to_string()))?;
            print_warnings(&parsed.warnings);
            let net = Network::from_tntp(&parsed, self.factors())?;
            let demand = crate::args::matrices::read_demand(trips_path, &net, &self.matrix.omx)?;
            return Ok((net, demand.scaled(self.demand_scale), false));
        }
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
        self.matrix.factors()
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

/// The assignment commands' JSON result (files, method, where loading ran, gaps, objective, totals,
/// times, the per-iteration history); each command adds its own fields.
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

/// The turn-file arguments of the assignment commands.
#[derive(clap::Args, Debug, Clone)]
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

/// One line on what a turn expansion did, for the commands' output.
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
