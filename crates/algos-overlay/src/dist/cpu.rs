//! DIST's node loop on the CPU: serial or rayon over nodes, `f64`, and the `f32` mirror of the GPU
//! kernel (same layout, same lane-strided sums and tree reduction, same update order).

use rayon::prelude::*;

use super::real::Real;
use super::{DistEngine, DistParams};
use crate::error::OverlayError;
use crate::instance::MopInstance;

/// The instance as DIST's node loop reads it: per node, its arcs' neighbour, value and upper bound,
/// in the incidence order of [`MopInstance::arcs`].
pub(crate) struct Layout<R> {
    pub(crate) start: Vec<u32>,
    pub(crate) to: Vec<u32>,
    pub(crate) value: Vec<R>,
    pub(crate) upper: Vec<R>,
    pub(crate) b: Vec<R>,
}

impl<R: Real> Layout<R> {
    pub(crate) fn new(inst: &MopInstance) -> Self {
        let (start, arcs) = inst.incidence();
        let edges = inst.edges();
        Self {
            start: start.iter().map(|&s| s as u32).collect(),
            to: arcs.iter().map(|a| a.to).collect(),
            value: arcs.iter().map(|a| R::from_f64(edges[a.edge as usize].value)).collect(),
            upper: arcs.iter().map(|a| R::from_f64(edges[a.edge as usize].upper)).collect(),
            b: inst.b().iter().map(|&b| R::from_f64(b)).collect(),
        }
    }
}

/// The step parameters in the engine's precision.
#[derive(Clone, Copy)]
pub(crate) struct Steps<R> {
    pub(crate) alpha_start: R,
    pub(crate) alpha_min: R,
    pub(crate) gamma_up: R,
    pub(crate) gamma_down: R,
    pub(crate) inner: u32,
    pub(crate) stall: u32,
    /// The weight of the edge terms in a node's local value (see [`DistParams::local_weight`]).
    pub(crate) weight: R,
}

impl<R: Real> Steps<R> {
    pub(crate) fn new(p: &DistParams) -> Self {
        Self {
            alpha_start: R::from_f64(p.alpha_start),
            alpha_min: R::from_f64(p.alpha_min),
            gamma_up: R::from_f64(p.gamma_up),
            gamma_down: R::from_f64(p.gamma_down),
            inner: p.inner_iters,
            stall: p.stall,
            weight: R::from_f64(p.local_weight),
        }
    }
}

/// `(Σ_k max(0, q_k − λ) u_k, Σ_{k: q_k > λ} u_k)` with element k summed into lane `k mod L` in
/// increasing k, then the lanes added as a tree (`lane[i] += lane[i + s]` for s = L/2, …, 1): the
/// GPU kernel's order with L = its workgroup size. With L = 8 the lanes also vectorise on the CPU.
#[inline]
fn lane_sums<R: Real, const L: usize>(q: &[R], u: &[R], lambda: R) -> (R, R) {
    let mut zs = [R::ZERO; L];
    let mut gs = [R::ZERO; L];
    let (qc, ql) = q.split_at(q.len() - q.len() % L);
    let (uc, ul) = u.split_at(qc.len());
    for (cq, cu) in qc.chunks_exact(L).zip(uc.chunks_exact(L)) {
        for l in 0..L {
            let d = cq[l] - lambda;
            let pos = d > R::ZERO;
            zs[l] += if pos { d * cu[l] } else { R::ZERO };
            gs[l] += if pos { cu[l] } else { R::ZERO };
        }
    }
    for (l, (&qk, &uk)) in ql.iter().zip(ul).enumerate() {
        let d = qk - lambda;
        if d > R::ZERO {
            zs[l] += d * uk;
            gs[l] += uk;
        }
    }
    let mut s = L / 2;
    while s > 0 {
        for l in 0..s {
            zs[l] += zs[l + s];
            gs[l] += gs[l + s];
        }
        s /= 2;
    }
    (zs[0], gs[0])
}

