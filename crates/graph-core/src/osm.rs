//! Routable road graphs from OpenStreetMap PBF extracts, for cars, bicycles or pedestrians.
//!
//! [`import`] reads the file once (nodes, then ways, then relations, as OSM files order them; PBF
//! decoding through the `osmpbf` crate, OSM XML through `roxmltree`), keeps the ways the profile may use, cuts each into arcs between consecutive nodes,
//! and returns an [`OsmGraph`]: a [`Csr`] whose `u32` weights are travel times in **milliseconds**
//! (rounded; what the shortest-path engines run on), with per-arc real-valued travel time (s) and
//! length (m), per-vertex coordinates and OSM node ids, restricted by default to its largest strongly
//! connected component so that every vertex can reach every other. [`OsmGraph::snap`] snaps a
//! coordinate to the nearest vertex (an R-tree from the `rstar` crate) and refuses points farther than
//! a limit from every road ([`DEFAULT_SNAP_LIMIT_M`], 1 km, by default); NaN or out-of-range
//! coordinates are errors, never a guess. OSM XML (`.osm`) files are read too (recognised by their
//! first bytes, held in memory whole: meant for small maps), and [`import_elements`] takes elements
//! built in memory.
//!
//! **Turn restrictions**: `type=restriction` relations (via a node or via ways; `no_*` and `only_*`;
//! `restriction:<mode>` and `except=` per profile; `no_entry`/`no_exit`) are resolved to arcs of the
//! imported graph into [`OsmGraph::turn_rules`], every relation counted as applied or skipped with its
//! reason ([`RestrictionReport`]; the rules are in [`restriction`]). The node graph itself ignores
//! them: route on a [`crate::turns::TurnGraph`] to obey them.
//!
//! What the profiles do (every rule is in this file, and speeds can be overridden per highway class
//! with [`OsmOptions::speeds_kmh`]):
//! - **car**: highway classes from `motorway` to `service` (table in [`Profile::default_speed_kmh`]);
//!   `access=no|private` excludes a way unless `motor_vehicle`/`motorcar` allows it, and
//!   `motor_vehicle`/`motorcar=no|private` excludes it; `oneway=yes|true|1` (and `-1|reverse`),
//!   `junction=roundabout|circular` and `highway=motorway` are one-way unless `oneway=no`. Speed: a
//!   parseable `maxspeed` (`50`, `50 km/h`, `30 mph`), else the class default.
//! - **bike**: `cycleway`, `path`, `track`, the road classes from `primary` down, and `footway`,
//!   `pedestrian` or `trunk` where `bicycle=yes|designated|permissive`; `bicycle=no` and
//!   `access=no|private` (without a bicycle permission) exclude; one-way rules as cars unless
//!   `oneway:bicycle=no` or a `cycleway=opposite*` lane. 15 km/h.
//! - **walk**: every path and road class except motorways and trunks (unless `foot=yes`), `steps`
//!   included; `foot=no` and `access=no|private` (without a foot permission) exclude; both directions.
//!   5 km/h.
//!
//! Ways that reference nodes missing from the file (clipped extracts) are cut at those nodes: the
//! segments next to a missing node are dropped, the rest kept, and both are counted in [`OsmReport`].
//!
//! ```no_run
//! use urbanflow::graph::osm::{OsmOptions, Profile, import};
//! let g = import("porto.osm.pbf", &OsmOptions::new(Profile::Car))?;
//! let (from, snapped_m) = g.snap(41.1496, -8.6109, urbanflow::graph::osm::DEFAULT_SNAP_LIMIT_M)?;
//! println!("{} vertices; Porto's centre is {snapped_m:.0} m from vertex {from}", g.graph.num_vertices());
//! # Ok::<(), urbanflow::graph::GraphError>(())
//! ```

#[cfg(feature = "pbf")]
mod pbf;
pub(crate) mod profile;
pub mod restriction;
mod xml;

