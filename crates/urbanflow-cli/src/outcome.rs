//! How a command ends: its exit code (0 done, 1 error, 2 a target missed, 130 Ctrl-C) and the
//! Ctrl-C flag that lets a long run stop where it can keep its results.

use std::process::ExitCode;

/// The exit codes, as every `--help` states them.
pub const EXIT_CODES: &str = "Exit codes: 0 success, 1 error (bad input or arguments, failed run), \
                              2 a target not reached (gap, iteration cap, time limit; named on stderr).";

/// How a run that did its work ended.
pub enum Outcome {
    /// Everything asked for was done.
    Done,
    /// The result is printed, but a target was not reached (the text names it).
    Missed(String),
    /// Ctrl-C stopped the run; what it had done is printed and written (the text says what).
    Interrupted(String),
}

impl Outcome {
    /// Done, or the target named by `missed`.
    pub fn missed_if(missed: Option<String>) -> Self {
        missed.map_or(Outcome::Done, Outcome::Missed)
    }
}

impl From<()> for Outcome {
    fn from((): ()) -> Self {
        Outcome::Done
    }
}

/// What a command's `run` fails with: any library error (each crate's one error enum, kept whole so
/// `?` needs no conversion) or a message about the command line.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// The exit code of `run`'s result: 0 when done, 2 with `target not reached: …` on stderr when a target
/// was missed, 1 with `error: …` on stderr for an error.
pub fn finish<T: Into<Outcome>>(result: Result<T, Error>) -> ExitCode {
    match result.map(Into::into) {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::Missed(why)) => {
            eprintln!("target not reached: {why}");
            ExitCode::from(2)
        }
        // 128 + SIGINT, as a shell reports a process that Ctrl-C ended.
        Ok(Outcome::Interrupted(what)) => {
            eprintln!("interrupted: {what}");
            ExitCode::from(130)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The flag Ctrl-C sets: the first press asks the run to stop where it can keep its results (an
/// assignment at the end of its iteration, [`urbanflow::tap::AssignOptions::cancel`]); a second press
/// ends the process at once with 130.
pub fn interrupt_flag() -> &'static std::sync::atomic::AtomicBool {
    use std::sync::atomic::{AtomicBool, Ordering};
    static FLAG: AtomicBool = AtomicBool::new(false);
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let installed = ctrlc::set_handler(|| {
            if FLAG.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            eprintln!("\ninterrupted: stopping at the end of this iteration (Ctrl-C again to quit now)");
        });
        // Without a handler (another one installed by an embedding program) Ctrl-C ends the process
        // as it would anyway.
        if let Err(e) = installed {
            eprintln!("note: Ctrl-C will end the run without its results ({e})");
        }
    });
    &FLAG
}
