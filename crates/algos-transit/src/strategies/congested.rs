//! Congested transit assignment: optimal strategies under *effective frequencies* that fall as a line
//! fills (Cepeda, Cominetti & Florian 2006, "A frequency-based assignment model for congested transit
//! networks with strict capacity constraints", Transportation Research B 40(6)).
//!
//! A traveller waiting at a stop where the vehicles of a line arrive full waits longer: seen from the
//! platform, the line comes less often. For a boarding edge `a` of nominal frequency `μ_a`, with `v_a`
//! boarding it, `v̄_a` on board as the vehicle leaves the stop (those already aboard plus those who
//! board) and a line capacity `z_a` over the demand period,
//!
//! ```text
//! f_a(v) = μ_a · (1 − (v_a / (z_a − v̄_a + v_a))^β)
//! ```
//!
//! `z_a − v̄_a + v_a` is the room the vehicles have when they reach the stop: capacity less the riders
//! who stay on. The frequency is nominal while the line is empty and falls to zero as the boarders fill
//! the room; `β` sets how late it falls (large `β`: nominal until close to capacity). A frequency is
//! kept at least [`MIN_FREQUENCY_SHARE`] of nominal so every strategy keeps a finite cost; a full line
//! then costs a wait of about a million headways, and travellers who have another way take it.
//!
//! **Equilibrium and its gap.** Flows `v` are at equilibrium when every destination's flow follows an
//! optimal strategy under the frequencies `f(v)` they cause. Cepeda et al.'s gap, which is ≥ 0 and zero
//! exactly at equilibrium:
//!
//! ```text
//! G(v) = Σ_a t_a v_a + Σ_d Σ_i max_a (v_a^d / f_a(v)) − Σ_d Σ_i g_i^d τ_i^d(v)
//! ```
//!
//! the flows' travel time, plus their waits (at each vertex the longest `v_a^d / f_a` over its edges
//! with a wait, per destination `d`), less what the optimal strategies `τ` under `f(v)` cost the demand
//! `g`. Reported as a share of the last term (the *relative gap*).
//!
//! **Method of successive averages** (as Cepeda et al. report it on large networks): iteration `k`
//! computes the optimal strategies under `f(v^k)`, loads them (`y^k`), measures `G(v^k)`, stops when the
//! relative gap is at most the target, and otherwise moves `v^{k+1} = v^k + (y^k − v^k)/(k + 1)`
//! (per destination on the edges with a wait, which the gap needs; in total elsewhere). Iteration 0 is
//! the uncongested assignment: with unlimited capacity the result is [`assign`]'s, bit
//! for bit. Everything is f64; destinations run in fixed blocks as in `assign`, so the results are the
//! same bits on any number of threads.
//!
//! ```
//! use urbanflow::transit::strategies::{
//!     CongestionOptions, EdgeKind, HyperpathGraph, StrategyOptions, TransitDemand, Zones, assign_congested,
//! };
//! let inf = f64::INFINITY;
//! // From 0 to 1: line A every 10 min (board at 0, ride 10 min) or line B every 10 min (ride 14 min).
//! // Minutes; frequencies per minute; 60 trips in the hour.
//! let g = HyperpathGraph::from_edges(
//!     4,
//!     &[(0, 2, 0.0, 0.1), (2, 1, 10.0, inf), (0, 3, 0.0, 0.1), (3, 1, 14.0, inf)],
//! )?
//! .with_kinds([EdgeKind::Boarding, EdgeKind::OnBoard, EdgeKind::Boarding, EdgeKind::OnBoard])?;
//! let zones = Zones::every_vertex(&g);
//! let demand = TransitDemand::new(&zones, [(0, 1, 60.0)])?;
//! // Line capacity over the hour: A carries 20 trips, B is unlimited.
//! let capacity = [20.0, inf, inf, inf];
//! let opts = CongestionOptions { max_iterations: 500, relative_gap: 1e-4, ..Default::default() };
//! let r = assign_congested(&g, &zones, &demand, &capacity, &StrategyOptions::default(), &opts, &|_| {})?;
//! assert!(r.converged);
//! // Uncongested, both lines take half; congested, A is full and B takes the rest.
//! assert!(r.assignment.volumes[0] < 20.0 && r.assignment.volumes[2] > 40.0);
//! assert!(r.effective_frequency[0] < 0.1 && r.effective_frequency[2] == 0.1);
//! # Ok::<(), urbanflow::transit::TdError>(())
//! ```

