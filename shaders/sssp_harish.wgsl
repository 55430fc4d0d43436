// Harish & Narayanan's vertex-parallel SSSP as used by seed 002 (spec sssp.md §5.1), with the
// write-after-write race fixed by atomicMin. A phase is three dispatches: relax (flagged vertices push
// dist + w into upd), update (improved vertices take upd and are flagged), advance (one invocation:
// stop when a phase changed nothing). Many phases are recorded per submission; finished phases are
// no-ops, so the host reads the control words only once per batch (§3.5).
//!include grid
//!include sssp_common

override WG: u32 = 256;

struct Params {
    n: u32,
    source: u32,
}

struct Control {
    done: atomic<u32>,
    changed: atomic<u32>,
    phases: atomic<u32>,
}

@group(0) @binding(3) var<storage, read_write> dist: array<u32>;
@group(0) @binding(4) var<storage, read_write> upd: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> mask: array<u32>;
@group(0) @binding(6) var<storage, read_write> control: Control;
@group(0) @binding(7) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn init(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let v = flat_index(wid, nwg, lid, WG);
    if v >= params.n {
        return;
    }
    let d = select(INF, 0u, v == params.source);
    dist[v] = d;
    atomicStore(&upd[v], d);
    mask[v] = select(0u, 1u, v == params.source);
}

@compute @workgroup_size(WG)
fn relax(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let u = flat_index(wid, nwg, lid, WG);
    if u >= params.n || atomicLoad(&control.done) != 0u || mask[u] == 0u {
        return;
    }
    mask[u] = 0u;
    let du = dist[u];
    for (var a = offsets[u]; a < offsets[u + 1u]; a++) {
        atomicMin(&upd[targets[a]], sat_add(du, weights[a]));
    }
}

@compute @workgroup_size(WG)
fn update(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let v = flat_index(wid, nwg, lid, WG);
    if v >= params.n || atomicLoad(&control.done) != 0u {
        return;
    }
    let u = atomicLoad(&upd[v]);
    if u < dist[v] {
        dist[v] = u;
        mask[v] = 1u;
        atomicStore(&control.changed, 1u);
    }
}

@compute @workgroup_size(1)
fn advance() {
    if atomicLoad(&control.done) != 0u {
        return;
    }
    if atomicLoad(&control.changed) == 0u {
        atomicStore(&control.done, 1u);
    } else {
        atomicAdd(&control.phases, 1u);
        atomicStore(&control.changed, 0u);
    }
}
