// K shortest loopless paths for many (s, t) queries at once: the MPS ranking (spec ksp.md §3), one
// workgroup per query ("slot"), its whole state in global memory so that a dispatch runs at most
// `budget` pops per slot and the next dispatch goes on where it stopped.
//
// Per slot, with π = distances to the slot's target (a row of the batched reverse search):
//   succ   the tree arc of every vertex and its head: the out-arc of least (w + π(head), arc id),
//          kernel `tree` (pairs, so that the tail walk waits for one load per step);
//   pool   candidates [cost, parent pop, deviation index, deviation arc], one unordered sub-pool per
//          lane: a lane appends the children it generates to its own sub-pool and keeps its least
//          (cost, index) in workgroup memory, so a pop reduces WG lane minima and rescans one
//          sub-pool (cooperatively) instead of scanning the whole pool;
//   popped one record per pop [arena start, arcs, deviation index, deviation arc, cost, loopless];
//   arena  the arcs of every popped candidate, back to back (children copy their prefix from it);
//   marks  per vertex [pop stamp, first position on the popped path] for the loop tests.
// A pop takes the pool's least (cost, index) — any order among equal costs gives the same set of
// paths, and the host sorts each query's paths by (cost, arc sequence) — and the slot stops when the
// pool is empty or, once K paths are out, when the least cost exceeds the K-th path's: every path of
// that cost is then out too (the host keeps the first K in canonical order). Looped candidates are
// expanded but not output (the seed's rule of dropping them loses paths). Capacity or u32 overflows
// end the slot with an error code; the host answers that query on the CPU.
//
// Graphs with zero-weight arcs never come here (the tree rule could circle through them).
//!include grid
//!include sssp_common

override WG: u32 = 128;

const NONE: u32 = 0xffffffffu;

// Slot status (state word 6).
const FRESH: u32 = 0u;
const RUNNING: u32 = 1u;
const DONE: u32 = 2u;
const ERR_POOL: u32 = 3u;
const ERR_POPS: u32 = 4u;
const ERR_ARENA: u32 = 5u;
const ERR_COST: u32 = 6u;
const ERR_TIES: u32 = 7u;
const ERR_GATHER: u32 = 8u;

// state row: [s, t, unused, pops, arena used, paths out, status, cost of the K-th path,
//             gather offset, gathered words, then WG sub-pool sizes, then out_cap pop ids of the
//             loopless pops, then their lengths in arcs (written when gathering)]
const STATE_HEAD: u32 = 10u;
override OUT_AT: u32 = STATE_HEAD + WG;
const CAND: u32 = 4u;
const REC: u32 = 6u;

