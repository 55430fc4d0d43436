//! Trip distribution on zone matrices: iterative proportional fitting and the gravity model.
//!
//! ```text
//! urbanflow matrix ipf --seed seed.csv --rows rows.csv --cols cols.csv --out trips.csv
//! urbanflow matrix gravity --costs skims.csv --rows rows.csv --cols cols.csv \
//!     --deterrence gamma:-0.5,0.05 --out trips.csv
//! ```
//! Matrices are CSV `origin,destination,value` (zone ids; cells not listed are 0, or unreachable in a
//! cost matrix) or, with the `omx` feature, OMX files (`.omx`; `--core`/`--mapping` pick the input's
//! core and zone ids, `--out X.omx` writes core `trips`); totals are `zone,total` and the zones are the
//! rows file's. A report goes to stderr (`--json`:
//! one JSON object on stdout); exit 2 when IPF stops at `--max-iterations` before `--tolerance`.

use crate::outcome::{Error, Outcome};

use std::path::PathBuf;
use std::time::Instant;

use crate::args::matrices::{OmxSelect, read_matrix, write_matrices};
use clap::{Args as ClapArgs, Subcommand};
use urbanflow::tap::matrix::{
    Balanced, CalibrateOptions, Constraint, Deterrence, IpfOptions, Observed, TripLengths, ZoneTotals,
    calibrate_to, gravity_with_k_factors, ipf_owned,
};

/// Trip distribution: balance a matrix to row and column totals (IPF), or distribute trips by a gravity
/// model over a cost matrix.
///
/// Example: urbanflow matrix ipf --seed seed.csv --rows rows.csv --cols cols.csv --out trips.csv
#[derive(clap::Args)]
#[command(version, after_help = crate::outcome::EXIT_CODES)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Balance a seed matrix to row and column totals (Furness / IPF).
    Ipf {
        /// The seed matrix (origin,destination,value, or .omx).
        #[arg(long, value_parser = crate::args::files::input_file)]
        seed: PathBuf,
        /// cpu, or gpu (the passes over the seed on the GPU, which needs 64-bit floats): on an H200
        /// the GPU is faster only past ~20 iterations (its upload costs about what 15 CPU iterations
        /// on 16 cores do; docs/benchmarks.md, "IPF on the GPU"), so the CPU is the default.
        #[arg(long, default_value = "cpu")]
        backend: String,
        #[command(flatten)]
        common: Shared,
    },
    /// Trips by a doubly (or production) constrained gravity model.
    Gravity {
        /// The cost matrix (origin,destination,value, cells not listed are unreachable; or .omx).
        #[arg(long, value_parser = crate::args::files::input_file)]
        costs: PathBuf,
        /// power:α (c^-α), expo:β (e^-βc) or gamma:α,β (c^α e^-βc), AequilibraE's forms.
        #[arg(long, required_unless_present = "deterrence_table", conflicts_with = "deterrence_table")]
        deterrence: Option<Deterrence>,
        /// Friction factors by cost band instead: CSV `upper,factor` (ascending upper cost bounds;
        /// costs past the last take its factor).
        #[arg(long, value_parser = crate::args::files::input_file)]
        deterrence_table: Option<PathBuf>,
        /// K-factors: a matrix multiplying each cell's seed (CSV cells not listed: 1; or .omx).
        #[arg(long, value_parser = crate::args::files::input_file)]
        k_factors: Option<PathBuf>,
        /// Only the productions are met (attractions weigh destinations).
        #[arg(long)]
        production_constrained: bool,
        #[command(flatten)]
        common: Shared,
    },
    /// Calibrate the gravity model's deterrence to an observed matrix or trip-length distribution.
    Calibrate(CalibrateArgs),
}

