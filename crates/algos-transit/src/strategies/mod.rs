//! Frequency-based transit assignment by optimal strategies (Spiess & Florian 1989), as Emme, Visum,
//! Cube and AequilibraE run it.
//!
//! A traveller waiting at a stop boards the first vehicle of an *attractive set* of lines; the set at
//! every vertex is the one minimising the expected time to the destination. Per destination:
//!
//! 1. **Strategy** (backward label setting): `u_dest = 0`; edges `a = (i, j)` are examined in increasing
//!    `u_j + c_a`; an edge is attractive when `u_i ≥ u_j + c_a`, and then
//!    `u_i = (F_i u_i + f_a (u_j + c_a)) / (F_i + f_a)`, `F_i += f_a` (the first edge:
//!    `u_i = 1/f_a + u_j + c_a`; an edge without wait, `f_a = ∞`: `u_i = u_j + c_a`, and after it only
//!    edges without wait of exactly the same cost join, sharing the travellers equally). Travel times
//!    below [`TIME_FLOOR`] count as it. Both rules are AequilibraE's (its 1e20 stand-in for an infinite
//!    frequency splits such ties equally), so volumes agree with it on graphs full of ties, such as
//!    walking on a grid.
//! 2. **Loading** (forward): every origin's demand to the destination enters at its vertex; vertices in
//!    decreasing `u` pass their travellers on over their attractive edges in shares `f_a / F_i`.
//! 3. **Skims** (the same shares): expected in-vehicle, waiting and walking time and boardings.
//!
//! Destinations run in parallel (rayon), in fixed blocks whose volumes are added in block order: the
//! results are the same bits on any number of threads. Everything is f64; times and frequencies in the
//! user's units (e.g. seconds and 1/s).
//!
//! ```
//! use urbanflow::transit::strategies::{HyperpathGraph, StrategyOptions, TransitDemand, Zones, assign};
//! let inf = f64::INFINITY;
//! // From vertex 0 to vertex 1: line A every 10 min (boarding edge 0 → 2, ride 15 min) or line B
//! // every 5 min (0 → 3, ride 20 min). Times in minutes, frequencies per minute.
//! let g = HyperpathGraph::from_edges(
//!     4,
//!     &[(0, 2, 0.0, 0.1), (2, 1, 15.0, inf), (0, 3, 0.0, 0.2), (3, 1, 20.0, inf)],
//! )?;
//! let zones = Zones::every_vertex(&g);
//! let demand = TransitDemand::new(&zones, [(0, 1, 30.0)])?;
//! let r = assign(&g, &zones, &demand, &StrategyOptions { skims: true, ..Default::default() }, &|_, _| {})?;
//! // Both lines are attractive: a third of the travellers take A, two thirds B.
//! assert!((r.volumes[1] - 10.0).abs() < 1e-9 && (r.volumes[3] - 20.0).abs() < 1e-9);
//! // Expected time: 1 / (0.1 + 0.2) min of wait, then (0.1 · 15 + 0.2 · 20) / 0.3 min of ride.
//! let skims = r.skims.unwrap();
//! assert!((skims.total[0 * 4 + 1] - (10.0 / 3.0 + 55.0 / 3.0)).abs() < 1e-9);
//! # Ok::<(), urbanflow::transit::TdError>(())
//! ```

pub mod auto;
pub mod congested;
mod demand;
mod destination;
pub mod gpu;
mod graph;
mod gtfs;
mod table;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use rayon::prelude::*;

pub use congested::{
    CongestedAssignment, CongestedIteration, CongestionOptions, MIN_FREQUENCY_SHARE, assign_congested,
    effective_frequency, line_capacities, line_capacities_by_line, read_vehicle_capacities,
};
pub use demand::{TransitDemand, Zones, read_zone_points};
pub use destination::TIME_FLOOR;
pub use graph::{EdgeKind, HyperpathGraph};
pub use gtfs::{GtfsGraph, GtfsGraphOptions, graph_from_gtfs};

use crate::TdError;
use destination::Workspace;

/// Destinations per block: each block is solved on one thread into its own volume vector, and the
/// blocks' vectors are added in block order (the same bits on any thread count).
const BLOCK: usize = 8;

