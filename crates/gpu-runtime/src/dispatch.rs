//! Workgroup grids for 1-D work of any size.
//!
//! A dispatch holds at most `max_compute_workgroups_per_dimension` (65,535 by default) workgroups per
//! dimension. [`grid_1d`] splits larger counts over x and y; shaders recover the flat index with the
//! `grid` helper (`//!include grid`), which reads `@builtin(num_workgroups)` and so needs no extra
//! uniform. Invocations past the end must return early: the grid is rounded up.

use crate::context::GpuContext;
use crate::error::GpuError;

/// Workgroup counts `[x, y, 1]` covering `items` items with `wg` invocations per workgroup, each
/// dimension at most `max_per_dim`.
///
/// ```
/// use urbanflow::gpu::dispatch::grid_1d;
/// assert_eq!(grid_1d(1000, 256, 65535).unwrap(), [4, 1, 1]);
/// assert_eq!(grid_1d(0, 256, 65535).unwrap(), [0, 1, 1]);
/// // 2^26 items of 256 per workgroup: 262,144 workgroups, split as 65,535 × 5.
/// assert_eq!(grid_1d(1 << 26, 256, 65535).unwrap(), [65535, 5, 1]);
/// ```
pub fn grid_1d(items: u64, wg: u32, max_per_dim: u32) -> Result<[u32; 3], GpuError> {
    let groups = items.div_ceil(wg.max(1) as u64);
    workgroups_1d(groups, max_per_dim)
}

/// `[x, y, 1]` holding at least `groups` workgroups.
pub fn workgroups_1d(groups: u64, max_per_dim: u32) -> Result<[u32; 3], GpuError> {
    let max = max_per_dim.max(1) as u64;
    if groups <= max {
        return Ok([groups as u32, 1, 1]);
    }
    let y = groups.div_ceil(max);
    if y > max {
        return Err(GpuError::DispatchTooLarge { workgroups: groups, max_per_dim });
    }
    Ok([max as u32, y as u32, 1])
}

impl GpuContext {
    /// [`grid_1d`] with this device's per-dimension limit.
    pub fn grid_1d(&self, items: u64, wg: u32) -> Result<[u32; 3], GpuError> {
        grid_1d(items, wg, self.limits.max_compute_workgroups_per_dimension)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_cover_every_item_and_respect_the_limit() {
        for &(items, wg, max) in &[
            (1u64, 64u32, 65535u32),
            (65535 * 64, 64, 65535),
            (65535 * 64 + 1, 64, 65535),
            (45, 1, 7),
            (49, 1, 7),
        ] {
            let [x, y, z] = grid_1d(items, wg, max).unwrap();
            assert!(x <= max && y <= max && z == 1);
            assert!(x as u64 * y as u64 * wg as u64 >= items);
        }
        assert!(grid_1d(50, 1, 7).is_err());
    }
}
