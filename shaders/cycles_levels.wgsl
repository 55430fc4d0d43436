// Chordless cycles by level-synchronous path expansion (spec cycles.md §3.5), with the memory bound
// of a depth-first search over chunks of levels. CPU mirror: crates/algos-cycles/src/levels.rs
// (same steps, same decisions, same output order).
//
// A path is a row `[v1, v2, last, bitmap of its vertices]` in ranked ids (v2 has the smallest rank);
// every path of depth d has d + 3 vertices. Depth d lives on stack d % 2 (rows [s·cap, s·cap + top[s]));
// the rows of a depth are one segment `[seg[d], top)` at the top of their stack, above the leftovers of
// depth d − 2. One step expands a chunk popped from the deepest non-empty depth into depth d + 1:
//   count   one invocation per row of the window (the last w rows of the segment): its children and
//           cycles, plus one sum per workgroup;
//   fit     one workgroup: exclusive scan of the workgroup sums, then the longest suffix of the
//           window whose children fit the other stack (and whose cycles fit the cycle buffer): the
//           whole level when it fits, so levels that fit run breadth-first in CPU order; else a
//           chunk whose children take at most half the free rows;
//   write   children rows and cycle records at their scanned offsets (deterministic, no atomics);
//   finish  one invocation: pop the chunk, push its children, add its cycles to the per-length
//           counters (64-bit), then plan the next step: backtrack over empty depths, choose the
//           window and write the indirect grid of count/write (zero once done).
// A candidate v (a neighbour of `last` ranked above v2, not on the path) is rejected when one of its
// neighbours other than `last` is on the path, unless that neighbour is v1 alone: then v closes a cycle.
//!include grid

override WG: u32 = 256;

