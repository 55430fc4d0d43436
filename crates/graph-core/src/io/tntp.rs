//! TNTP traffic-assignment files (the TransportationNetworks format): `_net`, `_trips`, `_flow`, `_node`.
//!
//! The readers keep the files' own node ids (they may be sparse: Munich's reach 2,146,237,932) and every
//! row in file order; turning them into a dense network is the job of the assignment crate. They accept
//! the quirks of the real files: metadata separated by spaces or tabs and in
//! any number, `~` comments, rows with or without a leading tab and with `;`, ` ; `, `1;` or no
//! terminator, CRLF line ends, empty fields (read as 0 and reported), scientific notation, extra or
//! different columns (mapped by the `~` column header when there is one, else by position, and reported),
//! several `d : flow;` pairs per line. Every error names the file and the line.
//!
//! ```
//! use urbanflow::graph::io::tntp::parse_net;
//! let text = "<NUMBER OF ZONES> 1\n<NUMBER OF NODES> 2\n<FIRST THRU NODE> 1\n<NUMBER OF LINKS> 1\n\
//!             <END OF METADATA>\n~ init_node term_node capacity length free_flow_time b power speed toll link_type ;\n\
//!             1 2 100 1.5 3 0.15 4 0 0 1 ;\n";
//! let net = parse_net(text.as_bytes(), "tiny_net.tntp").unwrap();
//! assert_eq!(net.links.len(), 1);
//! assert_eq!((net.links[0].from, net.links[0].to, net.links[0].free_flow_time), (1, 2, 3.0));
//! ```

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use super::lines::{Lines, excerpt};
use super::{Disagreements, GraphError, ParseIssue, ReadOptions, ReadWarning, open_text};
use crate::{Csr, GraphBuilder, WeightIssue};

/// One link row of a `_net` file, ids as in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct TntpLink {
    /// Tail node id (`init_node`).
    pub from: u64,
    /// Head node id (`term_node`).
    pub to: u64,
    /// Capacity (vehicles per period).
    pub capacity: f64,
    /// Length (the network's unit, often miles or km).
    pub length: f64,
    /// Free-flow travel time.
    pub free_flow_time: f64,
    /// BPR coefficient B.
    pub b: f64,
    /// BPR power.
    pub power: f64,
    /// Speed (0 when absent).
    pub speed: f64,
    /// Toll (0 when absent).
    pub toll: f64,
    /// Link type (0 when absent).
    pub link_type: i64,
    /// 1-based line in the file.
    pub line: u64,
}

/// A parsed `_net` file.
#[derive(Debug, Clone, PartialEq)]
pub struct TntpNet {
    /// The file.
    pub path: PathBuf,
    /// `<NUMBER OF ZONES>`.
    pub zones: u64,
    /// `<NUMBER OF NODES>`.
    pub nodes: u64,
    /// `<FIRST THRU NODE>` (1 when the file has none: every node may be passed through).
    pub first_thru_node: u64,
    /// Every link row, in file order (parallel links kept).
    pub links: Vec<TntpLink>,
    /// Names of columns beyond the standard ten (Sydney's `critical_speed`, `lanes`), in order.
    pub extra_columns: Vec<String>,
    /// Their values, `extra_columns.len()` per link, row-major.
    pub extra_values: Vec<f64>,
    /// All metadata lines, key without brackets → value as written.
    pub metadata: BTreeMap<String, String>,
    /// What the reader had to interpret (column mapping, empty fields read as 0, missing metadata).
    pub notes: Vec<String>,
    /// Where the body disagrees with the header (only with [`ReadOptions::lenient`]; a strict read
    /// refuses such a file).
    pub warnings: Vec<ReadWarning>,
}

/// A parsed `_trips` file: every `origin → destination : flow` entry in file order (zero and intrazonal
/// entries kept; the assignment decides what to do with them).
#[derive(Debug, Clone, PartialEq)]
pub struct TntpTrips {
    /// The file.
    pub path: PathBuf,
    /// `<NUMBER OF ZONES>`.
    pub zones: u64,
    /// `<TOTAL OD FLOW>`, when present.
    pub total_od_flow: Option<f64>,
    /// `(origin, destination, flow)` with the file's ids.
    pub entries: Vec<(u64, u64, f64)>,
    /// The 1-based line of each entry.
    pub lines: Vec<u64>,
    /// Where the body disagrees with the header — the sum of flows against `<TOTAL OD FLOW>`, zone ids
    /// beyond `<NUMBER OF ZONES>`, a cut last row (only with [`ReadOptions::lenient`]; a strict read
    /// refuses such a file).
    pub warnings: Vec<ReadWarning>,
}

impl TntpTrips {
    /// The sum of all entries.
    pub fn total(&self) -> f64 {
        self.entries.iter().map(|e| e.2).sum()
    }
}

/// A `_net` file as a plain weighted graph (see [`TntpNet::free_flow_graph`]).
#[derive(Debug, Clone)]
pub struct TntpGraph {
    /// Vertex `v` is node `node_ids[v]`; arcs in link order, weights the quantised free-flow times.
    pub graph: Csr<u32>,
    /// The file's node id of each vertex, ascending.
    pub node_ids: Vec<u64>,
    /// Weight units per free-flow time unit.
    pub units_per_time: f64,
    /// File lines of links left out because their free-flow time is `inf` (closed links; Munich has
    /// some).
    pub closed_links: Vec<u64>,
}

impl TntpGraph {
    /// The vertex of a file node id.
    pub fn vertex(&self, node_id: u64) -> Option<u32> {
        self.node_ids.binary_search(&node_id).ok().map(|v| v as u32)
    }

    /// The vertices of the zones, node ids `1..=zones` as the format numbers them, or `None` when some
    /// of those ids are not nodes of the file (sparse-id files such as Munich's number their zones
    /// otherwise; only the trips file tells which they are).
    pub fn zone_vertices(&self, zones: u64) -> Option<Vec<u32>> {
        (1..=zones).map(|z| self.vertex(z)).collect()
    }
}

