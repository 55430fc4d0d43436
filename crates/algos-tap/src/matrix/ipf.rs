//! Iterative proportional fitting (Furness, Fratar): a seed matrix scaled by row and column factors
//! until its row and column totals meet their targets.
//!
//! The balanced matrix is `T_ij = S_ij a_i b_j`; one iteration sets every row factor from the current
//! column factors, `a_i = P_i / Σ_j S_ij b_j`, then every column factor from the new row factors,
//! `b_j = A_j / Σ_i S_ij a_i` — the classic alternation of row and column scaling, computed on the
//! factors so that one pass over the seed (read only, each row once: its row sum, then its share of
//! every column sum while the row is in cache) does a whole iteration. The matrix is written once at
//! the end. The stop rule is AequilibraE's: the largest `max(f, 1/f) − 1` over the iteration's row and
//! column corrections `f` (the factors' ratios to the previous iteration's) below the tolerance.

use rayon::prelude::*;

use crate::error::TapError;

/// How to balance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IpfOptions {
    /// Stop when every row and column correction of an iteration is within this of 1 (AequilibraE's
    /// convergence level). The default, 1e-12, gives matrices that agree with any other IPF run to
    /// convergence to about 1e-10 relative.
    pub tolerance: f64,
    /// At most this many iterations.
    pub max_iterations: u32,
    /// Row and column targets whose totals differ by more than 1e-9 relative are an error unless this
    /// is set; then the column targets are scaled to the rows' total. Totals that agree to 1e-9 are
    /// always made to agree exactly that way (as AequilibraE does).
    pub scale_columns: bool,
}

impl Default for IpfOptions {
    fn default() -> Self {
        Self { tolerance: 1e-12, max_iterations: 10_000, scale_columns: false }
    }
}

/// A balanced matrix and how the balancing went.
#[derive(Debug, Clone, PartialEq)]
pub struct Balanced {
    /// The matrix, row-major, the seed's shape.
    pub matrix: Vec<f64>,
    /// Iterations run.
    pub iterations: u32,
    /// The last iteration's largest correction `max(f, 1/f) − 1`.
    pub gap: f64,
    /// Whether `gap` reached the tolerance.
    pub converged: bool,
    /// Largest relative difference of a row total from its target, at the end.
    pub row_residual: f64,
    /// Largest relative difference of a column total from its target, at the end.
    pub column_residual: f64,
}

/// Rows per partial column sum: partial sums are added in row order whatever the thread count, so
/// results do not depend on it.
const ROW_CHUNK: usize = 64;

/// Balances `seed` (`rows.len() × columns.len()`, row-major, finite and ≥ 0) to row totals `rows`
/// and column totals `columns` (finite, ≥ 0).
///
/// ```
/// use urbanflow::tap::matrix::{IpfOptions, ipf};
/// let seed = [1.0, 2.0, 3.0, 4.0];
/// let b = ipf(&seed, &[10.0, 20.0], &[12.0, 18.0], &IpfOptions::default()).unwrap();
/// assert!(b.converged);
/// let (m, tol) = (&b.matrix, 1e-9);
/// assert!((m[0] + m[1] - 10.0).abs() < tol && (m[2] + m[3] - 20.0).abs() < tol);
/// assert!((m[0] + m[2] - 12.0).abs() < tol && (m[1] + m[3] - 18.0).abs() < tol);
/// // The cross-product ratio of the seed is kept: m0 m3 / (m1 m2) = 1·4 / (2·3).
/// assert!((m[0] * m[3] / (m[1] * m[2]) - 4.0 / 6.0).abs() < 1e-9);
/// ```
pub fn ipf(seed: &[f64], rows: &[f64], columns: &[f64], opts: &IpfOptions) -> Result<Balanced, TapError> {
    ipf_owned(seed.to_vec(), rows, columns, opts)
}

/// [`ipf`] on a seed the caller gives away: the balanced matrix is written over it (no second matrix
/// in memory; what bindings that already copied their input use).
pub fn ipf_owned(
    seed: Vec<f64>,
    rows: &[f64],
    columns: &[f64],
    opts: &IpfOptions,
) -> Result<Balanced, TapError> {
    let m = columns.len();
    let columns = prepare(&seed, rows, columns, opts)?;
    let (a, b, iterations, gap) = factors(rows, &columns, opts, &mut |b| Ok(row_pass(&seed, rows, b, m)))?;
    finish(seed, rows, &columns, (a, b), iterations, gap, opts)
}