struct Params {
    n: u32,
    // Bitmap words per row, and row stride (3 + words).
    words: u32,
    stride: u32,
    // Rows per stack.
    cap: u32,
    // Cycle records the cycle buffer holds (0: count only).
    cycle_cap: u32,
    min_len: u32,
    max_len: u32,
    // Most rows counted in one step (the scratch holds that many).
    wmax: u32,
    max_per_dim: u32,
    // Where the adjacency starts in `graph` (after n + 1 offsets), and the block sums in `scratch`.
    adj_at: u32,
    blocks_at: u32,
    // Where the depth segments start in `control`.
    seg_at: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
// CSR offsets (n + 1), then the adjacency, sorted by rank.
@group(0) @binding(1) var<storage, read> graph: array<u32>;
// Both stacks of path rows.
@group(0) @binding(2) var<storage, read_write> arena: array<u32>;
// (children, cycles) per window row, then per workgroup (made exclusive prefixes by `fit`).
@group(0) @binding(3) var<storage, read_write> scratch: array<vec2<u32>>;
// Machine state, cycle counters per length, depth segments (layout: C_* below).
@group(0) @binding(4) var<storage, read_write> control: array<u32>;
// Cycle records (rows of the same layout; `last` is the closing vertex).
@group(0) @binding(5) var<storage, read_write> cycles: array<u32>;
// The indirect grid of count and write (its own buffer: a dispatch may not read its grid from a
// buffer it also writes).
@group(0) @binding(6) var<storage, read_write> args: array<u32, 3>;

const DONE: u32 = 1u;
const OUT_OF_MEMORY: u32 = 2u;
const STALLED: u32 = 4u;
const NONE: u32 = 0xffffffffu;

// Words 0..3 are reserved.
const C_FLAGS: u32 = 3u;
const C_DEPTH: u32 = 4u;
const C_TOP: u32 = 5u;
const C_WIN: u32 = 7u;
const C_W: u32 = 8u;
const C_OUT: u32 = 9u;
const C_LEN: u32 = 10u;
const C_CUT: u32 = 11u;
const C_CUT_PREFIX: u32 = 12u;
const C_CHUNK: u32 = 14u;
const C_STORED: u32 = 16u;
const C_STEPS: u32 = 17u;
const C_PEAK: u32 = 18u;
const C_REST: u32 = 19u;
const C_LENGTHS: u32 = 32u;

var<workgroup> sums: array<vec2<u32>, WG>;
var<workgroup> wg_flags: u32;
var<workgroup> wg_block: u32;
var<workgroup> wg_cut: atomic<u32>;
var<workgroup> wg_cut_prefix: vec2<u32>;

fn on_path(at: u32, v: u32) -> bool {
    return ((arena[at + 3u + (v >> 5u)] >> (v & 31u)) & 1u) != 0u;
}

fn copy_row(src: u32, dst_is_cycle: bool, dst: u32, v: u32) {
    for (var k = 0u; k < params.stride; k++) {
        var word = arena[src + k];
        if k == 2u {
            word = v;
        } else if k == 3u + (v >> 5u) {
            word |= 1u << (v & 31u);
        }
        if dst_is_cycle {
            cycles[dst + k] = word;
        } else {
            arena[dst + k] = word;
        }
    }
}

// Children and cycles of the path in `row` (len vertices); with `write`, also writes them at rows
// `child_row` and `cycle_row` onward, in adjacency order.
fn visit(row: u32, len: u32, write: bool, child_row: u32, cycle_row: u32) -> vec2<u32> {
    let at = row * params.stride;
    let grow = len + 2u <= params.max_len;
    let close = len + 1u <= params.max_len && len + 1u >= params.min_len;
    var found = vec2<u32>(0u, 0u);
    if !grow && len + 1u > params.max_len {
        return found;
    }
    let v1 = arena[at];
    let v2 = arena[at + 1u];
    let last = arena[at + 2u];
    let end = graph[last + 1u];
    for (var k = graph[last]; k < end; k++) {
        let v = graph[params.adj_at + k];
        if v <= v2 || on_path(at, v) {
            continue;
        }
        var chord = false;
        var closes = false;
        let v_end = graph[v + 1u];
        for (var j = graph[v]; j < v_end; j++) {
            let w = graph[params.adj_at + j];
            if w != last && on_path(at, w) {
                if w == v1 {
                    closes = true;
                } else {
                    chord = true;
                    break;
                }
            }
        }
        if chord {
            continue;
        }
        if closes {
            if close {
                if write && params.cycle_cap > 0u {
                    copy_row(at, true, (cycle_row + found.y) * params.stride, v);
                }
                found.y += 1u;
            }
        } else if grow {
            if write {
                copy_row(at, false, (child_row + found.x) * params.stride, v);
            }
            found.x += 1u;
        }
    }
    return found;
}

// Chooses the next step's window, or marks the machine done (zero grid either way when not stepping).
fn plan() {
    args[0] = 0u;
    args[1] = 1u;
    args[2] = 1u;
    if control[C_FLAGS] != 0u {
        return;
    }
    var d = control[C_DEPTH];
    loop {
        if d == NONE {
            control[C_FLAGS] |= DONE;
            control[C_DEPTH] = NONE;
            return;
        }
        if control[C_TOP + (d & 1u)] > control[params.seg_at + d] {
            break;
        }
        d = select(d - 1u, NONE, d == 0u);
    }
    let s = d & 1u;
    let o = 1u - s;
    let r = control[C_TOP + s] - control[params.seg_at + d];
    let free = params.cap - control[C_TOP + o];
    let w = min(min(r, params.wmax), max(free, 1024u));
    control[C_DEPTH] = d;
    control[C_WIN] = s * params.cap + control[C_TOP + s] - w;
    control[C_W] = w;
    control[C_REST] = r;
    control[C_OUT] = o * params.cap + control[C_TOP + o];
    control[C_LEN] = d + 3u;
    let groups = (w + WG - 1u) / WG;
    let x = min(groups, params.max_per_dim);
    args[0] = x;
    args[1] = (groups + x - 1u) / x;
}

@compute @workgroup_size(1)
fn start() {
    plan();
}

// Exclusive workgroup scan of `sums` (Hillis–Steele); returns this invocation's exclusive prefix
// and leaves the inclusive ones in `sums`.
fn workgroup_exclusive(lid: u32, value: vec2<u32>) -> vec2<u32> {
    sums[lid] = value;
    workgroupBarrier();
    for (var step = 1u; step < WG; step <<= 1u) {
        var add = vec2<u32>(0u, 0u);
        if lid >= step {
            add = sums[lid - step];
        }
        workgroupBarrier();
        sums[lid] += add;
        workgroupBarrier();
    }
    return sums[lid] - value;
}

fn load_flags(lid: u32) -> u32 {
    if lid == 0u {
        wg_flags = control[C_FLAGS];
    }
    return workgroupUniformLoad(&wg_flags);
}

@compute @workgroup_size(WG)
fn count(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let flags = load_flags(lid);
    if flags != 0u {
        return;
    }
    let i = flat_index(wid, nwg, lid, WG);
    var c = vec2<u32>(0u, 0u);
    if i < control[C_W] {
        c = visit(control[C_WIN] + i, control[C_LEN], false, 0u, 0u);
        scratch[i] = c;
    }
    sums[lid] = c;
    workgroupBarrier();
    for (var half = WG / 2u; half > 0u; half >>= 1u) {
        if lid < half {
            sums[lid] += sums[lid + half];
        }
        workgroupBarrier();
    }
    if lid == 0u {
        scratch[params.blocks_at + flat_workgroup(wid, nwg)] = sums[0];
    }
}

// Whether the suffix of the window after exclusive prefix `p` (of totals `t`) fits.
fn fits(t: vec2<u32>, p: vec2<u32>, free: vec2<u32>) -> bool {
    return t.x - p.x <= free.x && t.y - p.y <= free.y;
}

@compute @workgroup_size(WG)
fn fit(@builtin(local_invocation_index) lid: u32) {
    let flags = load_flags(lid);
    if flags != 0u {
        return;
    }
    let w = control[C_W];
    let nb = (w + WG - 1u) / WG;
    // Each invocation scans a run of consecutive blocks: sum, workgroup scan of the run sums, then
    // the exclusive prefixes in place.
    let per = (nb + WG - 1u) / WG;
    let lo = min(lid * per, nb);
    let hi = min(lo + per, nb);
    var run = vec2<u32>(0u, 0u);
    for (var b = lo; b < hi; b++) {
        run += scratch[params.blocks_at + b];
    }
    var prefix = workgroup_exclusive(lid, run);
    let total = sums[WG - 1u];
    for (var b = lo; b < hi; b++) {
        let here = scratch[params.blocks_at + b];
        scratch[params.blocks_at + b] = prefix;
        prefix += here;
    }
    storageBarrier();
    workgroupBarrier();
    let s = control[C_DEPTH] & 1u;
    var free = vec2<u32>(params.cap - control[C_TOP + (1u - s)], NONE);
    if params.cycle_cap > 0u {
        free.y = params.cycle_cap - control[C_STORED];
    }
    // A whole level that fits runs breadth-first. Otherwise a chunk takes at most half the room left,
    // so the depths below it (which stack on the same two stacks) still find some.
    if w != control[C_REST] || !fits(total, vec2<u32>(0u, 0u), free) {
        free.x /= 2u;
    }
    // The first block whose suffix fits (block nb is the empty suffix, which always does).
    if lid == 0u {
        var a = 0u;
        var z = nb;
        while a < z {
            let mid = (a + z) / 2u;
            if fits(total, scratch[params.blocks_at + mid], free) {
                z = mid;
            } else {
                a = mid + 1u;
            }
        }
        wg_block = a;
        atomicStore(&wg_cut, select(min(a * WG, w), 0u, a == 0u));
        if a == 0u || a == nb {
            wg_cut_prefix = select(total, vec2<u32>(0u, 0u), a == 0u);
        } else {
            wg_cut_prefix = scratch[params.blocks_at + a];
        }
    }
    let block = workgroupUniformLoad(&wg_block);
    // The boundary lies in the block before: its first row whose suffix fits.
    if block > 0u {
        let row = (block - 1u) * WG + lid;
        var c = vec2<u32>(0u, 0u);
        if row < w {
            c = scratch[row];
        }
        let p = scratch[params.blocks_at + block - 1u] + workgroup_exclusive(lid, c);
        if row < w && fits(total, p, free) {
            atomicMin(&wg_cut, row);
        }
        workgroupBarrier();
        if row < w && atomicLoad(&wg_cut) == row {
            wg_cut_prefix = p;
        }
    }
    workgroupBarrier();
    if lid == 0u {
        let cut = atomicLoad(&wg_cut);
        if cut == w {
            control[C_FLAGS] |= select(OUT_OF_MEMORY, STALLED, params.cycle_cap > 0u && control[C_STORED] > 0u);
        }
        control[C_CUT] = cut;
        control[C_CUT_PREFIX] = wg_cut_prefix.x;
        control[C_CUT_PREFIX + 1u] = wg_cut_prefix.y;
        control[C_CHUNK] = total.x - wg_cut_prefix.x;
        control[C_CHUNK + 1u] = total.y - wg_cut_prefix.y;
    }
}

@compute @workgroup_size(WG)
fn write(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let flags = load_flags(lid);
    if flags != 0u {
        return;
    }
    let i = flat_index(wid, nwg, lid, WG);
    let w = control[C_W];
    var c = vec2<u32>(0u, 0u);
    if i < w {
        c = scratch[i];
    }
    let local = workgroup_exclusive(lid, c);
    let cut = control[C_CUT];
    if i < w && i >= cut && c.x + c.y > 0u {
        let cut_prefix = vec2<u32>(control[C_CUT_PREFIX], control[C_CUT_PREFIX + 1u]);
        let at = scratch[params.blocks_at + flat_workgroup(wid, nwg)] + local - cut_prefix;
        visit(control[C_WIN] + i, control[C_LEN], true, control[C_OUT] + at.x, control[C_STORED] + at.y);
    }
}

// 64-bit counter at word `at` += x.
fn add64(at: u32, x: u32) {
    let lo = control[at] + x;
    if lo < x {
        control[at + 1u] += 1u;
    }
    control[at] = lo;
}

@compute @workgroup_size(1)
fn finish() {
    if control[C_FLAGS] != 0u {
        plan();
        return;
    }
    let d = control[C_DEPTH];
    let s = d & 1u;
    let o = 1u - s;
    control[C_TOP + s] -= control[C_W] - control[C_CUT];
    let children = control[C_CHUNK];
    let found = control[C_CHUNK + 1u];
    add64(C_LENGTHS + 2u * (control[C_LEN] + 1u), found);
    if params.cycle_cap > 0u {
        control[C_STORED] += found;
    }
    if children > 0u {
        control[params.seg_at + d + 1u] = control[C_TOP + o];
        control[C_TOP + o] += children;
        control[C_DEPTH] = d + 1u;
    }
    control[C_STEPS] += 1u;
    control[C_PEAK] = max(control[C_PEAK], control[C_TOP] + control[C_TOP + 1u]);
    plan();
}
