//! Launch configurations of the GPU reduction.

use gpu_runtime::GpuContext;

use crate::error::ReduceError;

/// How the first stage reads the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Seed 000 ch. 6, corrected: a persistent grid of `workgroups` workgroups strides over the input,
    /// each invocation folding `items_per_invocation` elements per trip (`WG` apart, so loads
    /// coalesce), with 16-byte `vec4` loads when `vec4` is set. `workgroups: None` sizes the grid from
    /// the input (at most [`DEFAULT_MAX_WORKGROUPS`]).
    GridStride {
        /// F: elements (or vec4s) per invocation per trip: 1, 2, 4, 8 or 16.
        items_per_invocation: u32,
        /// Load `vec4<u32>` (4 elements) at a time.
        vec4: bool,
        /// G, the grid size.
        workgroups: Option<u32>,
    },
    /// Harris's kernel 7 (baseline): two elements per invocation per trip, grid-stride, at most 1024
    /// workgroups.
    Harris7,
    /// Catanzaro's two-stage reduction (baseline): each of `workgroups` workgroups reduces one
    /// contiguous chunk.
    TwoStage {
        /// Number of chunks (default 1024).
        workgroups: Option<u32>,
    },
}

/// Whether the workgroup step uses subgroup operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SubgroupMode {
    /// When the device has `SUBGROUP`.
    #[default]
    Auto,
    /// Never (workgroup-memory tree; the order the CPU mirror reproduces).
    Off,
    /// Always; an error if the device has no subgroups.
    On,
}

/// Largest grid the automatic sizing picks unless the adapter is tuned otherwise: 1024 workgroups of
/// 256 fill a 132-SM GPU exactly (2,048 resident invocations per SM).
pub const DEFAULT_MAX_WORKGROUPS: u32 = 1024;

/// A reduction launch configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReduceConfig {
    /// Invocations per workgroup (an override constant): 32 to the device's limit.
    pub workgroup_size: u32,
    /// The first-stage variant.
    pub variant: Variant,
    /// Subgroup use.
    pub subgroups: SubgroupMode,
    /// Cap of the automatic grid size (`GridStride { workgroups: None }`).
    pub max_workgroups: u32,
}

impl Default for ReduceConfig {
    /// The portable default: vec4 loads, 4 per invocation per trip, 256-wide workgroups, at most 1024
    /// of them, subgroups when present (the best family of the H100 sweep in docs/benchmarks.md).
    fn default() -> Self {
        Self {
            workgroup_size: 256,
            variant: Variant::GridStride { items_per_invocation: 4, vec4: true, workgroups: None },
            subgroups: SubgroupMode::Auto,
            max_workgroups: DEFAULT_MAX_WORKGROUPS,
        }
    }
}

/// A resolved launch: what the kernels and the CPU mirror need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    /// Workgroup size.
    pub wg: u32,
    /// Items (or vec4s) per invocation per trip.
    pub f: u32,
    /// vec4 loads.
    pub vec4: bool,
    /// Contiguous chunks (two-stage) instead of grid-stride.
    pub contiguous: bool,
    /// Stage-1 workgroups = number of partials.
    pub groups: u32,
    /// Elements per workgroup (contiguous layout).
    pub chunk: u32,
    /// Subgroup workgroup step.
    pub subgroups: bool,
}

impl ReduceConfig {
    /// Resolves the configuration for `n` elements on a device with (or without) subgroups.
    pub fn launch(&self, n: usize, has_subgroups: bool) -> Result<Launch, ReduceError> {
        let wg = self.workgroup_size;
        if !(32..=1024).contains(&wg) {
            return Err(ReduceError::InvalidConfig(format!("workgroup size {wg} is outside 32..=1024")));
        }
        let subgroups = match self.subgroups {
            SubgroupMode::Auto => has_subgroups,
            SubgroupMode::Off => false,
            SubgroupMode::On if has_subgroups => true,
            SubgroupMode::On => return Err(ReduceError::UnsupportedFeature),
        };
        let n = n as u64;
        let grid = |units: u64, per: u64, max: u32| units.div_ceil(per).clamp(1, max as u64) as u32;
        let launch = match self.variant {
            Variant::GridStride { items_per_invocation: f, vec4, workgroups } => {
                if ![1, 2, 4, 8, 16].contains(&f) {
                    return Err(ReduceError::InvalidConfig(format!(
                        "items per invocation {f} not in 1,2,4,8,16"
                    )));
                }
                let vec4 = vec4 && n >= 4;
                let units = if vec4 { n / 4 } else { n };
                let groups = match workgroups {
                    Some(0) => return Err(ReduceError::InvalidConfig("zero workgroups".into())),
                    Some(g) => g,
                    None => grid(units, wg as u64 * f as u64, self.max_workgroups.max(1)),
                };
                Launch { wg, f, vec4, contiguous: false, groups, chunk: 0, subgroups }
            }
            Variant::Harris7 => Launch {
                wg,
                f: 2,
                vec4: false,
                contiguous: false,
                groups: grid(n, 2 * wg as u64, 1024),
                chunk: 0,
                subgroups,
            },
            Variant::TwoStage { workgroups } => {
                let want = workgroups.unwrap_or(1024).max(1) as u64;
                let step = wg as u64 * 4;
                let chunk = n.div_ceil(want).div_ceil(step).max(1) * step;
                let groups = n.div_ceil(chunk).max(1) as u32;
                Launch { wg, f: 4, vec4: false, contiguous: true, groups, chunk: chunk as u32, subgroups }
            }
        };
        Ok(launch)
    }

    /// The configuration for `ctx`: the portable default within the device's limits. No adapter gets
    /// a shape of its own by name: the best of the H100 sweep (512 × 528) beat the default by 3 % at
    /// 64 MiB and tied at 256 MiB (docs/benchmarks.md), less than run-to-run noise elsewhere.
    pub fn tuned(ctx: &GpuContext) -> Self {
        Self::default().for_device(ctx)
    }

    /// The configuration clamped to what `ctx` allows (workgroup size limit).
    pub fn for_device(mut self, ctx: &GpuContext) -> Self {
        self.workgroup_size = self.workgroup_size.min(ctx.limits.max_compute_invocations_per_workgroup);
        self
    }
}
