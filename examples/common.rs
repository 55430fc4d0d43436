//! What the examples share: a failed run prints `error: …` on stderr and exits non-zero.

use std::process::ExitCode;

/// The exit code of `run`'s result, printing the error when there is one.
pub fn finish(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
