//! All-or-nothing loading on the CPU: one shortest-path tree per origin (Dijkstra on f64 costs, zones
//! not passed through), demand accumulated bottom-up along the tree.
//!
//! Origins are split into a fixed number of contiguous blocks whatever the thread count; each block sums
//! its loads in origin order and the blocks are added in block order, so the result is bit-identical on
//! 1 or 64 threads.

use algos_sssp::cpu::queue::IndexedHeap;
use algos_sssp::cpu::search::{OutArcs, Settle, Workspace as SearchSpace, dijkstra_search};
use rayon::prelude::*;

use crate::demand::Demand;
use crate::error::TapError;
use crate::network::Network;

/// Number of origin blocks (independent of the thread count, for determinism).
const BLOCKS: usize = 64;

/// The network's forward star with per-arc heads, ready for repeated searches.
#[derive(Debug, Clone)]
pub(crate) struct SearchGraph {
    offsets: Vec<u32>,
    heads: Vec<u32>,
    links: Vec<u32>,
    tails: Vec<u32>,
    /// Whether a node may be expanded when it is not the origin.
    through: Vec<bool>,
}

impl SearchGraph {
    pub(crate) fn new(net: &Network, block_zones: bool) -> Self {
        let links: Vec<u32> = net.out_link_ids().to_vec();
        let heads = links.iter().map(|&a| net.links()[a as usize].to).collect();
        let tails = net.links().iter().map(|l| l.from).collect();
        let through = if block_zones { net.through().to_vec() } else { vec![true; net.num_nodes()] };
        Self { offsets: net.out_offsets().to_vec(), heads, links, tails, through }
    }

    pub(crate) fn num_nodes(&self) -> usize {
        self.through.len()
    }
}

/// Per-thread reusable state of one shortest-path tree.
pub(crate) struct Workspace {
    pub(crate) dist: Vec<f64>,
    /// Nodes in the order they were settled.
    pub(crate) order: Vec<u32>,
    /// Demand still to be carried from each node towards the origin; also marks destinations.
    node_flow: Vec<f64>,
    /// The search's queue (an indexed heap: as small as the frontier), the link that reached each
    /// node, and the nodes labelled (to reset after the tree).
    search: SearchSpace<f64, IndexedHeap<f64>>,
}

impl Workspace {
    pub(crate) fn new(n: usize) -> Self {
        Self {
            dist: vec![f64::INFINITY; n],
            order: Vec::with_capacity(n),
            node_flow: vec![0.0; n],
            search: SearchSpace::new(IndexedHeap::new(n)).with_predecessors(n).with_touched(),
        }
    }

    /// The link that reached each node (`u32::MAX`: the origin, or not reached).
    pub(crate) fn pred(&self) -> &[u32] {
        self.search.pred()
    }
}

/// What one block of origins produced: link loads, its SPTT share, and the demand that found no path
/// as `(origin node, destination node, flow)` (internal node indices).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BlockLoad {
    /// Loads per link, this block's origins only.
    pub y: Vec<f64>,
    /// `Σ d κ` over this block's pairs.
    pub sptt: f64,
    /// Pairs without a path.
    pub unreachable: Vec<(u32, u32, f64)>,
    /// Seconds this block took (measured while other blocks ran beside it): what a distributed loader
    /// balances its block ranges by.
    pub seconds: f64,
}

/// Block loads added up in block order, the one order every loader (threads, processes, ranks) uses,
/// so any split of the blocks gives the same bits as one process: start from [`LoadSum::new`], [`add`]
/// blocks `0, 1, 2, …` (or another process's running sum, then the later blocks), then [`finish`].
///
/// [`add`]: LoadSum::add
/// [`finish`]: LoadSum::finish
#[derive(Debug, Clone, PartialEq)]
pub struct LoadSum {
    /// Loads per link so far.
    pub y: Vec<f64>,
    /// SPTT so far.
    pub sptt: f64,
    /// Demand without a path so far.
    pub unreachable: Unreachable,
}

/// Demand without a path, summed in block order: what the error reports.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Unreachable {
    /// Number of OD pairs.
    pub pairs: usize,
    /// Their total flow.
    pub flow: f64,
    /// The first pair, as internal node indices (origin, destination).
    pub first: Option<(u32, u32)>,
}

impl LoadSum {
    /// Nothing added yet, for `m` links.
    pub fn new(m: usize) -> Self {
        Self { y: vec![0.0; m], sptt: 0.0, unreachable: Unreachable::default() }
    }

    /// Adds the next block.
    pub fn add(&mut self, b: &BlockLoad) {
        for (t, v) in self.y.iter_mut().zip(&b.y) {
            *t += v;
        }
        self.sptt += b.sptt;
        for &(o, d, f) in &b.unreachable {
            let u = &mut self.unreachable;
            u.pairs += 1;
            u.flow += f;
            u.first.get_or_insert((o, d));
        }
    }

