//! The context of a build without the `gpu` feature: the same names as the wgpu layer's `context`, so
//! that algorithms choose their backend the same way, but no GPU can be opened. [`GpuContext`] has no
//! value (a [`Backend::Gpu`](crate::Backend::Gpu) cannot be made), [`GpuContext::auto`] is always
//! `None`, and [`auto_adapter`] says why the CPU is used.

use std::convert::Infallible;

/// A GPU context that cannot exist: this build has no wgpu layer (the `gpu` feature is off).
#[derive(Debug)]
pub struct GpuContext {
    /// The adapter's description (never read: no value of this type exists).
    pub info: AdapterInfo,
    never: Infallible,
}

/// The adapter description of a [`GpuContext`] (only its name, in a build without the `gpu` feature).
#[derive(Debug, Clone)]
pub struct AdapterInfo {
    /// The adapter's name.
    pub name: String,
}

/// What the reason strings say when a GPU path is asked of a CPU-only build.
pub const NOT_BUILT: &str = "urbanflow was built without the `gpu` feature: everything runs on the CPU \
                             (rebuild with `--features gpu` for GPU paths)";

impl GpuContext {
    /// Always `None`: there is no GPU layer in this build.
    pub fn shared() -> Option<&'static GpuContext> {
        None
    }

    /// Always `None`: [`crate::Backend::Auto`] resolves to the CPU.
    pub fn auto() -> Option<&'static GpuContext> {
        None
    }

    /// Always false.
    pub fn shared_is_created() -> bool {
        false
    }

    /// Never true (no value exists).
    pub fn is_software(&self) -> bool {
        match self.never {}
    }

    /// How long creating this context took (no value exists).
    pub fn creation_time(&self) -> std::time::Duration {
        match self.never {}
    }

    /// Time spent compiling pipelines (no value exists).
    pub fn compile_time(&self) -> std::time::Duration {
        match self.never {}
    }

    /// One line naming the adapter (no value exists).
    pub fn describe(&self) -> String {
        match self.never {}
    }

    /// Ends a match arm that holds a context: no such value exists in this build.
    pub fn unbuilt(&self) -> ! {
        match self.never {}
    }
}

/// What [`crate::Backend::Auto`] uses in this process, and why: always the CPU here.
#[derive(Debug, Clone)]
pub struct AutoAdapter {
    /// Every adapter found: none in this build.
    pub found: Vec<AdapterSummary>,
    /// Index of the adapter `Auto` uses: always `None` (the CPU).
    pub chosen: Option<usize>,
    /// One sentence saying why.
    pub reason: String,
    /// Seconds listing the adapters took: none here.
    pub list_s: f64,
}

/// The automatic choice: the CPU, because this build has no GPU layer.
pub fn auto_adapter() -> &'static AutoAdapter {
    static AUTO: std::sync::OnceLock<AutoAdapter> = std::sync::OnceLock::new();
    AUTO.get_or_init(|| AutoAdapter {
        found: Vec::new(),
        chosen: None,
        reason: NOT_BUILT.into(),
        list_s: 0.0,
    })
}

/// One adapter as listed (none is listed in a build without the `gpu` feature).
#[derive(Debug, Clone)]
pub struct AdapterSummary {
    /// The adapter's name.
    pub name: String,
}

/// The name, as the GPU build's summary starts (so reports print the same way in both builds).
impl std::fmt::Display for AdapterSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Backend, BackendChoice, GpuError, Resolved};

    #[test]
    fn a_cpu_only_build_runs_on_the_cpu_and_refuses_a_gpu_by_name() {
        assert!(matches!(Backend::Auto.resolve(), Resolved::Cpu));
        assert!(matches!(BackendChoice::Gpu.backend(), Err(GpuError::NotBuilt)));
        assert!(GpuError::NotBuilt.to_string().contains("`gpu` feature"));
        assert!(super::auto_adapter().reason.contains("without the `gpu` feature"));
        assert!(super::GpuContext::shared().is_none() && !crate::BUILT_WITH_GPU);
    }
}