use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;

use super::destination::Workspace;
use super::{
    BLOCK, Grouped, HyperpathGraph, StrategyAssignment, StrategyOptions, TransitDemand, Zones, assign,
    group_by_destination,
};
use crate::TdError;

/// The least effective frequency, as a share of the nominal one: a full line keeps a finite (very
/// long) wait, so that every strategy keeps a finite cost and the gap stays defined.
pub const MIN_FREQUENCY_SHARE: f64 = 1e-6;

/// Options of [`assign_congested`].
#[derive(Debug, Clone, Copy)]
pub struct CongestionOptions {
    /// The effective frequency's exponent `β` (default 0.5). Large values keep a line's frequency
    /// nominal until it is nearly full (β = 4: 80 % of it at two-thirds of the room); small ones let it
    /// fall from the first boarders on (β = 0.5: 29 % left at half the room). Cepeda et al. leave it to
    /// calibration. With a large β the equilibrium keeps lines at the edge of their capacity, where
    /// the successive averages overshoot it: on the NYC subway case of docs/benchmarks.md, β = 4 did
    /// not converge in 80 iterations where β = 0.5 did.
    pub beta: f64,
    /// Stop when the relative gap is at most this (default 1e-3).
    pub relative_gap: f64,
    /// Stop after this many iterations even if the gap is not reached (default 100); iteration 0 is
    /// the uncongested assignment.
    pub max_iterations: usize,
}

impl Default for CongestionOptions {
    fn default() -> Self {
        Self { beta: 0.5, relative_gap: 1e-3, max_iterations: 100 }
    }
}

/// One iteration of [`assign_congested`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CongestedIteration {
    /// Its number: 0 is the uncongested assignment.
    pub iteration: usize,
    /// Cepeda et al.'s gap of the flows entering the iteration (∞ for iteration 0, which has none).
    pub gap: f64,
    /// `gap` over the optimal strategies' cost.
    pub relative_gap: f64,
    /// What the optimal strategies under the iteration's frequencies cost the demand (`Σ g τ`).
    pub strategy_cost: f64,
    /// Seconds since the call started.
    pub seconds: f64,
}

/// What [`assign_congested`] returns.
#[derive(Debug, Clone, PartialEq)]
pub struct CongestedAssignment {
    /// The equilibrium flows (`volumes`: the averaged `v`), with skims under the final effective
    /// frequencies when asked for.
    pub assignment: StrategyAssignment,
    /// Per edge: the effective frequency of the final flows (the nominal one, or ∞, where no one
    /// waits).
    pub effective_frequency: Vec<f64>,
    /// Per edge with a wait: the riders on board as the vehicle leaves (`v̄`); 0 elsewhere.
    pub on_board: Vec<f64>,
    /// Every iteration, in order.
    pub iterations: Vec<CongestedIteration>,
    /// Whether the relative gap reached [`CongestionOptions::relative_gap`].
    pub converged: bool,
}

/// Line capacities for [`assign_congested`]: per edge with a wait, `frequency × vehicle_capacity ×
/// period` (the trips its vehicles carry over a demand period of `period` time units, in the
/// frequencies' unit), ∞ elsewhere.
pub fn line_capacities(g: &HyperpathGraph, vehicle_capacity: f64, period: f64) -> Vec<f64> {
    (0..g.num_edges())
        .map(|e| if g.freq[e].is_finite() { g.freq[e] * vehicle_capacity * period } else { f64::INFINITY })
        .collect()
}

/// Vehicle capacities per line: `(line_id, passengers a vehicle carries)`, from a CSV
/// `line_id,vehicle_capacity` (a GTFS graph's lines are its `route_id`s). Refused, naming file and line: a
/// missing column, a capacity that is not a positive number, a line listed twice.
pub fn read_vehicle_capacities(path: impl AsRef<Path>) -> Result<Vec<(String, f64)>, TdError> {
    let path = path.as_ref();
    let bad = |line: u64, message: String| super::table::error(path, line, message);
    let (mut reader, header) = super::table::open(path)?;
    let (Some(cl), Some(cc)) =
        (header.find(&["line_id", "line"]), header.find(&["vehicle_capacity", "capacity"]))
    else {
        return Err(bad(1, "expected the columns line_id,vehicle_capacity".into()));
    };
    let (mut rows, mut seen) = (Vec::new(), std::collections::HashMap::new());
    for (row, record) in reader.records().enumerate() {
        let record = record.map_err(|e| bad(row as u64 + 2, e.to_string()))?;
        let at = record.position().map_or(row as u64 + 2, |p| p.line());
        let (line, text) = (record.get(cl).unwrap_or(""), record.get(cc).unwrap_or(""));
        let capacity = match text.parse::<f64>() {
            Ok(c) if c > 0.0 && c.is_finite() => c,
            _ => {
                return Err(bad(
                    at,
                    format!("vehicle capacity `{text}` of line `{line}`: expected a positive number"),
                ));
            }
        };
        if let Some(first) = seen.insert(line.to_string(), at) {
            return Err(bad(at, format!("line `{line}` repeats line {first}")));
        }
        rows.push((line.to_string(), capacity));
    }
    Ok(rows)
}