    /// The loads into `y` and SPTT, or the error naming the first pair without a path.
    pub fn finish(self, net: &Network, y: &mut [f64]) -> Result<f64, TapError> {
        if let Some((o, d)) = self.unreachable.first {
            return Err(TapError::DemandUnreachable {
                pairs: self.unreachable.pairs,
                flow: self.unreachable.flow,
                origin: net.node_id(o),
                destination: net.node_id(d),
            });
        }
        y.copy_from_slice(&self.y);
        Ok(self.sptt)
    }
}

/// Number of origin blocks of `demand` (`BLOCKS` or fewer): the unit a loader splits work by.
pub fn origin_blocks(demand: &Demand) -> usize {
    let origins = demand.num_origins();
    origins.div_ceil(origins.div_ceil(BLOCKS).max(1))
}

/// An arc of the forward star with its current cost, packed so a node's arcs are read as one stream.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Arc {
    cost: f64,
    head: u32,
    link: u32,
}

/// One origin: tree, SPTT contribution, loads added to `y`. `arcs` is in forward-star order.
fn load_origin(
    g: &SearchGraph,
    arcs: &[Arc],
    origin: u32,
    dests: &[u32],
    flows: &[f64],
    ws: &mut Workspace,
    out: &mut BlockLoad,
) {
    for (&d, &f) in dests.iter().zip(flows) {
        ws.node_flow[d as usize] = f;
    }
    search(g, arcs, origin, ws, dests.len());
    finish_origin(g, origin, dests, flows, ws, out);
}

/// The search graph's arcs at one set of costs: what [`dijkstra_search`] relaxes (arc ids are links).
struct CostedArcs<'a> {
    g: &'a SearchGraph,
    arcs: &'a [Arc],
}

impl OutArcs<f64> for CostedArcs<'_> {
    #[inline]
    fn for_each_out(&self, v: u32, mut relax: impl FnMut(u32, f64, u32)) {
        let g = self.g;
        for arc in &self.arcs[g.offsets[v as usize] as usize..g.offsets[v as usize + 1] as usize] {
            relax(arc.head, arc.cost, arc.link);
        }
    }
}

/// Dijkstra from `origin`, settling into `ws.order` with link predecessors in `ws.pred()`; stops once
/// `remaining` destinations (nodes with `node_flow > 0`) are settled (`usize::MAX`: never). Zones other
/// than the origin are settled but not passed through when the graph blocks them.
pub(crate) fn search(g: &SearchGraph, arcs: &[Arc], origin: u32, ws: &mut Workspace, mut remaining: usize) {
    let Workspace { dist, order, node_flow, search } = ws;
    dijkstra_search(&CostedArcs { g, arcs }, origin, dist, search, |v, _| {
        order.push(v);
        if node_flow[v as usize] > 0.0 && v != origin {
            remaining -= 1;
            if remaining == 0 {
                return Settle::Stop;
            }
        }
        if v != origin && !g.through[v as usize] {
            return Settle::Skip;
        }
        Settle::Expand
    });
}

/// SPTT contribution, unreachable pairs and loads of one searched origin; resets the workspace.
fn finish_origin(
    g: &SearchGraph,
    origin: u32,
    dests: &[u32],
    flows: &[f64],
    ws: &mut Workspace,
    out: &mut BlockLoad,
) {
    accumulate(g, origin, dests, flows, ws, out);
    ws.reset();
}

/// SPTT contribution, unreachable pairs and loads of one origin's searched tree (destinations' demand
/// already in `ws.node_flow`); leaves the tree in the workspace for another demand.
fn accumulate(
    g: &SearchGraph,
    origin: u32,
    dests: &[u32],
    flows: &[f64],
    ws: &mut Workspace,
    out: &mut BlockLoad,
) {
    for (&d, &f) in dests.iter().zip(flows) {
        let dd = ws.dist[d as usize];
        if dd.is_finite() {
            out.sptt += f * dd;
        } else {
            out.unreachable.push((origin, d, f));
            ws.node_flow[d as usize] = 0.0;
        }
    }
    // Leaves first: every node's demand moves onto its tree link and on to the link's tail.
    for &v in ws.order.iter().rev() {
        let f = ws.node_flow[v as usize];
        if f != 0.0 && v != origin {
            let a = ws.pred()[v as usize] as usize;
            out.y[a] += f;
            ws.node_flow[g.tails[a] as usize] += f;
        }
        ws.node_flow[v as usize] = 0.0;
    }
}

impl Workspace {
    pub(crate) fn reset(&mut self) {
        self.search.reset(&mut self.dist);
        self.order.clear();
    }
}

pub(crate) fn arcs_at(g: &SearchGraph, costs: &[f64]) -> Vec<Arc> {
    g.heads
        .iter()
        .zip(&g.links)
        .map(|(&head, &link)| Arc { cost: costs[link as usize], head, link })
        .collect()
}

