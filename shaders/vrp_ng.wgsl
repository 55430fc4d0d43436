// ng-paths on dense memory tables (spec vrp-relaxations.md §3.3; CPU mirror algos_dp::vrp::ng_paths_dense).
// One `stage` dispatch per load q, one workgroup per target customer k. The running least label of
// every memory of cell (q, k) lives in workgroup memory (bv, bk) until the cell is written once.
// Far predecessors (memory always {k}) give their cell's best label, reduced over the workgroup.
// Near predecessors come P at a time, L lanes each: a lane group loads its j's labels that may enter
// k, folds away the memory bits k forgets (a min over each `free` bit, one bit per step: after the
// last one the entry with those bits clear holds the least label of its class), and every target
// memory gathers, from each of the P pairs, the one class that maps onto it. Labels compare by
// (value, j << 16 | t): the least is unique, so the order of the reductions cannot change a bit of the
// result.
//!requires f64

// Lanes per near pair and pairs per round (WG = P · L, a power of two; P ≤ 8).
override L: u32 = 128;
override P: u32 = 4;
override WG: u32 = 512;
// Memories per cell, 2^(Δ − 1).
override S: u32 = 128;
override PS: u32 = 512;

struct Params {
    m: u32,
    delta: u32,
    demand_at: u32,
    records_at: u32,
    near_at: u32,
    near_bits_at: u32,
    near_words: u32,
    walk_len: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
// Demands, then the near-pair records (9 words each), their offsets per k, and the near bits per k.
@group(0) @binding(1) var<storage, read> plan: array<u32>;
// Arc costs, m × m row-major (reduced costs: new every pricing call).
@group(0) @binding(2) var<storage, read> arcs: array<f64>;
@group(0) @binding(3) var<storage, read_write> value: array<f64>;
@group(0) @binding(4) var<storage, read_write> pred: array<u32>;
@group(0) @binding(5) var<storage, read_write> best: array<f64>;
@group(0) @binding(6) var<storage, read_write> best_mask: array<u32>;
// [0]: the stage's load q.
@group(0) @binding(7) var<storage, read_write> state: array<u32>;
// `walk`: [routes, then (q, i, t) per route, then walk_len customers per route].
@group(0) @binding(8) var<storage, read_write> walks: array<u32>;

const NONE: u32 = 0xffffffffu;

// Per pair of the round: its labels (sv, sk), then its record (j, forbid, free, image, required, map × 4).
var<workgroup> sv: array<f64, PS>;
var<workgroup> sk: array<u32, PS>;
var<workgroup> rec: array<u32, 72>;
// The cell's running least labels.
var<workgroup> bv: array<f64, S>;
var<workgroup> bk: array<u32, S>;
var<workgroup> rv: array<f64, WG>;
var<workgroup> rk: array<u32, WG>;
var<workgroup> stage_q: u32;

fn before(v: f64, key: u32, v2: f64, key2: u32) -> bool {
    return key != NONE && (key2 == NONE || v < v2 || (v == v2 && key < key2));
}

// The least (rv, rk) of the workgroup, in rv[0], rk[0] (every invocation passes its candidate).
fn reduce_least(lid: u32, v: f64, key: u32) {
    rv[lid] = v;
    rk[lid] = key;
    workgroupBarrier();
    for (var half = WG / 2u; half > 0u; half >>= 1u) {
        if lid < half && before(rv[lid + half], rk[lid + half], rv[lid], rk[lid]) {
            rv[lid] = rv[lid + half];
            rk[lid] = rk[lid + half];
        }
        workgroupBarrier();
    }
}

@compute @workgroup_size(1)
fn advance() {
    state[0] += 1u;
}

@compute @workgroup_size(WG)
fn stage(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let m = params.m;
    let k = wid.x + 1u;
    if lid == 0u {
        stage_q = state[0];
    }
    let q = workgroupUniformLoad(&stage_q);
    let cell = q * m + k;
    let row = cell * S;
    let dk = plan[params.demand_at + k];
    if dk > q || q == dk {
        for (var t = lid; t < S; t += WG) {
            pred[row + t] = NONE;
            value[row + t] = 0.0lf;
        }
        if lid == 0u {
            if q == dk {
                value[row] = arcs[k];
                pred[row] = 0u;
                best[cell] = arcs[k];
                best_mask[cell] = 0u;
            } else {
                best_mask[cell] = NONE;
                best[cell] = 0.0lf;
            }
        }
        return;
    }
    let prev = q - dk;
    for (var t = lid; t < S; t += WG) {
        bk[t] = NONE;
        bv[t] = 0.0lf;
    }
    // Far predecessors: their best label, into memory {k} (index 0).
    var lv = 0.0lf;
    var lk = NONE;
    let near_row = params.near_bits_at + k * params.near_words;
    for (var j = 1u + lid; j < m; j += WG) {
        let b = best_mask[prev * m + j];
        let is_near = (plan[near_row + j / 32u] >> (j % 32u)) & 1u;
        if j == k || is_near != 0u || b == NONE {
            continue;
        }
        let v = best[prev * m + j] + arcs[j * m + k];
        let key = (j << 16u) | b;
        if before(v, key, lv, lk) {
            lv = v;
            lk = key;
        }
    }
    reduce_least(lid, lv, lk);
    if lid == 0u {
        bv[0] = rv[0];
        bk[0] = rk[0];
    }
    let first = plan[params.near_at + k];
    let last = plan[params.near_at + k + 1u];
    let g = lid / L;
    let lane = lid % L;
    for (var base = first; base < last; base += P) {
        let r = base + g;
        let mine = r < last;
        workgroupBarrier();
        if mine && lane < 9u {
            rec[g * 9u + lane] = plan[params.records_at + r * 9u + lane];
        }
        workgroupBarrier();
        if mine {
            let j = rec[g * 9u];
            let forbid = rec[g * 9u + 1u];
            let a = arcs[j * m + k];
            let src_row = (prev * m + j) * S;
            for (var t = lane; t < S; t += L) {
                let key = pred[src_row + t];
                if key != NONE && (((t << 1u) | 1u) & forbid) == 0u {
                    sv[g * S + t] = value[src_row + t] + a;
                    sk[g * S + t] = (j << 16u) | t;
                } else {
                    sk[g * S + t] = NONE;
                }
            }
        }
        workgroupBarrier();
        // Fold each forgotten bit: entry t (bit clear) keeps the lesser of t and t | bit.
        for (var b = 0u; b + 1u < params.delta; b++) {
            let bit = 1u << b;
            if mine && (rec[g * 9u + 2u] & bit) != 0u {
                for (var x = lane; x < S / 2u; x += L) {
                    let lo = x & (bit - 1u);
                    let t = g * S + (((x ^ lo) << 1u) | lo);
                    let o = t | bit;
                    if before(sv[o], sk[o], sv[t], sk[t]) {
                        sv[t] = sv[o];
                        sk[t] = sk[o];
                    }
                }
            }
            workgroupBarrier();
        }
        // Each target memory gathers, from each pair, the class of sources that maps onto it.
        let pairs = min(P, last - base);
        for (var t = lid; t < S; t += WG) {
            let goal = (t << 1u) | 1u;
            var v = bv[t];
            var key = bk[t];
            for (var h = 0u; h < pairs; h++) {
                let image = rec[h * 9u + 3u];
                let required = rec[h * 9u + 4u];
                if (goal & ~image) != 0u || (goal & required) != required {
                    continue;
                }
                var source = 1u;
                for (var x = 1u; x < params.delta; x++) {
                    if (goal & (1u << x)) != 0u {
                        let p = (rec[h * 9u + 5u + x / 4u] >> (8u * (x % 4u))) & 0xffu;
                        source |= 1u << p;
                    }
                }
                let s = h * S + (source >> 1u);
                if before(sv[s], sk[s], v, key) {
                    v = sv[s];
                    key = sk[s];
                }
            }
            bv[t] = v;
            bk[t] = key;
        }
    }
    workgroupBarrier();
    // Write the cell; its best: least value, then least memory index.
    var cv = 0.0lf;
    var ct = NONE;
    for (var t = lid; t < S; t += WG) {
        value[row + t] = bv[t];
        pred[row + t] = bk[t];
        if before(bv[t], select(NONE, t, bk[t] != NONE), cv, ct) {
            cv = bv[t];
            ct = t;
        }
    }
    reduce_least(lid, cv, ct);
    if lid == 0u {
        best[cell] = rv[0];
        best_mask[cell] = rk[0];
    }
}

// One invocation per route end (q, i, t): its customers from the end backwards, NONE-terminated.
@compute @workgroup_size(64)
fn walk(@builtin(global_invocation_id) gid: vec3<u32>) {
    let r = gid.x;
    let routes = walks[0];
    if r >= routes {
        return;
    }
    let m = params.m;
    var q = walks[1u + 3u * r];
    var i = walks[2u + 3u * r];
    var t = walks[3u + 3u * r];
    let out = 1u + 3u * routes + r * params.walk_len;
    var n = 0u;
    loop {
        walks[out + n] = i;
        n += 1u;
        let p = pred[(q * m + i) * S + t];
        if p == NONE || (p >> 16u) == 0u || n >= params.walk_len {
            break;
        }
        q -= plan[params.demand_at + i];
        i = p >> 16u;
        t = p & 0xffffu;
    }
    if n < params.walk_len {
        walks[out + n] = NONE;
    }
}
