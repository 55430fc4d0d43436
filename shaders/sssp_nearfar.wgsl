// Near–far SSSP (Davidson et al. 2014; spec sssp.md §5.5) with the whole loop on the GPU. Vertices
// whose new distance is below the threshold T go to the near queue (deduplicated by `pushed`, the
// smallest distance each vertex was queued with), the others to the far pile. When the near queue
// empties, T moves past the smallest far distance and the far pile is split. One iteration is four
// dispatches: relax (indirect, over near), decide (one invocation), split (indirect, over far),
// settle_split (one invocation); the decide steps write the next indirect arguments, so the host only
// reads the control words once per batch of iterations.
//!include grid
//!include sssp_common

override WG: u32 = 256;

// Control words.
const DONE: u32 = 0u;
const ITERATIONS: u32 = 1u;
const NEAR_IN_BASE: u32 = 2u;
const NEAR_IN_LEN: u32 = 3u;
const NEAR_OUT_LEN: u32 = 4u;
const FAR_BASE: u32 = 5u;
const FAR_LEN: u32 = 6u;
const FAR_NEXT_LEN: u32 = 7u;
const THRESHOLD: u32 = 8u;
const PREV_THRESHOLD: u32 = 9u;
const FAR_MIN: u32 = 10u;
const FAR_NEXT_MIN: u32 = 11u;
const OVERFLOW: u32 = 12u;
const SPLITTING: u32 = 13u;

struct Params {
    n: u32,
    source: u32,
    // Capacity of each near half and each far half (entries).
    near_cap: u32,
    far_cap: u32,
    delta: u32,
    max_per_dim: u32,
}

@group(0) @binding(3) var<storage, read_write> dist: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> pushed: array<atomic<u32>>;
// [near half 0 | near half 1 | far half 0 | far half 1]
@group(0) @binding(5) var<storage, read_write> queues: array<u32>;
@group(0) @binding(6) var<storage, read_write> control: array<atomic<u32>, 16>;
@group(0) @binding(7) var<uniform> params: Params;
// Indirect arguments: [relax x, y, z, split x, y, z].
@group(0) @binding(8) var<storage, read_write> args: array<u32, 6>;

fn far_region(base: u32) -> u32 {
    return 2u * params.near_cap + base;
}

fn push_near(v: u32) {
    let k = atomicAdd(&control[NEAR_OUT_LEN], 1u);
    if k < params.near_cap {
        queues[params.near_cap - atomicLoad(&control[NEAR_IN_BASE]) + k] = v;
    } else {
        atomicStore(&control[OVERFLOW], 1u);
    }
}

fn set_args(slot: u32, items: u32) {
    let groups = (items + WG - 1u) / WG;
    let x = min(groups, params.max_per_dim);
    let y = select(0u, (groups + params.max_per_dim - 1u) / params.max_per_dim, groups > 0u);
    args[3u * slot] = select(0u, x, groups > 0u);
    args[3u * slot + 1u] = max(y, 1u);
    args[3u * slot + 2u] = 1u;
}

@compute @workgroup_size(WG)
fn init(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let v = flat_index(wid, nwg, lid, WG);
    if v >= params.n {
        return;
    }
    let d = select(INF, 0u, v == params.source);
    atomicStore(&dist[v], d);
    atomicStore(&pushed[v], d);
}

@compute @workgroup_size(WG)
fn relax(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid, WG);
    if atomicLoad(&control[DONE]) != 0u || i >= atomicLoad(&control[NEAR_IN_LEN]) {
        return;
    }
    let u = queues[atomicLoad(&control[NEAR_IN_BASE]) + i];
    let du = atomicLoad(&dist[u]);
    let t = atomicLoad(&control[THRESHOLD]);
    let far_cur = far_region(atomicLoad(&control[FAR_BASE]));
    for (var a = offsets[u]; a < offsets[u + 1u]; a++) {
        let v = targets[a];
        let nd = sat_add(du, weights[a]);
        if nd >= atomicLoad(&dist[v]) {
            continue;
        }
        let old = atomicMin(&dist[v], nd);
        if nd >= old {
            continue;
        }
        if nd < t {
            if atomicMin(&pushed[v], nd) > nd {
                push_near(v);
            }
        } else {
            let k = atomicAdd(&control[FAR_LEN], 1u);
            if k < params.far_cap {
                queues[far_cur + k] = v;
                atomicMin(&control[FAR_MIN], nd);
            } else {
                atomicStore(&control[OVERFLOW], 1u);
            }
        }
    }
}

