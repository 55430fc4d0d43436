//! What the integration tests share: the repository root, and running the `urbanflow` command as a user
//! would (cargo test builds it beside the test binaries: its package, urbanflow-cli, holds the tests that
//! run it).

#![allow(dead_code)] // each test file uses its part

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// The `urbanflow` binary cargo built for this test run.
pub fn urbanflow_bin() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin =
        exe.parent().unwrap().parent().unwrap().join(format!("urbanflow{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} not built (cargo test --workspace builds it for the tests of crates/urbanflow-cli)",
        bin.display()
    );
    bin
}

/// Runs `urbanflow <name> <args>` on the CPU backend without progress lines; prints its stderr for
/// failures.
pub fn command(name: &str, args: &[&str], cwd: Option<&Path>) -> Output {
    let mut cmd = Command::new(urbanflow_bin());
    cmd.arg(name).args(args).env("URBANFLOW_BACKEND", "cpu").env("URBANFLOW_PROGRESS_SECONDS", "0");
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    let out = cmd.output().unwrap();
    eprintln!(
        "urbanflow {name} {}: {}\n--- stderr\n{}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stderr).chars().take(2000).collect::<String>()
    );
    out
}
