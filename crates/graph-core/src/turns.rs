//! Turn-aware routing: the edge-based graph (one vertex per arc of the road graph, one arc per allowed
//! turn), on which every shortest-path engine runs unchanged.
//!
//! A route through a junction in an ordinary (node-based) graph may take any exit, so it cannot obey
//! "no left turn from A onto B" nor charge for the turn. [`TurnGraph`] makes each arc `a` of the node
//! graph a vertex, labelled with the cost of arriving at the head of `a`; an arc `a → b` exists for
//! each turn the rules allow, weighing `w(b) + turn cost(a, b)`; banned turns are absent. A node query
//! `s → t` becomes the vertex query [`TurnGraph::source`]`(s)` → [`TurnGraph::target`]`(t)`: the
//! source vertex has an arc to each arc leaving `s` (weighing that arc), each arc entering `t` has a
//! free arc to the target vertex, and `source(v) → target(v)` is free so that a route from a node to
//! itself costs nothing. Dijkstra, contraction hierarchies, CCH, PHAST and K shortest paths take the
//! [`TurnGraph::graph`] as it is; [`TurnGraph::path_arcs`] and [`TurnGraph::path_nodes`] map results
//! back to the road graph.
//!
//! Via-way restrictions (a ban over a sequence of arcs, typically a U-turn over a dual carriageway's
//! median) duplicate the via arcs' vertices, as OSRM does: the from-arc continues onto the copies,
//! which keep their originals' exits except the banned last step (`no_*`) or every exit but the chain
//! (`only_*`); traffic that joins the via arcs elsewhere uses the originals and is not restricted.
//! One chain per from-arc; chains that overlap partially are not joined (a route entering a second
//! chain's from-arc from a copy leaves through the original).
//!
//! [`TurnGraph::from_osm`] builds it from an [`OsmGraph`] with the profile's turn costs and U-turn rule
//! ([`TurnOptions`]); [`TurnGraph::new`] from any graph and a turn function.
//!
//! ```
//! use urbanflow::graph::Csr;
//! use urbanflow::graph::turns::TurnGraph;
//! // A line 0 - 1 - 2 in both directions; U-turns are banned, other turns cost 5.
//! let g = Csr::from_edges(3, [(0, 1, 10), (1, 0, 10), (1, 2, 20), (2, 1, 20)])?;
//! let tails = g.arc_tails();
//! let t = TurnGraph::new(&g, |a, b| (tails[a as usize] != g.targets()[b as usize]).then_some(5), &[])?;
//! // Four arc vertices, a source and a target vertex per node.
//! assert_eq!(t.graph.num_vertices(), 4 + 2 * 3);
//! // Arc 0 (0 → 1) turns onto arc 2 (1 → 2) for 20 + 5, or ends the route at node 1 for nothing.
//! let turns: Vec<_> = t.graph.out_arcs(0).collect();
//! assert_eq!(turns, vec![(2, 25), (t.target(1), 0)]);
//! // A route 0 → 2 is source(0) → 0 → 2 → target(2); it maps back to nodes 0, 1, 2.
//! assert_eq!(t.path_nodes(&[t.source(0), 0, 2, t.target(2)]), vec![0, 1, 2]);
//! # Ok::<(), urbanflow::graph::GraphError>(())
//! ```

use crate::GraphError;
use crate::VertexId;
use crate::csr::Csr;
use crate::osm::{OsmGraph, Profile, RestrictionKind};
use crate::scc::strongly_connected;

/// Where U-turns (onto the reverse of the arriving arc) are allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UTurns {
    /// Only where no other exit of the arriving arc remains after restrictions: at dead ends and where
    /// every other exit is banned (cars and bicycles: no mid-street U-turns). A U-turn named by an
    /// `only_u_turn` restriction is allowed too.
    DeadEndsOnly,
    /// Everywhere, unless a restriction bans it (pedestrians).
    Everywhere,
}

