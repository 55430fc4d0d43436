//! What every engine adds up, and how: one [`Cell`] per (source, cutoff) — points counted, decayed
//! weight in 64-bit fixed point, least and greatest weight as ranks — filled by [`Reduction::add`] for
//! each point vertex a source reaches. The CPU engines call it as they settle or sweep; the GPU kernel
//! (`shaders/access_reduce.wgsl`) does the same per (point, source) with f32 decay factors.

use crate::decay::Decay;
use crate::opportunities::Opportunities;

/// Most cutoffs one run takes (the GPU kernel keeps a cell per cutoff in registers).
pub const MAX_CUTOFFS: usize = 8;

/// The totals of one source within one cutoff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cell {
    /// Points within the cutoff.
    pub count: u32,
    /// Decayed weight, in units of 2^−scale_exp.
    pub sum: u64,
    /// Least point weight's rank (`u32::MAX`: none).
    pub min_rank: u32,
    /// Greatest point weight's rank (0 when `count` is 0).
    pub max_rank: u32,
}

impl Cell {
    pub const EMPTY: Cell = Cell { count: 0, sum: 0, min_rank: u32::MAX, max_rank: 0 };
}

/// The cutoffs, the decay and the points' factors of one run.
#[derive(Debug, Clone)]
pub(crate) struct Reduction<'a> {
    pub opportunities: &'a Opportunities,
    /// Ascending.
    pub cutoffs: Vec<u32>,
    pub decay: Decay,
    /// 2^scale_exp.
    unit: f64,
}

impl<'a> Reduction<'a> {
    pub fn new(opportunities: &'a Opportunities, cutoffs: &[u32], decay: Decay) -> Self {
        let unit = 2f64.powi(opportunities.scale_exp);
        Self { opportunities, cutoffs: cutoffs.to_vec(), decay, unit }
    }

    /// The largest cutoff: searches stop past it.
    pub fn reach(&self) -> u32 {
        *self.cutoffs.last().expect("at least one cutoff")
    }

    /// Adds the points of `slot` (an index into the opportunities' vertices), at distance `d` (at most
    /// the largest cutoff), to `cells` (one per cutoff). Where the contribution does not depend on the
    /// cutoff (every decay but linear) it goes to the cell of the smallest cutoff that reaches it only,
    /// and [`Self::finish`] carries each cell into the next; else to every cutoff that reaches it. The
    /// integer sums are the same either way.
    #[inline]
    pub fn add(&self, cells: &mut [Cell], slot: usize, d: u32) {
        let o = self.opportunities;
        if self.decay == Decay::Linear {
            for (c, &cut) in self.cutoffs.iter().enumerate().rev() {
                if d > cut {
                    break;
                }
                let q = (o.weight[slot] * self.decay.factor(d, cut) * self.unit).round() as u64;
                cells[c].take(o.count[slot], q, o.min_rank[slot], o.max_rank[slot]);
            }
            return;
        }
        let c = self.cutoffs.iter().position(|&cut| d <= cut).expect("d within the largest cutoff");
        let q = match self.decay {
            Decay::Flat => o.weight_q[slot],
            decay => (o.weight[slot] * decay.factor(d, self.cutoffs[c]) * self.unit).round() as u64,
        };
        cells[c].take(o.count[slot], q, o.min_rank[slot], o.max_rank[slot]);
    }

    /// Completes one source's `cells` after its last [`Self::add`].
    #[inline]
    pub fn finish(&self, cells: &mut [Cell]) {
        if self.decay != Decay::Linear {
            for c in 1..cells.len() {
                let below = cells[c - 1];
                cells[c].take(below.count, below.sum, below.min_rank, below.max_rank);
            }
        }
    }
}

impl Cell {
    #[inline]
    fn take(&mut self, count: u32, sum: u64, min_rank: u32, max_rank: u32) {
        self.count += count;
        self.sum += sum;
        self.min_rank = self.min_rank.min(min_rank);
        self.max_rank = self.max_rank.max(max_rank);
    }
}