/// All-or-nothing loads `y` (one per link) at link costs `costs`, and the shortest-path total
/// `SPTT = Σ_od d_od κ_od`.
pub(crate) fn all_or_nothing(
    net: &Network,
    g: &SearchGraph,
    demand: &Demand,
    costs: &[f64],
    y: &mut [f64],
) -> Result<f64, TapError> {
    let mut sum = LoadSum::new(y.len());
    for b in block_loads(g, demand, costs, 0..origin_blocks(demand), y.len()) {
        sum.add(&b);
    }
    sum.finish(net, y)
}

/// The loads of origin blocks `blocks` (of [`origin_blocks`]), each summed in origin order, computed in
/// parallel; `m` links.
pub(crate) fn block_loads(
    g: &SearchGraph,
    demand: &Demand,
    costs: &[f64],
    blocks: std::ops::Range<usize>,
    m: usize,
) -> Vec<BlockLoad> {
    let arcs = arcs_at(g, costs);
    let origins = demand.num_origins();
    let per_block = origins.div_ceil(BLOCKS).max(1);
    blocks
        .into_par_iter()
        .map_init(
            || Workspace::new(g.num_nodes()),
            |ws, b| {
                let t = std::time::Instant::now();
                let mut out = BlockLoad { y: vec![0.0; m], ..Default::default() };
                for i in b * per_block..((b + 1) * per_block).min(origins) {
                    let (dests, flows) = demand.from_origin(i);
                    load_origin(g, &arcs, demand.origins()[i], dests, flows, ws, &mut out);
                }
                out.seconds = t.elapsed().as_secs_f64();
                out
            },
        )
        .collect()
}

/// The demand that found no path, as an error naming the first pair.
fn unreachable_error(net: &Network, unreachable: &[(u32, u32, f64)]) -> Result<(), TapError> {
    match unreachable.first() {
        Some(&(o, d, _)) => Err(TapError::DemandUnreachable {
            pairs: unreachable.len(),
            flow: unreachable.iter().map(|u| u.2).sum(),
            origin: net.node_id(o),
            destination: net.node_id(d),
        }),
        None => Ok(()),
    }
}

/// A full shortest-path tree per origin at link costs `costs` (zones not passed through), handed to
/// `f(origin, dist, pred_link, settle_order)` on rayon's threads; results in `origins` order.
pub(crate) fn map_trees<R: Send>(
    g: &SearchGraph,
    costs: &[f64],
    origins: &[u32],
    f: impl Fn(u32, &[f64], &[u32], &[u32]) -> R + Sync,
) -> Vec<R> {
    let arcs = arcs_at(g, costs);
    origins
        .par_iter()
        .map_init(
            || Workspace::new(g.num_nodes()),
            |ws, &origin| {
                search(g, &arcs, origin, ws, usize::MAX);
                let r = f(origin, &ws.dist, ws.pred(), &ws.order);
                ws.reset();
                r
            },
        )
        .collect()
}

/// All-or-nothing loads of several demands that share the link costs `costs` (classes with the same
/// costs): one full tree per origin of any demand, each demand loaded along it. Origins are blocked and
/// summed as in [`all_or_nothing`], so a demand whose origins are the union gets the same bits.
pub(crate) fn all_or_nothing_shared(
    net: &Network,
    g: &SearchGraph,
    demands: &[&Demand],
    costs: &[f64],
    ys: &mut [Vec<f64>],
) -> Result<Vec<f64>, TapError> {
    let arcs = arcs_at(g, costs);
    let mut origins: Vec<u32> = demands.iter().flat_map(|d| d.origins().iter().copied()).collect();
    origins.sort_unstable();
    origins.dedup();
    let per_block = origins.len().div_ceil(BLOCKS).max(1);
    let m = net.num_links();
    let blocks: Vec<Vec<BlockLoad>> = (0..origins.len().div_ceil(per_block))
        .into_par_iter()
        .map_init(
            || Workspace::new(g.num_nodes()),
            |ws, b| {
                let mut outs: Vec<BlockLoad> =
                    demands.iter().map(|_| BlockLoad { y: vec![0.0; m], ..Default::default() }).collect();
                for &o in &origins[b * per_block..((b + 1) * per_block).min(origins.len())] {
                    search(g, &arcs, o, ws, usize::MAX);
                    for (d, out) in demands.iter().zip(outs.iter_mut()) {
                        if let Ok(i) = d.origins().binary_search(&o) {
                            let (dests, flows) = d.from_origin(i);
                            for (&dd, &f) in dests.iter().zip(flows) {
                                ws.node_flow[dd as usize] = f;
                            }
                            accumulate(g, o, dests, flows, ws, out);
                        }
                    }
                    ws.reset();
                }
                outs
            },
        )
        .collect();
    let mut sptt = vec![0.0; demands.len()];
    let mut unreachable = Vec::new();
    for y in ys.iter_mut() {
        y.iter_mut().for_each(|v| *v = 0.0);
    }
    for block in blocks {
        for (k, b) in block.into_iter().enumerate() {
            for (t, v) in ys[k].iter_mut().zip(&b.y) {
                *t += v;
            }
            sptt[k] += b.sptt;
            unreachable.extend(b.unreachable);
        }
    }
    unreachable_error(net, &unreachable)?;
    Ok(sptt)
}
