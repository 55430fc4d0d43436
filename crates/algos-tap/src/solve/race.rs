//! Auto's loader when a GPU might pay: the CPU loads first and is timed, and where the time it would
//! keep taking is worth a GPU's start-up, the GPU is started and timed on a loading at the same
//! costs (after one that warms it up); the faster of the two loads the rest.
//!
//! Why a race and not a prediction alone: one loading's cost depends on the network's shape as much
//! as on its size. On the H200 host (16 threads, docs/benchmarks.md "Auto: predicted and measured")
//! the GPU's loading took 0.35 of the CPU's on Berlin-Center and Philadelphia but 0.68 on Austin, 0.92
//! on Hessen and 1.4–2.9 on Chicago-Sketch, Winnipeg and Barcelona, with origin × link counts that do
//! not order them. Timing one loading of each is exact, and costs one loading plus the GPU's start.
//!
//! The race is entered only when the CPU's second loading (the first pays one-time allocations), times
//! [`EXPECTED_LOADINGS`], exceeds the GPU's predicted start-up (device, pipelines, upload: from
//! this adapter's [`DeviceProfile`]), so networks whose whole assignment costs less than starting a
//! GPU never start one.

use std::time::Instant;

use gpu_runtime::predict::NO_GPU_STARTS_FASTER_S;
use gpu_runtime::profile::DeviceProfile;

use crate::demand::Demand;
use crate::error::TapError;
use crate::loader::{AllOrNothing, GpuLoader};
use crate::network::Network;
use algos_sssp::many::Method;

/// Loadings an assignment is assumed to still need when the race is first considered: the fewest that
/// the bi-conjugate Frank–Wolfe took at gap 1e-4 on the measured networks (19, Berlin-Center). A run
/// that goes on is assumed to need as many more as it has done: the race is considered again after
/// 32, 64, 128, ... loadings (Austin's 16 ms loadings repay a GPU's start only over hundreds).
pub const EXPECTED_LOADINGS: f64 = 20.0;

/// Pipelines a GPU loader compiles (trees, loads, sums).
const LOADER_PIPELINES: u32 = 8;

/// The GPU loader's predicted start-up on `profile`: the device unless `warm`, its pipelines, and
/// the network and demand uploaded (16 bytes a link, 12 an OD pair).
pub fn predicted_gpu_start(profile: &DeviceProfile, warm: bool, links: usize, pairs: usize) -> f64 {
    profile.start_s(warm, LOADER_PIPELINES) + profile.upload_s(16.0 * links as f64 + 12.0 * pairs as f64)
}

/// Whether a CPU loading of `cpu_loading_s` is worth racing a GPU whose start is predicted at
/// `gpu_start_s`.
///
/// ```
/// use urbanflow::tap::solve::race::worth_racing;
/// assert!(worth_racing(0.026, 0.40)); // Berlin-Center's loading on 16 threads, an H200's start
/// assert!(!worth_racing(0.0015, 0.40)); // Chicago-Sketch's
/// assert!(!worth_racing(0.016, 0.40)); // Austin's, early on ...
/// assert!(urbanflow::tap::solve::race::worth_racing_after(32, 0.016, 0.40)); // ... and after 32 loadings
/// ```
pub fn worth_racing(cpu_loading_s: f64, gpu_start_s: f64) -> bool {
    worth_racing_after(2, cpu_loading_s, gpu_start_s)
}

/// [`worth_racing`] after `done` loadings: the loadings still expected (as many as were done, at least
/// [`EXPECTED_LOADINGS`]) would cost the CPU more than the GPU's start.
pub fn worth_racing_after(done: u32, cpu_loading_s: f64, gpu_start_s: f64) -> bool {
    cpu_loading_s * EXPECTED_LOADINGS.max(f64::from(done)) > gpu_start_s
}

enum Stage {
    /// CPU loadings done so far (the race is considered after the 2nd, 32nd, 64th, ...).
    Cpu(u32),
    /// Decided: the CPU keeps loading.
    CpuWon,
    /// Decided: the GPU loads.
    GpuWon,
}

/// What one consideration of the race decided.
enum Race {
    /// The GPU was measured faster: it loads the rest.
    Gpu,
    /// The CPU was measured faster, or there is no GPU: it loads the rest.
    Cpu,
    /// Not worth a GPU's start yet: considered again later.
    NotYet,
}

/// The racing loader (see the [module documentation](self)).
pub struct RacingLoader<'a> {
    cpu: Box<dyn AllOrNothing + 'a>,
    gpu: Option<GpuLoader<'static>>,
    stage: Stage,
    allow_zone_transit: bool,
    method: Method,
    why: String,
}

impl<'a> RacingLoader<'a> {
    /// Starts on `cpu`; a GPU loader (trees by `method`) is built only if the race is run.
    pub fn new(cpu: Box<dyn AllOrNothing + 'a>, allow_zone_transit: bool, method: Method) -> Self {
        let why = "auto: the CPU loads; the race was not reached (fewer than two loadings)".into();
        Self { cpu, gpu: None, stage: Stage::Cpu(0), allow_zone_transit, method, why }
    }

    /// What was decided and why, with the measured times.
    pub fn why(&self) -> &str {
        &self.why
    }

