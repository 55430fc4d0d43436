//! Route proportions read off the bushes, for matrix estimation ([`crate::odme`]).
//!
//! At a node `n` of origin `i`'s bush, the origin's flow arriving by in-link `a` is the share
//! `x_a / X_n` of all its flow arriving there (`X_n = Σ x_a` over the bush links into `n`). Under the
//! proportionality assumption — flow arriving at a node continues the same way whichever in-link it came
//! by — those shares are the route proportions `p_ij^a` of every destination `j` behind `n`, so two
//! passes over a bush in topological order replace one select-link matrix per counted link:
//! - forward ([`Bush::mean_costs`]): the flow-weighted mean cost from the root to every node, with any
//!   link costs — with the counts' errors as costs, the gradient of the ODME objective per OD pair;
//! - backward ([`Bush::push_back`]): demand put at the destinations sent back towards the root in those
//!   shares — the link flows of a new demand with the routes held, or the flows' derivative along a
//!   change of the demand.

use rayon::prelude::*;

use super::{Bush, BushSolver, NONE};
use crate::demand::Demand;
use crate::network::Network;

impl Bush {
    /// Flow-weighted mean cost from the root to each position, with `cost` per internal link id.
    /// Positions the origin sends no flow into get their cheapest in-link's value (no OD pair with
    /// demand ends behind them, so it is never read for one).
    fn mean_costs(&self, cost: &[f64], out: &mut Vec<f64>) {
        out.clear();
        out.resize(self.nodes.len(), 0.0);
        for p in 1..self.nodes.len() {
            let (mut total, mut weighted, mut cheapest) = (0.0, 0.0, f64::INFINITY);
            for e in self.entering(p) {
                let via = out[self.tail_pos[e] as usize] + cost[self.link[e] as usize];
                total += self.flow[e];
                weighted += self.flow[e] * via;
                cheapest = cheapest.min(via);
            }
            out[p] = if total > 0.0 { weighted / total } else { cheapest };
        }
    }

    /// Sends `node_flow` (per position: the demand ending there) back to the root in the bush's
    /// shares, writing each bush link's flow into `link_flow` (one per bush link). `node_flow` is
    /// consumed (it accumulates what passes through each node).
    fn push_back(&self, node_flow: &mut [f64], link_flow: &mut Vec<f64>) {
        link_flow.clear();
        link_flow.resize(self.link.len(), 0.0);
        for p in (1..self.nodes.len()).rev() {
            let through = node_flow[p];
            if through == 0.0 {
                continue;
            }
            let entering = self.entering(p);
            let total: f64 = self.flow[entering.clone()].iter().sum();
            if total > 0.0 {
                for e in entering {
                    let f = through * (self.flow[e] / total);
                    link_flow[e] = f;
                    node_flow[self.tail_pos[e] as usize] += f;
                }
            } else {
                // Unreachable for demand with the bush's own pairs (every destination with demand
                // receives flow); kept total-preserving all the same, along the first in-link.
                let e = entering.start;
                link_flow[e] = through;
                node_flow[self.tail_pos[e] as usize] += through;
            }
        }
    }

    /// Per position, the values of this origin's destinations (`dests`, network node ids) put there.
    fn at_destinations(&self, pos: &[u32], dests: &[u32], values: &[f64], out: &mut Vec<f64>) {
        out.clear();
        out.resize(self.nodes.len(), 0.0);
        for (&d, &v) in dests.iter().zip(values) {
            let p = pos[d as usize];
            debug_assert_ne!(p, NONE, "a destination outside its origin's bush");
            out[p as usize] += v;
        }
    }

    /// Fills `pos` (per network node) with this bush's positions.
    pub(super) fn mark_positions(&self, pos: &mut [u32]) {
        for (p, &v) in self.nodes.iter().enumerate() {
            pos[v as usize] = p as u32;
        }
    }

    pub(super) fn clear_positions(&self, pos: &mut [u32]) {
        for &v in &self.nodes {
            pos[v as usize] = NONE;
        }
    }
}

