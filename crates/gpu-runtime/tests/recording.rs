//! The GPU-work vocabulary on every adapter: clears, copies, dispatches, timed passes and the double
//! readback do what they say, in order, inside one submission.

use gpu_runtime::copy::record_copy;
use gpu_runtime::testing::for_each_context;
use gpu_runtime::{GpuBuffer, GpuTimer, ReadbackRing, Recording};

#[test]
fn clears_copies_and_kernels_run_in_recorded_order() {
    for_each_context("clears_copies_and_kernels_run_in_recorded_order", |ctx| {
        let data: Vec<u32> = (1..=1003).collect();
        let a = GpuBuffer::from_slice(ctx, "a", &data).unwrap();
        let b = GpuBuffer::<u32>::zeroed(ctx, "b", data.len()).unwrap();
        let c = GpuBuffer::<u32>::zeroed(ctx, "c", data.len()).unwrap();
        let mut timer = GpuTimer::new(ctx, 2);
        let mut rec = Recording::new("order test");
        // a → b by the copy kernel (1003 words: the scalar variant), timed.
        rec.timed_pass(&mut timer);
        record_copy(ctx, &mut rec, &a, &b, data.len()).unwrap();
        // Then zero words 4..8 of b: a clear after a dispatch must see its writes.
        rec.clear(b.buffer(), 16, Some(16));
        // Then b → c with a plain copy, and c's first 1000 words → b by the kernel again (vec4 variant).
        rec.copy(b.buffer(), 0, c.buffer(), 0, 4 * data.len() as u64);
        rec.timed_pass(&mut timer);
        record_copy(ctx, &mut rec, &c, &b, 1000).unwrap();
        rec.resolve_timer(&timer);
        // The resolve is recorded only when the device has timestamps.
        assert_eq!(rec.commands().len(), 6 + timer.enabled() as usize);
        ctx.submit(&rec).unwrap();
        let mut want = data.clone();
        want[4..8].fill(0);
        assert_eq!(c.read(ctx).unwrap(), want);
        assert_eq!(b.read(ctx).unwrap(), want);
        if let Some(ns) = timer.read_ns(ctx).unwrap() {
            assert_eq!(ns.len(), 2);
            assert!(ns.iter().all(|t| t.is_finite() && *t >= 0.0), "{ns:?}");
        }
    });
}

#[test]
fn readback_ring_alternates_buffers_and_sees_each_block() {
    for_each_context("readback_ring_alternates_buffers_and_sees_each_block", |ctx| {
        let src = GpuBuffer::<u32>::zeroed(ctx, "src", 256).unwrap();
        let mut readback = ReadbackRing::new(ctx, "blocks").with_capacity(1024);
        let mut pending = None;
        let mut seen = Vec::new();
        for block in 0..5u32 {
            // Blocks of different lengths; each overwrites the source after the last copy started.
            let len = 40 + 50 * block as usize;
            src.write(ctx, 0, &vec![block + 1; len]).unwrap();
            let copy = readback.start(src.buffer(), 4 * len as u64).unwrap();
            if let Some((len, p)) = pending.replace((len, copy)) {
                seen.push(readback.read(p, |v: &[u32]| v[..len].to_vec()).unwrap());
            }
        }
        let (len, p) = pending.unwrap();
        seen.push(readback.read(p, |v: &[u32]| v[..len].to_vec()).unwrap());
        for (i, block) in seen.iter().enumerate() {
            assert_eq!(block.len(), 40 + 50 * i);
            assert!(block.iter().all(|&x| x == i as u32 + 1), "block {i}");
        }
    });
}

#[test]
fn readback_ring_of_three_keeps_two_blocks_ahead_and_joins_parts() {
    for_each_context("readback_ring_of_three_keeps_two_blocks_ahead_and_joins_parts", |ctx| {
        let src = GpuBuffer::<u32>::zeroed(ctx, "src", 300).unwrap();
        let flag = GpuBuffer::<u32>::zeroed(ctx, "flag", 1).unwrap();
        let mut readback = ReadbackRing::new(ctx, "blocks").with_depth(3);
        assert_eq!(readback.depth(), 3);
        let mut pending = std::collections::VecDeque::new();
        let mut seen = Vec::new();
        for block in 0..7u32 {
            let len = 7 + 41 * block as usize;
            src.write(ctx, 0, &vec![block + 1; len]).unwrap();
            flag.write(ctx, 0, &[100 + block]).unwrap();
            // A block of an odd byte count (padded) and its flag behind it, in one mapping.
            let parts = [(src.buffer(), 0, 4 * len as u64 - 2), (flag.buffer(), 0, 4)];
            pending.push_back((len, readback.start_parts(&parts).unwrap()));
            if pending.len() == 3 {
                let (len, p) = pending.pop_front().unwrap();
                seen.push(readback.read(p, |v: &[u32]| (v[..len].to_vec(), v[len])).unwrap());
            }
        }
        // Two pending and a third started: a fourth is refused (its buffer is still mapped), not
        // overwritten.
        let third = readback.start(src.buffer(), 4).unwrap();
        assert!(readback.start(src.buffer(), 4).is_err(), "a copy into a mapped buffer");
        for (len, p) in pending {
            seen.push(readback.read(p, |v: &[u32]| (v[..len].to_vec(), v[len])).unwrap());
        }
        readback.read(third, |_: &[u32]| ()).unwrap();
        for (i, (block, flag)) in seen.iter().enumerate() {
            assert_eq!(block.len(), 7 + 41 * i);
            assert!(block.iter().all(|&x| x == i as u32 + 1), "block {i}");
            assert_eq!(*flag, 100 + i as u32, "flag of block {i}");
        }
    });
}
