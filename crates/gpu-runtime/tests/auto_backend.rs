//! The automatic backend never picks a software adapter; asking for the GPU still gets one.

use gpu_runtime::context::auto_adapter;
use gpu_runtime::testing::REQUIRE_GPU_ENV;
use gpu_runtime::{Backend, BackendChoice, Resolved};

#[test]
fn auto_skips_software_adapters_and_gpu_still_gets_them() {
    let auto = auto_adapter();
    if auto.found.is_empty() {
        assert!(
            std::env::var(REQUIRE_GPU_ENV).map_or(true, |v| v != "1"),
            "no adapter and {REQUIRE_GPU_ENV}=1"
        );
        eprintln!("SKIP auto_skips_software_adapters: no GPU adapter found");
        assert!(matches!(Backend::Auto.resolve(), Resolved::Cpu));
        return;
    }
    let best = &auto.found[0];
    let named = std::env::var("WGPU_ADAPTER_NAME").is_ok_and(|v| !v.is_empty());
    eprintln!("best adapter: {best}; auto: {:?}: {}", auto.chosen, auto.reason);
    if best.is_software() && !named {
        assert_eq!(auto.chosen, None);
        assert!(auto.reason.contains("software"), "{}", auto.reason);
        assert!(matches!(Backend::Auto.resolve(), Resolved::Cpu), "Auto must not resolve to `{}`", best.name);
        // --backend gpu still reaches it (with a warning on stderr).
        match BackendChoice::Gpu.backend().unwrap() {
            Backend::Gpu(ctx) => assert!(ctx.is_software()),
            other => panic!("--backend gpu gave {other:?}"),
        }
    } else {
        assert_eq!(auto.chosen, Some(0));
        assert!(matches!(Backend::Auto.resolve(), Resolved::Gpu(_)));
    }
}