/// Checks shapes, targets and the seed's values, and that every positive target has seed cells;
/// returns the column targets made to total the rows' exactly.
pub(super) fn prepare(
    seed: &[f64],
    rows: &[f64],
    columns: &[f64],
    opts: &IpfOptions,
) -> Result<Vec<f64>, TapError> {
    let (n, m) = (rows.len(), columns.len());
    let columns = check(seed, rows, columns, opts)?;
    let bad = |why: String| Err(TapError::InvalidOption(why));
    // One pass: the seed's values checked, and its row and column sums (a row or column whose seed is
    // all zero cannot carry a positive target).
    let (row_sums, column_sums, first_bad) = sums(seed, m);
    if let Some(k) = first_bad {
        return bad(format!("seed cell ({}, {}) is {}: expected a finite value ≥ 0", k / m, k % m, seed[k]));
    }
    if let Some(i) = (0..n).find(|&i| rows[i] > 0.0 && row_sums[i] == 0.0) {
        return bad(format!("row {i} has target {} but its seed row is all zero", rows[i]));
    }
    if let Some(j) = (0..m).find(|&j| columns[j] > 0.0 && column_sums[j] == 0.0) {
        return bad(format!("column {j} has target {} but its seed column is all zero", columns[j]));
    }
    Ok(columns)
}

/// One iteration's pass over the seed: the row factors for the column factors given, and the column
/// sums `Σ_i S_ij a_i` with those row factors (the CPU's [`row_pass`], or the GPU's `ipf.wgsl`).
pub(super) type Pass<'a> = dyn FnMut(&[f64]) -> Result<(Vec<f64>, Vec<f64>), TapError> + 'a;

/// The iterations: factors `(a, b)`, iterations run and the last correction.
pub(super) fn factors(
    rows: &[f64],
    columns: &[f64],
    opts: &IpfOptions,
    pass: &mut Pass<'_>,
) -> Result<(Vec<f64>, Vec<f64>, u32, f64), TapError> {
    let (n, m) = (rows.len(), columns.len());
    let bad = |why: String| Err(TapError::InvalidOption(why));
    // All factors start at 1, zero-target columns included (their cells leave at the first column
    // step), so the iterations are AequilibraE's one for one.
    let (mut a, mut b) = (vec![1.0; n], vec![1.0; m]);
    let (mut iterations, mut gap) = (0, f64::INFINITY);
    while iterations < opts.max_iterations && gap >= opts.tolerance {
        iterations += 1;
        let (new_a, column_sums) = pass(&b)?;
        let new_b: Vec<f64> =
            (0..m).map(|j| if columns[j] > 0.0 { columns[j] / column_sums[j] } else { 0.0 }).collect();
        // Zero cells can make the totals unreachable: factors then run to 0 and ∞ until they stop being
        // numbers. Refused, never reported as converged.
        let broken = |f: &[f64]| f.iter().position(|x| !x.is_finite());
        if let Some(i) = broken(&new_a) {
            return bad(format!(
                "the row and column totals cannot both be met with this seed's zero cells: row {i}'s factor \
                 left the finite range after {iterations} iterations"
            ));
        }
        if let Some(j) = broken(&new_b) {
            return bad(format!(
                "the row and column totals cannot both be met with this seed's zero cells: column {j}'s \
                 factor left the finite range after {iterations} iterations"
            ));
        }
        gap = correction(&a, &new_a).max(correction(&b, &new_b));
        (a, b) = (new_a, new_b);
    }
    Ok((a, b, iterations, gap))
}

