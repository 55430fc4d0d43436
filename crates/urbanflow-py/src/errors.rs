//! The library's errors as Python exceptions: the classes live in `urbanflow/errors.py` (each under
//! `UrbanflowError` and the builtin it refines), raised here from one enum that wraps every crate's
//! error (the orphan rule forbids `From<SsspError> for PyErr` directly).

use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyPermissionError};
use pyo3::prelude::*;
use urbanflow::access::AccessError;
use urbanflow::gpu::GpuError as RuntimeGpuError;
use urbanflow::graph::GraphError;
use urbanflow::sssp::SsspError;
use urbanflow::tap::TapError;
use urbanflow::transit::TdError;

pyo3::import_exception!(urbanflow.errors, UrbanflowError);
pyo3::import_exception!(urbanflow.errors, FormatError);
pyo3::import_exception!(urbanflow.errors, VertexError);
pyo3::import_exception!(urbanflow.errors, InvalidInputError);
pyo3::import_exception!(urbanflow.errors, UnreachableDemandError);
pyo3::import_exception!(urbanflow.errors, NoGpuError);
pyo3::import_exception!(urbanflow.errors, GpuError);

/// Every error a binding call can meet.
#[derive(Debug)]
pub enum Error {
    /// Graphs and their files.
    Graph(GraphError),
    /// Shortest paths.
    Sssp(SsspError),
    /// Traffic assignment.
    Tap(TapError),
    /// The GPU runtime.
    Gpu(RuntimeGpuError),
    /// Public transport: feeds, networks, journeys.
    Transit(TdError),
    /// Accessibility and centrality.
    Access(AccessError),
    /// A value the binding itself refuses (a bad option string, arrays of different lengths).
    Input(String),
    /// The caller went away (its exception is raised instead; never seen by Python).
    Cancelled,
}

impl From<GraphError> for Error {
    fn from(e: GraphError) -> Self {
        Self::Graph(e)
    }
}
impl From<SsspError> for Error {
    fn from(e: SsspError) -> Self {
        Self::Sssp(e)
    }
}
impl From<TapError> for Error {
    fn from(e: TapError) -> Self {
        Self::Tap(e)
    }
}
impl From<TdError> for Error {
    fn from(e: TdError) -> Self {
        Self::Transit(e)
    }
}
impl From<AccessError> for Error {
    fn from(e: AccessError) -> Self {
        match e {
            // The caller's cancellation (the progress callback said stop).
            AccessError::Cancelled { .. } => Self::Cancelled,
            e => Self::Access(e),
        }
    }
}
impl From<RuntimeGpuError> for Error {
    fn from(e: RuntimeGpuError) -> Self {
        Self::Gpu(e)
    }
}

/// Where a file error happened: the file, and the line when one is known.
#[derive(Default)]
struct At {
    path: Option<String>,
    line: Option<u64>,
    filename: Option<String>,
}

/// An exception of class `E` carrying `at`'s attributes (`path` and `line`, or `filename`).
fn raise<E: pyo3::PyTypeInfo>(message: String, at: At) -> PyErr {
    let err = PyErr::new::<E, _>(message);
    Python::attach(|py| {
        let value = err.value(py);
        // Setting an attribute on a fresh exception instance fails only without memory.
        if let Some(p) = at.path {
            let _ = value.setattr("path", p);
            let _ = value.setattr("line", at.line);
        }
        if let Some(f) = at.filename {
            let _ = value.setattr("filename", f);
        }
    });
    err
}

fn file_at(path: &std::path::Path, line: Option<u64>) -> At {
    At { path: Some(path.display().to_string()), line, filename: None }
}

fn graph_error(e: GraphError) -> PyErr {
    let message = e.to_string();
    match e {
        GraphError::Open { path, source } => {
            // OSError(errno, strerror, filename), as open() raises it: "[Errno 2] No such file or
            // directory: 'x'" (a message with the filename set afterwards reads "[Errno None] None").
            let filename = path.display().to_string();
            let Some(errno) = source.raw_os_error() else {
                let at = At { filename: Some(filename), ..At::default() };
                return raise::<PyOSError>(message, at);
            };
            let text = std::io::Error::from_raw_os_error(errno).to_string();
            let strerror = text.split(" (os error").next().unwrap_or(&text).to_string();
            let args = (errno, strerror, filename);
            match source.kind() {
                std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(args),
                std::io::ErrorKind::PermissionDenied => PyPermissionError::new_err(args),
                _ => PyOSError::new_err(args),
            }
        }
        GraphError::Parse { path, line, .. } | GraphError::NotAGraph { path, line, .. } => {
            raise::<FormatError>(message, file_at(&path, Some(line)))
        }
        GraphError::OsmMalformed { path, .. } => raise::<FormatError>(message, file_at(&path, None)),
        GraphError::VertexOutOfRange { .. } => raise::<VertexError>(message, At::default()),
        _ => raise::<InvalidInputError>(message, At::default()),
    }
}