/// A node's persistent step state.
#[derive(Clone, Copy)]
struct NodeState<R> {
    alpha: R,
    stall: u32,
    best: R,
}

/// One external iteration of node h: returns its best λ_h; updates its step state and best value.
#[inline]
fn node_round<R: Real, const L: usize>(
    lay: &Layout<R>,
    steps: &Steps<R>,
    lambda_ext: &[R],
    h: usize,
    st: &mut NodeState<R>,
    q: &mut Vec<R>,
) -> R {
    let (s, e) = (lay.start[h] as usize, lay.start[h + 1] as usize);
    q.clear();
    q.extend(lay.to[s..e].iter().zip(&lay.value[s..e]).map(|(&j, &v)| v - lambda_ext[j as usize]));
    let u = &lay.upper[s..e];
    let b = lay.b[h];
    let mut lambda = lambda_ext[h];
    let mut best = R::INFINITY;
    let mut lambda_best = lambda;
    for _ in 0..steps.inner {
        let (zs, gs) = lane_sums::<R, L>(q, u, lambda);
        let z = b * lambda + steps.weight * zs;
        let g = gs - b;
        if z < best {
            best = z;
            lambda_best = lambda;
            st.alpha = st.alpha * steps.gamma_up;
            st.stall = 0;
        } else {
            st.stall += 1;
            if st.stall > steps.stall {
                st.alpha = (st.alpha * steps.gamma_down).max(steps.alpha_min);
                st.stall = 0;
            }
        }
        lambda = (lambda + st.alpha * g).max(R::ZERO);
    }
    st.best = best;
    lambda_best
}

/// DIST's node loop on the CPU in precision `R` with `L` summation lanes: serial or rayon over nodes.
/// `CpuEngine` (f64, 8 lanes) is the CPU backend; [`OverlayDistMirror`] the GPU kernel's twin.
pub struct CpuEngine<R: Real = f64, const L: usize = 8> {
    parallel: bool,
    lay: Layout<R>,
    steps: Steps<R>,
    lambda: Vec<R>,
    next: Vec<R>,
    state: Vec<NodeState<R>>,
}

/// The `f32` twin of [`super::GpuEngine`] with workgroup size `WG`: the same roundings in the same
/// order, except that a GPU compiler may fuse a multiply and an add (WGSL leaves that to it), so
/// results may differ in the last bits.
pub type OverlayDistMirror<const WG: usize> = CpuEngine<f32, WG>;

impl CpuEngine {
    /// One thread.
    pub fn serial(inst: &MopInstance, p: &DistParams) -> Self {
        Self::new(inst, p, false)
    }

    /// All threads of the current rayon pool (results identical to [`CpuEngine::serial`]).
    pub fn rayon(inst: &MopInstance, p: &DistParams) -> Self {
        Self::new(inst, p, true)
    }
}

impl<R: Real, const L: usize> CpuEngine<R, L> {
    /// An engine over `inst`; `parallel` runs the nodes on rayon's pool.
    pub fn new(inst: &MopInstance, p: &DistParams, parallel: bool) -> Self {
        assert!(L.is_power_of_two(), "lanes must be a power of two");
        let steps = Steps::new(p);
        let n = inst.n();
        Self {
            parallel,
            lay: Layout::new(inst),
            steps,
            lambda: vec![R::ZERO; n],
            next: vec![R::ZERO; n],
            state: vec![NodeState { alpha: steps.alpha_start, stall: 0, best: R::ZERO }; n],
        }
    }
}

