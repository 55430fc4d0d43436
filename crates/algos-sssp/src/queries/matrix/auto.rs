//! Where a hierarchy's matrix runs under [`Backend::Auto`](gpu_runtime::Backend::Auto) with
//! [`Engine::Auto`](super::Engine::Auto): the buckets on the CPU's threads or the min-plus product on
//! this machine's GPU, whichever is predicted faster from the matrix (origins, destinations, the
//! elimination tree's depth) and the measured constants of both ([`gpu_runtime::profile`]), never from
//! an adapter's name. A close call keeps the CPU: the buckets are never slower than the CPU.
//!
//! The models, fitted on the one-GPU H200 host (16 threads) on NY (elimination tree 321 ranks deep,
//! 184.6 on average), 10,000 × 10,000 (docs/benchmarks.md, "The 10,000 × 10,000 matrix, KSP and PHAST
//! rows on a one-GPU H200 host"): both engines walk every origin and destination up the tree on the
//! CPU (0.08 s); the buckets then cost a fixed time per pair and rank of the average walk (0.65 s); the
//! GPU uploads the walks, padded to the deepest, compares them per pair and rank (milliseconds, at a
//! rate proportional to its memory bandwidth) and reads the matrix back, after its start.
//!
//! ```
//! use urbanflow::sssp::matrix::auto::{Depth, predict_buckets, predict_min_plus};
//! use urbanflow::gpu::profile::{CpuProfile, DeviceProfile};
//! let (cpu, gpu) = (CpuProfile::synthetic(16), DeviceProfile::synthetic_discrete());
//! let ny = Depth { max: 321, mean: 184.6 };
//! let big = (10_000, 10_000);
//! assert!(predict_min_plus(big, ny, &cpu, &gpu, false).seconds < predict_buckets(big, ny, &cpu).seconds);
//! let small = (1_000, 1_000);
//! assert!(predict_min_plus(small, ny, &cpu, &gpu, false).seconds > predict_buckets(small, ny, &cpu).seconds);
//! ```

use gpu_runtime::predict::{Choice, Estimate};
use gpu_runtime::profile::{CpuProfile, DeviceProfile};

use crate::ch::ContractionHierarchy;

/// CPU seconds per rank walked, all threads of the fit host (20,000 NY walks of 184.6 ranks: 0.08 s),
/// scaled by [`CpuProfile::slowdown`]. Both engines pay it.
pub const WALK_S_PER_RANK: f64 = 2.17e-8;
/// Buckets: CPU seconds per pair and rank of the average walk, all threads of the fit host (NY: 0.65 s
/// for 10⁸ pairs), scaled by [`CpuProfile::slowdown`]. The ranks two walks share grow with the depth.
pub const BUCKETS_S_PER_PAIR_RANK: f64 = 3.5e-11;
/// Bytes uploaded per rank of a walk (its rank and label, padded to the deepest walk).
pub const UPLOAD_BYTES_PER_RANK: f64 = 8.0;
/// Bytes of the result per pair, written on the device and read back.
pub const RESULT_BYTES_PER_PAIR: f64 = 4.0;
/// The kernel's comparisons (one per pair and rank of the deepest walk) in bytes of device bandwidth:
/// on the fit host 10⁸ pairs × 321 ranks took 0.004 s, 8·10¹² a second from tiles in shared memory
/// against ~3·10¹² bytes a second of device memory. A software adapter, whose "device" is the CPU,
/// pays this at its own rate.
pub const KERNEL_BYTES_PER_PAIR_RANK: f64 = 0.375;

/// The depth of an elimination tree: the deepest rank's and the average over all ranks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Depth {
    /// Ranks from the deepest leaf to its root.
    pub max: u32,
    /// Average ranks from a rank to its root.
    pub mean: f64,
}

impl Depth {
    /// The depth of `ch`'s elimination tree (a contraction hierarchy without one counts as a chain of
    /// its vertices).
    pub fn of(ch: &ContractionHierarchy) -> Self {
        let Some(parent) = ch.elimination_tree.as_deref() else {
            let n = ch.num_vertices();
            return Self { max: n, mean: n as f64 / 2.0 };
        };
        // A parent outranks its children: from the top rank down, each depth is its parent's plus one.
        let mut depth = vec![1u32; parent.len()];
        for r in (0..parent.len()).rev() {
            if let Some(&d) = parent.get(r).and_then(|&p| depth.get(p as usize)) {
                depth[r] = d + 1;
            }
        }
        let max = depth.iter().copied().max().unwrap_or(0);
        let mean = depth.iter().map(|&d| f64::from(d)).sum::<f64>() / depth.len().max(1) as f64;
        Self { max, mean }
    }
}

