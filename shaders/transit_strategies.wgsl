// Optimal strategies (Spiess & Florian) for a batch of destinations at once, and the loading of their
// origins' demand (CPU twin: algos_transit::strategies::gpu's `transit_strategies_mirror`, the same
// operations in the same order).
//
// The CPU sweep examines edges in one global order of `u_head + time`; here every vertex evaluates its
// own out-edges in that order from its heads' current labels, and the labels of a destination are
// iterated (Jacobi, two halves of `work`) until no label changes: at that fixpoint every vertex's
// evaluation sees its heads' final labels, as the CPU's does when it examines an edge. Equal keys are
// taken in out-edge order (the CPU: in the order they were pushed), which can move a label by an ulp
// where two lines with a wait tie exactly; volumes agree with the CPU to rounding.
//
// Entries, in order, for one batch:
// - `labels`: one workgroup per destination; its labels `u` end in the first row of its `work` rows.
// - `shares`: one invocation per (vertex, destination): the share of each out-edge (0 where it is not
//   attractive), as the CPU's `share`.
// - `loading`: one workgroup per destination: the origins' strategy costs (for the host's count of
//   unreachable trips), then the travellers at each vertex, iterated until no vertex changes: the
//   origin's demand, then every in-edge's tail's travellers × the edge's share, in in-edge order.
// - `edge_volumes`: one invocation per edge: its volume summed over the batch's destinations in order.
// - `congestion` (congested assignment, after `loading`): one workgroup per destination: what its
//   strategies cost its demand, the waits `Σ_i max_a v_a / f_a` of its current flows on the edges with a
//   wait, and those flows moved by the step toward this iteration's loads (CPU: congested.rs).
//!requires f64

// Invocations per workgroup (the pipeline's `WG`, GpuStrategyConfig::workgroup_size).
override WG: u32 = 256u;

struct Params {
    // Vertices, edges, destinations in this batch, most sweeps before giving up.
    n: u32,
    m: u32,
    dests: u32,
    max_sweeps: u32,
    // Congested assignment (`congestion`): edges with a wait, their tail groups, the batch's first
    // destination among all, and whether the flows have moved yet (iteration > 0).
    waits: u32,
    groups: u32,
    dest_offset: u32,
    moved: u32,
}

struct OutEdge {
    // Travel time floored as the CPU floors it; frequency, 0 where there is no wait.
    time: f64,
    freq: f64,
    head: u32,
    edge: u32,
}

struct Origin {
    trips: f64,
    // Written by `loading`: the strategy's cost at the origin (UNREACHED where there is none).
    cost: f64,
    vertex: u32,
    pad: u32,
}

