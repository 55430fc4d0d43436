// K shortest loopless paths for many (s, t) queries at once: the MPS ranking (spec ksp.md §3), one
// workgroup per query ("slot"), its whole state in global memory so that a dispatch runs at most
// `budget` pops per slot and the next dispatch goes on where it stopped.
//
// Per slot, with π = distances to the slot's target (a row of the batched reverse search):
//   succ   the tree arc of every vertex: the out-arc of least (w + π(head), arc id), kernel `tree`;
//   pool   candidates [cost, parent pop, deviation index, deviation arc], unordered;
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

override WG: u32 = 128;

const NONE: u32 = 0xffffffffu;
const INF: u32 = 0xffffffffu;

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

// state row: [s, t, pool size, pops, arena used, paths out, status, cost of the K-th path,
//             gather offset, gathered words, then out_cap pop ids of the loopless pops, then their
//             lengths in arcs (written when gathering)]
const STATE_HEAD: u32 = 10u;
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

@group(0) @binding(0) var<storage, read> offsets: array<u32>;
@group(0) @binding(1) var<storage, read> targets: array<u32>;
@group(0) @binding(2) var<storage, read> weights: array<u32>;
@group(0) @binding(3) var<storage, read> pi: array<u32>;
@group(0) @binding(4) var<storage, read_write> succ: array<u32>;
@group(0) @binding(5) var<storage, read_write> marks: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> pool: array<u32>;
@group(0) @binding(7) var<storage, read_write> popped: array<u32>;
@group(0) @binding(8) var<storage, read_write> arena: array<u32>;
@group(0) @binding(9) var<storage, read_write> state: array<u32>;
// control: [slots finished, gathered words (all slots), unused, unused]
@group(0) @binding(10) var<storage, read_write> control: array<atomic<u32>, 4>;
@group(0) @binding(11) var<uniform> params: Params;
@group(0) @binding(12) var<storage, read_write> gathered: array<u32>;

// w + π: saturates at INF (an arc whose sum does not fit cannot give a u32 cost).
fn sat_add(a: u32, b: u32) -> u32 {
    let s = a + b;
    return select(s, INF, s < a);
}

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
    succ[base + v] = best;
}

