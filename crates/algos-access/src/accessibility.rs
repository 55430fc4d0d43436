//! Accessibility: for every source, the opportunities within each cutoff — how many, their decayed
//! weight, its mean, the least and the greatest weight — and closeness, the same sums over every
//! vertex.

use algos_sssp::SATURATED;
use algos_sssp::ch::ContractionHierarchy;
use gpu_runtime::Backend;
use graph_core::Csr;

use crate::decay::Decay;
use crate::engine::{AccessStats, Engine, Progress, Run, drive};
use crate::error::AccessError;
use crate::opportunities::Opportunities;
use crate::reduction::{Cell, MAX_CUTOFFS, Reduction};

/// What to compute and where.
#[derive(Clone, Copy, Default)]
pub struct AccessOptions<'a> {
    /// Cutoffs in the graph's weight units, strictly ascending, 1 to [`MAX_CUTOFFS`] of them, each
    /// below `u32::MAX − 1`. Empty: one cutoff that reaches everything reachable.
    pub cutoffs: &'a [u32],
    /// How a point's weight counts at its distance (applies to `sum` and `mean`).
    pub decay: Decay,
    /// Which engine; [`Engine::Auto`] measures (see [`crate::engine`]).
    pub engine: Engine,
    /// Where Auto may look for a GPU and where [`Engine::Gpu`] runs ([`Backend::Auto`]: the machine's
    /// hardware GPU, if any).
    pub backend: Backend<'a>,
    /// A hierarchy of the graph to sweep (else a customisable one is built, its order cached).
    pub hierarchy: Option<&'a ContractionHierarchy>,
    /// Called after each block with (sources done, sources asked); `false` cancels.
    pub progress: Option<Progress<'a>>,
}

impl std::fmt::Debug for AccessOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccessOptions")
            .field("cutoffs", &self.cutoffs)
            .field("decay", &self.decay)
            .field("engine", &self.engine)
            .field("backend", &self.backend)
            .field("hierarchy", &self.hierarchy.is_some())
            .finish()
    }
}

/// Per source and cutoff: the points within reach and their weights.
///
/// Definitions: distances run from the source to the points (out-going arcs); a point at the source
/// counts at distance 0; a point counts within cutoff `c` when its distance is ≤ `c`. `sum` is the
/// decayed weight Σ w · f(d, c) (see [`Decay`]), `mean` is `sum / count`, `min` and `max` are the
/// least and greatest weight of the points within the cutoff (not decayed).
#[derive(Debug, Clone)]
pub struct Accessibility {
    /// The sources, as given.
    pub sources: Vec<u32>,
    /// The cutoffs, as used.
    pub cutoffs: Vec<u32>,
    /// The decay.
    pub decay: Decay,
    /// How the run went.
    pub stats: AccessStats,
    cells: Vec<Cell>,
    /// Weight units per fixed-point unit (2^−scale).
    unit: f64,
    values: Vec<f64>,
}

impl Accessibility {
    fn cell(&self, source: usize, cutoff: usize) -> &Cell {
        &self.cells[source * self.cutoffs.len() + cutoff]
    }

    /// Points within cutoff `cutoff` (an index into [`Self::cutoffs`]) of source `source` (an index
    /// into [`Self::sources`]).
    pub fn count(&self, source: usize, cutoff: usize) -> u32 {
        self.cell(source, cutoff).count
    }

    /// Their decayed weight.
    pub fn sum(&self, source: usize, cutoff: usize) -> f64 {
        self.cell(source, cutoff).sum as f64 * self.unit
    }

    /// `sum / count`, `None` when no point is within the cutoff.
    pub fn mean(&self, source: usize, cutoff: usize) -> Option<f64> {
        let c = self.cell(source, cutoff);
        (c.count > 0).then(|| self.sum(source, cutoff) / c.count as f64)
    }

    /// The least point weight within the cutoff.
    pub fn min(&self, source: usize, cutoff: usize) -> Option<f64> {
        let c = self.cell(source, cutoff);
        (c.count > 0).then(|| self.values[c.min_rank as usize])
    }

    /// The greatest point weight within the cutoff.
    pub fn max(&self, source: usize, cutoff: usize) -> Option<f64> {
        let c = self.cell(source, cutoff);
        (c.count > 0).then(|| self.values[c.max_rank as usize])
    }

    /// The fixed-point sum of a cell (units of 2^−scale): what tests compare bit for bit.
    pub fn sum_units(&self, source: usize, cutoff: usize) -> u64 {
        self.cell(source, cutoff).sum
    }
}