/// [`line_capacities`] with a vehicle capacity per line (`per_line`, by the edges' `line_id`; a
/// transfer edge `A>B` boards B), and `others` for the lines not listed (`None`: unlimited; with no
/// line listed, [`line_capacities`] for every line, or none). A listed
/// line that no edge with a wait belongs to is refused (a misspelt id would silently leave its line
/// unlimited).
pub fn line_capacities_by_line(
    g: &HyperpathGraph,
    per_line: &[(String, f64)],
    others: Option<f64>,
    period: f64,
) -> Result<Vec<f64>, TdError> {
    let lookup: std::collections::HashMap<&str, f64> =
        per_line.iter().map(|(l, c)| (l.as_str(), *c)).collect();
    let mut used = std::collections::HashSet::new();
    let capacity = (0..g.num_edges())
        .map(|e| {
            if !g.freq[e].is_finite() {
                return f64::INFINITY;
            }
            let line = g.line(e);
            let boarded = line.split_once('>').map_or(line, |(_, to)| to);
            match lookup.get(boarded) {
                Some(&c) => {
                    used.insert(boarded);
                    g.freq[e] * c * period
                }
                None => others.map_or(f64::INFINITY, |c| g.freq[e] * c * period),
            }
        })
        .collect();
    if let Some((line, _)) = per_line.iter().find(|(l, _)| !used.contains(l.as_str())) {
        return Err(TdError::InvalidParameter(format!(
            "vehicle capacity for line `{line}`, but no boarding edge of the graph has that line_id"
        )));
    }
    Ok(capacity)
}

/// The effective frequency of an edge of nominal frequency `nominal` with `boarding` riders boarding
/// and `on_board` aboard as the vehicle leaves, on a line of capacity `capacity` (see the module).
pub fn effective_frequency(nominal: f64, boarding: f64, on_board: f64, capacity: f64, beta: f64) -> f64 {
    if boarding <= 0.0 || capacity.is_infinite() {
        return nominal;
    }
    let room = capacity - on_board + boarding;
    let ratio = if room > boarding { boarding / room } else { 1.0 };
    nominal * (1.0 - ratio.powf(beta)).max(MIN_FREQUENCY_SHARE)
}

/// Edges with a wait, indexed `0..len`, and what the gap and the frequencies read about them.
pub(crate) struct Waits {
    /// The graph's edge of each.
    pub edge: Vec<u32>,
    /// Grouped by tail vertex: `edge[by_tail[k]]`, groups `tail_start[t]..tail_start[t + 1]` (t over
    /// the tails that have any).
    pub by_tail: Vec<u32>,
    pub tail_start: Vec<u32>,
    /// The in-vehicle edges leaving each one's head: `after[after_start[k]..after_start[k + 1]]`.
    after_start: Vec<u32>,
    after: Vec<u32>,
}

