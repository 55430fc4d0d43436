// Shared part of the two-stage reduction (algos-reduce): parameters, bindings and the per-invocation
// accumulation loops. Stage 1 runs G workgroups, each writing one partial; stage 2 runs one workgroup
// over the partials. Reads never go past `params.n` (the seed's out-of-bounds tail is not copied).

struct ReduceParams {
    n: u32,
    out_index: u32,
    pred_op: u32,
    pred_a: u32,
    pred_b: u32,
    // Elements per workgroup for the contiguous layout.
    chunk: u32,
    n_partials: u32,
    pad: u32,
}

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> partials: array<T>;
@group(0) @binding(2) var<uniform> params: ReduceParams;
@group(0) @binding(3) var<storage, read_write> out: array<T>;
@group(0) @binding(4) var<storage, read> input4: array<vec4<u32>>;

// F elements per invocation per trip, WG apart (coalesced). Interleaved layout: trips stride over the
// whole grid (the seed's persistent grid-stride loop, Harris's kernel 7). Contiguous layout: each
// workgroup owns one chunk of `params.chunk` elements (Catanzaro's two-stage reduction).
fn accumulate_scalar(g: u32, groups: u32, lid: u32) -> T {
    var acc = identity();
    var start = 0u;
    var end = params.n;
    var step = groups * WG * F;
    var base = g * WG * F;
    if CONTIGUOUS {
        start = min(g * params.chunk, params.n);
        end = min(start + params.chunk, params.n);
        step = WG * F;
        base = start;
    }
    for (; base < end; base += step) {
        if base + WG * F <= end {
            for (var k = 0u; k < F; k++) {
                let i = base + k * WG + lid;
                acc = combine(acc, lift(input[i], i));
            }
        } else {
            for (var k = 0u; k < F; k++) {
                let i = base + k * WG + lid;
                if i < end {
                    acc = combine(acc, lift(input[i], i));
                }
            }
        }
    }
    return acc;
}

// As accumulate_scalar (interleaved layout) with 16-byte loads: F vec4s per invocation per trip. The
// last n mod 4 elements are read as scalars by the first workgroup.
fn accumulate_vec4(g: u32, groups: u32, lid: u32) -> T {
    var acc = identity();
    let n4 = params.n / 4u;
    for (var base = g * WG * F; base < n4; base += groups * WG * F) {
        for (var k = 0u; k < F; k++) {
            let v = base + k * WG + lid;
            if v < n4 {
                let q = input4[v];
                acc = combine(acc, lift(q.x, 4u * v));
                acc = combine(acc, lift(q.y, 4u * v + 1u));
                acc = combine(acc, lift(q.z, 4u * v + 2u));
                acc = combine(acc, lift(q.w, 4u * v + 3u));
            }
        }
    }
    let tail = 4u * n4 + lid;
    if g == 0u && tail < params.n {
        acc = combine(acc, lift(input[tail], tail));
    }
    return acc;
}

// Stage 2: one workgroup folds the partials.
fn accumulate_partials(lid: u32) -> T {
    var acc = identity();
    for (var i = lid; i < params.n_partials; i += WG) {
        acc = combine(acc, partials[i]);
    }
    return acc;
}