pub use profile::Profile;
pub use restriction::{Member, MemberKind, RestrictionKind, RestrictionReport, SkipReason, TurnRules};

use crate::GraphError;
use std::collections::HashMap;
use std::path::Path;

use crate::VertexId;
use crate::csr::Csr;
use crate::geojson::Feature;
use crate::scc::strongly_connected;

/// How far from the nearest vertex a coordinate may lie and still be snapped, by default (metres).
pub const DEFAULT_SNAP_LIMIT_M: f64 = 1000.0;

/// Mean Earth radius (IUGG), metres.
const EARTH_RADIUS_M: f64 = 6_371_008.8;

/// Road classes below trunk: bicycles and pedestrians may use them by default.
const ROADS: [&str; 12] = [
    "primary",
    "primary_link",
    "secondary",
    "secondary_link",
    "tertiary",
    "tertiary_link",
    "unclassified",
    "residential",
    "road",
    "service",
    "living_street",
    "track",
];

/// Paths that pedestrians may use by default besides the roads.
const FOOT_ONLY: [&str; 7] = ["footway", "pedestrian", "path", "steps", "cycleway", "bridleway", "corridor"];

impl Profile {
    /// The speed (km/h) of a highway class when the way states none, or `None` when the class is not
    /// routable for this profile by default. Cars: motorway 100, trunk 80, primary 60, secondary 50,
    /// tertiary 40, their links 30–60, unclassified and residential 30, road 30, service 15,
    /// living_street 10. Bicycles 15 and pedestrians 5 on every class they may use.
    pub fn default_speed_kmh(self, highway: &str) -> Option<f64> {
        match self {
            Self::Car => Some(match highway {
                "motorway" => 100.0,
                "motorway_link" => 60.0,
                "trunk" => 80.0,
                "trunk_link" => 50.0,
                "primary" => 60.0,
                "primary_link" => 40.0,
                "secondary" => 50.0,
                "secondary_link" => 35.0,
                "tertiary" => 40.0,
                "tertiary_link" => 30.0,
                "unclassified" | "residential" | "road" => 30.0,
                "service" => 15.0,
                "living_street" => 10.0,
                _ => return None,
            }),
            Self::Bike => {
                (ROADS.contains(&highway) || ["cycleway", "path", "track"].contains(&highway)).then_some(15.0)
            }
            Self::Walk => (ROADS.contains(&highway) || FOOT_ONLY.contains(&highway)).then_some(5.0),
        }
    }
}

/// How to import.
#[derive(Debug, Clone)]
pub struct OsmOptions {
    /// Who travels.
    pub profile: Profile,
    /// Speeds (km/h) per highway class that replace the profile's defaults; a class listed here
    /// becomes routable even if the profile does not use it by default. For bicycles and pedestrians
    /// these also replace `maxspeed`, which only cars read.
    pub speeds_kmh: HashMap<String, f64>,
    /// Keep only the largest strongly connected component (default `true`).
    pub largest_component: bool,
}

impl OsmOptions {
    /// Defaults for a profile.
    pub fn new(profile: Profile) -> Self {
        Self { profile, speeds_kmh: HashMap::new(), largest_component: true }
    }
}

/// What the import saw and did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OsmReport {
    /// Nodes in the file.
    pub nodes_read: u64,
    /// Ways in the file.
    pub ways_read: u64,
    /// Ways the profile uses.
    pub ways_used: u64,
    /// Ways cut because they reference nodes missing from the file.
    pub ways_cut: u64,
    /// References to missing nodes in the ways used.
    pub missing_node_refs: u64,
    /// Parallel arcs dropped (the fastest of each pair of vertices is kept).
    pub parallel_arcs_dropped: u64,
    /// Vertices and arcs before the restriction to the largest strongly connected component.
    pub vertices_before_scc: u64,
    /// See `vertices_before_scc`.
    pub arcs_before_scc: u64,
    /// Strongly connected components before the restriction.
    pub components: u64,
}

