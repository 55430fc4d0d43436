// Workgroup reduction with subgroup operations: each subgroup reduces in registers, one value per
// subgroup goes through workgroup memory, and every subgroup then reduces those (redundantly, so all
// subgroup operations stay in uniform control flow). Subgroup size is whatever the device uses.
//!requires subgroup
//!include sgop_$OP

// One slot per subgroup: WG / smallest subgroup size (4 on any known device) is at most 256.
var<workgroup> sg_scratch: array<T, 256>;

fn wg_reduce_sg(x: T, sg_lane: u32, sg_size: u32, sg_id: u32, n_sg: u32) -> T {
    let s = subgroup_combine(x);
    if sg_lane == 0u {
        sg_scratch[sg_id] = s;
    }
    workgroupBarrier();
    var acc = identity();
    for (var i = sg_lane; i < n_sg; i += sg_size) {
        acc = combine(acc, sg_scratch[i]);
    }
    let r = subgroup_combine(acc);
    workgroupBarrier();
    return r;
}
