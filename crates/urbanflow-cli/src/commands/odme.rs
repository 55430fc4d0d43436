//! Origin–destination matrix estimation from link counts (Spiess's gradient method on the equilibrium).
//!
//! ```text
//! urbanflow odme --net ../shared/data/tntp/Chicago-Sketch/ChicagoSketch_net.tntp \
//!     --counts ../shared/data/counts/chicago-sketch/measurement.csv --toll-factor 0.02 --distance-factor 0.04 \
//!     --outer 10 --out estimated_trips.tntp
//! ```
//! Prints one row per outer iteration (objective, RMSE, R², share of counts with GEH < 5, demand, step)
//! as it ends; `--json` prints one JSON object instead. `--out F` writes the estimated matrix (TNTP
//! `_trips`, or `origin,destination,demand` when F ends in `.csv`); `--counted-out F.csv` writes every
//! counted link's count, assigned flow and GEH. Exit 2 when the fit misses `--target`.
//!
//! With `--classes F` (the class file of `assign --classes`), one matrix per class is estimated; counts
//! may then name a class in a `class` column, and `--out trips.tntp` writes `trips_<class>.tntp` per
//! class.

use crate::outcome::{Error, Outcome};

use std::path::PathBuf;

use urbanflow::tap::Stop;
use urbanflow::tap::multiclass::read_classes;
use urbanflow::tap::odme::{
    CountUnits, LinkCounts, OdmeIteration, OdmeOptions, estimate_od, estimate_od_classes,
};

