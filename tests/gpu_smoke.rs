//! A real compute pass on every adapter: the copy kernel moves data and the readback sees it; buffer
//! reuse, the pipeline cache, the 2-D grid split and typed errors for impossible requests.

use gpu_runtime::testing::for_each_context;
use gpu_runtime::{GpuBuffer, GpuError, copy};

#[test]
fn copy_kernel_round_trip() {
    for_each_context("copy_kernel_round_trip", |ctx| {
        for len in [1usize, 3, 4, 1000, 256 * 4096 + 5, 3 * 256 * 4096 * 4] {
            let data: Vec<u32> = (0..len as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
            let src = GpuBuffer::from_slice(ctx, "src", &data).unwrap();
            let dst = GpuBuffer::<u32>::zeroed(ctx, "dst", len).unwrap();
            copy::copy(ctx, &src, &dst).unwrap();
            assert_eq!(dst.read(ctx).unwrap(), data, "len {len} on {}", ctx.info.name);
            // Reuse: overwrite and copy again into the same buffers.
            let again: Vec<u32> = data.iter().map(|x| !x).collect();
            src.write(ctx, 0, &again).unwrap();
            copy::copy(ctx, &src, &dst).unwrap();
            assert_eq!(dst.read_range(ctx, len / 2, len - len / 2).unwrap(), &again[len / 2..]);
        }
        let compiled = ctx.pipelines_compiled();
        let src = GpuBuffer::from_slice(ctx, "src", &[1u32; 8]).unwrap();
        copy::copy(ctx, &src, &src_clone(ctx, &src)).unwrap();
        assert_eq!(ctx.pipelines_compiled(), compiled, "a cached pipeline must not compile again");
    });
}

fn src_clone(ctx: &gpu_runtime::GpuContext, like: &GpuBuffer<u32>) -> GpuBuffer<u32> {
    GpuBuffer::zeroed(ctx, "dst", like.len()).unwrap()
}

#[test]
fn impossible_requests_give_typed_errors() {
    for_each_context("impossible_requests_give_typed_errors", |ctx| {
        let huge = ctx.limits.max_buffer_size / 4 + 1;
        let err = GpuBuffer::<u32>::zeroed(ctx, "huge", huge as usize).unwrap_err();
        assert!(matches!(err, GpuError::BufferTooLarge { .. }), "{err}");
        let small = GpuBuffer::<u32>::zeroed(ctx, "small", 4).unwrap();
        assert!(small.write(ctx, 2, &[1, 2, 3]).is_err());
        assert!(small.read_range(ctx, 3, 2).is_err());
        let max = ctx.limits.max_compute_workgroups_per_dimension as u64;
        assert!(matches!(ctx.grid_1d(max * max * 64 + 1, 64), Err(GpuError::DispatchTooLarge { .. })));
    });
}
