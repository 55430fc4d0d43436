//! Where an algorithm runs: CPU (rayon), a given GPU, or the GPU when one exists.

use std::fmt;
use std::str::FromStr;

use crate::context::GpuContext;
use crate::error::GpuError;

/// The backend every urbanflow algorithm accepts.
///
/// ```
/// use urbanflow::gpu::{Backend, Resolved};
/// // `Cpu` always resolves to the CPU; `Auto` picks the shared GPU context when an adapter exists.
/// assert!(matches!(Backend::Cpu.resolve(), Resolved::Cpu));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub enum Backend<'a> {
    /// rayon on the CPU.
    Cpu,
    /// This GPU.
    Gpu(&'a GpuContext),
    /// The process-wide GPU context when the best adapter is a hardware GPU ([`GpuContext::auto`]),
    /// else the CPU: software adapters (lavapipe) are never chosen automatically, since they are
    /// slower than the CPU backend; see [`crate::context::auto_adapter`] for the reason in words.
    #[default]
    Auto,
}

/// A backend with `Auto` decided.
#[derive(Debug, Clone, Copy)]
pub enum Resolved<'a> {
    /// rayon on the CPU.
    Cpu,
    /// This GPU.
    Gpu(&'a GpuContext),
}

impl<'a> Backend<'a> {
    /// Decides `Auto`.
    pub fn resolve(self) -> Resolved<'a> {
        match self {
            Backend::Cpu => Resolved::Cpu,
            Backend::Gpu(ctx) => Resolved::Gpu(ctx),
            Backend::Auto => GpuContext::auto().map_or(Resolved::Cpu, Resolved::Gpu),
        }
    }
}

impl fmt::Display for Resolved<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Resolved::Cpu => write!(f, "cpu ({} threads)", rayon_threads()),
            Resolved::Gpu(ctx) => write!(f, "gpu ({})", ctx.info.name),
        }
    }
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The backend named on a command line or in `URBANFLOW_BACKEND`: `cpu`, `gpu` or `auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BackendChoice {
    /// rayon on the CPU.
    Cpu,
    /// The best GPU, a software adapter too (with a one-line warning); an error if there is none.
    Gpu,
    /// A hardware GPU if any, else the CPU.
    #[default]
    Auto,
}

impl FromStr for BackendChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "cpu" => Ok(Self::Cpu),
            "gpu" => Ok(Self::Gpu),
            "auto" => Ok(Self::Auto),
            other => Err(format!("unknown backend `{other}`: expected cpu, gpu or auto")),
        }
    }
}

impl BackendChoice {
    /// `URBANFLOW_BACKEND` if set (an unknown value is an error), else `Auto`.
    pub fn from_env() -> Result<Self, String> {
        match std::env::var("URBANFLOW_BACKEND") {
            Ok(v) => v.parse(),
            Err(_) => Ok(Self::Auto),
        }
    }

    /// The backend, creating the shared GPU context when needed. Asking for `Gpu` when the best
    /// adapter is a software one prints one warning line on stderr (it is for testing).
    pub fn backend(self) -> Result<Backend<'static>, GpuError> {
        match self {
            Self::Cpu => Ok(Backend::Cpu),
            Self::Auto => Ok(Backend::Auto),
            Self::Gpu if !crate::BUILT_WITH_GPU => Err(GpuError::NotBuilt),
            Self::Gpu => {
                let ctx = GpuContext::shared().ok_or_else(|| {
                    GpuError::NoAdapter(" (--backend gpu was asked for; try --backend cpu)".into())
                })?;
                if ctx.is_software() {
                    eprintln!("{}", software_warning(&ctx.info.name));
                }
                Ok(Backend::Gpu(ctx))
            }
        }
    }
}

/// The warning printed when a software adapter is used on request.
pub fn software_warning(adapter: &str) -> String {
    format!(
        "urbanflow: warning: `{adapter}` is a software adapter: it runs GPU shaders on the CPU, for \
         testing only, and is far slower than --backend cpu"
    )
}
