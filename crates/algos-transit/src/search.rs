//! Earliest arrival on the implicit product of the network and an automaton (spec §3.1).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rayon::prelude::*;

use super::error::TdError;
use super::graph::TdGraph;
use super::nfa::{Nfa, bits};

/// Arrival time of a node not reached.
pub const UNREACHED: u32 = u32::MAX;
/// Arrival times saturate here; reaching it is [`TdError::TimeOverflow`].
pub const SATURATED: u32 = u32::MAX - 1;

/// What the automaton means (spec §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Semantics {
    /// Labels are read along the journey: the search runs on (vertex, state) pairs.
    #[default]
    Product,
    /// The seed's implemented behaviour: the profile only filters arcs by label (any label some
    /// transition reads, [`Nfa::label_mask`]); the state is never tracked.
    PerProfileFilter,
}

/// One earliest-arrival query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EapQuery {
    /// Where the journey starts.
    pub source: u32,
    /// Where it ends: the search stops once the target is reached in an accepting state. `None`
    /// searches the whole network.
    pub target: Option<u32>,
    /// Departure time at the source (absolute seconds; time of day is `depart % 86,400`).
    pub depart: u32,
}

/// Arrival times of one search, per (vertex, automaton state).
#[derive(Debug, Clone, PartialEq)]
pub struct EapResult {
    /// The query answered.
    pub query: EapQuery,
    /// Automaton states per vertex in the arrays below (1 under [`Semantics::PerProfileFilter`]).
    pub states: u32,
    /// Accepting states (bitset).
    pub accept: u64,
    /// `arrival[v * states + q]`: earliest arrival at `v` in state `q`, [`UNREACHED`] if not reached
    /// (or, with a target, not settled before the search stopped: only the target's value is final).
    pub arrival: Vec<u32>,
    /// `pred[v * states + q]`: the arc and state the search reached `(v, q)` from
    /// (`(u32::MAX, 0)` for sources and unreached nodes).
    pub pred: Vec<(u32, u8)>,
    /// Product nodes taken from the heap.
    pub settled: u64,
}

/// One arc of a journey with its times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The arc.
    pub arc: u32,
    /// When the traveller reaches the arc's tail.
    pub reach: u32,
    /// When they leave it (after waiting for a departure on timetabled arcs).
    pub depart: u32,
    /// When they reach its head.
    pub arrive: u32,
}

/// Consecutive arcs with one label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leg {
    /// The label (mode).
    pub label: u8,
    /// First vertex.
    pub from: u32,
    /// Last vertex.
    pub to: u32,
    /// Leaving `from` (for a timetabled leg, the vehicle's departure).
    pub depart: u32,
    /// Reaching `to`.
    pub arrive: u32,
    /// The arcs, in order.
    pub steps: Vec<Step>,
}

/// A journey: legs from the source to the target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Journey {
    /// Departure time asked for.
    pub depart: u32,
    /// Arrival at the target.
    pub arrival: u32,
    /// The legs, in order (empty when source = target).
    pub legs: Vec<Leg>,
}

impl EapResult {
    /// Earliest arrival at `v` in an accepting state.
    pub fn arrival_at(&self, v: u32) -> Option<u32> {
        let s = self.states as usize;
        bits(self.accept).map(|q| self.arrival[v as usize * s + q as usize]).min().filter(|&t| t != UNREACHED)
    }

    /// The journey to `v` (ending in its best accepting state), following the search's predecessors.
    pub fn journey(&self, g: &TdGraph, v: u32) -> Option<Journey> {
        let s = self.states as usize;
        let arrival = self.arrival_at(v)?;
        let q = bits(self.accept).find(|&q| self.arrival[v as usize * s + q as usize] == arrival)?;
        let mut node = v as usize * s + q as usize;
        let mut arcs = Vec::new();
        while self.pred[node].0 != u32::MAX {
            let (a, pq) = self.pred[node];
            arcs.push(a);
            node = g.tail(a) as usize * s + pq as usize;
            if arcs.len() > self.arrival.len() {
                return None; // a cycle: cannot happen with a search's own predecessors
            }
        }
        arcs.reverse();
        Some(journey_along(g, self.query.depart, &arcs))
    }
}

