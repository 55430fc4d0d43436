//! A CVRP root lower bound by column generation over q-routes or ng-routes, beside the best-known
//! solution when the instance's folder has one.
//!
//! ```text
//! urbanflow vrp --instance ../shared/data/vrp/X/X-n101-k25.vrp --relaxation ng-route --delta 8
//! ```

use crate::outcome::Error;

use std::path::PathBuf;

use urbanflow::dp::vrp::vrplib::{Rounding, read_solution, read_vrplib};
use urbanflow::dp::vrp::{BoundOptions, MasterLp, PricingBackend, Relaxation, pricer, root_bound_with};

/// Lower bound on a capacitated VRP (VRPLIB file) by column generation: a set-partitioning LP over the
/// routes of a relaxation, priced by its dynamic programme on reduced costs.
///
/// Example: urbanflow vrp --instance X-n101-k25.vrp --relaxation ng-route --delta 8 --json
///
/// Every printed bound is valid (certified from the DP's exact least reduced cost per unit of load),
/// also when a time limit stops the run before the LP converges.
#[derive(clap::Args)]
#[command(version, after_help = crate::outcome::EXIT_CODES)]
pub struct Args {
    /// A VRPLIB CVRP file (EUC_2D distances rounded to the nearest integer unless --exact-distances;
    /// default: the small generated instance in examples/data).
    #[arg(long, value_parser = crate::args::files::input_file)]
    instance: Option<PathBuf>,
    /// q-route or ng-route.
    #[arg(long, default_value = "ng-route")]
    relaxation: String,
    /// ng-neighbourhood size Δ (1..=32).
    #[arg(long, default_value_t = 8)]
    delta: usize,
    /// Where the pricing DP runs: cpu, gpu (needs 64-bit floats in shaders), or auto (a hardware GPU
    /// with them on instances large enough that it was measured faster, else the CPU; the default, or
    /// $URBANFLOW_BACKEND).
    #[arg(long)]
    backend: Option<String>,
    /// Worker threads (default: all cores; 1 = the serial DP).
    #[arg(long)]
    threads: Option<usize>,
    /// Columns added per pricing round at most (the most negative routes).
    #[arg(long, default_value_t = 100)]
    columns: usize,
    /// Wentges dual smoothing α in [0, 1) (0: price at the LP duals).
    #[arg(long, default_value_t = 0.8)]
    smoothing: f64,
    /// Master columns per customer at most before the ones of largest reduced cost are purged down
    /// to half (0: never).
    #[arg(long, default_value_t = 20)]
    columns_per_customer: usize,
    /// The master LP's solver: simplex (warm-started from the last round's basis; the default) or
    /// interior-point (Clarabel, from scratch every round).
    #[arg(long, default_value = "simplex")]
    master: String,
    /// Stop after this many seconds (the bound so far is still valid).
    #[arg(long)]
    max_seconds: Option<f64>,
    /// Real EUC_2D distances instead of the literature's rounding.
    #[arg(long)]
    exact_distances: bool,
    /// Print one JSON object (progress lines go to stderr).
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<crate::outcome::Outcome, Error> {
    if let Some(t) = args.threads {
        rayon::ThreadPoolBuilder::new().num_threads(t).build_global()?;
    }
    let backend = match crate::devices::backend_flag(args.backend.as_deref()).as_str() {
        "cpu" => PricingBackend::Cpu,
        "gpu" => PricingBackend::Gpu,
        "auto" => PricingBackend::Auto,
        other => return Err(format!("--backend {other}: expected cpu, gpu or auto").into()),
    };
    let path = args.instance.clone().unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data/small-cvrp.vrp")
    });
    let rounding = if args.exact_distances { Rounding::Exact } else { Rounding::Nint };
    let inst = read_vrplib(&path, rounding)?;
    let relaxation = match args.relaxation.as_str() {
        "q-route" => Relaxation::QRoute,
        "ng-route" => Relaxation::NgRoute { delta: args.delta },
        other => return Err(format!("--relaxation {other}: expected q-route or ng-route").into()),
    };
    let master = match args.master.as_str() {
        "simplex" => MasterLp::Simplex,
        "interior-point" => MasterLp::InteriorPoint,
        other => return Err(format!("--master {other}: expected simplex or interior-point").into()),
    };
    let opts = BoundOptions {
        relaxation,
        master,
        parallel: rayon::current_num_threads() > 1,
        max_seconds: args.max_seconds,
        columns_per_round: args.columns,
        smoothing: args.smoothing,
        columns_per_customer: args.columns_per_customer,
        ..BoundOptions::default()
    };
    // The pricer's device and pipelines are setup (`setup_s`); `solve_s` is the bound's own clock,
    // which starts once the pricer exists.
    let clock = crate::devices::SetupClock::start(&[]);
    let started = std::time::Instant::now();
    let (mut engine, engine_name) = pricer(&inst, &opts, backend)?;
    eprintln!("pricing on {engine_name}");
    let report = root_bound_with(&inst, &opts, engine.as_mut(), &mut |r| {
        eprintln!(
            "round {:4}  LP {:12.3}  bound {:12.3}  least reduced cost {:10.3}  +{:3} columns  {:7.2} s (pricing {:.3} s, LP {:.3} s)",
            r.round, r.lp_value, r.bound, r.min_reduced_cost, r.added, r.seconds, r.pricing_s, r.lp_s
        );
    })?;
    let (setup_s, _) = clock.split(started.elapsed().as_secs_f64(), &[]);
    let solve_s = report.seconds;
    let sol_path = path.with_extension("sol");
    let best_known = if sol_path.exists() { Some(read_solution(&sol_path)?.cost) } else { None };
    let gap = best_known.map(|b| 100.0 * (b - report.lower_bound) / b);
    if args.json {
        let v = serde_json::json!({
            "instance": inst.name(),
            "customers": inst.customers(),
            "capacity": inst.capacity(),
            "relaxation": args.relaxation,
            "delta": matches!(relaxation, Relaxation::NgRoute { .. }).then_some(args.delta),
            "backend": engine_name,
            "lower_bound": report.lower_bound,
            "converged": report.converged,
            "best_known": best_known,
            "gap_percent": gap,
            "iterations": report.rounds,
            "columns": report.columns,
            "solve_s": solve_s,
            "setup_s": setup_s,
            "pricing_s": report.pricing_s,
            "lp_s": report.lp_s,
            "master": args.master,
            "lp_pivots": report.lp_pivots,
        });
        println!("{v}");
    } else {
        println!("{}: {} customers, capacity {}", inst.name(), inst.customers(), inst.capacity());
        println!(
            "lower bound {:.3} ({}, {} rounds, {} columns, {:.2} s of which pricing {:.2} s on {engine_name}, LP {:.2} s; GPU setup {setup_s:.3} s apart){}",
            report.lower_bound,
            args.relaxation,
            report.rounds,
            report.columns,
            solve_s,
            report.pricing_s,
            report.lp_s,
            if report.converged { "" } else { " — stopped before convergence: still a valid bound" }
        );
        match (best_known, gap) {
            (Some(b), Some(g)) => println!("best known  {b} (gap {g:.2} %)"),
            _ => println!("best known  no .sol file beside the instance"),
        }
    }
    // Stopped by a limit (--max-seconds, or the library's round cap): the bound is valid but not the root bound asked for (exit code 2).
    Ok(crate::outcome::Outcome::missed_if((!report.converged).then(|| {
        format!(
            "column generation stopped after {} rounds (the time or round limit), before convergence (the bound {:.3} is \
             valid but weaker than the relaxation's)",
            report.rounds, report.lower_bound
        )
    })))
}