fn gpu_error(e: RuntimeGpuError) -> PyErr {
    match e {
        RuntimeGpuError::NoAdapter(_) => raise::<NoGpuError>(e.to_string(), At::default()),
        _ => raise::<GpuError>(e.to_string(), At::default()),
    }
}

fn sssp_error(e: SsspError) -> PyErr {
    match e {
        SsspError::SourceOutOfRange { .. } | SsspError::TargetOutOfRange { .. } => {
            raise::<VertexError>(e.to_string(), At::default())
        }
        SsspError::Gpu(g) => gpu_error(g),
        SsspError::InvalidParameter(_)
        | SsspError::WeightTooLarge { .. }
        | SsspError::WrongBackend { .. } => raise::<InvalidInputError>(e.to_string(), At::default()),
        _ => raise::<UrbanflowError>(e.to_string(), At::default()),
    }
}

fn tap_error(e: TapError) -> PyErr {
    let message = e.to_string();
    match e {
        TapError::Graph(g) => graph_error(g),
        TapError::ShortestPaths(s) => sssp_error(s),
        TapError::Gpu(g) => gpu_error(g),
        TapError::CapacityZero { path, line, .. }
        | TapError::BadLink { path, line, .. }
        | TapError::UnknownZone { path, line, .. }
        | TapError::TurnFile { path, line, .. }
        | TapError::TableFile { path, line, .. } => raise::<FormatError>(message, file_at(&path, Some(line))),
        TapError::UnknownLink { path, .. } | TapError::ZoneCountMismatch { trips: path, .. } => {
            raise::<FormatError>(message, file_at(&path, None))
        }
        TapError::DemandUnreachable { .. } => raise::<UnreachableDemandError>(message, At::default()),
        TapError::InvalidOption(_) | TapError::BadParameter { .. } | TapError::BadFlows { .. } => {
            raise::<InvalidInputError>(message, At::default())
        }
        _ => raise::<UrbanflowError>(message, At::default()),
    }
}

fn transit_error(e: TdError) -> PyErr {
    let message = e.to_string();
    match e {
        TdError::Gpu(g) => gpu_error(g),
        // The feed's reader names the file but no line (GTFS tables are CSV inside a zip).
        TdError::Feed { path, .. } => {
            raise::<FormatError>(message, file_at(std::path::Path::new(&path), None))
        }
        TdError::TableFile { path, line, .. } => raise::<FormatError>(message, file_at(&path, Some(line))),
        TdError::VertexOutOfRange { .. } => raise::<VertexError>(message, At::default()),
        TdError::InvalidParameter(_) | TdError::NoService { .. } => {
            raise::<InvalidInputError>(message, At::default())
        }
        _ => raise::<UrbanflowError>(message, At::default()),
    }
}

fn access_error(e: AccessError) -> PyErr {
    let message = e.to_string();
    match e {
        AccessError::Sssp(s) => sssp_error(s),
        AccessError::Gpu(g) => gpu_error(g),
        AccessError::Line { path, line, .. } => raise::<FormatError>(message, file_at(&path, Some(line))),
        AccessError::File { path, .. } => raise::<FormatError>(message, file_at(&path, None)),
        AccessError::PointVertex { .. } => raise::<VertexError>(message, At::default()),
        _ => raise::<InvalidInputError>(message, At::default()),
    }
}

impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
        match e {
            Error::Graph(g) => graph_error(g),
            Error::Sssp(s) => sssp_error(s),
            Error::Tap(t) => tap_error(t),
            Error::Gpu(g) => gpu_error(g),
            Error::Transit(t) => transit_error(t),
            Error::Access(a) => access_error(a),
            Error::Input(m) => raise::<InvalidInputError>(m, At::default()),
            Error::Cancelled => raise::<UrbanflowError>("cancelled".into(), At::default()),
        }
    }
}
