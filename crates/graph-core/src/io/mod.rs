//! Streaming readers and writers for road-graph formats, with transparent `.gz` / `.xz` decompression.
//!
//! | format | lines | ids | function |
//! |---|---|---|---|
//! | DIMACS shortest path `.gr` | `c …`, `p sp n m`, `a u v w` | 1-based | [`read_dimacs_sp`] |
//! | 0-based `a u v w` variant (fast_paths) | `a u v w`, optional `p sp n m` | 0-based | [`read_dimacs_sp_zero_based`] |
//! | PACE-2016 `.gr` | `c …`, `p tw n m`, `u v` (undirected, unweighted) | 1-based | [`read_pace`] |
//! | plain edge list | `u v [w]`, `#`/`%` comments | 0-based | [`read_edge_list`] |
//! | DIMACS coordinates `.co` | `c …`, `p aux sp co n`, `v id x y` | 1-based | [`read_dimacs_coordinates`] |
//! | TNTP traffic assignment | `<KEY> value` metadata, `~` comments, rows ending in `;` | file's own | [`tntp`] |
//!
//! [`read_graph`] picks the format from the file's content and refuses files two formats would read
//! differently; [`read_graph_as`] takes the format by name ([`GraphFormat`]); [`load_graph`] also reads
//! TNTP networks and keeps the file's vertex ids. Every error names the file, the line and
//! what was expected ([`ReadError`]); header counts are checked against the body; nothing is silently
//! dropped (parallel arcs and self-loops are kept unless [`ReadOptions`] says otherwise).
//!
//! ```
//! use graph_core::io::{parse_dimacs_sp, ParseError, ReadOptions};
//! let text = "c tiny\np sp 2 1\na 1 2 7\n";
//! let g = parse_dimacs_sp::<u32>(text.as_bytes(), "tiny.gr", ReadOptions::default()).unwrap();
//! assert_eq!(g.out_arcs(0).collect::<Vec<_>>(), vec![(1, 7)]);
//!
//! let err = parse_dimacs_sp::<u32>("p sp 2 1\na 1 3 7\n".as_bytes(), "bad.gr", ReadOptions::default())
//!     .unwrap_err();
//! assert_eq!(err.line(), Some(2));
//! assert!(matches!(err.kind(), Some(ParseError::VertexOutOfRange { id: 3, .. })));
//! assert_eq!(err.to_string(), "bad.gr:2: vertex id 3 out of range: expected 1..=2");
//! ```

mod coords;
mod dimacs;
mod edge_list;
mod format;
mod lines;
mod source;
pub mod tntp;
mod write;

pub use coords::{parse_dimacs_coordinates, read_dimacs_coordinates};
pub use dimacs::{
    parse_dimacs_sp, parse_dimacs_sp_zero_based, parse_pace, read_dimacs_sp, read_dimacs_sp_zero_based,
    read_pace,
};
pub use edge_list::{parse_edge_list, read_edge_list};
pub use format::{GraphFormat, LoadOptions, LoadedGraph, detect_format, load_graph, read_graph_as};
pub use source::{Compression, open_text};
pub use write::{create_text, write_dimacs_sp, write_edge_list, write_pace};

use std::path::{Path, PathBuf};

use crate::builder::{DuplicatePolicy, SelfLoopPolicy};
use crate::csr::Csr;
use crate::error::GraphError;
use crate::weight::{Weight, WeightIssue};

/// How a reader turns the file's arcs into a graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReadOptions {
    /// Parallel arcs (default: keep all).
    pub duplicates: DuplicatePolicy,
    /// Self-loops (default: keep).
    pub self_loops: SelfLoopPolicy,
    /// TNTP files ([`tntp`], and [`load_graph`] of a `_net` file): accept a file whose body disagrees
    /// with its own header — a declared total or count the rows do not add up to, ids beyond the
    /// declared number of nodes or zones, a last row cut short — and return each disagreement as a
    /// [`ReadWarning`] beside the data instead of refusing the file. Default `false`: such a file is an
    /// error naming the line, the declared and the found value (the examples' `--lenient` sets it and
    /// prints the warnings on stderr). The DIMACS and PACE readers always refuse a body that disagrees
    /// with their `p` line: their files are machine-written, and a disagreement is a damaged file.
    pub lenient: bool,
}