impl Waits {
    fn of(g: &HyperpathGraph) -> Result<Self, TdError> {
        let edge: Vec<u32> = (0..g.num_edges() as u32).filter(|&e| g.freq[e as usize].is_finite()).collect();
        let mut by_tail: Vec<u32> = (0..edge.len() as u32).collect();
        by_tail.sort_by_key(|&k| (g.tail[edge[k as usize] as usize], k));
        let mut tail_start = vec![0u32];
        for k in 1..by_tail.len() {
            let (a, b) = (edge[by_tail[k - 1] as usize], edge[by_tail[k] as usize]);
            if g.tail[a as usize] != g.tail[b as usize] {
                tail_start.push(k as u32);
            }
        }
        tail_start.push(by_tail.len() as u32);
        // The in-vehicle edges by tail: those leaving a wait edge's head carry its line on.
        let mut riding: Vec<(u32, u32)> = (0..g.num_edges() as u32)
            .filter(|&b| g.kind(b as usize).in_vehicle())
            .map(|b| (g.tail[b as usize], b))
            .collect();
        riding.sort_unstable();
        let (mut after_start, mut after) = (vec![0u32], Vec::new());
        for &a in &edge {
            let h = g.head[a as usize];
            let first = riding.partition_point(|&(t, _)| t < h);
            // None at a line's last stop, where no one rides on: nothing on board.
            after.extend(riding[first..].iter().take_while(|&&(t, _)| t == h).map(|&(_, b)| b));
            after_start.push(after.len() as u32);
        }
        if !edge.is_empty() && riding.is_empty() {
            return Err(TdError::InvalidParameter(
                "congested assignment: the graph has edges with a wait but no in-vehicle edge (link_type \
                 on-board or dwell), so the loads of its lines cannot be known; label the graph's edges \
                 (link_type) or assign without capacities"
                    .into(),
            ));
        }
        Ok(Self { edge, by_tail, tail_start, after_start, after })
    }

    pub fn len(&self) -> usize {
        self.edge.len()
    }

    /// The effective frequency of every edge with a wait under the flows `volumes` (into `freq`, the
    /// others untouched), and each one's load leaving its stop (into `on_board`).
    fn frequencies(
        &self,
        volumes: &[f64],
        nominal: &[f64],
        capacity: &[f64],
        beta: f64,
        freq: &mut [f64],
        on_board: &mut [f64],
    ) {
        for (w, &a) in self.edge.iter().enumerate() {
            let a = a as usize;
            let riding = &self.after[self.after_start[w] as usize..self.after_start[w + 1] as usize];
            on_board[a] = riding.iter().map(|&b| volumes[b as usize]).sum();
            freq[a] = effective_frequency(nominal[a], volumes[a], on_board[a], capacity[a], beta);
        }
    }

    /// `Σ_i max_a (flow[a] / freq[edge[a]])` over one destination's flows on the edges with a wait.
    fn waiting(&self, flow: &[f64], freq: &[f64]) -> f64 {
        let mut total = 0.0;
        for t in 0..self.tail_start.len() - 1 {
            let group = &self.by_tail[self.tail_start[t] as usize..self.tail_start[t + 1] as usize];
            let longest = group
                .iter()
                .map(|&k| flow[k as usize] / freq[self.edge[k as usize] as usize])
                .fold(0.0, f64::max);
            total += longest;
        }
        total
    }
}

/// Assigns `demand` by optimal strategies under effective frequencies that fall as lines fill, to an
/// equilibrium (see the [module](self)). `capacity` holds each edge's line capacity over the demand
/// period, in trips ([`line_capacities`]; ∞ for none), read on edges with a wait. The graph's edges
/// must be labelled (boarding edges lead to a vertex with an on-board or dwell edge out).
/// `progress(iteration)` is called after each iteration.
///
/// Refused: a capacity vector of the wrong length, a negative or NaN capacity, `β ≤ 0`, and what
/// [`assign`] refuses. With skims, the skims are those of the final effective frequencies.
pub fn assign_congested(
    g: &HyperpathGraph,
    zones: &Zones,
    demand: &TransitDemand,
    capacity: &[f64],
    opts: &StrategyOptions,
    copts: &CongestionOptions,
    progress: &(dyn Fn(&CongestedIteration) + Sync),
) -> Result<CongestedAssignment, TdError> {
    let cpu = |input: &Input<'_>| -> Result<CpuIterate, TdError> { Ok(CpuIterate::new(input)) };
    congested_loop(g, zones, demand, capacity, opts, copts, progress, cpu)
}

/// What one congested iteration gives, summed over the destinations in order: their loads `y` on every
/// edge, what their strategies cost the demand, the waits of their flows `v^d` under the iteration's
/// frequencies (0 in iteration 0), and the trips that reach no destination.
pub(crate) struct IterationSums {
    pub loads: Vec<f64>,
    pub strategy_cost: f64,
    pub waiting: f64,
    pub unreached: f64,
    pub unreached_pairs: usize,
}

/// The per-destination work of a congested iteration, on the CPU ([`CpuIterate`]) or a GPU
/// (`super::gpu`): the strategies under `live`'s frequencies, their loads, and each destination's
/// flows on the edges with a wait moved by `step` toward them (after their waits are measured).
impl IterationSums {
    /// Nothing yet, on `edges` edges.
    pub fn empty(edges: usize) -> Self {
        Self { loads: vec![0.0; edges], strategy_cost: 0.0, waiting: 0.0, unreached: 0.0, unreached_pairs: 0 }
    }
}