// After relax: continue with the near queue, or split the far pile, or stop.
@compute @workgroup_size(1)
fn decide() {
    if atomicLoad(&control[DONE]) != 0u {
        return;
    }
    atomicAdd(&control[ITERATIONS], 1u);
    if atomicLoad(&control[OVERFLOW]) != 0u {
        atomicStore(&control[DONE], 1u);
        return;
    }
    let near = min(atomicLoad(&control[NEAR_OUT_LEN]), params.near_cap);
    atomicStore(&control[SPLITTING], 0u);
    if near > 0u {
        atomicStore(&control[NEAR_IN_BASE], params.near_cap - atomicLoad(&control[NEAR_IN_BASE]));
        atomicStore(&control[NEAR_IN_LEN], near);
        atomicStore(&control[NEAR_OUT_LEN], 0u);
        set_args(0u, near);
        set_args(1u, 0u);
        return;
    }
    let far = min(atomicLoad(&control[FAR_LEN]), params.far_cap);
    atomicStore(&control[NEAR_IN_LEN], 0u);
    set_args(0u, 0u);
    if far == 0u {
        atomicStore(&control[DONE], 1u);
        set_args(1u, 0u);
        return;
    }
    // Move T past the smallest far distance (skipping empty Δ-buckets).
    let t = atomicLoad(&control[THRESHOLD]);
    let fmin = atomicLoad(&control[FAR_MIN]);
    var next = select(t + params.delta, OVF, t >= OVF - params.delta);
    if fmin < OVF - params.delta {
        next = max(next, (fmin / params.delta + 1u) * params.delta);
    }
    atomicStore(&control[PREV_THRESHOLD], t);
    atomicStore(&control[THRESHOLD], next);
    atomicStore(&control[SPLITTING], 1u);
    set_args(1u, far);
}

@compute @workgroup_size(WG)
fn split(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid, WG);
    if atomicLoad(&control[DONE]) != 0u || atomicLoad(&control[SPLITTING]) == 0u
        || i >= min(atomicLoad(&control[FAR_LEN]), params.far_cap) {
        return;
    }
    let base = atomicLoad(&control[FAR_BASE]);
    let v = queues[far_region(base) + i];
    let d = atomicLoad(&dist[v]);
    if d < atomicLoad(&control[PREV_THRESHOLD]) {
        return; // already expanded at this distance
    }
    if d < atomicLoad(&control[THRESHOLD]) {
        if atomicMin(&pushed[v], d) > d {
            push_near(v);
        }
    } else {
        let k = atomicAdd(&control[FAR_NEXT_LEN], 1u);
        if k < params.far_cap {
            queues[far_region(params.far_cap - base) + k] = v;
            atomicMin(&control[FAR_NEXT_MIN], d);
        } else {
            atomicStore(&control[OVERFLOW], 1u);
        }
    }
}

// After a split: the kept far entries become the far pile, the moved ones the near queue.
@compute @workgroup_size(1)
fn settle_split() {
    if atomicLoad(&control[DONE]) != 0u || atomicLoad(&control[SPLITTING]) == 0u {
        return;
    }
    atomicStore(&control[SPLITTING], 0u);
    atomicStore(&control[FAR_BASE], params.far_cap - atomicLoad(&control[FAR_BASE]));
    atomicStore(&control[FAR_LEN], atomicLoad(&control[FAR_NEXT_LEN]));
    atomicStore(&control[FAR_NEXT_LEN], 0u);
    atomicStore(&control[FAR_MIN], atomicLoad(&control[FAR_NEXT_MIN]));
    atomicStore(&control[FAR_NEXT_MIN], INF);
    let near = min(atomicLoad(&control[NEAR_OUT_LEN]), params.near_cap);
    atomicStore(&control[NEAR_IN_BASE], params.near_cap - atomicLoad(&control[NEAR_IN_BASE]));
    atomicStore(&control[NEAR_IN_LEN], near);
    atomicStore(&control[NEAR_OUT_LEN], 0u);
    set_args(0u, near);
    set_args(1u, 0u);
}