/// The journey that follows `arcs` from a departure at `depart`, grouped into legs by label.
pub fn journey_along(g: &TdGraph, depart: u32, arcs: &[u32]) -> Journey {
    let mut t = depart;
    let mut legs: Vec<Leg> = Vec::new();
    for &a in arcs {
        let wait = g.wait(a, t);
        let arrive = t.saturating_add(g.travel_time(a, t));
        let step = Step { arc: a, reach: t, depart: t + wait, arrive };
        let l = g.label[a as usize];
        match legs.last_mut() {
            Some(leg) if leg.label == l => {
                leg.to = g.head(a);
                leg.arrive = arrive;
                leg.steps.push(step);
            }
            _ => legs.push(Leg {
                label: l,
                from: g.tail(a),
                to: g.head(a),
                depart: step.depart,
                arrive,
                steps: vec![step],
            }),
        }
        t = arrive;
    }
    Journey { depart, arrival: t, legs }
}

fn check_query(g: &TdGraph, q: &EapQuery) -> Result<(), TdError> {
    let n = g.num_vertices();
    for v in std::iter::once(q.source).chain(q.target) {
        if v >= n {
            return Err(TdError::VertexOutOfRange { vertex: v, n });
        }
    }
    if q.depart >= SATURATED {
        return Err(TdError::TimeOverflow);
    }
    Ok(())
}

/// Earliest arrival from `q.source` at `q.depart` (spec §3.1): time-dependent Dijkstra on the
/// product of `g` and `nfa`, exact under FIFO (which [`super::TdGraphBuilder::build`] enforces).
///
/// ```
/// use urbanflow::transit::{earliest_arrival, label, EapQuery, FnKind, Nfa, Semantics, TdGraphBuilder};
/// let mut b = TdGraphBuilder::new(3);
/// b.add_constant_arc(0, 1, label::WALK, 300); // 5 minutes' walk to the stop
/// let bus = b.store_mut().push(FnKind::NextDeparture, [(8 * 3600, 600), (8 * 3600 + 900, 600)]);
/// b.add_arc(1, 2, label::BUS, bus);
/// b.add_constant_arc(0, 2, label::WALK, 3600); // or walk an hour
/// let g = b.build().unwrap();
/// let q = EapQuery { source: 0, target: Some(2), depart: 8 * 3600 - 60 };
/// let r = earliest_arrival(&g, &Nfa::any_of(&[label::WALK, label::BUS]), &q, Semantics::Product).unwrap();
/// // Misses the 08:00 bus, catches the 08:15 one: arrives 08:25.
/// assert_eq!(r.arrival_at(2), Some(8 * 3600 + 1500));
/// let walk = earliest_arrival(&g, &Nfa::walk(), &q, Semantics::Product).unwrap();
/// assert_eq!(walk.arrival_at(2), Some(8 * 3600 - 60 + 3600));
/// ```
pub fn earliest_arrival(g: &TdGraph, nfa: &Nfa, q: &EapQuery, sem: Semantics) -> Result<EapResult, TdError> {
    check_query(g, q)?;
    let filter;
    let nfa = match sem {
        Semantics::Product => nfa,
        Semantics::PerProfileFilter => {
            filter = nfa.as_filter();
            &filter
        }
    };
    let mut ws = Workspace::new(g.num_vertices(), nfa.num_states());
    ws.search(g, nfa, q, true)?;
    let states = nfa.num_states();
    let size = g.num_vertices() as usize * states as usize;
    let mut arrival = vec![UNREACHED; size];
    let mut pred = vec![(u32::MAX, 0u8); size];
    for &node in &ws.touched {
        arrival[node as usize] = ws.arrival[node as usize];
        pred[node as usize] = ws.pred[node as usize];
    }
    Ok(EapResult { query: *q, states, accept: nfa.accept(), arrival, pred, settled: ws.settled })
}

/// Reusable search state: arrays of `n × states` reset through the list of nodes touched, so a short
/// query costs what it visits, not the size of the network.
#[derive(Debug, Clone)]
pub struct Workspace {
    states: u32,
    arrival: Vec<u32>,
    pred: Vec<(u32, u8)>,
    touched: Vec<u32>,
    heap: BinaryHeap<Reverse<(u32, u32)>>,
    settled: u64,
}

impl Workspace {
    /// Scratch for `n` vertices and automata of up to `states` states.
    pub fn new(n: u32, states: u32) -> Self {
        let size = n as usize * states as usize;
        Self {
            states,
            arrival: vec![UNREACHED; size],
            pred: vec![(u32::MAX, 0); size],
            touched: Vec::new(),
            heap: BinaryHeap::new(),
            settled: 0,
        }
    }

    fn reset(&mut self) {
        for &node in &self.touched {
            self.arrival[node as usize] = UNREACHED;
            self.pred[node as usize] = (u32::MAX, 0);
        }
        self.touched.clear();
        self.heap.clear();
        self.settled = 0;
    }

