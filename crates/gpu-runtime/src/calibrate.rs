//! Measuring a GPU's [`DeviceProfile`] (about half a second on a datacentre GPU, under two on a
//! software adapter), and keeping it: once per adapter, driver and urbanflow version.
//!
//! Each rate is measured by growing the work until one measurement takes at least
//! [`MIN_MEASURED_S`], so a fast GPU and a software adapter are both timed above the clock's noise
//! and neither waits longer than it must. [`device_profile`] is what decisions call: this process's
//! profile, else the cache file's, else a calibration (stored for the next process; a corrupt or
//! foreign entry is reported and measured again). [`auto_device`] is the same for [`crate::Backend::Auto`]:
//! the profile of the adapter Auto would use, read without creating a device when it is stored.
//!
//! ```no_run
//! use urbanflow::gpu::{GpuContext, calibrate};
//! let ctx = GpuContext::new()?;
//! let profile = calibrate::calibrate(&ctx, &mut |step| eprintln!("{step}"))?;
//! println!("{profile}");
//! # Ok::<(), urbanflow::gpu::GpuError>(())
//! ```

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use crate::buffer::GpuBuffer;
use crate::context::{AdapterSummary, GpuContext, auto_adapter};
use crate::copy::record_copy;
use crate::error::GpuError;
use crate::pipeline::PipelineKey;
use crate::profile::{DeviceProfile, profile_key, profile_store};
use crate::recording::{Recording, Workgroups};
use crate::shader::Shader;
use crate::tuning::{TuneMode, mode};

const ATOMICS: Shader = crate::shader!("calibrate_atomics");

/// The shortest a rate measurement is allowed to take: work grows until it takes this long.
pub const MIN_MEASURED_S: f64 = 0.02;

/// Invocations of the atomics kernel per measurement.
const ATOMIC_INVOCATIONS: u32 = 1 << 18;
/// Cells of its table: 4 MiB, beyond the caches of small GPUs, within a large one's.
const ATOMIC_CELLS: u32 = 1 << 20;

/// The CPU twin of `shaders/calibrate_atomics.wgsl`'s `scatter_min`: the same pairs, lowered in
/// order (atomicMin commutes, so the device's result equals this one exactly).
pub fn calibrate_atomics(cells: &mut [u32], invocations: u32, ops_per_invocation: u32, seed: u32) {
    let mask = cells.len() as u32 - 1;
    for i in 0..invocations {
        for k in 0..ops_per_invocation {
            let h = mix32(i.wrapping_mul(ops_per_invocation).wrapping_add(k).wrapping_add(seed));
            let cell = &mut cells[(h & mask) as usize];
            *cell = (*cell).min(mix32(h));
        }
    }
}

fn mix32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

/// Records one `scatter_min` dispatch.
fn record_atomics(
    ctx: &GpuContext,
    rec: &mut Recording,
    cells: &GpuBuffer<u32>,
    invocations: u32,
    ops_per_invocation: u32,
    seed: u32,
) -> Result<(), GpuError> {
    let wg = 256;
    let pipeline = ctx.pipeline(&PipelineKey::new(ATOMICS, "scatter_min").with("WG", wg))?;
    let params = ctx.uniform_words(
        "calibration params",
        &[invocations, ops_per_invocation, cells.len() as u32 - 1, seed],
    );
    let bind = ctx.bind_buffers(&pipeline, "calibration", &[(0, cells.buffer()), (1, &params)])?;
    let groups = ctx.grid_1d(u64::from(invocations), wg)?;
    rec.dispatch(&pipeline, &bind, Workgroups::Fixed(groups));
    Ok(())
}

/// Runs `scatter_min` once on the device and reads the table back (for the twin test).
pub fn run_atomics(
    ctx: &GpuContext,
    cells: &[u32],
    invocations: u32,
    ops_per_invocation: u32,
    seed: u32,
) -> Result<Vec<u32>, GpuError> {
    let buffer = GpuBuffer::from_slice(ctx, "calibration cells", cells)?;
    let mut rec = Recording::new("calibration: atomics");
    record_atomics(ctx, &mut rec, &buffer, invocations, ops_per_invocation, seed)?;
    ctx.submit(&rec)?;
    buffer.read(ctx)
}