/// The factors applied to the seed in place, checked, and the residuals.
pub(super) fn finish(
    seed: Vec<f64>,
    rows: &[f64],
    columns: &[f64],
    (a, b): (Vec<f64>, Vec<f64>),
    iterations: u32,
    gap: f64,
    opts: &IpfOptions,
) -> Result<Balanced, TapError> {
    let m = columns.len();
    let width = m.max(1);
    // One pass: the factors applied in place, and the totals summed for the residuals as [`sums`] sums
    // them (the same chunks, the same order, so the same bits). `(s a_i) b_j`, so a zero cell stays 0
    // even where `a_i b_j` overflows (0 × ∞ would be NaN).
    let mut matrix = seed;
    let parts: Vec<(Vec<f64>, Vec<f64>, Option<usize>)> = matrix
        .par_chunks_mut(ROW_CHUNK * width)
        .zip(a.par_chunks(ROW_CHUNK))
        .enumerate()
        .map(|(c, (block, factors))| {
            let (mut row_totals, mut column_totals, mut overflow) =
                (Vec::with_capacity(ROW_CHUNK), vec![0.0; m], None);
            for (k, (row, &ai)) in block.chunks_mut(width).zip(factors).enumerate() {
                for (t, bj) in row.iter_mut().zip(&b) {
                    *t = *t * ai * bj;
                }
                row_totals.push(row.iter().sum::<f64>());
                column_totals.iter_mut().zip(row.iter()).for_each(|(t, x)| *t += x);
                if overflow.is_none()
                    && let Some(j) = row.iter().position(|x| !x.is_finite())
                {
                    overflow = Some((c * ROW_CHUNK + k) * width + j);
                }
            }
            (row_totals, column_totals, overflow)
        })
        .collect();
    let (mut row_totals, mut column_totals, mut overflow) =
        (Vec::with_capacity(rows.len()), vec![0.0; m], None);
    for (r, c, o) in parts {
        row_totals.extend(r);
        column_totals.iter_mut().zip(&c).for_each(|(s, x)| *s += x);
        overflow = overflow.or(o);
    }
    // Factors that diverged (totals the zero cells make unreachable) can overflow a cell: refused.
    if let Some(k) = overflow {
        return Err(TapError::InvalidOption(format!(
            "the row and column totals cannot both be met with this seed's zero cells: cell ({}, {}) \
             overflowed after {iterations} iterations",
            k / width,
            k % width
        )));
    }
    let (row_residual, column_residual) =
        (largest_residual(&row_totals, rows), largest_residual(&column_totals, columns));
    Ok(Balanced { iterations, gap, converged: gap < opts.tolerance, row_residual, column_residual, matrix })
}

/// The largest relative differences of `matrix`'s row and column totals from `rows` and `columns`
/// (absolute where a target is 0).
pub(super) fn residuals(matrix: &[f64], rows: &[f64], columns: &[f64]) -> (f64, f64) {
    let (row_totals, column_totals, _) = sums(matrix, columns.len());
    (largest_residual(&row_totals, rows), largest_residual(&column_totals, columns))
}

/// The largest relative difference of `got` from `want` (absolute where a target is 0).
fn largest_residual(got: &[f64], want: &[f64]) -> f64 {
    got.iter().zip(want).fold(0.0f64, |r, (g, w)| r.max(if *w > 0.0 { (g - w).abs() / w } else { g.abs() }))
}

/// One pass over the seed: each row's factor from the column factors `b`, then the row's
/// contribution to every column sum with that factor.
fn row_pass(seed: &[f64], rows: &[f64], b: &[f64], m: usize) -> (Vec<f64>, Vec<f64>) {
    let parts: Vec<(Vec<f64>, Vec<f64>)> = seed
        .par_chunks((ROW_CHUNK * m).max(1))
        .enumerate()
        .map(|(c, block)| {
            let mut factors = Vec::with_capacity(ROW_CHUNK);
            let mut column_sums = vec![0.0; m];
            for (k, row) in block.chunks(m.max(1)).enumerate() {
                let target = rows[c * ROW_CHUNK + k];
                if target <= 0.0 {
                    factors.push(0.0);
                    continue;
                }
                let total = dot(row, b);
                let ai = target / total;
                factors.push(ai);
                for (sum, s) in column_sums.iter_mut().zip(row) {
                    *sum += s * ai;
                }
            }
            (factors, column_sums)
        })
        .collect();
    let mut a = Vec::with_capacity(rows.len());
    let mut column_sums = vec![0.0; m];
    for (factors, part) in parts {
        a.extend(factors);
        column_sums.iter_mut().zip(&part).for_each(|(s, p)| *s += p);
    }
    (a, column_sums)
}

