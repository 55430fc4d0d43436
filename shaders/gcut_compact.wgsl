// Unconstrained guillotine cutting DP, compact layout (spec guillotine.md §4.1): V is kept only at
// normal positions, twice — row-major (j * nx + i) for the vertical-cut scan and column-major
// (i * ny + j) for the horizontal one — and a cut's remainder is rounded down through pidx/qidx.
// One `cells` dispatch per anti-diagonal, one workgroup per cell, its invocations striding over the
// candidate cuts; ranks are indices (vertical i', horizontal nx + j'). The cut table arrives holding
// each cell's single-piece record, which `decide` compares with the best cut (the seed never did).
// Values are u32 (the host checks twice the bound fits).
//!param TABLES one four
//!include gcut_common
//!include gcut_tables_$TABLES

override WG: u32 = 128;

fn cut_coordinate_x(rank: u32) -> u32 {
    return geom[rank];
}

fn cut_coordinate_y(rank: u32) -> u32 {
    return geom[params.ys_at + rank];
}

@compute @workgroup_size(WG)
fn cells(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let cell = my_cell(wid, lid);
    if cell.i == 0u {
        return;
    }
    let nx = params.nx;
    let ny = params.ny;
    let i = cell.i;
    let j = cell.j;
    let xi = cell.xi;
    let yj = cell.yj;
    var value = 0u;
    var rank = NONE;
    // Vertical cuts at xs[i'] for 2 xs[i'] ≤ xs[i].
    for (var c = 1u + lid; c < i; c += WG) {
        let x = geom[c];
        if 2u * x > xi {
            break;
        }
        let v = rows_get(j * nx + c) + rows_get(j * nx + geom[params.pidx_at + xi - x]);
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
        let v = cols_get(i * ny + c) + cols_get(i * ny + geom[params.qidx_at + yj - y]);
        if better(v, nx + c, value, rank) {
            value = v;
            rank = nx + c;
        }
    }
    let best = workgroup_best(lid, value, rank);
    if lid == 0u {
        let out = decide(cuts_get(j * nx + i), best, nx);
        rows_set(j * nx + i, out.x);
        cols_set(i * ny + j, out.x);
        cuts_set(j * nx + i, out.y);
    }
}