/// A unit for [`OsmGraph::graph_in`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OsmMetric {
    /// Travel time in seconds.
    Seconds,
    /// Length in metres.
    Metres,
}

/// A routable graph imported from OpenStreetMap.
#[derive(Debug, Clone)]
pub struct OsmGraph {
    /// Travel times in milliseconds (rounded, at least 1 on an arc of positive length).
    pub graph: Csr<u32>,
    /// Travel time of each arc, seconds (CSR arc order).
    pub travel_time_s: Vec<f64>,
    /// Length of each arc, metres.
    pub length_m: Vec<f64>,
    /// OSM id of the way each arc belongs to (of the kept one where parallel arcs were merged).
    pub way_ids: Vec<i64>,
    /// Latitude and longitude of each vertex, degrees.
    pub coords: Vec<(f64, f64)>,
    /// OSM node id of each vertex.
    pub osm_ids: Vec<i64>,
    /// The profile imported.
    pub profile: Profile,
    /// What the import saw.
    pub report: OsmReport,
    /// The file's turn restrictions that bind the profile, resolved to arcs, with the count of what was
    /// applied and skipped; [`crate::turns::TurnGraph`] routes with them.
    pub turn_rules: TurnRules,
    locator: rstar::RTree<rstar::primitives::GeomWithData<[f64; 3], VertexId>>,
}

/// Directions a way may be travelled in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Directions {
    forward: bool,
    backward: bool,
}

/// `maxspeed` in km/h, when it is a number with an optional unit.
fn parse_maxspeed(v: &str) -> Option<f64> {
    let v = v.trim();
    let (num, factor) = if let Some(n) = v.strip_suffix("mph") {
        (n.trim(), 1.609_344)
    } else if let Some(n) = v.strip_suffix("km/h").or_else(|| v.strip_suffix("kmh")) {
        (n.trim(), 1.0)
    } else {
        (v, 1.0)
    };
    num.parse::<f64>().ok().filter(|s| s.is_finite() && *s > 0.0).map(|s| s * factor)
}

/// The way's usable directions and speed (km/h) for `options`, or `None` when it is not usable.
fn classify(tags: &HashMap<&str, &str>, options: &OsmOptions) -> Option<(Directions, f64)> {
    let highway = *tags.get("highway")?;
    let tag = |k: &str| tags.get(k).copied();
    if tag("area") == Some("yes") {
        return None;
    }
    let allows = |v: Option<&str>| matches!(v, Some("yes" | "designated" | "permissive" | "destination"));
    let forbids = |v: Option<&str>| matches!(v, Some("no" | "private"));
    let profile = options.profile;
    let own = match profile {
        Profile::Car => tag("motor_vehicle").or(tag("motorcar")),
        Profile::Bike => tag("bicycle"),
        Profile::Walk => tag("foot"),
    };
    if forbids(own) || (forbids(tag("access")) && !allows(own)) {
        return None;
    }
    let class_speed = options.speeds_kmh.get(highway).copied().or_else(|| profile.default_speed_kmh(highway));
    let speed = match (profile, class_speed) {
        (Profile::Car, Some(s)) => tag("maxspeed").and_then(parse_maxspeed).unwrap_or(s),
        (_, Some(s)) => s,
        // Classes a profile uses only where the way says so.
        (Profile::Bike, None)
            if allows(own) && matches!(highway, "footway" | "pedestrian" | "trunk" | "trunk_link") =>
        {
            options.speeds_kmh.get(highway).copied().unwrap_or(15.0)
        }
        (Profile::Walk, None)
            if allows(own) && matches!(highway, "trunk" | "trunk_link" | "motorway" | "motorway_link") =>
        {
            options.speeds_kmh.get(highway).copied().unwrap_or(5.0)
        }
        _ => return None,
    };
    if !(speed.is_finite() && speed > 0.0) {
        return None;
    }
    let oneway = tag("oneway");
    let implied = matches!(tag("junction"), Some("roundabout" | "circular")) || highway == "motorway";
    let mut dirs = match oneway {
        Some("yes" | "true" | "1") => Directions { forward: true, backward: false },
        Some("-1" | "reverse") => Directions { forward: false, backward: true },
        Some("no" | "false" | "0") => Directions { forward: true, backward: true },
        _ if implied => Directions { forward: true, backward: false },
        _ => Directions { forward: true, backward: true },
    };
    match profile {
        Profile::Car => {}
        Profile::Bike => {
            let contraflow = tag("oneway:bicycle") == Some("no")
                || tag("cycleway").is_some_and(|c| c.starts_with("opposite"))
                || tag("cycleway:left").is_some_and(|c| c.starts_with("opposite"))
                || tag("cycleway:right").is_some_and(|c| c.starts_with("opposite"));
            if contraflow {
                dirs = Directions { forward: true, backward: true };
            }
        }
        Profile::Walk => {
            dirs = match tag("oneway:foot") {
                Some("yes") => Directions { forward: true, backward: false },
                Some("-1") => Directions { forward: false, backward: true },
                _ => Directions { forward: true, backward: true },
            };
        }
    }
    Some((dirs, speed))
}

