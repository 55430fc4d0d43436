// One external iteration of the distributed subgradient "DIST" for the membership overlay bound
// (spec overlay.md §3.2–3.3), fused: one workgroup per node h runs all inner_iters steps of its
// local subgradient on λ_h, reading its neighbours' multipliers from `lambda_in` only (double
// buffering: the host alternates two bind groups) and writing its best λ_h to `lambda_out`.
//
// Per node, the reduced values q_j = p_hj − λ_in[j] and the bounds u_hj are fixed during the inner
// loop; they are staged in workgroup memory when the degree fits CACHE (else re-read each step, the
// same values). Each inner step sums max(0, q_j − λ_h)·u_hj and the active u_hj with element k in
// lane k mod WG, then a tree reduction: the CPU mirror (`MirrorEngine`) adds in the same order.

//!include grid

override WG: u32 = 128;
const CACHE: u32 = 2048u;
// Larger than any finite z (the CPU uses +∞; only `z < best` is asked).
const HUGE: f32 = 3.0e38;

struct Params {
    n: u32,
    inner: u32,
    stall_max: u32,
    _pad: u32,
    alpha_min: f32,
    gamma_up: f32,
    gamma_down: f32,
    // Weight of the edge terms in the local value (DistParams::local_weight).
    weight: f32,
}

struct Arc {
    to: u32,
    value: f32,
    upper: f32,
}

// A node's step state, kept across external iterations; `best` is the last iteration's best z_h.
struct NodeState {
    alpha: f32,
    stall: u32,
    best: f32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> start: array<u32>;
@group(0) @binding(2) var<storage, read> arcs: array<Arc>;
@group(0) @binding(3) var<storage, read> cap: array<f32>;
@group(0) @binding(4) var<storage, read> lambda_in: array<f32>;
@group(0) @binding(5) var<storage, read_write> lambda_out: array<f32>;
@group(0) @binding(6) var<storage, read_write> node: array<NodeState>;

var<workgroup> q_cache: array<f32, CACHE>;
var<workgroup> u_cache: array<f32, CACHE>;
var<workgroup> red_z: array<f32, WG>;
var<workgroup> red_g: array<f32, WG>;
var<workgroup> shared_lambda: f32;

@compute @workgroup_size(WG)
fn round(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let h = flat_workgroup(wid, nwg);
    // Uniform per workgroup: whole workgroups leave, so the barriers below stay uniform.
    if h >= params.n {
        return;
    }
    let first = start[h];
    let deg = start[h + 1u] - first;
    let cached = deg <= CACHE;
    if cached {
        for (var k = lid; k < deg; k += WG) {
            let a = arcs[first + k];
            q_cache[k] = a.value - lambda_in[a.to];
            u_cache[k] = a.upper;
        }
    }
    workgroupBarrier();
    let b = cap[h];
    var st = node[h];
    var lambda = lambda_in[h];
    var best = HUGE;
    var lambda_best = lambda;
    for (var it = 0u; it < params.inner; it++) {
        var zs = 0.0;
        var gs = 0.0;
        for (var k = lid; k < deg; k += WG) {
            var q: f32;
            var u: f32;
            if cached {
                q = q_cache[k];
                u = u_cache[k];
            } else {
                let a = arcs[first + k];
                q = a.value - lambda_in[a.to];
                u = a.upper;
            }
            let d = q - lambda;
            if d > 0.0 {
                zs += d * u;
                gs += u;
            }
        }
        red_z[lid] = zs;
        red_g[lid] = gs;
        workgroupBarrier();
        for (var s = WG / 2u; s > 0u; s >>= 1u) {
            if lid < s {
                red_z[lid] = red_z[lid] + red_z[lid + s];
                red_g[lid] = red_g[lid] + red_g[lid + s];
            }
            workgroupBarrier();
        }
        if lid == 0u {
            let z = b * lambda + params.weight * red_z[0];
            let g = red_g[0] - b;
            if z < best {
                best = z;
                lambda_best = lambda;
                st.alpha = st.alpha * params.gamma_up;
                st.stall = 0u;
            } else {
                st.stall += 1u;
                if st.stall > params.stall_max {
                    st.alpha = max(st.alpha * params.gamma_down, params.alpha_min);
                    st.stall = 0u;
                }
            }
            shared_lambda = max(lambda + st.alpha * g, 0.0);
        }
        // Includes a barrier: red_* are free again and every lane sees the new λ_h.
        lambda = workgroupUniformLoad(&shared_lambda);
    }
    if lid == 0u {
        st.best = best;
        node[h] = st;
        lambda_out[h] = lambda_best;
    }
}
