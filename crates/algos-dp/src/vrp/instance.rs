//! The capacitated VRP instance and the arc costs a pricing call runs on.

use super::DpError;

/// A CVRP instance: depot 0, customers `1..=n` with integer demands, one vehicle capacity, and a
/// (possibly asymmetric) cost matrix over the `n + 1` nodes.
///
/// ```
/// use urbanflow::dp::vrp::Cvrp;
/// // Depot and two customers on a line: 0 — 1 — 2, unit spacing.
/// let cost = vec![0.0, 1.0, 2.0, 1.0, 0.0, 1.0, 2.0, 1.0, 0.0];
/// let inst = Cvrp::new("line", vec![0, 3, 4], 10, cost)?;
/// assert_eq!(inst.customers(), 2);
/// assert_eq!(inst.cost(1, 2), 1.0);
/// # Ok::<(), urbanflow::dp::DpError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Cvrp {
    name: String,
    demand: Vec<u32>,
    capacity: u32,
    cost: Vec<f64>,
    coords: Option<Vec<(f64, f64)>>,
}

impl Cvrp {
    /// An instance from demands (`demand[0]` is the depot's and must be 0), the capacity and the
    /// row-major `(n + 1)²` cost matrix (the diagonal is ignored).
    pub fn new(
        name: impl Into<String>,
        demand: Vec<u32>,
        capacity: u32,
        cost: Vec<f64>,
    ) -> Result<Self, DpError> {
        let nodes = demand.len();
        if nodes < 2 {
            return Err(DpError::Shape("an instance needs the depot and at least one customer".into()));
        }
        if cost.len() != nodes * nodes {
            return Err(DpError::Shape(format!(
                "{} costs for {nodes} nodes (expected {})",
                cost.len(),
                nodes * nodes
            )));
        }
        if demand[0] != 0 {
            return Err(DpError::Shape(format!("the depot has demand {} (expected 0)", demand[0])));
        }
        for (i, &q) in demand.iter().enumerate().skip(1) {
            if q == 0 {
                return Err(DpError::ZeroDemand { customer: i as u32 });
            }
            if q > capacity {
                return Err(DpError::DemandExceedsCapacity { customer: i as u32, demand: q, capacity });
            }
        }
        if let Some(k) = cost.iter().position(|c| !c.is_finite()) {
            return Err(DpError::Shape(format!("cost ({}, {}) is not finite", k / nodes, k % nodes)));
        }
        Ok(Self { name: name.into(), demand, capacity, cost, coords: None })
    }

    /// Attaches node coordinates (depot first).
    pub fn with_coords(mut self, coords: Vec<(f64, f64)>) -> Self {
        if coords.len() == self.demand.len() {
            self.coords = Some(coords);
        }
        self
    }

    /// The instance's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of customers n.
    pub fn customers(&self) -> usize {
        self.demand.len() - 1
    }

    /// Demands by node (`[0]` = 0 for the depot).
    pub fn demands(&self) -> &[u32] {
        &self.demand
    }

    /// Vehicle capacity Q.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// `c_ij`.
    #[inline]
    pub fn cost(&self, i: usize, j: usize) -> f64 {
        self.cost[i * self.demand.len() + j]
    }

    /// Node coordinates, when the file had them.
    pub fn coords(&self) -> Option<&[(f64, f64)]> {
        self.coords.as_deref()
    }

    /// True when `c_ij = c_ji` for all pairs.
    pub fn is_symmetric(&self) -> bool {
        let m = self.demand.len();
        (0..m).all(|i| (i + 1..m).all(|j| self.cost(i, j) == self.cost(j, i)))
    }

    /// The instance with the cost matrix transposed (backward DPs run forward on it).
    pub fn transposed(&self) -> Self {
        let m = self.demand.len();
        let mut cost = vec![0.0; m * m];
        for i in 0..m {
            for j in 0..m {
                cost[j * m + i] = self.cost(i, j);
            }
        }
        Self { cost, ..self.clone() }
    }

    /// The cost of a route `0 → customers… → 0` under the raw costs.
    pub fn route_cost(&self, customers: &[u32]) -> f64 {
        let mut at = 0usize;
        let mut total = 0.0;
        for &c in customers {
            total += self.cost(at, c as usize);
            at = c as usize;
        }
        total + self.cost(at, 0)
    }
}

/// The arc costs a DP runs on: raw, or reduced by customer duals (`c_ij − u_j`, the dual of the
/// customer entered; a route's reduced cost is then its cost minus the duals of its visits).
#[derive(Debug, Clone, Copy)]
pub enum Costs<'a> {
    /// `c_ij`.
    Raw,
    /// `c_ij − u_j` with `duals[j - 1] = u_j` for customers j (the depot's dual is 0).
    Reduced(&'a [f64]),
}

/// A dense matrix of arc costs for one DP call.
#[derive(Debug, Clone)]
pub struct ArcCosts {
    m: usize,
    a: Vec<f64>,
}

impl ArcCosts {
    /// Builds the matrix; duals must be finite, one per customer.
    pub fn new(inst: &Cvrp, costs: &Costs<'_>) -> Result<Self, DpError> {
        let m = inst.customers() + 1;
        let mut a = inst.cost.clone();
        if let Costs::Reduced(u) = costs {
            if u.len() != m - 1 {
                return Err(DpError::Shape(format!("{} duals for {} customers", u.len(), m - 1)));
            }
            if let Some(k) = u.iter().position(|x| !x.is_finite()) {
                return Err(DpError::Shape(format!("dual of customer {} is not finite", k + 1)));
            }
            for i in 0..m {
                for j in 1..m {
                    a[i * m + j] -= u[j - 1];
                }
            }
        }
        Ok(Self { m, a })
    }

    /// A matrix given directly (row-major, `m × m` over the depot and the customers): for example the
    /// transpose of another one, for backward DPs on reduced costs.
    pub fn from_matrix(m: usize, a: Vec<f64>) -> Self {
        assert_eq!(a.len(), m * m, "an m × m matrix");
        Self { m, a }
    }

    /// Nodes m (depot and customers).
    pub fn size(&self) -> usize {
        self.m
    }

    /// The matrix, row-major.
    pub fn as_slice(&self) -> &[f64] {
        &self.a
    }

    /// The arc cost `i → j`.
    #[inline]
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.a[i * self.m + j]
    }
}