pub(crate) trait Iterate {
    fn iterate(
        &mut self,
        input: &Input<'_>,
        live: &HyperpathGraph,
        k: usize,
        step: f64,
    ) -> Result<IterationSums, TdError>;
}

/// What every iteration's engine reads: the zones, the edges with a wait, the demand by destination
/// and the destinations with demand, in order.
pub(crate) struct Input<'a> {
    pub zones: &'a Zones,
    pub waits: &'a Waits,
    pub grouped: &'a Grouped,
    pub dests: &'a [usize],
}

/// The label setting on every core, in fixed blocks of destinations.
struct CpuIterate {
    /// Per destination, its flows on the edges with a wait (v^d: destinations × those edges, the one
    /// array that grows with the product).
    per_dest: Vec<f64>,
}

impl CpuIterate {
    fn new(input: &Input<'_>) -> Self {
        Self { per_dest: vec![0.0; input.dests.len() * input.waits.len()] }
    }
}

impl Iterate for CpuIterate {
    fn iterate(
        &mut self,
        input: &Input<'_>,
        live: &HyperpathGraph,
        k: usize,
        step: f64,
    ) -> Result<IterationSums, TdError> {
        let Input { zones, waits, grouped, dests } = *input;
        let nw = waits.len();
        // Each block: its destinations' loads (y) on every edge, their strategies' cost, and the waits
        // of their current flows (v^d) under the iteration's frequencies.
        struct Block {
            loads: Vec<f64>,
            strategy_cost: f64,
            waiting: f64,
            unreached: f64,
            unreached_pairs: usize,
        }
        let blocks: Vec<Block> = dests
            .par_chunks(BLOCK)
            .zip(self.per_dest.par_chunks_mut(BLOCK * nw.max(1)))
            .map(|(chunk, flows)| {
                let mut ws = Workspace::new(live);
                let mut scratch = vec![0.0; live.num_edges()];
                let mut block = Block {
                    loads: vec![0.0; live.num_edges()],
                    strategy_cost: 0.0,
                    waiting: 0.0,
                    unreached: 0.0,
                    unreached_pairs: 0,
                };
                let mut origins = Vec::new();
                for (i, &d) in chunk.iter().enumerate() {
                    ws.strategy(live, zones.destination(d));
                    origins.clear();
                    for &(ov, trips) in &grouped.by_dest[d] {
                        let u = ws.u[ov as usize];
                        if u.is_finite() {
                            origins.push((ov, trips));
                            block.strategy_cost += trips * u;
                        } else {
                            block.unreached += trips;
                            block.unreached_pairs += 1;
                        }
                    }
                    ws.load(live, &origins, &mut scratch);
                    let flow = &mut flows[i * nw..(i + 1) * nw];
                    if k > 0 {
                        block.waiting += waits.waiting(flow, &live.freq);
                    }
                    // The successive averages' step is known before the gap: move v^d now (after the
                    // last iteration it is not read again).
                    for (v, &a) in flow.iter_mut().zip(&waits.edge) {
                        *v += step * (scratch[a as usize] - *v);
                    }
                    for &a in &ws.attractive {
                        block.loads[a as usize] += scratch[a as usize];
                        scratch[a as usize] = 0.0;
                    }
                }
                block
            })
            .collect();
        let mut sums = IterationSums::empty(live.num_edges());
        for b in &blocks {
            for (y, x) in sums.loads.iter_mut().zip(&b.loads) {
                *y += x;
            }
            sums.strategy_cost += b.strategy_cost;
            sums.waiting += b.waiting;
            sums.unreached += b.unreached;
            sums.unreached_pairs += b.unreached_pairs;
        }
        Ok(sums)
    }
}

