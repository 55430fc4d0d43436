//! Turn restrictions from OpenStreetMap `type=restriction` relations: which value binds a profile
//! (§1.2 of `specs/turns.md`: `restriction:<mode>`, `except=`, conditional restrictions), and how a
//! relation's members resolve to arcs of an imported graph (§1.3), with every skipped relation counted
//! under its reason in [`RestrictionReport`].
//!
//! The result, [`TurnRules`], is what [`crate::turns::TurnGraph`] builds on: for each arc entering a
//! junction the exits it may not take (`no_*`) or the only exits it may take (`only_*`), and via-way
//! restrictions as whole arc sequences.

use std::collections::BTreeMap;

use super::Profile;
use crate::VertexId;
use crate::csr::Csr;

/// Whether a restriction forbids its turn or forbids every other one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RestrictionKind {
    /// `no_left_turn`, `no_right_turn`, `no_straight_on`, `no_u_turn`, `no_entry`, `no_exit`: the
    /// sequence from → via → to is forbidden.
    No,
    /// `only_left_turn`, `only_right_turn`, `only_straight_on`, `only_u_turn`: from the from-arc at the
    /// via, the to-arc is the only continuation (a U-turn included).
    Only,
}

/// Why a restriction relation was not applied (the first rule of §1.3 it failed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum SkipReason {
    /// Only `restriction:<mode>` keys for other modes (e.g. `restriction:hgv` for a car).
    NotForProfile,
    /// `except=` names one of the profile's modes.
    Except,
    /// Only a `restriction:conditional` value, which is not evaluated.
    Conditional,
    /// A value that is no turn ban (`none`, `give_way`, `no_right_turn_on_red`, misspellings).
    UnknownValue,
    /// Members missing or of the wrong type or role: no `from` or `to` way, a via that is neither one
    /// node nor ways only.
    Malformed,
    /// Several `from` ways outside `no_entry`, or several `to` ways outside `no_exit`.
    MultiFromTo,
    /// A member way (or the via node) is not in the file: the extract clipped it.
    MemberMissing,
    /// A member way is in the file but not usable by the profile.
    NotRoutable,
    /// The via node lies inside the from- or to-way, or the way is closed: which of its two segments
    /// is meant is unknown.
    NotSplit,
    /// The from- or to-way does not touch the via.
    NotAtVia,
    /// The from-arc does not lead into the via (or the to-arc out of it) in the profile's direction,
    /// or the segment is not in the imported graph (clipped node, outside the kept component).
    WrongDirection,
    /// No chain from the from-arc over every via way to the to-arc.
    ViaDisconnected,
    /// Several such chains.
    ViaAmbiguous,
    /// A via-way restriction that overlaps another one (same from-arc, or one's from-arc on the other's
    /// via arcs): joining such chains needs OSRM's transfer arcs, which v1 does not build.
    ViaOverlap,
}

impl SkipReason {
    /// The reason's short name, as reports print it.
    pub fn name(self) -> &'static str {
        match self {
            Self::NotForProfile => "not_for_profile",
            Self::Except => "except",
            Self::Conditional => "conditional",
            Self::UnknownValue => "unknown_value",
            Self::Malformed => "malformed",
            Self::MultiFromTo => "multi_from_to",
            Self::MemberMissing => "member_missing",
            Self::NotRoutable => "not_routable",
            Self::NotSplit => "not_split",
            Self::NotAtVia => "not_at_via",
            Self::WrongDirection => "wrong_direction",
            Self::ViaDisconnected => "via_disconnected",
            Self::ViaAmbiguous => "via_ambiguous",
            Self::ViaOverlap => "via_overlap",
        }
    }
}

/// What happened to the file's restriction relations for one profile.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RestrictionReport {
    /// `type=restriction` relations in the file.
    pub relations: u64,
    /// Applied with a via node: `no_*` relations.
    pub via_node_no: u64,
    /// Applied with a via node: `only_*` relations.
    pub via_node_only: u64,
    /// Applied with via ways.
    pub via_way: u64,
    /// `only_*` relations on one from-arc and via with different to-arcs: their union is allowed.
    pub only_conflicts: u64,
    /// Skipped relations by reason.
    pub skipped: BTreeMap<SkipReason, u64>,
}

impl RestrictionReport {
    /// Relations applied, of every kind.
    pub fn applied(&self) -> u64 {
        self.via_node_no + self.via_node_only + self.via_way
    }

    /// Relations skipped, for every reason.
    pub fn skipped_total(&self) -> u64 {
        self.skipped.values().sum()
    }
}

/// A member of a relation as the file gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// `node`, `way` or `relation`.
    pub kind: MemberKind,
    /// The member's OSM id.
    pub id: i64,
    /// Its role (`from`, `via`, `to`, ...).
    pub role: String,
}

