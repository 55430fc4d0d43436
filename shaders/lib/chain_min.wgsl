// The least of one u32 per invocation of a 64-invocation workgroup (the chain kernels of phast_down
// and phast_load, one workgroup per tree): every invocation gets it. Call in uniform control flow, and
// put a barrier between two calls (the next call overwrites the slots the last one read).
const CW: u32 = 64u;
var<workgroup> chain_values: array<u32, 64>;

fn chain_min(lid: u32, value: u32) -> u32 {
    chain_values[lid] = value;
    workgroupBarrier();
    for (var s = CW / 2u; s > 0u; s >>= 1u) {
        if lid < s {
            chain_values[lid] = min(chain_values[lid], chain_values[lid + s]);
        }
        workgroupBarrier();
    }
    return chain_values[0];
}
