//! Several GPUs in one process: which adapters to open, and one [`GpuContext`] (device and queue) per
//! adapter.
//!
//! Every algorithm that spreads work over devices takes a slice of contexts; nothing else here knows
//! about scheduling. The same physical GPU is listed once even when several wgpu backends (Vulkan, GL)
//! expose it, so `all` never opens one card twice by accident; naming an index twice (`0,0`) does, on
//! purpose: two devices on one adapter exercise the multi-device code paths on a machine with one GPU
//! (or only lavapipe).

use std::fmt;
use std::str::FromStr;
#[cfg(feature = "gpu")]
use std::sync::OnceLock;

#[cfg(feature = "gpu")]
use crate::context::{AdapterSummary, GpuContext, GpuOptions, adapters};
#[cfg(feature = "gpu")]
use crate::error::GpuError;

/// Which adapters to open, as given on a command line (`--gpus`) or in `URBANFLOW_GPUS`.
///
/// ```
/// use urbanflow::gpu::devices::DeviceSelection;
/// assert_eq!("all".parse::<DeviceSelection>().unwrap(), DeviceSelection::All);
/// assert_eq!("0,1".parse::<DeviceSelection>().unwrap(), DeviceSelection::Indices(vec![0, 1]));
/// assert_eq!(
///     "h100".parse::<DeviceSelection>().unwrap(),
///     DeviceSelection::Names(vec!["h100".into()])
/// );
/// assert!("".parse::<DeviceSelection>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum DeviceSelection {
    /// Every hardware GPU (software adapters only when no hardware one exists and one is named).
    #[default]
    All,
    /// These positions in [`physical_adapters`]' list (repeats open one adapter several times).
    Indices(Vec<usize>),
    /// Every adapter whose name contains one of these (case-insensitive).
    Names(Vec<String>),
}

impl FromStr for DeviceSelection {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("all") {
            return Ok(Self::All);
        }
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        if parts.iter().any(|p| p.is_empty()) {
            return Err(format!(
                "`{s}` names no device: expected `all`, indices such as `0,1`, or parts of adapter names"
            ));
        }
        if parts.iter().all(|p| p.bytes().all(|b| b.is_ascii_digit())) {
            let indices: Result<Vec<usize>, String> =
                parts.iter().map(|p| p.parse().map_err(|e| format!("`{p}`: {e}"))).collect();
            return indices.map(Self::Indices);
        }
        Ok(Self::Names(parts.iter().map(|p| p.to_lowercase()).collect()))
    }
}

impl fmt::Display for DeviceSelection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::All => write!(f, "all"),
            Self::Indices(i) => {
                write!(f, "{}", i.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(","))
            }
            Self::Names(n) => write!(f, "{}", n.join(",")),
        }
    }
}

/// The adapters of [`adapters`] with each physical device once: only the best native backend present
/// (Vulkan, Metal or DX12; GL, which exposes the same cards again without a PCI bus id, only when no
/// native backend is there), and within it devices told apart by PCI bus id where the driver reports
/// one.
#[cfg(feature = "gpu")]
pub fn physical_adapters(opts: &GpuOptions) -> Vec<wgpu::Adapter> {
    let mut seen = std::collections::HashSet::new();
    let mut all = adapters(opts);
    let preference = [wgpu::Backend::Vulkan, wgpu::Backend::Metal, wgpu::Backend::Dx12, wgpu::Backend::Gl];
    if let Some(best) = preference.iter().find(|b| all.iter().any(|a| a.get_info().backend == **b)) {
        all.retain(|a| a.get_info().backend == *best);
    }
    // One backend is left, in adapters()' order (discrete GPUs first).
    all.retain(|a| {
        let i = a.get_info();
        let key = if i.device_pci_bus_id.is_empty() {
            format!("{}/{:x}/{:x}/{:?}", i.name, i.vendor, i.device, i.backend)
        } else {
            i.device_pci_bus_id.clone()
        };
        seen.insert(key)
    });
    all
}

/// Summaries of [`physical_adapters`], for listings (`doctor`, `--gpus list`).
#[cfg(feature = "gpu")]
pub fn list(opts: &GpuOptions) -> Vec<AdapterSummary> {
    physical_adapters(opts).iter().map(|a| AdapterSummary::of(&a.get_info())).collect()
}

/// One context per selected adapter, in the selection's order (`All`: best first). `All` with no
/// hardware GPU gives an empty list (the caller runs on the CPU); an index past the list or a name
/// that matches nothing is an error naming what was found.
#[cfg(feature = "gpu")]
pub fn open(selection: &DeviceSelection, opts: &GpuOptions) -> Result<Vec<GpuContext>, GpuError> {
    let found = physical_adapters(opts);
    let names = || {
        let n: Vec<String> =
            found.iter().enumerate().map(|(i, a)| format!("{i}: {}", a.get_info().name)).collect();
        if n.is_empty() { "no adapters".to_string() } else { n.join("; ") }
    };
    let chosen: Vec<wgpu::Adapter> = match selection {
        DeviceSelection::All => {
            found.iter().filter(|a| a.get_info().device_type != wgpu::DeviceType::Cpu).cloned().collect()
        }
        DeviceSelection::Indices(idx) => idx
            .iter()
            .map(|&i| {
                found
                    .get(i)
                    .cloned()
                    .ok_or_else(|| GpuError::NoAdapter(format!(" at index {i} (found {})", names())))
            })
            .collect::<Result<_, _>>()?,
        DeviceSelection::Names(wanted) => {
            let c: Vec<wgpu::Adapter> = found
                .iter()
                .filter(|a| {
                    let name = a.get_info().name.to_lowercase();
                    wanted.iter().any(|w| name.contains(w.as_str()))
                })
                .cloned()
                .collect();
            if c.is_empty() {
                return Err(GpuError::NoAdapter(format!(
                    " whose name contains {} (found {})",
                    wanted.join(" or "),
                    names()
                )));
            }
            c
        }
    };
    // Devices are created one after another: drivers serialise it anyway. Under `All` a card that
    // refuses a device is left out with a warning (the others still run); a named one is an error.
    let mut out = Vec::with_capacity(chosen.len());
    for a in chosen {
        match GpuContext::from_adapter(a, opts) {
            Ok(ctx) => out.push(ctx),
            Err(e) if *selection == DeviceSelection::All => eprintln!("urbanflow: warning: {e}; left out"),
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// The process-wide contexts of `URBANFLOW_GPUS` (default `all`), created once on first use; what
/// `--gpus` options fall back to. An invalid variable or a failed device is an error every time.
#[cfg(feature = "gpu")]
pub fn shared() -> Result<&'static [GpuContext], GpuError> {
    static SHARED: OnceLock<Result<Vec<GpuContext>, String>> = OnceLock::new();
    let r = SHARED.get_or_init(|| {
        let sel = match std::env::var("URBANFLOW_GPUS") {
            Ok(v) => v.parse::<DeviceSelection>().map_err(|e| format!("URBANFLOW_GPUS: {e}"))?,
            Err(_) => DeviceSelection::All,
        };
        open(&sel, &GpuOptions::default()).map_err(|e| e.to_string())
    });
    match r {
        Ok(v) => Ok(v.as_slice()),
        Err(e) => Err(GpuError::NoAdapter(format!(": {e}"))),
    }
}