/// The successive averages around `make`'s engine (see the [module](self)): the checks, the effective
/// frequencies, the gap and the stopping rule are the same on every engine.
#[allow(clippy::too_many_arguments)]
pub(crate) fn congested_loop<E: Iterate>(
    g: &HyperpathGraph,
    zones: &Zones,
    demand: &TransitDemand,
    capacity: &[f64],
    opts: &StrategyOptions,
    copts: &CongestionOptions,
    progress: &(dyn Fn(&CongestedIteration) + Sync),
    make: impl FnOnce(&Input<'_>) -> Result<E, TdError>,
) -> Result<CongestedAssignment, TdError> {
    let start = Instant::now();
    check_congestion(g, capacity, copts)?;
    let waits = Waits::of(g)?;
    let grouped = group_by_destination(g, zones, demand, &StrategyOptions { skims: false, ..*opts })?;
    let dests: Vec<usize> = (0..zones.len()).filter(|&d| !grouped.by_dest[d].is_empty()).collect();
    let nominal = g.freq.clone();
    let mut live = g.clone();
    let input = Input { zones, waits: &waits, grouped: &grouped, dests: &dests };
    let mut engine = make(&input)?;
    let mut volumes = vec![0.0; g.num_edges()];
    let mut on_board = vec![0.0; g.num_edges()];
    let mut iterations = Vec::new();
    let (mut unreached, mut unreached_pairs) = (0.0, 0usize);
    let mut converged = false;
    for k in 0..copts.max_iterations.max(1) {
        if k > 0 {
            waits.frequencies(&volumes, &nominal, capacity, copts.beta, &mut live.freq, &mut on_board);
        }
        let step = 1.0 / (k + 1) as f64;
        let IterationSums { loads, strategy_cost, waiting, unreached: lost, unreached_pairs: lost_pairs } =
            engine.iterate(&input, &live, k, step)?;
        if k == 0 {
            (unreached, unreached_pairs) = (lost, lost_pairs);
        }
        let gap = if k == 0 {
            f64::INFINITY
        } else {
            let travel: f64 = volumes.iter().zip(&g.time).map(|(v, t)| v * t).sum();
            (travel + waiting - strategy_cost).max(0.0)
        };
        let relative_gap = if strategy_cost > 0.0 { gap / strategy_cost } else { 0.0 };
        let it = CongestedIteration {
            iteration: k,
            gap,
            relative_gap,
            strategy_cost,
            seconds: start.elapsed().as_secs_f64(),
        };
        iterations.push(it);
        progress(&it);
        if k > 0 && relative_gap <= copts.relative_gap {
            converged = true;
            break;
        }
        if k + 1 == copts.max_iterations.max(1) && k > 0 {
            break; // the flows measured last are the answer
        }
        for (v, y) in volumes.iter_mut().zip(&loads) {
            *v += step * (y - *v);
        }
    }
    // Nothing to measure a gap on: no demand, or a single iteration asked for.
    if dests.is_empty() {
        converged = true;
    }
    // The frequencies of the flows returned (the last iteration's, unless it moved them: one iteration).
    waits.frequencies(&volumes, &nominal, capacity, copts.beta, &mut live.freq, &mut on_board);
    let skims = if opts.skims { assign(&live, zones, demand, opts, &|_, _| {})?.skims } else { None };
    let unassigned = grouped.unassigned + unreached;
    let intrazonal = grouped.intrazonal;
    let assignment = StrategyAssignment {
        volumes,
        skims,
        assigned: demand.total() - intrazonal - unassigned,
        intrazonal,
        unassigned,
        unassigned_pairs: grouped.unassigned_pairs + unreached_pairs,
        destinations: dests.len(),
        seconds: start.elapsed().as_secs_f64(),
    };
    Ok(CongestedAssignment { assignment, effective_frequency: live.freq, on_board, iterations, converged })
}

/// The congested assignment's own refusals: capacities per edge, ≥ 0 or ∞; β positive and finite.
fn check_congestion(g: &HyperpathGraph, capacity: &[f64], copts: &CongestionOptions) -> Result<(), TdError> {
    if capacity.len() != g.num_edges() {
        return Err(TdError::InvalidParameter(format!(
            "congested assignment: {} capacities for {} edges",
            capacity.len(),
            g.num_edges()
        )));
    }
    if let Some(e) = capacity.iter().position(|c| c.is_nan() || *c < 0.0) {
        return Err(TdError::InvalidParameter(format!(
            "congested assignment: edge {e} (link_id {}) has capacity {}; expected a number ≥ 0 (∞ for none)",
            g.link_id(e),
            capacity[e]
        )));
    }
    if !(copts.beta > 0.0 && copts.beta.is_finite()) || copts.relative_gap.is_nan() {
        return Err(TdError::InvalidParameter(format!(
            "congested assignment: beta {} must be positive and finite, the gap a number",
            copts.beta
        )));
    }
    Ok(())
}