/// Great-circle distance in metres (haversine).
pub fn haversine_m((lat1, lon1): (f64, f64), (lat2, lon2): (f64, f64)) -> f64 {
    let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
    let dp = p2 - p1;
    let dl = (lon2 - lon1).to_radians();
    let a = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_M * a.sqrt().min(1.0).asin()
}

/// Imports a routable graph from an OSM file: PBF (`.osm.pbf`), or OSM XML (`.osm`, recognised by its
/// first bytes). See the module documentation for the rules.
///
/// ```
/// use urbanflow::graph::osm::{OsmOptions, Profile, import};
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/restrictions.osm");
/// let g = import(path, &OsmOptions { largest_component: false, ..OsmOptions::new(Profile::Car) })?;
/// let (lat, lon) = g.coords[0];
/// assert_eq!(g.snap(lat, lon, 1.0)?.0, 0); // a vertex's own coordinate snaps to it
/// assert!(g.snap(0.0, 0.0, 1_000.0).is_err()); // the Gulf of Guinea is not on this map
/// # Ok::<(), urbanflow::graph::GraphError>(())
/// ```
pub fn import(path: impl AsRef<Path>, options: &OsmOptions) -> Result<OsmGraph, GraphError> {
    let path = path.as_ref();
    let mut collector = Collector::new(options);
    if is_xml(path)? {
        xml::read(path, &mut collector)?;
    } else {
        #[cfg(feature = "pbf")]
        pbf::read(path, &mut collector)?;
        #[cfg(not(feature = "pbf"))]
        return Err(GraphError::OsmMalformed {
            path: path.to_path_buf(),
            message: "not OSM XML, and this build reads no PBF (urbanflow's `pbf` feature is off; rebuild \
                      with it, or convert the file to OSM XML)"
                .into(),
        });
    }
    collector.finish(path)
}

