//! Arithmetic on per-link vectors (flows, costs, directions).

/// The dot product of two link vectors (`Σ a[i]·b[i]` over the shorter length): total travel time
/// `cost · flow`, directional derivatives.
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
