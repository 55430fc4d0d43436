//! A primal simplex for the restricted master `min c·x s.t. A x = 1, x ≥ 0`, warm-started from the
//! last round's basis.
//!
//! Why by hand: the master has one row per customer (≤ a few hundred) and thousands of columns, and
//! column generation only *adds* columns between rounds, so the previous optimal basis stays primal
//! feasible and the next optimum is some hundred pivots away (700 a round at X-n190-k8), each O(m²),
//! instead of a solve from scratch. An interior point (Clarabel, kept as
//! [`MasterLp::InteriorPoint`](super::MasterLp)) starts from scratch every round and was measured to
//! be the bound's bottleneck once pricing moved to the GPU (X-n190-k8: 28.6 of 37.3 s). The basis is
//! small enough to hold its inverse densely (m² doubles: 1.3 MB at 400 customers); a pivot updates it
//! in place, and it is rebuilt from the basis columns when the residuals, checked every
//! [`CHECK_EVERY`] pivots, show rounding.
//!
//! The starting basis is the single-customer routes, which the master always holds as its first m
//! columns (B = I, x = 1: feasible, so there is no phase one). Degeneracy, the rule in set
//! partitioning, is broken by a tiny perturbation of the right-hand side ([`PERTURBATION`]); ties left
//! are taken with a Harris ratio test (largest pivot among the near-ties), and after [`STALL_LIMIT`]
//! degenerate pivots in a row Bland's rule takes over until the objective moves again.

use super::DpError;
use super::columns::Columns;

/// Pivots between two checks of the inverse's accuracy.
const CHECK_EVERY: usize = 100;
/// The largest residual (primal, or dual relative to the cost) before the inverse is rebuilt.
const RESIDUAL: f64 = 1e-9;
/// Pivots after which the inverse is rebuilt whatever its residuals.
const REFACTOR_AT_MOST: usize = 2_000;
/// Columns kept from a full pricing scan and re-priced on their own until none enters (multiple
/// pricing: a full scan reads every column, the candidates a handful).
const CANDIDATES: usize = 96;
/// Degenerate pivots in a row before Bland's rule.
const STALL_LIMIT: usize = 200;
/// The objective decrease below which a pivot counts as degenerate.
const PROGRESS: f64 = 1e-9;
/// A column enters when its reduced cost is below `-OPTIMALITY · (1 + |c|)`.
const OPTIMALITY: f64 = 1e-9;
/// Entries of the entering column below this are not pivots.
const PIVOT: f64 = 1e-9;
/// Primal values may dip this far below zero (Harris' ratio test bound): well below the perturbation.
const FEASIBILITY: f64 = 1e-12;
/// The right-hand side is 1 + ε_i with ε_i in [1, 2) · this: set partitioning is so degenerate (most
/// basic routes at 0) that without it the simplex stalls for thousands of pivots at one vertex, and Bland's
/// rule, in floating point, cycled there (measured on X-n120-k6). The optimal basis of the perturbed LP is
/// dual feasible for the true one, and its duals are within ~ε · Σ|y| of optimal.
const PERTURBATION: f64 = 1e-8;

/// The basis between rounds.
#[derive(Debug, Clone, Default)]
pub(crate) struct Simplex {
    rows: usize,
    /// B⁻¹ column by column (entry (k, i) at `i · rows + k`: k the basis position, i the customer row),
    /// so that B⁻¹ a, a sparse column, reads a few contiguous columns.
    inverse: Vec<f64>,
    /// The column in each basis position.
    basis: Vec<usize>,
    /// The basic columns' values, per basis position.
    values: Vec<f64>,
    /// The perturbed right-hand side 1 + ε_i (see [`PERTURBATION`]).
    rhs: Vec<f64>,
    /// Pivots since the inverse was last rebuilt.
    updates: usize,
    /// Pivots over the solver's life (for the report).
    pub pivots: u64,
}

/// The optimum of one call.
pub(crate) struct SimplexOptimum {
    /// Σ y: the dual objective on the true right-hand side (the LP's value to ~ε · Σ|y|).
    pub value: f64,
    /// y = c_B B⁻¹, one per row.
    pub duals: Vec<f64>,
}

impl Simplex {
    /// The columns in the basis.
    pub fn basic_columns(&self) -> &[usize] {
        &self.basis
    }

    /// After the master dropped columns: `new_index[r]` is column r's new index (`None` when dropped;
    /// never for a basic column).
    pub fn renumber(&mut self, new_index: &[Option<usize>]) {
        for b in &mut self.basis {
            *b = new_index[*b].expect("the master keeps its basic columns");
        }
    }

