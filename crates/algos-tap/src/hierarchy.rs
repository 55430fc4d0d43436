//! All-or-nothing loading on a customisable contraction hierarchy, on the CPU cores: the GPU loader's
//! fixed-point model ([`crate::fixed`]) with trees from PHAST sweeps instead of Dijkstra.
//!
//! The CCH of the search graph's shape is built once; every call re-customises it for the call's
//! costs (milliseconds on a city), then each rayon task sweeps [`LANES`] origins at once and passes
//! their OD amounts up the trees on the hierarchy's arcs in one rank-ordered pass per batch (no path
//! walks), and the shortcut loads are unpacked to network arcs once per call. Loads are integers,
//! added in any order to the same bits: they equal the GPU's PHAST loader exactly. Among equally short
//! paths the hierarchy's trees may pick others than [`fixed::tap_aon_mirror`](crate::fixed::tap_aon_mirror)'s
//! canonical trees; the shortest-path total `Σ load · cost` is the same.
//!
//! ```
//! use urbanflow::tap::hierarchy::CchAon;
//! use urbanflow::tap::loader::AllOrNothing;
//! use urbanflow::tap::{AssignOptions, CostFactors, Demand, Network, solve::assign_with_loader};
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data");
//! let net = Network::read_tntp(format!("{dir}/SiouxFalls_net.tntp"), CostFactors::default())?;
//! let demand = Demand::read_tntp(format!("{dir}/SiouxFalls_trips.tntp"), &net)?;
//! let mut loader = CchAon::new(&net, &demand, false)?;
//! let result = assign_with_loader(&net, &demand, &AssignOptions::default(), &mut loader, |_| {})?;
//! assert!(result.last().relative_gap <= 1e-4);
//! # Ok::<(), urbanflow::tap::TapError>(())
//! ```

use algos_sssp::cch::Cch;
use algos_sssp::ch::{LANES, PhastWorkspace};

use crate::phast_load::PhastLoad;
use rayon::prelude::*;

use crate::demand::Demand;
use crate::error::TapError;
use crate::fixed::{SplitGraph, Unloaded, fixed_units, link_flows};
use crate::loader::AllOrNothing;
use crate::network::Network;
use crate::vector::dot;

/// The CPU loader on a CCH of one (network, demand) pair's search graph.
#[derive(Debug, Clone)]
pub struct CchAon {
    graph: SplitGraph,
    cch: Cch,
}

impl CchAon {
    /// Builds the search graph and its CCH (nested-dissection order, chordal supergraph).
    pub fn new(net: &Network, demand: &Demand, allow_zone_transit: bool) -> Result<Self, TapError> {
        let graph = SplitGraph::new(net, demand, allow_zone_transit);
        let cch = graph.hierarchy()?;
        Ok(Self { graph, cch })
    }

    /// The split search graph the loads are indexed by.
    pub fn graph(&self) -> &SplitGraph {
        &self.graph
    }

    /// The hierarchy (for its size and preprocessing times).
    pub fn cch(&self) -> &Cch {
        &self.cch
    }

    /// The loader for several demands at once (user classes): one search graph holding every class's
    /// origins, one hierarchy, customised per call for that call's class costs
    /// ([`CchAon::loads_shared`]).
    pub fn for_demands(
        net: &Network,
        demands: &[&Demand],
        allow_zone_transit: bool,
    ) -> Result<Self, TapError> {
        let graph = SplitGraph::for_demands(net, demands, allow_zone_transit);
        let cch = graph.hierarchy()?;
        Ok(Self { graph, cch })
    }

    /// Fixed-point loads per search arc at link costs `costs`: PHAST trees on the re-customised CCH,
    /// OD amounts passed up each tree's hierarchy arcs ([`crate::phast_load`] rules, the GPU's
    /// too), shortcut loads unpacked once at the end. Equal to [`crate::gpu::GpuAon`]'s PHAST loads.
    pub fn loads(&self, net: &Network, demand: &Demand, costs: &[f64]) -> Result<Vec<u64>, TapError> {
        let mut all = self.loads_shared(net, &[demand], costs)?;
        Ok(all.pop().expect("one demand, one load vector"))
    }

