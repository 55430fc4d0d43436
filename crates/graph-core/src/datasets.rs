//! Finding the shared real-world data sets (`URBANFLOW_DATA`) from tests, examples and benchmarks.
//!
//! The data root is `$URBANFLOW_DATA` when set, else the first `../shared/data` found beside the
//! workspace (searched upwards from the current directory and from this crate's source directory).
//! Without data, callers print one clear skip line; with `URBANFLOW_REQUIRE_DATA=1` that becomes a
//! failure, so CI cannot pass by skipping.

use std::path::{Path, PathBuf};

/// The environment variable naming the data root.
pub const DATA_ENV: &str = "URBANFLOW_DATA";
/// The environment variable that turns a missing data set into a failure.
pub const REQUIRE_DATA_ENV: &str = "URBANFLOW_REQUIRE_DATA";

/// True when `name` is set to `1`, `true` or `yes`.
pub fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| matches!(v.trim(), "1" | "true" | "yes"))
}

/// The data root, if one exists.
pub fn data_root() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(DATA_ENV) {
        let dir = PathBuf::from(dir);
        return dir.is_dir().then_some(dir);
    }
    let here = std::env::current_dir().ok();
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.iter()
        .flat_map(|p| p.ancestors())
        .chain(crate_dir.ancestors())
        .map(|p| p.join("../shared/data"))
        .find(|p| p.is_dir())
        .map(|p| p.canonicalize().unwrap_or(p))
}

/// The path of a data file or folder relative to the data root, if it exists. When it does not,
/// prints `SKIP <what>: ...` to stderr, or panics (failing the test) when `URBANFLOW_REQUIRE_DATA=1`.
pub fn data_path(relative: &str, what: &str) -> Option<PathBuf> {
    let found = data_root().map(|r| r.join(relative)).filter(|p| p.exists());
    if found.is_none() {
        let msg = format!(
            "{what}: data file `{relative}` not found (set {DATA_ENV} to the folder holding shared/data)"
        );
        if env_flag(REQUIRE_DATA_ENV) {
            panic!("{msg}, and {REQUIRE_DATA_ENV}=1 requires it");
        }
        eprintln!("SKIP {msg}");
    }
    found
}
