// Many-to-many distances on a customised CCH (crates/algos-sssp/src/cch/gpu_matrix.rs; CPU twin
// `cch_matrix_mirror`). The host walks the elimination tree once per source (upward labels) and once per
// target (downward labels) and lays each walk out from the root down: row i of `src_rank`/`src_label`
// holds, at depth d, the ancestor of source i at depth d and its label (UNREACHABLE where the walk did
// not reach it); likewise for targets. Two ends' ancestors agree from the root down to their lowest
// common ancestor and differ below it, so
//     dist(i, j) = min over d < common(i, j) of src_label[i][d] + dst_label[j][d],
// a min-plus product over a prefix that ends where the ranks first differ. A workgroup computes a
// 16 × 16 block of the matrix, staging 32 depths of its 16 sources and 16 targets in shared memory at a
// time, and stops once no pair of the block still agrees. Sums saturate at SATURATED (u32::MAX − 1),
// which the host reports as an overflow, as the CPU does.

const B: u32 = 16u;
const K: u32 = 32u;
const UNREACHABLE: u32 = 0xFFFFFFFFu;
const SATURATED: u32 = 0xFFFFFFFEu;

struct Params {
    sources: u32,
    targets: u32,
    // Row length (the deepest walk, padded).
    depth: u32,
    pad: u32,
}

@group(0) @binding(0) var<storage, read> src_rank: array<u32>;
@group(0) @binding(1) var<storage, read> src_label: array<u32>;
@group(0) @binding(2) var<storage, read> dst_rank: array<u32>;
@group(0) @binding(3) var<storage, read> dst_label: array<u32>;
// Walk lengths: sources then targets.
@group(0) @binding(4) var<storage, read> lengths: array<u32>;
@group(0) @binding(5) var<storage, read_write> out: array<u32>;
@group(0) @binding(6) var<uniform> params: Params;

var<workgroup> s_rank: array<u32, 512>;
var<workgroup> s_label: array<u32, 512>;
var<workgroup> t_rank: array<u32, 512>;
var<workgroup> t_label: array<u32, 512>;
// 1 when a pair of the block still agrees after a chunk (every writer writes 1); two flags, by chunk
// parity, so that resetting one never races with a late reader of the other.
var<workgroup> alive: array<u32, 2>;

fn link(x: u32, y: u32) -> u32 {
    if (x == UNREACHABLE || y == UNREACHABLE) {
        return UNREACHABLE;
    }
    let s = x + y;
    // Overflow wraps below x; both count as saturation.
    return select(min(s, SATURATED), SATURATED, s < x);
}

@compute @workgroup_size(16, 16, 1)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    let i = wg.y * B + lid.y; // source row
    let j = wg.x * B + lid.x; // target column
    let valid = i < params.sources && j < params.targets;
    var shared_depth = 0u;
    if (valid) {
        shared_depth = min(lengths[i], lengths[params.sources + j]);
    }
    var best = UNREACHABLE;
    var agree = valid;
    for (var d0 = 0u; d0 < params.depth; d0 += K) {
        // Stage depths d0 .. d0 + K of the block's 16 sources and 16 targets: 512 + 512 words, two of
        // each per invocation.
        for (var q = 0u; q < 2u; q++) {
            let e = li + 256u * q; // 0 .. 512: row e / K, depth e % K
            let row = e / K;
            let d = d0 + e % K;
            let si = wg.y * B + row;
            let tj = wg.x * B + row;
            var sr = 0xFFFFFFFEu;
            var sl = UNREACHABLE;
            var tr = 0xFFFFFFFDu;
            var tl = UNREACHABLE;
            if (si < params.sources && d < params.depth) {
                sr = src_rank[si * params.depth + d];
                sl = src_label[si * params.depth + d];
            }
            if (tj < params.targets && d < params.depth) {
                tr = dst_rank[tj * params.depth + d];
                tl = dst_label[tj * params.depth + d];
            }
            s_rank[e] = sr;
            s_label[e] = sl;
            t_rank[e] = tr;
            t_label[e] = tl;
        }
        let parity = (d0 / K) & 1u;
        if (li == 0u) {
            alive[parity] = 0u;
        }
        workgroupBarrier();
        if (agree) {
            let end = min(K, shared_depth - min(shared_depth, d0));
            for (var k = 0u; k < end; k++) {
                if (s_rank[lid.y * K + k] != t_rank[lid.x * K + k]) {
                    agree = false;
                    break;
                }
                best = min(best, link(s_label[lid.y * K + k], t_label[lid.x * K + k]));
            }
            if (end < K) {
                agree = false;
            }
        }
        if (agree) {
            alive[parity] = 1u;
        }
        // Every invocation sees the same flag: the loop stays uniform for the barriers.
        if (workgroupUniformLoad(&alive[parity]) == 0u) {
            break;
        }
    }
    if (valid) {
        out[i * params.targets + j] = best;
    }
}
