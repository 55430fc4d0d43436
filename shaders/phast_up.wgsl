// PHAST's upward searches on the device, for a customisable hierarchy (CCH; issue 40; the CPU twin is
// algos_sssp::ch::UpwardSearch::search_tree's elimination-tree walk). On a CCH the upward search space
// of a source is its chain of ancestors in the elimination tree, and every upward arc of an ancestor
// leads to a later one; so one workgroup per tree walks the chain from the source to the root, one
// ancestor per step, its threads relaxing that ancestor's upward arcs (distinct heads: no two threads
// write one cell). The same order of relaxations as the CPU's walk, the same strict comparisons and
// saturating sums, so the same labels and parents bit for bit.
//
// Output, per tree, one seed per ancestor in decreasing rank (what phast_down's sweep and
// phast_load.wgsl's `mark` and `climb` read): (cell, label, up arc, parent's cell); the source's arc
// and parent are NONE, and an ancestor the search never reached has the label INF and no arc.
//!include sssp_common

const NONE: u32 = 0xFFFFFFFFu;

struct Params {
    // Trees of this pass.
    count: u32,
    _pad0: u32,
    // Trees per pass (labels are dist[position * k + lane]).
    k: u32,
    _pad1: u32,
}

// sssp_common's bindings 0–2 hold the upward arcs by rank: offsets, heads (ranks), weights.
@group(0) @binding(3) var<storage, read_write> dist: array<u32>;
@group(0) @binding(4) var<storage, read_write> seeds: array<vec4<u32>>;
@group(0) @binding(5) var<uniform> params: Params;
// The elimination tree: each rank's parent (NONE at a root), and its depth (0 at a root).
@group(0) @binding(6) var<storage, read> parent: array<u32>;
@group(0) @binding(7) var<storage, read> depth: array<u32>;
// Level-order position of every rank (the sweep's label layout).
@group(0) @binding(8) var<storage, read> pos_of_rank: array<u32>;
// Per tree: (source rank, index of its first seed). Its seed of rank r is first + depth[r].
@group(0) @binding(9) var<storage, read> trees: array<vec2<u32>>;

const UW: u32 = 64u;

var<workgroup> chain_length: u32;

// Runs after `fill` (every label INF).
@compute @workgroup_size(64)
fn up(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
      @builtin(local_invocation_index) lid: u32) {
    let lane = wid.x + wid.y * nwg.x;
    if lane >= params.count {
        return;
    }
    let k = params.k;
    let tree = trees[lane];
    var r = tree.x;
    if lid == 0u {
        chain_length = depth[r] + 1u;
        let cell = pos_of_rank[r] * k + lane;
        dist[cell] = 0u;
        seeds[tree.y + depth[r]] = vec4<u32>(cell, 0u, NONE, NONE);
    }
    // The source's label, visible to every thread.
    storageBarrier();
    // Uniform, for the barriers of the loop.
    let steps = workgroupUniformLoad(&chain_length);
    for (var i = 0u; i < steps; i++) {
        let cell = pos_of_rank[r] * k + lane;
        // Final: every arc into r comes from a lower ancestor, relaxed in an earlier step.
        let d = dist[cell];
        if d == INF {
            if lid == 0u {
                seeds[tree.y + depth[r]] = vec4<u32>(cell, INF, NONE, NONE);
            }
        } else {
            let end = offsets[r + 1u];
            for (var a = offsets[r] + lid; a < end; a += UW) {
                let h = targets[a];
                let nd = sat_add(d, weights[a]);
                let h_cell = pos_of_rank[h] * k + lane;
                if nd < dist[h_cell] {
                    dist[h_cell] = nd;
                    seeds[tree.y + depth[h]] = vec4<u32>(h_cell, nd, a, cell);
                }
            }
        }
        storageBarrier();
        r = parent[r];
    }
}
