//! The GPU reduction driver: pipelines, buffers and the two dispatches.

use std::sync::Mutex;

use gpu_runtime::{GpuBuffer, GpuContext, PipelineKey, Recording, Shader, Workgroups, wgpu};

use crate::config::{Launch, ReduceConfig};
use crate::element::Element;
use crate::error::ReduceError;
use crate::predicate::Predicate;

const REDUCE_TREE: Shader = gpu_runtime::shader!("reduce");
const REDUCE_SUBGROUP: Shader = gpu_runtime::shader!("reduce_subgroup");

/// A reduction operator for [`GpuReducer::record`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Operation<E> {
    /// Sum (one result word).
    Sum,
    /// Minimum (one word).
    Min,
    /// Maximum (one word).
    Max,
    /// Arg-min as `(order key, index)` (two words).
    ArgMin,
    /// Arg-max as `(order key, index)` (two words).
    ArgMax,
    /// Count of elements satisfying the predicate (one word).
    Count(Predicate<E>),
}

impl<E: Element> Operation<E> {
    fn name(&self) -> &'static str {
        match self {
            Operation::Sum => "sum",
            Operation::Min => "min",
            Operation::Max => "max",
            Operation::ArgMin => "argmin",
            Operation::ArgMax => "argmax",
            Operation::Count(_) => "count",
        }
    }

    /// Words in one result.
    pub fn words(&self) -> usize {
        match self {
            Operation::ArgMin | Operation::ArgMax => 2,
            _ => 1,
        }
    }
}

/// Reduces device buffers on one GPU with one [`ReduceConfig`]. Pipelines are compiled once per
/// device (cached in the context); the partials buffer is allocated here once and reused.
pub struct GpuReducer<'a> {
    ctx: &'a GpuContext,
    config: ReduceConfig,
    partials: Mutex<GpuBuffer<u32>>,
    result: GpuBuffer<u32>,
}

impl<'a> GpuReducer<'a> {
    /// A reducer with `config` (clamped to the device's workgroup-size limit).
    pub fn new(ctx: &'a GpuContext, config: ReduceConfig) -> Result<Self, ReduceError> {
        let config = config.for_device(ctx);
        // Partials: at most DEFAULT_MAX_WORKGROUPS or an explicit G, two words each; grown on demand.
        let partials = GpuBuffer::zeroed(ctx, "reduce partials", 2 * 4096)?;
        let result = GpuBuffer::zeroed(ctx, "reduce result", 2)?;
        Ok(Self { ctx, config, partials: Mutex::new(partials), result })
    }

    /// The configuration in use.
    pub fn config(&self) -> &ReduceConfig {
        &self.config
    }

    /// The launch this reducer uses for `n` elements.
    pub fn launch(&self, n: usize) -> Result<Launch, ReduceError> {
        self.config.launch(n, self.ctx.features().subgroup)
    }

    fn check_len<E: Element>(&self, input: &GpuBuffer<E>, len: usize) -> Result<(), ReduceError> {
        let max = (self.ctx.limits.max_storage_buffer_binding_size / 4) as usize;
        if len > max || input.size_bytes() > self.ctx.limits.max_storage_buffer_binding_size {
            return Err(ReduceError::LengthTooLarge { len, max });
        }
        if len > input.len() {
            return Err(ReduceError::InvalidConfig(format!(
                "{len} elements requested from a buffer of {}",
                input.len()
            )));
        }
        Ok(())
    }

