//! What a bounding run returns, and how it reports progress.

use std::time::Instant;

use crate::primal::Primal;

/// One point of a run's history: the best certified bound after `iteration` iterations (STD) or
/// external iterations (DIST), `seconds` after the start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HistoryPoint {
    /// Iterations done.
    pub iteration: u32,
    /// Best certified upper bound so far.
    pub bound: f64,
    /// Seconds since the run started (bound evaluations included).
    pub seconds: f64,
}

/// The outcome of [`crate::subgradient_std`] or [`crate::subgradient_dist`].
#[derive(Debug, Clone)]
pub struct BoundResult {
    /// The certified upper bound: `z_LR(λ)` evaluated over all edges in `f64` at [`BoundResult::lambda`].
    pub bound: f64,
    /// The multipliers of the bound, one per node (warm-start the next run with them).
    pub lambda: Vec<f64>,
    /// Iterations run (external iterations for DIST).
    pub iterations: u32,
    /// The bound over time.
    pub history: Vec<HistoryPoint>,
    /// DIST only: the seed's "bound", `Σ_h best_h` of the last external iteration — not an upper bound
    /// in general (spec overlay.md §4), reported for comparison only.
    pub local_sum: Option<f64>,
    /// A feasible overlay found from the final multipliers (greedy), when asked for.
    pub primal: Option<Primal>,
    /// Where it ran (`serial`, `rayon (16 threads)`, `gpu (NVIDIA H100 …)`).
    pub engine: String,
}

impl BoundResult {
    /// `(bound − primal) / bound` when a primal solution is known.
    pub fn gap(&self) -> Option<f64> {
        self.primal.as_ref().map(|p| if self.bound > 0.0 { (self.bound - p.value) / self.bound } else { 0.0 })
    }

    /// Seconds until the certified bound first fell to `level` or below (from the history).
    pub fn seconds_to(&self, level: f64) -> Option<f64> {
        self.history.iter().find(|h| h.bound <= level).map(|h| h.seconds)
    }
}

/// Whether a run goes on after a progress report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// Go on.
    Continue,
    /// Stop now and return the best bound so far.
    Stop,
}

/// Progress reports of a run: called at each history point.
pub trait Observer {
    /// A new history point (of `total` planned iterations).
    fn report(&mut self, point: &HistoryPoint, total: u32) -> Control;
}

/// Reports nothing.
pub struct Silent;

impl Observer for Silent {
    fn report(&mut self, _: &HistoryPoint, _: u32) -> Control {
        Control::Continue
    }
}

impl<F: FnMut(&HistoryPoint, u32) -> Control> Observer for F {
    fn report(&mut self, point: &HistoryPoint, total: u32) -> Control {
        self(point, total)
    }
}

/// Records the best certified bound over time.
pub(crate) struct Recorder {
    start: Instant,
    pub(crate) best: f64,
    pub(crate) best_lambda: Vec<f64>,
    pub(crate) history: Vec<HistoryPoint>,
    stop_below: Option<f64>,
}

impl Recorder {
    pub(crate) fn new(stop_below: Option<f64>) -> Self {
        Self {
            start: Instant::now(),
            best: f64::INFINITY,
            best_lambda: Vec::new(),
            history: Vec::new(),
            stop_below,
        }
    }

    /// Takes a certified value; true when it is the best so far.
    pub(crate) fn offer(&mut self, bound: f64, lambda: &[f64]) -> bool {
        if bound < self.best {
            self.best = bound;
            self.best_lambda.clear();
            self.best_lambda.extend_from_slice(lambda);
            true
        } else {
            false
        }
    }

    /// Adds a history point and asks the observer (and the stop level) whether to go on.
    pub(crate) fn point(&mut self, iteration: u32, total: u32, observer: &mut dyn Observer) -> Control {
        let p = HistoryPoint { iteration, bound: self.best, seconds: self.start.elapsed().as_secs_f64() };
        self.history.push(p);
        let asked = observer.report(&p, total);
        if asked == Control::Stop || self.stop_below.is_some_and(|s| self.best <= s) {
            Control::Stop
        } else {
            Control::Continue
        }
    }
}