impl TntpNet {
    /// The network's node ids, ascending: `1..=<NUMBER OF NODES>` when every link end lies in that
    /// range (the standard files), else the link ends themselves (files with sparse ids, such as
    /// Munich's). Vertex `v` of a dense numbering is node `node_ids()[v]`.
    ///
    /// ```
    /// use urbanflow::graph::io::tntp::parse_net;
    /// let text = "<NUMBER OF ZONES> 1\n<NUMBER OF NODES> 2\n<FIRST THRU NODE> 1\n<NUMBER OF LINKS> 1\n\
    ///             <END OF METADATA>\n1000 70 100 1.5 2 0.15 4 0 0 1 ;\n";
    /// let net = parse_net(text.as_bytes(), "sparse_net.tntp").unwrap();
    /// assert_eq!(net.node_ids(), vec![70, 1000]);
    /// let g = net.free_flow_graph(1.0).unwrap();
    /// assert_eq!(g.zone_vertices(1), None); // zone 1 is not a node of this file
    /// ```
    pub fn node_ids(&self) -> Vec<u64> {
        if self.links.iter().all(|l| (1..=self.nodes).contains(&l.from) && (1..=self.nodes).contains(&l.to)) {
            return (1..=self.nodes).collect();
        }
        let mut ids: Vec<u64> = self.links.iter().flat_map(|l| [l.from, l.to]).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// The network as a plain graph for shortest paths: one vertex per node ([`TntpNet::node_ids`],
    /// so sparse ids stay the file's), one arc per link weighted
    /// `round(free_flow_time × units_per_time)`. Zones are ordinary vertices here (no
    /// `<FIRST THRU NODE>` rule). Links with an infinite free-flow time are closed: left out and listed
    /// in [`TntpGraph::closed_links`]. A link whose weight is negative, NaN or beyond `u32::MAX − 2`
    /// after scaling is an error naming its line.
    ///
    /// ```
    /// use urbanflow::graph::io::tntp::parse_net;
    /// let text = "<NUMBER OF ZONES> 1\n<NUMBER OF NODES> 2\n<FIRST THRU NODE> 1\n<NUMBER OF LINKS> 1\n\
    ///             <END OF METADATA>\n1 2 100 1.5 0.0125 0.15 4 0 0 1 ;\n";
    /// let g = parse_net(text.as_bytes(), "tiny_net.tntp").unwrap().free_flow_graph(1000.0).unwrap();
    /// assert_eq!(g.graph.weights(), &[13]); // 0.0125 × 1000, rounded half away from zero
    /// assert_eq!(g.vertex(2), Some(1));
    /// assert_eq!(g.zone_vertices(1), Some(vec![0]));
    /// ```
    pub fn free_flow_graph(&self, units_per_time: f64) -> Result<TntpGraph, GraphError> {
        let node_ids = self.node_ids();
        let vertex = |id: u64| node_ids.binary_search(&id).expect("every link end is listed") as u32;
        let mut b = GraphBuilder::new(node_ids.len() as u32).with_capacity(self.links.len());
        let bad = |l: &TntpLink, issue: WeightIssue| GraphError::Parse {
            path: self.path.clone(),
            line: l.line,
            kind: ParseIssue::BadWeight {
                found: format!("{} × {units_per_time}", l.free_flow_time),
                issue,
                weight_type: "u32 (free-flow time scaled)",
            },
        };
        let mut closed_links = Vec::new();
        for l in &self.links {
            if l.free_flow_time == f64::INFINITY {
                closed_links.push(l.line);
                continue;
            }
            let w = (l.free_flow_time * units_per_time).round();
            if !w.is_finite() {
                return Err(bad(l, WeightIssue::NotFinite));
            }
            if w < 0.0 {
                return Err(bad(l, WeightIssue::Negative));
            }
            if w > (u32::MAX - 2) as f64 {
                return Err(bad(l, WeightIssue::OutOfRange));
            }
            b.add_arc(vertex(l.from), vertex(l.to), w as u32);
        }
        let line = self.links.last().map_or(1, |l| l.line);
        let graph = b.build().map_err(|e| GraphError::NotAGraph {
            path: self.path.clone(),
            line,
            source: Box::new(e),
        })?;
        Ok(TntpGraph { graph: graph.0, node_ids, units_per_time, closed_links })
    }
}

/// One row of a `_flow` file (a published equilibrium).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TntpFlowRow {
    /// Tail node id.
    pub from: u64,
    /// Head node id.
    pub to: u64,
    /// Link volume.
    pub volume: f64,
    /// Generalised link cost at that volume.
    pub cost: f64,
}

/// One row of a `_node` file.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TntpNode {
    /// Node id.
    pub id: u64,
    /// X (often longitude).
    pub x: f64,
    /// Y (often latitude).
    pub y: f64,
}

/// A companion file of a TNTP network: `kind` = `"trips"`, `"node"`, `"flow"`, … for
/// `Foo_net.tntp[.gz|.xz]` gives the first of `Foo_{kind}.tntp`, `.tntp.gz`, `.tntp.xz` that exists beside
/// it (the TransportationNetworks naming), or `None` (also when the name has no `_net`).
///
/// ```
/// let dir = std::env::temp_dir().join(format!("uf-companion-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// std::fs::write(dir.join("Town_trips.tntp.xz"), b"").unwrap();
/// let net = dir.join("Town_net.tntp");
/// assert_eq!(urbanflow::graph::io::tntp::companion(&net, "trips"), Some(dir.join("Town_trips.tntp.xz")));
/// assert_eq!(urbanflow::graph::io::tntp::companion(&net, "node"), None);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn companion(net: &Path, kind: &str) -> Option<PathBuf> {
    let name = net.file_name()?.to_str()?;
    let (stem, _) = name.split_once("_net")?;
    ["", ".gz", ".xz"]
        .iter()
        .map(|ext| net.with_file_name(format!("{stem}_{kind}.tntp{ext}")))
        .find(|p| p.exists())
}

/// Reads a `_net` file (plain, `.gz` or `.xz`); a body that disagrees with the header is an error.
pub fn read_net(path: impl AsRef<Path>) -> Result<TntpNet, GraphError> {
    read_net_with(path, ReadOptions::default())
}

/// Reads a `_net` file; [`ReadOptions::lenient`] turns header disagreements into
/// [`TntpNet::warnings`].
pub fn read_net_with(path: impl AsRef<Path>, opts: ReadOptions) -> Result<TntpNet, GraphError> {
    let path = path.as_ref();
    parse_net_with(open_text(path)?, path, opts)
}