/// Wall seconds of one submission of `rec`, waited for.
fn timed(ctx: &GpuContext, rec: &Recording) -> Result<f64, GpuError> {
    let t = Instant::now();
    ctx.submit(rec)?;
    ctx.wait()?;
    Ok(t.elapsed().as_secs_f64())
}

/// Measures `ctx`'s profile; `progress` hears each step (what the CLI prints on stderr).
pub fn calibrate(ctx: &GpuContext, progress: &mut dyn FnMut(&str)) -> Result<DeviceProfile, GpuError> {
    let started = Instant::now();
    progress(&format!("calibrating {} (once per adapter and driver)", ctx.info.name));
    let open_s = ctx.creation_time().as_secs_f64();

    // One pipeline's compilation: the atomics kernel at a workgroup size nothing else uses, so this
    // process has not compiled it yet.
    let before = ctx.compile_time();
    ctx.pipeline(&PipelineKey::new(ATOMICS, "scatter_min").with("WG", 256))?;
    let pipeline_s = (ctx.compile_time() - before).as_secs_f64();

    // Round trip: one one-workgroup dispatch, submitted and waited for; the median of 15.
    let cells = GpuBuffer::<u32>::zeroed(ctx, "calibration cells", ATOMIC_CELLS as usize)?;
    let mut one = Recording::new("calibration: round trip");
    record_atomics(ctx, &mut one, &cells, 1, 1, 0)?;
    timed(ctx, &one)?;
    let mut trips: Vec<f64> = (0..15).map(|_| timed(ctx, &one)).collect::<Result<_, _>>()?;
    trips.sort_by(f64::total_cmp);
    let submit_s = trips[trips.len() / 2];
    progress(&format!("round trip {:.0} µs, pipeline {:.1} ms", submit_s * 1e6, pipeline_s * 1e3));

    // Each further dispatch: 200 in one submission.
    let mut many = Recording::new("calibration: dispatches");
    for _ in 0..200 {
        record_atomics(ctx, &mut many, &cells, 1, 1, 0)?;
    }
    let dispatch_s = ((timed(ctx, &many)? - submit_s) / 199.0).max(0.0);

    // Device bandwidth: copies of up to 32 MiB, repeated until they take MIN_MEASURED_S.
    let words = (ctx.limits.max_storage_buffer_binding_size as usize / 4).min(8 << 20);
    let src = GpuBuffer::<u32>::zeroed(ctx, "calibration source", words)?;
    let dst = GpuBuffer::<u32>::zeroed(ctx, "calibration destination", words)?;
    let mut reps = 1u32;
    let device_bytes_per_s = loop {
        let mut rec = Recording::new("calibration: bandwidth");
        for _ in 0..reps {
            record_copy(ctx, &mut rec, &src, &dst, words)?;
        }
        let t = (timed(ctx, &rec)? - submit_s).max(1e-9);
        if t >= MIN_MEASURED_S || reps >= 4096 {
            break 2.0 * 4.0 * words as f64 * f64::from(reps) / t;
        }
        reps *= 4;
    };
    progress(&format!("memory {:.0} GB/s", device_bytes_per_s / 1e9));

    // The host link: a 32 MiB write and read, best of two each.
    let host: Vec<u32> = (0..words as u32).collect();
    let mut upload_s = f64::INFINITY;
    let mut download_s = f64::INFINITY;
    for _ in 0..2 {
        let t = Instant::now();
        src.write(ctx, 0, &host)?;
        ctx.wait()?;
        upload_s = upload_s.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        std::hint::black_box(src.read(ctx)?);
        download_s = download_s.min(t.elapsed().as_secs_f64());
    }
    let bytes = 4.0 * words as f64;
    let (upload_bytes_per_s, download_bytes_per_s) =
        (bytes / upload_s.max(1e-9), bytes / download_s.max(1e-9));
    progress(&format!(
        "upload {:.1} GB/s, download {:.1} GB/s",
        upload_bytes_per_s / 1e9,
        download_bytes_per_s / 1e9
    ));

    // Scattered atomics: 2^18 invocations, more pairs each until MIN_MEASURED_S.
    let mut per = 16u32;
    let atomics_per_s = loop {
        let mut rec = Recording::new("calibration: atomics");
        record_atomics(ctx, &mut rec, &cells, ATOMIC_INVOCATIONS, per, per)?;
        let t = (timed(ctx, &rec)? - submit_s).max(1e-9);
        if t >= MIN_MEASURED_S || per >= 4096 {
            break f64::from(ATOMIC_INVOCATIONS) * f64::from(per) / t;
        }
        per *= 4;
    };
    progress(&format!("atomics {:.2} G/s", atomics_per_s / 1e9));

    Ok(DeviceProfile {
        software: ctx.is_software(),
        list_s: auto_adapter().list_s,
        open_s,
        pipeline_s,
        submit_s,
        dispatch_s,
        device_bytes_per_s,
        upload_bytes_per_s,
        download_bytes_per_s,
        atomics_per_s,
        calibration_s: started.elapsed().as_secs_f64(),
    })
}

