//! Typed GPU buffers.

use std::marker::PhantomData;

use crate::context::GpuContext;
use crate::error::GpuError;

/// A GPU buffer holding `len` values of `T`, created with `STORAGE | COPY_SRC | COPY_DST` plus any
/// extra usages. Reuse one across dispatches instead of allocating per call.
///
/// ```no_run
/// use urbanflow::gpu::{GpuBuffer, GpuContext};
/// let ctx = GpuContext::new()?;
/// let buf = GpuBuffer::from_slice(&ctx, "xs", &[1u32, 2, 3])?;
/// assert_eq!(buf.read(&ctx)?, vec![1, 2, 3]);
/// # Ok::<(), urbanflow::gpu::GpuError>(())
/// ```
#[derive(Debug)]
pub struct GpuBuffer<T> {
    buffer: wgpu::Buffer,
    len: usize,
    label: String,
    _values: PhantomData<T>,
}

const BASE_USAGE: wgpu::BufferUsages =
    wgpu::BufferUsages::STORAGE.union(wgpu::BufferUsages::COPY_SRC).union(wgpu::BufferUsages::COPY_DST);

impl<T: bytemuck::Pod> GpuBuffer<T> {
    /// Size check against the device's limits; zero-length buffers still get 4 bytes so they can be
    /// bound.
    fn checked_size(ctx: &GpuContext, label: &str, len: usize) -> Result<u64, GpuError> {
        let bytes = (len as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        if bytes > ctx.limits.max_buffer_size {
            return Err(GpuError::BufferTooLarge {
                label: label.into(),
                bytes,
                limit_name: "max_buffer_size",
                limit: ctx.limits.max_buffer_size,
            });
        }
        Ok(bytes.max(4).next_multiple_of(4))
    }

    /// A zero-filled buffer of `len` values.
    pub fn zeroed(ctx: &GpuContext, label: &str, len: usize) -> Result<Self, GpuError> {
        Self::zeroed_with_usage(ctx, label, len, wgpu::BufferUsages::empty())
    }

    /// A zero-filled buffer with extra usages (for example `INDIRECT`).
    pub fn zeroed_with_usage(
        ctx: &GpuContext,
        label: &str,
        len: usize,
        extra: wgpu::BufferUsages,
    ) -> Result<Self, GpuError> {
        let size = Self::checked_size(ctx, label, len)?;
        let buffer = ctx.scoped(&format!("allocating `{label}` ({size} bytes)"), || {
            ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: BASE_USAGE | extra,
                mapped_at_creation: false,
            })
        })?;
        Ok(Self { buffer, len, label: label.into(), _values: PhantomData })
    }

    /// Zeroes the whole buffer on the device: no host allocation, nothing crosses the bus.
    pub fn clear(&self, ctx: &GpuContext) -> Result<(), GpuError> {
        let mut rec = crate::recording::Recording::new(format!("clearing `{}`", self.label));
        rec.clear(&self.buffer, 0, None);
        ctx.submit(&rec).map(drop)
    }

    /// A buffer holding a copy of `data`.
    pub fn from_slice(ctx: &GpuContext, label: &str, data: &[T]) -> Result<Self, GpuError> {
        Self::from_slice_with_usage(ctx, label, data, wgpu::BufferUsages::empty())
    }

    /// A buffer holding a copy of `data`, with extra usages.
    pub fn from_slice_with_usage(
        ctx: &GpuContext,
        label: &str,
        data: &[T],
        extra: wgpu::BufferUsages,
    ) -> Result<Self, GpuError> {
        let buf = Self::zeroed_with_usage(ctx, label, data.len(), extra)?;
        buf.write(ctx, 0, data)?;
        Ok(buf)
    }

    /// Writes `data` at element `offset` (queued; visible to the next submission).
    pub fn write(&self, ctx: &GpuContext, offset: usize, data: &[T]) -> Result<(), GpuError> {
        if offset + data.len() > self.len {
            return Err(GpuError::Validation {
                context: format!("writing `{}`", self.label),
                message: format!("{} values at {offset} overflow a buffer of {}", data.len(), self.len),
            });
        }
        let bytes: &[u8] = bytemuck::cast_slice(data);
        if bytes.is_empty() {
            return Ok(());
        }
        let at = (offset * std::mem::size_of::<T>()) as u64;
        ctx.scoped(&format!("writing `{}`", self.label), || {
            if bytes.len().is_multiple_of(4) {
                ctx.queue.write_buffer(&self.buffer, at, bytes);
            } else {
                let mut padded = bytes.to_vec();
                padded.resize(bytes.len().next_multiple_of(4), 0);
                ctx.queue.write_buffer(&self.buffer, at, &padded);
            }
        })
    }

    /// Reads the whole buffer back (one copy, one map).
    pub fn read(&self, ctx: &GpuContext) -> Result<Vec<T>, GpuError> {
        ctx.read_buffer(&self.buffer, 0, self.len)
    }

    /// Reads `len` values starting at element `start`.
    pub fn read_range(&self, ctx: &GpuContext, start: usize, len: usize) -> Result<Vec<T>, GpuError> {
        if start + len > self.len {
            return Err(GpuError::Readback {
                label: self.label.clone(),
                message: format!("range {start}..{} outside a buffer of {}", start + len, self.len),
            });
        }
        ctx.read_buffer(&self.buffer, (start * std::mem::size_of::<T>()) as u64, len)
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for a buffer of no values.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size in bytes of the values (the allocation may be padded).
    pub fn size_bytes(&self) -> u64 {
        (self.len * std::mem::size_of::<T>()) as u64
    }

    /// The underlying wgpu buffer.
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// The whole buffer as a bind-group resource.
    pub fn binding(&self) -> wgpu::BindingResource<'_> {
        self.buffer.as_entire_binding()
    }

    /// Fails with [`GpuError::BufferTooLarge`] if this buffer is larger than one storage binding may be.
    pub fn check_bindable(&self, ctx: &GpuContext) -> Result<(), GpuError> {
        let limit = ctx.limits.max_storage_buffer_binding_size;
        if self.buffer.size() > limit {
            return Err(GpuError::BufferTooLarge {
                label: self.label.clone(),
                bytes: self.buffer.size(),
                limit_name: "max_storage_buffer_binding_size",
                limit,
            });
        }
        Ok(())
    }
}
