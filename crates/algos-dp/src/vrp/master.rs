//! The restricted set-partitioning master of column generation:
//! `min Σ c_r x_r  s.t.  Σ_r a_ir x_r = 1 ∀ customers i,  x ≥ 0`, over the routes generated so far,
//! solved for the duals u_i of the partitioning rows that the pricing needs every round.
//!
//! Two solvers ([`MasterLp`]): a primal simplex warm-started from the last round's basis
//! ([`super::simplex`], the default) and [Clarabel](https://docs.rs/clarabel), a pure-Rust interior
//! point solved from scratch every round, whose well-centred duals damp the oscillation of column
//! generation (primal-dual column generation, Gondzio et al.). microlp, used before both, reports
//! primal values only, so the dual had to be solved as a primal with thousands of rows rebuilt every
//! round. The bound stays certified whatever the duals' accuracy.

use clarabel::algebra::CscMatrix;
use clarabel::solver::{DefaultSettingsBuilder, DefaultSolver, IPSolver, NonnegativeConeT, SolverStatus};

use super::DpError;
use super::columns::Columns;
use super::simplex::Simplex;

/// Which solver takes the restricted master LP of [`root_bound`](super::root_bound).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MasterLp {
    /// A primal simplex on the set-partitioning master, warm-started from the last round's optimal
    /// basis (columns are only added between rounds, so that basis stays feasible): some hundred pivots
    /// a round instead of a solve from scratch (22 X instances up to 200 customers: 2.4× faster in all
    /// with GPU pricing, the same bounds). Its duals are a vertex of the dual polyhedron.
    #[default]
    Simplex,
    /// Clarabel's interior point on the master's dual form, from scratch every round: well-centred
    /// duals, but every round pays the whole solve.
    InteriorPoint,
}

/// The columns so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct Master {
    customers: usize,
    solver: MasterLp,
    /// The simplex's basis between rounds.
    simplex: Simplex,
    columns: Columns,
    cost: Vec<f64>,
    /// Per column: the route's customers in order.
    routes: Vec<Vec<u32>>,
}

/// A master solution.
#[derive(Debug, Clone)]
pub(crate) struct MasterSolution {
    /// The LP's value (the simplex reports Σ u, its dual objective, equal to ~1e-8 · Σ|u|).
    pub value: f64,
    /// One dual per customer (row i − 1).
    pub duals: Vec<f64>,
}

impl Master {
    pub fn new(customers: usize, solver: MasterLp) -> Self {
        Self { customers, solver, ..Self::default() }
    }

    /// Simplex pivots so far (0 for the interior point).
    pub fn pivots(&self) -> u64 {
        self.simplex.pivots
    }

    /// Number of columns.
    pub fn len(&self) -> usize {
        self.cost.len()
    }

    /// Adds the route visiting `customers` (1-based, repeats counted) at `cost`.
    pub fn add(&mut self, customers: &[u32], cost: f64) {
        self.columns.push(customers.iter().map(|&c| c - 1));
        self.cost.push(cost);
        self.routes.push(customers.to_vec());
    }

