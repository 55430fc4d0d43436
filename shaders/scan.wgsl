// Reduce-then-scan prefix sums (algos-reduce). A block is WG × ITEMS consecutive elements.
//   block_sums: one workgroup per block writes the block's sum (tree order of wgred_tree).
//   block_scan: one workgroup per block scans it and adds the block's offset (the exclusive scan of
//               the block sums, computed recursively by the host-side driver).
// No single-pass decoupled look-back: WebGPU gives no inter-workgroup forward-progress guarantee.
// Values travel as u32 bits so one file serves u32, i32 and f32.
//!param E u32 i32 f32
//!include grid
//!include elem_$E
//!include op_sum
//!include wgred_tree

override WG: u32 = 256;
override ITEMS: u32 = 8;
override INCLUSIVE: bool = false;

struct ScanParams {
    n: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@group(0) @binding(2) var<storage, read_write> block_totals: array<u32>;
@group(0) @binding(3) var<uniform> params: ScanParams;
@group(0) @binding(4) var<storage, read> block_offsets: array<u32>;

@compute @workgroup_size(WG)
fn block_sums(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let b = flat_workgroup(wid, nwg);
    let start = b * WG * ITEMS;
    var acc = identity();
    for (var k = 0u; k < ITEMS; k++) {
        let i = start + k * WG + lid;
        if i < params.n {
            acc = combine(acc, elem_from_bits(input[i]));
        }
    }
    let r = wg_reduce(acc, lid);
    if lid == 0u {
        block_totals[b] = elem_to_bits(r);
    }
}

var<workgroup> prefix: array<T, WG>;

@compute @workgroup_size(WG)
fn block_scan(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let b = flat_workgroup(wid, nwg);
    // Each invocation scans ITEMS consecutive elements serially...
    let first = (b * WG + lid) * ITEMS;
    var total = identity();
    for (var k = 0u; k < ITEMS; k++) {
        let i = first + k;
        if i < params.n {
            total = combine(total, elem_from_bits(input[i]));
        }
    }
    // ...then the invocation totals are scanned across the workgroup (Hillis–Steele, a barrier per step).
    prefix[lid] = total;
    workgroupBarrier();
    for (var off = 1u; off < WG; off <<= 1u) {
        var add = identity();
        if lid >= off {
            add = prefix[lid - off];
        }
        workgroupBarrier();
        prefix[lid] = combine(add, prefix[lid]);
        workgroupBarrier();
    }
    var run = elem_from_bits(block_offsets[b]);
    if lid > 0u {
        run = combine(run, prefix[lid - 1u]);
    }
    for (var k = 0u; k < ITEMS; k++) {
        let i = first + k;
        if i < params.n {
            let x = elem_from_bits(input[i]);
            if INCLUSIVE {
                run = combine(run, x);
                output[i] = elem_to_bits(run);
            } else {
                output[i] = elem_to_bits(run);
                run = combine(run, x);
            }
        }
    }
}