struct Strategy {
    u: f64,
    freq: f64,
    no_wait: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
// Out-edge starts (n + 1), then in-edge starts (n + 1).
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read> out_edges: array<OutEdge>;
// (tail, edge) of the in-edges, grouped by head.
@group(0) @binding(3) var<storage, read> in_edges: array<vec2<u32>>;
// Destination vertices (dests), origin starts (dests + 1), then label and loading sweeps and origins
// without a strategy (3 × dests).
@group(0) @binding(4) var<storage, read_write> batch: array<u32>;
// Per destination, its origins sorted by vertex (one entry per vertex).
@group(0) @binding(5) var<storage, read_write> origins: array<Origin>;
// Per destination, two rows of n: labels, then travellers.
@group(0) @binding(6) var<storage, read_write> work: array<f64>;
// Per destination, a row of m shares.
@group(0) @binding(7) var<storage, read_write> share: array<f64>;
@group(0) @binding(8) var<storage, read_write> volume: array<f64>;
// Per destination, five rows of n words: see `rows`.
@group(0) @binding(9) var<storage, read_write> state: array<atomic<u32>>;
// Congested assignment: every destination's flows on the edges with a wait (destinations × waits).
@group(0) @binding(10) var<storage, read_write> flows: array<f64>;
// The edges with a wait: (edge, tail) pairs, then their indices grouped by tail, then the groups'
// starts (groups + 1).
@group(0) @binding(11) var<storage, read> waits: array<u32>;
// The step, then each wait edge's frequency this iteration (waits), then per destination of the batch
// its strategies' cost and its flows' waits (2 × dests, written).
@group(0) @binding(12) var<storage, read_write> congested: array<f64>;

// Origins of the destination without a strategy (`loading`).
var<workgroup> unreached_origins: atomic<u32>;

fn unreached() -> f64 {
    return f64(1e300);
}

// The next out-edge of `v` after (`prev_key`, `prev_pos`) in increasing (key, position), among those
// whose head is labelled in the row at `src`; `hi` where there is none.
fn next_edge(lo: u32, hi: u32, src: u32, prev_key: f64, prev_pos: u32) -> vec2<u32> {
    var best = hi;
    var best_key = unreached();
    for (var k = lo; k < hi; k++) {
        let uj = work[src + out_edges[k].head];
        if uj >= unreached() {
            continue;
        }
        let key = uj + out_edges[k].time;
        let after = key > prev_key || (key == prev_key && k > prev_pos);
        if after && (best == hi || key < best_key) {
            best = k;
            best_key = key;
        }
    }
    return vec2<u32>(best, 0u);
}

// One examined edge `e` (key `u_head + time`) applied to the strategy `s` as the CPU's sweep applies
// it; `stop` once no later edge can join (every later key is at least this one). With `write`, the
// edge's share goes to the share row at `srow` (`fin` is the vertex's final strategy).
struct Step {
    s: Strategy,
    stop: bool,
}

fn apply(s0: Strategy, e: OutEdge, uj: f64, key: f64, write: bool, srow: u32, fin: Strategy) -> Step {
    var s = s0;
    if s.u < key {
        return Step(s, true);
    }
    if uj >= s.u {
        return Step(s, false);
    }
    let f = e.freq;
    if s.no_wait > 0u {
        if f == f64(0.0) {
            s.no_wait += 1u;
            if write {
                share[srow + e.edge] = f64(1.0) / f64(fin.no_wait);
            }
        }
        return Step(s, false);
    }
    if f == f64(0.0) {
        s.u = key;
        s.no_wait = 1u;
    } else if s.freq == f64(0.0) {
        s.u = f64(1.0) / f + key;
        s.freq = f;
    } else {
        // Fused as the CPU fuses it (destination.rs): left to itself, the compiler may fuse either
        // product with the sum, and an ulp moves ties.
        s.u = fma(s.freq, s.u, f * key) / (s.freq + f);
        s.freq = s.freq + f;
    }
    if write {
        if fin.no_wait == 0u {
            share[srow + e.edge] = f / fin.freq;
        } else if f == f64(0.0) {
            share[srow + e.edge] = f64(1.0) / f64(fin.no_wait);
        }
    }
    return Step(s, false);
}

// The CPU's examination of `v`'s out-edges (destination.rs `strategy`) in increasing (key, position),
// from the labels at `src`: each step scans the out-edges for the next one (sorting them in private
// memory was measured slower: the arrays spill). With `write`, the shares of its out-edges go to the
// share row at `srow` (needs the final F: the caller passes the strategy of a first call as `fin`).
fn evaluate(v: u32, src: u32, write: bool, srow: u32, fin: Strategy) -> Strategy {
    let lo = offsets[v];
    let hi = offsets[v + 1u];
    if write {
        for (var k = lo; k < hi; k++) {
            share[srow + out_edges[k].edge] = f64(0.0);
        }
    }
    var s = Strategy(unreached(), f64(0.0), 0u);
    var prev_key = f64(-1.0);
    var prev_pos = 0u;
    loop {
        let k = next_edge(lo, hi, src, prev_key, prev_pos).x;
        if k == hi {
            break;
        }
        let e = out_edges[k];
        let uj = work[src + e.head];
        let key = uj + e.time;
        prev_key = key;
        prev_pos = k;
        let r = apply(s, e, uj, key, write, srow, fin);
        s = r.s;
        if r.stop {
            break;
        }
    }
    return s;
}

// Per destination, `work` holds two halves of n labels (or travellers), and `state` five rows of n
// words: the sweep each vertex is due in (`due`), two frontiers (the vertices due in this sweep and
// in the next) and two lists of the vertices that changed (in this sweep and in the one before). A
// sweep evaluates its frontier only: the vertices next to one that changed in the sweep before (the
// rest would compute what they hold). A vertex that changed in the sweep before is first copied to
// the half being written, which holds its value from two sweeps ago. Lists are filled in any order;
// each evaluation reads only the other half, so the values do not depend on it.
fn rows(d: u32) -> u32 {
    return d * 2u * params.n;
}

fn state_rows(d: u32) -> u32 {
    return d * 5u * params.n;
}

// Sizes of this sweep's frontier and of the last sweep's changed list (uniform), and the counters of
// the lists being filled.
var<workgroup> sizes: vec2<u32>;
var<workgroup> next_size: atomic<u32>;
var<workgroup> moved_size: atomic<u32>;

// Before the first sweep: both halves `elsewhere` (`at_dest` at `dest`), nothing due.
fn clear_rows(d: u32, l: u32, dest: u32, at_dest: f64, elsewhere: f64) {
    let n = params.n;
    let base = rows(d);
    let due = state_rows(d);
    for (var v = l; v < n; v += WG) {
        let x = select(elsewhere, at_dest, v == dest);
        work[base + v] = x;
        work[base + n + v] = x;
        atomicStore(&state[due + v], 0u);
    }
    if l == 0u {
        atomicStore(&next_size, 0u);
        atomicStore(&moved_size, 0u);
    }
    storageBarrier();
    workgroupBarrier();
}

// Puts `v` on the frontier of sweep `s` once (the first claim of the sweep wins).
fn make_due(d: u32, v: u32, s: u32) {
    let st = state_rows(d);
    if atomicMax(&state[st + v], s) < s {
        let k = atomicAdd(&next_size, 1u);
        atomicStore(&state[st + (1u + s % 2u) * params.n + k], v);
    }
}

// Ends the marking of a sweep: the next frontier's size and this sweep's changed list's (uniform).
fn next_sweep(l: u32) -> vec2<u32> {
    storageBarrier();
    workgroupBarrier();
    if l == 0u {
        sizes = vec2<u32>(atomicLoad(&next_size), atomicLoad(&moved_size));
        atomicStore(&next_size, 0u);
        atomicStore(&moved_size, 0u);
    }
    return workgroupUniformLoad(&sizes);
}

// The first frontier has been marked: its size.
fn first_sweep(l: u32) -> vec2<u32> {
    let z = next_sweep(l);
    return vec2<u32>(z.x, 0u);
}

// Copies the second half of a destination's rows to the first when the sweeps ended there.
fn settle_first_half(d: u32, cur: u32, l: u32) {
    let n = params.n;
    let base = rows(d);
    if cur == 1u {
        for (var v = l; v < n; v += WG) {
            work[base + v] = work[base + n + v];
        }
    }
    storageBarrier();
}

// The start of sweep `s`: copies the vertices that changed in the sweep before to the half written
// now. `size.y` is that list's size.
fn carry_moved(d: u32, s: u32, size: vec2<u32>, src: u32, dst: u32, l: u32) {
    let st = state_rows(d);
    let list = st + (3u + (s + 1u) % 2u) * params.n;
    for (var i = l; i < size.y; i += WG) {
        let v = atomicLoad(&state[list + i]);
        work[dst + v] = work[src + v];
    }
    storageBarrier();
}

// Records that `v` changed in sweep `s`.
fn record_moved(d: u32, v: u32, s: u32) {
    let k = atomicAdd(&moved_size, 1u);
    atomicStore(&state[state_rows(d) + (3u + s % 2u) * params.n + k], v);
}

// The `i`-th vertex of sweep `s`'s frontier, and of its changed list.
fn frontier_at(d: u32, s: u32, i: u32) -> u32 {
    return atomicLoad(&state[state_rows(d) + (1u + s % 2u) * params.n + i]);
}

fn moved_at(d: u32, s: u32, i: u32) -> u32 {
    return atomicLoad(&state[state_rows(d) + (3u + s % 2u) * params.n + i]);
}

// The size of the changed list of this sweep, after every evaluation (uniform).
fn moved_count(l: u32) -> u32 {
    storageBarrier();
    workgroupBarrier();
    if l == 0u {
        sizes.y = atomicLoad(&moved_size);
    }
    return workgroupUniformLoad(&sizes).y;
}

@compute @workgroup_size(WG)
fn labels(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) l: u32) {
    let d = wg.x;
    let n = params.n;
    let dest = batch[d];
    let base = rows(d);
    clear_rows(d, l, dest, f64(0.0), unreached());
    // The first sweep evaluates the destination's in-neighbours.
    for (var k = offsets[n + 1u + dest] + l; k < offsets[n + 2u + dest]; k += WG) {
        if in_edges[k].x != dest {
            make_due(d, in_edges[k].x, 1u);
        }
    }
    var size = first_sweep(l);
    var cur = 0u;
    var sweeps = 0u;
    loop {
        sweeps += 1u;
        let s = sweeps;
        let src = base + cur * n;
        let dst = base + (1u - cur) * n;
        carry_moved(d, s, size, src, dst, l);
        for (var i = l; i < size.x; i += WG) {
            let v = frontier_at(d, s, i);
            let u = evaluate(v, src, false, 0u, Strategy(f64(0.0), f64(0.0), 0u)).u;
            work[dst + v] = u;
            if u != work[src + v] {
                record_moved(d, v, s);
            }
        }
        // Those that changed make their in-neighbours due in the next sweep.
        let moved = moved_count(l);
        for (var i = l; i < moved; i += WG) {
            let v = moved_at(d, s, i);
            for (var k = offsets[n + 1u + v]; k < offsets[n + 2u + v]; k++) {
                if in_edges[k].x != dest {
                    make_due(d, in_edges[k].x, s + 1u);
                }
            }
        }
        size = next_sweep(l);
        cur = 1u - cur;
        if size.y == 0u || sweeps >= params.max_sweeps {
            break;
        }
    }
    settle_first_half(d, cur, l);
    if l == 0u {
        batch[2u * params.dests + 1u + d] = sweeps;
    }
}

