//! Which format a graph file is in: named by the caller, or detected from the content without
//! guessing — a file that two formats read differently is refused with both readings named.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use super::lines::{Lines, excerpt};
use super::tntp::read_net_with;
use super::{
    GraphError, ParseIssue, ReadOptions, ReadWarning, open_text, read_dimacs_sp, read_dimacs_sp_zero_based,
    read_edge_list, read_pace,
};
use crate::csr::Csr;
use crate::weight::Weight;

/// A graph file format (`--format` in the examples).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GraphFormat {
    /// Detected from the content ([`detect_format`]); ambiguous files are refused.
    #[default]
    Auto,
    /// DIMACS shortest-path `.gr`: `p sp n m`, then `a u v w` with 1-based ids (`dimacs`).
    Dimacs,
    /// The 0-based `a u v w` variant of fast_paths, `p sp` line optional (`dimacs0`).
    DimacsZeroBased,
    /// PACE-2016 `.gr`: `p tw n m`, then `u v` undirected unweighted edges, 1-based (`pace`).
    Pace,
    /// Plain edge list `u v [w]`, 0-based, `#`/`%` comments (`edges`).
    EdgeList,
    /// A TNTP `_net` file, taken as a plain graph of free-flow times (`tntp`; see [`load_graph`]).
    Tntp,
}

impl GraphFormat {
    /// The name used on command lines.
    pub fn name(self) -> &'static str {
        match self {
            GraphFormat::Auto => "auto",
            GraphFormat::Dimacs => "dimacs",
            GraphFormat::DimacsZeroBased => "dimacs0",
            GraphFormat::Pace => "pace",
            GraphFormat::EdgeList => "edges",
            GraphFormat::Tntp => "tntp",
        }
    }

    /// Every format, `Auto` first.
    pub const ALL: [GraphFormat; 6] = [
        GraphFormat::Auto,
        GraphFormat::Dimacs,
        GraphFormat::DimacsZeroBased,
        GraphFormat::Pace,
        GraphFormat::EdgeList,
        GraphFormat::Tntp,
    ];
}

impl fmt::Display for GraphFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for GraphFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim().to_ascii_lowercase();
        GraphFormat::ALL.into_iter().find(|f| f.name() == s).ok_or_else(|| {
            let names: Vec<&str> = GraphFormat::ALL.iter().map(|f| f.name()).collect();
            format!("unknown graph format `{s}`: expected one of {}", names.join(", "))
        })
    }
}

/// Whether a path names a `.gr` file (also `.gr.gz`, `.gr.xz`).
fn is_dot_gr(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    let name = name.strip_suffix(".gz").or_else(|| name.strip_suffix(".xz")).unwrap_or(&name);
    name.ends_with(".gr")
}

/// The format of a file, from its first content line (comments skipped):
///
/// | first content line | format |
/// |---|---|
/// | `<KEY> value` (TNTP metadata) | [`GraphFormat::Tntp`] |
/// | `p sp n m` | [`GraphFormat::Dimacs`] |
/// | `p tw n m` | [`GraphFormat::Pace`] |
/// | `a u v w` | refused: in a `.gr` file, the missing `p sp` line is reported ([`ParseIssue::MissingProblemLine`]); elsewhere the file is [`ParseIssue::Ambiguous`] between DIMACS without its header (1-based) and the 0-based variant |
/// | numbers | [`GraphFormat::EdgeList`] |
///
/// ```
/// use urbanflow::graph::io::{GraphFormat, ParseIssue, detect_format};
/// let dir = std::env::temp_dir().join(format!("uf-detect-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// std::fs::write(dir.join("ok.gr"), "c fine\np sp 2 1\na 1 2 3\n").unwrap();
/// assert_eq!(detect_format(dir.join("ok.gr")).unwrap(), GraphFormat::Dimacs);
/// std::fs::write(dir.join("headless.gr"), "c only a comment\na 1 2 3\n").unwrap();
/// let err = detect_format(dir.join("headless.gr")).unwrap_err();
/// assert_eq!(err.line(), Some(2));
/// assert!(matches!(err.kind(), Some(ParseIssue::MissingProblemLine { .. })));
/// # std::fs::remove_dir_all(&dir).ok();
/// ```
pub fn detect_format(path: impl AsRef<Path>) -> Result<GraphFormat, GraphError> {
    let path = path.as_ref();
    let mut lines = Lines::new(open_text(path)?, path);
    while let Some(line) = lines.next_line()? {
        let trimmed = line.trim_start();
        if trimmed.starts_with('<') {
            return Ok(GraphFormat::Tntp);
        }
        let mut f = trimmed.split_ascii_whitespace();
        match f.next() {
            None | Some("c") | Some("#") | Some("%") | Some("~") => continue,
            Some(tok) if tok.starts_with('#') || tok.starts_with('%') || tok.starts_with('~') => continue,
            Some("p") => {
                let kind = match f.next() {
                    Some("sp") => Ok(GraphFormat::Dimacs),
                    Some("tw") => Ok(GraphFormat::Pace),
                    _ => Err(ParseIssue::BadProblemLine {
                        found: excerpt(line),
                        expected: "p sp <n> <m> or p tw <n> <m>",
                    }),
                };
                return kind.map_err(|e| lines.error(e));
            }
            Some("a") if is_dot_gr(path) => {
                return Err(lines.error(ParseIssue::MissingProblemLine { expected: "p sp <n> <m>" }));
            }
            Some("a") => {
                return Err(lines.error(ParseIssue::Ambiguous {
                    first: "DIMACS shortest-path arcs without their `p sp <n> <m>` line (1-based ids; \
                            add the line, or --format dimacs to be told what else is missing)",
                    second: "the 0-based `a u v w` variant (--format dimacs0)",
                }));
            }
            Some(_) => return Ok(GraphFormat::EdgeList),
        }
    }
    Err(lines.error(ParseIssue::Empty { expected: "a graph" }))
}

