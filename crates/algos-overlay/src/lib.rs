//! # algos-overlay
//!
//! Certified upper bounds for the **membership overlay problem** (SMOP; seed 001 ch. 7, spec
//! `overlay.md`): peers with on-line probabilities `p_i` and bandwidth capacities `b_i` choose
//! connection bandwidths `x_ij ∈ {0} ∪ [l_ij, u_ij]` to maximise the expected throughput
//! `Σ p_i p_j x_ij` under `Σ_j x_ij ≤ b_i`.
//!
//! - [`MopInstance`]: complete or sparse candidate graphs, in the user's node ids; the seeded
//!   [`generator`] of the benchmark families; a text format ([`io`]).
//! - [`z_lr`]: the Lagrangean relaxation in closed form (O(|E|)); its minimum over λ ≥ 0 is the LP
//!   bound exactly, computed for small instances by [`lp_bound_exact`] (the oracle).
//! - [`subgradient_std`] (centralised) and [`subgradient_dist`] (distributed: serial, rayon or GPU
//!   engines behind [`DistEngine`]), both warm-startable, both reporting a **certified** bound —
//!   `z_LR(λ)` recomputed over all edges in `f64`, never a sum of per-node estimates.
//! - [`greedy_primal`]: a feasible overlay, so every run also reports a gap.
//!
//! ```
//! use urbanflow::overlay::{DistParams, generator::{Family, generate}, lp_bound_exact, subgradient_dist};
//! use urbanflow::gpu::Backend;
//! let inst = generate(50, Family::A, 14.0, 1);
//! let r = subgradient_dist(&inst, &DistParams::default(), None, Backend::Cpu)?;
//! let lp = lp_bound_exact(&inst)?;
//! println!("bound {:.3}, LP {lp:.3}, feasible {:.3}", r.bound, r.primal.as_ref().unwrap().value);
//! assert!(r.bound >= lp * (1.0 - 1e-9) && lp >= r.primal.as_ref().unwrap().value);
//! # Ok::<(), urbanflow::overlay::OverlayError>(())
//! ```

pub mod centralised;
pub mod dist;
pub mod error;
pub mod generator;
pub mod instance;
pub mod io;
pub mod lp;
pub mod primal;
pub mod relaxation;
pub mod result;

pub use centralised::{StdParams, Target, subgradient_std, subgradient_std_observed};
pub use dist::{
    CpuEngine, DistEngine, DistParams, GpuDistOptions, GpuEngine, OverlayDistMirror, subgradient_dist,
    subgradient_dist_with,
};
pub use error::OverlayError;
pub use instance::{Edge, MopInstance};
pub use lp::lp_bound_exact;
pub use primal::{Primal, check_primal, greedy_primal};
pub use relaxation::{z_lr, z_lr_value};
pub use result::{BoundResult, Control, HistoryPoint, Observer, Silent};