    /// Fixed-point loads per search arc of each of `demands` along the same trees at link costs `costs`
    /// (user classes whose costs are equal; an infinite cost is a link they may not take): one
    /// customisation and one sweep per batch of origins, one tree loading per demand. Every demand's
    /// origins must be among those this loader was built for.
    pub fn loads_shared(
        &self,
        net: &Network,
        demands: &[&Demand],
        costs: &[f64],
    ) -> Result<Vec<Vec<u64>>, TapError> {
        let g = &self.graph;
        let customised = g.quantised_with(costs, |weights| self.cch.customise_with_unpacking(weights));
        let (ch, unpacking) = customised?;
        let n = g.num_vertices() as u32;
        let slots = 2 * self.cch.num_edges();
        let kc = demands.len();
        // Per demand: its origin index at each of the graph's origins (None: no trips from there).
        let index: Vec<Vec<Option<usize>>> = demands
            .iter()
            .map(|d| {
                let mut at = vec![None; net.num_nodes()];
                d.origins().iter().enumerate().for_each(|(i, &o)| at[o as usize] = Some(i));
                g.origin_nodes.iter().map(|&o| at[o as usize]).collect()
            })
            .collect();
        let origins: Vec<usize> = (0..g.source.len()).collect();
        let empty = || (vec![vec![0u64; slots]; kc], vec![Unloaded::default(); kc]);
        let (slot_loads, missed) = origins
            .par_chunks(LANES)
            .fold(
                || (PhastWorkspace::new(n), PhastLoad::new(), empty()),
                |(mut ws, mut loader, (mut loads, mut missed)), chunk| {
                    let sources: Vec<u32> = chunk.iter().map(|&j| g.source[j]).collect();
                    ws.sweep_with_parents(&ch, &sources);
                    for (k, demand) in demands.iter().enumerate() {
                        let lanes: Vec<Vec<(u32, u64)>> = chunk
                            .iter()
                            .enumerate()
                            .map(|(lane, &j)| {
                                let Some(i) = index[k][j] else { return Vec::new() };
                                let (dests, flows) = demand.from_origin(i);
                                dests
                                    .iter()
                                    .zip(flows)
                                    .filter(|&(&d, &f)| missed[k].check(i, d, f, ws.label(&ch, d, lane)))
                                    .map(|(&d, &f)| (d, fixed_units(f)))
                                    .collect()
                            })
                            .collect();
                        if lanes.iter().any(|l| !l.is_empty()) {
                            loader.load(&ch, &ws, &lanes, &mut loads[k]);
                        }
                    }
                    (ws, loader, (loads, missed))
                },
            )
            .map(|(_, _, per_demand)| per_demand)
            .reduce(empty, |(mut a, ma), (b, mb)| {
                for (x, y) in a.iter_mut().zip(&b) {
                    x.iter_mut().zip(y).for_each(|(x, y)| *x += y);
                }
                (a, ma.into_iter().zip(mb).map(|(x, y)| x.merge(y)).collect())
            });
        for (m, demand) in missed.into_iter().zip(demands) {
            m.into_result(net, demand)?;
        }
        Ok(slot_loads.into_iter().map(|l| unpacking.arc_loads(l)).collect())
    }
}

impl AllOrNothing for CchAon {
    fn load(
        &mut self,
        net: &Network,
        demand: &Demand,
        costs: &[f64],
        y: &mut [f64],
    ) -> Result<f64, TapError> {
        let loads = self.loads(net, demand, costs)?;
        y.copy_from_slice(&link_flows(&self.graph, &loads, net.num_links()));
        Ok(dot(costs, y))
    }

    fn describe(&self) -> String {
        format!("cpu cch+phast ({} threads)", rayon::current_num_threads())
    }
}
