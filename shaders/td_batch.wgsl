// Time-dependent earliest arrival for a batch of queries × profiles, one query per workgroup (spec
// td-multimodal.md §3.2, batched as batched-apsp.md §3.1). Workgroup w owns row w of `dist` (arrival times), `flags`
// and the two lists: the product nodes (v, q) of its query, node = v * S + q, and runs a
// label-correcting search with a near–far time window inside the workgroup (as sssp_batch.wgsl), so
// no global synchronisation and no host round trip is needed per phase:
//   1. m = the smallest arrival time of the listed nodes; if m ≥ the best accepting arrival at the
//      target found so far, nothing listed can improve it (travel times are ≥ 0 and FIFO): done;
//   2. listed nodes at or above m + Δ are carried to the next list; the others are relaxed:
//   3. for each arc a = (v, z) and each q' ∈ δ(q, label(a)): atomicMin(arr[z, q'], τ + f_a(τ)), and
//      a node whose time drops is appended to the next list unless already listed.
// The fixpoint is the earliest arrival under FIFO, so results equal the CPU's TD-Dijkstra exactly
// (integer seconds; interpolation rounded up with the same 32-bit steps as PlfStore::eval).
// A dispatch runs at most `budget` iterations per workgroup and keeps the state in `slots`.
//!include grid
//!include sssp_common
//!include batch_lists

override WG: u32 = 128;

const PERIOD: u32 = 86400u;

struct Params {
    // Vertices.
    n: u32,
    // Automaton states per vertex in a row (the largest profile's).
    s: u32,
    // Queries in this batch.
    batch: u32,
    // Window width Δ in seconds (≥ 1).
    delta: u32,
    // Iterations per workgroup per dispatch.
    budget: u32,
    // Words per profile in `nfa`: 2 + s * 16.
    nfa_stride: u32,
}

// `weights` (sssp_common, binding 2) holds each arc's function id << 4 | label.
// fninfo[2f] = first breakpoint, fninfo[2f + 1] = end | kind << 31 (kind 1 = next departure).
@group(0) @binding(6) var<storage, read> fninfo: array<u32>;
// Breakpoint k: bp[2k] = time of day, bp[2k + 1] = value.
@group(0) @binding(7) var<storage, read> bp: array<u32>;
// Profile p at p * nfa_stride: [start bitset, accept bitset, δ(q, l) at 2 + q * 16 + l].
@group(0) @binding(8) var<storage, read> nfa: array<u32>;
// Arrival times `dist`, flags and lists: batch_lists (bindings 3, 4, 5, 10).
// Per slot, 12 words: [list length, parity, iterations, started, source, target, depart, profile,
// best arrival at the target, nodes relaxed, 0, 0].
@group(0) @binding(9) var<storage, read_write> slots: array<u32>;
// [slots finished, iterations]
@group(0) @binding(11) var<storage, read_write> control: array<atomic<u32>, 4>;
@group(0) @binding(12) var<uniform> params: Params;

var<workgroup> best: atomic<u32>;
var<workgroup> relaxed: atomic<u32>;
var<workgroup> cur_len: u32;
var<workgroup> parity: u32;
var<workgroup> started: u32;
var<workgroup> stop: u32;

// d · off / span rounded up or down, off < span, in 32 bits (PlfStore's mul_div).
fn mul_div(d: u32, off: u32, span: u32, up: bool) -> u32 {
    let q = d / span;
    let r = d % span;
    let p = r * off;
    var x = q * off + p / span;
    if up && p % span != 0u {
        x += 1u;
    }
    return x;
}

