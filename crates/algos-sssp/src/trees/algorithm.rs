//! [`Algorithm`]: the names of the single-source algorithms, shared by the API, the automatic choice
//! and the GPU kernels.

use std::fmt;
use std::str::FromStr;

/// The shortest-path algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Algorithm {
    /// Chosen per call ([`crate::auto::single_source_choice`]): Dijkstra on the CPU unless the GPU is
    /// measured faster on this adapter for a graph this large, counting what the call pays (device,
    /// compilation, upload). [`crate::ShortestPaths::algorithm`] says what ran.
    #[default]
    Auto,
    /// Dijkstra, binary heap (CPU).
    Dijkstra,
    /// Δ-stepping on rayon (CPU); `None` picks [`crate::cpu::delta::default_delta`].
    DeltaStepping(Option<u32>),
    /// Bellman–Ford–Moore (CPU reference).
    BellmanFord,
    /// Harish & Narayanan's vertex-parallel relaxation with the write-after-write race fixed (GPU).
    Harish,
    /// Martín et al.: settle every vertex at the minimum tentative distance each phase (GPU).
    Martin,
    /// Crauser et al. OUT criterion (GPU).
    CrauserOut,
    /// Crauser et al. OUT and IN criteria (GPU).
    CrauserInOut,
    /// Near–far frontier queues with the loop on the GPU; `None` picks Δ from the weights.
    NearFar(Option<u32>),
    /// Locality-based relaxation (seed 002) following improvements up to `k` hops, 1..=8 (GPU).
    Lbr(u32),
    /// Jradi's Dijkstra (seed 000 ch. 7) in one workgroup (GPU; a cross-check, slow on one source).
    Jradi,
}

impl Algorithm {
    /// The name used on command lines.
    pub fn name(&self) -> &'static str {
        match self {
            Algorithm::Auto => "auto",
            Algorithm::Dijkstra => "dijkstra",
            Algorithm::DeltaStepping(_) => "delta",
            Algorithm::BellmanFord => "bellman-ford",
            Algorithm::Harish => "harish",
            Algorithm::Martin => "martin",
            Algorithm::CrauserOut => "crauser",
            Algorithm::CrauserInOut => "crauser-in",
            Algorithm::NearFar(_) => "near-far",
            Algorithm::Lbr(_) => "lbr",
            Algorithm::Jradi => "jradi",
        }
    }

    /// True for the algorithms that run on a GPU.
    pub fn is_gpu(&self) -> bool {
        matches!(
            self,
            Algorithm::Harish
                | Algorithm::Martin
                | Algorithm::CrauserOut
                | Algorithm::CrauserInOut
                | Algorithm::NearFar(_)
                | Algorithm::Lbr(_)
                | Algorithm::Jradi
        )
    }

    /// Every named algorithm (for tests and benchmarks).
    pub const ALL: [Algorithm; 10] = [
        Algorithm::Dijkstra,
        Algorithm::DeltaStepping(None),
        Algorithm::BellmanFord,
        Algorithm::Harish,
        Algorithm::Martin,
        Algorithm::CrauserOut,
        Algorithm::CrauserInOut,
        Algorithm::NearFar(None),
        Algorithm::Lbr(4),
        Algorithm::Jradi,
    ];
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Algorithm {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let all = [Algorithm::Auto].into_iter().chain(Algorithm::ALL);
        all.clone().find(|a| a.name() == s).ok_or_else(|| {
            format!(
                "unknown algorithm `{s}`: expected one of {}",
                all.map(|a| a.name()).collect::<Vec<_>>().join(", ")
            )
        })
    }
}
