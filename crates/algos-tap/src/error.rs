//! Errors of traffic assignment.

use std::path::PathBuf;

use graph_core::GraphError;

/// Why a network, a demand or an assignment could not be built or solved.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TapError {
    /// A TNTP file could not be read (file and line named), or a search graph could not be built.
    #[error(transparent)]
    Graph(#[from] GraphError),
    /// A link has capacity 0 but a flow-dependent cost.
    #[error("{}:{line}: link {from}→{to} has capacity {capacity} with B = {b}: expected a positive capacity (or B = 0)", path.display())]
    CapacityZero {
        /// The network file.
        path: PathBuf,
        /// Its line.
        line: u64,
        /// Tail id as in the file.
        from: u64,
        /// Head id as in the file.
        to: u64,
        /// The capacity found.
        capacity: f64,
        /// The BPR coefficient found.
        b: f64,
    },
    /// A link parameter outside its domain.
    #[error("link {link} ({from}→{to}): {field} = {value}: expected {expected}")]
    BadParameter {
        /// Link index (0-based, file order).
        link: usize,
        /// Tail id as in the file.
        from: u64,
        /// Head id as in the file.
        to: u64,
        /// The parameter.
        field: &'static str,
        /// Its value.
        value: f64,
        /// What it must be.
        expected: &'static str,
    },
    /// A link row of a network file with a parameter outside its domain.
    #[error("{}:{line}: link {from}→{to}: {field} = {value}: expected {expected}", path.display())]
    BadLink {
        /// The network file.
        path: PathBuf,
        /// Its line.
        line: u64,
        /// Tail id as in the file.
        from: u64,
        /// Head id as in the file.
        to: u64,
        /// The parameter.
        field: &'static str,
        /// Its value.
        value: f64,
        /// What it must be.
        expected: &'static str,
    },
    /// A trip table whose `<NUMBER OF ZONES>` is not the network's: most likely the trips of another
    /// network (Sioux Falls' 24 zones read into Anaheim's 38 would run to an answer for neither).
    #[error(
        "{}: <NUMBER OF ZONES> is {trips_zones} but the network {} has {net_zones} zones: \
         expected the trip table of this network",
        trips.display(),
        net.display()
    )]
    ZoneCountMismatch {
        /// The trips file.
        trips: PathBuf,
        /// Its zone count.
        trips_zones: u64,
        /// The network file.
        net: PathBuf,
        /// The network's zone count.
        net_zones: u64,
    },
    /// A zone of the trip table is not a node of the network.
    #[error("{}:{line}: zone {zone} is not a node of the network", path.display())]
    UnknownZone {
        /// The trips file.
        path: PathBuf,
        /// Its line.
        line: u64,
        /// The zone id as in the file.
        zone: u64,
    },
    /// Demand whose destination cannot be reached from its origin.
    #[error("{pairs} OD pair(s) with {flow} total demand have no path (first: {origin} → {destination})")]
    DemandUnreachable {
        /// Number of such pairs.
        pairs: usize,
        /// Their total demand.
        flow: f64,
        /// First such origin (file id).
        origin: u64,
        /// First such destination (file id).
        destination: u64,
    },
    /// Flows given for the wrong number of links, or not finite and non-negative.
    #[error("{what}: {found} values for {expected} links, or a value that is negative or not finite")]
    BadFlows {
        /// Which flows.
        what: &'static str,
        /// How many were given.
        found: usize,
        /// How many links.
        expected: usize,
    },
    /// A published flow row names a link the network does not have.
    #[error("{}: row {row} names link {from}→{to}, which the network does not have (or has fewer times)", path.display())]
    UnknownLink {
        /// The flow file.
        path: PathBuf,
        /// 1-based row.
        row: usize,
        /// Tail id.
        from: u64,
        /// Head id.
        to: u64,
    },
    /// A turn file (`_turns.tntp`) line: a link it does not know, a turn that is not one, a repeat.
    #[error("{}:{line}: {message}", path.display())]
    TurnFile {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// What is wrong, and what was expected.
        message: String,
    },
    /// A CSV table users bring — link counts, matrices, zone totals: a row naming a link or zone that
    /// does not exist, a value out of its domain, a repeated key, a header without the columns needed.
    #[error("{}:{line}: {message}", path.display())]
    TableFile {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// What is wrong, and what was expected.
        message: String,
    },
    /// A matrix file (OMX) that cannot be read or written as one: not HDF5, a missing shape, core or
    /// mapping, a value out of its domain (the cell named in zone ids).
    #[error("{}: {message}", path.display())]
    MatrixFile {
        /// The file.
        path: PathBuf,
        /// What is wrong, and what was expected.
        message: String,
    },
    /// An option outside its domain.
    #[error("invalid option: {0}")]
    InvalidOption(String),
    /// The GPU failed or is missing.
    #[error("GPU: {0}")]
    Gpu(#[from] gpu_runtime::GpuError),
    /// A shortest-path structure (a contraction hierarchy) could not be built or customised.
    #[error("shortest paths: {0}")]
    ShortestPaths(#[from] algos_sssp::SsspError),
    /// An OD distance exceeded the u32 fixed point of the GPU loaders: the costs' quantisation bound
    /// was violated.
    #[error("{pairs} OD distances saturated the u32 fixed point (quantisation bound violated)")]
    FixedPointSaturated {
        /// How many OD pairs.
        pairs: u64,
    },
    /// The GPU found OD pairs unreachable that a CPU search reaches: a device fault, never an input
    /// property.
    #[error("{pairs} OD pairs unreachable on the GPU only")]
    GpuUnreachable {
        /// How many OD pairs.
        pairs: u64,
    },
    /// A worker thread (one per device) panicked.
    #[error("a device thread panicked")]
    WorkerPanicked,
}