/// The type of a relation member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberKind {
    /// A node.
    Node,
    /// A way.
    Way,
    /// A relation.
    Relation,
}

/// A restriction relation whose value binds the profile and whose members are well formed, not yet
/// resolved to arcs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parsed {
    pub id: i64,
    pub kind: RestrictionKind,
    pub from: Vec<i64>,
    pub via_node: Option<i64>,
    pub via_ways: Vec<i64>,
    pub to: Vec<i64>,
}

/// The OSM modes a profile answers to, most specific first (after OSRM's car, bicycle and foot
/// profiles).
fn modes(profile: Profile) -> &'static [&'static str] {
    match profile {
        Profile::Car => &["motorcar", "motor_vehicle", "vehicle"],
        Profile::Bike => &["bicycle", "vehicle"],
        Profile::Walk => &["foot"],
    }
}

/// Reads a relation's tags and members: `None` for relations that are not restrictions, else the
/// parsed restriction or the reason it does not apply to `profile`.
pub(crate) fn parse<'a>(
    id: i64,
    tags: impl Iterator<Item = (&'a str, &'a str)>,
    members: Vec<Member>,
    profile: Profile,
) -> Option<Result<Parsed, SkipReason>> {
    let tags: Vec<(&str, &str)> = tags.collect();
    let tag = |k: &str| tags.iter().find(|t| t.0 == k).map(|t| t.1);
    if tag("type") != Some("restriction") {
        return None;
    }
    Some(parse_restriction(id, &tags, members, profile))
}

fn parse_restriction(
    id: i64,
    tags: &[(&str, &str)],
    members: Vec<Member>,
    profile: Profile,
) -> Result<Parsed, SkipReason> {
    let tag = |k: &str| tags.iter().find(|t| t.0 == k).map(|t| t.1.trim());
    let own = modes(profile);
    // The most specific key that names one of the profile's modes; pedestrians obey only their own.
    let specific = own.iter().find_map(|m| tag(&format!("restriction:{m}")));
    let plain_binds = profile != Profile::Walk;
    let value = match specific.or(if plain_binds { tag("restriction") } else { None }) {
        Some(v) => v,
        None => {
            let conditional = own.iter().any(|m| tag(&format!("restriction:{m}:conditional")).is_some())
                || (plain_binds && tag("restriction:conditional").is_some());
            return Err(if conditional { SkipReason::Conditional } else { SkipReason::NotForProfile });
        }
    };
    if let Some(except) = tag("except")
        && except.split(';').map(str::trim).any(|m| own.contains(&m))
    {
        return Err(SkipReason::Except);
    }
    let (kind, many_from, many_to) = match value {
        "no_left_turn" | "no_right_turn" | "no_straight_on" | "no_u_turn" => {
            (RestrictionKind::No, false, false)
        }
        "no_entry" => (RestrictionKind::No, true, false),
        "no_exit" => (RestrictionKind::No, false, true),
        "only_left_turn" | "only_right_turn" | "only_straight_on" | "only_u_turn" => {
            (RestrictionKind::Only, false, false)
        }
        _ => return Err(SkipReason::UnknownValue),
    };
    let (mut from, mut to, mut via_nodes, mut via_ways) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for m in members {
        match (m.role.as_str(), m.kind) {
            ("from", MemberKind::Way) => from.push(m.id),
            ("to", MemberKind::Way) => to.push(m.id),
            ("via", MemberKind::Node) => via_nodes.push(m.id),
            ("via", MemberKind::Way) => via_ways.push(m.id),
            ("from" | "to" | "via", _) => return Err(SkipReason::Malformed),
            // Other roles (`location_hint`, ...) carry no meaning for routing.
            _ => {}
        }
    }
    if from.is_empty() || to.is_empty() || via_nodes.len() + via_ways.len() == 0 {
        return Err(SkipReason::Malformed);
    }
    if via_nodes.len() > 1 || (!via_nodes.is_empty() && !via_ways.is_empty()) {
        return Err(SkipReason::Malformed);
    }
    if (from.len() > 1 && !many_from) || (to.len() > 1 && !many_to) {
        return Err(SkipReason::MultiFromTo);
    }
    Ok(Parsed { id, kind, from, via_node: via_nodes.first().copied(), via_ways, to })
}

/// A way the profile may use, as the import keeps it for resolving restrictions.
#[derive(Debug, Clone)]
pub(crate) struct WayNodes {
    pub id: i64,
    pub refs: Vec<i64>,
}

