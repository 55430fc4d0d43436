// Calibration: scattered 32-bit atomicMin throughput (gpu_runtime::calibrate). Invocation i takes
// `ops_per_invocation` pseudo-random (cell, value) pairs from a hash of its index and the round, and
// lowers the cell to the value. CPU twin: gpu_runtime::calibrate::calibrate_atomics.
//!include grid

override WG: u32 = 256;

struct Params {
    // Invocations that work (the rest of the grid returns).
    invocations: u32,
    // Pairs per invocation.
    ops_per_invocation: u32,
    // Cells - 1 (a power of two minus one).
    mask: u32,
    // Varies the pairs between runs.
    seed: u32,
}

@group(0) @binding(0) var<storage, read_write> cells: array<atomic<u32>>;
@group(0) @binding(1) var<uniform> params: Params;

// A 32-bit integer hash (Chris Wellons' lowbias32): the same function as the CPU twin's.
fn mix32(x0: u32) -> u32 {
    var x = x0;
    x ^= x >> 16u;
    x *= 0x7feb352du;
    x ^= x >> 15u;
    x *= 0x846ca68bu;
    x ^= x >> 16u;
    return x;
}

@compute @workgroup_size(WG)
fn scatter_min(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid, WG);
    if (i >= params.invocations) {
        return;
    }
    for (var k = 0u; k < params.ops_per_invocation; k++) {
        let h = mix32(i * params.ops_per_invocation + k + params.seed);
        atomicMin(&cells[h & params.mask], mix32(h));
    }
}
