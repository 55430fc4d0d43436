//! The shortest-path crate's one error: every function of algos-sssp (single source, many sources,
//! hierarchies, K shortest paths, tree checks) fails with [`SsspError`].

use gpu_runtime::GpuError;

/// Why a shortest-path computation failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SsspError {
    /// The source is not a vertex of the graph.
    #[error("source {vertex} is not a vertex (the graph has {n} vertices)")]
    SourceOutOfRange {
        /// The source given.
        vertex: u32,
        /// Number of vertices.
        n: u32,
    },
    /// A target is not a vertex of the graph.
    #[error("target {target} is not a vertex (the graph has {n} vertices)")]
    TargetOutOfRange {
        /// The target given.
        target: u32,
        /// Number of vertices.
        n: u32,
    },
    /// A distance reached the saturation bound `u32::MAX - 1`: the true distance does not fit in u32.
    /// Never reported as "unreachable".
    #[error("a shortest-path distance reached {bound} (u32 saturation): distances do not fit in u32")]
    WeightOverflow {
        /// The saturation bound, `u32::MAX - 1`.
        bound: u32,
    },
    /// An arc weight at or above the saturation bound.
    #[error("arc {arc} has weight {weight}, which is at or above the saturation bound u32::MAX - 1")]
    WeightTooLarge {
        /// Arc id.
        arc: u32,
        /// Its weight.
        weight: u32,
    },
    /// The algorithm needs a GPU but the backend is the CPU (or the reverse).
    #[error("algorithm {algorithm} does not run on the {backend} backend{why}")]
    WrongBackend {
        /// Algorithm name.
        algorithm: &'static str,
        /// Backend name.
        backend: &'static str,
        /// Why that backend was chosen, when it was chosen automatically (starts with `: `).
        why: String,
    },
    /// A GPU work queue filled up; the result would be wrong, so none is given (use another algorithm).
    #[error("GPU queue `{queue}` overflowed its capacity of {capacity} entries")]
    QueueOverflow {
        /// Which queue.
        queue: &'static str,
        /// Its capacity.
        capacity: u64,
    },
    /// An algorithm parameter outside its range.
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    /// A K-shortest-paths cost does not fit in u64.
    #[error("a path cost exceeds u64::MAX")]
    PathCostOverflow,
    /// The graph given as the reverse has another size than the graph.
    #[error(
        "the reverse graph has {} vertices and {} arcs, the graph {} and {}: not its reverse",
        vertices.1, arcs.1, vertices.0, arcs.0
    )]
    NotTheReverse {
        /// (graph, reverse) vertex counts.
        vertices: (u32, u32),
        /// (graph, reverse) arc counts.
        arcs: (u32, u32),
    },
    /// One K-shortest-paths query's device buffers exceed the memory allowed for a batch.
    #[error(
        "one K-shortest-paths query needs {per_query} bytes of device buffers; {allowed} allowed per batch"
    )]
    GpuMemory {
        /// Bytes per query.
        per_query: u64,
        /// Bytes allowed ([`crate::ksp::KspGpuOptions::memory`]).
        allowed: u64,
    },
    /// A predecessor array given to [`crate::check_shortest_path_tree`] is not a shortest-path tree.
    #[error("not a shortest-path tree: {0}")]
    NotAShortestPathTree(TreeIssue),
    /// A saved hierarchy ([`crate::cch::Cch::load`]) could not be read or is not for this graph.
    #[error("{}: {problem}", path.display())]
    HierarchyFile {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong with it (or the I/O error).
        problem: String,
    },
    /// The GPU failed.
    #[error(transparent)]
    Gpu(#[from] GpuError),
}

/// Why a predecessor array is not a valid shortest-path tree (carried by
/// [`SsspError::NotAShortestPathTree`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TreeIssue {
    /// The source has a distance other than 0 or a predecessor.
    #[error("the source must have distance 0 and no predecessor")]
    BadSource,
    /// A reached vertex has no predecessor, or an unreached one has one.
    #[error("vertex {0}: predecessor inconsistent with reachability")]
    MissingPredecessor(u32),
    /// The predecessor arc does not enter the vertex or is not tight.
    #[error("vertex {0}: predecessor arc is not a tight arc entering it")]
    NotTight(u32),
    /// Following predecessors does not reach the source.
    #[error("vertex {0}: predecessors do not lead back to the source")]
    Cycle(u32),
    /// Some arc could still be relaxed: distances are not shortest.
    #[error("arc {0} violates dist[head] <= dist[tail] + w")]
    NotShortest(u32),
}
