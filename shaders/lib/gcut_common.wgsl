// Shared by the guillotine wavefront layouts (gcut_compact.wgsl, gcut_gapfilled.wgsl; spec
// guillotine.md §3.3, §4.1): the parameters, the diagonal bookkeeping, the tie rule and the
// workgroup arg-max, and the `advance` kernel that moves to the next anti-diagonal and writes the
// grid of the next `cells` dispatch. Cell (i, j) of diagonal d = i + j reads only cells of earlier
// diagonals, so all cells of a diagonal run at once, one workgroup per cell.
//
// Ties (the CPU's rule): the single piece wins every tie; among cuts the larger value, then the
// smaller rank, where vertical cuts rank below horizontal ones and each by coordinate.

const PIECE: u32 = 0x40000000u;
const VERTICAL: u32 = 0x80000000u;
const HORIZONTAL: u32 = 0xC0000000u;
const TAG: u32 = 0xC0000000u;
const NONE: u32 = 0xFFFFFFFFu;

struct Params {
    nx: u32,
    ny: u32,
    // Offsets in `geom` of ys, pidx, qidx and the kind values (xs starts at 0).
    ys_at: u32,
    pidx_at: u32,
    qidx_at: u32,
    kinds_at: u32,
    max_per_dim: u32,
    // W + 1 and H + 1: lengths of the gap-filled lines.
    wl: u32,
    hl: u32,
    // Gap-filled layout: scan every integer position instead of the normal ones (1) along x, y.
    dense_x: u32,
    dense_y: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
// xs, then ys, pidx, qidx and the value of each piece kind (kind k at kinds_at + k - 1).
@group(0) @binding(1) var<storage, read> geom: array<u32>;
// [0] = the diagonal `cells` computes.
@group(0) @binding(2) var<storage, read_write> state: array<atomic<u32>, 4>;
// Indirect grid of the next `cells` dispatch.
@group(0) @binding(3) var<storage, read_write> args: array<u32, 3>;

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

// A cell of the table and its rectangle's sides.
struct Cell {
    i: u32,
    j: u32,
    xi: u32,
    yj: u32,
}

// The cell (i, j) of this workgroup, or i = 0 when the workgroup has none. Called by every
// invocation: the diagonal is loaded once and made uniform, so whole workgroups leave together.
fn my_cell(wid: vec3<u32>, lid: u32) -> Cell {
    if lid == 0u {
        shared_d = atomicLoad(&state[0]);
    }
    let d = workgroupUniformLoad(&shared_d);
    let range = diagonal_range(d);
    let k = wid.x + wid.y * params.max_per_dim;
    if range.y < range.x || k > range.y - range.x {
        return Cell(0u, 0u, 0u, 0u);
    }
    let i = range.x + k;
    let j = d - i;
    return Cell(i, j, geom[i], geom[params.ys_at + j]);
}

// The workgroup's best (value, rank); every invocation gets it.
fn workgroup_best(lid: u32, value: u32, rank: u32) -> vec2<u32> {
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
    return vec2<u32>(best_value[0], best_rank[0]);
}

// The cell's value and record from its single piece (the record the host uploaded: PIECE | kind, or
// waste) and its best cut `best` = (value, rank; NONE when there is none). A cut replaces the piece
// only when strictly better, as on the CPU. `vertical_ranks` = ranks below it are vertical cuts.
fn decide(record: u32, best: vec2<u32>, vertical_ranks: u32) -> vec2<u32> {
    var v = 0u;
    if (record & TAG) == PIECE {
        v = geom[params.kinds_at + (record & ~TAG) - 1u];
    }
    var cut = record;
    if best.y != NONE && best.x > v {
        v = best.x;
        cut = select(HORIZONTAL | cut_coordinate_y(best.y - vertical_ranks), VERTICAL | cut_coordinate_x(best.y),
                     best.y < vertical_ranks);
    }
    return vec2<u32>(v, cut);
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
