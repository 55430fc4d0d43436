//! Certified upper bounds for the membership overlay problem, by centralised (STD) or distributed
//! (DIST) subgradient, on the CPU or a GPU, with a feasible overlay and the exact LP bound beside.
//!
//! ```text
//! urbanflow overlay --generate n=1000,family=a,l=14,seed=1 --method dist --backend gpu
//! urbanflow overlay --instance peers.mop --method std --json
//! ```

use crate::outcome::Error;

use std::path::PathBuf;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use urbanflow::gpu::{Backend, BackendChoice};
use urbanflow::overlay::dist::engine_for;
use urbanflow::overlay::generator::Spec;
use urbanflow::overlay::io::{read_instance, write_instance};
use urbanflow::overlay::{
    BoundResult, Control, CpuEngine, DistEngine, DistParams, HistoryPoint, MopInstance, StdParams,
    lp_bound_exact, subgradient_dist_with, subgradient_std_observed,
};

/// Upper bound on the membership overlay problem (peers choosing connection bandwidths to maximise
/// expected throughput) by Lagrangean relaxation, with a feasible overlay and its gap.
///
/// Example: urbanflow overlay --generate n=500,family=b,l=128,seed=2 --method dist --json
///
/// The bound is certified: z_LR(λ) recomputed over all edges in double precision at the final
/// multipliers (the seed's per-node sum is printed beside it as `local_sum` and is no bound).
#[derive(clap::Args)]
#[command(version, after_help = crate::outcome::EXIT_CODES)]
pub struct Args {
    /// An instance file (format: see `urbanflow::overlay::io`).
    #[arg(long, value_parser = crate::args::files::input_file, conflicts_with = "generate")]
    instance: Option<PathBuf>,
    /// n=N[,family=a|b][,l=14|128][,seed=S]: the benchmark generator (complete graph; default n=100).
    #[arg(long)]
    generate: Option<String>,
    /// std (centralised) or dist (distributed).
    #[arg(long, default_value = "dist")]
    method: String,
    /// cpu (all cores), serial (one thread), gpu or auto (default: $URBANFLOW_BACKEND, else auto: the
    /// GPU only on an adapter and size where DIST was measured faster). STD always runs serially.
    #[arg(long)]
    backend: Option<String>,
    /// Iterations: STD iterations (default 10,000) or DIST external iterations (default 500).
    #[arg(long)]
    iters: Option<u32>,
    /// DIST inner iterations per external iteration.
    #[arg(long, default_value_t = 20)]
    inner: u32,
    /// Compute the exact LP bound (default: up to 250 nodes).
    #[arg(long, overrides_with = "no_lp")]
    lp: bool,
    /// Do not compute the exact LP bound.
    #[arg(long)]
    no_lp: bool,
    /// Worker threads for the CPU (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Use the seed's parameters (StdParams::seed / DistParams::seed) instead of the corrected defaults.
    #[arg(long)]
    seed_params: bool,
    /// Save the instance in the text format.
    #[arg(long)]
    write: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

fn instance(args: &Args) -> Result<(String, MopInstance), Error> {
    match (&args.instance, &args.generate) {
        (Some(path), None) => Ok((path.display().to_string(), read_instance(path)?)),
        (None, Some(spec)) => {
            let spec: Spec = spec.parse().map_err(|e| format!("--generate: {e}"))?;
            Ok((spec.name(), spec.generate()))
        }
        _ => {
            // No input: a small generated instance, like every command's default.
            let spec: Spec = "n=100,family=a,l=14,seed=1".parse()?;
            Ok((spec.name(), spec.generate()))
        }
    }
}

pub fn run(args: Args) -> Result<(), Error> {
    if let Some(t) = args.threads {
        rayon::ThreadPoolBuilder::new().num_threads(t).build_global()?;
    }
    let (name, inst) = instance(&args)?;
    if let Some(path) = &args.write {
        write_instance(&inst, path)?;
    }
    let backend_name = crate::devices::backend_flag(args.backend.as_deref());
    let bar = (!args.json).then(|| {
        let bar = ProgressBar::new(1);
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {msg}")
                .expect("valid template"),
        );
        bar
    });
    let mut observer = |p: &HistoryPoint, total: u32| {
        if let Some(bar) = &bar {
            bar.set_length(total as u64);
            bar.set_position(p.iteration as u64);
            bar.set_message(format!("iteration {} bound {:.6}", p.iteration, p.bound));
        }
        Control::Continue
    };
    let clock = crate::devices::SetupClock::start(&[]);
    let t = Instant::now();
    let (result, why): (BoundResult, String) = match args.method.as_str() {
        "std" => {
            let base = if args.seed_params { StdParams::seed() } else { StdParams::default() };
            let p = StdParams { max_iter: args.iters.unwrap_or(10_000), ..base };
            let r = subgradient_std_observed(&inst, &p, None, &mut observer)?;
            (r, "STD is serial".into())
        }
        "dist" => {
            let base = if args.seed_params { DistParams::seed() } else { DistParams::default() };
            let p = DistParams { ext_iters: args.iters.unwrap_or(500), inner_iters: args.inner, ..base };
            let (mut engine, why): (Box<dyn DistEngine>, String) = if backend_name == "serial" {
                (Box::new(CpuEngine::serial(&inst, &p)), "asked for one thread".into())
            } else {
                let choice: BackendChoice = backend_name.parse()?;
                let backend: Backend = choice.backend()?;
                engine_for(&inst, &p, backend)?
            };
            let r = subgradient_dist_with(&inst, &p, None, engine.as_mut(), &mut observer)?;
            (r, why)
        }
        other => return Err(format!("--method {other}: expected std or dist").into()),
    };
    let (setup_s, solve_s) = clock.split(t.elapsed().as_secs_f64(), &[]);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let want_lp = args.lp || (!args.no_lp && inst.n() <= 250);
    let lp = if want_lp {
        let t = Instant::now();
        Some((lp_bound_exact(&inst)?, t.elapsed().as_secs_f64()))
    } else {
        None
    };
    let primal = result.primal.as_ref().map(|p| p.value);
    if args.json {
        let history: Vec<_> = result
            .history
            .iter()
            .map(|h| serde_json::json!({"iteration": h.iteration, "bound": h.bound, "seconds": h.seconds}))
            .collect();
        let v = serde_json::json!({
            "instance": name,
            "nodes": inst.n(),
            "edges": inst.edges().len(),
            "method": args.method,
            "engine": result.engine,
            "why": why,
            "bound": result.bound,
            "primal": primal,
            "gap": result.gap(),
            "lp_bound": lp.map(|l| l.0),
            "lp_s": lp.map(|l| l.1),
            "bound_above_lp": lp.map(|l| (result.bound - l.0) / l.0),
            "local_sum": result.local_sum,
            "iterations": result.iterations,
            "solve_s": solve_s,
            "setup_s": setup_s,
            "history": history,
        });
        println!("{v}");
    } else {
        println!("{name}: {} peers, {} candidate connections", inst.n(), inst.edges().len());
        println!("method     {} on {} ({why})", args.method, result.engine);
        println!(
            "bound      {:.6} (certified z_LR after {} iterations, {solve_s:.3} s; GPU setup {setup_s:.3} s apart)",
            result.bound, result.iterations
        );
        if let Some(s) = result.local_sum {
            println!("local sum  {s:.6} (the seed's Σ best_h: not a bound)");
        }
        if let (Some(p), Some(g)) = (primal, result.gap()) {
            println!("primal     {p:.6} (greedy feasible overlay), gap {:.4} %", 100.0 * g);
        }
        match lp {
            Some((l, s)) => {
                println!(
                    "LP bound   {l:.6} (exact, {s:.2} s): the bound is {:.5} % above it",
                    100.0 * (result.bound - l) / l
                )
            }
            None => println!("LP bound   not computed (default up to 250 nodes; --lp forces it)"),
        }
    }
    Ok(())
}
