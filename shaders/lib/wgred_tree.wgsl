// Workgroup reduction through workgroup memory: a tree with one barrier per level, correct for any
// workgroup size (the `live`/`hw` halving handles odd counts; no barrier-free "warp-synchronous" tail,
// which the WGSL memory model does not allow). The order of `combine` calls is fixed by WG alone.
var<workgroup> wg_scratch: array<T, WG>;

fn wg_reduce(x: T, lid: u32) -> T {
    wg_scratch[lid] = x;
    workgroupBarrier();
    var live = WG;
    loop {
        if live <= 1u {
            break;
        }
        let hw = (live + 1u) / 2u;
        if lid < live - hw {
            wg_scratch[lid] = combine(wg_scratch[lid], wg_scratch[lid + hw]);
        }
        workgroupBarrier();
        live = hw;
    }
    let r = wg_scratch[0];
    workgroupBarrier();
    return r;
}
