//! Guillotine cutting: serial DP, rayon wavefront and the GPU wavefront in both table layouts side by
//! side, one JSON line per instance (median of `--reps` runs each; all tables compared equal).
//!
//! ```text
//! cargo bench --bench guillotine -- --gcut ../shared/data/cutting/gcut --names gcut12,gcut13 \
//!     --json F1.json,F2.json --testcut 6000,8000,10000 --randcut 10000 --reps 3 [--no-serial-above 5000]
//! ```
//! testcut instances use 80 types (100 at 8000) and seed 1, randcut 40 types and seed 1; `--json`
//! reads OR-Datasets JSON files (fixed orientation only). Memory: `*_peak_mb` is the growth of the
//! process's peak resident set during that backend's runs (Linux: the peak is reset through
//! /proc/self/clear_refs before each), `gpu_*_device_mb` the tables on the device.

use std::time::Instant;

use urbanflow::dp::generators::{randcut, testcut};
use urbanflow::dp::guillotine::{
    GpuOptions, Grid, Instance, Layout, solution_from, solve_grid_gpu, solve_tables, solve_tables_gpu,
    solve_tables_gpu_with, solve_tables_rayon,
};
use urbanflow::dp::io::{read_gcut, read_or_datasets_json};
use urbanflow::gpu::GpuContext;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

fn list(name: &str) -> Vec<String> {
    arg(name).map_or(Vec::new(), |s| s.split(',').filter(|s| !s.is_empty()).map(str::to_string).collect())
}

/// Resident set now and its peak, in MB (Linux; 0 elsewhere).
fn rss_mb() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|r| r.split_whitespace().next()?.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Runs `f` and returns its result with the growth of the peak resident set above the resident set
/// before it, in MB.
fn with_peak<T>(f: impl FnOnce() -> T) -> (T, f64) {
    // Writing 5 resets the peak to the current resident set (Linux ≥ 4.0).
    std::fs::write("/proc/self/clear_refs", "5").ok();
    let (before, _) = rss_mb();
    let out = f();
    let (_, peak) = rss_mb();
    (out, (peak - before).max(0.0))
}

/// Median seconds of `reps` runs and the last tables.
fn time<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        last = Some(f());
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], last.expect("one run"))
}

