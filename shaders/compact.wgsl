// Stream compaction (algos-reduce): `flags` writes 1 where the run-time predicate holds (scanned by
// scan.wgsl, inclusive), then `scatter` writes each kept element's index and value at its rank.
//!param E u32 i32 f32
//!include grid
//!include elem_$E
//!include predicate

override WG: u32 = 256;

struct CompactParams {
    n: u32,
    pred_op: u32,
    pred_a: u32,
    pred_b: u32,
}

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> flags: array<u32>;
@group(0) @binding(2) var<uniform> params: CompactParams;
@group(0) @binding(3) var<storage, read> ranks: array<u32>;
@group(0) @binding(4) var<storage, read_write> out_index: array<u32>;
@group(0) @binding(5) var<storage, read_write> out_value: array<u32>;

fn keep(i: u32) -> bool {
    return predicate(input[i], params.pred_op, params.pred_a, params.pred_b);
}

@compute @workgroup_size(WG)
fn mark(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid, WG);
    if i < params.n {
        flags[i] = select(0u, 1u, keep(i));
    }
}

@compute @workgroup_size(WG)
fn scatter(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid, WG);
    if i < params.n && keep(i) {
        // ranks is the inclusive scan of the flags: this element goes to ranks[i] - 1.
        let at = ranks[i] - 1u;
        out_index[at] = i;
        out_value[at] = input[i];
    }
}