// Travel time of function f for a departure at absolute time t (PlfStore::eval).
fn eval(f: u32, t: u32) -> u32 {
    let start = fninfo[2u * f];
    let tail = fninfo[2u * f + 1u];
    let end = tail & 0x7FFFFFFFu;
    let tau = t % PERIOD;
    // lo = first breakpoint after τ.
    var lo = start;
    var hi = end;
    while lo < hi {
        let mid = (lo + hi) / 2u;
        if bp[2u * mid] <= tau {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    if (tail >> 31u) == 1u {
        var k = lo;
        if lo > start && bp[2u * (lo - 1u)] == tau {
            k = lo - 1u;
        }
        if k < end {
            return bp[2u * k] - tau + bp[2u * k + 1u];
        }
        return bp[2u * start] + PERIOD - tau + bp[2u * start + 1u];
    }
    if end - start == 1u {
        return bp[2u * start + 1u];
    }
    var i0 = lo - 1u;
    var t1 = 0u;
    var v1 = 0u;
    var off = 0u;
    if lo == start {
        // Before the first breakpoint: the wrap segment from yesterday's last one.
        i0 = end - 1u;
        off = tau + PERIOD - bp[2u * i0];
    } else {
        off = tau - bp[2u * i0];
    }
    if i0 + 1u < end {
        t1 = bp[2u * (i0 + 1u)];
        v1 = bp[2u * (i0 + 1u) + 1u];
    } else {
        t1 = bp[2u * start] + PERIOD;
        v1 = bp[2u * start + 1u];
    }
    let t0 = bp[2u * i0];
    let v0 = bp[2u * i0 + 1u];
    let span = t1 - t0;
    if v1 >= v0 {
        return v0 + mul_div(v1 - v0, off, span, true);
    }
    return v0 - mul_div(v0 - v1, off, span, false);
}

@compute @workgroup_size(WG)
fn search(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let slot = flat_workgroup(wid, nwg);
    if slot >= params.batch {
        return;
    }
    let s = params.s;
    let size = params.n * s;
    let row = slot * size;
    let st = 12u * slot;
    let target_v = slots[st + 5u];
    let prof = slots[st + 7u] * params.nfa_stride;
    let accept = nfa[prof + 1u];
    if lid == 0u {
        cur_len = slots[st];
        parity = slots[st + 1u];
        started = slots[st + 3u];
        atomicStore(&next_len, 0u);
        atomicStore(&window_min, INF);
        atomicStore(&best, slots[st + 8u]);
        atomicStore(&relaxed, 0u);
    }
    if workgroupUniformLoad(&started) == 0u {
        for (var i = lid; i < size; i += WG) {
            atomicStore(&dist[row + i], INF);
        }
        storageBarrier();
        workgroupBarrier();
        if lid == 0u {
            let src = slots[st + 4u];
            let depart = slots[st + 6u];
            var len = 0u;
            var starts = nfa[prof];
            loop {
                if starts == 0u {
                    break;
                }
                let q = firstTrailingBit(starts);
                starts &= starts - 1u;
                let node = src * s + q;
                atomicStore(&dist[row + node], depart);
                atomicStore(&flags[row + node], 1u);
                list0[row + len] = node;
                len += 1u;
                if src == target_v && ((accept >> q) & 1u) == 1u {
                    atomicMin(&best, depart);
                }
            }
            cur_len = len;
            parity = 0u;
            slots[st + 3u] = 1u;
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
        // 1. The window, and the early exit.
        window_step(row, len, cur, lid);
        workgroupBarrier();
        if lid == 0u {
            stop = select(0u, 1u, atomicLoad(&window_min) >= atomicLoad(&best));
        }
        let m = atomicLoad(&window_min);
        if workgroupUniformLoad(&stop) == 1u {
            // Nothing listed can improve the target: clear the flags (they must be clear for the
            // next batch) and stop.
            for (var i = lid; i < len; i += WG) {
                atomicStore(&flags[row + list_get(cur, row + i)], 0u);
            }
            workgroupBarrier();
            if lid == 0u {
                cur_len = 0u;
            }
            it += 1u;
            break;
        }
        let threshold = sat_add(m, params.delta);
        // 2. Carry the far nodes; clear the flags of the near ones.
        carry_far(row, len, cur, nxt, threshold, lid);
        storageBarrier();
        workgroupBarrier();
        // 3. Relax the near nodes.
        var count = 0u;
        for (var i = lid; i < len; i += WG) {
            let node = list_get(cur, row + i);
            if node == INF {
                continue;
            }
            count += 1u;
            let v = node / s;
            let q = node % s;
            let t = atomicLoad(&dist[row + node]);
            let end = offsets[v + 1u];
            for (var a = offsets[v]; a < end; a++) {
                let info = weights[a];
                var next = nfa[prof + 2u + q * 16u + (info & 15u)];
                if next == 0u {
                    continue;
                }
                let at = sat_add(t, eval(info >> 4u, t));
                let z = targets[a];
                loop {
                    if next == 0u {
                        break;
                    }
                    let q2 = firstTrailingBit(next);
                    next &= next - 1u;
                    let w = z * s + q2;
                    if at < atomicMin(&dist[row + w], at) {
                        if z == target_v && ((accept >> q2) & 1u) == 1u {
                            atomicMin(&best, at);
                        }
                        if atomicExchange(&flags[row + w], 1u) == 0u {
                            let p = atomicAdd(&next_len, 1u);
                            list_set(nxt, row + p, w);
                        }
                    }
                }
            }
        }
        atomicAdd(&relaxed, count);
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
    workgroupBarrier();
    if lid == 0u {
        slots[st] = cur_len;
        slots[st + 1u] = parity;
        slots[st + 2u] += it;
        slots[st + 8u] = atomicLoad(&best);
        slots[st + 9u] += atomicLoad(&relaxed);
        atomicAdd(&control[1], it);
        if cur_len == 0u {
            atomicAdd(&control[0], 1u);
        }
    }
}
