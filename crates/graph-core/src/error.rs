//! The graph crate's one error: building or checking a graph, reading a graph file (file and line
//! named, with a [`ParseIssue`] saying what was wrong there) and importing OpenStreetMap data all fail
//! with [`GraphError`].

use std::path::{Path, PathBuf};

use crate::osm::profile::Profile;

use crate::weight::WeightIssue;

/// Why a graph could not be built, read or imported.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GraphError {
    /// An arc names a vertex that does not exist.
    #[error("arc {arc} ({tail} -> {head}): vertex id out of range, the graph has {n} vertices (ids 0..{n})")]
    VertexOutOfRange {
        /// Position of the arc in the input.
        arc: usize,
        /// Tail of the arc.
        tail: u32,
        /// Head of the arc.
        head: u32,
        /// Number of vertices.
        n: u32,
    },
    /// A weight is not allowed (negative, NaN, infinite).
    #[error("arc {arc}: weight {value} is not allowed: {issue}")]
    BadWeight {
        /// Position of the arc in the input.
        arc: usize,
        /// The weight, printed.
        value: String,
        /// What is wrong with it.
        issue: WeightIssue,
    },
    /// More arcs than a `u32` CSR offset can address.
    #[error("{arcs} arcs do not fit in u32 CSR offsets (at most {max})")]
    TooManyArcs {
        /// Arcs requested.
        arcs: u64,
        /// The largest supported count.
        max: u64,
    },
    /// A generator or transformation parameter outside its domain.
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    /// CSR arrays that are inconsistent with each other.
    #[error("malformed CSR: {0}")]
    MalformedCsr(String),

    // Reading files.
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
        kind: ParseIssue,
    },
    /// The arcs a file holds do not make a graph (too many arcs for u32 offsets, ...).
    #[error("{}:{line}: the arcs read do not make a graph: {source}", path.display())]
    NotAGraph {
        /// The file.
        path: PathBuf,
        /// The line where reading ended.
        line: u64,
        /// Why the graph could not be built.
        source: Box<GraphError>,
    },

    // OpenStreetMap import and snapping.
    /// An OSM import: the file is not a readable OSM PBF or XML file.
    #[error("{}: not a readable OSM file: {message}", path.display())]
    OsmMalformed {
        /// The file.
        path: PathBuf,
        /// The decoder's message.
        message: String,
    },
    /// No way in the file is usable by the profile.
    #[error("{}: no way usable by the {profile} profile ({ways} ways read)", path.display())]
    NoRoutableWays {
        /// The file.
        path: PathBuf,
        /// The profile.
        profile: Profile,
        /// Ways in the file.
        ways: u64,
    },
    /// More vertices or arcs than `u32` ids hold.
    #[error("{}: {what} beyond u32 ids", path.display())]
    OsmTooLarge {
        /// The file.
        path: PathBuf,
        /// What overflowed.
        what: &'static str,
    },
    /// A coordinate that is not a latitude in -90..=90 and a longitude in -180..=180 degrees.
    #[error(
        "coordinate ({lat}, {lon}): expected a latitude in -90..=90 and a longitude in -180..=180 degrees"
    )]
    BadCoordinate {
        /// Latitude given.
        lat: f64,
        /// Longitude given.
        lon: f64,
    },
    /// A coordinate farther from every vertex of the graph than the snapping limit.
    #[error(
        "coordinate ({lat}, {lon}) is {distance_m:.0} m from the nearest road vertex, beyond the \
         {limit_m:.0} m snapping limit (outside the extract, or latitude and longitude swapped?)"
    )]
    TooFarFromRoad {
        /// Latitude given.
        lat: f64,
        /// Longitude given.
        lon: f64,
        /// Distance to the nearest vertex, metres.
        distance_m: f64,
        /// The limit, metres.
        limit_m: f64,
    },
    /// The graph has no vertex to snap to.
    #[error("the routable graph is empty: nothing to snap to")]
    EmptyGraph,
}

impl GraphError {
    /// The 1-based line of a parse error.
    pub fn line(&self) -> Option<u64> {
        match self {
            GraphError::Parse { line, .. } | GraphError::NotAGraph { line, .. } => Some(*line),
            _ => None,
        }
    }

    /// What was wrong, for parse errors.
    pub fn kind(&self) -> Option<&ParseIssue> {
        match self {
            GraphError::Parse { kind, .. } => Some(kind),
            _ => None,
        }
    }

    /// The file concerned, for errors about a file.
    pub fn path(&self) -> Option<&Path> {
        match self {
            GraphError::Open { path, .. }
            | GraphError::Parse { path, .. }
            | GraphError::NotAGraph { path, .. }
            | GraphError::OsmMalformed { path, .. }
            | GraphError::NoRoutableWays { path, .. }
            | GraphError::OsmTooLarge { path, .. } => Some(path),
            _ => None,
        }
    }
}

/// What was wrong at a line of a graph file (carried by [`GraphError::Parse`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseIssue {
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
    /// The `~` comment header names columns, but the data rows hold another number of fields: which
    /// column is missing (or extra) cannot be known, and reading by position would shift every column
    /// after it (a `_net` file without its `b` column would read `power` as `b`).
    #[error(
        "the rows hold {found} fields but the column header (line {header_line}) names {named}: \
         expected one field per named column (or read with --lenient to map by position)"
    )]
    HeaderColumns {
        /// Fields of the first data row.
        found: usize,
        /// Columns named by the header comment.
        named: usize,
        /// The header comment's line.
        header_line: u64,
    },
    /// A row with fewer fields than the rows before it.
    #[error("the row has {found} fields but the rows before it have {expected}: is it cut short?")]
    ShortRow {
        /// Fields of this row.
        found: usize,
        /// Fields of the rows before.
        expected: usize,
    },
}
