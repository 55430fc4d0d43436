//! Errors of time-dependent routing.

use gpu_runtime::GpuError;

/// Why a time-dependent network could not be built or a query not answered.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TdError {
    /// A piecewise-linear function falls faster than time passes on one segment (slope below −1), so
    /// leaving later could arrive earlier and label-setting search would be wrong.
    #[error(
        "arc {arc} is not FIFO: on segment {segment} of its travel-time function (function {func}) the \
         arrival time decreases ({detail})"
    )]
    NonFifo {
        /// The first arc using the function.
        arc: u32,
        /// The function.
        func: u32,
        /// The segment: breakpoint `segment` to the next one (the last segment wraps to the first
        /// breakpoint of the next period).
        segment: u32,
        /// The numbers that break FIFO.
        detail: String,
    },
    /// A function with no breakpoints.
    #[error("function {func} (used by arc {arc}) has no breakpoints")]
    EmptyFunction {
        /// The first arc using the function.
        arc: u32,
        /// The function.
        func: u32,
    },
    /// Breakpoint times that are not strictly increasing inside `[0, period)`.
    #[error("function {func}: breakpoint {index} at {time} s is {why}")]
    UnsortedBreakpoints {
        /// The function.
        func: u32,
        /// The breakpoint.
        index: u32,
        /// Its time of day.
        time: u32,
        /// What is wrong.
        why: &'static str,
    },
    /// A segment whose exact integer interpolation would need more than 32 bits on the GPU: it spans
    /// more than 65,536 s *and* its value changes by so much that `|Δvalue| × Δtime ≥ 2^32`.
    #[error(
        "function {func}: segment {segment} spans {span} s and changes by {change} s; split it (segments \
         longer than 65,536 s must change by less than 2^32 / span seconds)"
    )]
    SegmentTooLong {
        /// The function.
        func: u32,
        /// The segment.
        segment: u32,
        /// Its length in seconds.
        span: u32,
        /// Its change in value, in seconds.
        change: u32,
    },
    /// An arc refers to a function that does not exist.
    #[error("arc {arc} refers to function {func}, but there are {count} functions")]
    FunctionOutOfRange {
        /// The arc.
        arc: u32,
        /// The function id given.
        func: u32,
        /// Number of functions.
        count: u32,
    },
    /// A label at or above [`super::MAX_LABELS`] or outside the automaton's alphabet.
    #[error("label {label} is out of range (at most {max} labels)")]
    LabelOutOfRange {
        /// The label.
        label: u32,
        /// The number of labels allowed.
        max: u32,
    },
    /// An automaton with more than 64 states, or none.
    #[error("an automaton needs 1 to 64 states, this one has {states}")]
    TooManyStates {
        /// States asked for.
        states: u32,
    },
    /// A query names a vertex that does not exist.
    #[error("vertex {vertex} is not in the network (it has {n} vertices)")]
    VertexOutOfRange {
        /// The vertex.
        vertex: u32,
        /// Number of vertices.
        n: u32,
    },
    /// A query names a profile that does not exist.
    #[error("profile {profile} does not exist ({count} profiles given)")]
    ProfileOutOfRange {
        /// The profile index.
        profile: u32,
        /// Number of profiles.
        count: u32,
    },
    /// An arrival time reached `u32::MAX − 1` seconds (about 136 years after the epoch).
    #[error("an arrival time overflowed u32 seconds")]
    TimeOverflow,
    /// A GTFS feed could not be read.
    #[error("{path}: {message}")]
    Feed {
        /// The feed.
        path: String,
        /// What went wrong (the file and line where the feed names them).
        message: String,
    },
    /// No trip of the feed runs on the date asked for.
    #[error("{path}: no service runs on {date} (the calendar covers {first} to {last})")]
    NoService {
        /// The feed.
        path: String,
        /// The date asked for.
        date: String,
        /// First date of the calendar.
        first: String,
        /// Last date of the calendar.
        last: String,
    },
    /// Any other parameter outside its range.
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    /// A table a user brings (transit edges, zones, demand) that cannot be read as it stands: a value
    /// out of its domain, a vertex or zone that does not exist, a repeated key, a missing column.
    #[error("{}:{line}: {message}", path.display())]
    TableFile {
        /// The file.
        path: std::path::PathBuf,
        /// 1-based line number (1 is the header).
        line: u64,
        /// What is wrong, and what was expected.
        message: String,
    },
    /// A GPU error.
    #[error(transparent)]
    Gpu(#[from] GpuError),
}
