//! A whole travel model's loop on a TNTP network: skims → gravity distribution → assignment → skims,
//! with the gravity model calibrated to the trips file first.
//!
//! ```text
//! urbanflow model --net ../shared/data/tntp/Chicago-Sketch/ChicagoSketch_net.tntp \
//!     --toll-factor 0.02 --distance-factor 0.04 --calibrate expo
//! ```
//! The trips file gives the zones' productions and attractions and, with `--calibrate`, the mean cost
//! the gravity model must reproduce (on the skims of the trips file's own equilibrium). One row per loop
//! (demand change, gap, mean cost); `--json` prints one object; `--out F.csv` (or `.omx`) writes the
//! final matrix, `--skims-out F.omx` the final skims.
//! Exit 2 when the loop stops at `--max-loops` before the demand settles.

use crate::outcome::{Error, Outcome};

use std::path::PathBuf;
use std::time::Instant;

use urbanflow::tap::Stop;
use urbanflow::tap::matrix::{CalibrateOptions, Deterrence, Observed, calibrate_to};
use urbanflow::tap::model::{ModelLoop, ModelOptions, dense_matrix, run_model};
use urbanflow::tap::odme::EquilibriumRoutes;
use urbanflow::tap::skim::skims;

/// Skims ↔ demand feedback: distribute trips by a gravity model, assign them, skim, and again, until the
/// demand settles.
///
/// Example: urbanflow model --net ChicagoSketch_net.tntp --calibrate expo --json
#[derive(clap::Args)]
#[command(version, after_help = crate::outcome::EXIT_CODES)]
pub struct Args {
    /// The network and its trips (for `model`, the productions and attractions; for `odme`, the seed).
    #[command(flatten)]
    input: crate::args::model::NetAndTrips,
    /// The deterrence as given (power:α, expo:β, gamma:α,β).
    #[arg(long, conflicts_with = "calibrate")]
    deterrence: Option<Deterrence>,
    /// Calibrate `expo` (β), `power` (α) or `gamma` (α, β; with `--fit least-squares`) to the trips
    /// file's trip-length distribution on its equilibrium.
    #[arg(long)]
    calibrate: Option<String>,
    /// How --calibrate fits: `mean` (Hyman's method: the mean generalised cost) or `least-squares`
    /// (the shares of trips in cost bands of --band-width).
    #[arg(long, default_value = "mean")]
    fit: String,
    /// The cost band width of the trip-length distribution (default: a tenth of its mean cost).
    #[arg(long)]
    band_width: Option<f64>,
    /// Relative gap of each equilibrium (Algorithm B).
    #[arg(long, default_value_t = 1e-4)]
    gap: f64,
    /// Stop when the matrix changes by less than this (relative, summed over cells).
    #[arg(long, default_value_t = 1e-3)]
    demand_change: f64,
    /// At most this many loops.
    #[arg(long, default_value_t = 50)]
    max_loops: u32,
    /// Write the final matrix here (origin,destination,value in zone ids, or .omx: core `trips`).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write the final skims here (CSV rows, or .omx: cores time, distance, toll, cost).
    #[arg(long)]
    skims_out: Option<PathBuf>,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &Args) -> Result<Outcome, Error> {
    let start = Instant::now();
    let (net, observed) = args.input.read()?;
    let zones = net.num_zones() as usize;
    let dense = dense_matrix(&observed, zones)?;
    let rows: Vec<f64> = dense.chunks(zones).map(|r| r.iter().sum()).collect();
    let cols: Vec<f64> = (0..zones).map(|j| (0..zones).map(|i| dense[i * zones + j]).sum()).collect();
    let stop = Stop { relative_gap: args.gap, ..Stop::default() };
    let (deterrence, calibration) = match (&args.deterrence, args.calibrate.as_deref()) {
        (Some(d), None) => (d.clone(), None),
        (None, Some(form)) => {
            let form = Deterrence::form(form)?;
            let fit = args.fit.parse()?;
            // The trips file's own equilibrium gives the costs its trip lengths are measured on.
            let (routes, _) = EquilibriumRoutes::solve(&net, &observed, stop, false, None)?;
            let mut costs = vec![0.0; net.num_links()];
            net.costs(routes.flows(), &mut costs);
            let base = skims(&net, routes.flows(), &costs)?;
            let opts = CalibrateOptions { fit, band_width: args.band_width, ..CalibrateOptions::default() };
            let c = calibrate_to(&base.cost, Observed::Matrix(&dense), form, &opts)?;
            (c.deterrence.clone(), Some(c))
        }
        _ => return Err("give --deterrence or --calibrate".into()),
    };
    let setup_s = start.elapsed().as_secs_f64();
    let opts = ModelOptions {
        assignment: stop,
        demand_change: args.demand_change,
        max_loops: args.max_loops,
        cancel: Some(crate::outcome::interrupt_flag()),
        ..ModelOptions::new(deterrence.clone())
    };
    if !args.json {
        if let Some(c) = &calibration {
            println!(
                "calibrated {} (mean cost {:.4} observed, {:.4} model; trip-length coincidence ratio {:.3}; {} gravity runs)",
                c.deterrence, c.observed_mean_cost, c.model_mean_cost, c.coincidence_ratio, c.applications
            );
        }
        println!(
            "{:>5} {:>8} {:>12} {:>10} {:>6} {:>10} {:>12}",
            "loop", "seconds", "change", "gap", "iters", "mean cost", "demand"
        );
    }
    let row = |l: &ModelLoop| {
        println!(
            "{:>5} {:>8.3} {:>12.3e} {:>10.3e} {:>6} {:>10.4} {:>12.1}",
            l.iteration,
            setup_s + l.seconds,
            l.demand_change,
            l.relative_gap,
            l.assignment_iterations,
            l.mean_cost,
            l.total_demand
        );
    };
    let result = run_model(&net, &rows, &cols, &opts, |l| {
        if !args.json {
            row(l)
        }
    })?;
    if let Some(out) = &args.out {
        let ids = crate::args::matrices::zone_ids(&net);
        crate::args::matrices::write_matrices(out, &ids, &[("trips", &result.matrix)])?;
    }
    if let Some(out) = &args.skims_out {
        crate::args::matrices::write_skims(out, &net, &result.skims)?;
    }
    let seconds = start.elapsed().as_secs_f64();
    let loops = result.history.len();
    if args.json {
        let history: Vec<serde_json::Value> = result.history.iter().map(|l| serde_json::json!({
            "loop": l.iteration, "seconds": l.seconds, "demand_change": l.demand_change, "relative_gap": l.relative_gap,
            "assignment_iterations": l.assignment_iterations, "mean_cost": l.mean_cost, "total_demand": l.total_demand,
            "ipf_iterations": l.ipf_iterations,
        })).collect();
        let report = serde_json::json!({
            "deterrence": deterrence.to_string(), "calibration_mean_cost": calibration.as_ref().map(|c| c.observed_mean_cost),
            "coincidence_ratio": calibration.as_ref().map(|c| c.coincidence_ratio), "calibration_fit": calibration.as_ref().map(|_| args.fit.clone()),
            "sum_of_squares": calibration.as_ref().map(|c| c.sum_of_squares),
            "setup_s": setup_s, "seconds": seconds, "loops": loops, "converged": result.converged, "history": history,
        });
        println!("{report}");
    } else {
        println!(
            "{} after {loops} loops in {seconds:.3} s (setup {setup_s:.3} s)",
            if result.converged { "settled" } else { "not settled" }
        );
    }
    Ok(Outcome::missed_if(
        (!result.converged).then(|| format!("the demand still changed after --max-loops {}", args.max_loops)),
    ))
}
