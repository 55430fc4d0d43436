//! Automatic choices as predictions: each candidate backend's predicted seconds for the work at hand,
//! from this machine's measured constants ([`crate::profile`]) and the algorithm family's cost model
//! (in the family's crate), and the faster one taken.
//!
//! A prediction is a model, and models err: where the GPU is predicted faster by less than
//! [`CLOSE_MARGIN`], [`Verdict::Close`] says so, and a family that can time its first iteration on
//! both backends (a race) settles it there; one that cannot keeps to the CPU, the choice that is never
//! slower than the CPU. Every verdict carries a sentence with both predictions and their terms, which
//! the commands print as `why`.
//!
//! ```
//! use urbanflow::gpu::predict::{Estimate, Verdict, choose};
//! let cpu = Estimate::new(1.40, "2.1e9 candidates at 1.5 G/s on 16 threads");
//! let gpu = Estimate::new(0.52, "0.25 s start + 2.1e9 candidates at 7.8 G/s");
//! let choice = choose(cpu.clone(), Ok(gpu));
//! assert_eq!(choice.verdict, Verdict::Gpu);
//! assert!(choice.why.contains("0.52 s") && choice.why.contains("1.40 s"), "{}", choice.why);
//! let no_gpu = choose(cpu, Err("no GPU adapter found".into()));
//! assert_eq!(no_gpu.verdict, Verdict::Cpu);
//! ```

use std::fmt;

/// How much faster the GPU must be predicted (a factor) to be taken without a race: the largest
/// error of the cost models on the measured workloads (docs/benchmarks.md, "Auto: predicted and
/// measured").
pub const CLOSE_MARGIN: f64 = 1.5;

/// Less than any GPU's start in a process (listing adapters, creating a device, compiling one
/// pipeline: 0.25–0.7 s measured on every machine so far, 0.07 s on lavapipe which Auto never takes). Work the CPU is predicted to finish in less
/// stays there without even listing the adapters.
pub const NO_GPU_STARTS_FASTER_S: f64 = 0.1;

/// One candidate's predicted seconds and what they are made of.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// Predicted wall seconds of the whole call on this backend, start-up included.
    pub seconds: f64,
    /// The terms, in words and numbers (`0.25 s start + 40 × 3.1 ms`).
    pub terms: String,
}

impl Estimate {
    /// An estimate of `seconds`, made of `terms`.
    pub fn new(seconds: f64, terms: impl Into<String>) -> Self {
        Self { seconds, terms: terms.into() }
    }
}

impl fmt::Display for Estimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", seconds(self.seconds), self.terms)
    }
}

/// Seconds written with enough digits for both a millisecond and a minute.
pub fn seconds(s: f64) -> String {
    if s < 0.01 { format!("{:.2} ms", s * 1e3) } else { format!("{s:.2} s") }
}

/// What the predictions say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The CPU is predicted faster, or no GPU can be predicted.
    Cpu,
    /// The GPU is predicted faster by more than [`CLOSE_MARGIN`].
    Gpu,
    /// The GPU is predicted faster, but by less than [`CLOSE_MARGIN`]: a race should settle it.
    Close,
}

/// An automatic choice between the CPU and a GPU, with both predictions.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// What the predictions say.
    pub verdict: Verdict,
    /// The CPU's prediction.
    pub cpu: Estimate,
    /// The GPU's prediction, or why there is none.
    pub gpu: Result<Estimate, String>,
    /// One sentence with both.
    pub why: String,
}

impl Choice {
    /// True when the GPU is taken without a race (a clear prediction).
    pub fn gpu_clearly(&self) -> bool {
        self.verdict == Verdict::Gpu
    }

    /// True when the GPU is predicted faster at all: the choice of a family that cannot race (its
    /// first iteration is most of its work).
    pub fn gpu_faster(&self) -> bool {
        self.verdict != Verdict::Cpu
    }
}

/// The verdict on `cpu` and `gpu` (see the [module documentation](self)).
pub fn choose(cpu: Estimate, gpu: Result<Estimate, String>) -> Choice {
    let (verdict, why) = match &gpu {
        Err(reason) => (Verdict::Cpu, format!("CPU predicted {cpu}; no GPU prediction: {reason}")),
        Ok(g) if g.seconds * CLOSE_MARGIN < cpu.seconds => {
            (Verdict::Gpu, format!("GPU predicted {g}, the CPU {cpu}"))
        }
        Ok(g) if g.seconds < cpu.seconds => (
            Verdict::Close,
            format!("GPU predicted {g}, the CPU {cpu}: within the models' {CLOSE_MARGIN}× margin"),
        ),
        Ok(g) => (Verdict::Cpu, format!("CPU predicted {cpu}, the GPU {g}")),
    };
    Choice { verdict, cpu, gpu, why }
}

/// Auto's choice between the CPU, predicted at `cpu`, and the GPU [`crate::Backend::Auto`] would use,
/// predicted by `gpu_model` from its profile and whether its device exists
/// ([`crate::calibrate::auto_device`]: stored, or measured now). Work the CPU finishes in less than
/// [`NO_GPU_STARTS_FASTER_S`] stays there without listing the adapters; a build without the `gpu`
/// feature has no GPU to predict.
pub fn auto_choice(
    cpu: Estimate,
    gpu_model: impl Fn(&crate::profile::DeviceProfile, bool) -> Estimate,
) -> Choice {
    if cpu.seconds < NO_GPU_STARTS_FASTER_S {
        return choose(cpu, Err(format!("no GPU starts in less than {}", seconds(NO_GPU_STARTS_FASTER_S))));
    }
    #[cfg(feature = "gpu")]
    let gpu = {
        // Before listing the adapters (0.1 s on the H200 host), the profile of the GPU Auto used last
        // here: if even that GPU, listing included, is slower, the CPU it is, without looking.
        if !crate::context::adapters_listed()
            && let Some(last) = crate::calibrate::last_auto_profile()
        {
            let g = gpu_model(&last, false);
            let g = Estimate::new(g.seconds + last.list_s, format!("{}, adapters not yet listed", g.terms));
            if g.seconds >= cpu.seconds {
                return choose(cpu, Ok(g));
            }
        }
        crate::calibrate::auto_device().map(|d| gpu_model(&d.profile, d.warm))
    };
    #[cfg(not(feature = "gpu"))]
    let gpu = {
        let _ = gpu_model;
        Err("built without the `gpu` feature".to_string())
    };
    choose(cpu, gpu)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_follow_the_margin() {
        let e = |s: f64| Estimate::new(s, "t");
        assert_eq!(choose(e(1.0), Ok(e(0.5))).verdict, Verdict::Gpu);
        assert_eq!(choose(e(1.0), Ok(e(0.8))).verdict, Verdict::Close);
        assert_eq!(choose(e(1.0), Ok(e(1.2))).verdict, Verdict::Cpu);
        let c = choose(e(1.0), Err("none".into()));
        assert_eq!(c.verdict, Verdict::Cpu);
        assert!(c.why.contains("none"));
        assert_eq!(seconds(0.0042), "4.20 ms");
    }
}