struct Params {
    n: u32,
    batch: u32,
    k: u32,
    budget: u32,
    pool_cap: u32,
    pop_cap: u32,
    arena_cap: u32,
    out_cap: u32,
    gather_cap: u32,
    state_words: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(3) var<storage, read> pi: array<u32>;
@group(0) @binding(4) var<storage, read_write> succ: array<vec2<u32>>;
@group(0) @binding(5) var<storage, read_write> marks: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> pool: array<u32>;
@group(0) @binding(7) var<storage, read_write> popped: array<u32>;
@group(0) @binding(8) var<storage, read_write> arena: array<u32>;
@group(0) @binding(9) var<storage, read_write> state: array<u32>;
// control: [slots finished, gathered words (all slots), unused, unused]
@group(0) @binding(10) var<storage, read_write> control: array<atomic<u32>, 4>;
@group(0) @binding(11) var<uniform> params: Params;
@group(0) @binding(12) var<storage, read_write> gathered: array<u32>;


// One invocation per (slot, vertex): the tree arc, the least (w + π(head), arc id) among arcs whose
// head reaches the target (that least sum is π(v): the arc is tight).
@compute @workgroup_size(WG)
fn tree(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let idx = flat_index(wid, nwg, lid, WG);
    if idx >= params.batch * params.n {
        return;
    }
    let slot = idx / params.n;
    let v = idx - slot * params.n;
    let base = slot * params.n;
    let t = state[slot * params.state_words + 1u];
    var best = NONE;
    var best_key = INF;
    if v != t && pi[base + v] != INF {
        for (var a = offsets[v]; a < offsets[v + 1u]; a++) {
            let ph = pi[base + targets[a]];
            if ph == INF {
                continue;
            }
            let key = sat_add(weights[a], ph);
            if key < best_key || best == NONE {
                best_key = key;
                best = a;
            }
        }
    }
    var head = NONE;
    if best != NONE {
        head = targets[best];
    }
    succ[base + v] = vec2<u32>(best, head);
}

var<workgroup> sh_cost: array<u32, WG>;
var<workgroup> sh_idx: array<u32, WG>;
// Each lane's least (cost, pool index) of its own sub-pool (NONE when empty).
var<workgroup> lane_cost: array<u32, WG>;
var<workgroup> lane_idx: array<u32, WG>;
// Phase decisions of lane 0, read by all: 0 go on, 1 stop, 2 gather and stop.
var<workgroup> sh_stop: u32;
var<workgroup> sh_err: atomic<u32>;
// The pop in hand: [pop id, arena start, arcs, deviation index, deviation arc, cost, parent start,
// lane owning its sub-pool].
var<workgroup> sh_pop: array<u32, 8>;

// Vertex `i` of the path whose arcs start at arena[at]: the source, then the arcs' heads.
fn vertex_at(at: u32, i: u32, s: u32) -> u32 {
    if i == 0u {
        return s;
    }
    return targets[arena[at + i - 1u]];
}

// (key, arc) pairs compare as one key.
fn before(k1: u32, a1: u32, k2: u32, a2: u32) -> bool {
    return k1 < k2 || (k1 == k2 && a1 < a2);
}

// Least (cost, pool index) among entries first, first + stride, … below `size` of the sub-pool starting
// at pool index `at`; (INF, NONE) when there are none.
fn least_in(pb: u32, at: u32, first: u32, stride: u32, size: u32) -> vec2<u32> {
    var best = vec2<u32>(INF, NONE);
    for (var j = first; j < size; j += stride) {
        let idx = at + j;
        let c = pool[pb + idx * CAND];
        if before(c, idx, best.x, best.y) {
            best = vec2<u32>(c, idx);
        }
    }
    return best;
}

// sh_cost/sh_idx reduced to their least (cost, index) in entry 0 (all lanes call it).
fn reduce_min(lid: u32) {
    workgroupBarrier();
    for (var half = WG / 2u; half > 0u; half >>= 1u) {
        if lid < half && before(sh_cost[lid + half], sh_idx[lid + half], sh_cost[lid], sh_idx[lid]) {
            sh_cost[lid] = sh_cost[lid + half];
            sh_idx[lid] = sh_idx[lid + half];
        }
        workgroupBarrier();
    }
}

@compute @workgroup_size(WG)
fn rank(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let slot = flat_workgroup(wid, nwg);
    if slot >= params.batch {
        return;
    }
    let n = params.n;
    let st = slot * params.state_words;
    let s = state[st];
    let t = state[st + 1u];
    let base = slot * n;
    let pb = slot * params.pool_cap * CAND;
    let sub = params.pool_cap / WG;
    let rb = slot * params.pop_cap * REC;
    let ab = slot * params.arena_cap;
    let mb = slot * 2u * n;

    // 1. Start, or stop if finished.
    if lid == 0u {
        var stop = 0u;
        let status = state[st + 6u];
        if status >= DONE {
            stop = 1u;
        } else if status == FRESH {
            state[st + 6u] = RUNNING;
            let first = succ[base + s].x;
            if s == t || first == NONE {
                state[st + 6u] = DONE;
                atomicAdd(&control[0], 1u);
                stop = 1u;
            } else {
                pool[pb] = pi[base + s];
                pool[pb + 1u] = NONE;
                pool[pb + 2u] = 0u;
                pool[pb + 3u] = first;
                state[st + STATE_HEAD] = 1u;
            }
        }
        sh_stop = stop;
    }
    if workgroupUniformLoad(&sh_stop) != 0u {
        return;
    }
    storageBarrier();
    // Each lane's least candidate of its own sub-pool.
    let own = least_in(pb, lid * sub, 0u, 1u, state[st + STATE_HEAD + lid]);
    lane_cost[lid] = own.x;
    lane_idx[lid] = own.y;

    for (var it = 0u; it < params.budget; it++) {
        // 2. The pool's least (cost, index): the least of the lanes' minima.
        sh_cost[lid] = lane_cost[lid];
        sh_idx[lid] = lane_idx[lid];
        reduce_min(lid);
        // 3. Lane 0 takes it out of its sub-pool and places its deviation arc.
        if lid == 0u {
            let best = sh_idx[0];
            let cost = sh_cost[0];
            var stop = 0u;
            if best == NONE || (state[st + 5u] >= params.k && cost > state[st + 7u]) {
                stop = 2u;
            } else {
                let c = pb + best * CAND;
                let parent = pool[c + 1u];
                let dev = pool[c + 2u];
                let arc = pool[c + 3u];
                let owner = best / sub;
                let size = state[st + STATE_HEAD + owner] - 1u;
                let last = pb + (owner * sub + size) * CAND;
                for (var w = 0u; w < CAND; w++) {
                    pool[c + w] = pool[last + w];
                }
                state[st + STATE_HEAD + owner] = size;
                let p = state[st + 3u];
                let start = state[st + 4u];
                if p >= params.pop_cap {
                    state[st + 6u] = ERR_POPS;
                    stop = 1u;
                } else if start + dev + 1u > params.arena_cap {
                    state[st + 6u] = ERR_ARENA;
                    stop = 1u;
                } else {
                    arena[ab + start + dev] = arc;
                    var parent_start = 0u;
                    if parent != NONE {
                        parent_start = popped[rb + parent * REC];
                    }
                    state[st + 3u] = p + 1u;
                    sh_pop = array<u32, 8>(p, start, 0u, dev, arc, cost, parent_start, owner);
                }
                if stop == 1u {
                    atomicAdd(&control[0], 1u);
                }
            }
            atomicStore(&sh_err, 0u);
            sh_stop = stop;
        }
        let decision = workgroupUniformLoad(&sh_stop);
        if decision == 2u {
            gather(lid, st, rb, ab);
            return;
        }
        if decision != 0u {
            return;
        }
        storageBarrier();
        let p = sh_pop[0];
        let start = ab + sh_pop[1];
        let dev = sh_pop[3];
        let cost = sh_pop[5];
        let parent_start = ab + sh_pop[6];
        let owner = sh_pop[7];
        // The owner's sub-pool lost its least candidate: all lanes rescan it.
        let part = least_in(pb, owner * sub, lid, WG, state[st + STATE_HEAD + owner]);
        sh_cost[lid] = part.x;
        sh_idx[lid] = part.y;
        reduce_min(lid);
        if lid == owner {
            lane_cost[lid] = sh_cost[0];
            lane_idx[lid] = sh_idx[0];
        }
        // 4. The prefix comes from the parent, and its vertices (distinct: the parent's path had no
        //    repeat before its position `dev`) get their positions (stamp = pop + 1).
        for (var j = lid; j < dev; j += WG) {
            arena[start + j] = arena[parent_start + j];
        }
        storageBarrier();
        let stamp = p + 1u;
        for (var i = lid; i <= dev; i += WG) {
            let v = vertex_at(start, i, s);
            atomicStore(&marks[mb + 2u * v], stamp);
            atomicStore(&marks[mb + 2u * v + 1u], i);
        }
        storageBarrier();
        // 5. Lane 0 walks the tree from the deviation arc's head until t or the first vertex already
        //    on the path: nothing beyond a repeat is ever read (children deviate before it, and a
        //    looped candidate is not output), so most looped pops stop after a few steps.
        if lid == 0u {
            var x = targets[sh_pop[4]];
            var len = dev + 1u;
            var looped = false;
            var stop = 0u;
            loop {
                if atomicLoad(&marks[mb + 2u * x]) == stamp {
                    looped = true;
                    break;
                }
                atomicStore(&marks[mb + 2u * x], stamp);
                atomicStore(&marks[mb + 2u * x + 1u], len);
                if x == t {
                    break;
                }
                if start - ab + len >= params.arena_cap {
                    state[st + 6u] = ERR_ARENA;
                    atomicAdd(&control[0], 1u);
                    stop = 1u;
                    break;
                }
                let step = succ[base + x];
                arena[start + len] = step.x;
                len += 1u;
                x = step.y;
            }
            let r = rb + p * REC;
            popped[r] = start - ab;
            popped[r + 1u] = len;
            popped[r + 2u] = dev;
            popped[r + 3u] = sh_pop[4];
            popped[r + 4u] = cost;
            popped[r + 5u] = select(1u, 0u, looped);
            state[st + 4u] = start - ab + len;
            sh_pop[2] = len;
            if !looped && stop == 0u {
                let out = state[st + 5u];
                if out >= params.out_cap {
                    atomicMax(&sh_err, ERR_TIES);
                } else {
                    state[st + OUT_AT + out] = p;
                    state[st + 5u] = out + 1u;
                    if out + 1u == params.k {
                        state[st + 7u] = cost;
                    }
                }
            }
            sh_stop = stop;
        }
        if workgroupUniformLoad(&sh_stop) != 0u {
            return;
        }
        storageBarrier();
        let len = sh_pop[2];
        // 6. Children: at each position from the deviation on (before any repeat, never at t), the
        //    next arc after the path's own in (w + π(head), arc id) order whose head is not on the
        //    path up to there. Each lane appends to its own sub-pool.
        //    Positions go round the lanes starting at lane `p mod WG`, so that the deviation position
        //    (the one every pop has) does not always fill lane 0's sub-pool.
        let limit = len;
        let rot = (lid + WG - p % WG) % WG;
        for (var i = dev + rot; i < limit; i += WG) {
            let v = vertex_at(start, i, s);
            if v == t {
                continue;
            }
            let cur = arena[start + i];
            let cur_key = sat_add(weights[cur], pi[base + targets[cur]]);
            var best = NONE;
            var best_key = INF;
            for (var a = offsets[v]; a < offsets[v + 1u]; a++) {
                let h = targets[a];
                let ph = pi[base + h];
                if ph == INF {
                    continue;
                }
                if atomicLoad(&marks[mb + 2u * h]) == stamp && atomicLoad(&marks[mb + 2u * h + 1u]) <= i {
                    continue;
                }
                let key = sat_add(weights[a], ph);
                if before(cur_key, cur, key, a) && (best == NONE || before(key, a, best_key, best)) {
                    best = a;
                    best_key = key;
                }
            }
            if best == NONE {
                continue;
            }
            // Cost of the prefix up to v: the path's cost less what follows v (the tree beyond the
            // deviation, the deviation arc and its tree at it).
            var prefix = cost - pi[base + v];
            if i == dev {
                prefix = cost - cur_key;
            }
            let child = prefix + best_key;
            // Sums at or past OVF (sat_add of sssp_common saturates there) do not fit a u32 cost.
            if best_key >= OVF || child < prefix || child >= OVF {
                atomicMax(&sh_err, ERR_COST);
                continue;
            }
            let size = state[st + STATE_HEAD + lid];
            if size >= sub {
                atomicMax(&sh_err, ERR_POOL);
                continue;
            }
            let idx = lid * sub + size;
            let c = pb + idx * CAND;
            pool[c] = child;
            pool[c + 1u] = p;
            pool[c + 2u] = i;
            pool[c + 3u] = best;
            state[st + STATE_HEAD + lid] = size + 1u;
            if before(child, idx, lane_cost[lid], lane_idx[lid]) {
                lane_cost[lid] = child;
                lane_idx[lid] = idx;
            }
        }
        storageBarrier();
        workgroupBarrier();
        if lid == 0u {
            let err = atomicLoad(&sh_err);
            if err != 0u {
                state[st + 6u] = err;
                atomicAdd(&control[0], 1u);
                sh_stop = 1u;
            } else {
                sh_stop = 0u;
            }
        }
        if workgroupUniformLoad(&sh_stop) != 0u {
            return;
        }
    }
}

// The slot is done: its loopless paths' arcs go to one compact region of `gathered` (reserved with
// one atomic), so the host reads only them.
fn gather(lid: u32, st: u32, rb: u32, ab: u32) {
    if lid == 0u {
        let outs = state[st + 5u];
        var words = 0u;
        for (var j = 0u; j < outs; j++) {
            words += popped[rb + state[st + OUT_AT + j] * REC + 1u];
        }
        for (var j = 0u; j < outs; j++) {
            state[st + OUT_AT + params.out_cap + j] = popped[rb + state[st + OUT_AT + j] * REC + 1u];
        }
        let at = atomicAdd(&control[1], words);
        state[st + 8u] = at;
        state[st + 9u] = words;
        if at + words > params.gather_cap || at + words < at {
            state[st + 6u] = ERR_GATHER;
        } else {
            state[st + 6u] = DONE;
        }
        atomicAdd(&control[0], 1u);
        sh_stop = state[st + 6u];
    }
    if workgroupUniformLoad(&sh_stop) != DONE {
        return;
    }
    var at = state[st + 8u];
    let outs = state[st + 5u];
    for (var j = 0u; j < outs; j++) {
        let r = rb + state[st + OUT_AT + j] * REC;
        let src = ab + popped[r];
        let len = popped[r + 1u];
        for (var w = lid; w < len; w += WG) {
            gathered[at + w] = arena[src + w];
        }
        at += len;
    }
}
