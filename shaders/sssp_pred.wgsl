// Canonical predecessor arcs for graphs without zero-weight arcs (spec sssp.md §3.4): every vertex
// takes the smallest-id tight arc entering it. Same rule as algos_sssp::pred on the CPU.
//!include grid
//!include sssp_common

override WG: u32 = 256;

struct Params {
    n: u32,
    source: u32,
}

@group(0) @binding(3) var<storage, read> dist: array<u32>;
@group(0) @binding(4) var<storage, read_write> pred: array<atomic<u32>>;
@group(0) @binding(7) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn reset(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let v = flat_index(wid, nwg, lid, WG);
    if v < params.n {
        atomicStore(&pred[v], INF);
    }
}

@compute @workgroup_size(WG)
fn tight_arcs(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let u = flat_index(wid, nwg, lid, WG);
    if u >= params.n || dist[u] == INF {
        return;
    }
    let du = dist[u];
    for (var a = offsets[u]; a < offsets[u + 1u]; a++) {
        let v = targets[a];
        if v != params.source && v != u && sat_add(du, weights[a]) == dist[v] {
            atomicMin(&pred[v], a);
        }
    }
}
