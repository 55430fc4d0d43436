// Accessibility over GPU PHAST trees where they are (issue 59): after a pass of k trees, one
// invocation per (tree, run of `chunk` point vertices) reads each point vertex's label, adds its points
// to the cell of every cutoff that reaches it — points counted, decayed weight as a 64-bit fixed-point
// sum, least and greatest weight as ranks — and adds its partial cells to the tree's row with atomics.
// Only the rows (5 words per source and cutoff) ever leave the device. Integer sums commute, so the
// result does not depend on the order of the atomics; flat sums add the host's fixed-point weights
// and equal the CPU engines' bit for bit (CPU twin: algos_access's sweep engine and `Reduction::add`),
// decayed ones use f32 factors (e^x and x^y are not correctly rounded on GPUs) and agree to ~1e-7.
//!include grid

override WG: u32 = 256;
const NO_RANK: u32 = 0xFFFFFFFFu;
const TWO_32: f32 = 4294967296.0;

struct Params {
    // Trees per pass: labels[position * k + lane].
    k: u32,
    // Trees of this pass.
    count: u32,
    // Result row of lane 0.
    first: u32,
    // Point vertices.
    points: u32,
    // Point vertices per invocation.
    chunk: u32,
    // Cutoffs (1..=8), ascending.
    ncut: u32,
    // 0 flat, 1 linear, 2 exp, 3 power, 4 harmonic (algos_access::Decay::code).
    decay: u32,
    beta: f32,
    // 2^scale: fixed-point units per unit of weight.
    unit: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    cut: array<vec4<u32>, 2>,
}

// The sweep's labels (phast_down.wgsl's dist) and the level-order position of every vertex.
@group(0) @binding(0) var<storage, read> labels: array<u32>;
@group(0) @binding(1) var<storage, read> pos_of_vertex: array<u32>;
// Two per point vertex: (vertex, fixed-point weight lo, hi, f32 weight bits), (points, least weight's
// rank, greatest weight's rank, 0).
@group(0) @binding(2) var<storage, read> points: array<vec4<u32>>;
// Five words per (row, cutoff): points, sum lo, sum hi, least rank, greatest rank.
@group(0) @binding(3) var<storage, read_write> cells: array<atomic<u32>>;
@group(0) @binding(4) var<uniform> params: Params;

fn cutoff(c: u32) -> u32 {
    return params.cut[c / 4u][c % 4u];
}

// algos_access::Decay::factor in f32.
fn factor(d: u32, cut: u32) -> f32 {
    let x = f32(d);
    switch params.decay {
        case 1u: {
            if cut == 0u {
                return 1.0;
            }
            return 1.0 - x / f32(cut);
        }
        case 2u: {
            return exp(-params.beta * x);
        }
        case 3u: {
            if x <= 1.0 {
                return 1.0;
            }
            return pow(x, -params.beta);
        }
        case 4u: {
            if d == 0u {
                return 0.0;
            }
            return 1.0 / x;
        }
        default: {
            return 1.0;
        }
    }
}

// The points' decayed weight in fixed point (lo, hi): exact for flat decay, else f32-rounded.
fn contribution(p: vec4<u32>, d: u32, cut: u32) -> vec2<u32> {
    if params.decay == 0u {
        return p.yz;
    }
    let x = round(bitcast<f32>(p.w) * factor(d, cut) * params.unit);
    let hi = floor(x / TWO_32);
    return vec2<u32>(u32(x - hi * TWO_32), u32(hi));
}

fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

@compute @workgroup_size(WG)
fn reduce(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid, WG);
    let k = params.k;
    let lane = i % k;
    let begin = (i / k) * params.chunk;
    if lane >= params.count || begin >= params.points {
        return;
    }
    let end = min(begin + params.chunk, params.points);
    let nc = params.ncut;
    var count: array<u32, 8>;
    var sum: array<vec2<u32>, 8>;
    var least: array<u32, 8>;
    var most: array<u32, 8>;
    for (var c = 0u; c < 8u; c++) {
        least[c] = NO_RANK;
    }
    let reach = cutoff(nc - 1u);
    for (var p = begin; p < end; p++) {
        let a = points[2u * p];
        let d = labels[pos_of_vertex[a.x] * k + lane];
        if d > reach {
            continue;
        }
        let b = points[2u * p + 1u];
        for (var c = nc; c > 0u; c--) {
            let cut = cutoff(c - 1u);
            if d > cut {
                break;
            }
            count[c - 1u] += b.x;
            sum[c - 1u] = add64(sum[c - 1u], contribution(a, d, cut));
            least[c - 1u] = min(least[c - 1u], b.y);
            most[c - 1u] = max(most[c - 1u], b.z);
        }
    }
    let row = (params.first + lane) * nc;
    for (var c = 0u; c < nc; c++) {
        if count[c] == 0u {
            continue;
        }
        let at = 5u * (row + c);
        atomicAdd(&cells[at], count[c]);
        let old = atomicAdd(&cells[at + 1u], sum[c].x);
        // The low words' carry goes into the high word with it: additions commute, so the 64-bit sum
        // is exact whatever order the atomics land in.
        atomicAdd(&cells[at + 2u], sum[c].y + select(0u, 1u, old + sum[c].x < old));
        atomicMin(&cells[at + 3u], least[c]);
        atomicMax(&cells[at + 4u], most[c]);
    }
}