/// A disagreement that [`ReadOptions::lenient`] let through: the error a strict read would have
/// returned, kept beside the data so that a caller can show it.
///
/// ```
/// use graph_core::io::{ReadOptions, tntp::parse_trips_with};
/// let text = "<NUMBER OF ZONES> 1\n<TOTAL OD FLOW> 10\n<END OF METADATA>\nOrigin 1\n1 : 3;\n";
/// assert!(parse_trips_with(text.as_bytes(), "t_trips.tntp", ReadOptions::default()).is_err());
/// let lenient = ReadOptions { lenient: true, ..Default::default() };
/// let trips = parse_trips_with(text.as_bytes(), "t_trips.tntp", lenient).unwrap();
/// assert_eq!(
///     trips.warnings[0].to_string(),
///     "t_trips.tntp:2: <TOTAL OD FLOW> declares 10 but the entries add up to 3"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}:{line}: {kind}", path.display())]
pub struct ReadWarning {
    /// The file.
    pub path: PathBuf,
    /// 1-based line of the disagreement (the header line for totals and counts).
    pub line: u64,
    /// What disagrees.
    pub kind: ParseError,
}

impl From<ReadWarning> for ReadError {
    fn from(w: ReadWarning) -> Self {
        ReadError::Parse { path: w.path, line: w.line, kind: w.kind }
    }
}

/// Collects the disagreements of one file: an error at the first one in strict mode, warnings when
/// lenient.
#[derive(Debug)]
pub(crate) struct Disagreements {
    path: PathBuf,
    lenient: bool,
    found: Vec<ReadWarning>,
}

impl Disagreements {
    pub(crate) fn new(path: &Path, opts: ReadOptions) -> Self {
        Self { path: path.to_path_buf(), lenient: opts.lenient, found: Vec::new() }
    }

    /// Records a disagreement at `line`: an error unless lenient.
    pub(crate) fn found(&mut self, line: u64, kind: ParseError) -> Result<(), ReadError> {
        let w = ReadWarning { path: self.path.clone(), line: line.max(1), kind };
        if self.lenient {
            self.found.push(w);
            Ok(())
        } else {
            Err(w.into())
        }
    }

    pub(crate) fn into_warnings(self) -> Vec<ReadWarning> {
        self.found
    }
}

/// A graph file could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The file could not be opened.
    #[error("{}: cannot open: {source}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file's content is not what the format expects at a line.
    #[error("{}:{line}: {kind}", path.display())]
    Parse {
        /// The file (or the name given to an in-memory source).
        path: PathBuf,
        /// 1-based line number (the last line for whole-file checks such as counts).
        line: u64,
        /// What was wrong.
        kind: ParseError,
    },
}

impl ReadError {
    /// The 1-based line of a parse error.
    pub fn line(&self) -> Option<u64> {
        match self {
            ReadError::Parse { line, .. } => Some(*line),
            ReadError::Open { .. } => None,
        }
    }

    /// What was wrong, for parse errors.
    pub fn kind(&self) -> Option<&ParseError> {
        match self {
            ReadError::Parse { kind, .. } => Some(kind),
            ReadError::Open { .. } => None,
        }
    }

    /// The file concerned.
    pub fn path(&self) -> &Path {
        match self {
            ReadError::Open { path, .. } | ReadError::Parse { path, .. } => path,
        }
    }
}

