//! Fewer arcs by the perfect customisation of Dibbelt, Strasser and Wagner: [`thin_downward`] for
//! PHAST sweeps (downward arcs only), [`thin_for_queries`] for point-to-point queries and matrices (both
//! directions, with the unpacking of the arcs kept).
//!
//! After the basic customisation an edge's weight is the shortest path through lower vertices only.
//! The perfect customisation also takes the intermediate and upper triangles (through vertices above
//! the edge's lower end), top rank first, giving every edge its true distance; a downward arc that some
//! other path through higher vertices matches is then not needed — the hierarchy without such arcs is
//! still a contraction hierarchy (every shortest path keeps an up-down form). For PHAST the upward arcs
//! stay as they are (its upward search seeds from them all), so only the downward sweep changes: on the
//! NY road graph 1.59 M downward arcs become 0.77 M and the sweep's DAG has 238 levels instead of 322,
//! the GPU's dispatches per pass; its distances are Dijkstra's exactly. A point-to-point query walks the
//! elimination tree whatever arcs remain, so there both directions are thinned: NY keeps 1.53 M of
//! 3.18 M arcs and a distance query takes half the time (docs/benchmarks.md).
//!
//! Ranks depend only on their ancestors in the elimination tree (a rank's upper neighbours are its
//! ancestors, and the edges between them belong to ancestors), so all ranks at one depth of the tree are
//! relaxed in parallel, the root's depth first.

use rayon::prelude::*;

use super::Unpacking;
use crate::ch::ContractionHierarchy;
use crate::error::SsspError;
use crate::paths::{SATURATED, UNREACHABLE};
use graph_core::Csr;

fn link(a: u32, b: u32) -> u32 {
    if a == UNREACHABLE || b == UNREACHABLE { UNREACHABLE } else { a.saturating_add(b).min(SATURATED) }
}

/// `ch` (customised from a [`super::Cch`]: chordal, with its elimination tree) with only the downward
/// arcs the perfect customisation keeps; upward arcs unchanged. Distances from any PHAST sweep are the
/// same.
pub fn thin_downward(ch: &ContractionHierarchy) -> Result<ContractionHierarchy, SsspError> {
    let perfect = Perfect::of(ch)?;
    let (down, _) = kept_arcs(&ch.down, &perfect.needed(ch, Direction::Down))?;
    Ok(ContractionHierarchy { down, ..ch.clone() })
}

/// `ch` (customised from a [`super::Cch`], with `unpacking` from the same customisation) for
/// point-to-point queries and matrices: only the arcs, up and down, that some shortest path may need —
/// the perfect customisation shows the others unnecessary — with an unpacking for the thinned arcs.
/// Distances are Dijkstra's, and paths are shortest paths of input arcs. Pays where a hierarchy answers
/// many queries (it costs a few customisations): on NY it keeps 48 % of the arcs (docs/benchmarks.md).
///
/// ```
/// use urbanflow::sssp::cch::{Cch, CchQuery, perfect::thin_for_queries};
/// use urbanflow::graph::GraphBuilder;
/// let mut b = GraphBuilder::new(4);
/// b.add_arc(0, 1, 4).add_arc(0, 2, 1).add_arc(2, 1, 2).add_arc(1, 3, 5).add_arc(0, 3, 20);
/// let g = b.build().unwrap().0;
/// let cch = Cch::build(&g).unwrap();
/// let (ch, unpacking) = cch.customise_with_unpacking(g.weights()).unwrap();
/// let (thin, thin_unpacking) = thin_for_queries(&ch, &unpacking).unwrap();
/// let mut q = CchQuery::new(&thin).unwrap();
/// let (d, arcs) = q.path(&thin, &thin_unpacking, 0, 3).unwrap().unwrap();
/// assert_eq!(d, 8);
/// assert_eq!(arcs.iter().map(|&a| g.targets()[a as usize]).collect::<Vec<_>>(), [2, 1, 3]);
/// // The basic hierarchy's unpacking does not fit the thinned one.
/// assert!(q.path(&thin, &unpacking, 0, 3).is_err());
/// ```
pub fn thin_for_queries<'c>(
    ch: &ContractionHierarchy,
    unpacking: &Unpacking<'c>,
) -> Result<(ContractionHierarchy, Unpacking<'c>), SsspError> {
    unpacking.check_fits(ch)?;
    let perfect = Perfect::of(ch)?;
    let (up, up_edges) = kept_arcs(&ch.up, &perfect.needed(ch, Direction::Up))?;
    let (down, down_edges) = kept_arcs(&ch.down, &perfect.needed(ch, Direction::Down))?;
    let thin = ContractionHierarchy { up, down, ..ch.clone() };
    Ok((thin, unpacking.for_thinned([up_edges, down_edges])))
}

/// The arcs of `csr` marked in `keep`, as a CSR of their own (same rows, basic weights), and the arc of
/// `csr` each came from.
fn kept_arcs(csr: &Csr<u32>, keep: &[bool]) -> Result<(Csr<u32>, Vec<u32>), SsspError> {
    let (off, head, weight) = (csr.offsets(), csr.targets(), csr.weights());
    let mut offsets = Vec::with_capacity(off.len());
    offsets.push(0u32);
    let (mut heads, mut weights, mut edges) = (Vec::new(), Vec::new(), Vec::new());
    for row in off.windows(2) {
        for e in row[0] as usize..row[1] as usize {
            if keep[e] {
                heads.push(head[e]);
                weights.push(weight[e]);
                edges.push(e as u32);
            }
        }
        offsets.push(heads.len() as u32);
    }
    let kept = Csr::from_parts(offsets, heads, weights)
        .map_err(|e| SsspError::InvalidParameter(format!("thinned arcs: {e}")))?;
    Ok((kept, edges))
}

