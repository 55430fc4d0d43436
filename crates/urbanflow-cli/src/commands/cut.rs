//! Unconstrained two-dimensional guillotine cutting: the optimal value and cutting pattern.
//!
//! ```text
//! urbanflow cut --instance ../shared/data/cutting/gcut/gcut13.txt --svg gcut13.svg
//! urbanflow cut --generate randcut:2000,1500,7 --backend gpu --json
//! ```

use crate::outcome::Error;

use std::path::PathBuf;
use std::time::Instant;

use urbanflow::dp::generators::{randcut, testcut};
use urbanflow::dp::guillotine::{
    GpuOptions, Grid, Instance, Layout, auto, check_pattern, pattern_svg, solve, solve_with_options,
};
use urbanflow::dp::io::{read_gcut, read_or_datasets_json};
use urbanflow::gpu::{Backend, BackendChoice, Resolved};

/// The optimal guillotine cutting pattern of a stock rectangle (unconstrained: any number of copies of
/// each piece type), on the CPU (serial or all cores) or a GPU.
///
/// Example: urbanflow cut --instance gcut13.txt --rotation --svg pattern.svg
///
/// Reads OR-Library gcut files (`m`, stock `L W`, then `l w v` per piece), OR-Datasets JSON files
/// (`.json`: one stock in `Objects`, pieces in `Items`), or generates a seeded instance:
/// `randcut:W,H,SEED` (a random guillotine partition: the optimum is W·H) or `testcut:W,SEED` (the
/// benchmark family of Boschetti et al.). The pattern is checked independently before it is printed.
#[derive(clap::Args)]
#[command(version, after_help = crate::outcome::EXIT_CODES)]
pub struct Args {
    /// An OR-Library gcut file, or an OR-Datasets JSON file (by its `.json` extension).
    #[arg(long, value_parser = crate::args::files::input_file, conflicts_with = "generate")]
    instance: Option<PathBuf>,
    /// randcut:W,H,SEED (types: 40) or testcut:W,SEED (types: 80).
    #[arg(long)]
    generate: Option<String>,
    /// Pieces may be turned by 90°.
    #[arg(long)]
    rotation: bool,
    /// cpu (all cores), serial (one thread), gpu or auto (default: $URBANFLOW_BACKEND, else auto: the
    /// GPU only on an adapter where it was measured faster for a table this large, else all cores).
    #[arg(long)]
    backend: Option<String>,
    /// GPU table layout: auto (gap-filled where it fits the device), compact or gap-filled.
    #[arg(long, default_value = "auto")]
    layout: String,
    /// Worker threads for --backend cpu (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Write the cutting pattern as an SVG picture.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

fn instance(args: &Args) -> Result<(String, Instance), Error> {
    let inst = match (&args.instance, &args.generate) {
        (Some(path), None) => {
            let f = if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json")) {
                read_or_datasets_json(path)
            } else {
                read_gcut(path)
            }?;
            if f.too_large > 0 {
                eprintln!("note: {} piece type(s) are larger than the stock and never fit", f.too_large);
            }
            if f.bounded_demands > 0 {
                eprintln!(
                    "note: the file bounds the demand of {} piece type(s); this solver is unconstrained \
                     (any number of copies), so those bounds are not applied",
                    f.bounded_demands
                );
            }
            (path.display().to_string(), f.instance)
        }
        (None, Some(spec)) => {
            let (kind, rest) =
                spec.split_once(':').ok_or(format!("--generate `{spec}`: expected KIND:ARGS"))?;
            let nums: Vec<u64> = rest
                .split(',')
                .map(|s| {
                    s.trim().parse::<u64>().map_err(|_| format!("--generate `{spec}`: `{s}` is not a number"))
                })
                .collect::<Result<_, _>>()?;
            let side = |v: u64| {
                u32::try_from(v).ok().filter(|&v| v > 0).ok_or(format!("--generate `{spec}`: bad side {v}"))
            };
            match (kind, nums.as_slice()) {
                ("randcut", &[w, h, seed]) => (spec.clone(), randcut(side(w)?, side(h)?, 40, seed)),
                ("testcut", &[w, seed]) => (spec.clone(), testcut(side(w)?, 80, seed)),
                _ => {
                    return Err(
                        format!("--generate `{spec}`: expected randcut:W,H,SEED or testcut:W,SEED").into()
                    );
                }
            }
        }
        _ => {
            let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data/gcut-example.txt");
            let f = read_gcut(&p)?;
            (p.display().to_string(), f.instance)
        }
    };
    Ok((inst.0, inst.1.with_rotation(args.rotation)))
}