fn profiles() -> &'static Mutex<HashMap<String, DeviceProfile>> {
    static MEMORY: OnceLock<Mutex<HashMap<String, DeviceProfile>>> = OnceLock::new();
    MEMORY.get_or_init(Default::default)
}

fn key_of(a: &AdapterSummary) -> String {
    profile_key(&a.name, &a.backend, &a.driver)
}

/// A stored profile for `key`: this process's, else the cache file's (not under
/// `URBANFLOW_TUNE=refresh`). A corrupt entry is reported on stderr and treated as absent.
fn stored(key: &str) -> Option<DeviceProfile> {
    if let Some(p) = profiles().lock().unwrap_or_else(|e| e.into_inner()).get(key) {
        return Some(*p);
    }
    if mode() == TuneMode::Refresh {
        return None;
    }
    let store = profile_store()?;
    let line = store.get(key)?;
    match DeviceProfile::from_line(&line) {
        Ok(p) => {
            profiles().lock().unwrap_or_else(|e| e.into_inner()).insert(key.to_string(), p);
            Some(p)
        }
        Err(e) => {
            eprintln!(
                "urbanflow: {} holds an unreadable profile ({e}); measuring again",
                store.path().display()
            );
            None
        }
    }
}

fn remember(key: &str, p: DeviceProfile) {
    profiles().lock().unwrap_or_else(|e| e.into_inner()).insert(key.to_string(), p);
    if let Some(store) = profile_store()
        && let Err(e) = store.put(key, &p.to_line())
    {
        eprintln!(
            "urbanflow: cannot write {}: {e} (the profile is kept for this process)",
            store.path().display()
        );
    }
}

/// `ctx`'s profile: stored (this process or the cache file), else calibrated now with progress on
/// stderr and stored.
pub fn device_profile(ctx: &GpuContext) -> Result<DeviceProfile, GpuError> {
    let key = key_of(&AdapterSummary::of(&ctx.info));
    if let Some(p) = stored(&key) {
        return Ok(p);
    }
    let p = calibrate(ctx, &mut |step| eprintln!("urbanflow: {step}"))?;
    remember(&key, p);
    Ok(p)
}

/// Measures `ctx` again and replaces what is stored (what `doctor --calibrate` does).
pub fn recalibrate(ctx: &GpuContext, progress: &mut dyn FnMut(&str)) -> Result<DeviceProfile, GpuError> {
    let p = calibrate(ctx, progress)?;
    remember(&key_of(&AdapterSummary::of(&ctx.info)), p);
    Ok(p)
}

