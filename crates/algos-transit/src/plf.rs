//! Periodic piecewise-linear travel-time functions (spec td-multimodal.md §1.1).
//!
//! Every function has breakpoints `(τ_k, v_k)` with strictly increasing times of day in `[0, Π)`,
//! Π = [`PERIOD`] = 86,400 s, and is read at `τ mod Π` of an absolute `u32` time:
//! - [`FnKind::Interpolated`] (roads): linear between breakpoints, the last segment wrapping to the
//!   first breakpoint of the next day; values between breakpoints are rounded **up** to whole seconds
//!   with exact integer arithmetic, so every backend computes the same numbers.
//! - [`FnKind::NextDeparture`] (timetables): `τ_k` are departures and `v_k` ride times; a traveller
//!   at time τ waits for the first departure `τ_k ≥ τ` (after the last one of the day, the first one of
//!   the next day) and arrives at `τ_k + v_k`. This is the seed's rule with γ = −1; the seed's other
//!   slopes γ ∈ (−1, 0] would let a traveller arrive before the vehicle that carries them, so they are
//!   not offered.
//!
//! FIFO (leaving later never arrives earlier) is what makes label-setting search exact; [`PlfStore::validate`]
//! checks it (slope ≥ −1 on every segment, including the wrap segment; non-decreasing departure +
//! ride for timetables).

use super::error::TdError;

/// The period of every function: one day, in seconds.
pub const PERIOD: u32 = 86_400;

/// How a function is read between breakpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum FnKind {
    /// Linear interpolation (rounded up), periodic.
    Interpolated = 0,
    /// Wait for the next departure, then ride.
    NextDeparture = 1,
}

/// All functions of a network in compressed form: function `f` has the breakpoints
/// `offsets[f]..offsets[f + 1]` of `times` (seconds after midnight) and `values` (seconds).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlfStore {
    /// Start of each function's breakpoints, plus the total at the end.
    pub offsets: Vec<u32>,
    /// Breakpoint times of day.
    pub times: Vec<u32>,
    /// Breakpoint values (travel or ride times).
    pub values: Vec<u32>,
    /// How each function is read.
    pub kind: Vec<FnKind>,
}

impl PlfStore {
    /// An empty store.
    pub fn new() -> Self {
        Self { offsets: vec![0], ..Default::default() }
    }

    /// Number of functions.
    pub fn len(&self) -> usize {
        self.kind.len()
    }

    /// Whether there are no functions.
    pub fn is_empty(&self) -> bool {
        self.kind.is_empty()
    }

    /// Adds a function from `(time of day, value)` breakpoints and returns its id. Validate the whole
    /// store with [`Self::validate`] (done by [`super::TdGraphBuilder::build`]).
    pub fn push(&mut self, kind: FnKind, breakpoints: impl IntoIterator<Item = (u32, u32)>) -> u32 {
        for (t, v) in breakpoints {
            self.times.push(t);
            self.values.push(v);
        }
        self.offsets.push(self.times.len() as u32);
        self.kind.push(kind);
        (self.kind.len() - 1) as u32
    }

    /// Adds a constant function.
    pub fn constant(&mut self, seconds: u32) -> u32 {
        self.push(FnKind::Interpolated, [(0, seconds)])
    }

    /// The breakpoints of function `f`.
    pub fn breakpoints(&self, f: u32) -> (&[u32], &[u32]) {
        let r = self.offsets[f as usize] as usize..self.offsets[f as usize + 1] as usize;
        (&self.times[r.clone()], &self.values[r])
    }

    /// The smallest value of `f` over a day: a lower bound of its travel time.
    pub fn min_value(&self, f: u32) -> u32 {
        self.breakpoints(f).1.iter().copied().min().unwrap_or(0)
    }

    /// Checks every function: breakpoints present and sorted inside the period, FIFO, and segments
    /// the GPU evaluates exactly in 32 bits. `first_arc[f]` (the first arc using `f`, or `u32::MAX`)
    /// names arcs in the errors.
    pub fn validate(&self, first_arc: &[u32]) -> Result<(), TdError> {
        for f in 0..self.len() as u32 {
            let arc = first_arc.get(f as usize).copied().unwrap_or(u32::MAX);
            let (ts, vs) = self.breakpoints(f);
            if ts.is_empty() {
                return Err(TdError::EmptyFunction { arc, func: f });
            }
            for (i, &t) in ts.iter().enumerate() {
                let why = if t >= PERIOD {
                    Some("not below the period of 86,400 s")
                } else if i > 0 && t <= ts[i - 1] {
                    Some("not after the previous breakpoint")
                } else {
                    None
                };
                if let Some(why) = why {
                    return Err(TdError::UnsortedBreakpoints { func: f, index: i as u32, time: t, why });
                }
            }
            let k = ts.len();
            for i in 0..k {
                // Segment i: breakpoint i to breakpoint i + 1 (the last wraps to the first + Π).
                let (t0, v0) = (ts[i] as i64, vs[i] as i64);
                let (t1, v1) = if i + 1 < k {
                    (ts[i + 1] as i64, vs[i + 1] as i64)
                } else {
                    (ts[0] as i64 + PERIOD as i64, vs[0] as i64)
                };
                let span = t1 - t0;
                let fifo = match self.kind[f as usize] {
                    // Arrival t + v(t) must not decrease along the segment: v1 − v0 ≥ −span.
                    FnKind::Interpolated => v1 - v0 >= -span,
                    // Departure + ride must not decrease from one departure to the next.
                    FnKind::NextDeparture => t1 + v1 >= t0 + v0,
                };
                if !fifo && k > 1 {
                    let detail = match self.kind[f as usize] {
                        FnKind::Interpolated => format!(
                            "value {v0} s at {t0} s falls to {v1} s at {t1} s: slope {:.3} < −1",
                            (v1 - v0) as f64 / span as f64
                        ),
                        FnKind::NextDeparture => format!(
                            "the departure at {t0} s arrives at {} s, the later one at {t1} s already at {} s",
                            t0 + v0,
                            t1 + v1
                        ),
                    };
                    return Err(TdError::NonFifo { arc, func: f, segment: i as u32, detail });
                }
                let change = (v1 - v0).unsigned_abs();
                if self.kind[f as usize] == FnKind::Interpolated
                    && span > 65_536
                    && change as u128 * span as u128 >= 1 << 32
                {
                    return Err(TdError::SegmentTooLong {
                        func: f,
                        segment: i as u32,
                        span: span as u32,
                        change: change as u32,
                    });
                }
            }
        }
        Ok(())
    }