/// How turns cost.
#[derive(Clone)]
pub enum TurnCost {
    /// The profile's default (after OSRM's car and bicycle profiles, in seconds, stored as
    /// milliseconds): cars `7.5 / (1 + exp(-(13/b·θ/180 − 6.5·b)))` for right turns and with `b` and `1/b`
    /// swapped for left turns (`b = 1.075`, right-hand traffic), bicycles `6(θ/90)²/1.4` right and
    /// `6(θ/90)²·1.4` left, 20 s more for a U-turn; pedestrians nothing. θ is the change of bearing at
    /// the junction (degrees, + right), between the arriving and the leaving arc. Charged only at
    /// junctions (nodes with three or more distinct neighbours) and for U-turns: in a graph whose
    /// every way node is a vertex, bends would otherwise pile costs up along curvy roads.
    Profile(Profile),
    /// Every allowed turn is free.
    Free,
    /// The user's function of a turn's geometry, in milliseconds.
    Custom(std::sync::Arc<dyn Fn(&Turn) -> u32 + Send + Sync>),
}

impl std::fmt::Debug for TurnCost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Profile(p) => write!(f, "Profile({p})"),
            Self::Free => f.write_str("Free"),
            Self::Custom(_) => f.write_str("Custom(..)"),
        }
    }
}

/// One turn's geometry, for [`TurnCost::Custom`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Turn {
    /// Change of bearing, degrees in (−180, 180], positive to the right; 180 for a U-turn.
    pub angle_deg: f64,
    /// The leaving arc runs back along the arriving one.
    pub u_turn: bool,
    /// The node has three or more distinct neighbours.
    pub junction: bool,
}

/// How [`TurnGraph::from_osm`] builds.
#[derive(Debug, Clone)]
pub struct TurnOptions {
    /// Turn costs.
    pub cost: TurnCost,
    /// Where U-turns are allowed.
    pub u_turns: UTurns,
    /// Obey the graph's turn restrictions ([`OsmGraph::turn_rules`]); `false` keeps only the U-turn rule
    /// and the costs.
    pub restrictions: bool,
}

impl TurnOptions {
    /// The profile's defaults: its turn costs and restrictions; U-turns at dead ends only for cars and
    /// bicycles, everywhere for pedestrians.
    pub fn for_profile(profile: Profile) -> Self {
        let u_turns = if profile == Profile::Walk { UTurns::Everywhere } else { UTurns::DeadEndsOnly };
        Self { cost: TurnCost::Profile(profile), u_turns, restrictions: true }
    }
}

/// The cost of a turn of `theta` degrees (+ right) for a profile, in seconds (see [`TurnCost::Profile`]).
pub fn profile_turn_seconds(profile: Profile, theta: f64, u_turn: bool) -> f64 {
    let extra = if u_turn { 20.0 } else { 0.0 };
    match profile {
        Profile::Car => {
            let (p, b) = (7.5, 1.075);
            let base = if theta >= 0.0 {
                p / (1.0 + (-(13.0 / b * theta / 180.0 - 6.5 * b)).exp())
            } else {
                p / (1.0 + (-(13.0 * b * theta.abs() / 180.0 - 6.5 / b)).exp())
            };
            base + extra
        }
        Profile::Bike => {
            let q = (theta / 90.0).powi(2) * 6.0;
            (if theta >= 0.0 { q / 1.4 } else { q * 1.4 }) + extra
        }
        Profile::Walk => 0.0,
    }
}

/// What building a turn graph did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TurnReport {
    /// Arcs of the road graph (one vertex each).
    pub road_arcs: u64,
    /// Copies of via-way arcs.
    pub copies: u64,
    /// Turns kept (arcs between arc vertices, copies included).
    pub turns: u64,
    /// (from-arc, to-arc) pairs a restriction removed, U-turns included.
    pub banned_by_restrictions: u64,
    /// U-turns removed by the U-turn rule.
    pub u_turns_removed: u64,
    /// U-turns kept (dead ends, or allowed everywhere).
    pub u_turns_kept: u64,
    /// Road arcs whose vertex lies outside the largest strongly connected component of the turn graph
    /// (arcs a route may enter but not leave, or leave but not reach, once turns are obeyed).
    pub arcs_outside_largest_component: u64,
}