/// Reads a `_trips` file (plain, `.gz` or `.xz`); a body that disagrees with the header is an error.
pub fn read_trips(path: impl AsRef<Path>) -> Result<TntpTrips, GraphError> {
    read_trips_with(path, ReadOptions::default())
}

/// Reads a `_trips` file; [`ReadOptions::lenient`] turns header disagreements into
/// [`TntpTrips::warnings`].
pub fn read_trips_with(path: impl AsRef<Path>, opts: ReadOptions) -> Result<TntpTrips, GraphError> {
    let path = path.as_ref();
    parse_trips_with(open_text(path)?, path, opts)
}

/// Reads a `_flow` file (plain, `.gz` or `.xz`).
pub fn read_flow(path: impl AsRef<Path>) -> Result<Vec<TntpFlowRow>, GraphError> {
    let path = path.as_ref();
    parse_flow(open_text(path)?, path)
}

/// Reads a `_node` file (plain, `.gz` or `.xz`).
pub fn read_nodes(path: impl AsRef<Path>) -> Result<Vec<TntpNode>, GraphError> {
    let path = path.as_ref();
    parse_nodes(open_text(path)?, path)
}

/// The standard `_net` columns in their standard order.
const NET_COLUMNS: [&str; 10] = [
    "init_node",
    "term_node",
    "capacity",
    "length",
    "free_flow_time",
    "b",
    "power",
    "speed",
    "toll",
    "link_type",
];
/// The columns a row must have.
const REQUIRED_COLUMNS: usize = 7;

/// The metadata block's keys (without brackets, upper case) → value as written, and → line.
type Metadata = (BTreeMap<String, String>, BTreeMap<String, u64>);

/// Reads the metadata block up to `<END OF METADATA>`; lines before any `<` are not allowed.
fn read_metadata<R: BufRead>(lines: &mut Lines<R>, what: &'static str) -> Result<Metadata, GraphError> {
    let mut meta = BTreeMap::new();
    let mut meta_lines = BTreeMap::new();
    loop {
        let Some(line) = lines.next_line()? else {
            return Err(lines.error(ParseIssue::Empty { expected: what }));
        };
        let t = line.trim();
        if t.is_empty() || t.starts_with('~') {
            continue;
        }
        let Some((key, value)) = t.strip_prefix('<').and_then(|rest| rest.split_once('>')) else {
            let kind = ParseIssue::UnexpectedLine {
                found: excerpt(line),
                expected: "a metadata line `<KEY> value` or `<END OF METADATA>`",
            };
            return Err(lines.error(kind));
        };
        let key = key.trim().to_ascii_uppercase();
        if key == "END OF METADATA" {
            return Ok((meta, meta_lines));
        }
        meta.insert(key.clone(), value.trim().to_string());
        meta_lines.insert(key, lines.line());
    }
}

/// A metadata value that must be a non-negative whole number (scientific notation allowed).
fn meta_count(
    meta: &BTreeMap<String, String>,
    key: &'static str,
    lines_at: u64,
    path: &Path,
) -> Result<Option<u64>, GraphError> {
    let Some(v) = meta.get(key) else { return Ok(None) };
    let first = v.split_ascii_whitespace().next().unwrap_or("");
    match first.parse::<f64>() {
        Ok(x) if x >= 0.0 && x.fract() == 0.0 && x < 9.0e15 => Ok(Some(x as u64)),
        // Chicago-Regional's flow file writes -1 for "not given".
        Ok(-1.0) => Ok(None),
        _ => Err(GraphError::Parse {
            path: path.to_path_buf(),
            line: lines_at,
            kind: ParseIssue::BadField {
                field: key,
                found: first.to_string(),
                expected: "a non-negative whole number",
            },
        }),
    }
}

/// Splits a data row into fields: strips the `;` terminator (glued or not), splits on tabs when the row
/// has any (so an empty field between two tabs stays a field), else on spaces.
fn row_fields(line: &str) -> Vec<&str> {
    let mut t = line.trim();
    while let Some(s) = t.strip_suffix(';') {
        t = s.trim_end();
    }
    let t = t.trim_start();
    if t.contains('\t') {
        t.split('\t').map(str::trim).collect()
    } else {
        t.split_ascii_whitespace().collect()
    }
}

fn number(field: Option<&&str>, name: &'static str) -> Result<f64, ParseIssue> {
    let found = field.copied().unwrap_or("");
    match found.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(ParseIssue::BadField { field: name, found: found.to_string(), expected: "a finite number" }),
    }
}

fn node_id(field: Option<&&str>, name: &'static str) -> Result<u64, ParseIssue> {
    let found = field.copied().unwrap_or("");
    // Some files write ids as `12.0`; accept whole numbers written as floats.
    match found.parse::<u64>() {
        Ok(id) if id > 0 => Ok(id),
        _ => match found.parse::<f64>() {
            Ok(x) if x >= 1.0 && x.fract() == 0.0 && x < 9.0e15 => Ok(x as u64),
            _ => Err(ParseIssue::BadField {
                field: name,
                found: found.to_string(),
                expected: "a positive whole node id",
            }),
        },
    }
}

/// Parses a `_net` file from any reader (strict: see [`parse_net_with`]).
pub fn parse_net(reader: impl BufRead, name: impl AsRef<Path>) -> Result<TntpNet, GraphError> {
    parse_net_with(reader, name, ReadOptions::default())
}