/// The store key of the profile of the adapter Auto used last on this machine (read before the
/// adapters are listed: see [`last_auto_profile`]).
fn last_auto_key() -> String {
    format!("the adapter Auto used last | urbanflow {}", env!("CARGO_PKG_VERSION"))
}

/// The profile of the adapter [`crate::Backend::Auto`] used last on this machine, read without
/// listing the adapters (which loads the drivers: 0.1 s on the H200 host). A choice whose GPU is
/// slower than the CPU even with this profile stays on the CPU without looking further; a choice
/// that might take the GPU lists the adapters and reads the adapter's own profile. A GPU swapped
/// since is seen on the next such look, or by `doctor --calibrate`.
pub fn last_auto_profile() -> Option<DeviceProfile> {
    if mode() == TuneMode::Refresh {
        return None;
    }
    DeviceProfile::from_line(&profile_store()?.get(&last_auto_key())?).ok()
}

/// The GPU [`crate::Backend::Auto`] may use, with its profile.
#[derive(Debug, Clone, Copy)]
pub struct AutoDevice {
    /// The adapter's measured constants.
    pub profile: DeviceProfile,
    /// True when the process's device already exists (its start-up is paid).
    pub warm: bool,
}

/// The profile of the adapter [`crate::Backend::Auto`] would use — stored, or calibrated now (which
/// creates the process's device) — or why there is none: no hardware adapter, or measuring is off
/// (`URBANFLOW_TUNE=off`: Auto then keeps to the CPU, as it cannot predict the GPU).
pub fn auto_device() -> Result<AutoDevice, String> {
    if mode() == TuneMode::Off {
        return Err("URBANFLOW_TUNE=off: the GPU is not calibrated, so Auto keeps to the CPU".into());
    }
    let auto = auto_adapter();
    let Some(i) = auto.chosen else { return Err(auto.reason.clone()) };
    let key = key_of(&auto.found[i]);
    let (profile, warm) = match stored(&key) {
        Some(profile) => (profile, GpuContext::shared_is_created()),
        None => {
            let ctx =
                GpuContext::auto().ok_or_else(|| format!("`{}` could not be opened", auto.found[i].name))?;
            let p =
                device_profile(ctx).map_err(|e| format!("calibrating `{}` failed: {e}", ctx.info.name))?;
            (p, true)
        }
    };
    // Listing costs what it cost this process (the calibrating process may have been a driver's first
    // load, several times slower): that is what the next process is predicted to pay.
    let profile = DeviceProfile { list_s: auto.list_s, ..profile };
    let last = DeviceProfile { list_s: auto.list_s, ..profile };
    if last_auto_profile().as_ref() != Some(&last)
        && let Some(store) = profile_store()
    {
        store.put(&last_auto_key(), &last.to_line()).ok();
    }
    Ok(AutoDevice { profile, warm })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::for_each_context;

    #[test]
    fn scatter_min_matches_its_twin() {
        for_each_context("scatter_min_matches_its_twin", |ctx| {
            let start: Vec<u32> = (0..1024u32).map(|i| u32::MAX - i).collect();
            let mut want = start.clone();
            calibrate_atomics(&mut want, 700, 9, 12345);
            let got = run_atomics(ctx, &start, 700, 9, 12345).unwrap();
            assert_eq!(got, want);
            assert_ne!(got, start, "the kernel lowered nothing");
        });
    }

    #[test]
    fn calibration_measures_every_constant_and_round_trips() {
        for_each_context("calibration_measures_every_constant", |ctx| {
            let mut steps = Vec::new();
            let p = calibrate(ctx, &mut |s| steps.push(s.to_string())).unwrap();
            assert_eq!(p.software, ctx.is_software());
            assert!(p.submit_s > 0.0 && p.device_bytes_per_s > 1e8 && p.atomics_per_s > 1e6, "{p}");
            assert!(p.calibration_s < 10.0, "{p}");
            assert!(steps.len() >= 4 && steps[0].contains(&ctx.info.name), "{steps:?}");
            assert_eq!(DeviceProfile::from_line(&p.to_line()).unwrap(), p);
        });
    }
}
