// Device-to-device copy with a grid-stride loop: the bandwidth probe and the GPU smoke test.
// Entry point `copy_vec4`: 16-byte loads; the length is in vec4 units. copy_u32.wgsl copies any length.
//!include grid

override WG: u32 = 256;

struct Params {
    // Number of elements of the entry point's type (vec4 or u32) to copy.
    len: u32,
}

@group(0) @binding(0) var<storage, read> src4: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst4: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn copy_vec4(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let stride = nwg.x * nwg.y * WG;
    for (var i = flat_index(wid, nwg, lid, WG); i < params.len; i += stride) {
        dst4[i] = src4[i];
    }
}
