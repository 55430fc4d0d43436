//! Host-slice entry points: one function per operation, any [`Backend`].

use gpu_runtime::{Backend, GpuBuffer, GpuContext, Resolved};

use crate::config::ReduceConfig;
use crate::cpu;
use crate::element::Element;
use crate::error::ReduceError;
use crate::gpu::{GpuReducer, Operation, arg_result};
use crate::monoid::{ArgMax, ArgMin, Count, Max, Min};
use crate::predicate::Predicate;
use crate::scan;

fn upload<E: Element>(ctx: &GpuContext, xs: &[E]) -> Result<GpuBuffer<E>, ReduceError> {
    let max = (ctx.limits.max_storage_buffer_binding_size / 4) as usize;
    if xs.len() > max {
        return Err(ReduceError::LengthTooLarge { len: xs.len(), max });
    }
    Ok(GpuBuffer::from_slice(ctx, "reduce input", xs)?)
}

fn on_gpu<E: Element>(ctx: &GpuContext, xs: &[E], op: Operation<E>) -> Result<[u32; 2], ReduceError> {
    let input = upload(ctx, xs)?;
    GpuReducer::new(ctx, ReduceConfig::tuned(ctx))?.reduce_words(&input, xs.len(), op)
}

/// Sum of `xs` (wrapping for integers; `0` for an empty slice).
pub fn sum<E: Element>(backend: Backend, xs: &[E]) -> Result<E, ReduceError> {
    match backend.resolve() {
        Resolved::Cpu => Ok(cpu::sum(xs)),
        Resolved::Gpu(ctx) => Ok(E::from_bits(on_gpu(ctx, xs, Operation::Sum)?[0])),
    }
}

/// Smallest element; NaN elements are ignored (an all-NaN f32 input gives +∞); `None` when empty.
pub fn min<E: Element>(backend: Backend, xs: &[E]) -> Result<Option<E>, ReduceError> {
    if xs.is_empty() {
        return Ok(None);
    }
    match backend.resolve() {
        Resolved::Cpu => Ok(Some(cpu::reduce(&Min, xs))),
        Resolved::Gpu(ctx) => Ok(Some(E::from_bits(on_gpu(ctx, xs, Operation::Min)?[0]))),
    }
}

/// Largest element; NaN elements are ignored (an all-NaN f32 input gives −∞); `None` when empty.
pub fn max<E: Element>(backend: Backend, xs: &[E]) -> Result<Option<E>, ReduceError> {
    if xs.is_empty() {
        return Ok(None);
    }
    match backend.resolve() {
        Resolved::Cpu => Ok(Some(cpu::reduce(&Max, xs))),
        Resolved::Gpu(ctx) => Ok(Some(E::from_bits(on_gpu(ctx, xs, Operation::Max)?[0]))),
    }
}

/// `(index, value)` of the smallest element, the lowest index on ties; NaN ignored; `None` when empty
/// or all NaN.
pub fn argmin<E: Element>(backend: Backend, xs: &[E]) -> Result<Option<(usize, E)>, ReduceError> {
    let w = match backend.resolve() {
        Resolved::Cpu => {
            let (k, i) = cpu::reduce(&ArgMin, xs);
            [k, i]
        }
        Resolved::Gpu(ctx) => on_gpu(ctx, xs, Operation::ArgMin)?,
    };
    Ok(arg_result(w))
}

/// `(index, value)` of the largest element, the lowest index on ties; NaN ignored; `None` when empty
/// or all NaN.
pub fn argmax<E: Element>(backend: Backend, xs: &[E]) -> Result<Option<(usize, E)>, ReduceError> {
    let w = match backend.resolve() {
        Resolved::Cpu => {
            let (k, i) = cpu::reduce(&ArgMax, xs);
            [k, i]
        }
        Resolved::Gpu(ctx) => on_gpu(ctx, xs, Operation::ArgMax)?,
    };
    Ok(arg_result(w))
}

/// Number of elements satisfying `pred`.
pub fn count<E: Element>(backend: Backend, xs: &[E], pred: Predicate<E>) -> Result<u64, ReduceError> {
    match backend.resolve() {
        Resolved::Cpu => Ok(cpu::reduce(&Count(pred), xs) as u64),
        Resolved::Gpu(ctx) => Ok(on_gpu(ctx, xs, Operation::Count(pred))?[0] as u64),
    }
}

/// Exclusive prefix sums: `out[i] = xs[0] + … + xs[i-1]` (wrapping for integers).
pub fn exclusive_scan<E: Element>(backend: Backend, xs: &[E]) -> Result<Vec<E>, ReduceError> {
    scan_any(backend, xs, false)
}

/// Inclusive prefix sums: `out[i] = xs[0] + … + xs[i]` (wrapping for integers).
pub fn inclusive_scan<E: Element>(backend: Backend, xs: &[E]) -> Result<Vec<E>, ReduceError> {
    scan_any(backend, xs, true)
}

fn scan_any<E: Element>(backend: Backend, xs: &[E], inclusive: bool) -> Result<Vec<E>, ReduceError> {
    match backend.resolve() {
        Resolved::Cpu => Ok(cpu::scan(xs, inclusive)),
        Resolved::Gpu(ctx) => {
            if xs.is_empty() {
                return Ok(Vec::new());
            }
            scan::scan(ctx, &upload(ctx, xs)?, xs.len(), inclusive)
        }
    }
}

/// Indices of the elements satisfying `pred`, in increasing order.
pub fn compact_indices<E: Element>(
    backend: Backend,
    xs: &[E],
    pred: Predicate<E>,
) -> Result<Vec<u32>, ReduceError> {
    match backend.resolve() {
        Resolved::Cpu => Ok(cpu::compact_indices(xs, pred)),
        Resolved::Gpu(ctx) => {
            if xs.is_empty() {
                return Ok(Vec::new());
            }
            Ok(scan::compact(ctx, &upload(ctx, xs)?, xs.len(), pred)?.0)
        }
    }
}

/// The elements satisfying `pred`, in order.
pub fn compact_values<E: Element>(
    backend: Backend,
    xs: &[E],
    pred: Predicate<E>,
) -> Result<Vec<E>, ReduceError> {
    match backend.resolve() {
        Resolved::Cpu => Ok(xs.iter().copied().filter(|&x| pred.test(x)).collect()),
        Resolved::Gpu(ctx) => {
            if xs.is_empty() {
                return Ok(Vec::new());
            }
            Ok(scan::compact(ctx, &upload(ctx, xs)?, xs.len(), pred)?.1)
        }
    }
}
