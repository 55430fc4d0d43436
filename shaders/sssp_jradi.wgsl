// Jradi's GPU Dijkstra (seed 000 ch. 7) adapted to WebGPU (spec sssp.md §5.4): the seed's persistent
// multi-workgroup kernel needs a software inter-workgroup barrier, which WebGPU cannot promise to make
// progress, so here one workgroup runs the whole Dijkstra: each iteration it extracts the smallest
// queued (key, vertex) by a workgroup arg-min, skips stale entries (key > dist), relaxes the settled
// vertex's arcs with one invocation per arc, and appends improved vertices to the queue through a
// workgroup atomic counter; only workgroup barriers are used. The queue lives in a storage buffer and
// is compacted in place (a workgroup scan per chunk) when dead entries outnumber live ones. A dispatch
// settles at most SETTLES vertices and keeps its state in `control`, so no dispatch runs for long.
// This is a correctness cross-check and the building block for one-source-per-workgroup batches; it
// settles one vertex per iteration and is not meant to beat the CPU on one source.
//!include sssp_common

override WG: u32 = 256;
override SETTLES: u32 = 4096u;

struct Params {
    n: u32,
    source: u32,
    cap: u32,
    pad: u32,
}

// control: [done, len, live, settled, overflow]
@group(0) @binding(3) var<storage, read_write> dist: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> queue: array<vec2<u32>>;
@group(0) @binding(6) var<storage, read_write> control: array<atomic<u32>, 8>;
@group(0) @binding(7) var<uniform> params: Params;

var<workgroup> red_key: array<u32, WG>;
var<workgroup> red_idx: array<u32, WG>;
var<workgroup> scan: array<u32, WG>;
var<workgroup> pushes: atomic<u32>;
var<workgroup> shared_len: u32;
var<workgroup> shared_done: u32;
var<workgroup> shared_live: u32;

@compute @workgroup_size(WG)
fn init(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let stride = nwg.x * WG;
    for (var v = gid.x; v < params.n; v += stride) {
        atomicStore(&dist[v], select(INF, 0u, v == params.source));
    }
    if gid.x == 0u {
        queue[0] = vec2<u32>(0u, params.source);
    }
}

// Moves live entries (key != INF) to the front, in order; returns the new length.
fn compact(lid: u32, len: u32) -> u32 {
    var out = 0u;
    for (var base = 0u; base < len; base += WG) {
        let i = base + lid;
        var e = vec2<u32>(INF, 0u);
        if i < len {
            e = queue[i];
        }
        let keep = select(0u, 1u, e.x != INF);
        scan[lid] = keep;
        workgroupBarrier();
        for (var off = 1u; off < WG; off <<= 1u) {
            var add = 0u;
            if lid >= off {
                add = scan[lid - off];
            }
            workgroupBarrier();
            scan[lid] += add;
            workgroupBarrier();
        }
        let total = scan[WG - 1u];
        if keep == 1u {
            queue[out + scan[lid] - 1u] = e;
        }
        out += total;
        workgroupBarrier();
    }
    return out;
}

@compute @workgroup_size(WG)
fn run(@builtin(local_invocation_index) lid: u32) {
    for (var it = 0u; it < SETTLES; it++) {
        if lid == 0u {
            shared_done = atomicLoad(&control[0]);
            shared_len = atomicLoad(&control[1]);
            shared_live = atomicLoad(&control[2]);
            atomicStore(&pushes, 0u);
        }
        let done = workgroupUniformLoad(&shared_done);
        if done != 0u {
            break;
        }
        var len = workgroupUniformLoad(&shared_len);
        let live = workgroupUniformLoad(&shared_live);
        if len > 2u * live + 4u * WG {
            len = compact(lid, len);
        }
        // Arg-min over the queue; stale entries are dropped on the way.
        var bk = INF;
        var bi = INF;
        for (var i = lid; i < len; i += WG) {
            let e = queue[i];
            if e.x != INF {
                if e.x > atomicLoad(&dist[e.y]) {
                    queue[i].x = INF;
                    atomicSub(&control[2], 1u);
                } else if e.x < bk {
                    bk = e.x;
                    bi = i;
                }
            }
        }
        red_key[lid] = bk;
        red_idx[lid] = bi;
        workgroupBarrier();
        for (var half = WG / 2u; half > 0u; half >>= 1u) {
            if lid < half {
                let k2 = red_key[lid + half];
                let i2 = red_idx[lid + half];
                if k2 < red_key[lid] || (k2 == red_key[lid] && i2 < red_idx[lid]) {
                    red_key[lid] = k2;
                    red_idx[lid] = i2;
                }
            }
            workgroupBarrier();
        }
        let key = workgroupUniformLoad(&red_key[0]);
        if key == INF {
            if lid == 0u {
                atomicStore(&control[0], 1u);
                atomicStore(&control[1], 0u);
            }
            break;
        }
        let at = workgroupUniformLoad(&red_idx[0]);
        let u = queue[at].y;
        workgroupBarrier();
        if lid == 0u {
            queue[at].x = INF;
            atomicAdd(&control[3], 1u);
        }
        for (var a = offsets[u] + lid; a < offsets[u + 1u]; a += WG) {
            let v = targets[a];
            let nd = sat_add(key, weights[a]);
            if nd < atomicLoad(&dist[v]) {
                let old = atomicMin(&dist[v], nd);
                if nd < old {
                    let slot = len + atomicAdd(&pushes, 1u);
                    if slot < params.cap {
                        queue[slot] = vec2<u32>(nd, v);
                    } else {
                        atomicStore(&control[4], 1u);
                        atomicStore(&control[0], 1u);
                    }
                }
            }
        }
        workgroupBarrier();
        if lid == 0u {
            let p = atomicLoad(&pushes);
            atomicStore(&control[1], min(len + p, params.cap));
            // Stale removals already subtracted themselves; add the pushes, remove the settled entry.
            atomicAdd(&control[2], p);
            atomicSub(&control[2], 1u);
        }
        storageBarrier();
        workgroupBarrier();
    }
}