/// Reads a graph in `format` (detected when [`GraphFormat::Auto`]). TNTP networks have real-valued
/// link times and their own ids: read them with [`load_graph`], which scales and rounds the times.
pub fn read_graph_as<W: Weight>(
    path: impl AsRef<Path>,
    format: GraphFormat,
    opts: ReadOptions,
) -> Result<Csr<W>, GraphError> {
    let path = path.as_ref();
    let format = if format == GraphFormat::Auto { detect_format(path)? } else { format };
    match format {
        GraphFormat::Auto | GraphFormat::Dimacs => read_dimacs_sp(path, opts),
        GraphFormat::DimacsZeroBased => read_dimacs_sp_zero_based(path, opts),
        GraphFormat::Pace => read_pace(path, opts),
        GraphFormat::EdgeList => read_edge_list(path, opts),
        GraphFormat::Tntp => Err(GraphError::Parse {
            path: path.to_path_buf(),
            line: 1,
            kind: ParseIssue::UnexpectedLine {
                found: "a TNTP network".into(),
                expected: "a plain graph format here; TNTP networks are read by load_graph (free-flow \
                           times × units, file ids kept)",
            },
        }),
    }
}

/// Words of [`LoadedGraph::to_bytes`]' arrays before the ids: offsets, targets, weights, zones.
fn words_len(n: usize, m: usize, z: usize) -> usize {
    n + 1 + 2 * m + z
}

/// A graph read from a file, with the file's own vertex ids.
#[derive(Debug, Clone)]
pub struct LoadedGraph {
    /// The graph, vertices numbered `0..n`.
    pub graph: Csr<u32>,
    /// The file's id of each vertex (1-based files: `v + 1`; TNTP: the node numbers).
    pub ids: Vec<u64>,
    /// TNTP zones as vertices, when they are nodes `1..=zones`.
    pub zones: Option<Vec<u32>>,
    /// The format read.
    pub format: GraphFormat,
    /// Where the file disagrees with its own header (only with [`ReadOptions::lenient`]).
    pub warnings: Vec<ReadWarning>,
}

impl LoadedGraph {
    /// The graph, ids, zones and format as bytes (little-endian), for a cache of parsed files
    /// (`gpu_runtime::parsed_cache`); warnings are not kept. [`LoadedGraph::from_bytes`] reads them.
    pub fn to_bytes(&self) -> Vec<u8> {
        let g = &self.graph;
        let zones = self.zones.as_deref();
        let words = g.offsets().len() + 2 * g.targets().len() + zones.map_or(0, <[u32]>::len);
        let mut out = Vec::with_capacity(32 + 4 * words + 8 * self.ids.len());
        out.push(match self.format {
            GraphFormat::Auto => 0, // never a loaded graph's: refused when read back
            GraphFormat::Dimacs => 1,
            GraphFormat::DimacsZeroBased => 2,
            GraphFormat::Pace => 3,
            GraphFormat::EdgeList => 4,
            GraphFormat::Tntp => 5,
        });
        out.push(zones.is_some() as u8);
        for count in [g.offsets().len() - 1, g.targets().len(), zones.map_or(0, <[u32]>::len)] {
            out.extend_from_slice(&(count as u64).to_le_bytes());
        }
        for words in [g.offsets(), g.targets(), g.weights(), zones.unwrap_or(&[])] {
            words.iter().for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
        }
        self.ids.iter().for_each(|id| out.extend_from_slice(&id.to_le_bytes()));
        out
    }