/// The edge-based graph: see the module documentation.
#[derive(Debug, Clone)]
pub struct TurnGraph {
    /// The graph every engine runs on (`u32` weights, as the road graph's).
    pub graph: Csr<u32>,
    /// The road arc each arc vertex stands for (copies included); `base_arc.len()` arc vertices come
    /// first, then the source vertices of the road nodes, then their target vertices.
    pub base_arc: Vec<u32>,
    /// Tail and head node of each road arc.
    ends: Vec<(VertexId, VertexId)>,
    /// Road nodes.
    nodes: u32,
    /// What the build did.
    pub report: TurnReport,
}

impl TurnGraph {
    /// Builds the turn graph of `road`: `turn(a, b)` is the cost of turning from road arc `a` onto road
    /// arc `b` (which leaves the head of `a`), `None` where the turn is banned; `via_chains` are
    /// via-way restrictions as arc sequences (from-arc, via arcs…, to-arc) of at least three arcs, each
    /// following the one before. No two chains may share their from-arc, nor may one's from-arc lie on
    /// another's via arcs (an [`GraphError::InvalidParameter`] says which): such overlaps need
    /// transfer arcs between the copies, not built here; the OSM resolution skips them as
    /// [`crate::osm::SkipReason::ViaOverlap`].
    pub fn new(
        road: &Csr<u32>,
        turn: impl Fn(u32, u32) -> Option<u32>,
        via_chains: &[(RestrictionKind, Vec<u32>)],
    ) -> Result<Self, GraphError> {
        let m = road.num_arcs() as usize;
        let n = road.num_vertices();
        let tails = road.arc_tails();
        let heads = road.targets();
        let w = road.weights();
        // Exits of each arc vertex: (target vertex, weight); copies appended below.
        let mut exits: Vec<Vec<(u32, u32)>> = (0..m)
            .map(|a| {
                road.arc_range(heads[a])
                    .filter_map(|b| turn(a as u32, b as u32).map(|c| (b as u32, w[b].saturating_add(c))))
                    .collect()
            })
            .collect();
        for (k, (_, chain)) in via_chains.iter().enumerate() {
            let walk = chain.len() >= 3
                && chain.iter().all(|&a| (a as usize) < m)
                && chain.windows(2).all(|p| tails[p[1] as usize] == heads[p[0] as usize]);
            if !walk {
                return Err(GraphError::InvalidParameter(format!(
                    "via chain {k} ({chain:?}) is not a walk of at least three road arcs"
                )));
            }
            if let Some(j) =
                via_chains[..k].iter().position(|(_, c)| crate::osm::restriction::chains_overlap(c, chain))
            {
                return Err(GraphError::InvalidParameter(format!(
                    "via chains {j} and {k} overlap (same from-arc, or a from-arc on the other's via arcs)"
                )));
            }
        }
        let mut base_arc: Vec<u32> = (0..m as u32).collect();
        let mut report = TurnReport { road_arcs: m as u64, ..Default::default() };
        for (kind, chain) in via_chains {
            let via = &chain[1..chain.len() - 1];
            let to = chain[chain.len() - 1];
            let first_copy = base_arc.len() as u32;
            for (i, &a) in via.iter().enumerate() {
                let next_copy = first_copy + i as u32 + 1;
                let last = i + 1 == via.len();
                let mut out: Vec<(u32, u32)> = exits[a as usize].clone();
                match (kind, last) {
                    (RestrictionKind::No, false) => {
                        for e in &mut out {
                            if e.0 == via[i + 1] {
                                e.0 = next_copy;
                            }
                        }
                    }
                    (RestrictionKind::Only, false) => {
                        out.retain(|e| e.0 == via[i + 1]);
                        for e in &mut out {
                            e.0 = next_copy;
                        }
                    }
                    (RestrictionKind::No, true) => out.retain(|e| e.0 != to),
                    (RestrictionKind::Only, true) => out.retain(|e| e.0 == to),
                }
                exits.push(out);
                base_arc.push(a);
            }
            for e in &mut exits[chain[0] as usize] {
                if e.0 == via[0] {
                    e.0 = first_copy;
                }
            }
            report.copies += via.len() as u64;
        }
        let arc_vertices = base_arc.len();
        let total = arc_vertices as u64 + 2 * n as u64;
        if total >= u32::MAX as u64 {
            return Err(GraphError::InvalidParameter(format!(
                "a turn graph of {total} vertices (arcs, copies and two terminals per node) exceeds u32 ids"
            )));
        }
        let source0 = arc_vertices as u32;
        let target0 = source0 + n;
        let mut offsets = Vec::with_capacity(total as usize + 1);
        let mut targets = Vec::new();
        let mut weights = Vec::new();
        offsets.push(0u32);
        for (v, out) in exits.iter().enumerate() {
            report.turns += out.len() as u64;
            for &(t, c) in out {
                targets.push(t);
                weights.push(c);
            }
            // Arriving at the head of this arc ends a route there.
            targets.push(target0 + heads[base_arc[v] as usize]);
            weights.push(0);
            offsets.push(targets.len() as u32);
        }
        for s in 0..n {
            for a in road.arc_range(s) {
                targets.push(a as u32);
                weights.push(w[a]);
            }
            targets.push(target0 + s);
            weights.push(0);
            offsets.push(targets.len() as u32);
        }
        for _ in 0..n {
            offsets.push(targets.len() as u32);
        }
        if targets.len() >= u32::MAX as usize {
            return Err(GraphError::TooManyArcs { arcs: targets.len() as u64, max: u32::MAX as u64 - 1 });
        }
        let graph = Csr::from_parts(offsets, targets, weights)?;
        let ends = (0..m).map(|a| (tails[a], heads[a])).collect();
        let comps = strongly_connected(&graph);
        if let Some(largest) = comps.largest() {
            report.arcs_outside_largest_component = (0..m).filter(|&a| comps.of[a] != largest).count() as u64;
        }
        Ok(Self { graph, base_arc, ends, nodes: n, report })
    }

