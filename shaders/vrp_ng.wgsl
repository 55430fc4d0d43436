// ng-paths on dense memory tables (spec vrp-relaxations.md §3.3; CPU mirror algos_dp::vrp::ng_paths_dense).
// One `stage` dispatch per load q, one workgroup per target customer k; invocation lid owns the
// memories t ≡ lid (mod WG) of cell (q, k) and keeps their running least label in the table itself.
// Far predecessors (memory always {k}) give their cell's best label, reduced over the workgroup.
// For each near predecessor j, the workgroup loads j's labels that may enter k into workgroup memory,
// folds away the memory bits that k forgets (a min over each `free` bit, one bit per step: after the
// last one the entry with those bits clear holds the least label of its class), and every target
// memory gathers the one class that maps onto it. Labels compare by (value, j << 16 | t): the least
// is unique, so the order of the reductions cannot change a bit of the result.
//!requires f64

override WG: u32 = 128;
// Memories per cell, 2^(Δ − 1).
override S: u32 = 128;

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

var<workgroup> sv: array<f64, S>;
var<workgroup> sk: array<u32, S>;
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
    for (var t = lid; t < S; t += WG) {
        pred[row + t] = NONE;
        value[row + t] = 0.0lf;
    }
    if dk > q {
        if lid == 0u {
            best_mask[cell] = NONE;
            best[cell] = 0.0lf;
        }
        return;
    }
    let prev = q - dk;
    if prev == 0u {
        if lid == 0u {
            value[row] = arcs[k];
            pred[row] = 0u;
            best[cell] = arcs[k];
            best_mask[cell] = 0u;
        }
        return;
    }
    // Far predecessors: their best label, into memory {k} (index 0, owned by invocation 0).
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
    if lid == 0u && rk[0] != NONE {
        value[row] = rv[0];
        pred[row] = rk[0];
    }
    let first = plan[params.near_at + k];
    let last = plan[params.near_at + k + 1u];
    for (var r = first; r < last; r++) {
        let rec = params.records_at + r * 9u;
        let j = plan[rec];
        let forbid = plan[rec + 1u];
        let free = plan[rec + 2u];
        let image = plan[rec + 3u];
        let required = plan[rec + 4u];
        let a = arcs[j * m + k];
        let src_row = (prev * m + j) * S;
        workgroupBarrier();
        for (var t = lid; t < S; t += WG) {
            let key = pred[src_row + t];
            if key != NONE && (((t << 1u) | 1u) & forbid) == 0u {
                sv[t] = value[src_row + t] + a;
                sk[t] = (j << 16u) | t;
            } else {
                sk[t] = NONE;
            }
        }
        workgroupBarrier();
        // Fold each forgotten bit b: entry t (bit b clear) keeps the lesser of t and t | b.
        var bits = free;
        while bits != 0u {
            let bit = bits & (0u - bits);
            bits ^= bit;
            for (var x = lid; x < S / 2u; x += WG) {
                let lo = x & (bit - 1u);
                let t = ((x ^ lo) << 1u) | lo;
                let o = t | bit;
                if before(sv[o], sk[o], sv[t], sk[t]) {
                    sv[t] = sv[o];
                    sk[t] = sk[o];
                }
            }
            workgroupBarrier();
        }
        // Each target memory gathers the class of sources that maps onto it.
        for (var t = lid; t < S; t += WG) {
            let goal = (t << 1u) | 1u;
            if (goal & ~image) != 0u || (goal & required) != required {
                continue;
            }
            var source = 1u;
            for (var x = 1u; x < params.delta; x++) {
                if (goal & (1u << x)) != 0u {
                    let p = (plan[rec + 5u + x / 4u] >> (8u * (x % 4u))) & 0xffu;
                    source |= 1u << p;
                }
            }
            let s = source >> 1u;
            if before(sv[s], sk[s], value[row + t], pred[row + t]) {
                value[row + t] = sv[s];
                pred[row + t] = sk[s];
            }
        }
    }
    // The cell's best: least value, then least memory index.
    var bv = 0.0lf;
    var bt = NONE;
    for (var t = lid; t < S; t += WG) {
        if before(value[row + t], select(NONE, t, pred[row + t] != NONE), bv, bt) {
            bv = value[row + t];
            bt = t;
        }
    }
    reduce_least(lid, bv, bt);
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