/// Restrictions resolved to arcs of an [`crate::osm::OsmGraph`] (CSR arc ids).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TurnRules {
    /// Via-node `no_*`: (from-arc, to-arc) pairs, sorted, without repeats.
    pub banned: Vec<(u32, u32)>,
    /// Via-node `only_*`: from-arc → the exits allowed (the union where several relations name one
    /// from-arc), sorted by from-arc.
    pub only: Vec<(u32, Vec<u32>)>,
    /// Via-way restrictions: the arc sequence from-arc, via arcs…, to-arc, with its kind.
    pub via_ways: Vec<(RestrictionKind, Vec<u32>)>,
    /// What was applied and skipped.
    pub report: RestrictionReport,
}

/// Looks arcs and ways up while resolving.
pub(crate) struct Resolver<'g> {
    pub graph: &'g Csr<u32>,
    /// OSM id of each vertex, increasing.
    pub osm_ids: &'g [i64],
    /// Every way id in the file, sorted.
    pub all_ways: &'g [i64],
    /// The profile's usable ways, sorted by id.
    pub usable: &'g [WayNodes],
}

impl Resolver<'_> {
    fn vertex(&self, osm: i64) -> Option<VertexId> {
        self.osm_ids.binary_search(&osm).ok().map(|v| v as VertexId)
    }

    fn arc(&self, u: VertexId, v: VertexId) -> Option<u32> {
        let r = self.graph.arc_range(u);
        self.graph.targets()[r.clone()].iter().position(|&t| t == v).map(|k| (r.start + k) as u32)
    }

    fn way(&self, id: i64) -> Result<&WayNodes, SkipReason> {
        match self.usable.binary_search_by_key(&id, |w| w.id) {
            // A way without nodes has no segment to turn from or onto.
            Ok(k) if self.usable[k].refs.is_empty() => Err(SkipReason::NotRoutable),
            Ok(k) => Ok(&self.usable[k]),
            Err(_) if self.all_ways.binary_search(&id).is_ok() => Err(SkipReason::NotRoutable),
            Err(_) => Err(SkipReason::MemberMissing),
        }
    }

    /// The neighbour of `via` along `way`, where `via` ends it (repeated nodes skipped).
    fn neighbour_at_end(way: &WayNodes, via: i64) -> Result<i64, SkipReason> {
        let mut refs = way.refs.clone();
        refs.dedup();
        if refs.len() < 2 {
            return Err(SkipReason::NotAtVia);
        }
        let (first, last) = (refs[0], refs[refs.len() - 1]);
        if first == last {
            return Err(SkipReason::NotSplit);
        }
        if first == via {
            Ok(refs[1])
        } else if last == via {
            Ok(refs[refs.len() - 2])
        } else if refs.contains(&via) {
            Err(SkipReason::NotSplit)
        } else {
            Err(SkipReason::NotAtVia)
        }
    }

    /// The arc from OSM node `a` to OSM node `b`.
    fn arc_between(&self, a: i64, b: i64) -> Result<u32, SkipReason> {
        let (Some(u), Some(v)) = (self.vertex(a), self.vertex(b)) else {
            return Err(SkipReason::WrongDirection);
        };
        self.arc(u, v).ok_or(SkipReason::WrongDirection)
    }

    /// The arcs of `way` walked from its end `start` to its other end, or `None` where the profile
    /// may not travel it that way.
    fn traverse(&self, way: &WayNodes, start: i64) -> Option<(Vec<u32>, i64)> {
        let mut refs = way.refs.clone();
        refs.dedup();
        if refs.len() < 2 || refs[0] == refs[refs.len() - 1] {
            return None;
        }
        if refs[refs.len() - 1] == start {
            refs.reverse();
        } else if refs[0] != start {
            return None;
        }
        let arcs = refs.windows(2).map(|p| self.arc_between(p[0], p[1]).ok()).collect::<Option<Vec<_>>>()?;
        Some((arcs, refs[refs.len() - 1]))
    }

    /// Resolves one parsed restriction to arc sequences (one per from/to pair).
    pub(crate) fn resolve(&self, r: &Parsed) -> Result<Vec<Vec<u32>>, SkipReason> {
        let from: Vec<&WayNodes> = r.from.iter().map(|&w| self.way(w)).collect::<Result<_, _>>()?;
        let to: Vec<&WayNodes> = r.to.iter().map(|&w| self.way(w)).collect::<Result<_, _>>()?;
        let via: Vec<&WayNodes> = r.via_ways.iter().map(|&w| self.way(w)).collect::<Result<_, _>>()?;
        let mut out = Vec::new();
        if let Some(node) = r.via_node {
            for f in &from {
                let x = Self::neighbour_at_end(f, node)?;
                let from_arc = self.arc_between(x, node)?;
                for t in &to {
                    let y = Self::neighbour_at_end(t, node)?;
                    let to_arc = self.arc_between(node, y)?;
                    out.push(vec![from_arc, to_arc]);
                }
            }
            return Ok(out);
        }
        for f in &from {
            for t in &to {
                out.push(self.chain(f, &via, t)?);
            }
        }
        Ok(out)
    }

    /// The unique chain from-arc → every via way once, in any order and direction the profile may
    /// travel → to-arc.
    fn chain(&self, from: &WayNodes, via: &[&WayNodes], to: &WayNodes) -> Result<Vec<u32>, SkipReason> {
        let mut found: Vec<Vec<u32>> = Vec::new();
        let ends = |w: &WayNodes| {
            let mut r = w.refs.clone();
            r.dedup();
            (r[0], r[r.len() - 1])
        };
        let (f0, f1) = ends(from);
        // The from-way enters the chain at one of its ends.
        for at in [f0, f1] {
            let Ok(prev) = Self::neighbour_at_end(from, at) else { continue };
            let Ok(from_arc) = self.arc_between(prev, at) else { continue };
            let mut used = vec![false; via.len()];
            let mut path = vec![from_arc];
            self.extend(at, via, &mut used, &mut path, to, &mut found);
        }
        match found.len() {
            0 => Err(SkipReason::ViaDisconnected),
            1 => Ok(found.pop().expect("one chain")),
            _ => Err(SkipReason::ViaAmbiguous),
        }
    }

    fn extend(
        &self,
        at: i64,
        via: &[&WayNodes],
        used: &mut [bool],
        path: &mut Vec<u32>,
        to: &WayNodes,
        found: &mut Vec<Vec<u32>>,
    ) {
        if used.iter().all(|&u| u) {
            if let Ok(next) = Self::neighbour_at_end(to, at)
                && let Ok(to_arc) = self.arc_between(at, next)
            {
                let mut chain = path.clone();
                chain.push(to_arc);
                if !found.contains(&chain) {
                    found.push(chain);
                }
            }
            return;
        }
        for k in 0..via.len() {
            if used[k] {
                continue;
            }
            let Some((arcs, end)) = self.traverse(via[k], at) else { continue };
            used[k] = true;
            let len = path.len();
            path.extend(arcs);
            self.extend(end, via, used, path, to, found);
            path.truncate(len);
            used[k] = false;
        }
    }
}