/// `matrix calibrate`'s arguments.
#[derive(ClapArgs)]
struct CalibrateArgs {
    /// The cost matrix (origin,destination,value, cells not listed are unreachable; or .omx).
    #[arg(long, value_parser = crate::args::files::input_file)]
    costs: PathBuf,
    /// The observed matrix to reproduce (its totals are the model's; or .omx).
    #[arg(long, value_parser = crate::args::files::input_file, required_unless_present = "lengths")]
    observed: Option<PathBuf>,
    /// The core of an OMX --observed file (its only core by default; `--core` picks the costs' core).
    #[arg(long)]
    observed_core: Option<String>,
    /// Or a trip-length distribution to reproduce: CSV `upper,trips` (ascending upper cost bounds),
    /// with --rows and --cols.
    #[arg(long, value_parser = crate::args::files::input_file, conflicts_with = "observed", requires_all = ["rows", "cols"])]
    lengths: Option<PathBuf>,
    /// Row totals (zone,total): the zones, in this order (needed for CSV matrices and --lengths).
    #[arg(long, value_parser = crate::args::files::input_file)]
    rows: Option<PathBuf>,
    /// Column totals (zone,total).
    #[arg(long, value_parser = crate::args::files::input_file)]
    cols: Option<PathBuf>,
    /// The deterrence's form: expo, power or gamma (gamma: --fit least-squares).
    #[arg(long, default_value = "expo")]
    form: String,
    /// mean (Hyman's method: the mean cost) or least-squares (the band shares of the distribution).
    #[arg(long, default_value = "mean")]
    fit: String,
    /// The band width of an observed matrix's distribution (default: a tenth of its mean cost).
    #[arg(long)]
    band_width: Option<f64>,
    /// The fit's tolerance (relative: mean costs, or the parameters of least squares).
    #[arg(long, default_value_t = 1e-9)]
    tolerance: f64,
    /// Write the calibrated model's matrix here (CSV or .omx).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write the observed and modelled distributions here: CSV `upper,observed,model` (shares).
    #[arg(long)]
    lengths_out: Option<PathBuf>,
    #[command(flatten)]
    omx: OmxSelect,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
}

