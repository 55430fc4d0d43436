//! Select-link analysis: which OD pairs' flows use chosen links.
//!
//! Every Frank–Wolfe-family flow is a linear combination of all-or-nothing loadings (the first one,
//! then each step's direction point), so the flow of each OD pair on a link follows the same
//! combinations: each loading also records, per pair, the demand whose tree path uses each selected
//! link, and the solver applies to these pair flows the steps and conjugate combinations it applies to
//! the link flows. Summed over the pairs, a selected link's pair flows equal its link flow.
//!
//! Cost: the recording builds its own tree per origin and loading (the same trees as the loader's), so
//! an analysis roughly doubles the loading time, plus one `f64` per OD pair and selected link for each
//! vector the solver keeps (flows, loading, two direction points).

use crate::aon::{SearchGraph, map_trees};
use crate::demand::Demand;
use crate::error::TapError;
use crate::network::Network;

/// Most links one analysis selects (a bit each in a 64-bit mask per node).
pub const MAX_SELECTED: usize = 64;

/// The OD flows that use one selected link.
#[derive(Debug, Clone, PartialEq)]
pub struct SelectLink {
    /// The link (index in the network's link order).
    pub link: u32,
    /// Flow of each demand pair on the link, in [`Demand::pairs`] order.
    pub pair_flows: Vec<f64>,
}

/// The selected links of a solve and how to load their pair flows.
#[derive(Debug, Clone)]
pub(crate) struct Selection {
    links: Vec<u32>,
    /// Per link: its bit in the masks, or `u8::MAX` when not selected.
    bit: Vec<u8>,
    /// First pair of each origin (in demand order).
    pair_start: Vec<usize>,
    pairs: usize,
}

impl Selection {
    pub(crate) fn new(net: &Network, demand: &Demand, links: &[u32]) -> Result<Self, TapError> {
        if links.len() > MAX_SELECTED {
            return Err(TapError::InvalidOption(format!(
                "select-link analysis takes at most {MAX_SELECTED} links, {} given",
                links.len()
            )));
        }
        let mut bit = vec![u8::MAX; net.num_links()];
        for (k, &a) in links.iter().enumerate() {
            let slot = bit.get_mut(a as usize).ok_or_else(|| {
                TapError::InvalidOption(format!(
                    "select-link: link {a} is not a link (0..{})",
                    net.num_links()
                ))
            })?;
            if *slot != u8::MAX {
                return Err(TapError::InvalidOption(format!("select-link: link {a} is selected twice")));
            }
            *slot = k as u8;
        }
        let mut pair_start = Vec::with_capacity(demand.num_origins() + 1);
        let mut pairs = 0;
        for i in 0..demand.num_origins() {
            pair_start.push(pairs);
            pairs += demand.from_origin(i).0.len();
        }
        Ok(Self { links: links.to_vec(), bit, pair_start, pairs })
    }

    /// Length of the pair-flow vector: one block of pairs per selected link.
    pub(crate) fn len(&self) -> usize {
        self.links.len() * self.pairs
    }

    /// Pair flows of the all-or-nothing loading at `costs` (the trees [`crate::aon`] loads on).
    pub(crate) fn load(&self, net: &Network, g: &SearchGraph, demand: &Demand, costs: &[f64]) -> Vec<f64> {
        let per_origin = map_trees(g, costs, demand.origins(), |origin, _, pred, order| {
            // Which selected links the tree path to each node uses, from the origin outwards.
            let mut mask = vec![0u64; pred.len()];
            for &v in order.iter().filter(|&&v| v != origin) {
                let a = pred[v as usize] as usize;
                let own = match self.bit[a] {
                    u8::MAX => 0,
                    k => 1u64 << k,
                };
                mask[v as usize] = mask[net.links()[a].from as usize] | own;
            }
            mask
        });
        let mut out = vec![0.0; self.len()];
        for (i, mask) in per_origin.iter().enumerate() {
            let (dests, flows) = demand.from_origin(i);
            for (p, (&d, &f)) in dests.iter().zip(flows).enumerate() {
                let mut m = mask[d as usize];
                while m != 0 {
                    let k = m.trailing_zeros() as usize;
                    out[k * self.pairs + self.pair_start[i] + p] += f;
                    m &= m - 1;
                }
            }
        }
        out
    }

    /// The pair-flow vector split per selected link.
    pub(crate) fn finish(&self, flows: Vec<f64>) -> Vec<SelectLink> {
        self.links
            .iter()
            .enumerate()
            .map(|(k, &link)| SelectLink {
                link,
                pair_flows: flows[k * self.pairs..(k + 1) * self.pairs].to_vec(),
            })
            .collect()
    }
}
