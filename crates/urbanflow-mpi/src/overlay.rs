//! The overlay bound's distributed subgradient (DIST, [`algos_overlay::dist`]) over ranks: each rank
//! runs the node loop for a contiguous share of the nodes, and after every external iteration the
//! new multipliers are exchanged (an all-gather), which is the method's own broadcast round. Every node
//! reads only the previous round's multipliers and its own step state, so the bound, the multipliers
//! and the history equal the single-process CPU engine's bit for bit.
//!
//! ```
//! use urbanflow::overlay::dist::{CpuEngine, subgradient_dist_with};
//! use urbanflow::overlay::generator::{Family, generate};
//! use urbanflow::overlay::result::Silent;
//! use urbanflow::overlay::DistParams;
//! use urbanflow::cluster::{Solo, overlay::DistributedDist};
//! let inst = generate(40, Family::A, 14.0, 2);
//! let p = DistParams { ext_iters: 50, ..DistParams::default() };
//! let one = subgradient_dist_with(&inst, &p, None, &mut CpuEngine::rayon(&inst, &p), &mut Silent)?;
//! let mut engine = DistributedDist::new(&Solo, &inst, &p);
//! let many = subgradient_dist_with(&inst, &p, None, &mut engine, &mut Silent)?;
//! assert_eq!(one.bound.to_bits(), many.bound.to_bits());
//! # Ok::<(), urbanflow::overlay::OverlayError>(())
//! ```

use std::ops::Range;

use algos_overlay::dist::{CpuEngine, DistEngine};
use algos_overlay::instance::MopInstance;
use algos_overlay::{DistParams, OverlayError};

use crate::comm::Comm;

/// DIST's node loop spread over the ranks of `comm` (each rank's share on its cores, rayon).
pub struct DistributedDist<'c> {
    comm: &'c dyn Comm,
    engine: CpuEngine,
    nodes: Range<usize>,
    n: usize,
    /// Seconds spent exchanging multipliers.
    pub exchange_seconds: f64,
}

impl<'c> DistributedDist<'c> {
    /// This rank's share of `inst`'s nodes.
    pub fn new(comm: &'c dyn Comm, inst: &MopInstance, p: &DistParams) -> Self {
        let (n, r, k) = (inst.n(), comm.rank(), comm.size());
        let nodes = r * n / k..(r + 1) * n / k;
        Self { comm, engine: CpuEngine::rayon(inst, p), nodes, n, exchange_seconds: 0.0 }
    }

    /// Every rank's values of its nodes put together in node order: each rank fills its own slots and
    /// the bit patterns are summed (all other slots are zero, so the sum is exact).
    fn all_gather(&mut self, mine: &[f64]) -> Vec<f64> {
        let t = std::time::Instant::now();
        let mut bits = vec![0u64; self.n];
        for (b, v) in bits[self.nodes.clone()].iter_mut().zip(mine) {
            *b = v.to_bits();
        }
        self.comm.all_reduce_sum_u64(&mut bits);
        self.exchange_seconds += t.elapsed().as_secs_f64();
        bits.into_iter().map(f64::from_bits).collect()
    }
}

impl DistEngine for DistributedDist<'_> {
    fn name(&self) -> String {
        format!(
            "{}; rank {} of nodes {:?} on {}",
            self.comm.describe(),
            self.comm.rank(),
            self.nodes,
            self.engine.name()
        )
    }

    fn start(&mut self, lambda: &[f64]) -> Result<(), OverlayError> {
        self.engine.start(lambda)
    }

    fn rounds(&mut self, rounds: u32) -> Result<(), OverlayError> {
        for _ in 0..rounds {
            let mine = self.engine.round_share(self.nodes.clone());
            let all = self.all_gather(&mine);
            self.engine.set_lambda(&all);
        }
        Ok(())
    }

    fn lambda(&mut self) -> Result<Vec<f64>, OverlayError> {
        self.engine.lambda()
    }

    fn local_sum(&mut self) -> Result<f64, OverlayError> {
        let mine = self.engine.best_values(self.nodes.clone());
        Ok(self.all_gather(&mine).iter().sum())
    }
}
