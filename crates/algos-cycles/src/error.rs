//! The chordless-cycle crate's one error: building the graph, enumerating on the CPU or a GPU.

/// Why a chordless-cycle call failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CyclesError {
    /// An edge names a vertex outside `0..n`.
    #[error("edge {index} ({u}, {v}) names a vertex outside 0..{n}")]
    VertexOutOfRange {
        /// Position in the edge list.
        index: usize,
        /// One end.
        u: u32,
        /// The other.
        v: u32,
        /// Vertex count.
        n: u32,
    },
    /// The input is not simple and the policy is [`crate::Simplify::Reject`].
    #[error("not a simple graph: {what} at edge {index} ({u}, {v})")]
    NotSimple {
        /// "a self-loop" or "a repeated edge".
        what: &'static str,
        /// Position in the edge list.
        index: usize,
        /// One end.
        u: u32,
        /// The other.
        v: u32,
    },
    /// More edges than 32-bit adjacency offsets hold.
    #[error("{edges} edges: at most {max} are supported")]
    TooManyEdges {
        /// Edges after simplification.
        edges: u64,
        /// The most supported.
        max: u64,
    },
    /// `min_len` below 3 or above `max_len`.
    #[error("cycle lengths {min}..={max} are empty or below 3")]
    BadLengths {
        /// Smallest length asked for.
        min: u32,
        /// Largest.
        max: u32,
    },
    /// The level-synchronous expansion could not fit the children of even one path of this depth
    /// into its memory budget (raise the budget; the depth-first CPU backends need none).
    #[error(
        "the GPU path stacks ({rows} rows each, {bytes} bytes in all) cannot hold the children of one \
         path at depth {depth}: raise the memory budget"
    )]
    MemoryBudget {
        /// Path depth (paths of depth + 3 vertices).
        depth: u32,
        /// Rows per stack.
        rows: u64,
        /// Bytes of both stacks.
        bytes: u64,
    },
    /// The GPU failed (out of memory, device lost, a limit).
    #[error(transparent)]
    Gpu(#[from] gpu_runtime::GpuError),
}