/// Parses a `_net` file from any reader. Where the body disagrees with the header — fewer or more links
/// than `<NUMBER OF LINKS>`, a last row without the `;` every other row has, a row narrower than those
/// before it, node ids beyond `1..=<NUMBER OF NODES>` that are not a sparse numbering of exactly that
/// many nodes — the read fails naming the line, unless
/// `opts.lenient`, which keeps every row read and lists the disagreements in [`TntpNet::warnings`].
///
/// ```
/// use urbanflow::graph::io::{ParseIssue, ReadOptions, tntp::parse_net_with};
/// // A link to node 30 in a file that declares 24 nodes.
/// let text = "<NUMBER OF ZONES> 1\n<NUMBER OF NODES> 24\n<NUMBER OF LINKS> 1\n<END OF METADATA>\n\
///             1 30 100 1.5 3 0.15 4 0 0 1 ;\n";
/// let err = parse_net_with(text.as_bytes(), "x_net.tntp", ReadOptions::default()).unwrap_err();
/// assert!(matches!(err.kind(), Some(ParseIssue::IdsBeyondHeader { declared: 24, found: 2, largest: 30, .. })));
/// assert_eq!(err.line(), Some(2)); // the header line that declares the count
/// ```
pub fn parse_net_with(
    reader: impl BufRead,
    name: impl AsRef<Path>,
    opts: ReadOptions,
) -> Result<TntpNet, GraphError> {
    let path = name.as_ref().to_path_buf();
    let mut lines = Lines::new(reader, &path);
    let mut disagree = Disagreements::new(&path, opts);
    let (metadata, metadata_lines) = read_metadata(&mut lines, "a TNTP network (`<NUMBER OF NODES>` ...)")?;
    let at = lines.line();
    let mut notes = Vec::new();
    let need = |key: &'static str, v: Option<u64>| {
        v.ok_or_else(|| GraphError::Parse {
            path: path.clone(),
            line: at,
            kind: ParseIssue::MissingMetadata { key },
        })
    };
    let zones = need("NUMBER OF ZONES", meta_count(&metadata, "NUMBER OF ZONES", at, &path)?)?;
    let nodes = need("NUMBER OF NODES", meta_count(&metadata, "NUMBER OF NODES", at, &path)?)?;
    let links_header = need("NUMBER OF LINKS", meta_count(&metadata, "NUMBER OF LINKS", at, &path)?)?;
    let first_thru_node = match meta_count(&metadata, "FIRST THRU NODE", at, &path)? {
        Some(f) => f,
        None => {
            notes.push("no <FIRST THRU NODE>: every node may be passed through".to_string());
            1
        }
    };

    // Column positions: standard order unless a `~` header names them.
    let mut positions: Vec<Option<usize>> = (0..NET_COLUMNS.len()).map(Some).collect();
    let mut extra_columns: Vec<String> = Vec::new();
    let mut extra_positions: Vec<usize> = Vec::new();
    // The `~` header's width and line, and whether its names are the standard columns in their
    // standard order (so that by name and by position agree for every named column).
    let mut header_width: Option<(usize, u64, bool)> = None;
    let mut links = Vec::with_capacity(links_header as usize);
    let mut extra_values = Vec::new();
    let mut empty_fields = 0u64;
    let mut mapping_checked = false;
    // For the cut-file checks: the first row's width and how the rows end.
    let mut row_width: Option<usize> = None;
    let mut row_ends = RowEnds::default();

    while let Some((at_line, line)) = lines.next_numbered()? {
        let t = line.trim();
        if t.is_empty() || t == ";" {
            continue;
        }
        if let Some(comment) = t.strip_prefix('~') {
            if links.is_empty() {
                let names: Vec<String> = row_fields(comment)
                    .into_iter()
                    .filter(|s| !s.is_empty())
                    .map(|s| s.to_ascii_lowercase())
                    .collect();
                if names.iter().any(|n| n == "init_node") && names.iter().any(|n| n == "term_node") {
                    positions = NET_COLUMNS.iter().map(|c| names.iter().position(|n| n == c)).collect();
                    extra_columns.clear();
                    extra_positions.clear();
                    for (i, n) in names.iter().enumerate() {
                        if !NET_COLUMNS.contains(&n.as_str()) {
                            extra_columns.push(n.clone());
                            extra_positions.push(i);
                        }
                    }
                    let standard_prefix = names.len() <= NET_COLUMNS.len()
                        && names.iter().zip(NET_COLUMNS).all(|(n, c)| n == c);
                    header_width = Some((names.len(), at_line, standard_prefix));
                }
            }
            continue;
        }
        let fields = row_fields(line);
        row_ends.row(at_line, t);
        match row_width {
            None => row_width = Some(fields.len()),
            Some(w) if fields.len() < w && fields.len() >= REQUIRED_COLUMNS => {
                disagree.found(at_line, ParseIssue::ShortRow { found: fields.len(), expected: w })?
            }
            Some(_) => {}
        }
        if !mapping_checked {
            mapping_checked = true;
            match header_width {
                Some((w, _, _)) if w == fields.len() => {
                    if !extra_columns.is_empty() {
                        notes.push(format!(
                            "columns mapped by the header comment; extra columns kept: {}",
                            extra_columns.join(", ")
                        ));
                    }
                    let missing: Vec<&str> = NET_COLUMNS
                        .iter()
                        .zip(&positions)
                        .filter(|(_, p)| p.is_none())
                        .map(|(c, _)| *c)
                        .collect();
                    if !missing.is_empty() {
                        notes.push(format!("columns absent (read as 0): {}", missing.join(", ")));
                    }
                }
                Some((w, header_line, standard_prefix)) => {
                    // Rows wider than a header that names the standard columns in order (Hessen's header
                    // leaves out `link_type`): the named columns read the same by name or by position,
                    // and the unnamed ones stand where the standard puts them. Any other disagreement
                    // (a column missing from every row) cannot be mapped without a guess.
                    if !(standard_prefix && fields.len() > w) {
                        let kind = ParseIssue::HeaderColumns { found: fields.len(), named: w, header_line };
                        disagree.found(at_line, kind)?;
                    }
                    notes.push(format!(
                        "the header comment names {w} columns but rows hold {}: columns mapped by position",
                        fields.len()
                    ));
                    positions = (0..NET_COLUMNS.len()).map(Some).collect();
                    extra_columns.clear();
                    extra_positions.clear();
                }
                None => notes.push("no column header: columns mapped by position".to_string()),
            }
        }
        let row = (|| {
            if fields.len() < REQUIRED_COLUMNS {
                return Err(ParseIssue::UnexpectedLine {
                    found: excerpt(line),
                    expected: "a link row `init term capacity length fftt B power [speed toll type] ;`",
                });
            }
            let get = |col: usize| positions[col].and_then(|p| fields.get(p));
            let mut num = |col: usize| -> Result<f64, ParseIssue> {
                match get(col) {
                    None => Ok(0.0),
                    Some(&"") => {
                        empty_fields += 1;
                        Ok(0.0)
                    }
                    // `inf` occurs (Munich's closed connectors): kept, for the network builder to judge.
                    Some(s) if s.eq_ignore_ascii_case("inf") || s.eq_ignore_ascii_case("infinity") => {
                        Ok(f64::INFINITY)
                    }
                    Some(s) => number(Some(s), NET_COLUMNS[col]),
                }
            };
            let capacity = num(2)?;
            let length = num(3)?;
            let free_flow_time = num(4)?;
            let b = num(5)?;
            let power = num(6)?;
            let speed = num(7)?;
            let toll = num(8)?;
            let link_type = num(9)?;
            let link = TntpLink {
                from: node_id(get(0), "init_node")?,
                to: node_id(get(1), "term_node")?,
                capacity,
                length,
                free_flow_time,
                b,
                power,
                speed,
                toll,
                link_type: link_type as i64,
                line: 0,
            };
            for &p in &extra_positions {
                extra_values.push(match fields.get(p) {
                    Some(s) if !s.is_empty() => number(Some(s), "extra column")?,
                    _ => 0.0,
                });
            }
            Ok(link)
        })();
        let mut link = row.map_err(|kind| lines.error(kind))?;
        link.line = lines.line();
        links.push(link);
    }
    if empty_fields > 0 {
        notes.push(format!("{empty_fields} empty field(s) read as 0"));
    }
    // One terminated row is no convention yet: the check needs two before the last.
    row_ends.check(2, &mut disagree)?;
    if links.len() as u64 != links_header {
        let kind =
            ParseIssue::CountMismatch { what: "links", header: links_header, found: links.len() as u64 };
        disagree.found(lines.line(), kind)?;
    }
    // Sparse node ids (Munich's) are fine; a link to a node the file does not have is not.
    let line = header_line(&metadata_lines, "NUMBER OF NODES", at);
    let ids = links.iter().flat_map(|l| [l.from, l.to]);
    check_declared_ids(ids, ("NUMBER OF NODES", line), nodes, "links", &mut disagree)?;
    let warnings = disagree.into_warnings();
    Ok(TntpNet {
        path,
        zones,
        nodes,
        first_thru_node,
        links,
        extra_columns,
        extra_values,
        metadata,
        notes,
        warnings,
    })
}

