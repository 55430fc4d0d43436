//! What the examples share: a failed run prints `error: …` on stderr and exits non-zero.

use std::path::PathBuf;
use std::process::ExitCode;

/// The exit code of `run`'s result, printing the error when there is one.
#[allow(dead_code)] // graph_stats reports its own errors
pub fn finish(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The small road graph bundled in `examples/data`: the default input of the graph examples.
#[allow(dead_code)] // not every example reads a graph
pub fn bundled_road_graph() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data/small-road.gr.gz");
    p.canonicalize().unwrap_or(p)
}