impl BushSolver {
    /// For every OD pair of class `class`'s `demand` (in [`Demand::pairs`] order), the mean of
    /// `link_cost` (network link order) over the pair's routes, weighted by the routes' flows.
    pub(crate) fn od_mean_costs(
        &self,
        net: &Network,
        class: usize,
        demand: &Demand,
        link_cost: &[f64],
    ) -> Vec<f64> {
        let cost = self.topo.to_internal_order(link_cost);
        let n = net.num_nodes();
        let per_origin: Vec<Vec<f64>> = self
            .class_bushes(class)
            .par_iter()
            .enumerate()
            .map_init(
                || (vec![NONE; n], Vec::new()),
                |(pos, mean), (i, bush)| {
                    bush.mean_costs(&cost, mean);
                    bush.mark_positions(pos);
                    let (dests, _) = demand.from_origin(i);
                    let row = dests.iter().map(|&d| mean[pos[d as usize] as usize]).collect();
                    bush.clear_positions(pos);
                    row
                },
            )
            .collect();
        per_origin.concat()
    }

    /// The link flows (network order) of `values` per OD pair of class `class`'s `demand` (in
    /// [`Demand::pairs`] order) sent along the class's current routes in their current shares: with
    /// the pairs' demand changes, the derivative of the class's link flows (vehicles) along that change.
    pub(crate) fn route_flows(
        &self,
        net: &Network,
        class: usize,
        demand: &Demand,
        values: &[f64],
    ) -> Vec<f64> {
        let n = net.num_nodes();
        let m = net.num_links();
        let starts = row_starts(demand);
        // Bushes in fixed chunks, each summed in order, the chunks then added in order: the same sums
        // whatever the thread count or the scheduling.
        let chunks: Vec<Vec<f64>> = self
            .class_bushes(class)
            .par_chunks(SUM_CHUNK)
            .enumerate()
            .map(|(c, chunk)| {
                let (mut x, mut pos, mut node_flow, mut link_flow) =
                    (vec![0.0; m], vec![NONE; n], Vec::new(), Vec::new());
                for (k, bush) in chunk.iter().enumerate() {
                    let i = c * SUM_CHUNK + k;
                    let (dests, _) = demand.from_origin(i);
                    bush.mark_positions(&mut pos);
                    bush.at_destinations(&pos, dests, &values[starts[i]..starts[i + 1]], &mut node_flow);
                    bush.clear_positions(&mut pos);
                    bush.push_back(&mut node_flow, &mut link_flow);
                    for (&a, &f) in bush.link.iter().zip(link_flow.iter()) {
                        x[a as usize] += f;
                    }
                }
                x
            })
            .collect();
        let mut total = vec![0.0; m];
        for x in &chunks {
            total.iter_mut().zip(x).for_each(|(s, v)| *s += v);
        }
        self.topo.to_network_order(&total)
    }

    /// Puts `demands` (one per class, the same pairs as its bushes were built for, other flows) on the
    /// bushes along their current routes in their current shares: the warm start of an equilibrium
    /// after the demand changed.
    pub(crate) fn reload(&mut self, net: &Network, demands: &[&Demand]) {
        let n = net.num_nodes();
        let starts = &self.class_starts;
        self.bushes.par_iter_mut().enumerate().for_each_init(
            || (vec![NONE; n], Vec::new(), Vec::new()),
            |(pos, node_flow, link_flow), (b, bush)| {
                let class = bush.class as usize;
                let (dests, flows) = demands[class].from_origin(b - starts[class]);
                bush.mark_positions(pos);
                bush.at_destinations(pos, dests, flows, node_flow);
                bush.clear_positions(pos);
                bush.push_back(node_flow, link_flow);
                std::mem::swap(&mut bush.flow, link_flow);
            },
        );
        self.refresh(net);
    }
}

/// Bushes per partial sum of [`BushSolver::route_flows`]: few enough partial vectors (Philadelphia's
/// 1,525 origins: 24 × its links), enough chunks to keep every thread busy.
pub(super) const SUM_CHUNK: usize = 64;

/// Where each origin's pairs start in [`Demand::pairs`] order (one more entry than origins).
pub(super) fn row_starts(demand: &Demand) -> Vec<usize> {
    let mut starts = Vec::with_capacity(demand.num_origins() + 1);
    starts.push(0);
    for i in 0..demand.num_origins() {
        starts.push(starts[i] + demand.from_origin(i).0.len());
    }
    starts
}