/// How the data rows of a file end, for the cut-file check: a file cut inside its last row loses that
/// row's `;` while every row before it kept one.
#[derive(Default)]
struct RowEnds {
    /// Rows seen.
    rows: u64,
    /// Whether every row before the last ended with `;`.
    earlier_terminated: bool,
    /// The last row: its line and whether it ends with `;`.
    last: Option<(u64, bool)>,
    /// The last row's text, in a buffer reused from row to row (no allocation per row).
    last_text: String,
}

impl RowEnds {
    fn row(&mut self, line: u64, text: &str) {
        self.earlier_terminated = match self.last {
            None => true,
            Some((_, terminated)) => self.earlier_terminated && terminated,
        };
        self.last = Some((line, text.ends_with(';')));
        self.last_text.clear();
        self.last_text.push_str(text);
        self.rows += 1;
    }

    /// A disagreement when the last row lacks the `;` that at least `min_earlier` rows before it all had.
    fn check(&self, min_earlier: u64, disagree: &mut Disagreements) -> Result<(), GraphError> {
        match &self.last {
            Some((line, false)) if self.earlier_terminated && self.rows > min_earlier => {
                disagree.found(*line, ParseIssue::Truncated { found: excerpt(&self.last_text) })
            }
            _ => Ok(()),
        }
    }
}

