//! GPU timestamps around compute passes (when the device has `TIMESTAMP_QUERY`), recorded with
//! [`crate::recording::Recording::timed_pass`] and [`crate::recording::Recording::resolve_timer`].

use crate::context::GpuContext;
use crate::error::GpuError;

/// Timestamp pairs for up to `capacity` compute passes. Without `TIMESTAMP_QUERY` every method is a
/// no-op and [`GpuTimer::read_ns`] returns `None`; callers then fall back to wall-clock time.
#[derive(Debug)]
pub struct GpuTimer {
    inner: Option<(wgpu::QuerySet, wgpu::Buffer)>,
    capacity: u32,
    used: u32,
    period_ns: f64,
}

impl GpuTimer {
    /// A timer for `capacity` passes.
    pub fn new(ctx: &GpuContext, capacity: u32) -> Self {
        let inner = ctx.features().timestamps.then(|| {
            let qs = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("urbanflow timer"),
                ty: wgpu::QueryType::Timestamp,
                count: 2 * capacity,
            });
            let buf = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("urbanflow timer resolve"),
                size: 16 * capacity as u64,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            (qs, buf)
        });
        Self { inner, capacity, used: 0, period_ns: ctx.queue.get_timestamp_period() as f64 }
    }

    /// True when timestamps are available.
    pub fn enabled(&self) -> bool {
        self.inner.is_some()
    }

    /// The query set and the first of the next two queries (`None` when disabled or full); used by
    /// [`crate::recording::Recording::timed_pass`].
    pub(crate) fn next_pair(&mut self) -> Option<(wgpu::QuerySet, u32)> {
        if self.used >= self.capacity {
            return None;
        }
        let (qs, _) = self.inner.as_ref()?;
        let first = 2 * self.used;
        self.used += 1;
        Some((qs.clone(), first))
    }

    /// What to resolve after the timed passes: the set, the queries used and the resolve buffer.
    pub(crate) fn resolve_target(&self) -> Option<(wgpu::QuerySet, u32, wgpu::Buffer)> {
        let (qs, buf) = self.inner.as_ref()?;
        (self.used > 0).then(|| (qs.clone(), 2 * self.used, buf.clone()))
    }

    /// Durations of the timed passes, in nanoseconds (after the submission completed).
    pub fn read_ns(&self, ctx: &GpuContext) -> Result<Option<Vec<f64>>, GpuError> {
        let Some((_, buf)) = &self.inner else { return Ok(None) };
        let ticks: Vec<u64> = ctx.read_buffer(buf, 0, 2 * self.used as usize)?;
        Ok(Some(ticks.chunks(2).map(|p| p[1].saturating_sub(p[0]) as f64 * self.period_ns).collect()))
    }

    /// Forgets the passes recorded so far.
    pub fn reset(&mut self) {
        self.used = 0;
    }
}