/// Which arcs of one edge a thinning looks at.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    /// `x → y`, from the edge's lower end up.
    Up,
    /// `y → x`, from the edge's upper end down.
    Down,
}

/// The perfect customisation's weights: every edge's true distance, both directions, on the basic
/// hierarchy's topology.
struct Perfect {
    up: Vec<u32>,
    down: Vec<u32>,
}

impl Perfect {
    fn of(ch: &ContractionHierarchy) -> Result<Self, SsspError> {
        let Some(parent) = &ch.elimination_tree else {
            return Err(SsspError::InvalidParameter(
                "thinning needs a customisable hierarchy's elimination tree".into(),
            ));
        };
        let n = ch.num_vertices() as usize;
        let (off, head) = (ch.up.offsets(), ch.up.targets());
        if off != ch.down.offsets() || head != ch.down.targets() {
            return Err(SsspError::InvalidParameter(
                "thinning needs up and down arcs on one topology".into(),
            ));
        }
        // The edge {y, z} (y < z) sits in y's row: upper neighbours are sorted there.
        let find = |y: u32, z: u32| -> Option<usize> {
            let r = off[y as usize] as usize..off[y as usize + 1] as usize;
            head[r.clone()].binary_search(&z).ok().map(|i| r.start + i)
        };
        // Ranks by depth in the elimination tree (roots at depth 0; a parent outranks its children).
        let mut depth = vec![0u32; n];
        for r in (0..n).rev() {
            let p = parent[r];
            if p != u32::MAX {
                depth[r] = depth[p as usize] + 1;
            }
        }
        let max_depth = depth.iter().copied().max().unwrap_or(0) as usize;
        let mut by_depth: Vec<Vec<u32>> = vec![Vec::new(); max_depth + 1];
        for (r, &d) in depth.iter().enumerate() {
            by_depth[d as usize].push(r as u32);
        }
        let (mut pu, mut pd) = (ch.up.weights().to_vec(), ch.down.weights().to_vec());
        for ranks in &by_depth {
            // Each rank's new row from the (final) rows of its ancestors.
            let rows: Vec<(usize, Vec<u32>, Vec<u32>)> = ranks
                .par_iter()
                .map(|&x| {
                    let r = off[x as usize] as usize..off[x as usize + 1] as usize;
                    let (mut up, mut down) = (pu[r.clone()].to_vec(), pd[r.clone()].to_vec());
                    // Twice: a value improved through one triangle may improve another of the same row.
                    for _ in 0..2 {
                        for i in 0..r.len() {
                            for j in i + 1..r.len() {
                                let Some(f) = find(head[r.start + i], head[r.start + j]) else {
                                    return Err(SsspError::InvalidParameter(
                                        "thinning needs a chordal hierarchy (upper neighbours not a clique)"
                                            .into(),
                                    ));
                                };
                                // x → z via y, z → x via y, x → y via z, y → x via z (y = i-th, z = j-th).
                                up[j] = up[j].min(link(up[i], pu[f]));
                                down[j] = down[j].min(link(pd[f], down[i]));
                                up[i] = up[i].min(link(up[j], pd[f]));
                                down[i] = down[i].min(link(pu[f], down[j]));
                            }
                        }
                    }
                    Ok((r.start, up, down))
                })
                .collect::<Result<_, SsspError>>()?;
            for (start, up, down) in rows {
                pu[start..start + up.len()].copy_from_slice(&up);
                pd[start..start + down.len()].copy_from_slice(&down);
            }
        }
        Ok(Self { up: pu, down: pd })
    }

    /// Per arc of `direction` (indexed as in `ch.up` / `ch.down`), whether some shortest path may
    /// need it. An arc goes when a path through another upper neighbour `z` of its lower end is
    /// strictly shorter than its basic weight: then no shortest path uses it, and every up-down
    /// shortest path of the basic hierarchy survives. (Dropping arcs that merely tie would need a tie
    /// rule: with zero weights two arcs could each be dropped for the other.) Down: `y → x` against
    /// `y → z → x`; up: `x → y` against `x → z → y`.
    fn needed(&self, ch: &ContractionHierarchy, direction: Direction) -> Vec<bool> {
        let n = ch.num_vertices() as usize;
        let (off, head) = (ch.up.offsets(), ch.up.targets());
        let find = |y: u32, z: u32| -> Option<usize> {
            let r = off[y as usize] as usize..off[y as usize + 1] as usize;
            head[r.clone()].binary_search(&z).ok().map(|i| r.start + i)
        };
        let (pu, pd) = (&self.up, &self.down);
        let basic = match direction {
            Direction::Up => ch.up.weights(),
            Direction::Down => ch.down.weights(),
        };
        (0..n)
            .into_par_iter()
            .flat_map_iter(|x| {
                let r = off[x] as usize..off[x + 1] as usize;
                r.clone().map(move |e| {
                    basic[e] != UNREACHABLE
                        && !r.clone().any(|e2| {
                            let (y, z) = (head[e], head[e2]);
                            // The edge {y, z} in the direction the detour takes it.
                            let between = |from: u32, to: u32| match from.cmp(&to) {
                                std::cmp::Ordering::Less => find(from, to).map(|f| pu[f]),
                                std::cmp::Ordering::Greater => find(to, from).map(|f| pd[f]),
                                std::cmp::Ordering::Equal => None,
                            };
                            match direction {
                                Direction::Down => {
                                    between(y, z).is_some_and(|yz| link(yz, pd[e2]) < basic[e])
                                }
                                Direction::Up => between(z, y).is_some_and(|zy| link(pu[e2], zy) < basic[e]),
                            }
                        })
                })
            })
            .collect()
    }
}
