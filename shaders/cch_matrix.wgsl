// Many-to-many distances on a customised CCH (crates/algos-sssp/src/cch/gpu_matrix.rs; CPU twin
// `cch_matrix_mirror`). The host walks the elimination tree once per source (upward labels) and once per
// target (downward labels) and lays each walk out from the root down: row i of `src_rank`/`src_label`
// holds, at depth d, the ancestor of source i at depth d and its label (UNREACHABLE where the walk did
// not reach it); likewise for targets. Two ends' ancestors agree from the root down to their lowest
// common ancestor and differ below it, so
//     dist(i, j) = min over d < common(i, j) of src_label[i][d] + dst_label[j][d],
// a min-plus product over a prefix that ends where the ranks first differ. A workgroup computes a
// 16 × 32 block of the matrix (each invocation one source and two targets, 16 apart), staging 32 depths
// of its 16 sources and 32 targets in shared memory at a time (rows padded to 33 words, so the 16
// invocations reading 16 rows at one depth hit 16 banks), and stops once no pair of the block still
// agrees. Sums saturate at SATURATED (u32::MAX − 1),
// which the host reports as an overflow, as the CPU does.

const B: u32 = 16u;
// Targets per invocation, and of a block.
const C: u32 = 2u;
const BT: u32 = 32u;
const K: u32 = 32u;
// Padded row length in shared memory.
const KP: u32 = 33u;
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

var<workgroup> s_rank: array<u32, 528>; // 16 × 33
var<workgroup> s_label: array<u32, 528>;
var<workgroup> t_rank: array<u32, 1056>; // 32 × 33 (with the sources' arrays 12.7 KB, under WebGPU's
var<workgroup> t_label: array<u32, 1056>; // 16 KB default)
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
    var shared_depth: array<u32, 2>;
    var best: array<u32, 2>;
    var agree: array<bool, 2>;
    for (var c = 0u; c < C; c++) {
        let j = wg.x * BT + lid.x + B * c; // target column
        let valid = i < params.sources && j < params.targets;
        shared_depth[c] = 0u;
        if (valid) {
            shared_depth[c] = min(lengths[i], lengths[params.sources + j]);
        }
        best[c] = UNREACHABLE;
        agree[c] = valid;
    }
    for (var d0 = 0u; d0 < params.depth; d0 += K) {
        // Stage depths d0 .. d0 + K: 16 source rows and 32 target rows (512 and 1024 words, two and four
        // per invocation), each row read by consecutive invocations.
        for (var q = 0u; q < 2u; q++) {
            let e = li + 256u * q;
            let row = e / K;
            let d = d0 + e % K;
            let si = wg.y * B + row;
            var sr = 0xFFFFFFFEu;
            var sl = UNREACHABLE;
            if (si < params.sources && d < params.depth) {
                sr = src_rank[si * params.depth + d];
                sl = src_label[si * params.depth + d];
            }
            s_rank[row * KP + e % K] = sr;
            s_label[row * KP + e % K] = sl;
        }
        for (var q = 0u; q < 4u; q++) {
            let e = li + 256u * q;
            let row = e / K;
            let d = d0 + e % K;
            let tj = wg.x * BT + row;
            var tr = 0xFFFFFFFDu;
            var tl = UNREACHABLE;
            if (tj < params.targets && d < params.depth) {
                tr = dst_rank[tj * params.depth + d];
                tl = dst_label[tj * params.depth + d];
            }
            t_rank[row * KP + e % K] = tr;
            t_label[row * KP + e % K] = tl;
        }
        let parity = (d0 / K) & 1u;
        if (li == 0u) {
            alive[parity] = 0u;
        }
        workgroupBarrier();
        for (var c = 0u; c < C; c++) {
            if (agree[c]) {
                let row = (lid.x + B * c) * KP;
                let end = min(K, shared_depth[c] - min(shared_depth[c], d0));
                var b = best[c];
                for (var k = 0u; k < end; k++) {
                    if (s_rank[lid.y * KP + k] != t_rank[row + k]) {
                        agree[c] = false;
                        break;
                    }
                    b = min(b, link(s_label[lid.y * KP + k], t_label[row + k]));
                }
                best[c] = b;
                if (end < K) {
                    agree[c] = false;
                }
                if (agree[c]) {
                    alive[parity] = 1u;
                }
            }
        }
        // Every invocation sees the same flag: the loop stays uniform for the barriers.
        if (workgroupUniformLoad(&alive[parity]) == 0u) {
            break;
        }
    }
    for (var c = 0u; c < C; c++) {
        let j = wg.x * BT + lid.x + B * c;
        if (i < params.sources && j < params.targets) {
            out[i * params.targets + j] = best[c];
        }
    }
}
