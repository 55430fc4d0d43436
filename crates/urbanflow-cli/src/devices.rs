//! Where a command runs: the `--backend` rule, the GPUs of `--gpus`, and the split of wall time into
//! device setup and work.

use crate::outcome::Error;

/// The one default rule of every command's `--backend`: the flag as given, else `$URBANFLOW_BACKEND`,
/// else `auto` (each library's measured choice, which never runs slower than the CPU and says why).
/// Lowercase, so `GPU` and `gpu` mean the same.
#[cfg(any(feature = "dp", feature = "overlay"))]
pub fn backend_flag(flag: Option<&str>) -> String {
    flag.map(str::to_string)
        .or_else(|| std::env::var("URBANFLOW_BACKEND").ok())
        .unwrap_or_else(|| "auto".into())
        .trim()
        .to_ascii_lowercase()
}

/// The GPUs of `--gpus` (none when the flag is absent); an empty selection (`all` on a machine with no
/// hardware GPU) is an error, not a silent CPU run.
pub fn open_gpus(
    selection: Option<&urbanflow::gpu::devices::DeviceSelection>,
) -> Result<Vec<urbanflow::gpu::GpuContext>, Error> {
    let Some(sel) = selection else { return Ok(Vec::new()) };
    #[cfg(not(feature = "gpu"))]
    return Err(format!("--gpus {sel}: {}", urbanflow::gpu::GpuError::NotBuilt).into());
    #[cfg(feature = "gpu")]
    let devices =
        urbanflow::gpu::devices::open(sel, &Default::default()).map_err(|e| format!("--gpus {sel}: {e}"))?;
    #[cfg(feature = "gpu")]
    if devices.is_empty() {
        let found = urbanflow::gpu::devices::list(&Default::default());
        return Err(format!(
            "--gpus {sel}: no hardware GPU (found: {}); name a software adapter by index to test with it",
            if found.is_empty() {
                "none".to_string()
            } else {
                found.iter().map(|a| a.to_string()).collect::<Vec<_>>().join("; ")
            }
        )
        .into());
    }
    #[cfg(feature = "gpu")]
    Ok(devices)
}

/// Runs `read` (the input files) on this thread while the devices start on another: the GPUs of
/// `--gpus`, else the shared device of `--backend gpu` (`choice.backend()` afterwards finds it; `auto`
/// and `cpu` create none here, since auto may not use one). Creating a device takes about 0.1 s warm,
/// more on a driver's first start, about what reading a city's files takes: the run pays the longer of
/// the two instead of their sum.
pub fn read_beside_devices<T>(
    choice: urbanflow::gpu::BackendChoice,
    gpus: Option<&urbanflow::gpu::devices::DeviceSelection>,
    read: impl FnOnce() -> T,
) -> (Result<Vec<urbanflow::gpu::GpuContext>, Error>, T) {
    std::thread::scope(|scope| {
        let opening = scope.spawn(move || -> Result<_, Error> {
            let devices = open_gpus(gpus)?;
            if devices.is_empty() && choice == urbanflow::gpu::BackendChoice::Gpu {
                urbanflow::gpu::GpuContext::shared();
            }
            Ok(devices)
        });
        let read = read();
        (opening.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)), read)
    })
}

/// Splits a run's wall time into GPU setup and work, the same way in every command: `setup_s` is device
/// creation (of the process's shared device and of `--gpus` devices) plus shader and pipeline
/// compilation during the run (the slowest device's, where several compile at once); `solve_s` is the
/// run's wall time less the setup paid inside it. CPU runs report `setup_s` 0.
pub struct SetupClock {
    /// Compile time per context when the clock started (shared context first).
    compiled: Vec<std::time::Duration>,
    shared_existed: bool,
}

impl SetupClock {
    /// Starts just before the work (after any device opened for `--gpus`).
    pub fn start(devices: &[urbanflow::gpu::GpuContext]) -> Self {
        Self { compiled: Self::compile_times(devices), shared_existed: Self::shared().is_some() }
    }

    fn shared() -> Option<&'static urbanflow::gpu::GpuContext> {
        urbanflow::gpu::GpuContext::shared_is_created().then(urbanflow::gpu::GpuContext::shared).flatten()
    }

    fn compile_times(devices: &[urbanflow::gpu::GpuContext]) -> Vec<std::time::Duration> {
        let shared = Self::shared().map_or(std::time::Duration::ZERO, |c| c.compile_time());
        std::iter::once(shared).chain(devices.iter().map(|d| d.compile_time())).collect()
    }

    /// `(setup_s, solve_s)` of a run of `wall_s` seconds on the shared device and `devices`.
    pub fn split(&self, wall_s: f64, devices: &[urbanflow::gpu::GpuContext]) -> (f64, f64) {
        let now = Self::compile_times(devices);
        let compiled =
            now.iter().zip(&self.compiled).map(|(n, b)| n.saturating_sub(*b)).max().unwrap_or_default();
        let shared_created = Self::shared().map_or(0.0, |c| c.creation_time().as_secs_f64());
        // A device created during the run is setup inside the wall time; one created before it is
        // setup the process paid all the same.
        let inside = if self.shared_existed { 0.0 } else { shared_created };
        let created = shared_created + devices.iter().map(|d| d.creation_time().as_secs_f64()).sum::<f64>();
        let setup = created + compiled.as_secs_f64();
        (setup, (wall_s - inside - compiled.as_secs_f64()).max(0.0))
    }
}

/// Where loading or trees ran, for reports: the GPUs of `--gpus`, else the backend.
pub fn backend_name(backend: urbanflow::Backend, devices: &[urbanflow::gpu::GpuContext]) -> String {
    match devices.len() {
        0 => backend.resolve().to_string(),
        1 => format!("gpu ({})", devices[0].info.name),
        k => format!(
            "{k} gpus ({})",
            devices.iter().map(|d| d.info.name.as_str()).collect::<Vec<_>>().join(", ")
        ),
    }
}
