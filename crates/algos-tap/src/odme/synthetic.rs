//! Synthetic studies: a seed made by perturbing a known matrix, so an estimate can be checked against
//! the truth.

use graph_core::rng::SplitMix64;

use crate::demand::Demand;
use crate::error::TapError;

/// `demand` with every cell multiplied by `exp(σ z)`, `z` standard normal (Box–Muller on a seeded
/// SplitMix64): the same matrix for the same seed on every machine.
///
/// ```
/// use urbanflow::tap::odme::perturbed;
/// use urbanflow::tap::{CostFactors, Demand, Link, Network};
/// let road = |from, to| Link { from, to, capacity: 1.0, length: 1.0, free_flow_time: 1.0, b: 0.0, power: 1.0, toll: 0.0 };
/// let net = Network::new(3, &[road(0, 1), road(1, 2)], 3, CostFactors::default()).unwrap();
/// let demand = Demand::from_pairs(&net, [(0, 1, 100.0), (0, 2, 50.0), (1, 2, 10.0)]).unwrap();
/// let seed = perturbed(&demand, 0.5, 7).unwrap();
/// assert_eq!(seed, perturbed(&demand, 0.5, 7).unwrap());
/// assert_ne!(seed.flows(), demand.flows());
/// assert_eq!(perturbed(&demand, 0.0, 7).unwrap(), demand);
/// ```
pub fn perturbed(demand: &Demand, sigma: f64, seed: u64) -> Result<Demand, TapError> {
    if !(sigma >= 0.0 && sigma.is_finite()) {
        return Err(TapError::InvalidOption(format!("perturbation σ = {sigma}: expected a finite σ ≥ 0")));
    }
    let mut rng = SplitMix64::new(seed);
    let flows = demand
        .flows()
        .iter()
        .map(|&f| {
            // Box–Muller: 1 − u lies in (0, 1], so its logarithm is finite.
            let (u, v) = (rng.unit_f64(), rng.unit_f64());
            let z = (-2.0 * (1.0 - u).ln()).sqrt() * (std::f64::consts::TAU * v).cos();
            f * (sigma * z).exp()
        })
        .collect();
    demand
        .with_flows(flows)
        .ok_or_else(|| TapError::InvalidOption(format!("perturbation σ = {sigma} overflowed a cell")))
}