    /// Travel time of function `f` for a departure at absolute time `t` (seconds), exact.
    ///
    /// ```
    /// use urbanflow::transit::{FnKind, PlfStore, PERIOD};
    /// let mut s = PlfStore::new();
    /// // Departures at 08:00 and 08:10, each riding 5 minutes.
    /// let bus = s.push(FnKind::NextDeparture, [(8 * 3600, 300), (8 * 3600 + 600, 300)]);
    /// assert_eq!(s.eval(bus, 8 * 3600 + 60), 540 + 300); // wait 9 min, ride 5
    /// // After the last departure of the day: the first one tomorrow.
    /// assert_eq!(s.eval(bus, 9 * 3600), PERIOD - 3600 + 300);
    /// // A road whose travel time grows from 60 s at 07:00 to 120 s at 08:00.
    /// let road = s.push(FnKind::Interpolated, [(7 * 3600, 60), (8 * 3600, 120)]);
    /// assert_eq!(s.eval(road, 7 * 3600 + 1), 61); // 60.0166… rounded up
    /// ```
    #[inline]
    pub fn eval(&self, f: u32, t: u32) -> u32 {
        let lo = self.offsets[f as usize] as usize;
        let hi = self.offsets[f as usize + 1] as usize;
        let ts = &self.times[lo..hi];
        let vs = &self.values[lo..hi];
        let tau = t % PERIOD;
        // Number of breakpoints at or before τ (the GPU runs the same binary search).
        let after = ts.partition_point(|&x| x <= tau);
        match self.kind[f as usize] {
            FnKind::NextDeparture => {
                // First departure at or after τ.
                let k = if after > 0 && ts[after - 1] == tau { after - 1 } else { after };
                if k < ts.len() { ts[k] - tau + vs[k] } else { ts[0] + PERIOD - tau + vs[0] }
            }
            FnKind::Interpolated => {
                let n = ts.len();
                if n == 1 {
                    return vs[0];
                }
                // Segment (t0, v0) → (t1, v1) holding τ, in unwrapped time.
                let (t0, v0, t1, v1, off) = if after == 0 {
                    (ts[n - 1], vs[n - 1], ts[0] + PERIOD, vs[0], tau + PERIOD - ts[n - 1])
                } else if after == n {
                    (ts[n - 1], vs[n - 1], ts[0] + PERIOD, vs[0], tau - ts[n - 1])
                } else {
                    (ts[after - 1], vs[after - 1], ts[after], vs[after], tau - ts[after - 1])
                };
                interpolate_up(v0, v1, off, t1 - t0)
            }
        }
    }
}

/// `v0 + ⌈(v1 − v0) · off / span⌉` for `0 ≤ off < span`, in the 32-bit steps the GPU uses (exact for
/// the segments [`PlfStore::validate`] accepts).
#[inline]
pub fn interpolate_up(v0: u32, v1: u32, off: u32, span: u32) -> u32 {
    if v1 >= v0 { v0 + mul_div(v1 - v0, off, span, true) } else { v0 - mul_div(v0 - v1, off, span, false) }
}

/// `d · off / span` rounded up (`up`) or down, with `off < span`, as `q · off + r · off / span` where
/// `d = q · span + r`: `r · off < span²` fits 32 bits for spans ≤ 65,536 s, and `r · off ≤ d · span`
/// otherwise.
#[inline]
fn mul_div(d: u32, off: u32, span: u32, up: bool) -> u32 {
    let q = d / span;
    let r = d % span;
    let p = r.wrapping_mul(off);
    let mut x = q * off + p / span;
    if up && !p.is_multiple_of(span) {
        x += 1;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolation_matches_exact_rationals() {
        for (v0, v1, span) in [(60u32, 120u32, 3600u32), (500, 100, 7200), (7, 7, 10), (0, 65_535, 65_536)] {
            for off in (0..span).step_by((span / 97).max(1) as usize) {
                let exact = v0 as f64 + (v1 as f64 - v0 as f64) * off as f64 / span as f64;
                let num = (v1 as i128 - v0 as i128) * off as i128;
                let want =
                    v0 as i128 + num.div_euclid(span as i128) + (num.rem_euclid(span as i128) != 0) as i128;
                assert_eq!(
                    interpolate_up(v0, v1, off, span) as i128,
                    want,
                    "{v0} {v1} {off} {span} ≈ {exact}"
                );
            }
        }
    }
}
