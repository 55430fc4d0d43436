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
use urbanflow::tap::matrix::{Balanced, Constraint, Deterrence, IpfOptions, ZoneTotals, gravity, ipf};

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
        #[command(flatten)]
        common: Shared,
    },
    /// Trips by a doubly (or production) constrained gravity model.
    Gravity {
        /// The cost matrix (origin,destination,value, cells not listed are unreachable; or .omx).
        #[arg(long, value_parser = crate::args::files::input_file)]
        costs: PathBuf,
        /// power:α (c^-α), expo:β (e^-βc) or gamma:α,β (c^α e^-βc), AequilibraE's forms.
        #[arg(long)]
        deterrence: Deterrence,
        /// Only the productions are met (attractions weigh destinations).
        #[arg(long)]
        production_constrained: bool,
        #[command(flatten)]
        common: Shared,
    },
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
    };
    let read_s = start.elapsed().as_secs_f64();
    let solve = Instant::now();
    let b: Balanced = match &args.command {
        Command::Ipf { .. } => ipf(input.values(), &rows.totals, &cols, &opts)?,
        Command::Gravity { deterrence, production_constrained, .. } => {
            let constraint =
                if *production_constrained { Constraint::Production } else { Constraint::Doubly };
            gravity(input.values(), &rows.totals, &cols, *deterrence, constraint, &opts)?
        }
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