/// Opportunities within each cutoff of every source (see [`Accessibility`] for the definitions).
///
/// ```
/// use urbanflow::access::{AccessOptions, Decay, Engine, Opportunities, accessibility};
/// use urbanflow::gpu::Backend;
/// let g = urbanflow::graph::generators::grid_2d(5, 5); // unit weights, vertex = row * 5 + column
/// // 10 jobs at each corner.
/// let jobs = Opportunities::new(25, &[(0, 10.0), (4, 10.0), (20, 10.0), (24, 10.0)])?;
/// let opts = AccessOptions { cutoffs: &[4, 8], backend: Backend::Cpu, ..Default::default() };
/// let a = accessibility(&g, &jobs, &[0, 12], &opts)?;
/// assert_eq!((a.count(0, 0), a.count(0, 1)), (3, 4)); // corner 0 reaches 0, 4 and 20 within 4
/// assert_eq!((a.count(1, 0), a.sum(1, 0)), (4, 40.0)); // the centre is 4 from each corner
/// // The same with a linear decay: a corner at distance 4 of cutoff 8 counts half.
/// let lin = AccessOptions { decay: Decay::Linear, engine: Engine::Sweep, ..opts };
/// assert_eq!(accessibility(&g, &jobs, &[12], &lin)?.sum(0, 1), 20.0);
/// # Ok::<(), urbanflow::access::AccessError>(())
/// ```
pub fn accessibility(
    graph: &Csr<u32>,
    opportunities: &Opportunities,
    sources: &[u32],
    opts: &AccessOptions<'_>,
) -> Result<Accessibility, AccessError> {
    opportunities.check_on(graph, sources)?;
    if let Some((arc, &weight)) = graph.weights().iter().enumerate().find(|(_, w)| **w >= SATURATED) {
        return Err(algos_sssp::SsspError::WeightTooLarge { arc: arc as u32, weight }.into());
    }
    let everything = [SATURATED - 1];
    let cutoffs = if opts.cutoffs.is_empty() { &everything[..] } else { opts.cutoffs };
    check_cutoffs(cutoffs)?;
    let reduction = Reduction::new(opportunities, cutoffs, opts.decay);
    let nc = cutoffs.len();
    let mut cells = vec![Cell::EMPTY; sources.len() * nc];
    let mut run = Run { sources, cells: &mut cells, nc, done: 0, progress: opts.progress };
    let stats = drive(graph, &reduction, opts.engine, opts.backend, opts.hierarchy, &mut run)?;
    Ok(Accessibility {
        sources: sources.to_vec(),
        cutoffs: cutoffs.to_vec(),
        decay: opts.decay,
        stats,
        cells,
        unit: 2f64.powi(-opportunities.scale_exp),
        values: opportunities.values.clone(),
    })
}

/// Closeness of every source: [`accessibility`] with a point of weight 1 at every vertex. With
/// [`Decay::Harmonic`] (the default here when `opts.decay` is `Flat`), `sum` is the harmonic closeness
/// Σ 1/d(v, u) over the vertices u reachable within the cutoff at a distance > 0 (networkx's
/// `harmonic_centrality` on the reversed graph, which sums distances *to* v); with `Exp(β)` it is the
/// gravity closeness Σ e^(−β d) (cityseer's `gravity`); `count` is the vertices reached, the source
/// included.
///
/// ```
/// use urbanflow::access::{AccessOptions, closeness};
/// use urbanflow::gpu::Backend;
/// let g = urbanflow::graph::generators::grid_2d(1, 4); // a path 0 - 1 - 2 - 3, unit weights
/// let opts = AccessOptions { backend: Backend::Cpu, ..Default::default() };
/// let c = closeness(&g, &[0, 1], &opts)?;
/// assert!((c.sum(0, 0) - (1.0 + 0.5 + 1.0 / 3.0)).abs() < 1e-15);
/// assert_eq!((c.sum(1, 0), c.count(1, 0)), (2.5, 4));
/// # Ok::<(), urbanflow::access::AccessError>(())
/// ```
pub fn closeness(
    graph: &Csr<u32>,
    sources: &[u32],
    opts: &AccessOptions<'_>,
) -> Result<Accessibility, AccessError> {
    let every = Opportunities::every_vertex(graph.num_vertices());
    let decay = if opts.decay == Decay::Flat { Decay::Harmonic } else { opts.decay };
    accessibility(graph, &every, sources, &AccessOptions { decay, ..*opts })
}

fn check_cutoffs(cutoffs: &[u32]) -> Result<(), AccessError> {
    if cutoffs.len() > MAX_CUTOFFS {
        return Err(AccessError::InvalidParameter(format!(
            "{} cutoffs: at most {MAX_CUTOFFS} per run",
            cutoffs.len()
        )));
    }
    if let Some(w) = cutoffs.windows(2).find(|w| w[0] >= w[1]) {
        return Err(AccessError::InvalidParameter(format!(
            "cutoffs {} then {}: expected strictly ascending cutoffs",
            w[0], w[1]
        )));
    }
    if let Some(&c) = cutoffs.iter().find(|&&c| c >= SATURATED) {
        return Err(AccessError::InvalidParameter(format!("cutoff {c}: expected below {SATURATED}")));
    }
    Ok(())
}