    /// The graph of [`LoadedGraph::to_bytes`], or `None` when the bytes are not one (a layout that does
    /// not add up, a CSR that [`Csr::from_parts`] refuses, zones outside the graph).
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        let format = match *bytes.first()? {
            1 => GraphFormat::Dimacs,
            2 => GraphFormat::DimacsZeroBased,
            3 => GraphFormat::Pace,
            4 => GraphFormat::EdgeList,
            5 => GraphFormat::Tntp,
            _ => return None,
        };
        let has_zones = match *bytes.get(1)? {
            0 => false,
            1 => true,
            _ => return None,
        };
        let long = |at: usize| Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?));
        let [n, m, z] = [long(2)?, long(10)?, long(18)?].map(usize::try_from);
        let (n, m, z) = (n.ok()?, m.ok()?, z.ok()?);
        // Checked: the counts come from the file.
        let words = n.checked_add(1)?.checked_add(m.checked_mul(2)?)?.checked_add(z)?;
        let size = words.checked_mul(4)?.checked_add(n.checked_mul(8)?)?.checked_add(26)?;
        if size != bytes.len() || (!has_zones && z != 0) {
            return None;
        }
        let mut at = 26;
        let mut words = |len: usize| -> Vec<u32> {
            let part = &bytes[at..at + 4 * len];
            at += 4 * len;
            part.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap_or_default())).collect()
        };
        let (offsets, targets, weights, zones) = (words(n + 1), words(m), words(m), words(z));
        let start = 26 + 4 * words_len(n, m, z);
        let ids: Vec<u64> = bytes[start..]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
            .collect();
        let graph = Csr::from_parts(offsets, targets, weights).ok()?;
        if graph.num_vertices() as usize != n || ids.len() != n || zones.iter().any(|&v| v as usize >= n) {
            return None;
        }
        let zones = has_zones.then_some(zones);
        Some(Self { graph, ids, zones, format, warnings: Vec::new() })
    }

    /// The vertex whose file id is `id`, if any.
    pub fn vertex(&self, id: u64) -> Option<u32> {
        match self.format {
            // TNTP ids can be sparse (Munich): search.
            GraphFormat::Tntp => self.ids.iter().position(|&x| x == id).map(|v| v as u32),
            // Consecutive ids from the first: no search needed.
            _ => {
                let first = self.ids.first().copied().unwrap_or(0);
                id.checked_sub(first).filter(|&v| v < self.ids.len() as u64).map(|v| v as u32)
            }
        }
    }
}

/// Options of [`load_graph`].
#[derive(Debug, Clone, Copy)]
pub struct LoadOptions {
    /// The format (default: detected).
    pub format: GraphFormat,
    /// Parallel arcs, self-loops, and whether header disagreements are errors (the default) or warnings.
    pub read: ReadOptions,
    /// TNTP only: weight units per free-flow time unit (the times are scaled, then rounded).
    pub tntp_units: f64,
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self { format: GraphFormat::Auto, read: ReadOptions::default(), tntp_units: 1000.0 }
    }
}

/// Reads any supported graph file as a `u32`-weighted graph with the file's ids: the plain formats of
/// [`read_graph_as`], and TNTP `_net` files as free-flow travel times × [`LoadOptions::tntp_units`].
///
/// ```
/// use urbanflow::graph::io::{LoadOptions, load_graph};
/// let dir = std::env::temp_dir().join(format!("uf-load-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// std::fs::write(dir.join("tiny.gr"), "p sp 3 2\na 1 2 5\na 2 3 7\n").unwrap();
/// let g = load_graph(dir.join("tiny.gr"), &LoadOptions::default()).unwrap();
/// assert_eq!((g.graph.num_vertices(), g.ids[2], g.vertex(3)), (3, 3, Some(2)));
/// # std::fs::remove_dir_all(&dir).ok();
/// ```
pub fn load_graph(path: impl AsRef<Path>, opts: &LoadOptions) -> Result<LoadedGraph, GraphError> {
    let path = path.as_ref();
    let format = if opts.format == GraphFormat::Auto { detect_format(path)? } else { opts.format };
    if format == GraphFormat::Tntp {
        let net = read_net_with(path, opts.read)?;
        let g = net.free_flow_graph(opts.tntp_units)?;
        let zones = g.zone_vertices(net.zones);
        return Ok(LoadedGraph { graph: g.graph, ids: g.node_ids, zones, format, warnings: net.warnings });
    }
    let graph: Csr<u32> = read_graph_as(path, format, opts.read)?;
    let first = match format {
        GraphFormat::DimacsZeroBased | GraphFormat::EdgeList => 0,
        _ => 1,
    };
    let ids = (first..first + graph.num_vertices() as u64).collect();
    Ok(LoadedGraph { graph, ids, zones: None, format, warnings: Vec::new() })
}
