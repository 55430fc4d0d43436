//! Guillotine cutting: serial DP, rayon wavefront and GPU wavefront side by side, one JSON line per
//! instance (median of `--reps` runs each; all three tables compared equal).
//!
//! ```text
//! cargo bench --bench guillotine -- --gcut ../shared/data/cutting/gcut --names gcut12,gcut13 \
//!     --testcut 6000,8000,10000 --randcut 10000 --reps 3 [--no-serial-above 5000]
//! ```
//! testcut instances use 80 types (100 at 8000) and seed 1, randcut 40 types and seed 1.

use std::time::Instant;

use urbanflow::dp::generators::{randcut, testcut};
use urbanflow::dp::guillotine::{Grid, Instance, Tables, solve_tables, solve_tables_gpu, solve_tables_rayon};
use urbanflow::dp::io::read_gcut;
use urbanflow::gpu::GpuContext;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

fn list(name: &str) -> Vec<String> {
    arg(name).map_or(Vec::new(), |s| s.split(',').filter(|s| !s.is_empty()).map(str::to_string).collect())
}

/// Median seconds of `reps` runs and the last tables.
fn time(reps: usize, mut f: impl FnMut() -> Tables) -> (f64, Tables) {
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
            "{{\"instance\":{name:?},\"side\":{},\"types\":{},\"xs\":{},\"ys\":{},\"cells\":{cells},\"prep_s\":{prep_s:.4}",
            inst.width,
            inst.pieces.len(),
            grid.xs.len(),
            grid.ys.len()
        );
        let (rayon_s, reference) = time(reps, || solve_tables_rayon(&grid));
        let candidates = reference.candidates;
        let root = reference.value[cells - 1];
        row += &format!(
            ",\"value\":{root},\"candidates\":{candidates},\"rayon_s\":{rayon_s:.4},\"rayon_threads\":{},\"cpu_table_mb\":{:.1}",
            rayon::current_num_threads(),
            cells as f64 * 20.0 / 1e6
        );
        if inst.width <= serial_max {
            let (serial_s, t) = time(reps, || solve_tables(&grid));
            assert!(t == reference, "{name}: serial and rayon tables differ");
            row += &format!(",\"serial_s\":{serial_s:.4},\"rayon_vs_serial\":{:.2}", serial_s / rayon_s);
        }
        if let Some(ctx) = ctx {
            match solve_tables_gpu(ctx, &grid) {
                Ok(_) => {
                    let (gpu_s, t) = time(reps, || solve_tables_gpu(ctx, &grid).unwrap());
                    assert!(
                        t.value == reference.value && t.cut == reference.cut,
                        "{name}: GPU tables differ"
                    );
                    row += &format!(
                        ",\"gpu_s\":{gpu_s:.4},\"gpu_vs_rayon\":{:.2},\"gpu_gcand_per_s\":{:.2},\"dispatches\":{}",
                        rayon_s / gpu_s,
                        candidates as f64 / gpu_s / 1e9,
                        2 * (grid.xs.len() + grid.ys.len() - 3)
                    );
                    if row.contains("serial_s") {
                        let serial_s: f64 = row
                            .split("\"serial_s\":")
                            .nth(1)
                            .and_then(|s| s.split(',').next())
                            .and_then(|s| s.parse().ok())
                            .unwrap_or(f64::NAN);
                        row += &format!(",\"gpu_vs_serial\":{:.2}", serial_s / gpu_s);
                    }
                }
                Err(e) => row += &format!(",\"gpu_error\":{:?}", e.to_string()),
            }
        }
        row += &format!(",\"rayon_gcand_per_s\":{:.3}}}", candidates as f64 / rayon_s / 1e9);
        println!("{row}");
    }
}
