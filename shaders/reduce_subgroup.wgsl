// Two-stage reduction with subgroup operations for the workgroup step (needs SUBGROUP). Same
// accumulation as reduce.wgsl; the combine order inside a subgroup is the device's.
//!param E u32 i32 f32
//!param OP sum min max argmin argmax count
//!include grid
//!include elem_$E
//!include op_$OP
//!include reduce_common
//!include wgred_subgroup

override WG: u32 = 256;
override F: u32 = 4;
override CONTIGUOUS: bool = false;

@compute @workgroup_size(WG)
fn stage1_scalar(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32, @builtin(subgroup_invocation_id) lane: u32,
                 @builtin(subgroup_size) sg_size: u32, @builtin(subgroup_id) sg_id: u32,
                 @builtin(num_subgroups) n_sg: u32) {
    let g = flat_workgroup(wid, nwg);
    let r = wg_reduce_sg(accumulate_scalar(g, nwg.x * nwg.y, lid), lane, sg_size, sg_id, n_sg);
    if lid == 0u {
        partials[g] = r;
    }
}

@compute @workgroup_size(WG)
fn stage1_vec4(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32, @builtin(subgroup_invocation_id) lane: u32,
               @builtin(subgroup_size) sg_size: u32, @builtin(subgroup_id) sg_id: u32,
               @builtin(num_subgroups) n_sg: u32) {
    let g = flat_workgroup(wid, nwg);
    let r = wg_reduce_sg(accumulate_vec4(g, nwg.x * nwg.y, lid), lane, sg_size, sg_id, n_sg);
    if lid == 0u {
        partials[g] = r;
    }
}

@compute @workgroup_size(WG)
fn stage2(@builtin(local_invocation_index) lid: u32, @builtin(subgroup_invocation_id) lane: u32,
          @builtin(subgroup_size) sg_size: u32, @builtin(subgroup_id) sg_id: u32,
          @builtin(num_subgroups) n_sg: u32) {
    let r = wg_reduce_sg(accumulate_partials(lid), lane, sg_size, sg_id, n_sg);
    if lid == 0u {
        out[params.out_index] = r;
    }
}
