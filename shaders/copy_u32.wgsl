// Word-by-word device-to-device copy with a grid-stride loop (any length); see copy.wgsl.
//!include grid

override WG: u32 = 256;

struct Params {
    len: u32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn copy_u32(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let stride = nwg.x * nwg.y * WG;
    for (var i = flat_index(wid, nwg, lid, WG); i < params.len; i += stride) {
        dst[i] = src[i];
    }
}
