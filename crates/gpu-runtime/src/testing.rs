//! Running GPU tests on every adapter, with a loud failure in CI when there is none.
//!
//! Each physical adapter is tested once per backend family — the best native backend only, as
//! [`crate::devices::physical_adapters`] lists them: Mesa's software renderer, seen through Vulkan and
//! again through GL, is one device — and twice when it has optional features: once with them and once
//! with the portable baseline (`OptionalFeatures::NONE`), so that fallback paths run in CI too.
//! With no adapter, tests print one `SKIP` line; `URBANFLOW_REQUIRE_GPU=1` makes that a failure.

use std::sync::OnceLock;

use crate::context::{GpuContext, GpuOptions};
use crate::devices::physical_adapters;
use crate::features::OptionalFeatures;

/// The environment variable that makes a missing adapter a test failure.
pub const REQUIRE_GPU_ENV: &str = "URBANFLOW_REQUIRE_GPU";

/// Every test context of this process: for each adapter, the full-feature context and (when it
/// differs) the baseline one. Created once and shared by all tests of a binary.
pub fn contexts() -> &'static [GpuContext] {
    static ALL: OnceLock<Vec<GpuContext>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut out = Vec::new();
        for adapter in physical_adapters(&GpuOptions::default()) {
            let name = adapter.get_info().name;
            match GpuContext::from_adapter(adapter.clone(), &GpuOptions::default()) {
                Ok(full) => {
                    let has_optional = full.features() != OptionalFeatures::NONE;
                    out.push(full);
                    if has_optional {
                        let base =
                            GpuOptions { features: Some(OptionalFeatures::NONE), ..Default::default() };
                        match GpuContext::from_adapter(adapter, &base) {
                            Ok(ctx) => out.push(ctx),
                            Err(e) => eprintln!("urbanflow: baseline context on `{name}` failed: {e}"),
                        }
                    }
                }
                Err(e) => eprintln!("urbanflow: adapter `{name}` refused a device: {e}"),
            }
        }
        out
    })
}

/// Runs `f` on every test context. With none: prints `SKIP <test>: no GPU adapter`, or panics when
/// `URBANFLOW_REQUIRE_GPU=1`.
pub fn for_each_context(test: &str, mut f: impl FnMut(&GpuContext)) {
    let all = contexts();
    if all.is_empty() {
        let require = std::env::var(REQUIRE_GPU_ENV).is_ok_and(|v| v.trim() == "1");
        if require {
            panic!("{test}: no GPU adapter found and {REQUIRE_GPU_ENV}=1 (install mesa-vulkan-drivers)");
        }
        eprintln!("SKIP {test}: no GPU adapter found (set {REQUIRE_GPU_ENV}=1 to make this a failure)");
        return;
    }
    for ctx in all {
        eprintln!("GPU test {test} on {} [{}]", ctx.info.name, ctx.features().names().join(","));
        f(ctx);
    }
}

/// Runs `f` on two devices opened on the best adapter (two contexts on one adapter when it is the
/// only one, as lavapipe in CI), so the multi-device schedulers run in every test run. With no
/// adapter: `SKIP`, or a panic under `URBANFLOW_REQUIRE_GPU=1`.
pub fn with_two_devices(test: &str, f: impl FnOnce(&[GpuContext])) {
    use crate::devices::{DeviceSelection, open};
    match open(&DeviceSelection::Indices(vec![0, 0]), &GpuOptions::default()) {
        Ok(devices) => {
            eprintln!("GPU test {test} on two devices of {}", devices[0].info.name);
            f(&devices)
        }
        Err(e) => {
            let require = std::env::var(REQUIRE_GPU_ENV).is_ok_and(|v| v.trim() == "1");
            if require {
                panic!("{test}: two devices could not be opened ({e}) and {REQUIRE_GPU_ENV}=1");
            }
            eprintln!("SKIP {test}: {e} (set {REQUIRE_GPU_ENV}=1 to make this a failure)");
        }
    }
}