/// Ids beyond `1..=declared` are the sparse numbering of files such as Munich's when there are exactly
/// `declared` distinct ids; otherwise a row names a node or zone the file does not have. `key` is the
/// metadata key and its line.
fn check_declared_ids(
    ids: impl Iterator<Item = u64> + Clone,
    (key, line): (&'static str, u64),
    declared: u64,
    rows: &'static str,
    disagree: &mut Disagreements,
) -> Result<(), GraphError> {
    if ids.clone().all(|id| id <= declared) {
        return Ok(());
    }
    let mut ids: Vec<u64> = ids.collect();
    ids.sort_unstable();
    ids.dedup();
    if ids.len() as u64 == declared {
        return Ok(());
    }
    let largest = *ids.last().expect("an id beyond the declared count");
    let kind = ParseIssue::IdsBeyondHeader { key, rows, declared, found: ids.len() as u64, largest };
    disagree.found(line, kind)
}

/// The line of a metadata key (the end of the metadata when it is absent).
fn header_line(metadata_lines: &BTreeMap<String, u64>, key: &str, end: u64) -> u64 {
    metadata_lines.get(key).copied().unwrap_or(end)
}

/// Parses a `_trips` file from any reader (strict: see [`parse_trips_with`]).
pub fn parse_trips(reader: impl BufRead, name: impl AsRef<Path>) -> Result<TntpTrips, GraphError> {
    parse_trips_with(reader, name, ReadOptions::default())
}

/// Parses a `_trips` file from any reader. Where the body disagrees with the header — entries that do
/// not add up to `<TOTAL OD FLOW>` (within half a unit of its last written digit), zone ids beyond
/// `1..=<NUMBER OF ZONES>` that are not a sparse numbering of exactly that many, a last entry without the
/// `;` every entry before it has (a file cut inside a number) — the read fails naming the line, unless
/// `opts.lenient`, which keeps every entry read and lists the disagreements in [`TntpTrips::warnings`].
///
/// ```
/// use urbanflow::graph::io::{ParseIssue, ReadOptions, tntp::parse_trips_with};
/// let cut = "<NUMBER OF ZONES> 2\n<END OF METADATA>\nOrigin 1\n 1 : 0.0;  2 : 1200.0;\nOrigin 2\n 1 : 12";
/// let err = parse_trips_with(cut.as_bytes(), "cut_trips.tntp", ReadOptions::default()).unwrap_err();
/// assert!(matches!(err.kind(), Some(ParseIssue::Truncated { .. })));
/// assert_eq!(err.line(), Some(6));
/// ```
pub fn parse_trips_with(
    reader: impl BufRead,
    name: impl AsRef<Path>,
    opts: ReadOptions,
) -> Result<TntpTrips, GraphError> {
    let path = name.as_ref().to_path_buf();
    let mut lines = Lines::new(reader, &path);
    let mut disagree = Disagreements::new(&path, opts);
    let (metadata, metadata_lines) =
        read_metadata(&mut lines, "a TNTP trip table (`<NUMBER OF ZONES>` ...)")?;
    let at = lines.line();
    let zones = meta_count(&metadata, "NUMBER OF ZONES", at, &path)?.ok_or_else(|| GraphError::Parse {
        path: path.clone(),
        line: at,
        kind: ParseIssue::MissingMetadata { key: "NUMBER OF ZONES" },
    })?;
    let total_line = header_line(&metadata_lines, "TOTAL OD FLOW", at);
    let total_od_flow = match metadata.get("TOTAL OD FLOW") {
        None => None,
        Some(v) => Some(number(Some(&v.as_str()), "TOTAL OD FLOW").map_err(|kind| GraphError::Parse {
            path: path.clone(),
            line: total_line,
            kind,
        })?),
    };
    let mut entries = Vec::new();
    let mut lines_of = Vec::new();
    let mut origin: Option<u64> = None;
    // For the cut-file check: how the entry lines end.
    let mut row_ends = RowEnds::default();
    while let Some((at_line, line)) = lines.next_numbered()? {
        let t = line.trim();
        if t.is_empty() || t.starts_with('~') {
            continue;
        }
        let parsed = (|| {
            if let Some(rest) = t.strip_prefix("Origin") {
                let id = rest.trim().trim_end_matches(';').trim();
                origin = Some(node_id(Some(&id), "origin")?);
                return Ok(());
            }
            let Some(o) = origin else {
                return Err(ParseIssue::UnexpectedLine {
                    found: excerpt(line),
                    expected: "`Origin <id>` before the first `destination : flow;` entry",
                });
            };
            for entry in t.split(';') {
                let entry = entry.trim();
                if entry.is_empty() {
                    continue;
                }
                let Some((d, f)) = entry.split_once(':') else {
                    return Err(ParseIssue::UnexpectedLine {
                        found: excerpt(line),
                        expected: "entries `destination : flow;`",
                    });
                };
                let d = node_id(Some(&d.trim()), "destination")?;
                let flow = number(Some(&f.trim()), "flow")?;
                if flow < 0.0 {
                    return Err(ParseIssue::BadField {
                        field: "flow",
                        found: f.trim().to_string(),
                        expected: "a non-negative number",
                    });
                }
                entries.push((o, d, flow));
            }
            Ok(())
        })();
        if !t.starts_with("Origin") {
            row_ends.row(at_line, t);
        }
        parsed.map_err(|kind| lines.error(kind))?;
        lines_of.resize(entries.len(), at_line);
    }
    // Entry lines hold several entries each: one terminated line before the last is convention enough.
    row_ends.check(1, &mut disagree)?;
    let trips = TntpTrips { path, zones, total_od_flow, entries, lines: lines_of, warnings: Vec::new() };
    if let (Some(total), Some(written)) = (total_od_flow, metadata.get("TOTAL OD FLOW")) {
        let sum = trips.total();
        if (sum - total).abs() > total_tolerance(written, total) {
            let kind = ParseIssue::TotalMismatch {
                key: "TOTAL OD FLOW",
                header: written.split_ascii_whitespace().next().unwrap_or("").to_string(),
                found: sum,
            };
            disagree.found(total_line, kind)?;
        }
    }
    let line = header_line(&metadata_lines, "NUMBER OF ZONES", at);
    let ids = trips.entries.iter().flat_map(|&(o, d, _)| [o, d]);
    check_declared_ids(ids, ("NUMBER OF ZONES", line), zones, "entries", &mut disagree)?;
    Ok(TntpTrips { warnings: disagree.into_warnings(), ..trips })
}

/// How far a sum may lie from a declared total written as `written`: half a unit of its last written
/// digit (`1.36148e+006` is ±5, `360600.0` ±0.05), and never less than the rounding of a long f64 sum.
fn total_tolerance(written: &str, total: f64) -> f64 {
    let first = written.split_ascii_whitespace().next().unwrap_or("");
    let (mantissa, exponent) = match first.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (first, 0),
    };
    let decimals = mantissa.split_once('.').map_or(0, |(_, f)| f.len() as i32);
    let half_unit = 0.5 * 10f64.powi(exponent - decimals);
    half_unit * (1.0 + 1e-9) + 1e-9 * total.abs()
}

/// Parses a `_flow` file (`From To Volume Cost` rows, with or without a metadata block).
pub fn parse_flow(reader: impl BufRead, name: impl AsRef<Path>) -> Result<Vec<TntpFlowRow>, GraphError> {
    parse_rows(reader, name, |fields, line| {
        if fields.len() != 4 {
            return Err(ParseIssue::UnexpectedLine {
                found: excerpt(line),
                expected: "a row `from to volume cost`",
            });
        }
        Ok(TntpFlowRow {
            from: node_id(fields.first(), "from")?,
            to: node_id(fields.get(1), "to")?,
            volume: number(fields.get(2), "volume")?,
            cost: number(fields.get(3), "cost")?,
        })
    })
}

/// Parses a `_node` file (`id x y` rows; a header line is skipped).
pub fn parse_nodes(reader: impl BufRead, name: impl AsRef<Path>) -> Result<Vec<TntpNode>, GraphError> {
    parse_rows(reader, name, |fields, line| {
        if fields.len() < 3 {
            return Err(ParseIssue::UnexpectedLine { found: excerpt(line), expected: "a row `node x y`" });
        }
        Ok(TntpNode {
            id: node_id(fields.first(), "node")?,
            x: number(fields.get(1), "x")?,
            y: number(fields.get(2), "y")?,
        })
    })
}