/// Imports a routable graph from elements already in memory (tests, generated maps, other readers):
/// the same rules as [`import`], errors naming the source `<elements>`.
///
/// ```
/// use urbanflow::graph::osm::{OsmElement, OsmOptions, Profile, import_elements};
/// let node = |id, lon| OsmElement::Node { id, lat: 41.15, lon };
/// let road = OsmElement::Way { id: 10, refs: vec![1, 2], tags: vec![("highway".into(), "residential".into())] };
/// let g = import_elements(&[node(1, -8.61), node(2, -8.609), road], &OsmOptions::new(Profile::Car))?;
/// assert_eq!((g.graph.num_vertices(), g.graph.num_arcs()), (2, 2));
/// assert_eq!(g.way_ids, vec![10, 10]);
/// # Ok::<(), urbanflow::graph::GraphError>(())
/// ```
pub fn import_elements(elements: &[OsmElement], options: &OsmOptions) -> Result<OsmGraph, GraphError> {
    let mut collector = Collector::new(options);
    for e in elements {
        match e {
            OsmElement::Node { id, lat, lon } => {
                if !((-90.0..=90.0).contains(lat) && (-180.0..=180.0).contains(lon)) {
                    return Err(GraphError::BadCoordinate { lat: *lat, lon: *lon });
                }
                collector.node(*id, *lat, *lon)
            }
            OsmElement::Way { id, tags, refs } => {
                collector.way(*id, tags.iter().map(|(k, v)| (k.as_str(), v.as_str())), refs.iter().copied())
            }
            OsmElement::Relation { id, tags, members } => {
                collector.relation(*id, tags.iter().map(|(k, v)| (k.as_str(), v.as_str())), members.clone())
            }
        }
    }
    collector.finish(Path::new("<elements>"))
}

/// One OpenStreetMap element, for [`import_elements`].
#[derive(Debug, Clone, PartialEq)]
pub enum OsmElement {
    /// A node: id and coordinates (degrees).
    Node {
        /// OSM id.
        id: i64,
        /// Latitude.
        lat: f64,
        /// Longitude.
        lon: f64,
    },
    /// A way: id, tags and node references in order.
    Way {
        /// OSM id.
        id: i64,
        /// Tags, key and value.
        tags: Vec<(String, String)>,
        /// Node ids in order.
        refs: Vec<i64>,
    },
    /// A relation: id, tags and members (only `type=restriction` relations are read).
    Relation {
        /// OSM id.
        id: i64,
        /// Tags, key and value.
        tags: Vec<(String, String)>,
        /// Members in order.
        members: Vec<Member>,
    },
}

/// A way the profile may use.
struct UsableWay {
    id: i64,
    dirs: Directions,
    speed_kmh: f64,
    refs: Vec<i64>,
}

/// One arc between consecutive nodes of a way.
#[derive(Debug, Clone, Copy)]
struct RawArc {
    tail: VertexId,
    head: VertexId,
    seconds: f64,
    metres: f64,
    way: i64,
}

/// What the readers hand over, element by element, in the file's order (nodes, ways, relations).
pub(crate) struct Collector<'o> {
    options: &'o OsmOptions,
    report: OsmReport,
    nodes: Vec<(i64, f64, f64)>,
    ways: Vec<UsableWay>,
    all_ways: Vec<i64>,
    restrictions: Vec<Result<restriction::Parsed, SkipReason>>,
}

impl<'o> Collector<'o> {
    pub(crate) fn new(options: &'o OsmOptions) -> Self {
        Self {
            options,
            report: OsmReport::default(),
            nodes: Vec::new(),
            ways: Vec::new(),
            all_ways: Vec::new(),
            restrictions: Vec::new(),
        }
    }

    pub(crate) fn node(&mut self, id: i64, lat: f64, lon: f64) {
        self.nodes.push((id, lat, lon));
    }