/// What was wrong at a line of a graph file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// Reading failed (a corrupt or truncated compressed stream, an I/O error).
    #[error("read failed: {0}")]
    Io(String),
    /// The line is not UTF-8 text.
    #[error("not text: the line holds bytes that are not UTF-8 (binary or garbage data?)")]
    NotText,
    /// The file holds no content lines at all.
    #[error("empty file: expected {expected}")]
    Empty {
        /// What the format starts with.
        expected: &'static str,
    },
    /// The file reads differently in two formats; the caller must name one.
    #[error("ambiguous file: it reads as {first}, or as {second}; name the format")]
    Ambiguous {
        /// One reading.
        first: &'static str,
        /// The other.
        second: &'static str,
    },
    /// A content line came before the problem line.
    #[error("expected the problem line `{expected}` before this line")]
    MissingProblemLine {
        /// The problem line the format needs.
        expected: &'static str,
    },
    /// A second problem line.
    #[error("a second problem line (`p ...`); only one is allowed")]
    DuplicateProblemLine,
    /// The problem line is malformed or names another problem.
    #[error("bad problem line `{found}`: expected `{expected}`")]
    BadProblemLine {
        /// The line as found.
        found: String,
        /// The expected shape.
        expected: &'static str,
    },
    /// A line of a kind this format does not have.
    #[error("unexpected line `{found}`: expected {expected}")]
    UnexpectedLine {
        /// The line as found (shortened).
        found: String,
        /// What may appear here.
        expected: &'static str,
    },
    /// A field is missing or not a number.
    #[error("field `{field}`: found `{found}`, expected {expected}")]
    BadField {
        /// The field's name.
        field: &'static str,
        /// What is there (empty if missing).
        found: String,
        /// What should be there.
        expected: &'static str,
    },
    /// A weight field that the weight type rejects.
    #[error("weight `{found}` is not allowed: {issue} (expected a non-negative finite {weight_type})")]
    BadWeight {
        /// The field as found.
        found: String,
        /// What is wrong.
        issue: WeightIssue,
        /// The weight type read.
        weight_type: &'static str,
    },
    /// A vertex id outside the declared range.
    #[error("vertex id {id} out of range: expected {first}..={last}")]
    VertexOutOfRange {
        /// The id as found in the file.
        id: u64,
        /// Smallest valid id.
        first: u64,
        /// Largest valid id.
        last: u64,
    },
    /// The body holds more or fewer items than the header announced.
    #[error("the header announces {header} {what} but the file holds {found}")]
    CountMismatch {
        /// What was counted ("arcs", "edges", "vertices").
        what: &'static str,
        /// The header's count.
        header: u64,
        /// The body's count (so far, when there are too many).
        found: u64,
    },
    /// A coordinate given twice.
    #[error("vertex {id} is given twice")]
    DuplicateVertex {
        /// The id as in the file.
        id: u64,
    },
    /// A metadata line the format needs is absent.
    #[error("missing metadata `<{key}>`")]
    MissingMetadata {
        /// The key, without brackets.
        key: &'static str,
    },
    /// A declared total that the rows do not add up to.
    #[error("<{key}> declares {header} but the entries add up to {found}")]
    TotalMismatch {
        /// The metadata key, without brackets.
        key: &'static str,
        /// The value as written in the header.
        header: String,
        /// The sum of the rows.
        found: f64,
    },
    /// Ids beyond `1..=declared` that are not a sparse numbering of exactly `declared` ids.
    #[error(
        "<{key}> declares {declared} but the {rows} name {found} distinct ids, up to {largest} (ids beyond \
         1..={declared} are read as a sparse numbering only when there are exactly {declared} of them)"
    )]
    IdsBeyondHeader {
        /// The metadata key, without brackets.
        key: &'static str,
        /// What names the ids ("links", "entries").
        rows: &'static str,
        /// The header's count.
        declared: u64,
        /// Distinct ids found.
        found: u64,
        /// The largest id found.
        largest: u64,
    },
    /// The last row ends without the terminator every row before it has: the file looks cut.
    #[error("the last row `{found}` has no `;` though every row before it has one: is the file cut short?")]
    Truncated {
        /// The row as found (shortened).
        found: String,
    },
    /// A row with fewer fields than the rows before it.
    #[error("the row has {found} fields but the rows before it have {expected}: is it cut short?")]
    ShortRow {
        /// Fields of this row.
        found: usize,
        /// Fields of the rows before.
        expected: usize,
    },
    /// The arcs read do not make a graph (too many arcs for u32 offsets, ...).
    #[error("{0}")]
    Graph(GraphError),
}

/// Reads any supported plain graph file, the format detected from its content ([`detect_format`]:
/// `p sp` means DIMACS shortest-path, `p tw` PACE-2016, lines of numbers a plain edge list). Files two
/// formats would read differently — `a u v w` arcs with no `p sp` line, which DIMACS reads 1-based and
/// the fast_paths variant 0-based — are refused with both readings named; [`read_graph_as`] takes the
/// format from the caller instead.
pub fn read_graph<W: Weight>(path: impl AsRef<Path>, opts: ReadOptions) -> Result<Csr<W>, ReadError> {
    read_graph_as(path, GraphFormat::Auto, opts)
}
