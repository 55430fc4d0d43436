//! Unconstrained two-dimensional guillotine cutting: cut a stock rectangle into copies of piece types
//! by edge-to-edge cuts, recursively, to maximise the total value of the pieces cut.
//!
//! The dynamic programme runs over normal patterns (Herz 1972; Christofides & Whitlock 1977): the only
//! cut positions worth trying are sums of piece widths (heights). With `X` and `Y` those positions,
//!
//! ```text
//! V(i, j) = max( v(x_i, y_j),                                   best single piece that fits
//!                V(i', j) + V(p(x_i − x_i'), j)  for 2·x_i' ≤ x_i,   vertical cut at x_i'
//!                V(i, j') + V(i, q(y_j − y_j'))  for 2·y_j' ≤ y_j )  horizontal cut at y_j'
//! ```
//!
//! (Beasley 1985; Cintra et al. 2008), where `p`/`q` round down to a normal position. Ties go to the
//! single piece, then to the vertical cut with the smallest `x`, then the horizontal cut with the
//! smallest `y`, so every backend records the same cut in every cell. The optimal cutting pattern is
//! rebuilt from those records ([`Solution::placements`], [`Solution::cut_tree`]) and can be checked
//! independently ([`check_pattern`]).
//!
//! Backends: [`solve`] (serial reference, row by row), [`solve_rayon`] (anti-diagonal wavefront over
//! 64 × 64 tiles: all tiles of a tile anti-diagonal are independent), [`solve_gpu`] (one dispatch per
//! anti-diagonal of cells, one workgroup per cell, the whole loop recorded without round trips; the
//! spec's two table layouts, [`Layout`], split over several bindings when one binding is too small;
//! only the cut records come back for a pattern).
//! Value tables and cut records are identical on every backend.
//!
//! ```
//! use algos_dp::guillotine::{Instance, Piece, check_pattern, solve};
//! // A 10 × 6 stock; a 4 × 3 piece worth 12 and a 6 × 6 piece worth 40.
//! let inst = Instance::new(10, 6, vec![Piece::new(4, 3, 12), Piece::new(6, 6, 40)]);
//! let sol = solve(&inst).unwrap();
//! assert_eq!(sol.value, 40 + 2 * 12); // the 6 × 6 piece and two 4 × 3 pieces beside it
//! check_pattern(&inst, &sol).unwrap();
//! ```

use crate::DpError;

pub mod auto;
mod dp;
mod gpu;
mod normal;
mod pattern;
mod picture;

pub use dp::{Tables, solve_tables, solve_tables_rayon};
pub use gpu::{
    GpuOptions, GpuReport, Layout, solve_gpu, solve_gpu_with, solve_grid_gpu, solve_tables_gpu,
    solve_tables_gpu_with,
};
pub use normal::Grid;
pub use pattern::{PatternIssue, check_pattern, solution_from};
pub use picture::pattern_svg;

/// One piece type: width along the stock's width, height along its height, value per copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Width.
    pub w: u32,
    /// Height.
    pub h: u32,
    /// Value of one copy.
    pub value: u64,
}

impl Piece {
    /// A piece type.
    pub fn new(w: u32, h: u32, value: u64) -> Self {
        Self { w, h, value }
    }
}

/// A cutting problem: the stock, the piece types, and whether pieces may be turned by 90°.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    /// Stock width.
    pub width: u32,
    /// Stock height.
    pub height: u32,
    /// Piece types (any number of copies of each).
    pub pieces: Vec<Piece>,
    /// Pieces may be turned by 90° (each type also offered as `h × w`, same value).
    pub rotation: bool,
}

impl Instance {
    /// A fixed-orientation instance.
    pub fn new(width: u32, height: u32, pieces: Vec<Piece>) -> Self {
        Self { width, height, pieces, rotation: false }
    }

    /// The same instance with rotation allowed or not.
    pub fn with_rotation(mut self, rotation: bool) -> Self {
        self.rotation = rotation;
        self
    }
}

