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
//! what was expected ([`GraphError`]); header counts are checked against the body; nothing is silently
//! dropped (parallel arcs and self-loops are kept unless [`ReadOptions`] says otherwise).
//!
//! ```
//! use urbanflow::graph::io::{parse_dimacs_sp, ParseIssue, ReadOptions};
//! let text = "c tiny\np sp 2 1\na 1 2 7\n";
//! let g = parse_dimacs_sp::<u32>(text.as_bytes(), "tiny.gr", ReadOptions::default()).unwrap();
//! assert_eq!(g.out_arcs(0).collect::<Vec<_>>(), vec![(1, 7)]);
//!
//! let err = parse_dimacs_sp::<u32>("p sp 2 1\na 1 3 7\n".as_bytes(), "bad.gr", ReadOptions::default())
//!     .unwrap_err();
//! assert_eq!(err.line(), Some(2));
//! assert!(matches!(err.kind(), Some(ParseIssue::VertexOutOfRange { id: 3, .. })));
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
pub use crate::error::ParseIssue;
use crate::weight::Weight;

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
/// use urbanflow::graph::io::{ReadOptions, tntp::parse_trips_with};
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
    pub kind: ParseIssue,
}

impl From<ReadWarning> for GraphError {
    fn from(w: ReadWarning) -> Self {
        GraphError::Parse { path: w.path, line: w.line, kind: w.kind }
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
    pub(crate) fn found(&mut self, line: u64, kind: ParseIssue) -> Result<(), GraphError> {
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

/// Reads any supported plain graph file, the format detected from its content ([`detect_format`]:
/// `p sp` means DIMACS shortest-path, `p tw` PACE-2016, lines of numbers a plain edge list). Files two
/// formats would read differently — `a u v w` arcs with no `p sp` line, which DIMACS reads 1-based and
/// the fast_paths variant 0-based — are refused with both readings named; [`read_graph_as`] takes the
/// format from the caller instead.
pub fn read_graph<W: Weight>(path: impl AsRef<Path>, opts: ReadOptions) -> Result<Csr<W>, GraphError> {
    read_graph_as(path, GraphFormat::Auto, opts)
}