    /// The turn graph of an imported OSM graph, with the profile's turn costs, U-turn rule and the
    /// file's restrictions as `options` say.
    ///
    /// ```
    /// use urbanflow::graph::osm::{OsmOptions, Profile, import};
    /// use urbanflow::graph::turns::{TurnGraph, TurnOptions};
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/restrictions.osm");
    /// let g = import(path, &OsmOptions { largest_component: false, ..OsmOptions::new(Profile::Car) })?;
    /// let t = TurnGraph::from_osm(&g, &TurnOptions::for_profile(Profile::Car))?;
    /// assert!(t.report.banned_by_restrictions > 0);
    /// # Ok::<(), urbanflow::graph::GraphError>(())
    /// ```
    pub fn from_osm(g: &OsmGraph, options: &TurnOptions) -> Result<Self, GraphError> {
        let road = &g.graph;
        let tails = road.arc_tails();
        let heads = road.targets();
        let n = road.num_vertices() as usize;
        // Distinct neighbours of each node, either direction.
        let mut pairs: Vec<(u32, u32)> =
            tails.iter().zip(heads).flat_map(|(&u, &v)| [(u, v), (v, u)]).filter(|p| p.0 != p.1).collect();
        pairs.sort_unstable();
        pairs.dedup();
        let mut neighbours = vec![0u32; n];
        for p in &pairs {
            neighbours[p.0 as usize] += 1;
        }
        let rules = &g.turn_rules;
        let banned = |a: u32, b: u32| options.restrictions && rules.banned.binary_search(&(a, b)).is_ok();
        let only = |a: u32| {
            if !options.restrictions {
                return None;
            }
            rules.only.binary_search_by_key(&a, |o| o.0).ok().map(|k| &rules.only[k].1)
        };
        let bearing = |u: u32, v: u32| {
            let (la, lo) = g.coords[u as usize];
            let (lb, lob) = g.coords[v as usize];
            let dx = (lob - lo) * ((la + lb) / 2.0).to_radians().cos();
            (dx).atan2(lb - la).to_degrees()
        };
        let u_turn = |a: u32, b: u32| heads[b as usize] == tails[a as usize];
        // Allowed exits before the U-turn rule, so that it can ask whether any other remains.
        let allowed = |a: u32, b: u32| match only(a) {
            Some(list) => list.contains(&b),
            None => !banned(a, b),
        };
        let counts = std::cell::Cell::new((0u64, 0u64, 0u64));
        let turn = |a: u32, b: u32| -> Option<u32> {
            let via = heads[a as usize];
            let is_u = u_turn(a, b);
            if !allowed(a, b) {
                let c = counts.get();
                counts.set((c.0 + 1, c.1, c.2));
                return None;
            }
            if is_u && only(a).is_none() && options.u_turns == UTurns::DeadEndsOnly {
                let other = road.arc_range(via).any(|x| !u_turn(a, x as u32) && allowed(a, x as u32));
                let c = counts.get();
                if other {
                    counts.set((c.0, c.1 + 1, c.2));
                    return None;
                }
                counts.set((c.0, c.1, c.2 + 1));
            } else if is_u {
                let c = counts.get();
                counts.set((c.0, c.1, c.2 + 1));
            }
            let geometry = || {
                let theta = if is_u {
                    180.0
                } else {
                    let mut d = bearing(via, heads[b as usize]) - bearing(tails[a as usize], via);
                    while d <= -180.0 {
                        d += 360.0;
                    }
                    while d > 180.0 {
                        d -= 360.0;
                    }
                    d
                };
                Turn { angle_deg: theta, u_turn: is_u, junction: neighbours[via as usize] >= 3 }
            };
            let ms = match &options.cost {
                TurnCost::Free => 0,
                TurnCost::Profile(p) => {
                    let t = geometry();
                    if t.junction || t.u_turn {
                        (profile_turn_seconds(*p, t.angle_deg, t.u_turn) * 1000.0).round() as u32
                    } else {
                        0
                    }
                }
                TurnCost::Custom(f) => f(&geometry()),
            };
            Some(ms)
        };
        let chains: &[(RestrictionKind, Vec<u32>)] = if options.restrictions { &rules.via_ways } else { &[] };
        let mut t = Self::new(road, turn, chains)?;
        let (banned_n, removed, kept) = counts.get();
        t.report.banned_by_restrictions = banned_n;
        t.report.u_turns_removed = removed;
        t.report.u_turns_kept = kept;
        Ok(t)
    }