var<workgroup> sh_cost: array<u32, WG>;
var<workgroup> sh_idx: array<u32, WG>;
// Phase decisions of lane 0, read by all: 0 go on, 1 stop, 2 gather and stop.
var<workgroup> sh_stop: u32;
var<workgroup> sh_pool: atomic<u32>;
var<workgroup> sh_repeat: atomic<u32>;
var<workgroup> sh_err: atomic<u32>;
// The pop in hand: [pop id, arena start, arcs, deviation index, deviation arc, cost, parent start].
var<workgroup> sh_pop: array<u32, 7>;

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
    let rb = slot * params.pop_cap * REC;
    let ab = slot * params.arena_cap;
    let mb = slot * 2u * n;

    for (var it = 0u; it < params.budget; it++) {
        // 1. Start, or stop if finished.
        if lid == 0u {
            var stop = 0u;
            let status = state[st + 6u];
            if status >= DONE {
                stop = 1u;
            } else if status == FRESH {
                state[st + 6u] = RUNNING;
                let first = succ[base + s];
                if s == t || first == NONE {
                    state[st + 6u] = DONE;
                    atomicAdd(&control[0], 1u);
                    stop = 1u;
                } else {
                    pool[pb] = pi[base + s];
                    pool[pb + 1u] = NONE;
                    pool[pb + 2u] = 0u;
                    pool[pb + 3u] = first;
                    state[st + 2u] = 1u;
                }
            }
            sh_stop = stop;
            atomicStore(&sh_pool, state[st + 2u]);
            atomicStore(&sh_err, 0u);
        }
        if workgroupUniformLoad(&sh_stop) != 0u {
            return;
        }
        // 2. The pool's least (cost, index).
        let pool_size = atomicLoad(&sh_pool);
        var bc = INF;
        var bi = NONE;
        for (var j = lid; j < pool_size; j += WG) {
            let c = pool[pb + j * CAND];
            if before(c, j, bc, bi) {
                bc = c;
                bi = j;
            }
        }
        sh_cost[lid] = bc;
        sh_idx[lid] = bi;
        workgroupBarrier();
        for (var half = WG / 2u; half > 0u; half >>= 1u) {
            if lid < half && before(sh_cost[lid + half], sh_idx[lid + half], sh_cost[lid], sh_idx[lid]) {
                sh_cost[lid] = sh_cost[lid + half];
                sh_idx[lid] = sh_idx[lid + half];
            }
            workgroupBarrier();
        }
        // 3. Lane 0 takes it out of the pool and walks its tree tail into the arena.
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
                let last = pb + (pool_size - 1u) * CAND;
                for (var w = 0u; w < CAND; w++) {
                    pool[c + w] = pool[last + w];
                }
                atomicStore(&sh_pool, pool_size - 1u);
                state[st + 2u] = pool_size - 1u;
                let p = state[st + 3u];
                let start = state[st + 4u];
                var len = dev + 1u;
                if p >= params.pop_cap {
                    state[st + 6u] = ERR_POPS;
                    stop = 1u;
                } else if start + len > params.arena_cap {
                    state[st + 6u] = ERR_ARENA;
                    stop = 1u;
                } else {
                    arena[ab + start + dev] = arc;
                    var x = targets[arc];
                    while x != t {
                        if start + len >= params.arena_cap {
                            state[st + 6u] = ERR_ARENA;
                            stop = 1u;
                            break;
                        }
                        let a = succ[base + x];
                        arena[ab + start + len] = a;
                        len += 1u;
                        x = targets[a];
                    }
                    var parent_start = 0u;
                    if parent != NONE {
                        parent_start = popped[rb + parent * REC];
                    }
                    let r = rb + p * REC;
                    popped[r] = start;
                    popped[r + 1u] = len;
                    popped[r + 2u] = dev;
                    popped[r + 3u] = arc;
                    popped[r + 4u] = cost;
                    popped[r + 5u] = 0u;
                    state[st + 3u] = p + 1u;
                    state[st + 4u] = start + len;
                    sh_pop = array<u32, 7>(p, start, len, dev, arc, cost, parent_start);
                }
                if stop == 1u {
                    atomicAdd(&control[0], 1u);
                }
            }
            atomicStore(&sh_repeat, NONE);
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
        let p = sh_pop[0];
        let start = ab + sh_pop[1];
        let len = sh_pop[2];
        let dev = sh_pop[3];
        let cost = sh_pop[5];
        let parent_start = ab + sh_pop[6];
        // 4. The prefix comes from the parent.
        for (var j = lid; j < dev; j += WG) {
            arena[start + j] = arena[parent_start + j];
        }
        storageBarrier();
        // 5. Loop test: each vertex's first position on the path (stamp = pop + 1).
        let stamp = p + 1u;
        for (var i = lid; i <= len; i += WG) {
            let v = vertex_at(start, i, s);
            atomicStore(&marks[mb + 2u * v], stamp);
            atomicStore(&marks[mb + 2u * v + 1u], NONE);
        }
        storageBarrier();
        for (var i = lid; i <= len; i += WG) {
            atomicMin(&marks[mb + 2u * vertex_at(start, i, s) + 1u], i);
        }
        storageBarrier();
        for (var i = lid; i <= len; i += WG) {
            if atomicLoad(&marks[mb + 2u * vertex_at(start, i, s) + 1u]) < i {
                atomicMin(&sh_repeat, i);
            }
        }
        workgroupBarrier();
        let first_repeat = atomicLoad(&sh_repeat);
        if lid == 0u && first_repeat == NONE {
            let out = state[st + 5u];
            if out >= params.out_cap {
                atomicMax(&sh_err, ERR_TIES);
            } else {
                popped[rb + p * REC + 5u] = 1u;
                state[st + STATE_HEAD + out] = p;
                state[st + 5u] = out + 1u;
                if out + 1u == params.k {
                    state[st + 7u] = cost;
                }
            }
        }
        // 6. Children: at each position from the deviation on (before any repeat, never at t), the
        //    next arc after the path's own in (w + π(head), arc id) order whose head is not on the
        //    path up to there.
        let limit = min(first_repeat, len);
        for (var i = dev + lid; i < limit; i += WG) {
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
            if best_key == INF || child < prefix {
                atomicMax(&sh_err, ERR_COST);
                continue;
            }
            let at = atomicAdd(&sh_pool, 1u);
            if at >= params.pool_cap {
                atomicMax(&sh_err, ERR_POOL);
                continue;
            }
            let c = pb + at * CAND;
            pool[c] = child;
            pool[c + 1u] = p;
            pool[c + 2u] = i;
            pool[c + 3u] = best;
        }
        storageBarrier();
        workgroupBarrier();
        if lid == 0u {
            state[st + 2u] = min(atomicLoad(&sh_pool), params.pool_cap);
            let err = atomicLoad(&sh_err);
            if err != 0u {
                state[st + 6u] = err;
                atomicAdd(&control[0], 1u);
            }
        }
        storageBarrier();
    }
}

// The slot is done: its loopless paths' arcs go to one compact region of `gathered` (reserved with
// one atomic), so the host reads only them.
fn gather(lid: u32, st: u32, rb: u32, ab: u32) {
    if lid == 0u {
        let outs = state[st + 5u];
        var words = 0u;
        for (var j = 0u; j < outs; j++) {
            words += popped[rb + state[st + STATE_HEAD + j] * REC + 1u];
        }
        for (var j = 0u; j < outs; j++) {
            state[st + STATE_HEAD + params.out_cap + j] = popped[rb + state[st + STATE_HEAD + j] * REC + 1u];
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
        let r = rb + state[st + STATE_HEAD + j] * REC;
        let src = ab + popped[r];
        let len = popped[r + 1u];
        for (var w = lid; w < len; w += WG) {
            gathered[at + w] = arena[src + w];
        }
        at += len;
    }
}