impl CpuEngine {
    /// One external iteration for the nodes in `nodes` only (a cluster rank's share): their new
    /// multipliers, in node order; the engine's `λ_ext` stays as it was until [`CpuEngine::set_lambda`]
    /// installs everyone's. Each node reads only `λ_ext` and its own step state, so shares computed on
    /// different processes and put together equal [`DistEngine::rounds`] bit for bit.
    pub fn round_share(&mut self, nodes: std::ops::Range<usize>) -> Vec<f64> {
        let (lay, steps, lambda) = (&self.lay, &self.steps, &self.lambda);
        let (lo, hi) = (nodes.start, nodes.end);
        self.state[lo..hi]
            .par_iter_mut()
            .enumerate()
            .map_init(Vec::new, |q, (i, st)| node_round::<f64, 8>(lay, steps, lambda, lo + i, st, q))
            .collect()
    }

    /// Sets `λ_ext` (every node's multiplier) without touching the step states: the end of an
    /// external iteration whose shares were exchanged.
    pub fn set_lambda(&mut self, lambda: &[f64]) {
        self.lambda.copy_from_slice(lambda);
    }

    /// The best local values of the nodes in `nodes` from the last external iteration (their sum over
    /// all nodes in node order is [`DistEngine::local_sum`]).
    pub fn best_values(&self, nodes: std::ops::Range<usize>) -> Vec<f64> {
        self.state[nodes].iter().map(|s| s.best).collect()
    }
}

impl<R: Real, const L: usize> DistEngine for CpuEngine<R, L> {
    fn name(&self) -> String {
        let precision = if std::mem::size_of::<R>() == 4 { " f32 mirror" } else { "" };
        if self.parallel {
            format!("rayon ({} threads){precision}", rayon::current_num_threads())
        } else {
            format!("serial{precision}")
        }
    }

    fn start(&mut self, lambda: &[f64]) -> Result<(), OverlayError> {
        self.lambda = lambda.iter().map(|&x| R::from_f64(x)).collect();
        for s in &mut self.state {
            *s = NodeState { alpha: self.steps.alpha_start, stall: 0, best: R::ZERO };
        }
        Ok(())
    }

    fn rounds(&mut self, rounds: u32) -> Result<(), OverlayError> {
        for _ in 0..rounds {
            let (lay, steps, lambda) = (&self.lay, &self.steps, &self.lambda);
            if self.parallel {
                self.next
                    .par_iter_mut()
                    .zip(self.state.par_iter_mut())
                    .enumerate()
                    .for_each_init(Vec::new, |q, (h, (out, st))| {
                        *out = node_round::<R, L>(lay, steps, lambda, h, st, q)
                    });
            } else {
                let mut q = Vec::new();
                for (h, (out, st)) in self.next.iter_mut().zip(&mut self.state).enumerate() {
                    *out = node_round::<R, L>(lay, steps, lambda, h, st, &mut q);
                }
            }
            std::mem::swap(&mut self.lambda, &mut self.next);
        }
        Ok(())
    }

    fn lambda(&mut self) -> Result<Vec<f64>, OverlayError> {
        Ok(self.lambda.iter().map(|x| x.to_f64()).collect())
    }

    fn local_sum(&mut self) -> Result<f64, OverlayError> {
        Ok(self.state.iter().map(|s| s.best.to_f64()).sum())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_sums_equal_a_plain_sum_on_exact_values() {
        // Small integers: every order gives the same exact sum.
        let q: Vec<f64> = (0..37).map(|k| ((k * 7) % 11) as f64).collect();
        let u: Vec<f64> = (0..37).map(|k| ((k * 3) % 5 + 1) as f64).collect();
        let lambda = 4.0;
        let plain = q
            .iter()
            .zip(&u)
            .filter(|(q, _)| **q > lambda)
            .fold((0.0, 0.0), |(z, g), (q, u)| (z + (q - lambda) * u, g + u));
        assert_eq!(lane_sums::<f64, 8>(&q, &u, lambda), plain);
        assert_eq!(lane_sums::<f64, 64>(&q, &u, lambda), plain);
        assert_eq!(lane_sums::<f64, 1>(&q, &u, lambda), plain);
    }
}