    /// Road nodes.
    pub fn num_nodes(&self) -> u32 {
        self.nodes
    }

    /// The vertex a route from road node `node` starts at.
    pub fn source(&self, node: VertexId) -> VertexId {
        self.base_arc.len() as u32 + node
    }

    /// The vertex a route to road node `node` ends at.
    pub fn target(&self, node: VertexId) -> VertexId {
        self.base_arc.len() as u32 + self.nodes + node
    }

    /// The road node of a source or target vertex; `None` for arc vertices.
    pub fn terminal_node(&self, v: VertexId) -> Option<VertexId> {
        let first = self.source(0);
        (v >= first && v < first + 2 * self.nodes).then(|| (v - first) % self.nodes)
    }

    /// Distances to every road node from a row of turn-graph distances (a one-source tree from a
    /// [`TurnGraph::source`] vertex): the values at the target vertices.
    pub fn node_row<'a, T: Copy>(&self, row: &'a [T]) -> &'a [T] {
        let t0 = self.target(0) as usize;
        &row[t0..t0 + self.nodes as usize]
    }

    /// The road arcs a turn-graph path crosses, in order (terminals dropped, copies mapped to their
    /// originals).
    pub fn path_arcs(&self, path: &[VertexId]) -> Vec<u32> {
        path.iter()
            .filter(|&&v| (v as usize) < self.base_arc.len())
            .map(|&v| self.base_arc[v as usize])
            .collect()
    }

    /// The road nodes a turn-graph path visits: the tail of its first arc and the head of each.
    /// A path from a node to itself gives that node alone.
    pub fn path_nodes(&self, path: &[VertexId]) -> Vec<VertexId> {
        let arcs = self.path_arcs(path);
        match arcs.first() {
            None => path.first().and_then(|&s| self.terminal_node(s)).map(|v| vec![v]).unwrap_or_default(),
            Some(&a) => std::iter::once(self.ends[a as usize].0)
                .chain(arcs.iter().map(|&a| self.ends[a as usize].1))
                .collect(),
        }
    }
}
