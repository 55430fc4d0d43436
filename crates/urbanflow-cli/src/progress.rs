//! Progress of a long run on stderr.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Progress of a long run on stderr: a bar on a terminal; elsewhere (a pipe, a CI log, a batch job) a
/// plain line at most every few seconds, so that a log shows the run is alive.
pub struct Progress {
    bar: Option<indicatif::ProgressBar>,
    what: String,
    start: Instant,
    last_line: Option<Instant>,
    every: Duration,
}

impl Progress {
    /// Progress towards `total` steps of `what` (hidden entirely when `quiet`).
    pub fn new(what: &str, total: u64, quiet: bool) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let bar = (terminal && !quiet).then(|| {
            let bar = indicatif::ProgressBar::new(total.max(1));
            bar.set_style(
                indicatif::ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {msg}")
                    .expect("valid template"),
            );
            bar
        });
        // URBANFLOW_PROGRESS_SECONDS sets the interval of the plain lines (default 3 s; 0: every step).
        let interval = std::env::var("URBANFLOW_PROGRESS_SECONDS").ok().and_then(|s| s.parse::<f64>().ok());
        let every = match (quiet, terminal) {
            (true, _) | (false, true) => Duration::MAX,
            _ => Duration::from_secs_f64(interval.unwrap_or(3.0).clamp(0.0, 86_400.0)),
        };
        Self { bar, what: what.to_string(), start: Instant::now(), last_line: None, every }
    }

    /// `done` steps of the total, with a message.
    pub fn update(&mut self, done: u64, message: impl FnOnce() -> String) {
        if let Some(bar) = &self.bar {
            bar.set_position(done);
            bar.set_message(message());
            return;
        }
        let due = self.last_line.map_or(self.start.elapsed(), |t| t.elapsed());
        if self.every != Duration::MAX && due >= self.every {
            self.last_line = Some(Instant::now());
            eprintln!("[{:7.1} s] {}: {}", self.start.elapsed().as_secs_f64(), self.what, message());
        }
    }

    /// `done` of `total` steps (a total known only once the work starts), with a message.
    #[cfg(feature = "transit")] // only transit-assign learns its total late
    pub fn update_total(&mut self, done: u64, total: u64, message: impl FnOnce() -> String) {
        if let Some(bar) = &self.bar {
            bar.set_length(total.max(1));
        }
        self.update(done, message);
    }

    /// Prints a line of the command's table on stdout at once (above the bar on a terminal), so that
    /// `urbanflow assign | tee log` shows each row as it ends.
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| println!("{line}")),
            None => println!("{line}"),
        }
    }

    /// Removes the bar.
    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Which rows of a convergence table are printed as the run goes: every row of the first twenty, then
/// the round iterations (30, 40, …, 100, 200, …, 1000, 2000, …) and any row a second or more after the
/// last one printed, and the last row once the run ends (so that a 5,000-iteration run prints a
/// readable table, and a slow one shows every row).
pub struct RowThinning {
    printed_last: Option<u32>,
    last_time: Option<Instant>,
}

impl RowThinning {
    /// Rows printed in full before thinning starts.
    const EVERY_ROW_UNTIL: u32 = 20;

    /// Nothing printed yet.
    pub fn new() -> Self {
        Self { printed_last: None, last_time: None }
    }

    /// Whether the row of `iteration` (1-based), which just ended, is printed now.
    pub fn due(&mut self, iteration: u32) -> bool {
        let round = 10u32.pow(iteration.max(1).ilog10());
        let due = iteration <= Self::EVERY_ROW_UNTIL
            || iteration.is_multiple_of(round)
            || self.last_time.is_none_or(|t| t.elapsed() >= Duration::from_secs(1));
        if due {
            self.printed_last = Some(iteration);
            self.last_time = Some(Instant::now());
        }
        due
    }

    /// Whether the last row (`iteration`) still needs printing at the end of the run.
    pub fn last_missing(&self, iteration: u32) -> bool {
        self.printed_last != Some(iteration)
    }
}