    /// Solves `min c·x s.t. A x = 1, x ≥ 0` over `columns` with `cost`, from the last basis (or from the
    /// first `rows` columns, which must be the unit columns).
    pub fn solve(&mut self, rows: usize, columns: &Columns, cost: &[f64]) -> Result<SimplexOptimum, DpError> {
        if self.rows != rows || self.basis.len() != rows {
            self.rows = rows;
            self.basis = (0..rows).collect();
            // ε_i spread over [1, 2) · PERTURBATION by a fixed sequence (the same master, the same run).
            let mut state = 0x9E37_79B9_7F4A_7C15u64;
            self.rhs = (0..rows)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    1.0 + PERTURBATION * (1.0 + (state >> 11) as f64 / (1u64 << 53) as f64)
                })
                .collect();
            self.refactor(columns)?;
        }
        let mut is_basic = vec![false; columns.len()];
        for &b in &self.basis {
            is_basic[b] = true;
        }
        let (mut duals, mut fresh) = (self.duals(cost), true);
        let mut stalled = 0usize;
        let mut w = vec![0.0; rows];
        let mut candidates: Vec<usize> = Vec::with_capacity(CANDIDATES);
        let mut scanned: Vec<(f64, usize)> = Vec::new();
        let mut pivot_row = vec![0.0; rows];
        let limit = 50 * (rows + columns.len()) + 10_000;
        for _ in 0..limit {
            let bland = stalled >= STALL_LIMIT;
            // Entering column (multiple pricing): the most negative reduced cost among the candidates
            // of the last full scan, re-priced at the current duals; a full scan over every column when
            // none of them is negative any more. Under Bland's rule: the first negative column.
            let reduced = |r: usize, duals: &[f64]| cost[r] - columns.dot(r, duals);
            let enters = |r: usize, d: f64| d < -OPTIMALITY * (1.0 + cost[r].abs());
            let mut entering: Option<(usize, f64)> = None;
            if !bland {
                for &r in &candidates {
                    let d = reduced(r, &duals);
                    if !is_basic[r] && enters(r, d) && entering.is_none_or(|(_, best)| d < best) {
                        entering = Some((r, d));
                    }
                }
            }
            if entering.is_none() {
                // A full scan: every entering column, then the CANDIDATES most negative kept.
                scanned.clear();
                for (r, _) in is_basic.iter().enumerate().filter(|&(_, &basic)| !basic) {
                    let d = reduced(r, &duals);
                    if enters(r, d) {
                        scanned.push((d, r));
                        if bland {
                            break;
                        }
                    }
                }
                entering = scanned.iter().min_by(|a, b| a.0.total_cmp(&b.0)).map(|&(d, r)| (r, d));
                if scanned.len() > CANDIDATES {
                    scanned.select_nth_unstable_by(CANDIDATES, |a, b| a.0.total_cmp(&b.0));
                    scanned.truncate(CANDIDATES);
                }
                candidates.clear();
                candidates.extend(scanned.iter().map(|&(_, r)| r));
            }
            let Some((q, d_q)) = entering else {
                if !fresh {
                    // Optimal at duals updated pivot by pivot: confirm at duals computed afresh.
                    duals = self.duals(cost);
                    fresh = true;
                    continue;
                }
                // The dual objective on the true right-hand side: at most the LP's optimum (y is dual
                // feasible) and within ~PERTURBATION · Σ|y| of it.
                let value = duals.iter().sum();
                return Ok(SimplexOptimum { value, duals });
            };
            fresh = false;
            // w = B⁻¹ a_q.
            w.fill(0.0);
            for &i in columns.column(q) {
                let i = i as usize;
                for (wk, v) in w.iter_mut().zip(&self.inverse[i * rows..(i + 1) * rows]) {
                    *wk += v;
                }
            }
            let p = self.leaving(&w, bland).ok_or_else(|| {
                DpError::Lp(format!(
                    "the restricted master ({rows} rows) is unbounded along column {q}: numerical trouble"
                ))
            })?;
            let step = (self.values[p] / w[p]).max(0.0);
            // A pivot that moves the objective by less than PROGRESS counts as degenerate (tiny positive
            // steps must not reset the count, or Dantzig's rule and Bland's could take turns forever).
            stalled = if step * -d_q > PROGRESS { 0 } else { stalled + 1 };
            for (k, x) in self.values.iter_mut().enumerate() {
                if k != p {
                    *x = (*x - step * w[k]).max(0.0);
                }
            }
            self.values[p] = step;
            // y += d_q / w_p · (row p of the old B⁻¹) = d_q · (row p of the new): the entering column's reduced cost becomes 0.
            for (i, v) in pivot_row.iter_mut().enumerate() {
                *v = self.inverse[i * rows + p] / w[p];
            }
            for (y, v) in duals.iter_mut().zip(&pivot_row) {
                *y += d_q * v;
            }
            // B⁻¹ -= (w − e_p) ⊗ pivot row, column by column (B⁻¹ of these masters is dense: ~80 % at
            // X-n181-k23).
            let wp = w[p];
            w[p] = 0.0;
            for (column, &pv) in self.inverse.chunks_exact_mut(rows).zip(&pivot_row) {
                if pv != 0.0 {
                    for (v, wk) in column.iter_mut().zip(&w) {
                        *v -= wk * pv;
                    }
                }
                column[p] = pv;
            }
            w[p] = wp;
            is_basic[self.basis[p]] = false;
            is_basic[q] = true;
            self.basis[p] = q;
            self.pivots += 1;
            self.updates += 1;
            if self.updates.is_multiple_of(CHECK_EVERY) {
                // Rebuild B⁻¹ (m³) only once rounding shows: the residuals of B x_B = b and of
                // y B = c_B cost one pass over the basis columns.
                duals = self.duals(cost);
                fresh = true;
                if self.updates >= REFACTOR_AT_MOST || self.residual(columns, cost, &duals) > RESIDUAL {
                    self.refactor(columns)?;
                    duals = self.duals(cost);
                }
            }
        }
        Err(DpError::Lp(format!(
            "the restricted master ({rows} rows, {} columns) did not reach an optimum in {limit} pivots",
            columns.len()
        )))
    }

    /// The basis position that leaves for direction `w`: Harris' two passes (bound the step with the
    /// feasibility tolerance, then take the largest pivot within it), or with `bland` the exact least
    /// ratio, ties to the smallest column index.
    fn leaving(&self, w: &[f64], bland: bool) -> Option<usize> {
        let candidates = || w.iter().enumerate().filter(|&(_, &wk)| wk > PIVOT);
        if bland {
            return candidates()
                .map(|(k, &wk)| (self.values[k] / wk, self.basis[k], k))
                .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
                .map(|(_, _, k)| k);
        }
        let bound =
            candidates().map(|(k, &wk)| (self.values[k] + FEASIBILITY) / wk).min_by(f64::total_cmp)?;
        candidates()
            .filter(|&(k, &wk)| self.values[k] / wk <= bound)
            .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
            .map(|(k, _)| k)
    }

    /// max(|B x_B − b|, |y B − c_B| / (1 + |c_B|)) over the basis.
    fn residual(&self, columns: &Columns, cost: &[f64], duals: &[f64]) -> f64 {
        let mut primal = self.rhs.clone();
        let mut worst = 0.0f64;
        for (&b, &x) in self.basis.iter().zip(&self.values) {
            let mut priced = 0.0;
            for &i in columns.column(b) {
                primal[i as usize] -= x;
                priced += duals[i as usize];
            }
            worst = worst.max((priced - cost[b]).abs() / (1.0 + cost[b].abs()));
        }
        primal.iter().fold(worst, |w, r| w.max(r.abs()))
    }

    /// y = c_B B⁻¹.
    fn duals(&self, cost: &[f64]) -> Vec<f64> {
        let rows = self.rows;
        let c_b: Vec<f64> = self.basis.iter().map(|&b| cost[b]).collect();
        self.inverse
            .chunks_exact(rows)
            .map(|column| column.iter().zip(&c_b).map(|(v, c)| v * c).sum())
            .collect()
    }

    /// Rebuilds B⁻¹ from the basis columns (Gauss–Jordan, partial pivoting) and x_B = B⁻¹ 1.
    fn refactor(&mut self, columns: &Columns) -> Result<(), DpError> {
        let m = self.rows;
        // Work on [B | I] row-major; B's column k is basis position k.
        let mut b = vec![0.0f64; m * m];
        for (k, &col) in self.basis.iter().enumerate() {
            for &i in columns.column(col) {
                b[i as usize * m + k] += 1.0;
            }
        }
        let mut inv = vec![0.0; m * m];
        for i in 0..m {
            inv[i * m + i] = 1.0;
        }
        for k in 0..m {
            let p = (k..m).max_by(|&x, &y| b[x * m + k].abs().total_cmp(&b[y * m + k].abs())).expect("k < m");
            let pivot = b[p * m + k];
            if pivot.abs() < 1e-11 {
                return Err(DpError::Lp(format!(
                    "the restricted master's basis became singular at position {k} of {m}: numerical trouble"
                )));
            }
            if p != k {
                for j in 0..m {
                    b.swap(p * m + j, k * m + j);
                    inv.swap(p * m + j, k * m + j);
                }
            }
            for j in 0..m {
                b[k * m + j] /= pivot;
                inv[k * m + j] /= pivot;
            }
            // B is a 0/1 route matrix: eliminate with the pivot rows' non-zeros only.
            let (b_row, inv_row) = (nonzeros(&b[k * m..(k + 1) * m]), nonzeros(&inv[k * m..(k + 1) * m]));
            for i in 0..m {
                let f = b[i * m + k];
                if i == k || f == 0.0 {
                    continue;
                }
                for &(j, v) in &b_row {
                    b[i * m + j] -= f * v;
                }
                for &(j, v) in &inv_row {
                    inv[i * m + j] -= f * v;
                }
            }
        }
        // Gauss–Jordan on [B | I] left B⁻¹ row-major, row k for basis position k; stored column by column.
        self.values = (0..m)
            .map(|k| inv[k * m..(k + 1) * m].iter().zip(&self.rhs).map(|(v, b)| v * b).sum::<f64>().max(0.0))
            .collect();
        self.inverse = (0..m * m).map(|at| inv[(at % m) * m + at / m]).collect();
        self.updates = 0;
        Ok(())
    }
}