    /// Runs one query (`nfa` with at most the workspace's states); returns the earliest arrival at the
    /// target in an accepting state ([`UNREACHED`] if none, or if there is no target).
    pub fn search(&mut self, g: &TdGraph, nfa: &Nfa, q: &EapQuery, with_pred: bool) -> Result<u32, TdError> {
        assert!(nfa.num_states() <= self.states, "workspace too small for the automaton");
        self.reset();
        let s = self.states;
        let offsets = g.csr.offsets();
        let targets = g.csr.targets();
        let funcs = g.csr.weights();
        for q0 in bits(nfa.start()) {
            let node = q.source * s + q0;
            self.arrival[node as usize] = q.depart;
            self.touched.push(node);
            self.heap.push(Reverse((q.depart, node)));
        }
        let accept = nfa.accept();
        while let Some(Reverse((t, node))) = self.heap.pop() {
            if t > self.arrival[node as usize] {
                continue;
            }
            self.settled += 1;
            let (u, state) = (node / s, node % s);
            if Some(u) == q.target && accept & (1 << state) != 0 {
                return Ok(t);
            }
            for a in offsets[u as usize]..offsets[u as usize + 1] {
                let next = nfa.next(state, g.label[a as usize]);
                if next == 0 {
                    continue;
                }
                let arrive = t.saturating_add(g.store.eval(funcs[a as usize], t));
                if arrive >= SATURATED {
                    return Err(TdError::TimeOverflow);
                }
                let v = targets[a as usize];
                for q2 in bits(next) {
                    let w = (v * s + q2) as usize;
                    if arrive < self.arrival[w] {
                        if self.arrival[w] == UNREACHED {
                            self.touched.push(w as u32);
                        }
                        self.arrival[w] = arrive;
                        if with_pred {
                            self.pred[w] = (a, state as u8);
                        }
                        self.heap.push(Reverse((arrive, w as u32)));
                    }
                }
            }
        }
        Ok(UNREACHED)
    }

    /// Product nodes settled by the last search.
    pub fn settled(&self) -> u64 {
        self.settled
    }
}

/// A query for a batch: which profile (automaton) it uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProfileQuery {
    /// The query; it needs a target.
    pub query: EapQuery,
    /// Index into the profiles.
    pub profile: u32,
}

/// Totals of a batch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BatchStats {
    /// Product nodes settled, over all queries.
    pub settled: u64,
}

/// Earliest arrivals at the targets of many queries (each with its profile), on the CPU: serially or
/// with rayon over the queries. Returns one arrival per query ([`UNREACHED`] when the target cannot be
/// reached under the profile).
pub fn arrival_times(
    g: &TdGraph,
    profiles: &[Nfa],
    queries: &[ProfileQuery],
    sem: Semantics,
    parallel: bool,
) -> Result<(Vec<u32>, BatchStats), TdError> {
    let filters: Vec<Nfa>;
    let profiles = match sem {
        Semantics::Product => profiles,
        Semantics::PerProfileFilter => {
            filters = profiles.iter().map(Nfa::as_filter).collect();
            &filters
        }
    };
    for pq in queries {
        check_query(g, &pq.query)?;
        if pq.profile as usize >= profiles.len() {
            return Err(TdError::ProfileOutOfRange { profile: pq.profile, count: profiles.len() as u32 });
        }
        if pq.query.target.is_none() {
            return Err(TdError::InvalidParameter("batched queries need a target".into()));
        }
    }
    let states = profiles.iter().map(Nfa::num_states).max().unwrap_or(1);
    let n = g.num_vertices();
    let run = |ws: &mut Workspace, pq: &ProfileQuery| -> Result<(u32, u64), TdError> {
        let t = ws.search(g, &profiles[pq.profile as usize], &pq.query, false)?;
        Ok((t, ws.settled()))
    };
    let out: Vec<(u32, u64)> = if parallel {
        // A workspace holds n × states labels: one per chunk of queries (4 chunks per thread for
        // balance), not one per rayon split, which could allocate it hundreds of times per call.
        let chunk = queries.len().div_ceil(4 * rayon::current_num_threads()).max(1);
        let parts: Vec<Vec<(u32, u64)>> = queries
            .par_chunks(chunk)
            .map(|qs| {
                let mut ws = Workspace::new(n, states);
                qs.iter().map(|pq| run(&mut ws, pq)).collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<_, _>>()?;
        parts.concat()
    } else {
        let mut ws = Workspace::new(n, states);
        queries.iter().map(|pq| run(&mut ws, pq)).collect::<Result<_, _>>()?
    };
    let settled = out.iter().map(|o| o.1).sum();
    Ok((out.into_iter().map(|o| o.0).collect(), BatchStats { settled }))
}