    pub(crate) fn way<'t>(
        &mut self,
        id: i64,
        tags: impl Iterator<Item = (&'t str, &'t str)>,
        refs: impl Iterator<Item = i64>,
    ) {
        self.report.ways_read += 1;
        self.all_ways.push(id);
        let tags: HashMap<&str, &str> = tags.collect();
        if let Some((dirs, speed_kmh)) = classify(&tags, self.options) {
            self.ways.push(UsableWay { id, dirs, speed_kmh, refs: refs.collect() });
        }
    }

    pub(crate) fn relation<'t>(
        &mut self,
        id: i64,
        tags: impl Iterator<Item = (&'t str, &'t str)>,
        members: Vec<Member>,
    ) {
        if let Some(r) = restriction::parse(id, tags, members, self.options.profile) {
            self.restrictions.push(r);
        }
    }

    /// Builds the graph (see the module documentation) and resolves the restrictions on it.
    pub(crate) fn finish(self, path: &Path) -> Result<OsmGraph, GraphError> {
        let Collector { options, mut report, mut nodes, ways, mut all_ways, restrictions } = self;
        report.nodes_read = nodes.len() as u64;
        report.ways_used = ways.len() as u64;
        if ways.is_empty() {
            return Err(GraphError::NoRoutableWays {
                path: path.to_path_buf(),
                profile: options.profile,
                ways: report.ways_read,
            });
        }
        if !nodes.windows(2).all(|w| w[0].0 < w[1].0) {
            nodes.sort_unstable_by_key(|n| n.0);
            nodes.dedup_by_key(|n| n.0);
        }
        let find = |id: i64| nodes.binary_search_by_key(&id, |n| n.0).ok();
        // Vertices: the present nodes that a usable way references, in OSM id order.
        let mut used: Vec<usize> = Vec::new();
        for w in &ways {
            let mut cut = false;
            for &r in &w.refs {
                match find(r) {
                    Some(k) => used.push(k),
                    None => {
                        report.missing_node_refs += 1;
                        cut = true;
                    }
                }
            }
            report.ways_cut += u64::from(cut);
        }
        used.sort_unstable();
        used.dedup();
        if used.len() >= u32::MAX as usize {
            return Err(GraphError::OsmTooLarge { path: path.to_path_buf(), what: "vertices" });
        }
        let vertex_of = |node: usize| used.binary_search(&node).ok().map(|v| v as VertexId);
        let coords_all: Vec<(f64, f64)> = used.iter().map(|&k| (nodes[k].1, nodes[k].2)).collect();
        let ids_all: Vec<i64> = used.iter().map(|&k| nodes[k].0).collect();
        // Arcs between consecutive present nodes.
        let mut arcs: Vec<RawArc> = Vec::new();
        for w in &ways {
            let speed_ms = w.speed_kmh / 3.6;
            for pair in w.refs.windows(2) {
                let (Some(a), Some(b)) =
                    (find(pair[0]).and_then(vertex_of), find(pair[1]).and_then(vertex_of))
                else {
                    continue;
                };
                if a == b {
                    continue;
                }
                let metres = haversine_m(coords_all[a as usize], coords_all[b as usize]);
                let seconds = metres / speed_ms;
                if w.dirs.forward {
                    arcs.push(RawArc { tail: a, head: b, seconds, metres, way: w.id });
                }
                if w.dirs.backward {
                    arcs.push(RawArc { tail: b, head: a, seconds, metres, way: w.id });
                }
            }
        }
        drop(nodes);
        // The fastest of parallel arcs (then the shortest, then the lowest way id), in CSR order.
        arcs.sort_unstable_by(|x, y| {
            (x.tail, x.head)
                .cmp(&(y.tail, y.head))
                .then(x.seconds.total_cmp(&y.seconds))
                .then(x.metres.total_cmp(&y.metres))
                .then(x.way.cmp(&y.way))
        });
        let before = arcs.len();
        arcs.dedup_by_key(|a| (a.tail, a.head));
        report.parallel_arcs_dropped = (before - arcs.len()) as u64;
        if arcs.len() >= u32::MAX as usize {
            return Err(GraphError::OsmTooLarge { path: path.to_path_buf(), what: "arcs" });
        }
        let mut graph = build(options, report, used.len(), arcs, coords_all, ids_all)?;
        all_ways.sort_unstable();
        let mut usable: Vec<restriction::WayNodes> =
            ways.into_iter().map(|w| restriction::WayNodes { id: w.id, refs: w.refs }).collect();
        usable.sort_by_key(|w| w.id);
        let resolver = restriction::Resolver {
            graph: &graph.graph,
            osm_ids: &graph.osm_ids,
            all_ways: &all_ways,
            usable: &usable,
        };
        graph.turn_rules = restriction::resolve_all(&restrictions, &resolver);
        Ok(graph)
    }
}