/// The non-zero entries of a dense row, with their indices.
fn nonzeros(row: &[f64]) -> Vec<(usize, f64)> {
    row.iter().copied().enumerate().filter(|&(_, v)| v != 0.0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use microlp::{ComparisonOp, OptimizationDirection, Problem};
    use proptest::prelude::*;

    /// `min c·x s.t. A x = 1, x ≥ 0` by microlp (the reference).
    fn reference(rows: usize, columns: &Columns, cost: &[f64]) -> f64 {
        let mut lp = Problem::new(OptimizationDirection::Minimize);
        let vars: Vec<_> = cost.iter().map(|&c| lp.add_var(c, (0.0, f64::INFINITY))).collect();
        for i in 0..rows {
            let row: Vec<_> = (0..columns.len())
                .filter_map(|r| {
                    let visits = columns.column(r).iter().filter(|&&x| x as usize == i).count();
                    (visits > 0).then_some((vars[r], visits as f64))
                })
                .collect();
            lp.add_constraint(row.as_slice(), ComparisonOp::Eq, 1.0);
        }
        lp.solve().unwrap().into_solution().unwrap().objective()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Random set partitionings (unit columns first, as the master holds them, then random
        /// routes, some visiting a customer twice), solved in two rounds like column generation (half
        /// the routes, then all: the warm start): the optimum equals microlp's, the duals are feasible
        /// and their sum is the value.
        #[test]
        fn equals_a_reference_lp_with_a_warm_start(
            rows in 1usize..9,
            routes in proptest::collection::vec((proptest::collection::vec(0usize..9, 1..6), 1u32..100), 0..40),
            unit_cost in 50u32..200,
        ) {
            let (mut first, mut columns) = (Columns::default(), Columns::default());
            let mut cost: Vec<f64> = (0..rows).map(|_| unit_cost as f64).collect();
            for i in 0..rows as u32 {
                first.push([i]);
                columns.push([i]);
            }
            let half = routes.len() / 2;
            for (at, (visits, c)) in routes.iter().enumerate() {
                let visits = visits.iter().map(|&v| (v % rows) as u32);
                if at < half {
                    first.push(visits.clone());
                }
                columns.push(visits);
                cost.push(*c as f64);
            }
            let mut simplex = Simplex::default();
            simplex.solve(rows, &first, &cost[..rows + half]).unwrap();
            let opt = simplex.solve(rows, &columns, &cost).unwrap();
            let expected = reference(rows, &columns, &cost);
            prop_assert!((opt.value - expected).abs() < 1e-6 * expected.max(1.0), "{} vs microlp {expected}", opt.value);
            for (r, c) in cost.iter().enumerate() {
                prop_assert!(c - columns.dot(r, &opt.duals) > -1e-7);
            }
            prop_assert!((opt.duals.iter().sum::<f64>() - opt.value).abs() < 1e-9 * opt.value.abs().max(1.0));
        }
    }
}