    /// Keeps the first `fixed` columns, the simplex's basic ones, and the others of least reduced cost
    /// under `duals` up to `keep` in all; returns the routes removed.
    pub fn purge(&mut self, duals: &[f64], fixed: usize, keep: usize) -> Vec<Vec<u32>> {
        if self.len() <= keep {
            return Vec::new();
        }
        let reduced = |r: usize| self.cost[r] - self.columns.dot(r, duals);
        let mut order: Vec<(f64, usize)> = (fixed..self.len()).map(|r| (reduced(r), r)).collect();
        order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut kept = vec![false; self.len()];
        kept[..fixed].fill(true);
        // The simplex's basis (empty for the interior point) stays: the next solve goes on from it.
        for &b in self.simplex.basic_columns() {
            kept[b] = true;
        }
        let mut count = kept.iter().filter(|&&k| k).count();
        for &(_, r) in &order {
            if count >= keep {
                break;
            }
            if !kept[r] {
                kept[r] = true;
                count += 1;
            }
        }
        let mut next = 0;
        let new_index: Vec<Option<usize>> = kept
            .iter()
            .map(|&k| {
                k.then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect();
        self.simplex.renumber(&new_index);
        self.columns.retain(&kept);
        let mut removed = Vec::new();
        let (cost, routes) = (std::mem::take(&mut self.cost), std::mem::take(&mut self.routes));
        for (at, (c, route)) in cost.into_iter().zip(routes).enumerate() {
            if kept[at] {
                self.cost.push(c);
                self.routes.push(route);
            } else {
                removed.push(route);
            }
        }
        removed
    }

    /// Solves the LP with the chosen solver.
    pub fn solve(&mut self) -> Result<MasterSolution, DpError> {
        match self.solver {
            MasterLp::Simplex => {
                let optimum = self.simplex.solve(self.customers, &self.columns, &self.cost)?;
                Ok(MasterSolution { value: optimum.value, duals: optimum.duals })
            }
            MasterLp::InteriorPoint => self.solve_interior_point(),
        }
    }

    /// Solves the LP, in its dual form `max Σ u_i s.t. Σ_i a_ir u_i ≤ c_r ∀ r` (u free): n variables
    /// and one inequality per column, half the KKT system of the primal form (whose x ≥ 0 adds a row per
    /// column); the route values are that problem's duals.
    fn solve_interior_point(&self) -> Result<MasterSolution, DpError> {
        let (n, cols) = (self.customers, self.len());
        // A: cols × n, row r = route r's visits; built column-wise (per customer).
        let mut per_customer: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
        for r in 0..cols {
            for &i in self.columns.column(r) {
                match per_customer[i as usize].last_mut() {
                    Some((last, a)) if *last == r => *a += 1.0,
                    _ => per_customer[i as usize].push((r, 1.0)),
                }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Routes over 12 customers from a fixed generator, each at a cost that makes some of them worth
    /// combining.
    fn routes() -> Vec<(Vec<u32>, f64)> {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        };
        (0..120)
            .map(|_| {
                let len = 2 + next(4) as usize;
                let route: Vec<u32> = (0..len).map(|_| 1 + next(12) as u32).collect();
                (route, 40.0 + next(60) as f64)
            })
            .collect()
    }

    /// A purge in the middle of column generation keeps the simplex's basis (so the next solve goes on
    /// from it) and never changes the optimum over the columns that remain: equal to a cold solve of
    /// the same columns, with either solver.
    #[test]
    fn purging_keeps_the_basis_and_the_optimum() {
        let n = 12;
        let mut master = Master::new(n, MasterLp::Simplex);
        for i in 1..=n as u32 {
            master.add(&[i], 100.0);
        }
        let all = routes();
        for (route, cost) in &all[..60] {
            master.add(route, *cost);
        }
        let first = master.solve().unwrap();
        let basic_routes: Vec<Vec<u32>> =
            master.simplex.basic_columns().iter().map(|&b| master.routes[b].clone()).collect();
        // Keep 30 columns: the 12 unit routes, the basic ones, then the least reduced costs.
        let removed = master.purge(&first.duals, n, 30);
        assert!(!removed.is_empty());
        assert!(master.len() >= 30 && master.len() <= 30 + n);
        let kept_basic: Vec<Vec<u32>> =
            master.simplex.basic_columns().iter().map(|&b| master.routes[b].clone()).collect();
        assert_eq!(kept_basic, basic_routes, "the basis names the same routes after renumbering");
        let pivots = master.pivots();
        let again = master.solve().unwrap();
        assert_eq!(master.pivots(), pivots, "the purged master is still optimal: no pivot needed");
        assert!((again.value - first.value).abs() < 1e-6 * first.value);
        for (route, cost) in &all[60..] {
            master.add(route, *cost);
        }
        let warm = master.solve().unwrap();
        let mut cold = Master::new(n, MasterLp::InteriorPoint);
        for r in 0..master.len() {
            cold.add(&master.routes[r], master.cost[r]);
        }
        let reference = cold.solve().unwrap();
        assert!(
            (warm.value - reference.value).abs() < 1e-5 * reference.value,
            "warm simplex {} against the interior point {}",
            warm.value,
            reference.value
        );
    }
}