    /// Runs the race after a CPU loading of `cpu_s`: builds the GPU loader, loads once at the same
    /// costs (its start) and times a second loading, then keeps the faster. Returns whether the GPU won.
    fn race(
        &mut self,
        net: &Network,
        demand: &Demand,
        costs: &[f64],
        cpu_s: f64,
        done: u32,
    ) -> Result<Race, TapError> {
        if !worth_racing_after(done, cpu_s, NO_GPU_STARTS_FASTER_S) {
            self.why = format!(
                "auto: the CPU loads: {:.1} ms a loading × {} expected loadings is less than \
                 what any GPU's start takes (≥ {NO_GPU_STARTS_FASTER_S} s: adapters, device, pipelines)",
                cpu_s * 1e3,
                EXPECTED_LOADINGS.max(f64::from(done))
            );
            return Ok(Race::NotYet);
        }
        // The GPU Auto used last here, read before listing the adapters (0.1 s on the H200 host).
        if !gpu_runtime::context::adapters_listed()
            && let Some(last) = gpu_runtime::calibrate::last_auto_profile()
        {
            let start = last.list_s + predicted_gpu_start(&last, false, net.num_links(), demand.num_pairs());
            if !worth_racing_after(done, cpu_s, start) {
                self.why = format!(
                    "auto: the CPU loads: {:.1} ms a loading × {} expected loadings is less than \
                     this machine's GPU's predicted start ({start:.2} s)",
                    cpu_s * 1e3,
                    EXPECTED_LOADINGS.max(f64::from(done))
                );
                return Ok(Race::NotYet);
            }
        }
        let device = match gpu_runtime::calibrate::auto_device() {
            Ok(d) => d,
            Err(why) => {
                self.why = format!("auto: the CPU loads ({:.1} ms a loading); no GPU: {why}", cpu_s * 1e3);
                return Ok(Race::Cpu);
            }
        };
        let start_pred =
            predicted_gpu_start(&device.profile, device.warm, net.num_links(), demand.num_pairs());
        if !worth_racing_after(done, cpu_s, start_pred) {
            self.why = format!(
                "auto: the CPU loads: {:.1} ms a loading × {} expected loadings is less than \
                 the GPU's predicted start ({:.2} s)",
                cpu_s * 1e3,
                EXPECTED_LOADINGS.max(f64::from(done)),
                start_pred
            );
            return Ok(Race::NotYet);
        }
        let Some(ctx) = gpu_runtime::GpuContext::auto() else {
            self.why = "auto: the CPU loads (the GPU could not be opened)".into();
            return Ok(Race::Cpu);
        };
        // The first GPU loading compiles pipelines and allocates staging buffers (3–4× a steady
        // loading on the H200): it is part of the start; the second is the one compared. A GPU that
        // fails here (out of memory on a large network, a lost device) leaves the CPU loading.
        let timed = || -> Result<(GpuLoader<'static>, f64, f64), TapError> {
            let t = Instant::now();
            let all = 0..demand.num_origins();
            let mut gpu =
                GpuLoader::with_method(&[ctx], net, demand, self.allow_zone_transit, all, self.method)?;
            let mut y = vec![0.0; net.num_links()];
            gpu.load(net, demand, costs, &mut y)?;
            let start_s = t.elapsed().as_secs_f64();
            let t = Instant::now();
            gpu.load(net, demand, costs, &mut y)?;
            Ok((gpu, start_s, t.elapsed().as_secs_f64()))
        };
        let (gpu, start_s, gpu_s) = match timed() {
            Ok(t) => t,
            Err(e) => {
                self.why = format!(
                    "auto: the CPU loads ({:.1} ms a loading); the GPU's loader failed: {e}",
                    cpu_s * 1e3
                );
                return Ok(Race::Cpu);
            }
        };
        let won = gpu_s < cpu_s;
        self.why = format!(
            "auto: raced one loading: GPU {:.1} ms against the CPU's {:.1} ms ({} loads; the GPU started in {:.2} s, \
             predicted {:.2} s)",
            gpu_s * 1e3,
            cpu_s * 1e3,
            if won { "the GPU" } else { "the CPU" },
            start_s,
            start_pred
        );
        if won {
            self.gpu = Some(gpu);
            return Ok(Race::Gpu);
        }
        Ok(Race::Cpu)
    }
}

impl AllOrNothing for RacingLoader<'_> {
    fn load(
        &mut self,
        net: &Network,
        demand: &Demand,
        costs: &[f64],
        y: &mut [f64],
    ) -> Result<f64, TapError> {
        match self.stage {
            Stage::GpuWon => match self.gpu.as_mut() {
                Some(gpu) => gpu.load(net, demand, costs, y),
                None => self.cpu.load(net, demand, costs, y),
            },
            Stage::CpuWon => self.cpu.load(net, demand, costs, y),
            Stage::Cpu(done) => {
                let t = Instant::now();
                let sptt = self.cpu.load(net, demand, costs, y)?;
                let cpu_s = t.elapsed().as_secs_f64();
                let done = done + 1;
                let consider = done == 2 || (done >= 32 && done.is_power_of_two());
                self.stage = match consider.then(|| self.race(net, demand, costs, cpu_s, done)).transpose()? {
                    Some(Race::Gpu) => Stage::GpuWon,
                    Some(Race::Cpu) => Stage::CpuWon,
                    Some(Race::NotYet) | None => Stage::Cpu(done),
                };
                Ok(sptt)
            }
        }
    }

    fn describe(&self) -> String {
        match (&self.stage, &self.gpu) {
            (Stage::GpuWon, Some(gpu)) => gpu.describe(),
            _ => self.cpu.describe(),
        }
    }
}