@compute @workgroup_size(WG)
fn shares(@builtin(global_invocation_id) id: vec3<u32>) {
    let v = id.x;
    let d = id.y;
    if v >= params.n || d >= params.dests {
        return;
    }
    let src = rows(d);
    let srow = d * params.m;
    if v == batch[d] {
        for (var k = offsets[v]; k < offsets[v + 1u]; k++) {
            share[srow + out_edges[k].edge] = f64(0.0);
        }
        return;
    }
    let fin = evaluate(v, src, false, 0u, Strategy(f64(0.0), f64(0.0), 0u));
    evaluate(v, src, true, srow, fin);
}

// The travellers that enter at vertex `v` for destination `d`: its origin's trips where it has a
// strategy (binary search of the destination's origins, sorted by vertex).
fn seed(d: u32, v: u32) -> f64 {
    var lo = batch[params.dests + d];
    var hi = batch[params.dests + d + 1u];
    while lo < hi {
        let mid = (lo + hi) / 2u;
        if origins[mid].vertex < v {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    if lo < batch[params.dests + d + 1u] && origins[lo].vertex == v && origins[lo].cost < unreached() {
        return origins[lo].trips;
    }
    return f64(0.0);
}

@compute @workgroup_size(WG)
fn loading(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) l: u32) {
    let d = wg.x;
    let n = params.n;
    let base = rows(d);
    let srow = d * params.m;
    let first = batch[params.dests + d];
    let last = batch[params.dests + d + 1u];
    if l == 0u {
        atomicStore(&unreached_origins, 0u);
    }
    for (var o = first + l; o < last; o += WG) {
        let cost = work[base + origins[o].vertex];
        origins[o].cost = cost;
        if cost >= unreached() {
            atomicAdd(&unreached_origins, 1u);
        }
    }
    storageBarrier();
    clear_rows(d, l, n, f64(0.0), f64(0.0));
    // The first sweep evaluates the origins.
    for (var o = first + l; o < last; o += WG) {
        make_due(d, origins[o].vertex, 1u);
    }
    var size = first_sweep(l);
    var cur = 0u;
    var sweeps = 0u;
    loop {
        sweeps += 1u;
        let s = sweeps;
        let src = base + cur * n;
        let dst = base + (1u - cur) * n;
        carry_moved(d, s, size, src, dst, l);
        for (var i = l; i < size.x; i += WG) {
            let v = frontier_at(d, s, i);
            var x = seed(d, v);
            for (var k = offsets[n + 1u + v]; k < offsets[n + 2u + v]; k++) {
                let te = in_edges[k];
                let sh = share[srow + te.y];
                if sh != f64(0.0) {
                    x = x + work[src + te.x] * sh;
                }
            }
            work[dst + v] = x;
            if x != work[src + v] {
                record_moved(d, v, s);
            }
        }
        // Those that changed make the heads of their attractive edges due in the next sweep.
        let moved = moved_count(l);
        for (var i = l; i < moved; i += WG) {
            let v = moved_at(d, s, i);
            for (var k = offsets[v]; k < offsets[v + 1u]; k++) {
                if share[srow + out_edges[k].edge] != f64(0.0) {
                    make_due(d, out_edges[k].head, s + 1u);
                }
            }
        }
        size = next_sweep(l);
        cur = 1u - cur;
        if size.y == 0u || sweeps >= params.max_sweeps {
            break;
        }
    }
    settle_first_half(d, cur, l);
    if l == 0u {
        batch[3u * params.dests + 1u + d] = sweeps;
        batch[4u * params.dests + 1u + d] = atomicLoad(&unreached_origins);
    }
}

@compute @workgroup_size(WG)
fn edge_volumes(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    // The grid may be split over y when the edges need more workgroups than one dimension holds.
    let k = id.x + id.y * groups.x * WG;
    if k >= params.m {
        return;
    }
    let te = in_edges[k];
    var x = f64(0.0);
    for (var d = 0u; d < params.dests; d++) {
        let s = share[d * params.m + te.y];
        if s != f64(0.0) {
            x = x + work[rows(d) + te.x] * s;
        }
    }
    volume[te.y] = x;
}

@compute @workgroup_size(WG)
fn congestion(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) l: u32) {
    let d = wg.x;
    let nw = params.waits;
    let frow = (params.dest_offset + d) * nw;
    let base = rows(d);
    let srow = d * params.m;
    let out = 1u + nw + 2u * d;
    // In order on one invocation: the sums are the same bits on every run.
    if l == 0u {
        var waiting = f64(0.0);
        if params.moved != 0u {
            let grouped = 2u * nw;
            let starts = 3u * nw;
            for (var t = 0u; t < params.groups; t++) {
                var longest = f64(0.0);
                for (var k = waits[starts + t]; k < waits[starts + t + 1u]; k++) {
                    let w = waits[grouped + k];
                    longest = max(longest, flows[frow + w] / congested[1u + w]);
                }
                waiting = waiting + longest;
            }
        }
        var cost = f64(0.0);
        for (var o = batch[params.dests + d]; o < batch[params.dests + d + 1u]; o++) {
            if origins[o].cost < unreached() {
                cost = cost + origins[o].trips * origins[o].cost;
            }
        }
        congested[out] = cost;
        congested[out + 1u] = waiting;
    }
    storageBarrier();
    workgroupBarrier();
    let step = congested[0];
    for (var w = l; w < nw; w += WG) {
        let a = waits[2u * w];
        let sh = share[srow + a];
        var y = f64(0.0);
        if sh != f64(0.0) {
            y = work[base + waits[2u * w + 1u]] * sh;
        }
        flows[frow + w] = flows[frow + w] + step * (y - flows[frow + w]);
    }
}
