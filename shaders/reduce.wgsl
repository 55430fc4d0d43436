// Two-stage reduction with a workgroup-memory tree (portable; deterministic order for a given launch
// shape, which the CPU mirror in algos-reduce reproduces bit for bit).
//!param E u32 i32 f32
//!param OP sum min max argmin argmax count
//!include grid
//!include elem_$E
//!include op_$OP
//!include reduce_common
//!include wgred_tree

override WG: u32 = 256;
override F: u32 = 4;
override CONTIGUOUS: bool = false;

@compute @workgroup_size(WG)
fn stage1_scalar(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32) {
    let g = flat_workgroup(wid, nwg);
    let r = wg_reduce(accumulate_scalar(g, nwg.x * nwg.y, lid), lid);
    if lid == 0u {
        partials[g] = r;
    }
}

@compute @workgroup_size(WG)
fn stage1_vec4(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let g = flat_workgroup(wid, nwg);
    let r = wg_reduce(accumulate_vec4(g, nwg.x * nwg.y, lid), lid);
    if lid == 0u {
        partials[g] = r;
    }
}

@compute @workgroup_size(WG)
fn stage2(@builtin(local_invocation_index) lid: u32) {
    let r = wg_reduce(accumulate_partials(lid), lid);
    if lid == 0u {
        out[params.out_index] = r;
    }
}