/// Estimates an origin–destination matrix whose equilibrium reproduces link counts, from a seed matrix.
///
/// Example: urbanflow odme --net ChicagoSketch_net.tntp --counts measurement.csv --outer 10 --out trips.tntp
#[derive(clap::Args)]
#[command(version, after_help = crate::outcome::EXIT_CODES)]
pub struct Args {
    /// The network and its trips (for `model`, the productions and attractions; for `odme`, the seed).
    #[command(flatten)]
    input: crate::args::model::NetAndTrips,
    /// Link counts as CSV with a header: `from,to,count` (node ids) or `link,count` (1-based link
    /// number), optional `weight`, optional `class` (a class of --classes; empty for all vehicles);
    /// Path4GMNS's measurement.csv is read as it is.
    #[arg(long, value_parser = crate::args::files::input_file)]
    counts: PathBuf,
    /// Several user classes, one matrix each: a class file (name, PCE, demand share of the seed or a
    /// trips file, toll factor, distance factor, banned links; see `assign --classes`).
    #[arg(long, value_parser = crate::args::files::input_file)]
    classes: Option<PathBuf>,
    /// What counts of all classes count when a class's PCE is not 1: `vehicles` or `pce` (units).
    #[arg(long, value_enum, requires = "classes")]
    all_counts: Option<AllCounts>,
    /// Outer iterations (gradient steps, each followed by a warm equilibrium).
    #[arg(long, default_value_t = 10)]
    outer: u32,
    /// Relative gap of each inner equilibrium (Algorithm B).
    #[arg(long, default_value_t = 1e-4)]
    inner_gap: f64,
    /// No cell changes by more than this factor per outer iteration.
    #[arg(long, default_value_t = 10.0)]
    max_change: f64,
    /// The share of counted links that must end with GEH < 5 (else exit 2).
    #[arg(long, default_value_t = 0.95)]
    target: f64,
    /// Multiply every seed cell by exp(N(0, σ²)) first, seeded by --perturb-seed: a synthetic study
    /// from a known matrix. With --classes, every class's matrix, class k seeded by --perturb-seed + k.
    #[arg(long)]
    perturb: Option<f64>,
    /// The seed of --perturb.
    #[arg(long, default_value_t = 1)]
    perturb_seed: u64,
    /// Write the estimated matrix here (`.csv`: origin,destination,demand; `.omx`: core `demand`; else
    /// TNTP trips).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write `link,from,to,count,flow,geh` for every counted link here.
    #[arg(long)]
    counted_out: Option<PathBuf>,
    /// One JSON object on stdout instead of the table.
    #[arg(long)]
    json: bool,
    /// Where the gradient's and the step's passes over the routes run: cpu, gpu (each class's bushes
    /// uploaded once per outer iteration; needs 64-bit floats on the device) or auto (default:
    /// $URBANFLOW_BACKEND, else auto, which keeps them on the CPU: they take 1–2 % of an outer
    /// iteration, docs/odme.md). The equilibria run on the CPU either way.
    #[arg(long)]
    backend: Option<urbanflow::gpu::BackendChoice>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum AllCounts {
    Vehicles,
    Pce,
}

/// `dir/trips.tntp` → `dir/trips_<class>.tntp`.
fn per_class(out: &std::path::Path, class: &str) -> PathBuf {
    let stem = out.file_stem().map_or(String::new(), |s| s.to_string_lossy().into_owned());
    let name = match out.extension() {
        Some(ext) => format!("{stem}_{class}.{}", ext.to_string_lossy()),
        None => format!("{stem}_{class}"),
    };
    out.with_file_name(name)
}

pub fn run(args: &Args) -> Result<Outcome, Error> {
    if let Some(t) = args.threads {
        rayon::ThreadPoolBuilder::new().num_threads(t).build_global()?;
    }
    let choice = match args.backend {
        Some(c) => c,
        None => urbanflow::gpu::BackendChoice::from_env()?,
    };
    // The device starts while the files are read.
    let (devices, read) = crate::devices::read_beside_devices(choice, None, || args.input.read());
    devices?;
    let backend = choice.backend()?;
    let (net, mut seed) = read?;
    if let (Some(sigma), None) = (args.perturb, &args.classes) {
        seed = urbanflow::tap::odme::perturbed(&seed, sigma, args.perturb_seed)?;
    }
    let counts = LinkCounts::read_csv(&args.counts, &net)?;
    let classes = match &args.classes {
        Some(file) => {
            let mut classes = read_classes(file, &net, &seed)?;
            if let Some(sigma) = args.perturb {
                for (k, c) in classes.iter_mut().enumerate() {
                    c.demand =
                        urbanflow::tap::odme::perturbed(&c.demand, sigma, args.perturb_seed + k as u64)?;
                }
            }
            Some(classes)
        }
        None => None,
    };
    let opts = OdmeOptions {
        all_counts: args.all_counts.map(|u| match u {
            AllCounts::Vehicles => CountUnits::Vehicles,
            AllCounts::Pce => CountUnits::Pce,
        }),
        outer_iterations: args.outer,
        inner: Stop { relative_gap: args.inner_gap, ..Stop::default() },
        max_change: args.max_change,
        target_geh_share: args.target,
        cancel: Some(crate::outcome::interrupt_flag()),
        backend,
        ..OdmeOptions::default()
    };
    if !args.json {
        println!("{} counts, {} OD pairs, seed demand {:.1}", counts.len(), seed.num_pairs(), seed.total());
        println!(
            "{:>5} {:>8} {:>14} {:>9} {:>7} {:>7} {:>12} {:>9} {:>6}",
            "iter", "seconds", "objective", "RMSE", "R²", "GEH<5", "demand", "step", "inner"
        );
    }
    let row = |it: &OdmeIteration| {
        let f = it.fit;
        println!(
            "{:>5} {:>8.3} {:>14.6e} {:>9.2} {:>7.4} {:>6.1}% {:>12.1} {:>9.3e} {:>6}",
            it.iteration,
            it.seconds,
            f.objective,
            f.rmse,
            f.r_squared,
            100.0 * f.geh_below_5,
            it.total_demand,
            it.step,
            it.inner_iterations
        );
    };
    let progress = |it: &OdmeIteration| {
        if !args.json {
            row(it)
        }
    };
    let result = match &classes {
        Some(classes) => estimate_od_classes(&net, classes, &counts, &opts, progress)?,
        None => estimate_od(&net, &seed, &counts, &opts, progress)?,
    };
    if let Some(out) = &args.out {
        if classes.is_some() {
            for c in &result.classes {
                crate::args::matrices::write_demand(&per_class(out, &c.name), &net, &c.demand)?;
            }
        } else {
            crate::args::matrices::write_demand(out, &net, &result.demand)?;
        }
    }
    if let Some(out) = &args.counted_out {
        urbanflow::tap::odme::write_counted_csv(out, &net, &result.counted)?;
    }
    let last = result.last();
    if args.json {
        let history: Vec<serde_json::Value> = result.history.iter().map(|it| serde_json::json!({
            "iteration": it.iteration, "seconds": it.seconds, "objective": it.fit.objective, "rmse": it.fit.rmse,
            "percent_rmse": it.fit.percent_rmse, "r_squared": it.fit.r_squared, "geh_below_5": it.fit.geh_below_5,
            "max_geh": it.fit.max_geh, "total_demand": it.total_demand, "step": it.step,
            "min_factor": it.min_factor, "max_factor": it.max_factor,
            "inner_iterations": it.inner_iterations, "inner_gap": it.inner_gap, "halvings": it.halvings,
            "gradient_s": it.gradient_s, "upload_s": it.upload_s,
        })).collect();
        let report = serde_json::json!({
            "counts": counts.len(), "pairs": seed.num_pairs(), "seed_demand": seed.total(),
            "seconds": last.seconds, "reached_target": result.reached_target, "target": args.target,
            "stopped": result.stopped, "passes_on": result.passes_on, "history": history,
            "classes": result.classes.iter().map(|c| serde_json::json!({
                "name": c.name, "demand": c.demand.total(), "pairs": c.demand.num_pairs(),
            })).collect::<Vec<_>>(),
        });
        println!("{report}");
    } else {
        println!(
            "{}: {:.1}% of counts with GEH < 5 (target {:.1}%) in {:.3} s; passes over the routes on {}",
            result.stopped,
            100.0 * last.fit.geh_below_5,
            100.0 * args.target,
            last.seconds,
            result.passes_on
        );
    }
    if crate::outcome::interrupt_flag().load(std::sync::atomic::Ordering::Relaxed) {
        return Ok(Outcome::Interrupted(format!(
            "after {} outer iterations; the estimate so far is written",
            last.iteration
        )));
    }
    Ok(Outcome::missed_if((!result.reached_target).then(|| {
        format!(
            "{:.1}% of counted links have GEH < 5, below --target {:.1}%",
            100.0 * last.fit.geh_below_5,
            100.0 * args.target
        )
    })))
}
