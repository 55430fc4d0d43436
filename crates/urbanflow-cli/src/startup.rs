//! What a command does before anything else, while it is the process's only thread.

use std::path::Path;

/// Keeps a run's stderr free of a false `error:`: on a machine without a desktop session (no
/// `XDG_RUNTIME_DIR`: servers, containers, CI), Mesa's device-select Vulkan layer asks for a Wayland
/// display while the adapters are listed, and libwayland prints `error: XDG_RUNTIME_DIR is invalid or not
/// set in the environment.` — twice per listing, for nothing: the layer only orders the GPUs for a
/// display, and urbanflow orders the adapters itself (`gpu::context::adapters`). Without a session the
/// layer is switched off with its own variable, `NODEVICE_SELECT=1`, unless the user set it.
///
/// Called first thing in `main` (before MPI starts in `urbanflow cluster`).
#[allow(unsafe_code)] // the one exception to the workspace's rule: see SAFETY below
pub fn quiet_device_probe() {
    let session = std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| Path::new(&d).is_dir());
    if !session && std::env::var_os("NODEVICE_SELECT").is_none() {
        // SAFETY: this runs at the start of `main`, before the process starts any thread, so nothing
        // can read the environment while it changes (std::env::set_var's condition).
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
}
