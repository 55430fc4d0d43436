//! Skims: zone-to-zone matrices of travel time, distance, toll and generalised cost along the shortest
//! paths at given link costs (after an assignment: the equilibrium's), and the route of one pair.
//!
//! Paths are the trees the all-or-nothing loader builds (Dijkstra on the generalised link costs, zones
//! not passed through); each attribute is summed from the origin outwards along the tree, so an entry
//! equals the attribute summed link by link along [`shortest_path`]'s route, in route order.

use std::io::{self, Write};
use std::path::Path;

use graph_core::io::create_text;

use crate::aon::{SearchGraph, map_trees};
use crate::error::TapError;
use crate::network::Network;

/// Zone-to-zone matrices, row-major (`[o * zones + d]`, dense zone indices `0..zones`). Unreachable
/// pairs hold infinity.
#[derive(Debug, Clone, PartialEq)]
pub struct Skims {
    /// Number of zones (the network's first nodes).
    pub zones: usize,
    /// Travel time at the flows given (the volume-delay functions' times, no toll or distance terms).
    pub time: Vec<f64>,
    /// Link length.
    pub distance: Vec<f64>,
    /// Toll.
    pub toll: Vec<f64>,
    /// The generalised cost the paths minimise (the costs given).
    pub cost: Vec<f64>,
}

/// Skims at link `flows` and generalised link `costs` (pass an [`crate::Assignment`]'s `flows` and
/// `costs`).
///
/// ```
/// use urbanflow::tap::{AssignOptions, CostFactors, Demand, Link, Network, assign, skim::skims};
/// let link = |from, to, t0| Link { from, to, capacity: 10.0, length: 2.0, free_flow_time: t0, b: 0.15, power: 4.0, toll: 0.0 };
/// let net = Network::new(3, &[link(0, 2, 1.0), link(2, 1, 1.0), link(0, 1, 2.5)], 2, CostFactors::default()).unwrap();
/// let demand = Demand::from_pairs(&net, [(0, 1, 30.0)]).unwrap();
/// let r = assign(&net, &demand, &AssignOptions::default()).unwrap();
/// let s = skims(&net, &r.flows, &r.costs).unwrap();
/// assert_eq!(s.zones, 2);
/// assert!((s.cost[1] - s.time[1]).abs() < 1e-12); // no toll or distance factors
/// ```
pub fn skims(net: &Network, flows: &[f64], costs: &[f64]) -> Result<Skims, TapError> {
    let m = net.num_links();
    if flows.len() != m || costs.len() != m {
        return Err(TapError::InvalidOption(format!(
            "skims need one flow and one cost per link ({m}), got {} and {}",
            flows.len(),
            costs.len()
        )));
    }
    let mut times = vec![0.0; m];
    net.vdf().times(flows, &mut times);
    let lengths: Vec<f64> = net.links().iter().map(|l| l.length).collect();
    let tolls: Vec<f64> = net.links().iter().map(|l| l.toll).collect();
    let z = net.num_zones() as usize;
    let g = SearchGraph::new(net, true);
    let origins: Vec<u32> = (0..z as u32).collect();
    let attrs = [&times[..], &lengths[..], &tolls[..], costs];
    let rows = map_trees(&g, costs, &origins, |origin, dist, pred, order| {
        // Per node, the four sums along its tree path; settle order puts a link's tail first.
        let mut acc = vec![[f64::INFINITY; 4]; dist.len()];
        acc[origin as usize] = [0.0; 4];
        for &v in order.iter().filter(|&&v| v != origin) {
            let a = pred[v as usize] as usize;
            let tail = net.links()[a].from as usize;
            let mut sums = acc[tail];
            for (s, attr) in sums.iter_mut().zip(&attrs) {
                *s += attr[a];
            }
            acc[v as usize] = sums;
        }
        acc.truncate(z);
        acc
    });
    let mut out = Skims {
        zones: z,
        time: vec![0.0; z * z],
        distance: vec![0.0; z * z],
        toll: vec![0.0; z * z],
        cost: vec![0.0; z * z],
    };
    for (o, row) in rows.into_iter().enumerate() {
        for (d, [t, l, tl, c]) in row.into_iter().enumerate() {
            let k = o * z + d;
            (out.time[k], out.distance[k], out.toll[k], out.cost[k]) = (t, l, tl, c);
        }
    }
    Ok(out)
}

/// The links (network order indices) of the shortest path from node `origin` to node `destination` at
/// generalised link `costs`, the way [`skims`] and the loader route it; `None` when unreachable. Each
/// call builds its search graph and one tree: for many pairs, [`skims`] sums along shared trees.
pub fn shortest_path(net: &Network, costs: &[f64], origin: u32, destination: u32) -> Option<Vec<usize>> {
    let g = SearchGraph::new(net, true);
    map_trees(&g, costs, &[origin], |_, dist, pred, _| {
        if !dist.get(destination as usize)?.is_finite() {
            return None;
        }
        let mut links = Vec::new();
        let mut v = destination;
        while v != origin {
            let a = pred[v as usize] as usize;
            links.push(a);
            v = net.links()[a].from;
        }
        links.reverse();
        Some(links)
    })
    .pop()
    .flatten()
}

/// Writes skims as CSV: `origin,destination,time,distance,toll,cost` (zones as the file numbers them;
/// unreachable pairs with empty fields). A `.gz` or `.xz` extension compresses.
pub fn write_skims_csv(path: impl AsRef<Path>, net: &Network, s: &Skims) -> io::Result<()> {
    let mut w = create_text(path)?;
    writeln!(w, "origin,destination,time,distance,toll,cost")?;
    let field = |v: f64| if v.is_finite() { v.to_string() } else { String::new() };
    for o in 0..s.zones {
        for d in 0..s.zones {
            let k = o * s.zones + d;
            writeln!(
                w,
                "{},{},{},{},{},{}",
                net.node_id(o as u32),
                net.node_id(d as u32),
                field(s.time[k]),
                field(s.distance[k]),
                field(s.toll[k]),
                field(s.cost[k])
            )?;
        }
    }
    w.flush()
}
