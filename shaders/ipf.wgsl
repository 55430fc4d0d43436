// One pass of iterative proportional fitting on the factors (CPU twin: algos_tap::matrix::ipf's
// `row_pass`, the same sums in another order). The seed stays on the device, split into row blocks of
// at most one storage binding; a pass is, per block, `row_factors` (a_i = P_i / Σ_j S_ij b_j, one
// workgroup per row, its invocations striding over the columns, the partial sums reduced as a fixed
// tree) and `column_partials` (Σ_i S_ij a_i over each chunk of CHUNK rows, one invocation per column
// and chunk: adjacent invocations read adjacent cells), then once `column_sums` (the chunks' partial
// sums added in chunk order). Row targets of 0 give factors of 0. The host computes the column factors
// from the sums, as the CPU does, and uploads them for the next pass.
//!requires f64

const WG: u32 = 256u;
const CHUNK: u32 = 64u;

struct Params {
    // Rows of this block, columns, the block's first row and first chunk.
    rows: u32,
    cols: u32,
    row0: u32,
    chunk0: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> seed: array<f64>;
@group(0) @binding(2) var<storage, read> row_targets: array<f64>;
@group(0) @binding(3) var<storage, read> b: array<f64>;
@group(0) @binding(4) var<storage, read_write> a: array<f64>;
// chunks × cols partial column sums, chunk-major.
@group(0) @binding(5) var<storage, read_write> partials: array<f64>;
@group(0) @binding(6) var<storage, read_write> sums: array<f64>;

var<workgroup> lanes: array<f64, WG>;

@compute @workgroup_size(256)
fn row_factors(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) l: u32,
) {
    // One workgroup per row; the grid may be split over y (the row is uniform in the workgroup).
    let i = wg.x + wg.y * groups.x;
    let inside = i < params.rows;
    var s = f64(0.0);
    if inside {
        let base = i * params.cols;
        for (var j = l; j < params.cols; j += WG) {
            s += seed[base + j] * b[j];
        }
    }
    lanes[l] = s;
    workgroupBarrier();
    for (var w = WG / 2u; w > 0u; w >>= 1u) {
        if l < w {
            lanes[l] += lanes[l + w];
        }
        workgroupBarrier();
    }
    if inside && l == 0u {
        let r = params.row0 + i;
        let goal = row_targets[r];
        a[r] = select(f64(0.0), goal / lanes[0], goal > f64(0.0));
    }
}

@compute @workgroup_size(256)
fn column_partials(@builtin(global_invocation_id) id: vec3<u32>) {
    // x: column, y: chunk of this block.
    let j = id.x;
    let c = id.y;
    let first = c * CHUNK;
    if j >= params.cols || first >= params.rows {
        return;
    }
    let last = min(first + CHUNK, params.rows);
    var s = f64(0.0);
    for (var i = first; i < last; i++) {
        s += seed[i * params.cols + j] * a[params.row0 + i];
    }
    partials[(params.chunk0 + c) * params.cols + j] = s;
}

@compute @workgroup_size(256)
fn column_sums(@builtin(global_invocation_id) id: vec3<u32>) {
    // `rows` here is the number of chunks over all blocks.
    let j = id.x;
    if j >= params.cols {
        return;
    }
    var s = f64(0.0);
    for (var c = 0u; c < params.rows; c++) {
        s += partials[c * params.cols + j];
    }
    sums[j] = s;
}
