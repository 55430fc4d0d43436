//! The restricted set-partitioning master of column generation, solved with
//! [Clarabel](https://docs.rs/clarabel) (a pure-Rust interior-point solver that returns the duals).
//!
//! `min Σ c_r x_r  s.t.  Σ_r a_ir x_r = 1 ∀ customers i,  x ≥ 0`, over the routes generated so far.
//! Why Clarabel: the pricing needs the duals u_i of the partitioning rows every round; microlp (used
//! before) reports primal values only, so the dual had to be solved as a primal with thousands of
//! rows rebuilt every round — the bound's measured bottleneck. An interior point also gives
//! well-centred duals, which damp the oscillation of column generation (primal-dual column
//! generation, Gondzio et al.); the bound stays certified whatever their accuracy.

use clarabel::algebra::CscMatrix;
use clarabel::solver::{DefaultSettingsBuilder, DefaultSolver, IPSolver, NonnegativeConeT, SolverStatus};

use super::DpError;

/// The columns so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct Master {
    customers: usize,
    /// Per column: (customer row, visits) sorted by row.
    rows: Vec<Vec<(usize, f64)>>,
    cost: Vec<f64>,
    /// Per column: the route's customers in order.
    routes: Vec<Vec<u32>>,
}

/// A master solution.
#[derive(Debug, Clone)]
pub(crate) struct MasterSolution {
    /// Σ c_r x_r.
    pub value: f64,
    /// One dual per customer (row i − 1).
    pub duals: Vec<f64>,
}

impl Master {
    pub fn new(customers: usize) -> Self {
        Self { customers, ..Self::default() }
    }

    /// Number of columns.
    pub fn len(&self) -> usize {
        self.cost.len()
    }

    /// Adds the route visiting `customers` (1-based, repeats counted) at `cost`.
    pub fn add(&mut self, customers: &[u32], cost: f64) {
        let mut rows: Vec<(usize, f64)> = Vec::with_capacity(customers.len());
        let mut sorted: Vec<usize> = customers.iter().map(|&c| c as usize - 1).collect();
        sorted.sort_unstable();
        for r in sorted {
            match rows.last_mut() {
                Some((last, v)) if *last == r => *v += 1.0,
                _ => rows.push((r, 1.0)),
            }
        }
        self.rows.push(rows);
        self.cost.push(cost);
        self.routes.push(customers.to_vec());
    }

    /// Keeps the first `fixed` columns and the `keep − fixed` others of least reduced cost under
    /// `duals`; returns the routes removed.
    pub fn purge(&mut self, duals: &[f64], fixed: usize, keep: usize) -> Vec<Vec<u32>> {
        if self.len() <= keep {
            return Vec::new();
        }
        let reduced = |r: usize| self.cost[r] - self.rows[r].iter().map(|&(i, a)| a * duals[i]).sum::<f64>();
        let mut order: Vec<(f64, usize)> = (fixed..self.len()).map(|r| (reduced(r), r)).collect();
        order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut kept = vec![false; self.len()];
        kept[..fixed].fill(true);
        for &(_, r) in order.iter().take(keep.saturating_sub(fixed)) {
            kept[r] = true;
        }
        let mut removed = Vec::new();
        let (rows, cost, routes) = (
            std::mem::take(&mut self.rows),
            std::mem::take(&mut self.cost),
            std::mem::take(&mut self.routes),
        );
        for (at, ((row, c), route)) in rows.into_iter().zip(cost).zip(routes).enumerate() {
            if kept[at] {
                self.rows.push(row);
                self.cost.push(c);
                self.routes.push(route);
            } else {
                removed.push(route);
            }
        }
        removed
    }

    /// Solves the LP, in its dual form `max Σ u_i s.t. Σ_i a_ir u_i ≤ c_r ∀ r` (u free): n variables
    /// and one inequality per column, half the KKT system of the primal form (whose x ≥ 0 adds a row per
    /// column); the route values are that problem's duals.
    pub fn solve(&self) -> Result<MasterSolution, DpError> {
        let (n, cols) = (self.customers, self.len());
        // A: cols × n, row r = route r's visits; built column-wise (per customer).
        let mut per_customer: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
        for (r, rows) in self.rows.iter().enumerate() {
            for &(i, a) in rows {
                per_customer[i].push((r, a));
            }
        }
        let mut colptr = Vec::with_capacity(n + 1);
        let (mut rowval, mut nzval) = (Vec::new(), Vec::new());
        colptr.push(0);
        for entries in &per_customer {
            for &(r, a) in entries {
                rowval.push(r);
                nzval.push(a);
            }
            colptr.push(rowval.len());
        }
        let a = CscMatrix::new(cols, n, colptr, rowval, nzval);
        let p = CscMatrix::<f64>::zeros((n, n));
        let objective = vec![-1.0; n];
        let cones = [NonnegativeConeT(cols)];
        let settings = DefaultSettingsBuilder::default()
            .verbose(false)
            .max_iter(400)
            .build()
            .map_err(|e| DpError::Lp(format!("{e:?}")))?;
        let mut solver = DefaultSolver::new(&p, &objective, &a, &self.cost, &cones, settings)
            .map_err(|e| DpError::Lp(format!("{e:?}")))?;
        solver.solve();
        let sol = &solver.solution;
        match sol.status {
            SolverStatus::Solved | SolverStatus::AlmostSolved => {}
            other => {
                return Err(DpError::Lp(format!(
                    "the restricted master ({n} rows, {cols} columns) ended {other:?} after {} iterations",
                    sol.iterations
                )));
            }
        }
        Ok(MasterSolution { value: -sol.obj_val, duals: sol.x.clone() })
    }
}
