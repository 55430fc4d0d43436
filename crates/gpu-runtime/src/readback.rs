//! Streaming device results to the host while the device computes the next ones.
//!
//! A solver that produces results block after block (trees of a batch, rows of a sweep, blocks of a
//! matrix) reads them through a ring of staging buffers: block `i` is copied into one and mapped while
//! the device already works on block `i + 1`, whose copy goes to the next. With two buffers (the
//! default) the host reads one block while the device computes one; with three, the device may run a
//! whole block ahead, so that a host that is briefly slow (a sink's jitter, the next block's CPU
//! preparation) does not leave it idle. [`ReadbackRing::start`] records and submits the copies and
//! starts the mapping; [`ReadbackRing::read`] waits for it and lends the mapped values in place — no
//! copy stands between the device and the caller's closure. Staging buffers come from the context's
//! pool (pinned host memory is slow to allocate), and go back to it on drop unless a mapping was left
//! open by an error.
//!
//! ```no_run
//! # use urbanflow::gpu::{GpuBuffer, GpuContext, readback::ReadbackRing};
//! # fn demo(ctx: &GpuContext, rows: &GpuBuffer<u32>, blocks: usize) -> Result<(), urbanflow::gpu::GpuError> {
//! let mut readback = ReadbackRing::new(ctx, "rows");
//! let mut pending = None;
//! for _ in 0..blocks {
//!     // ... dispatch the work of this block into `rows` ...
//!     let next = readback.start(rows.buffer(), 4 * rows.len() as u64)?;
//!     if let Some(p) = pending.replace(next) {
//!         readback.read(p, |values: &[u32]| println!("{} values", values.len()))?;
//!     }
//! }
//! if let Some(p) = pending {
//!     readback.read(p, |values: &[u32]| println!("{} values", values.len()))?;
//! }
//! # Ok(()) }
//! ```

use crate::context::GpuContext;
use crate::error::GpuError;
use crate::recording::Recording;

/// A copy under way into one of the ring's staging buffers; give it back to [`ReadbackRing::read`].
#[derive(Debug)]
#[must_use = "a started readback is read (or its buffer stays mapped)"]
pub struct PendingReadback {
    which: usize,
    bytes: u64,
    index: wgpu::SubmissionIndex,
}

/// Staging buffers used in turn. See the [module documentation](self).
#[derive(Debug)]
pub struct ReadbackRing<'a> {
    ctx: &'a GpuContext,
    label: String,
    staging: Vec<Option<wgpu::Buffer>>,
    /// Whether a mapping of each buffer is pending or open (such a buffer is not returned to the pool).
    mapped: Vec<bool>,
    next: usize,
    capacity: u64,
}

impl<'a> ReadbackRing<'a> {
    /// Two staging buffers, each taken from the pool on first use.
    pub fn new(ctx: &'a GpuContext, label: &str) -> Self {
        Self {
            ctx,
            label: label.into(),
            staging: vec![None, None],
            mapped: vec![false; 2],
            next: 0,
            capacity: 0,
        }
    }

    /// `depth` staging buffers (at least 2): at most `depth` copies may be pending at once.
    pub fn with_depth(mut self, depth: usize) -> Self {
        let depth = depth.max(2);
        self.staging.resize_with(depth, || None);
        self.mapped.resize(depth, false);
        self
    }

    /// How many copies may be pending at once.
    pub fn depth(&self) -> usize {
        self.staging.len()
    }

    /// Takes staging buffers of at least `bytes` from the start, so that blocks of varying size do not
    /// reallocate (a solver's largest block).
    pub fn with_capacity(mut self, bytes: u64) -> Self {
        self.capacity = bytes;
        self
    }

    /// Copies the first `bytes` of `src` (`COPY_SRC`) into the next staging buffer, submits the copy
    /// after all work submitted so far and starts mapping it.
    pub fn start(&mut self, src: &wgpu::Buffer, bytes: u64) -> Result<PendingReadback, GpuError> {
        self.start_parts(&[(src, 0, bytes)])
    }

