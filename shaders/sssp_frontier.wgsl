// Label-setting frontier SSSP after Martín et al. and Crauser et al. (seed 003 ch. 3, spec sssp.md
// §5.2). Each phase: relax (frontier vertices lower their unsettled heads), minimum (D_min = min dist
// and Δ_out = min dist + ω over reached unsettled vertices, one atomicMin word each), advance (one
// invocation: stop when D_min = INF, publish the keys, reset the accumulators), update (settle every
// vertex the rule proves final; they form the next frontier).
// RULE 0 = Martín (dist == D_min), 1 = Crauser OUT (dist <= Δ_out), 2 = OUT or IN (dist - in(v) <= D_min).
//!include grid
//!include sssp_common

override WG: u32 = 256;
override RULE: u32 = 1;

const UNSETTLED: u32 = 1u;
const FRONTIER: u32 = 2u;

struct Params {
    n: u32,
    source: u32,
}

struct Control {
    done: atomic<u32>,
    phases: atomic<u32>,
    acc_min: atomic<u32>,
    acc_out: atomic<u32>,
    cur_min: atomic<u32>,
    cur_out: atomic<u32>,
}

@group(0) @binding(3) var<storage, read_write> dist: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> state: array<u32>;
// (min out-arc weight ω, min in-arc weight) per vertex, INF when there is none.
@group(0) @binding(5) var<storage, read> min_weights: array<vec2<u32>>;
@group(0) @binding(6) var<storage, read_write> control: Control;
@group(0) @binding(7) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn init(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let v = flat_index(wid, nwg, lid, WG);
    if v >= params.n {
        return;
    }
    let is_source = v == params.source;
    atomicStore(&dist[v], select(INF, 0u, is_source));
    state[v] = select(UNSETTLED, FRONTIER, is_source);
}

@compute @workgroup_size(WG)
fn relax(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let u = flat_index(wid, nwg, lid, WG);
    if u >= params.n || atomicLoad(&control.done) != 0u || (state[u] & FRONTIER) == 0u {
        return;
    }
    let du = atomicLoad(&dist[u]);
    for (var a = offsets[u]; a < offsets[u + 1u]; a++) {
        let v = targets[a];
        if (state[v] & UNSETTLED) != 0u {
            atomicMin(&dist[v], sat_add(du, weights[a]));
        }
    }
}

@compute @workgroup_size(WG)
fn minimum(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let u = flat_index(wid, nwg, lid, WG);
    if u >= params.n || atomicLoad(&control.done) != 0u || (state[u] & UNSETTLED) == 0u {
        return;
    }
    let d = atomicLoad(&dist[u]);
    if d == INF {
        return;
    }
    atomicMin(&control.acc_min, d);
    if RULE != 0u {
        atomicMin(&control.acc_out, sat_add(d, min_weights[u].x));
    }
}

@compute @workgroup_size(1)
fn advance() {
    if atomicLoad(&control.done) != 0u {
        return;
    }
    let m = atomicLoad(&control.acc_min);
    if m == INF {
        atomicStore(&control.done, 1u);
        return;
    }
    atomicAdd(&control.phases, 1u);
    atomicStore(&control.cur_min, m);
    atomicStore(&control.cur_out, atomicLoad(&control.acc_out));
    atomicStore(&control.acc_min, INF);
    atomicStore(&control.acc_out, INF);
}

@compute @workgroup_size(WG)
fn update(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let v = flat_index(wid, nwg, lid, WG);
    if v >= params.n || atomicLoad(&control.done) != 0u {
        return;
    }
    let s = state[v] & UNSETTLED;
    let d = atomicLoad(&dist[v]);
    var settle = false;
    if s != 0u && d < INF {
        let dmin = atomicLoad(&control.cur_min);
        if RULE == 0u {
            settle = d == dmin;
        } else {
            settle = d <= atomicLoad(&control.cur_out);
            if RULE == 2u {
                let inw = min_weights[v].y;
                settle = settle || select(0u, d - inw, d >= inw) <= dmin;
            }
        }
    }
    state[v] = select(s, FRONTIER, settle);
}
