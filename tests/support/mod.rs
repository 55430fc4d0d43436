//! What the integration tests share: the repository root, and running an example binary as a user
//! would (cargo test builds the examples beside the test binaries).

#![allow(dead_code)] // each test file uses its part

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// Runs an example binary on the CPU backend without progress lines; prints its stderr for failures.
pub fn example(name: &str, args: &[&str], cwd: Option<&Path>) -> Output {
    let exe = std::env::current_exe().unwrap();
    let bin = exe.parent().unwrap().parent().unwrap().join("examples").join(name);
    assert!(
        bin.exists(),
        "{} not built (cargo test --workspace builds the examples of crates/urbanflow-examples)",
        bin.display()
    );
    let mut cmd = Command::new(&bin);
    cmd.args(args).env("URBANFLOW_BACKEND", "cpu").env("URBANFLOW_PROGRESS_SECONDS", "0");
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    let out = cmd.output().unwrap();
    eprintln!(
        "{name} {}: {}\n--- stderr\n{}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stderr).chars().take(2000).collect::<String>()
    );
    out
}
