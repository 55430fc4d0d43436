//! A user class — its demand, passenger-car equivalent, fixed costs and banned links — as the
//! multi-class solvers ([`crate::multiclass`]) and matrix estimation ([`crate::odme`]) both take it,
//! checked once, and what its equilibrium measures.

use crate::aon::{SearchGraph, all_or_nothing};
use crate::demand::Demand;
use crate::error::TapError;
use crate::network::Network;

/// One class of travellers.
#[derive(Debug, Clone)]
pub struct UserClass {
    /// Name, for messages and outputs.
    pub name: String,
    /// Its trips (vehicles).
    pub demand: Demand,
    /// Passenger-car equivalent of one vehicle (cars 1, trucks e.g. 2.5).
    pub pce: f64,
    /// Fixed cost per link in the network's cost units (toll over value of time, distance terms); empty
    /// for none.
    pub fixed_cost: Vec<f64>,
    /// Links this class may not use (indices in the network's link order).
    pub banned: Vec<u32>,
}

impl UserClass {
    /// A class with PCE 1, no fixed cost and no banned link.
    pub fn new(name: impl Into<String>, demand: Demand) -> Self {
        Self { name: name.into(), demand, pce: 1.0, fixed_cost: Vec::new(), banned: Vec::new() }
    }

    /// With this passenger-car equivalent.
    pub fn with_pce(mut self, pce: f64) -> Self {
        self.pce = pce;
        self
    }

    /// With fixed costs `toll_factor × toll + distance_factor × length` on every link of `net`.
    pub fn with_factors(mut self, net: &Network, toll_factor: f64, distance_factor: f64) -> Self {
        self.fixed_cost =
            net.links().iter().map(|l| toll_factor * l.toll + distance_factor * l.length).collect();
        self
    }
}

/// Validated per-class data.
pub(crate) struct Class<'c> {
    pub(crate) spec: &'c UserClass,
    pub(crate) fixed: Vec<f64>,
    pub(crate) banned: Vec<bool>,
}

impl<'c> Class<'c> {
    /// The class's link costs over the network's `base` costs.
    pub(crate) fn costs(&self, base: &[f64], out: &mut [f64]) {
        for (a, o) in out.iter_mut().enumerate() {
            *o = if self.banned[a] { f64::INFINITY } else { base[a] + self.fixed[a] };
        }
    }

    /// `Σ_a φ_a v_a` over the links the class may use.
    pub(crate) fn fixed_dot(&self, v: &[f64]) -> f64 {
        (0..v.len()).filter(|&a| !self.banned[a]).map(|a| self.fixed[a] * v[a]).sum()
    }

    /// What the class pays over the network's cost per link: its fixed cost, infinite where banned.
    fn extra(&self) -> Vec<f64> {
        self.fixed.iter().zip(&self.banned).map(|(&f, &b)| if b { f64::INFINITY } else { f }).collect()
    }

    /// The class as a bush equilibrium measures it.
    pub(crate) fn measured(&self) -> MeasuredClass<'c> {
        MeasuredClass {
            name: self.spec.name.clone(),
            pce: self.spec.pce,
            extra: self.extra(),
            demand: &self.spec.demand,
        }
    }
}

/// Checks every class against `net` (PCE, fixed costs, banned links).
pub(crate) fn validate<'c>(net: &Network, classes: &'c [UserClass]) -> Result<Vec<Class<'c>>, TapError> {
    let invalid = |msg: String| Err(TapError::InvalidOption(msg));
    if classes.is_empty() {
        return invalid("a multi-class assignment needs at least one class".into());
    }
    let m = net.num_links();
    let mut checked = Vec::with_capacity(classes.len());
    for c in classes {
        if !(c.pce.is_finite() && c.pce > 0.0) {
            return invalid(format!("class {}: PCE {} (expected a positive number)", c.name, c.pce));
        }
        let fixed = if c.fixed_cost.is_empty() { vec![0.0; m] } else { c.fixed_cost.clone() };
        if fixed.len() != m || fixed.iter().any(|f| !f.is_finite() || *f < 0.0) {
            return invalid(format!(
                "class {}: expected {m} finite, non-negative fixed costs, got {} values",
                c.name,
                c.fixed_cost.len()
            ));
        }
        let mut banned = vec![false; m];
        for &a in &c.banned {
            match banned.get_mut(a as usize) {
                Some(b) => *b = true,
                None => return invalid(format!("class {}: banned link {a} is not a link (0..{m})", c.name)),
            }
        }
        checked.push(Class { spec: c, fixed, banned });
    }
    Ok(checked)
}

/// The classes checked, as a bush equilibrium measures them.
pub(crate) fn measured_classes<'c>(
    net: &Network,
    classes: &'c [UserClass],
) -> Result<Vec<MeasuredClass<'c>>, TapError> {
    Ok(validate(net, classes)?.iter().map(Class::measured).collect())
}

/// One class as a bush equilibrium measures it: PCE, extra cost per link (network order; empty for
/// none) and demand.
pub(crate) struct MeasuredClass<'d> {
    pub(crate) name: String,
    pub(crate) pce: f64,
    pub(crate) extra: Vec<f64>,
    pub(crate) demand: &'d Demand,
}

impl<'d> MeasuredClass<'d> {
    /// Vehicles of weight 1 on the network's costs.
    pub(crate) fn plain(demand: &'d Demand) -> Self {
        Self { name: "all".into(), pce: 1.0, extra: Vec::new(), demand }
    }

    /// The bush solver's view of this class.
    pub(crate) fn bush_class(&self, topo: &crate::bush::Topology) -> crate::bush::BushClass {
        crate::bush::BushClass::new(topo, &self.name, self.pce, &self.extra)
    }
}

/// The classes' shortest-path total in PCE-weighted cost, `Σ_k pce_k Σ_od g^k_od κ^k_od`, at the
/// network's link costs `base` (each class adding its extra); `y` is scratch.
pub(crate) fn classes_sptt(
    net: &Network,
    g: &SearchGraph,
    classes: &[MeasuredClass],
    base: &[f64],
    y: &mut [f64],
) -> Result<f64, TapError> {
    let mut sptt = 0.0;
    let mut class_cost = Vec::new();
    for c in classes {
        let costs = if c.extra.is_empty() {
            base
        } else {
            class_cost.clear();
            class_cost.extend(base.iter().zip(&c.extra).map(|(b, e)| b + e));
            &class_cost[..]
        };
        sptt += c.pce * all_or_nothing(net, g, c.demand, costs, y)?;
    }
    Ok(sptt)
}
