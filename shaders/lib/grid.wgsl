// Flat invocation index of a 1-D problem dispatched as a 2-D grid of workgroups (see gpu_runtime::dispatch).
// `wg_size` is the workgroup size; the caller returns when the index is past its item count.
fn flat_index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32, wg_size: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * wg_size + lid;
}

// Flat workgroup index for a 2-D grid of workgroups.
fn flat_workgroup(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.y * nwg.x + wid.x;
}
