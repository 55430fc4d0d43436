// Unconstrained guillotine cutting DP, one anti-diagonal of the table per `cells` dispatch (spec
// guillotine.md §3.3, §4.1, compact layout). Cell (i, j) of diagonal d = i + j reads only cells of
// earlier diagonals, so all cells of a diagonal run at once: one workgroup per cell, its invocations
// striding over the candidate cuts, then a workgroup arg-max with the CPU's tie rule — larger value,
// then the smaller rank (vertical cut at xs[i'] has rank i', horizontal at ys[j'] rank nx + j'); the
// single piece wins every tie (the seed never compared it with the cuts, and took the smaller half).
// `advance` (one invocation) moves to the next diagonal and writes the grid of the next `cells`.
// Values are u32 (the host checks twice the bound fits); cut records use the CPU's encoding.

override WG: u32 = 128;

const PIECE: u32 = 0x40000000u;
const VERTICAL: u32 = 0x80000000u;
const HORIZONTAL: u32 = 0xC0000000u;
const NONE: u32 = 0xFFFFFFFFu;

struct Params {
    nx: u32,
    ny: u32,
    // Offsets in `geom` of ys, pidx and qidx (xs starts at 0).
    ys_at: u32,
    pidx_at: u32,
    qidx_at: u32,
    max_per_dim: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
// xs, then ys, pidx and qidx.
@group(0) @binding(1) var<storage, read> geom: array<u32>;
// Per cell (row-major): best single-piece value, its cut record (PIECE | kind, or 0).
@group(0) @binding(2) var<storage, read> piece: array<vec2<u32>>;
// V row-major (j * nx + i), for vertical cuts.
@group(0) @binding(3) var<storage, read_write> rows: array<u32>;
// V column-major (i * ny + j), for horizontal cuts.
@group(0) @binding(4) var<storage, read_write> cols: array<u32>;
@group(0) @binding(5) var<storage, read_write> cuts: array<u32>;
// [0] = the diagonal `cells` computes.
@group(0) @binding(6) var<storage, read_write> state: array<atomic<u32>, 4>;
// Indirect grid of the next `cells` dispatch.
@group(0) @binding(7) var<storage, read_write> args: array<u32, 3>;

var<workgroup> best_value: array<u32, WG>;
var<workgroup> best_rank: array<u32, WG>;
var<workgroup> shared_d: u32;

// First and last i of diagonal d (cells 1 ≤ i < nx, 1 ≤ j < ny).
fn diagonal_range(d: u32) -> vec2<u32> {
    let lo = max(1u, select(0u, d - (params.ny - 1u), d > params.ny - 1u));
    let hi = min(params.nx - 1u, d - 1u);
    return vec2<u32>(lo, hi);
}

// (value, rank) beats (v, r)?
fn better(value: u32, rank: u32, v: u32, r: u32) -> bool {
    return value > v || (value == v && rank < r);
}

@compute @workgroup_size(WG)
fn cells(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if lid == 0u {
        shared_d = atomicLoad(&state[0]);
    }
    // The diagonal, uniform across the workgroup (so whole workgroups leave together below).
    let d = workgroupUniformLoad(&shared_d);
    let range = diagonal_range(d);
    let k = wid.x + wid.y * params.max_per_dim;
    if range.y < range.x || k > range.y - range.x {
        return;
    }
    let nx = params.nx;
    let ny = params.ny;
    let i = range.x + k;
    let j = d - i;
    let xi = geom[i];
    let yj = geom[params.ys_at + j];
    var value = 0u;
    var rank = NONE;
    // Vertical cuts at xs[i'] for 2 xs[i'] ≤ xs[i].
    for (var c = 1u + lid; c < i; c += WG) {
        let x = geom[c];
        if 2u * x > xi {
            break;
        }
        let v = rows[j * nx + c] + rows[j * nx + geom[params.pidx_at + xi - x]];
        if better(v, c, value, rank) {
            value = v;
            rank = c;
        }
    }
    // Horizontal cuts at ys[j'] for 2 ys[j'] ≤ ys[j].
    for (var c = 1u + lid; c < j; c += WG) {
        let y = geom[params.ys_at + c];
        if 2u * y > yj {
            break;
        }
        let v = cols[i * ny + c] + cols[i * ny + geom[params.qidx_at + yj - y]];
        if better(v, nx + c, value, rank) {
            value = v;
            rank = nx + c;
        }
    }
    best_value[lid] = value;
    best_rank[lid] = rank;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if lid < s && better(best_value[lid + s], best_rank[lid + s], best_value[lid], best_rank[lid]) {
            best_value[lid] = best_value[lid + s];
            best_rank[lid] = best_rank[lid + s];
        }
        workgroupBarrier();
    }
    if lid == 0u {
        let p = piece[j * nx + i];
        var v = p.x;
        var cut = p.y;
        // A cut replaces the piece (or waste) only when strictly better, as on the CPU.
        if best_rank[0] != NONE && best_value[0] > v {
            v = best_value[0];
            let r = best_rank[0];
            cut = select(HORIZONTAL | geom[params.ys_at + r - nx], VERTICAL | geom[r], r < nx);
        }
        rows[j * nx + i] = v;
        cols[i * ny + j] = v;
        cuts[j * nx + i] = cut;
    }
}

@compute @workgroup_size(1)
fn advance() {
    let d = atomicAdd(&state[0], 1u) + 1u;
    var count = 0u;
    if d >= 2u && d <= params.nx + params.ny - 2u {
        let r = diagonal_range(d);
        if r.y >= r.x {
            count = r.y - r.x + 1u;
        }
    }
    let x = min(count, params.max_per_dim);
    args[0] = x;
    args[1] = select(1u, (count + params.max_per_dim - 1u) / params.max_per_dim, count > 0u);
    args[2] = 1u;
}
