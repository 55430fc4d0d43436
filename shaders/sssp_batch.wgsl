// Many shortest-path trees at once, one source per workgroup (spec batched-apsp.md §3.2): workgroup w
// owns row w of `dist`, `flags` and `lists` and runs a label-correcting search with a near–far window
// (sssp.md §5.5) entirely inside the workgroup, so no global synchronisation and no host round trip
// is needed per phase. Each iteration:
//   1. the smallest tentative distance of the listed (active) vertices, m, gives the window T = m + Δ;
//   2. listed vertices at or above T are carried to the next list (their flag stays set); the others
//      have their flag cleared and are marked for relaxation;
//   3. the marked vertices relax their arcs (atomicMin); a vertex whose distance drops is appended to
//      the next list unless its flag was already set.
// Invariant between iterations: a vertex's flag is set exactly when it is in the current list, so each
// list holds at most n distinct vertices and every lowered vertex is relaxed again later. The search
// ends when the list is empty, which also leaves every flag clear for the next batch (flags are zeroed
// only when allocated). A dispatch runs at most `budget` iterations per workgroup and keeps the state
// in `state`, so no dispatch runs long; the host repeats dispatches until every slot has finished.
//!include grid
//!include sssp_common
//!include batch_lists

override WG: u32 = 128;

struct Params {
    n: u32,
    // Slots (sources) in this batch.
    batch: u32,
    // Window width Δ (≥ 1).
    delta: u32,
    // Iterations per workgroup per dispatch.
    budget: u32,
}

// Per slot: dist[slot * n ..], flags[slot * n ..], list0[slot * n ..] and list1[slot * n ..]
// (batch_lists), state[slot * 4 ..] = [list length, parity, iterations so far, started].
@group(0) @binding(6) var<storage, read_write> state: array<u32>;
@group(0) @binding(7) var<storage, read> sources: array<u32>;
// control: [slots finished, iterations, overflow, unused]
@group(0) @binding(8) var<storage, read_write> control: array<atomic<u32>, 4>;
@group(0) @binding(9) var<uniform> params: Params;


var<workgroup> cur_len: u32;
var<workgroup> parity: u32;
var<workgroup> started: u32;

@compute @workgroup_size(WG)
fn search(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let slot = flat_workgroup(wid, nwg);
    if slot >= params.batch {
        return;
    }
    let n = params.n;
    let row = slot * n;
    let st = 4u * slot;
    if lid == 0u {
        cur_len = state[st];
        parity = state[st + 1u];
        started = state[st + 3u];
        atomicStore(&next_len, 0u);
        atomicStore(&window_min, INF);
    }
    if workgroupUniformLoad(&started) == 0u {
        // First dispatch of this slot: a fresh row (flags are already clear).
        for (var v = lid; v < n; v += WG) {
            atomicStore(&dist[row + v], INF);
        }
        storageBarrier();
        if lid == 0u {
            let s = sources[slot];
            atomicStore(&dist[row + s], 0u);
            atomicStore(&flags[row + s], 1u);
            list0[row] = s;
            cur_len = 1u;
            parity = 0u;
            state[st + 3u] = 1u;
        }
    } else if workgroupUniformLoad(&cur_len) == 0u {
        return; // finished in an earlier dispatch
    }
    var it = 0u;
    loop {
        let len = workgroupUniformLoad(&cur_len);
        if len == 0u || it >= params.budget {
            break;
        }
        let cur = parity;
        let nxt = 1u - parity;
        // 1. The window.
        window_step(row, len, cur, lid);
        workgroupBarrier();
        let threshold = sat_add(atomicLoad(&window_min), params.delta);
        // 2. Carry the far vertices; clear the flags of the near ones.
        carry_far(row, len, cur, nxt, threshold, lid);
        storageBarrier();
        workgroupBarrier();
        // 3. Relax the near vertices.
        for (var i = lid; i < len; i += WG) {
            let u = list_get(cur, row + i);
            if u == INF {
                continue;
            }
            let du = atomicLoad(&dist[row + u]);
            let end = offsets[u + 1u];
            for (var a = offsets[u]; a < end; a++) {
                let v = targets[a];
                let nd = sat_add(du, weights[a]);
                if nd < atomicMin(&dist[row + v], nd) {
                    if atomicExchange(&flags[row + v], 1u) == 0u {
                        let p = atomicAdd(&next_len, 1u);
                        list_set(nxt, row + p, v);
                    }
                }
            }
        }
        storageBarrier();
        workgroupBarrier();
        if lid == 0u {
            cur_len = atomicLoad(&next_len);
            parity = 1u - parity;
            atomicStore(&next_len, 0u);
            atomicStore(&window_min, INF);
        }
        it += 1u;
    }
    if lid == 0u {
        state[st] = cur_len;
        state[st + 1u] = parity;
        state[st + 2u] += it;
        atomicAdd(&control[1], it);
        if cur_len == 0u {
            atomicAdd(&control[0], 1u);
        }
    }
}