/// Options of [`assign`].
#[derive(Debug, Clone, Copy, Default)]
pub struct StrategyOptions {
    /// Compute the skims (expected times and boardings) between every pair of zones; every zone is then
    /// a destination, not only those with demand.
    pub skims: bool,
    /// Assign what can be assigned when a zone with demand has no edge out of its origin vertex or into
    /// its destination vertex, and report the rest as unassigned; refused otherwise.
    pub allow_unconnected: bool,
}

/// Zone-to-zone skims, row-major (origin zone × destination zone, in the order of [`Zones`]). Where a
/// destination cannot be reached every value is ∞; a zone to itself is 0.
#[derive(Debug, Clone, PartialEq)]
pub struct TransitSkims {
    /// Number of zones.
    pub zones: usize,
    /// Expected total time: the strategy's cost `u` at the origin.
    pub total: Vec<f64>,
    /// Expected time on board (on-board and dwell edges).
    pub in_vehicle: Vec<f64>,
    /// Expected wait (1 / combined frequency at every stop, weighted by the share passing there).
    pub waiting: Vec<f64>,
    /// Expected walking time (walking, transfer between stops, connector edges).
    pub walking: Vec<f64>,
    /// Expected number of boardings (edges with a finite frequency taken).
    pub boardings: Vec<f64>,
}

/// What [`assign`] returns.
#[derive(Debug, Clone, PartialEq)]
pub struct StrategyAssignment {
    /// Volume on each edge, in the graph's edge order.
    pub volumes: Vec<f64>,
    /// The skims, when asked for.
    pub skims: Option<TransitSkims>,
    /// Trips loaded onto the graph.
    pub assigned: f64,
    /// Trips from a zone to itself (not loaded).
    pub intrazonal: f64,
    /// Trips that cannot reach their destination (and pairs of zones they are in): zones without
    /// connectors (with [`StrategyOptions::allow_unconnected`]) or no path.
    pub unassigned: f64,
    /// Zone pairs of `unassigned`.
    pub unassigned_pairs: usize,
    /// Destinations solved.
    pub destinations: usize,
    /// Seconds of the whole call.
    pub seconds: f64,
}