/// The CPU walks of `origins + destinations` vertices, for either engine.
fn walks_s((origins, destinations): (usize, usize), depth: Depth, cpu: &CpuProfile) -> f64 {
    WALK_S_PER_RANK * (origins + destinations) as f64 * depth.mean * cpu.slowdown()
}

/// The buckets' predicted seconds for an `origins × destinations` matrix on a tree of `depth`.
pub fn predict_buckets(size: (usize, usize), depth: Depth, cpu: &CpuProfile) -> Estimate {
    let walks = walks_s(size, depth, cpu);
    let pairs = size.0 as f64 * size.1 as f64;
    let scan = BUCKETS_S_PER_PAIR_RANK * pairs * depth.mean * cpu.slowdown();
    Estimate::new(
        walks + scan,
        format!("walks {walks:.2} s + {pairs:.0} pairs' buckets {scan:.2} s on {} threads", cpu.threads),
    )
}

/// The min-plus product's predicted seconds on the GPU `d`, its start included unless `warm`.
pub fn predict_min_plus(
    size: (usize, usize),
    depth: Depth,
    cpu: &CpuProfile,
    d: &DeviceProfile,
    warm: bool,
) -> Estimate {
    let start = d.start_s(warm, 1);
    let walks = walks_s(size, depth, cpu);
    let pairs = size.0 as f64 * size.1 as f64;
    let up = d.upload_s(UPLOAD_BYTES_PER_RANK * (size.0 + size.1) as f64 * f64::from(depth.max));
    let result = RESULT_BYTES_PER_PAIR * pairs;
    let device = (result + KERNEL_BYTES_PER_PAIR_RANK * pairs * f64::from(depth.max)) / d.device_bytes_per_s;
    let down = d.download_s(result);
    Estimate::new(
        start + walks + up + device + down,
        format!(
            "{start:.2} s start + walks {walks:.2} s + upload {up:.3} s + kernel {device:.3} s + {:.0} MB back {down:.3} s",
            result / 1e6
        ),
    )
}

/// Auto's choice for an `origins × destinations` matrix on `ch` on this machine, with both predictions.
pub fn choose(size: (usize, usize), ch: &ContractionHierarchy) -> Choice {
    let cpu = gpu_runtime::profile::cpu_profile(rayon::current_num_threads());
    let depth = Depth::of(ch);
    gpu_runtime::predict::auto_choice(predict_buckets(size, depth, &cpu), |d, warm| {
        predict_min_plus(size, depth, &cpu, d, warm)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_runtime::predict::{Verdict, choose};

    #[test]
    fn matrices_on_synthetic_machines() {
        let cpu = CpuProfile::synthetic(16);
        let ny = Depth { max: 321, mean: 184.6 };
        let on = |size: (usize, usize), d: &DeviceProfile| {
            choose(predict_buckets(size, ny, &cpu), Ok(predict_min_plus(size, ny, &cpu, d, false))).verdict
        };
        // The fit: 10,000 × 10,000 measured 2.6-3.0x faster on the GPU (matrix step), 1,000 × 1,000
        // 1.4-1.7x slower.
        assert_eq!(on((10_000, 10_000), &DeviceProfile::synthetic_discrete()), Verdict::Gpu);
        assert_eq!(on((1_000, 1_000), &DeviceProfile::synthetic_discrete()), Verdict::Cpu);
        assert_eq!(on((10_000, 10_000), &DeviceProfile::synthetic_software()), Verdict::Cpu);
        // The walks, which both engines pay, grow with origins + destinations: a long thin matrix of as
        // many pairs gains less from the GPU.
        let ratio = |size: (usize, usize)| {
            predict_min_plus(size, ny, &cpu, &DeviceProfile::synthetic_discrete(), true).seconds
                / predict_buckets(size, ny, &cpu).seconds
        };
        assert!(ratio((10_000, 10_000)) < ratio((100_000, 1_000)));
    }

    #[test]
    fn depth_of_a_tree() {
        let g = graph_core::generators::grid_2d(6, 6);
        let ch = crate::cch::Cch::build(&g).unwrap().customise(g.weights()).unwrap();
        let d = Depth::of(&ch);
        let parent = ch.elimination_tree.as_deref().unwrap();
        // Walk every rank to its root by hand.
        let walked: Vec<u32> = (0..parent.len() as u32)
            .map(|mut r| {
                let mut k = 1;
                while parent[r as usize] != u32::MAX {
                    r = parent[r as usize];
                    k += 1;
                }
                k
            })
            .collect();
        assert_eq!(d.max, *walked.iter().max().unwrap());
        assert!(
            (d.mean - walked.iter().map(|&k| f64::from(k)).sum::<f64>() / walked.len() as f64).abs() < 1e-12
        );
    }
}