/// OSM XML files start with `<?xml` or `<osm`.
fn is_xml(path: &Path) -> Result<bool, GraphError> {
    use std::io::Read;
    let mut head = [0u8; 64];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .map_err(|source| GraphError::Open { path: path.to_path_buf(), source })?;
    let text = String::from_utf8_lossy(&head[..n]);
    let text = text.trim_start_matches('\u{feff}').trim_start();
    Ok(text.starts_with("<?xml") || text.starts_with("<osm"))
}

/// CSR from sorted, deduplicated arcs; optionally the largest strongly connected component only.
fn build(
    options: &OsmOptions,
    mut report: OsmReport,
    n: usize,
    arcs: Vec<RawArc>,
    coords: Vec<(f64, f64)>,
    osm_ids: Vec<i64>,
) -> Result<OsmGraph, GraphError> {
    let csr = |n: usize, arcs: &[RawArc]| {
        let mut offsets = vec![0u32; n + 1];
        for a in arcs {
            offsets[a.tail as usize + 1] += 1;
        }
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        let targets = arcs.iter().map(|a| a.head).collect();
        // Milliseconds, at least 1 so that no arc of positive length is free.
        let weights = arcs.iter().map(|a| ((a.seconds * 1000.0).round() as u32).max(1)).collect();
        Csr::from_parts(offsets, targets, weights).expect("offsets built from sorted arcs")
    };
    let mut graph = csr(n, &arcs);
    report.vertices_before_scc = n as u64;
    report.arcs_before_scc = arcs.len() as u64;
    let comps = strongly_connected(&graph);
    report.components = comps.count as u64;
    let (arcs, coords, osm_ids) = if options.largest_component && comps.count > 1 {
        let keep = comps.largest().expect("vertices exist");
        let mut new_id = vec![u32::MAX; n];
        let mut next = 0u32;
        for (id, &c) in new_id.iter_mut().zip(&comps.of) {
            if c == keep {
                *id = next;
                next += 1;
            }
        }
        let arcs: Vec<_> = arcs
            .into_iter()
            .filter(|a| comps.of[a.tail as usize] == keep && comps.of[a.head as usize] == keep)
            .map(|a| RawArc { tail: new_id[a.tail as usize], head: new_id[a.head as usize], ..a })
            .collect();
        let coords: Vec<_> = (0..n).filter(|&v| comps.of[v] == keep).map(|v| coords[v]).collect();
        let ids: Vec<_> = (0..n).filter(|&v| comps.of[v] == keep).map(|v| osm_ids[v]).collect();
        graph = csr(coords.len(), &arcs);
        (arcs, coords, ids)
    } else {
        (arcs, coords, osm_ids)
    };
    let travel_time_s = arcs.iter().map(|a| a.seconds).collect();
    let length_m = arcs.iter().map(|a| a.metres).collect();
    let way_ids = arcs.iter().map(|a| a.way).collect();
    let points = coords
        .iter()
        .enumerate()
        .map(|(v, &c)| rstar::primitives::GeomWithData::new(project(c), v as VertexId))
        .collect();
    Ok(OsmGraph {
        graph,
        travel_time_s,
        length_m,
        way_ids,
        coords,
        osm_ids,
        profile: options.profile,
        report,
        turn_rules: TurnRules::default(),
        locator: rstar::RTree::bulk_load(points),
    })
}

/// A coordinate as a point of the unit sphere: the nearest point by straight-line (chord) distance is
/// the nearest on the sphere, so the R-tree needs no map projection and has no distortion anywhere.
fn project((lat, lon): (f64, f64)) -> [f64; 3] {
    let (p, l) = (lat.to_radians(), lon.to_radians());
    [p.cos() * l.cos(), p.cos() * l.sin(), p.sin()]
}

