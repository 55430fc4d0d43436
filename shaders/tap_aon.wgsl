// All-or-nothing loading on the GPU (spec tap.md §4.1, §4.6), after a batched shortest-path run left
// one distance row per origin of the batch in `dist`. Costs are fixed-point u32, every arc at least 1,
// so tight arcs strictly increase distance and the canonical predecessor (smallest tight arc id) forms a
// tree. Loads are 64-bit fixed-point integers kept as (lo, hi) word pairs: integer adds commute, so the
// result does not depend on scheduling and equals the CPU mirror (algos_tap::fixed) bit for bit.
//!include grid
//!include sssp_common

override WG: u32 = 256;

struct Params {
    // Vertices of the search graph (row length).
    n: u32,
    // Origins in this batch (rows).
    batch: u32,
    // OD pairs in this batch.
    pairs: u32,
}

// control: [unreachable pairs, saturated distances]
@group(0) @binding(3) var<storage, read> dist: array<u32>;
@group(0) @binding(4) var<storage, read_write> pred: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read> tails: array<u32>;
// (row, destination, amount lo, amount hi) per OD pair.
@group(0) @binding(6) var<storage, read> od: array<vec4<u32>>;
@group(0) @binding(7) var<uniform> params: Params;
@group(0) @binding(8) var<storage, read> sources: array<u32>;
@group(0) @binding(9) var<storage, read_write> loads: array<atomic<u32>>;
@group(0) @binding(10) var<storage, read_write> control: array<atomic<u32>, 4>;

@compute @workgroup_size(WG)
fn pred_reset(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid, WG);
    if i < params.n * params.batch {
        atomicStore(&pred[i], INF);
    }
}

// One invocation per (origin, tail vertex): offer each tight out-arc to its head's predecessor.
@compute @workgroup_size(WG)
fn pred_tight(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid, WG);
    if i >= params.n * params.batch {
        return;
    }
    let row = (i / params.n) * params.n;
    let u = i - row;
    let du = dist[i];
    if du == INF {
        return;
    }
    let source = sources[i / params.n];
    for (var a = offsets[u]; a < offsets[u + 1u]; a++) {
        let v = targets[a];
        if v != source && sat_add(du, weights[a]) == dist[row + v] {
            atomicMin(&pred[row + v], a);
        }
    }
}

fn add_load(a: u32, lo: u32, hi: u32) {
    let old = atomicAdd(&loads[2u * a], lo);
    // The low word wrapped exactly when old + lo exceeds u32::MAX.
    let carry = select(0u, 1u, old > 0xFFFFFFFFu - lo);
    if hi + carry != 0u {
        atomicAdd(&loads[2u * a + 1u], hi + carry);
    }
}

// One invocation per OD pair: walk the tree from the destination to the origin, loading every arc.
@compute @workgroup_size(WG)
fn load(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let p = flat_index(wid, nwg, lid, WG);
    if p >= params.pairs {
        return;
    }
    let pair = od[p];
    let row = pair.x * params.n;
    let d = dist[row + pair.y];
    if d == INF {
        atomicAdd(&control[0], 1u);
        return;
    }
    if d == OVF {
        atomicAdd(&control[1], 1u);
        return;
    }
    var v = pair.y;
    // A tree path has fewer than n arcs; the bound only guards against a corrupted tree.
    for (var steps = 0u; steps < params.n; steps++) {
        let a = atomicLoad(&pred[row + v]);
        if a == INF {
            break;
        }
        add_load(a, pair.z, pair.w);
        v = tails[a];
    }
}