/// Rows of a table file: blank, `~` and `<metadata>` lines skipped, a non-numeric first row taken as the
/// column header, every other row given to `parse` with its non-empty fields.
fn parse_rows<T>(
    reader: impl BufRead,
    name: impl AsRef<Path>,
    parse: impl Fn(&[&str], &str) -> Result<T, ParseIssue>,
) -> Result<Vec<T>, GraphError> {
    let mut lines = Lines::new(reader, name);
    let mut rows = Vec::new();
    while let Some(line) = lines.next_line()? {
        let t = line.trim();
        if t.is_empty() || t.starts_with('~') || t.starts_with('<') {
            continue;
        }
        let fields: Vec<&str> = row_fields(line).into_iter().filter(|f| !f.is_empty()).collect();
        if rows.is_empty() && fields.first().is_some_and(|f| f.parse::<f64>().is_err()) {
            continue;
        }
        let row = parse(&fields, line);
        rows.push(row.map_err(|kind| lines.error(kind))?);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    const META: &str = "<NUMBER OF ZONES> 2\n<NUMBER OF NODES> 3\n<FIRST THRU NODE> 3\n<NUMBER OF LINKS> 2\n\
                        <END OF METADATA>\n";

    #[test]
    fn net_rows_with_every_terminator_and_crlf() {
        let text = format!(
            "{}\r\n~\tinit_node\tterm_node\tcapacity\tlength\tfree_flow_time\tb\tpower\tspeed\ttoll\tlink_type\t;\r\n\
             \t1\t3\t1.49999e+006\t2\t3\t0.15\t4\t0\t0\t1;\r\n3\t2\t100\t2\t3\t0.15\t4\t0\t0\t1\r\n",
            META.replace('\n', "\r\n")
        );
        let net = parse_net(text.as_bytes(), "crlf_net.tntp").unwrap();
        assert_eq!(net.links.len(), 2);
        assert_eq!(net.links[0].capacity, 1.49999e6);
        assert_eq!(net.links[0].link_type, 1);
        assert_eq!((net.links[1].from, net.links[1].to), (3, 2));
        assert_eq!(net.first_thru_node, 3);
    }

    #[test]
    fn net_maps_columns_by_header_and_keeps_extras() {
        let text = format!(
            "{META}~\tinit_node\tterm_node\tcapacity\tlength\tfree_flow_time\tb\tpower\tspeed\tcritical_speed\tlanes\t;\n\
             \t1\t3\t2880\t0.9\t2.26\t0.25\t4\t24\t19.2\t2\t\n\t3\t2\t2880\t0.9\t2.26\t0.25\t4\t24\t19.2\t3\t\n"
        );
        let net = parse_net(text.as_bytes(), "sydney_net.tntp").unwrap();
        assert_eq!(net.extra_columns, vec!["critical_speed", "lanes"]);
        assert_eq!(net.extra_values, vec![19.2, 2.0, 19.2, 3.0]);
        assert_eq!(net.links[0].toll, 0.0);
        assert!(net.notes.iter().any(|n| n.contains("toll")), "{:?}", net.notes);
    }

    #[test]
    fn net_rows_narrower_than_their_header_are_an_error_unless_lenient() {
        // Sioux Falls rows with the `b` column left out: by position `power` would be read as `b`.
        let header = "~\tinit_node\tterm_node\tcapacity\tlength\tfree_flow_time\tb\tpower\tspeed\ttoll\tlink_type\t;\n";
        let text =
            format!("{META}{header}\t1\t3\t100\t2\t3\t4\t0\t0\t1\t;\n\t3\t2\t100\t2\t3\t4\t0\t0\t1\t;\n");
        let err = parse_net(text.as_bytes(), "nob_net.tntp").unwrap_err();
        assert!(
            matches!(err.kind(), Some(ParseIssue::HeaderColumns { found: 9, named: 10, header_line: 6 })),
            "{err}"
        );
        assert_eq!(err.line(), Some(7));
        assert!(
            err.to_string().starts_with(
                "nob_net.tntp:7: the rows hold 9 fields but the column header (line 6) names 10"
            )
        );
        let lenient = ReadOptions { lenient: true, ..Default::default() };
        let net = parse_net_with(text.as_bytes(), "nob_net.tntp", lenient).unwrap();
        assert_eq!(net.warnings.len(), 1);
        assert_eq!(net.links.len(), 2);
    }

    #[test]
    fn net_rows_wider_than_a_standard_header_read_by_position() {
        // Hessen's header names the first nine standard columns; its rows also hold `link_type`.
        let header =
            "~\tinit_node\tterm_node\tcapacity\tlength\tfree_flow_time\tb\tpower\tspeed\ttoll \t\t;\n";
        let text = format!(
            "{META}{header}\t1\t3\t100\t2\t3\t0.1\t1.5\t50\t0\t7;\n\t3\t2\t100\t2\t3\t0.1\t1.5\t50\t0\t7;\n"
        );
        let net = parse_net(text.as_bytes(), "hessen_net.tntp").unwrap();
        assert_eq!((net.links[0].b, net.links[0].power, net.links[0].link_type), (0.1, 1.5, 7));
        assert!(net.notes.iter().any(|n| n.contains("names 9 columns but rows hold 10")), "{:?}", net.notes);
        // A header in another order, rows wider: no reading is safe.
        let shuffled = header.replace("\tb\tpower", "\tpower\tb");
        let text = text.replace(header, &shuffled);
        assert!(parse_net(text.as_bytes(), "hessen_net.tntp").is_err());
    }

    #[test]
    fn net_empty_field_reads_as_zero_and_is_reported() {
        let text = format!("{META}\t1\t3\t0\t0.0\t\t0\t0\t0\t0\t0\t;\n1 2 1 1 1 0 0 0 0 0 ;\n");
        let net = parse_net(text.as_bytes(), "munich_net.tntp").unwrap();
        assert_eq!(net.links[0].free_flow_time, 0.0);
        assert_eq!(net.links[0].b, 0.0);
        assert!(net.notes.iter().any(|n| n.contains("1 empty field")), "{:?}", net.notes);
    }

    #[test]
    fn net_errors_name_the_line() {
        let text = format!("{META}1 3 100 1 1 0.15 4 0 0 1 ;\n1 x 100 1 1 0.15 4 0 0 1 ;\n");
        let err = parse_net(text.as_bytes(), "bad_net.tntp").unwrap_err();
        assert_eq!(err.line(), Some(7));
        assert!(err.to_string().starts_with("bad_net.tntp:7: field `term_node`"), "{err}");

        let short = format!("{META}1 3 100 1 1 0.15 4 0 0 1 ;\n");
        let err = parse_net(short.as_bytes(), "short_net.tntp").unwrap_err();
        assert!(matches!(err.kind(), Some(ParseIssue::CountMismatch { header: 2, found: 1, .. })), "{err}");

        let no_nodes = "<NUMBER OF ZONES> 2\n<NUMBER OF LINKS> 0\n<END OF METADATA>\n";
        let err = parse_net(no_nodes.as_bytes(), "meta_net.tntp").unwrap_err();
        assert!(matches!(err.kind(), Some(ParseIssue::MissingMetadata { key: "NUMBER OF NODES" })), "{err}");
    }

    #[test]
    fn trips_accept_every_separator() {
        let text = "<NUMBER OF ZONES> 5\n<TOTAL OD FLOW> 1769.414\n<END OF METADATA>\n\n\
                    Origin \t1\n    1 :      0.0;     2 :    1365.90;\n Origin  2 \n 3 : 402.1 ; \n\
                    Origin 3\n5 \t: \t1.414000; \t\nOrigin 4\n";
        let trips = parse_trips(text.as_bytes(), "t_trips.tntp").unwrap();
        assert_eq!(trips.entries, vec![(1, 1, 0.0), (1, 2, 1365.9), (2, 3, 402.1), (3, 5, 1.414)]);
        assert!(trips.warnings.is_empty(), "{:?}", trips.warnings);

        let err =
            parse_trips("<NUMBER OF ZONES> 1\n<END OF METADATA>\n1 : 2;\n".as_bytes(), "x").unwrap_err();
        assert_eq!(err.line(), Some(3));
        let err = parse_trips("<NUMBER OF ZONES> 1\n<END OF METADATA>\nOrigin 1\n1 2;\n".as_bytes(), "x")
            .unwrap_err();
        assert_eq!(err.line(), Some(4));
    }

    #[test]
    fn trips_total_mismatch_is_an_error_unless_lenient() {
        let text = "<NUMBER OF ZONES> 1\n<TOTAL OD FLOW> 10\n<END OF METADATA>\nOrigin 1\n1 : 3;\n";
        let err = parse_trips(text.as_bytes(), "t").unwrap_err();
        assert_eq!(err.line(), Some(2));
        assert!(matches!(err.kind(), Some(ParseIssue::TotalMismatch { found: 3.0, .. })), "{err}");
        let lenient = ReadOptions { lenient: true, ..Default::default() };
        let trips = parse_trips_with(text.as_bytes(), "t", lenient).unwrap();
        assert_eq!(trips.warnings.len(), 1);
        assert_eq!(trips.entries, vec![(1, 1, 3.0)]);
        // A header rounded to its written digits is no disagreement (Winnipeg-Asymmetric's).
        let rounded =
            "<NUMBER OF ZONES> 1\n<TOTAL OD FLOW> 1.36148e+006\n<END OF METADATA>\nOrigin 1\n1 : 1361475;\n";
        assert!(parse_trips(rounded.as_bytes(), "t").is_ok());
        let off = rounded.replace("1361475", "1361474.9");
        assert!(parse_trips(off.as_bytes(), "t").is_err());
    }

    #[test]
    fn trips_cut_inside_an_entry_or_beyond_the_zones_is_an_error() {
        let cut =
            "<NUMBER OF ZONES> 2\n<END OF METADATA>\nOrigin 1\n 1 : 0.0;  2 : 1200.0;\nOrigin 2\n 1 : 12";
        let err = parse_trips(cut.as_bytes(), "t").unwrap_err();
        assert!(matches!(err.kind(), Some(ParseIssue::Truncated { .. })), "{err}");
        // Sparse ids are fine while they are no more than declared.
        let sparse = "<NUMBER OF ZONES> 2\n<END OF METADATA>\nOrigin 1000\n 70 : 5.0;\n";
        assert!(parse_trips(sparse.as_bytes(), "t").is_ok());
        let three = "<NUMBER OF ZONES> 2\n<END OF METADATA>\nOrigin 1\n 2 : 5.0; 3 : 1.0;\n";
        let err = parse_trips(three.as_bytes(), "t").unwrap_err();
        assert!(
            matches!(err.kind(), Some(ParseIssue::IdsBeyondHeader { declared: 2, found: 3, largest: 3, .. })),
            "{err}"
        );
        assert_eq!(err.line(), Some(1));
    }

    #[test]
    fn net_cut_rows_and_foreign_nodes_are_errors_unless_lenient() {
        // The last row cut inside a number: no `;` though the rows before have one.
        let text =
            format!("{META}1 3 100 1 1 0.15 4 0 0 1 ;\n1 2 100 1 1 0.15 4 0 0 1 ;\n3 2 100 1 1 0.15 4 0 0 1");
        let err = parse_net(text.as_bytes(), "cut_net.tntp").unwrap_err();
        assert!(matches!(err.kind(), Some(ParseIssue::Truncated { .. })), "{err}");
        assert_eq!(err.line(), Some(8));
        // A row narrower than the ones before it.
        let text = format!("{META}1 3 100 1 1 0.15 4 0 0 1\n3 2 100 1 1 0.15 4 0\n");
        let err = parse_net(text.as_bytes(), "narrow_net.tntp").unwrap_err();
        assert!(matches!(err.kind(), Some(ParseIssue::ShortRow { found: 8, expected: 10 })), "{err}");
        // A link to node 30 of a network declaring 3 nodes; lenient keeps it and warns.
        let text = format!("{META}1 2 100 1 1 0.15 4 0 0 1 ;\n3 30 100 1 1 0.15 4 0 0 1 ;\n");
        let err = parse_net(text.as_bytes(), "foreign_net.tntp").unwrap_err();
        assert!(
            matches!(err.kind(), Some(ParseIssue::IdsBeyondHeader { found: 4, largest: 30, .. })),
            "{err}"
        );
        let lenient = ReadOptions { lenient: true, ..Default::default() };
        let net = parse_net_with(text.as_bytes(), "foreign_net.tntp", lenient).unwrap();
        assert_eq!((net.links.len(), net.warnings.len()), (2, 1));
        assert_eq!(net.node_ids(), vec![1, 2, 3, 30]);
    }

    #[test]
    fn flow_and_node_files() {
        let flow = "From \tTo \tVolume \tCost \n1 \t2 \t4494.65 \t6.0008 \n";
        assert_eq!(
            parse_flow(flow.as_bytes(), "f").unwrap(),
            vec![TntpFlowRow { from: 1, to: 2, volume: 4494.65, cost: 6.0008 }]
        );
        let with_meta = "<NUMBER OF ZONES> -1\n<END OF METADATA>\n\nTail \tHead \tVolume \tCost \t;\n\t1 \t9 \t1.5 \t0.1 \t;\n";
        assert_eq!(parse_flow(with_meta.as_bytes(), "f").unwrap().len(), 1);
        let nodes = "Node\tX\tY\t;\n1\t-96.77\t43.61\t;\n";
        assert_eq!(
            parse_nodes(nodes.as_bytes(), "n").unwrap(),
            vec![TntpNode { id: 1, x: -96.77, y: 43.61 }]
        );
    }
}
