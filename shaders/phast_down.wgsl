// PHAST's downward sweep for K trees at once (spec: issue 21; Delling et al. 2011, GPU variant):
// vertices are numbered by level of the downward DAG (a vertex's in-arcs all come from earlier
// levels), one dispatch per level, one invocation per (vertex, tree). `dist[p * K + lane]` is tree
// `lane`'s label of the vertex at position p, so the K trees of a vertex are contiguous and an arc read
// serves them all with coalesced loads. Labels are u32; INF = unreached; sums saturate at OVF.
//!include grid
//!include sssp_common
//!include chain_min

override WG: u32 = 256;

struct Params {
    // Positions [start, end) of this level (fill: all positions; seed: the seed count in `start`).
    start: u32,
    end: u32,
    // Trees per pass.
    k: u32,
    _pad: u32,
}

// The downward DAG in sssp_common's bindings 0–2, by position: `offsets`/`targets`/`weights` are each
// position's in-arcs (`targets` holds the tails' positions).
@group(0) @binding(3) var<storage, read_write> dist: array<u32>;
// Upward-search results, four words each: seeds[4i] = p * K + lane, seeds[4i + 1] = label (then the
// up arc and the parent's cell, which phast_load.wgsl reads).
@group(0) @binding(4) var<storage, read> seeds: array<u32>;
@group(0) @binding(5) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn fill(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid, WG);
    if i < (params.end - params.start) * params.k {
        dist[i] = INF;
    }
}

@compute @workgroup_size(WG)
fn seed(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid, WG);
    if i < params.start {
        dist[seeds[4u * i]] = seeds[4u * i + 1u];
    }
}

@compute @workgroup_size(WG)
fn level(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid, WG);
    let k = params.k;
    if i >= (params.end - params.start) * k {
        return;
    }
    let p = params.start + i / k;
    let lane = i % k;
    var best = dist[p * k + lane];
    let end = offsets[p + 1u];
    for (var a = offsets[p]; a < end; a++) {
        best = min(best, sat_add(dist[targets[a] * k + lane], weights[a]));
    }
    dist[p * k + lane] = best;
}

// The top of the DAG, levels of a few vertices each (a separator's chain), in one dispatch instead of
// one per level: one workgroup per tree walks positions [start, end) in order, its threads splitting
// each vertex's in-arcs and reducing the minimum in workgroup memory (`chain_min`). In-arcs come from earlier
// positions, which this workgroup wrote before (the storage barrier makes them visible), so the labels
// equal the level kernel's.

@compute @workgroup_size(64)
fn chain(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let lane = wid.x + wid.y * nwg.x;
    let k = params.k;
    if lane >= k {
        return;
    }
    for (var p = params.start; p < params.end; p++) {
        var best = INF;
        let end = offsets[p + 1u];
        for (var a = offsets[p] + lid; a < end; a += CW) {
            best = min(best, sat_add(dist[targets[a] * k + lane], weights[a]));
        }
        let least = chain_min(lid, best);
        if lid == 0u {
            dist[p * k + lane] = min(dist[p * k + lane], least);
        }
        storageBarrier();
    }
}

// Position of every vertex (original id), and the trees in original order: rows[lane * n + v].
@group(0) @binding(6) var<storage, read> pos_of_vertex: array<u32>;
@group(0) @binding(7) var<storage, read_write> rows: array<u32>;
// Set to 1 when a gathered label saturated (the host clears it before each gather): read back beside
// the rows, so that the host need not scan them for OVF.
@group(0) @binding(8) var<storage, read_write> overflow: atomic<u32>;

// Gathers the first `params.start` trees into row-major original-vertex order for readback
// (params.end = n).
@compute @workgroup_size(WG)
fn unpermute(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid, WG);
    let n = params.end;
    if i >= params.start * n {
        return;
    }
    let lane = i / n;
    let v = i % n;
    let d = dist[pos_of_vertex[v] * params.k + lane];
    rows[i] = d;
    if d == OVF {
        atomicOr(&overflow, 1u);
    }
}