    /// Copies several byte ranges `(buffer, offset, bytes)` one after the other into the next staging
    /// buffer (each range padded to 4 bytes), in one submission, and starts mapping them: a block's
    /// values and a flag computed beside them (an overflow word) arrive in one mapping.
    pub fn start_parts(&mut self, parts: &[(&wgpu::Buffer, u64, u64)]) -> Result<PendingReadback, GpuError> {
        let which = self.next;
        if self.mapped[which] {
            return Err(GpuError::Readback {
                label: self.label.clone(),
                message: format!("all {} staging buffers are pending: read one first", self.depth()),
            });
        }
        let padded = |b: u64| b.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
        let bytes = parts.iter().map(|&(_, _, b)| padded(b)).sum::<u64>().max(4);
        if self.staging[which].as_ref().is_none_or(|s| s.size() < bytes) {
            if let Some(old) = self.staging[which].take() {
                self.ctx.give_staging(old);
            }
            let size = bytes.max(self.capacity);
            self.staging[which] =
                Some(self.ctx.scoped(&format!("allocating the `{}` readback buffer", self.label), || {
                    self.ctx.take_staging(size)
                })?);
        }
        let staging = self.staging[which].as_ref().expect("allocated above");
        // Marked first: if recording fails after the mapping started, the buffer is not pooled.
        self.mapped[which] = true;
        let mut rec = Recording::new(format!("copying `{}` for readback", self.label));
        let mut at = 0;
        for &(src, offset, b) in parts {
            if b > 0 {
                rec.copy(src, offset, staging, at, padded(b));
            }
            at += padded(b);
        }
        let index = self.ctx.submit(&rec)?;
        staging.slice(..bytes).map_async(wgpu::MapMode::Read, |_| {});
        self.next = (which + 1) % self.depth();
        Ok(PendingReadback { which, bytes, index })
    }

    /// Waits for `pending` and calls `f` with the copied bytes as values of `T` (the copy's whole
    /// length, rounded down to whole values), straight from mapped memory; the buffer is unmapped
    /// afterwards, whatever `f` returns.
    pub fn read<T: bytemuck::Pod, R>(
        &mut self,
        pending: PendingReadback,
        f: impl FnOnce(&[T]) -> R,
    ) -> Result<R, GpuError> {
        let PendingReadback { which, bytes, index } = pending;
        self.ctx.wait_for(index, &format!("waiting for the `{}` readback", self.label))?;
        let staging = self.staging[which].as_ref().expect("started before");
        let slice = staging.slice(..bytes);
        let out = {
            let view = slice
                .get_mapped_range()
                .map_err(|e| GpuError::Readback { label: self.label.clone(), message: e.to_string() })?;
            let whole = view.len() / std::mem::size_of::<T>() * std::mem::size_of::<T>();
            f(bytemuck::cast_slice(&view[..whole]))
        };
        staging.unmap();
        self.mapped[which] = false;
        Ok(out)
    }
}

impl Drop for ReadbackRing<'_> {
    fn drop(&mut self) {
        for (s, &mapped) in self.staging.iter_mut().zip(&self.mapped) {
            if let Some(b) = s.take()
                && !mapped
            {
                self.ctx.give_staging(b);
            }
        }
    }
}

/// One-off reads (a copy into a pooled staging buffer, one map).
impl GpuContext {
    /// Reads `len` values of type `T` starting at byte `offset` of `buffer` (which needs `COPY_SRC`)
    /// with one copy and one map.
    pub fn read_buffer<T: bytemuck::Pod>(
        &self,
        buffer: &wgpu::Buffer,
        offset: u64,
        len: usize,
    ) -> Result<Vec<T>, GpuError> {
        let bytes = (len * std::mem::size_of::<T>()) as u64;
        if bytes == 0 {
            return Ok(Vec::new());
        }
        let copy_bytes = bytes.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
        let staging = self.take_staging(copy_bytes);
        let label = String::from("readback");
        let mut rec = Recording::new("copying for readback");
        rec.copy(buffer, offset, &staging, 0, copy_bytes);
        self.submit(&rec)?;
        let slice = staging.slice(..copy_bytes);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.wait()?;
        rx.recv()
            .map_err(|e| GpuError::Readback { label: label.clone(), message: e.to_string() })?
            .map_err(|e| GpuError::Readback { label: label.clone(), message: e.to_string() })?;
        let out = {
            let view = slice
                .get_mapped_range()
                .map_err(|e| GpuError::Readback { label: label.clone(), message: e.to_string() })?;
            bytemuck::pod_collect_to_vec::<u8, T>(&view[..bytes as usize])
        };
        staging.unmap();
        self.give_staging(staging);
        Ok(out)
    }
}