impl OsmGraph {
    /// The vertex nearest to a coordinate (degrees) and its distance in metres, however far it is.
    /// NaN or out-of-range coordinates and an empty graph are errors. [`OsmGraph::snap`] adds a limit.
    pub fn nearest(&self, lat: f64, lon: f64) -> Result<(VertexId, f64), GraphError> {
        if !((-90.0..=90.0).contains(&lat) && (-180.0..=180.0).contains(&lon)) {
            return Err(GraphError::BadCoordinate { lat, lon });
        }
        let p = self.locator.nearest_neighbor(&project((lat, lon))).ok_or(GraphError::EmptyGraph)?;
        Ok((p.data, haversine_m((lat, lon), self.coords[p.data as usize])))
    }

    /// The vertex nearest to a coordinate and its distance in metres, refused with
    /// [`GraphError::TooFarFromRoad`] when that distance exceeds `limit_m` (a point outside the extract,
    /// or latitude and longitude swapped, would otherwise route from the map's edge).
    /// [`DEFAULT_SNAP_LIMIT_M`] is the examples' default.
    pub fn snap(&self, lat: f64, lon: f64, limit_m: f64) -> Result<(VertexId, f64), GraphError> {
        let (v, distance_m) = self.nearest(lat, lon)?;
        if distance_m > limit_m {
            return Err(GraphError::TooFarFromRoad { lat, lon, distance_m, limit_m });
        }
        Ok((v, distance_m))
    }

    /// The same arcs weighted in another unit: [`OsmMetric::Seconds`] (travel time, f64, the values
    /// of [`OsmGraph::travel_time_s`]) or [`OsmMetric::Metres`] (length) — for the real-valued engines
    /// (`sssp::real`), without rebuilding the CSR by hand. [`OsmGraph::graph`] itself is the
    /// milliseconds metric (u32) the integer engines take.
    ///
    /// ```
    /// use urbanflow::graph::osm::{OsmMetric, OsmOptions, Profile, import};
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/oneway.osm.pbf");
    /// let g = import(path, &OsmOptions::new(Profile::Car)).unwrap();
    /// let metres = g.graph_in(OsmMetric::Metres);
    /// assert_eq!(metres.targets(), g.graph.targets());
    /// assert_eq!(metres.weights(), &g.length_m[..]);
    /// ```
    pub fn graph_in(&self, metric: OsmMetric) -> Csr<f64> {
        let weights = match metric {
            OsmMetric::Seconds => self.travel_time_s.clone(),
            OsmMetric::Metres => self.length_m.clone(),
        };
        self.graph.with_weights(weights).expect("one value per arc, finite and non-negative")
    }

    /// The arc from `u` to `v`, if any (its index into the per-arc vectors).
    pub fn arc(&self, u: VertexId, v: VertexId) -> Option<usize> {
        let range = self.graph.arc_range(u);
        self.graph.targets()[range.clone()].iter().position(|&t| t == v).map(|k| range.start + k)
    }

    /// Travel time (s) and length (m) along a path of vertices, from the per-arc real values.
    /// `None` if two consecutive vertices have no arc between them.
    pub fn path_totals(&self, path: &[VertexId]) -> Option<(f64, f64)> {
        let mut totals = (0.0, 0.0);
        for pair in path.windows(2) {
            let a = self.arc(pair[0], pair[1])?;
            totals.0 += self.travel_time_s[a];
            totals.1 += self.length_m[a];
        }
        Some(totals)
    }

    /// The path (vertices of [`OsmGraph::graph`]) as a GeoJSON line feature; add properties with
    /// [`Feature::number`] and [`Feature::text`], write with [`crate::geojson::feature_collection`].
    pub fn path_feature(&self, path: &[VertexId]) -> Feature {
        Feature::line(path.iter().map(|&v| self.coords[v as usize]))
    }
}