fn main() {
    let reps: usize = arg("--reps").map_or(3, |s| s.parse().expect("--reps: a number"));
    let serial_max: u32 = arg("--no-serial-above").map_or(u32::MAX, |s| s.parse().expect("a number"));
    let mut instances: Vec<(String, Instance)> = Vec::new();
    if let Some(dir) = arg("--gcut") {
        for name in list("--names") {
            let path = format!("{dir}/{name}.txt");
            let inst = read_gcut(&path).unwrap_or_else(|e| panic!("{e}")).instance;
            instances.push((name.clone(), inst.clone()));
            instances.push((format!("{name} rotated"), inst.with_rotation(true)));
        }
    }
    for path in list("--json") {
        let f = read_or_datasets_json(&path).unwrap_or_else(|e| panic!("{e}"));
        instances.push((f.name.clone().unwrap_or(path.clone()), f.instance));
    }
    for s in list("--testcut") {
        let side: u32 = s.parse().expect("--testcut: sides");
        instances.push((format!("testcut{side}"), testcut(side, if side == 8000 { 100 } else { 80 }, 1)));
    }
    for s in list("--randcut") {
        let side: u32 = s.parse().expect("--randcut: sides");
        instances.push((format!("randcut{side}"), randcut(side, side, 40, 1)));
    }
    let ctx = GpuContext::shared();
    if let Some(ctx) = ctx {
        eprintln!("adapter: {}", ctx.describe());
        // Warm-up: pipeline compilation.
        let g = Grid::new(&randcut(64, 64, 8, 1)).unwrap();
        solve_tables_gpu(ctx, &g).unwrap();
    }
    for (name, inst) in instances {
        let t = Instant::now();
        let grid = Grid::new(&inst).unwrap();
        let prep_s = t.elapsed().as_secs_f64();
        let cells = grid.cells();
        let mut row = format!(
            "{{\"instance\":{name:?},\"side\":{},\"height\":{},\"types\":{},\"xs\":{},\"ys\":{},\"cells\":{cells},\"prep_s\":{prep_s:.4}",
            inst.width,
            inst.height,
            inst.pieces.len(),
            grid.xs.len(),
            grid.ys.len()
        );
        let ((rayon_s, reference), rayon_peak) = with_peak(|| time(reps, || solve_tables_rayon(&grid)));
        let candidates = reference.candidates;
        let root = reference.value[cells - 1];
        row += &format!(
            ",\"value\":{root},\"candidates\":{candidates},\"rayon_s\":{rayon_s:.4},\"rayon_threads\":{},\"rayon_peak_mb\":{rayon_peak:.0}",
            rayon::current_num_threads(),
        );
        let mut serial_s = f64::NAN;
        if inst.width <= serial_max {
            let ((s, t), serial_peak) = with_peak(|| time(reps, || solve_tables(&grid)));
            assert!(t == reference, "{name}: serial and rayon tables differ");
            serial_s = s;
            row += &format!(
                ",\"serial_s\":{serial_s:.4},\"serial_peak_mb\":{serial_peak:.0},\"rayon_vs_serial\":{:.2}",
                serial_s / rayon_s
            );
        }
        if let Some(ctx) = ctx {
            for (layout, tag) in [(Layout::Compact, "compact"), (Layout::GapFilled, "gapfilled")] {
                let options = GpuOptions { layout, ..Default::default() };
                match solve_tables_gpu_with(ctx, &grid, &options) {
                    Ok(_) => {
                        let mut report = None;
                        let ((gpu_s, t), peak) = with_peak(|| {
                            time(reps, || {
                                let (t, r) = solve_tables_gpu_with(ctx, &grid, &options).unwrap();
                                report = Some(r);
                                t
                            })
                        });
                        let r = report.expect("one run");
                        assert!(
                            t.value == reference.value && t.cut == reference.cut,
                            "{name}: GPU {tag} tables differ"
                        );
                        row += &format!(
                            ",\"gpu_{tag}_s\":{gpu_s:.4},\"gpu_{tag}_vs_rayon\":{:.2},\"gpu_{tag}_vs_serial\":{:.2},\"gpu_{tag}_gcand_per_s\":{:.2},\"gpu_{tag}_upload_s\":{:.4},\"gpu_{tag}_wavefront_s\":{:.4},\"gpu_{tag}_readback_s\":{:.4},\"gpu_{tag}_device_mb\":{:.0},\"gpu_{tag}_bindings\":{},\"gpu_{tag}_host_peak_mb\":{peak:.0}",
                            rayon_s / gpu_s,
                            serial_s / gpu_s,
                            candidates as f64 / gpu_s / 1e9,
                            r.upload_s,
                            r.wavefront_s,
                            r.readback_s,
                            r.device_bytes as f64 / 1e6,
                            r.bindings_per_table,
                        );
                        if tag == "compact" {
                            row += &format!(",\"dispatches\":{}", r.dispatches);
                        }
                    }
                    Err(e) => row += &format!(",\"gpu_{tag}_error\":{:?}", e.to_string()),
                }
            }
            // What a user's solve pays after the grid: tables + pattern on 16 cores against the GPU's
            // fill, cut-record readback and pattern (layout Auto).
            let (rayon_pattern_s, cpu_sol) = time(reps, || solution_from(&grid, &solve_tables_rayon(&grid)));
            let (gpu_pattern_s, (gpu_sol, r)) =
                time(reps, || solve_grid_gpu(ctx, &grid, &GpuOptions::default()).unwrap());
            assert!(gpu_sol == cpu_sol, "{name}: GPU and CPU patterns differ");
            row += &format!(
                ",\"rayon_pattern_s\":{rayon_pattern_s:.4},\"gpu_pattern_s\":{gpu_pattern_s:.4},\"gpu_pattern_readback_s\":{:.4},\"gpu_pattern_vs_rayon\":{:.2},\"gpu_pattern_vs_serial\":{:.2}",
                r.readback_s,
                rayon_pattern_s / gpu_pattern_s,
                serial_s / gpu_pattern_s
            );
        }
        row += &format!(",\"rayon_gcand_per_s\":{:.3}}}", candidates as f64 / rayon_s / 1e9);
        println!("{row}");
    }
}
