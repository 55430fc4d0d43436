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