/// Assigns `demand` between `zones` of `g` by optimal strategies, calling `progress(done, total)` as
/// destinations finish (from any thread). See the [module](self) for the method.
pub fn assign(
    g: &HyperpathGraph,
    zones: &Zones,
    demand: &TransitDemand,
    opts: &StrategyOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<StrategyAssignment, TdError> {
    let start = Instant::now();
    let nz = zones.len();
    let Grouped { by_dest, intrazonal, mut unassigned, mut unassigned_pairs } =
        group_by_destination(g, zones, demand, opts)?;
    let dests: Vec<usize> = (0..nz).filter(|&d| opts.skims || !by_dest[d].is_empty()).collect();
    let done = AtomicUsize::new(0);
    // One block: its volumes, its skim columns (destination, per origin zone), its unreached trips.
    struct Block {
        volumes: Vec<f64>,
        columns: Vec<(usize, Vec<[f64; 5]>)>,
        unreached: f64,
        unreached_pairs: usize,
    }
    let blocks: Vec<Block> = dests
        .par_chunks(BLOCK)
        .map(|chunk| {
            let mut ws = Workspace::new(g);
            let mut block = Block {
                volumes: vec![0.0; g.num_edges()],
                columns: Vec::new(),
                unreached: 0.0,
                unreached_pairs: 0,
            };
            let mut origins = Vec::new();
            for &d in chunk {
                let dv = zones.destination(d);
                ws.strategy(g, dv);
                origins.clear();
                for &(ov, trips) in &by_dest[d] {
                    if ws.u[ov as usize].is_finite() {
                        origins.push((ov, trips));
                    } else {
                        block.unreached += trips;
                        block.unreached_pairs += 1;
                    }
                }
                ws.load(g, &origins, &mut block.volumes);
                if opts.skims {
                    ws.expectations(g, dv);
                    let column = (0..nz)
                        .map(|o| {
                            let ov = zones.origin(o);
                            if o == d {
                                [0.0; 5]
                            } else if !ws.u[ov as usize].is_finite() {
                                [f64::INFINITY; 5]
                            } else {
                                let e = ws.expect[ov as usize];
                                [ws.u[ov as usize], e.in_vehicle, ws.waiting_at(ov), e.walking, e.boardings]
                            }
                        })
                        .collect();
                    block.columns.push((d, column));
                }
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                progress(n, dests.len());
            }
            block
        })
        .collect();
    let mut volumes = vec![0.0; g.num_edges()];
    let mut skims = opts.skims.then(|| TransitSkims {
        zones: nz,
        total: vec![0.0; nz * nz],
        in_vehicle: vec![0.0; nz * nz],
        waiting: vec![0.0; nz * nz],
        walking: vec![0.0; nz * nz],
        boardings: vec![0.0; nz * nz],
    });
    for b in &blocks {
        for (v, x) in volumes.iter_mut().zip(&b.volumes) {
            *v += x;
        }
        unassigned += b.unreached;
        unassigned_pairs += b.unreached_pairs;
        if let Some(s) = &mut skims {
            for (d, column) in &b.columns {
                for (o, vals) in column.iter().enumerate() {
                    let k = o * nz + d;
                    s.total[k] = vals[0];
                    s.in_vehicle[k] = vals[1];
                    s.waiting[k] = vals[2];
                    s.walking[k] = vals[3];
                    s.boardings[k] = vals[4];
                }
            }
        }
    }
    Ok(StrategyAssignment {
        volumes,
        skims,
        assigned: demand.total() - intrazonal - unassigned,
        intrazonal,
        unassigned,
        unassigned_pairs,
        destinations: dests.len(),
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Demand by destination zone, each origin as `(vertex, trips)`, with the trips that are not loaded.
pub(crate) struct Grouped {
    pub by_dest: Vec<Vec<(u32, f64)>>,
    pub intrazonal: f64,
    pub unassigned: f64,
    pub unassigned_pairs: usize,
}

/// Groups `demand` by destination zone; intrazonal trips apart; zones with demand but no connector
/// refused (listed), or with [`StrategyOptions::allow_unconnected`] counted as unassigned.
pub(crate) fn group_by_destination(
    g: &HyperpathGraph,
    zones: &Zones,
    demand: &TransitDemand,
    opts: &StrategyOptions,
) -> Result<Grouped, TdError> {
    let nz = zones.len();
    // Demand by destination zone, each origin as (vertex, trips); intrazonal trips apart.
    let mut by_dest: Vec<Vec<(u32, f64)>> = vec![Vec::new(); nz];
    let mut intrazonal = 0.0;
    let (mut out_degree, mut in_degree) =
        (vec![0u32; g.num_vertices() as usize], vec![0u32; g.num_vertices() as usize]);
    for e in 0..g.num_edges() {
        let (t, h, _, _) = g.edge(e);
        out_degree[t as usize] += 1;
        in_degree[h as usize] += 1;
    }
    let mut unconnected = Vec::new();
    let (mut unassigned, mut unassigned_pairs) = (0.0, 0usize);
    for &(o, d, trips) in &demand.pairs {
        let (o, d) = (o as usize, d as usize);
        if o == d {
            intrazonal += trips;
            continue;
        }
        let (ov, dv) = (zones.origin(o), zones.destination(d));
        let missing = [(out_degree[ov as usize] == 0, o), (in_degree[dv as usize] == 0, d)];
        if let Some(&(_, z)) = missing.iter().find(|m| m.0) {
            if !unconnected.contains(&zones.id(z)) {
                unconnected.push(zones.id(z));
            }
            unassigned += trips;
            unassigned_pairs += 1;
            continue;
        }
        by_dest[d].push((ov, trips));
    }
    if !unconnected.is_empty() && !opts.allow_unconnected {
        unconnected.sort_unstable();
        let shown: Vec<String> = unconnected.iter().take(10).map(i64::to_string).collect();
        return Err(TdError::InvalidParameter(format!(
            "{} zones with demand have no connector to the graph (zones {}{}): {unassigned} trips could not be \
             assigned; connect them, or allow unconnected zones to assign the rest",
            unconnected.len(),
            shown.join(", "),
            if unconnected.len() > 10 { ", …" } else { "" }
        )));
    }
    Ok(Grouped { by_dest, intrazonal, unassigned, unassigned_pairs })
}
