// q-paths with 2-cycle elimination and through-q-routes (spec vrp-relaxations.md §3.1–3.2; CPU twins
// algos_dp::vrp::q_paths and through_q). One `stage` dispatch per load q, one workgroup per customer
// i, its invocations striding over the predecessors j; each keeps its best two (value, j), and the
// workgroup merges them: the result is the least and second least (value, j) over all j, which is
// what the CPU's scan in j order keeps (replace on `<` only). Unreachable entries carry pred NONE
// (their value is not written). `through` computes ψ from a forward and a backward table.
//!requires f64

override WG: u32 = 128;

struct Params {
    m: u32,
    capacity: u32,
    // (Q + 1) · m: φ and its predecessor follow f and its predecessor at this offset.
    cells: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> demand: array<u32>;
@group(0) @binding(2) var<storage, read> arcs: array<f64>;
// f then φ; pred then pred2.
@group(0) @binding(3) var<storage, read_write> vals: array<f64>;
@group(0) @binding(4) var<storage, read_write> preds: array<u32>;
@group(0) @binding(5) var<storage, read_write> state: array<u32>;
// `through`: the backward table (same layout), and ψ with a flag per entry (0: no route).
@group(0) @binding(6) var<storage, read> bvals: array<f64>;
@group(0) @binding(7) var<storage, read> bpreds: array<u32>;
@group(0) @binding(8) var<storage, read_write> psi: array<f64>;
@group(0) @binding(9) var<storage, read_write> psi_ok: array<u32>;

const NONE: u32 = 0xffffffffu;

var<workgroup> v1s: array<f64, WG>;
var<workgroup> p1s: array<u32, WG>;
var<workgroup> v2s: array<f64, WG>;
var<workgroup> p2s: array<u32, WG>;
var<workgroup> stage_q: u32;

fn before(v: f64, j: u32, v2: f64, j2: u32) -> bool {
    return j != NONE && (j2 == NONE || v < v2 || (v == v2 && j < j2));
}

@compute @workgroup_size(1)
fn advance() {
    state[0] += 1u;
}

@compute @workgroup_size(WG)
fn stage(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let m = params.m;
    let i = wid.x + 1u;
    if lid == 0u {
        stage_q = state[0];
    }
    let q = workgroupUniformLoad(&stage_q);
    let at = q * m + i;
    let di = demand[i];
    let c = params.cells;
    if di > q || di == q {
        if lid == 0u {
            preds[c + at] = NONE;
            if di == q {
                vals[at] = arcs[i];
                preds[at] = 0u;
            } else {
                preds[at] = NONE;
            }
        }
        return;
    }
    let base = (q - di) * m;
    var v1 = 0.0lf;
    var p1 = NONE;
    var v2 = 0.0lf;
    var p2 = NONE;
    for (var j = 1u + lid; j < m; j += WG) {
        if j == i {
            continue;
        }
        let pj = preds[base + j];
        var v = 0.0lf;
        if pj != i {
            if pj == NONE {
                continue;
            }
            v = vals[base + j];
        } else {
            if preds[c + base + j] == NONE {
                continue;
            }
            v = vals[c + base + j];
        }
        let h = v + arcs[j * m + i];
        if before(h, j, v1, p1) {
            v2 = v1;
            p2 = p1;
            v1 = h;
            p1 = j;
        } else if before(h, j, v2, p2) {
            v2 = h;
            p2 = j;
        }
    }
    v1s[lid] = v1;
    p1s[lid] = p1;
    v2s[lid] = v2;
    p2s[lid] = p2;
    workgroupBarrier();
    for (var half = WG / 2u; half > 0u; half >>= 1u) {
        if lid < half {
            // The best two of {a1, a2, b1, b2} (a1 before a2, b1 before b2; all j distinct).
            let o = lid + half;
            var a1 = v1s[lid];
            var q1 = p1s[lid];
            var a2 = v2s[lid];
            var q2 = p2s[lid];
            let b1 = v1s[o];
            let r1 = p1s[o];
            let b2 = v2s[o];
            let r2 = p2s[o];
            if before(b1, r1, a1, q1) {
                // b1 first; second is the better of a1 and b2.
                if before(b2, r2, a1, q1) {
                    a2 = b2;
                    q2 = r2;
                } else {
                    a2 = a1;
                    q2 = q1;
                }
                a1 = b1;
                q1 = r1;
            } else if before(b1, r1, a2, q2) {
                a2 = b1;
                q2 = r1;
            }
            v1s[lid] = a1;
            p1s[lid] = q1;
            v2s[lid] = a2;
            p2s[lid] = q2;
        }
        workgroupBarrier();
    }
    if lid == 0u {
        vals[at] = v1s[0];
        preds[at] = p1s[0];
        vals[c + at] = v2s[0];
        preds[c + at] = p2s[0];
    }
}

// ψ(q, i) over every outbound load, one invocation per (q, i); vals/preds hold the forward table.
@compute @workgroup_size(64)
fn through(@builtin(global_invocation_id) gid: vec3<u32>) {
    let m = params.m;
    let c = params.cells;
    let i = gid.x % m;
    let q = gid.x / m;
    if q > params.capacity {
        return;
    }
    var best = 0.0lf;
    var ok = 0u;
    let di = demand[i];
    for (var out = di; i != 0u && out <= q; out++) {
        let back = q + di - out;
        if back < di || back > params.capacity {
            continue;
        }
        let a = out * m + i;
        let b = back * m + i;
        let pf = preds[a];
        let pb = bpreds[b];
        if pf == NONE || pb == NONE {
            continue;
        }
        var v = 0.0lf;
        var have = true;
        if pf != pb || pf == 0u {
            v = vals[a] + bvals[b];
        } else {
            // Not the same predecessor on both sides: one side takes its second best.
            let x = bpreds[c + b] != NONE;
            let y = preds[c + a] != NONE;
            let vx = vals[a] + bvals[c + b];
            let vy = vals[c + a] + bvals[b];
            have = x || y;
            if x && y {
                v = min(vx, vy);
            } else if x {
                v = vx;
            } else {
                v = vy;
            }
        }
        if have && (ok == 0u || v < best) {
            best = v;
            ok = 1u;
        }
    }
    psi[q * m + i] = best;
    psi_ok[q * m + i] = ok;
}

// "At most q": a running minimum over the loads, one invocation per customer.
@compute @workgroup_size(64)
fn at_most(@builtin(global_invocation_id) gid: vec3<u32>) {
    let m = params.m;
    let i = gid.x;
    if i == 0u || i >= m {
        return;
    }
    for (var q = 1u; q <= params.capacity; q++) {
        let a = q * m + i;
        let b = a - m;
        if psi_ok[b] != 0u && (psi_ok[a] == 0u || psi[b] < psi[a]) {
            psi[a] = psi[b];
            psi_ok[a] = 1u;
        }
    }
}