pub fn run(args: Args) -> Result<(), Error> {
    if let Some(t) = args.threads {
        rayon::ThreadPoolBuilder::new().num_threads(t).build_global()?;
    }
    let (name, inst) = instance(&args)?;
    let choice = match args.backend.as_deref() {
        Some("serial") => None,
        Some(other) => Some(other.parse::<BackendChoice>()?),
        None => Some(BackendChoice::from_env()?),
    };
    let layout = match args.layout.as_str() {
        "auto" => Layout::Auto,
        "compact" => Layout::Compact,
        "gap-filled" | "gapfilled" => Layout::GapFilled,
        other => return Err(format!("--layout `{other}`: expected auto, compact or gap-filled").into()),
    };
    let clock = crate::devices::SetupClock::start(&[]);
    let t = Instant::now();
    let (sol, device, why) = match choice {
        None => (solve(&inst)?, "cpu (1 thread)".to_string(), "asked for".to_string()),
        Some(choice) => {
            let backend = choice.backend()?;
            let options = GpuOptions { layout, ..Default::default() };
            // Auto's choice with both predictions (the solve below makes the same one).
            let why = match backend {
                Backend::Auto => format!("auto: {}", auto::choose(&Grid::new(&inst)?).why),
                _ => "asked for".to_string(),
            };
            let (sol, report) = solve_with_options(&inst, backend, &options)?;
            // The device is looked at only when the GPU ran: Auto on the CPU never opens one.
            let device = match report.map(|r| (r, backend.resolve())) {
                Some((r, Resolved::Gpu(ctx))) => format!("gpu ({}, {:?} layout)", ctx.info.name, r.layout),
                _ => format!("cpu ({} threads)", rayon::current_num_threads()),
            };
            (sol, device, why)
        }
    };
    let (setup_s, solve_s) = clock.split(t.elapsed().as_secs_f64(), &[]);
    check_pattern(&inst, &sol).map_err(|e| format!("internal error, the pattern is invalid: {e}"))?;
    if let Some(path) = &args.svg {
        std::fs::write(path, pattern_svg(&inst, &sol)).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let area = inst.width as u64 * inst.height as u64;
    let used: u64 = sol
        .placements
        .iter()
        .map(|p| inst.pieces[p.piece as usize].w as u64 * inst.pieces[p.piece as usize].h as u64)
        .sum();
    if args.json {
        let placements: Vec<_> = sol
            .placements
            .iter()
            .map(|p| serde_json::json!({"piece": p.piece + 1, "x": p.x, "y": p.y, "rotated": p.rotated}))
            .collect();
        let json = serde_json::json!({
            "instance": name, "width": inst.width, "height": inst.height, "types": inst.pieces.len(),
            "rotation": inst.rotation, "value": sol.value, "pieces_used": sol.placements.len(),
            "placements": placements, "normal_x": sol.stats.xs, "normal_y": sol.stats.ys,
            "candidates": sol.stats.candidates, "solve_s": solve_s, "setup_s": setup_s, "backend": device,
            "why": why,
        });
        println!("{json}");
    } else {
        println!(
            "instance   {name} ({} × {}, {} piece types{})",
            inst.width,
            inst.height,
            inst.pieces.len(),
            if inst.rotation { ", rotation" } else { "" }
        );
        println!("value      {}", sol.value);
        println!(
            "pieces     {} cut, covering {:.2}% of the stock",
            sol.placements.len(),
            100.0 * used as f64 / area as f64
        );
        println!(
            "table      {} × {} normal positions, {} candidate cuts",
            sol.stats.xs, sol.stats.ys, sol.stats.candidates
        );
        println!("solve      {solve_s:.3} s on {device} (GPU setup {setup_s:.3} s apart)");
        println!("why        {why}");
        if let Some(p) = &args.svg {
            println!("picture    {}", p.display());
        }
    }
    Ok(())
}