    /// Records both stages into `rec`: the result of reducing `input[..len]` lands in
    /// `out[out_index .. out_index + op.words()]` (u32 words). No host synchronisation. Start a
    /// [`Recording::timed_pass`] before it to time both stages.
    pub fn record<E: Element>(
        &self,
        rec: &mut Recording,
        input: &GpuBuffer<E>,
        len: usize,
        op: Operation<E>,
        out: &GpuBuffer<u32>,
        out_index: u32,
    ) -> Result<(), ReduceError> {
        self.check_len(input, len)?;
        let l = self.launch(len)?;
        let words = op.words();
        if out_index as usize + words > out.len() || !(out_index as usize).is_multiple_of(words) {
            return Err(ReduceError::InvalidConfig(format!(
                "output word {out_index} is outside the output buffer or not a multiple of {words}"
            )));
        }
        let mut partials = self.partials.lock().unwrap_or_else(|e| e.into_inner());
        if partials.len() < l.groups as usize * words {
            *partials = GpuBuffer::zeroed(self.ctx, "reduce partials", l.groups as usize * words)?;
        }
        let ctx = self.ctx;
        let shader = if l.subgroups { REDUCE_SUBGROUP } else { REDUCE_TREE };
        let key = |entry| {
            PipelineKey::new(shader, entry)
                .param("E", E::NAME)
                .param("OP", op.name())
                .with("WG", l.wg)
                .with("F", l.f)
                .with("CONTIGUOUS", l.contiguous as u32)
        };
        let s1 = ctx.pipeline(&key(if l.vec4 { "stage1_vec4" } else { "stage1_scalar" }))?;
        let s2 = ctx.pipeline(&key("stage2"))?;
        let [op_code, a, b] = match op {
            Operation::Count(p) => p.encode(),
            _ => [0, 0, 0],
        };
        let params = [len as u32, out_index / words as u32, op_code, a, b, l.chunk, l.groups, 0];
        let params = uniform(ctx, &params);
        let n4_bytes = (len / 4 * 16) as u64;
        let bind1 = ctx.scoped("binding reduce stage 1", || {
            let mut entries = vec![
                wgpu::BindGroupEntry { binding: 0, resource: input.binding() },
                wgpu::BindGroupEntry { binding: 1, resource: partials.binding() },
                wgpu::BindGroupEntry { binding: 2, resource: params.as_entire_binding() },
            ];
            if l.vec4 {
                entries.push(wgpu::BindGroupEntry {
                    binding: 4,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: input.buffer(),
                        offset: 0,
                        size: wgpu::BufferSize::new(n4_bytes),
                    }),
                });
            }
            ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("reduce stage 1"),
                layout: &s1.get_bind_group_layout(0),
                entries: &entries,
            })
        })?;
        let bind2 = ctx.scoped("binding reduce stage 2", || {
            ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("reduce stage 2"),
                layout: &s2.get_bind_group_layout(0),
                entries: &[
                    wgpu::BindGroupEntry { binding: 1, resource: partials.binding() },
                    wgpu::BindGroupEntry { binding: 2, resource: params.as_entire_binding() },
                    wgpu::BindGroupEntry { binding: 3, resource: out.binding() },
                ],
            })
        })?;
        let grid = gpu_runtime::dispatch::workgroups_1d(
            l.groups as u64,
            ctx.limits.max_compute_workgroups_per_dimension,
        )?;
        rec.dispatch(&s1, &bind1, Workgroups::Fixed(grid)).dispatch(
            &s2,
            &bind2,
            Workgroups::Fixed([1, 1, 1]),
        );
        Ok(())
    }

    /// Reduces `input[..len]` and reads the result words back (one submission, one map).
    pub fn reduce_words<E: Element>(
        &self,
        input: &GpuBuffer<E>,
        len: usize,
        op: Operation<E>,
    ) -> Result<[u32; 2], ReduceError> {
        let ctx = self.ctx;
        let mut rec = Recording::new("a reduction");
        self.record(&mut rec, input, len, op, &self.result, 0)?;
        ctx.submit(&rec)?;
        let w = self.result.read_range(ctx, 0, op.words())?;
        Ok([w[0], w.get(1).copied().unwrap_or(0)])
    }

    /// Sum of `input[..len]` (wrapping for integers).
    pub fn sum<E: Element>(&self, input: &GpuBuffer<E>, len: usize) -> Result<E, ReduceError> {
        Ok(E::from_bits(self.reduce_words(input, len, Operation::Sum)?[0]))
    }

    /// Minimum (`None` for `len == 0`; NaN ignored).
    pub fn min<E: Element>(&self, input: &GpuBuffer<E>, len: usize) -> Result<Option<E>, ReduceError> {
        if len == 0 {
            return Ok(None);
        }
        Ok(Some(E::from_bits(self.reduce_words(input, len, Operation::Min)?[0])))
    }

    /// Maximum (`None` for `len == 0`; NaN ignored).
    pub fn max<E: Element>(&self, input: &GpuBuffer<E>, len: usize) -> Result<Option<E>, ReduceError> {
        if len == 0 {
            return Ok(None);
        }
        Ok(Some(E::from_bits(self.reduce_words(input, len, Operation::Max)?[0])))
    }

    /// `(index, value)` of the minimum, lowest index on ties (`None` if empty or all NaN).
    pub fn argmin<E: Element>(
        &self,
        input: &GpuBuffer<E>,
        len: usize,
    ) -> Result<Option<(usize, E)>, ReduceError> {
        Ok(arg_result(self.reduce_words(input, len, Operation::ArgMin)?))
    }

    /// `(index, value)` of the maximum, lowest index on ties (`None` if empty or all NaN).
    pub fn argmax<E: Element>(
        &self,
        input: &GpuBuffer<E>,
        len: usize,
    ) -> Result<Option<(usize, E)>, ReduceError> {
        Ok(arg_result(self.reduce_words(input, len, Operation::ArgMax)?))
    }

    /// Number of elements of `input[..len]` satisfying `pred`.
    pub fn count<E: Element>(
        &self,
        input: &GpuBuffer<E>,
        len: usize,
        pred: Predicate<E>,
    ) -> Result<u64, ReduceError> {
        Ok(self.reduce_words(input, len, Operation::Count(pred))?[0] as u64)
    }
}

pub(crate) fn arg_result<E: Element>(w: [u32; 2]) -> Option<(usize, E)> {
    (w[1] != u32::MAX).then(|| (w[1] as usize, E::from_order_key(w[0])))
}

/// A small uniform buffer holding `words`.
pub(crate) fn uniform(ctx: &GpuContext, words: &[u32]) -> wgpu::Buffer {
    let mut padded = words.to_vec();
    padded.resize(words.len().next_multiple_of(4).max(4), 0);
    let buf = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("urbanflow params"),
        size: (padded.len() * 4) as u64,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    ctx.queue.write_buffer(&buf, 0, bytemuck::cast_slice(&padded));
    buf
}