/// Resolves every parsed restriction against the graph: the rules, and the report of what was
/// applied and skipped (`relations` counts every `type=restriction` relation read).
pub(crate) fn resolve_all(parsed: &[Result<Parsed, SkipReason>], resolver: &Resolver<'_>) -> TurnRules {
    let mut rules = TurnRules::default();
    let mut only: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    rules.report.relations = parsed.len() as u64;
    let skip = |report: &mut RestrictionReport, why: SkipReason| *report.skipped.entry(why).or_default() += 1;
    for r in parsed {
        let r = match r {
            Ok(r) => r,
            Err(why) => {
                skip(&mut rules.report, *why);
                continue;
            }
        };
        let sequences = match resolver.resolve(r) {
            Ok(s) => s,
            Err(why) => {
                skip(&mut rules.report, why);
                continue;
            }
        };
        if r.via_node.is_some() {
            match r.kind {
                RestrictionKind::No => {
                    rules.report.via_node_no += 1;
                    rules.banned.extend(sequences.iter().map(|s| (s[0], s[1])));
                }
                RestrictionKind::Only => {
                    rules.report.via_node_only += 1;
                    for s in &sequences {
                        let allowed = only.entry(s[0]).or_default();
                        if !allowed.is_empty() && !allowed.contains(&s[1]) {
                            rules.report.only_conflicts += 1;
                        }
                        if !allowed.contains(&s[1]) {
                            allowed.push(s[1]);
                        }
                    }
                }
            }
        } else {
            if sequences.iter().any(|s| rules.via_ways.iter().any(|(_, w)| chains_overlap(w, s))) {
                skip(&mut rules.report, SkipReason::ViaOverlap);
                continue;
            }
            rules.report.via_way += 1;
            rules.via_ways.extend(sequences.into_iter().map(|s| (r.kind, s)));
        }
    }
    rules.banned.sort_unstable();
    rules.banned.dedup();
    rules.only = only
        .into_iter()
        .map(|(a, mut b)| {
            b.sort_unstable();
            (a, b)
        })
        .collect();
    rules
}

/// Two via-way chains that the turn graph cannot build side by side: the same from-arc, or the
/// from-arc of one on the via arcs of the other (see [`crate::turns::TurnGraph::new`]).
pub(crate) fn chains_overlap(a: &[u32], b: &[u32]) -> bool {
    let via = |c: &[u32]| c[1..c.len() - 1].to_vec();
    a[0] == b[0] || via(a).contains(&b[0]) || via(b).contains(&a[0])
}
