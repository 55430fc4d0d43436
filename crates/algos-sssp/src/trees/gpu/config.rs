//! The launch configuration of the batched kernel, a plain value: it is part of [`crate::many`]'s
//! options and results in every build, with or without the `gpu` feature.

/// How the batched kernel is launched: see `BatchConfig::for_graph` for the defaults and
/// `crate::tuning` for the autotuned values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BatchConfig {
    /// Invocations per workgroup (one workgroup per source).
    pub workgroup_size: u32,
    /// Sources per batch (workgroups per dispatch).
    pub slots: usize,
    /// Near–far window width Δ, in weight units (≥ 1).
    pub delta: u32,
    /// Iterations per workgroup per dispatch.
    pub budget: u32,
}
