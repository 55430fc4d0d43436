//! Finding the shared real-world data sets (`URBANFLOW_DATA`) from tests, examples and benchmarks.
//!
//! The data root is `$URBANFLOW_DATA` when set, else the first `../shared/data` found beside the
//! workspace (searched upwards from the current directory and from this crate's source directory).
//! Without data, callers print one clear skip line; with `URBANFLOW_REQUIRE_DATA=1` that becomes a
//! failure, so CI cannot pass by skipping.
//!
//! [`resolve_input`] lets a user name a data file the way the documentation does
//! (`../shared/data/tntp/SiouxFalls/SiouxFalls_net.tntp`) or relative to the data root
//! (`tntp/SiouxFalls/SiouxFalls_net.tntp`) from any directory, once `URBANFLOW_DATA` says where the
//! data lie. `docs/data.md` lists every data set, its source and licence, and
//! `scripts/download-data.sh` fetches the public ones.

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

/// The file a user named: the path itself when it exists; else, for a relative path, the same name under
/// the data root ([`data_root`]), with any leading `../…/shared/data/` of the documentation's commands
/// removed first. A name found nowhere comes back unchanged, so that the error names what was typed.
///
/// ```
/// use urbanflow::graph::datasets::resolve_input;
/// use std::path::Path;
/// let dir = std::env::temp_dir().join(format!("uf-resolve-doc-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("tntp")).unwrap();
/// std::fs::write(dir.join("tntp/x_net.tntp"), "").unwrap();
/// let found = resolve_input(Path::new("../shared/data/tntp/x_net.tntp"), Some(&dir));
/// assert_eq!(found, dir.join("tntp/x_net.tntp"));
/// assert_eq!(resolve_input(Path::new("tntp/x_net.tntp"), Some(&dir)), dir.join("tntp/x_net.tntp"));
/// assert_eq!(resolve_input(Path::new("nowhere.gr"), Some(&dir)), Path::new("nowhere.gr"));
/// # std::fs::remove_dir_all(&dir).ok();
/// ```
pub fn resolve_input(path: &Path, root: Option<&Path>) -> PathBuf {
    if path.exists() || path.is_absolute() {
        return path.to_path_buf();
    }
    let Some(root) = root else { return path.to_path_buf() };
    // `../shared/data/x`, `../../shared/data/x`, `shared/data/x` → `x`.
    let parts: Vec<_> = path.components().collect();
    let under_data = parts
        .windows(2)
        .position(|w| w[0].as_os_str() == "shared" && w[1].as_os_str() == "data")
        .map(|k| parts[k + 2..].iter().collect::<PathBuf>());
    [under_data, Some(path.to_path_buf())]
        .into_iter()
        .flatten()
        .map(|rel| root.join(rel))
        .find(|p| p.exists())
        .unwrap_or_else(|| path.to_path_buf())
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