/// What a cell of the table (or a node of the cut tree) does with its rectangle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cut {
    /// Nothing of value fits.
    Waste,
    /// One copy of a piece at the bottom-left corner (index into [`Instance::pieces`], rotated or not).
    Piece {
        /// Index into [`Instance::pieces`].
        piece: u32,
        /// Turned by 90°.
        rotated: bool,
    },
    /// A vertical cut at this distance from the rectangle's left edge.
    Vertical(u32),
    /// A horizontal cut at this distance from the rectangle's bottom edge.
    Horizontal(u32),
}

/// One copy of a piece in the stock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Placement {
    /// Index into [`Instance::pieces`].
    pub piece: u32,
    /// Left edge.
    pub x: u32,
    /// Bottom edge.
    pub y: u32,
    /// Turned by 90° (its width is then the type's height).
    pub rotated: bool,
}

/// A node of the cut tree: a rectangle of the stock and what is done with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutNode {
    /// Left edge.
    pub x: u32,
    /// Bottom edge.
    pub y: u32,
    /// Width.
    pub w: u32,
    /// Height.
    pub h: u32,
    /// The cut (or piece, or waste).
    pub cut: Cut,
    /// For cuts: the indices of the two parts (left/bottom first) in [`Solution::cut_tree`].
    pub children: Option<(u32, u32)>,
}

/// An optimal cutting pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solution {
    /// Total value of the pieces cut (the optimum).
    pub value: u64,
    /// Every piece cut.
    pub placements: Vec<Placement>,
    /// The guillotine cuts, root first (the root is the stock's usable part `p(W) × q(H)`).
    pub cut_tree: Vec<CutNode>,
    /// Normal positions along the width and the height (table size), and candidate cuts evaluated.
    pub stats: DpStats,
}

/// Work counters of a solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DpStats {
    /// Normal positions along the width, 0 included.
    pub xs: usize,
    /// Normal positions along the height, 0 included.
    pub ys: usize,
    /// Candidate cuts evaluated (both directions, all cells).
    pub candidates: u64,
}

/// Largest stock side: cut records keep coordinates in 30 bits.
pub const MAX_SIDE: u32 = (1 << 30) - 1;

/// Most memory the CPU solvers take: values, cut records and the piece table (20 bytes a cell of
/// `|X| × |Y|`) plus the gap-filled row and column lines; larger instances get
/// [`DpError::TableTooLarge`] before anything that size is allocated.
pub const MAX_CPU_TABLE_BYTES: u64 = 4 << 30;

/// The optimal pattern on `backend`: `Cpu` runs [`solve_rayon`], `Gpu` [`solve_gpu`], and `Auto` the
/// one predicted faster from this machine's measured constants ([`auto`]). Also says whether the GPU
/// ran.
pub fn solve_with(inst: &Instance, backend: gpu_runtime::Backend<'_>) -> Result<(Solution, bool), DpError> {
    solve_with_options(inst, backend, &GpuOptions::default()).map(|(s, r)| (s, r.is_some()))
}

/// [`solve_with`] with the GPU's options; returns what the GPU did when it ran.
pub fn solve_with_options(
    inst: &Instance,
    backend: gpu_runtime::Backend<'_>,
    options: &GpuOptions,
) -> Result<(Solution, Option<GpuReport>), DpError> {
    use gpu_runtime::Backend;
    let grid = Grid::new(inst)?;
    let ctx = match backend {
        Backend::Cpu => None,
        Backend::Gpu(ctx) => Some(ctx),
        Backend::Auto if auto::choose(&grid).gpu_faster() => gpu_runtime::GpuContext::auto(),
        Backend::Auto => None,
    };
    match ctx {
        Some(ctx) => solve_grid_gpu(ctx, &grid, options).map(|(s, r)| (s, Some(r))),
        None => Ok((pattern::solution_from(&grid, &solve_tables_rayon(&grid)), None)),
    }
}

/// The optimal pattern, by the serial DP.
pub fn solve(inst: &Instance) -> Result<Solution, DpError> {
    let grid = Grid::new(inst)?;
    let tables = solve_tables(&grid);
    Ok(pattern::solution_from(&grid, &tables))
}

/// The optimal pattern, by the tiled wavefront on rayon's threads; identical to [`solve`].
pub fn solve_rayon(inst: &Instance) -> Result<Solution, DpError> {
    let grid = Grid::new(inst)?;
    let tables = solve_tables_rayon(&grid);
    Ok(pattern::solution_from(&grid, &tables))
}
