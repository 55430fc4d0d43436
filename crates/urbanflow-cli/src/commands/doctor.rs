//! What urbanflow sees on this machine: paste its output into a bug report.
//!
//! ```text
//! urbanflow doctor
//! ```
//! Prints the version, the CPU threads, every GPU adapter found, which one the automatic backend uses
//! and why, the device profile every automatic choice predicts from (`--calibrate` measures it again),
//! the CPU's reference rate, the tuning cache, the data directory and the
//! environment variables urbanflow reads.

use std::process::ExitCode;

use urbanflow::gpu::context::auto_adapter;
use urbanflow::gpu::{GpuContext, profile, tuning};
use urbanflow::graph::datasets;

/// Report what urbanflow sees on this machine (adapters, automatic choice, caches, data, environment).
///
/// Example: urbanflow doctor
///
/// Paste the output into a bug report. Prints the device profile the automatic choices predict from
/// (measured once per adapter and driver, about a second, and stored in the cache folder) and the CPU's
/// reference rate (measured now, 0.1 s).
#[derive(clap::Args)]
#[command(
    version,
    after_help = "Exit codes: 0 success, 1 error (bad arguments, a file that cannot be written)."
)]
pub struct Args {
    /// Also open a device on the adapter `--backend gpu` would use when the automatic backend uses none
    /// (software adapters included) and list its features.
    #[arg(long)]
    all: bool,
    /// Measure the device profile again (what every automatic choice predicts from) and store it; without
    /// it a stored profile is printed, or measured once when there is none.
    #[arg(long)]
    calibrate: bool,
}

const ENV: [&str; 11] = [
    "URBANFLOW_BACKEND",
    "WGPU_BACKEND",
    "WGPU_ADAPTER_NAME",
    "WGPU_POWER_PREF",
    "URBANFLOW_GPU_FEATURES",
    "URBANFLOW_TUNE",
    "URBANFLOW_CACHE_DIR",
    "URBANFLOW_DATA",
    "RAYON_NUM_THREADS",
    "VK_DRIVER_FILES",
    "NODEVICE_SELECT",
];

/// The device profile every automatic choice predicts from: stored, else measured now; measured
/// again with `again` (`--calibrate`).
#[cfg(feature = "gpu")]
fn print_profile(ctx: &GpuContext, again: bool) {
    use urbanflow::gpu::calibrate;
    let profile = if again {
        calibrate::recalibrate(ctx, &mut |step| eprintln!("urbanflow: {step}"))
    } else {
        calibrate::device_profile(ctx)
    };
    match profile {
        Ok(p) => println!("profile    {p}"),
        Err(e) => println!("profile    calibration failed: {e}"),
    }
}

/// Without the GPU layer there is no device to profile.
#[cfg(not(feature = "gpu"))]
fn print_profile(_: &GpuContext, _: bool) {}

/// Prints the report.
pub fn run(args: Args) -> ExitCode {
    println!("urbanflow {}", env!("CARGO_PKG_VERSION"));
    println!("system     {} {}", std::env::consts::OS, std::env::consts::ARCH);
    println!(
        "cpu        {} hardware threads, rayon uses {}",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        rayon::current_num_threads()
    );
    let auto = auto_adapter();
    if auto.found.is_empty() {
        println!("adapters   none");
    }
    for (i, a) in auto.found.iter().enumerate() {
        let mark = if auto.chosen == Some(i) { "  <- automatic backend" } else { "" };
        println!("adapter {i}  {a}{mark}");
    }
    println!(
        "auto       {}",
        match auto.chosen {
            Some(i) => format!("GPU `{}`: {}", auto.found[i].name, auto.reason),
            None => format!("CPU: {}", auto.reason),
        }
    );
    let ctx = if auto.chosen.is_some() {
        GpuContext::auto()
    } else if args.all || args.calibrate {
        GpuContext::shared()
    } else {
        None
    };
    if let Some(ctx) = ctx {
        println!("device     {}", ctx.describe());
        println!("           created in {:.3} s", ctx.creation_time().as_secs_f64());
        print_profile(ctx, args.calibrate);
    } else if !auto.found.is_empty() {
        println!(
            "device     not opened (pass --all or --calibrate to open the adapter --backend gpu would use)"
        );
    }
    let cpu = profile::cpu_profile(rayon::current_num_threads());
    println!("cpu rate   {cpu}");
    match tuning::cache_file() {
        Some(path) => {
            let entries = tuning::DiskCache::at(&path).entries().len();
            let state =
                if path.exists() { format!("{entries} measurements") } else { "not written yet".into() };
            println!("tuning     {} ({state}; URBANFLOW_TUNE mode {:?})", path.display(), tuning::mode());
        }
        None => println!("tuning     no cache directory on this system: measurements last for the process"),
    }
    match datasets::data_root() {
        Some(root) => println!("data       {}", root.display()),
        None => println!(
            "data       not found (set {} to the folder holding the shared data)",
            datasets::DATA_ENV
        ),
    }
    for name in ENV {
        if let Ok(v) = std::env::var(name) {
            println!("env        {name}={v}");
        }
    }
    ExitCode::SUCCESS
}