/// `Σ x_j y_j` in eight fixed lanes (vectorised; the same bits on every machine and thread count).
fn dot(x: &[f64], y: &[f64]) -> f64 {
    let mut lanes = [0.0; 8];
    let (xc, yc) = (x.chunks_exact(8), y.chunks_exact(8));
    let (xr, yr) = (xc.remainder(), yc.remainder());
    for (a, b) in xc.zip(yc) {
        for ((lane, p), q) in lanes.iter_mut().zip(a).zip(b) {
            *lane += p * q;
        }
    }
    let tail: f64 = xr.iter().zip(yr).map(|(a, b)| a * b).sum();
    lanes.iter().sum::<f64>() + tail
}

/// Row sums and column sums of `matrix` (`m` columns) in one pass — each row's sum, then the row
/// added to its chunk's column sums while in cache — and the first cell that is not finite and ≥ 0.
pub(super) fn sums(matrix: &[f64], m: usize) -> (Vec<f64>, Vec<f64>, Option<usize>) {
    let width = m.max(1);
    let parts: Vec<(Vec<f64>, Vec<f64>, Option<usize>)> = matrix
        .par_chunks(ROW_CHUNK * width)
        .enumerate()
        .map(|(c, block)| {
            let (mut rows, mut columns, mut bad) = (Vec::with_capacity(ROW_CHUNK), vec![0.0; m], None);
            for (k, row) in block.chunks(width).enumerate() {
                rows.push(row.iter().sum::<f64>());
                columns.iter_mut().zip(row).for_each(|(t, x)| *t += x);
                if bad.is_none() && !row.iter().all(|x| *x >= 0.0 && x.is_finite()) {
                    let j = row.iter().position(|x| !(*x >= 0.0 && x.is_finite())).expect("a bad cell");
                    bad = Some((c * ROW_CHUNK + k) * width + j);
                }
            }
            (rows, columns, bad)
        })
        .collect();
    let (mut row_sums, mut column_sums, mut first_bad) =
        (Vec::with_capacity(matrix.len() / width), vec![0.0; m], None);
    for (rows, columns, bad) in parts {
        row_sums.extend(rows);
        column_sums.iter_mut().zip(&columns).for_each(|(s, x)| *s += x);
        first_bad = first_bad.or(bad);
    }
    (row_sums, column_sums, first_bad)
}

/// The largest `max(f, 1/f) − 1` over the corrections `f = new / old` of positive factors.
fn correction(old: &[f64], new: &[f64]) -> f64 {
    old.iter()
        .zip(new)
        .filter(|(o, n)| **o > 0.0 && **n > 0.0)
        .map(|(o, n)| {
            let f = n / o;
            f.max(1.0 / f) - 1.0
        })
        .fold(0.0, f64::max)
}

/// Checks shapes and values; returns the column targets made to total the rows' exactly.
fn check(seed: &[f64], rows: &[f64], columns: &[f64], opts: &IpfOptions) -> Result<Vec<f64>, TapError> {
    let bad = |why: String| Err(TapError::InvalidOption(why));
    if seed.len() != rows.len() * columns.len() {
        return bad(format!(
            "a seed of {} cells for {} rows × {} columns",
            seed.len(),
            rows.len(),
            columns.len()
        ));
    }
    for (what, v) in [("row", rows), ("column", columns)] {
        if let Some(k) = v.iter().position(|t| !(*t >= 0.0 && t.is_finite())) {
            return bad(format!("{what} target {k} is {}: expected a finite total ≥ 0", v[k]));
        }
    }
    if opts.tolerance.is_nan() || opts.tolerance <= 0.0 || opts.max_iterations == 0 {
        return bad("IPF needs a tolerance > 0 and at least one iteration".into());
    }
    let (p, q): (f64, f64) = (rows.iter().sum(), columns.iter().sum());
    let consistent = (p - q).abs() <= 1e-9 * p.max(q);
    if !consistent && !opts.scale_columns {
        return bad(format!(
            "row targets total {p} but column targets {q}: no matrix meets both (scale the columns to the rows \
             to balance anyway)"
        ));
    }
    if q == 0.0 {
        return Ok(columns.to_vec());
    }
    Ok(columns.iter().map(|c| c * (p / q)).collect())
}