#[derive(ClapArgs)]
struct Shared {
    /// Row totals (zone,total): the zones, in this order.
    #[arg(long, value_parser = crate::args::files::input_file)]
    rows: PathBuf,
    /// Column totals (zone,total), the same zones.
    #[arg(long, value_parser = crate::args::files::input_file)]
    cols: PathBuf,
    /// Stop when every row and column correction is within this of 1.
    #[arg(long, default_value_t = 1e-12)]
    tolerance: f64,
    /// Stop after this many iterations.
    #[arg(long, default_value_t = 10_000)]
    max_iterations: u32,
    /// Scale the column totals to the rows' total when they differ (refused otherwise).
    #[arg(long)]
    scale_columns: bool,
    /// Write the matrix here (origin,destination,value, cells ≠ 0; or .omx, core `trips`).
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    omx: OmxSelect,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

pub fn run(args: &Args) -> Result<Outcome, Error> {
    let shared = match &args.command {
        Command::Ipf { common, .. } | Command::Gravity { common, .. } => common,
        Command::Calibrate(c) => return run_calibrate(c),
    };
    if let Some(t) = shared.threads {
        rayon::ThreadPoolBuilder::new().num_threads(t).build_global()?;
    }
    let start = Instant::now();
    let rows = ZoneTotals::read_csv(&shared.rows)?;
    let cols = ZoneTotals::read_csv(&shared.cols)?.in_order_of(&rows.zones, "--cols")?;
    let opts = IpfOptions {
        tolerance: shared.tolerance,
        max_iterations: shared.max_iterations,
        scale_columns: shared.scale_columns,
    };
    let (what, input) = match &args.command {
        Command::Ipf { seed, .. } => ("ipf", read_matrix(seed, &rows.zones, 0.0, &shared.omx)?),
        Command::Gravity { costs, .. } => {
            ("gravity", read_matrix(costs, &rows.zones, f64::INFINITY, &shared.omx)?)
        }
        Command::Calibrate(_) => unreachable!("run_calibrate"),
    };
    let read_s = start.elapsed().as_secs_f64();
    let solve = Instant::now();
    let b: Balanced = match &args.command {
        Command::Ipf { backend, .. } => match backend.as_str() {
            // The seed is given away: IPF balances it in place, no second copy of the matrix.
            "cpu" => ipf_owned(input.into_parts().1, &rows.totals, &cols, &opts)?,
            "gpu" => ipf_on_gpu(input.into_parts().1, &rows.totals, &cols, &opts)?,
            other => return Err(format!("--backend {other}: expected cpu or gpu").into()),
        },
        Command::Gravity { deterrence, deterrence_table, k_factors, production_constrained, .. } => {
            let constraint =
                if *production_constrained { Constraint::Production } else { Constraint::Doubly };
            let deterrence = match (deterrence, deterrence_table) {
                (Some(d), _) => d.clone(),
                (None, Some(table)) => Deterrence::read_table(table)?,
                (None, None) => return Err("give --deterrence or --deterrence-table".into()),
            };
            // K-factors are a second input matrix: its core and mapping are the file's only ones.
            let k = match k_factors {
                Some(path) => Some(read_matrix(path, &rows.zones, 1.0, &OmxSelect::default())?),
                None => None,
            };
            let k = k.as_ref().map(|m| m.values());
            gravity_with_k_factors(input.values(), k, &rows.totals, &cols, &deterrence, constraint, &opts)?
        }
        Command::Calibrate(_) => unreachable!("run_calibrate"),
    };
    let solve_s = solve.elapsed().as_secs_f64();
    let total: f64 = b.matrix.iter().sum();
    let zones = rows.zones.len();
    let write = Instant::now();
    if let Some(out) = &shared.out {
        write_matrices(out, &rows.zones, &[("trips", &b.matrix)])?;
    }
    let write_s = write.elapsed().as_secs_f64();
    if shared.json {
        let report = serde_json::json!({
            "command": what, "zones": zones, "iterations": b.iterations, "gap": b.gap,
            "converged": b.converged, "row_residual": b.row_residual, "column_residual": b.column_residual,
            "total": total, "read_s": read_s, "solve_s": solve_s, "write_s": write_s, "seconds": start.elapsed().as_secs_f64(),
        });
        println!("{report}");
    } else {
        eprintln!(
            "{what}: {zones} zones, {} iterations, gap {:.2e}, residuals rows {:.1e} columns {:.1e}, total {total:.4}; \
             read {read_s:.3} s, solve {solve_s:.3} s, write {write_s:.3} s",
            b.iterations, b.gap, b.row_residual, b.column_residual
        );
    }
    Ok(Outcome::missed_if((!b.converged).then(|| {
        format!(
            "gap {:.2e} above --tolerance {:.1e} after --max-iterations {}",
            b.gap, shared.tolerance, shared.max_iterations
        )
    })))
}

/// IPF with its passes on the shared GPU.
#[cfg(feature = "gpu")]
fn ipf_on_gpu(seed: Vec<f64>, rows: &[f64], cols: &[f64], opts: &IpfOptions) -> Result<Balanced, Error> {
    let ctx = urbanflow::gpu::GpuContext::shared().ok_or("--backend gpu: no GPU adapter found")?;
    Ok(urbanflow::tap::matrix::ipf_gpu(ctx, seed, rows, cols, opts, None)?)
}

#[cfg(not(feature = "gpu"))]
fn ipf_on_gpu(_: Vec<f64>, _: &[f64], _: &[f64], _: &IpfOptions) -> Result<Balanced, Error> {
    Err(format!("--backend gpu: {}", urbanflow::gpu::GpuError::NotBuilt).into())
}

/// The zones of a calibration: the rows file's, else the cost matrix's own (OMX).
fn calibration_zones(c: &CalibrateArgs) -> Result<Vec<u64>, Error> {
    if let Some(rows) = &c.rows {
        return Ok(ZoneTotals::read_csv(rows)?.zones);
    }
    if crate::args::matrices::is_omx(&c.costs) {
        return crate::args::matrices::omx_zones(&c.costs, &c.omx);
    }
    Err("CSV matrices name no zone list: give --rows (zone,total) for the zones".into())
}

fn run_calibrate(c: &CalibrateArgs) -> Result<Outcome, Error> {
    let start = Instant::now();
    let zones = calibration_zones(c)?;
    let costs = read_matrix(&c.costs, &zones, f64::INFINITY, &c.omx)?;
    let opts = CalibrateOptions {
        fit: c.fit.parse()?,
        tolerance: c.tolerance,
        band_width: c.band_width,
        ..CalibrateOptions::default()
    };
    let form = Deterrence::form(&c.form)?;
    let observed_matrix;
    let (lengths, rows, cols);
    let target = match (&c.observed, &c.lengths) {
        (Some(path), _) => {
            let select = OmxSelect { core: c.observed_core.clone(), mapping: c.omx.mapping.clone() };
            observed_matrix = read_matrix(path, &zones, 0.0, &select)?;
            Observed::Matrix(observed_matrix.values())
        }
        (None, Some(path)) => {
            lengths = TripLengths::read_csv(path)?;
            let r = ZoneTotals::read_csv(c.rows.as_ref().ok_or("--lengths needs --rows")?)?;
            rows = r.in_order_of(&zones, "--rows")?;
            cols = ZoneTotals::read_csv(c.cols.as_ref().ok_or("--lengths needs --cols")?)?
                .in_order_of(&zones, "--cols")?;
            Observed::Lengths { lengths: &lengths, productions: &rows, attractions: &cols }
        }
        (None, None) => return Err("give --observed or --lengths".into()),
    };
    let read_s = start.elapsed().as_secs_f64();
    let solve = Instant::now();
    let cal = calibrate_to(costs.values(), target, form, &opts)?;
    let solve_s = solve.elapsed().as_secs_f64();
    if let Some(out) = &c.out {
        write_matrices(out, &zones, &[("trips", &cal.matrix)])?;
    }
    if let Some(out) = &c.lengths_out {
        use std::io::Write;
        let mut w = urbanflow::graph::io::create_text(out)?;
        writeln!(w, "upper,observed,model")?;
        let (o, m) = (&cal.observed_lengths, &cal.model_lengths);
        for ((u, p), q) in o.upper().iter().zip(o.shares()).zip(m.shares()) {
            writeln!(w, "{u},{p},{q}")?;
        }
        w.flush()?;
    }
    if c.json {
        let report = serde_json::json!({
            "command": "calibrate", "zones": zones.len(), "deterrence": cal.deterrence.to_string(),
            "fit": c.fit, "observed_mean_cost": cal.observed_mean_cost, "model_mean_cost": cal.model_mean_cost,
            "coincidence_ratio": cal.coincidence_ratio, "sum_of_squares": cal.sum_of_squares,
            "applications": cal.applications, "converged": cal.converged, "bands": cal.observed_lengths.upper().len(),
            "read_s": read_s, "solve_s": solve_s, "seconds": start.elapsed().as_secs_f64(),
        });
        println!("{report}");
    } else {
        eprintln!(
            "calibrated {} ({} fit, {} gravity runs): mean cost {:.4} observed, {:.4} model; coincidence ratio {:.4}, \
             sum of squares {:.3e}; read {read_s:.3} s, solve {solve_s:.3} s",
            cal.deterrence,
            c.fit,
            cal.applications,
            cal.observed_mean_cost,
            cal.model_mean_cost,
            cal.coincidence_ratio,
            cal.sum_of_squares
        );
    }
    Ok(Outcome::missed_if(
        (!cal.converged).then(|| format!("the {} fit did not meet --tolerance {:.1e}", c.fit, c.tolerance)),
    ))
}
