// Unconstrained guillotine cutting DP, gap-filled layout (the seed's, spec guillotine.md §4.1, kept
// only along the scanned axis as the CPU solvers do): row line j holds V(p(x), j) at every integer
// 0 ≤ x ≤ W (`rows[j * wl + x]`), column line i holds V(i, q(y)) at every integer y
// (`cols[i * hl + y]`), so a cut's remainder is read directly, with no rounding lookup. Memory:
// ny·(W+1) + nx·(H+1) words instead of the seed's 2·(W+1)·(H+1). After a cell is decided its
// workgroup fills the value into [x_i, x_{i+1}) of its row and [y_j, y_{j+1}) of its column (to the
// end of the line for the last position).
//
// Where the normal positions are dense (dense_x / dense_y) the scan runs over every integer position
// instead of the normal ones: the loads are then contiguous and independent, and the result is the
// same value and the same smallest cut (dp.rs proves it for the CPU). Ranks are coordinates
// (vertical x, horizontal wl + y). The cut table arrives holding each cell's single-piece record.
//!param TABLES one four
//!include gcut_common
//!include gcut_tables_$TABLES

override WG: u32 = 128;

var<workgroup> decided: u32;

fn cut_coordinate_x(rank: u32) -> u32 {
    return rank;
}

fn cut_coordinate_y(rank: u32) -> u32 {
    return rank;
}

@compute @workgroup_size(WG)
fn cells(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let cell = my_cell(wid, lid);
    if cell.i == 0u {
        return;
    }
    let nx = params.nx;
    let ny = params.ny;
    let wl = params.wl;
    let hl = params.hl;
    let i = cell.i;
    let j = cell.j;
    let xi = cell.xi;
    let yj = cell.yj;
    let row = j * wl;
    let col = i * hl;
    var value = 0u;
    var rank = NONE;
    // Vertical cuts at x ≤ xs[i] / 2.
    if params.dense_x != 0u {
        for (var x = geom[1] + lid; 2u * x <= xi; x += WG) {
            let v = rows_get(row + x) + rows_get(row + xi - x);
            if better(v, x, value, rank) {
                value = v;
                rank = x;
            }
        }
    } else {
        for (var c = 1u + lid; c < i; c += WG) {
            let x = geom[c];
            if 2u * x > xi {
                break;
            }
            let v = rows_get(row + x) + rows_get(row + xi - x);
            if better(v, x, value, rank) {
                value = v;
                rank = x;
            }
        }
    }
    // Horizontal cuts at y ≤ ys[j] / 2.
    if params.dense_y != 0u {
        for (var y = geom[params.ys_at + 1u] + lid; 2u * y <= yj; y += WG) {
            let v = cols_get(col + y) + cols_get(col + yj - y);
            if better(v, wl + y, value, rank) {
                value = v;
                rank = wl + y;
            }
        }
    } else {
        for (var c = 1u + lid; c < j; c += WG) {
            let y = geom[params.ys_at + c];
            if 2u * y > yj {
                break;
            }
            let v = cols_get(col + y) + cols_get(col + yj - y);
            if better(v, wl + y, value, rank) {
                value = v;
                rank = wl + y;
            }
        }
    }
    let best = workgroup_best(lid, value, rank);
    if lid == 0u {
        let out = decide(cuts_get(j * nx + i), best, wl);
        cuts_set(j * nx + i, out.y);
        decided = out.x;
    }
    let v = workgroupUniformLoad(&decided);
    // Fill the gaps up to the next normal position (the line's end after the last one).
    let x_end = select(wl, geom[i + 1u], i + 1u < nx);
    for (var x = xi + lid; x < x_end; x += WG) {
        rows_set(row + x, v);
    }
    let y_end = select(hl, geom[params.ys_at + j + 1u], j + 1u < ny);
    for (var y = yj + lid; y < y_end; y += WG) {
        cols_set(col + y, v);
    }
}
