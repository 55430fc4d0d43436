// The per-slot state of the one-search-per-workgroup near–far batch kernels (sssp_batch, td_batch):
// row `row` of the labels `dist`, the "listed" flags and two work lists (the current list is
// list<parity>; two bindings rather than one of 2n per slot, so that twice as many slots fit the
// storage-binding limit), and the two steps every iteration shares. The including kernel declares
// `override WG` and includes sssp_common (INF). Invariant: a node's flag is set exactly when it is in
// the current list.
@group(0) @binding(3) var<storage, read_write> dist: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> flags: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> list0: array<u32>;
@group(0) @binding(10) var<storage, read_write> list1: array<u32>;

var<workgroup> next_len: atomic<u32>;
var<workgroup> window_min: atomic<u32>;

// Entry i of list `which` (parity is uniform per workgroup, so the branch does not diverge).
fn list_get(which: u32, i: u32) -> u32 {
    if which == 0u {
        return list0[i];
    }
    return list1[i];
}

fn list_set(which: u32, i: u32, v: u32) {
    if which == 0u {
        list0[i] = v;
    } else {
        list1[i] = v;
    }
}

// Folds this invocation's share of the smallest label of list `cur` into `window_min` (read it after
// a workgroupBarrier).
fn window_step(row: u32, len: u32, cur: u32, lid: u32) {
    var local_min = INF;
    for (var i = lid; i < len; i += WG) {
        local_min = min(local_min, atomicLoad(&dist[row + list_get(cur, row + i)]));
    }
    atomicMin(&window_min, local_min);
}

// Moves the listed nodes at or above `threshold` to list `nxt` (their flag stays set; their entry in
// `cur` becomes INF) and clears the flags of the others, which the caller then relaxes.
fn carry_far(row: u32, len: u32, cur: u32, nxt: u32, threshold: u32, lid: u32) {
    for (var i = lid; i < len; i += WG) {
        let u = list_get(cur, row + i);
        if atomicLoad(&dist[row + u]) >= threshold {
            let p = atomicAdd(&next_len, 1u);
            list_set(nxt, row + p, u);
            list_set(cur, row + i, INF);
        } else {
            atomicStore(&flags[row + u], 0u);
        }
    }
}
