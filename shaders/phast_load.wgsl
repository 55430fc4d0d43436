// Flows along the trees of a PHAST pass (issue 21; the CPU twin is algos_sssp::ch::load): each
// (vertex, tree) hands what it carries to its parent in the hierarchy — the upward-search arc when the
// upward search gave its final label, else its first tight downward in-arc — adding it to that arc's
// load. Downward-parented vertices go level by level from the deepest (`lift`, one dispatch per
// level), then each tree's upward-search vertices in decreasing rank (`climb`, one invocation per
// tree). Amounts and loads are 64-bit fixed-point integers kept as (lo, hi) word pairs: integer adds
// commute, so the loads equal the CPU twin's bit for bit whatever the scheduling.
//!include grid
//!include sssp_common
//!include chain_min

override WG: u32 = 256;

struct Params {
    // lift: positions [start, end) of this level; reset: cells in `end`; inject: pairs in `start`;
    // mark: seeds in `start`.
    start: u32,
    end: u32,
    // Trees per pass.
    k: u32,
    // Hierarchy slots of the upward arcs (downward arc a is slot `up_slots + a`).
    up_slots: u32,
}

const NONE: u32 = 0xFFFFFFFFu;
const ROOT: u32 = 0xFFFFFFFEu;

// Labels of the pass: dist[p * k + lane].
@group(0) @binding(3) var<storage, read> dist: array<u32>;
// Upward-search results, lane by lane, decreasing rank within a lane:
// (cell, label, up arc or NONE, parent's cell).
@group(0) @binding(4) var<storage, read> seeds: array<vec4<u32>>;
@group(0) @binding(5) var<uniform> params: Params;
@group(0) @binding(6) var<storage, read> pos_of_vertex: array<u32>;
// What each cell carries: (lo, hi) words.
@group(0) @binding(7) var<storage, read_write> acc: array<atomic<u32>>;
// Up arc of the cells whose label the upward search gave (ROOT for the source), else NONE.
@group(0) @binding(8) var<storage, read_write> up_arc: array<u32>;
// Hierarchy slot of every device in-arc (level order).
@group(0) @binding(9) var<storage, read> down_slot: array<u32>;
// Loads per hierarchy slot: (lo, hi) words.
@group(0) @binding(10) var<storage, read_write> loads: array<atomic<u32>>;
// control: [unreachable pairs, saturated distances, _, _]
@group(0) @binding(11) var<storage, read_write> control: array<atomic<u32>, 4>;
// (lane, destination vertex, amount lo, amount hi) per OD pair.
@group(0) @binding(12) var<storage, read> od: array<vec4<u32>>;
// Seeds of lane l: seeds[seed_lanes[l] .. seed_lanes[l + 1]].
@group(0) @binding(13) var<storage, read> seed_lanes: array<u32>;

fn add_acc(cell: u32, lo: u32, hi: u32) {
    let old = atomicAdd(&acc[2u * cell], lo);
    let carry = select(0u, 1u, old > 0xFFFFFFFFu - lo);
    if hi + carry != 0u {
        atomicAdd(&acc[2u * cell + 1u], hi + carry);
    }
}

fn add_load(slot: u32, lo: u32, hi: u32) {
    let old = atomicAdd(&loads[2u * slot], lo);
    let carry = select(0u, 1u, old > 0xFFFFFFFFu - lo);
    if hi + carry != 0u {
        atomicAdd(&loads[2u * slot + 1u], hi + carry);
    }
}

@compute @workgroup_size(WG)
fn reset(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid, WG);
    if i < params.end {
        atomicStore(&acc[2u * i], 0u);
        atomicStore(&acc[2u * i + 1u], 0u);
        up_arc[i] = NONE;
    }
}

// One invocation per seed: the cells whose final label is the upward search's.
@compute @workgroup_size(WG)
fn mark(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid, WG);
    if i >= params.start {
        return;
    }
    let s = seeds[i];
    // An ancestor the device's upward search never reached (label INF) gave no label.
    if s.y != INF && dist[s.x] == s.y {
        up_arc[s.x] = select(s.z, ROOT, s.z == NONE);
    }
}

// One invocation per OD pair: its amount arrives at its destination's cell.
@compute @workgroup_size(WG)
fn inject(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid, WG);
    if i >= params.start {
        return;
    }
    let pair = od[i];
    let cell = pos_of_vertex[pair.y] * params.k + pair.x;
    let d = dist[cell];
    if d == INF {
        atomicAdd(&control[0], 1u);
        return;
    }
    if d == OVF {
        atomicAdd(&control[1], 1u);
        return;
    }
    add_acc(cell, pair.z, pair.w);
}

// A downward-parented cell hands its flow to the tail of its first tight in-arc; its children sat
// deeper, handled earlier, so its total is final.
fn lift_cell(p: u32, lane: u32) {
    let k = params.k;
    let cell = p * k + lane;
    if up_arc[cell] != NONE {
        return;
    }
    let lo = atomicLoad(&acc[2u * cell]);
    let hi = atomicLoad(&acc[2u * cell + 1u]);
    if lo == 0u && hi == 0u {
        return;
    }
    let d = dist[cell];
    let end = offsets[p + 1u];
    for (var a = offsets[p]; a < end; a++) {
        let tail = targets[a] * k + lane;
        if sat_add(dist[tail], weights[a]) == d {
            add_acc(tail, lo, hi);
            add_load(params.up_slots + down_slot[a], lo, hi);
            return;
        }
    }
}

// One invocation per (vertex, tree) of a level.
@compute @workgroup_size(WG)
fn lift(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid, WG);
    let k = params.k;
    if i >= (params.end - params.start) * k {
        return;
    }
    lift_cell(params.start + i / k, i % k);
}

// One invocation per tree: its upward-search cells in decreasing rank hand their flow to their
// upward-search parent.
@compute @workgroup_size(WG)
fn climb(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let lane = flat_index(wid, nwg, lid, WG);
    if lane >= params.start {
        return;
    }
    for (var i = seed_lanes[lane]; i < seed_lanes[lane + 1u]; i++) {
        let s = seeds[i];
        if s.z == NONE || up_arc[s.x] != s.z {
            continue;
        }
        let lo = atomicLoad(&acc[2u * s.x]);
        let hi = atomicLoad(&acc[2u * s.x + 1u]);
        if lo != 0u || hi != 0u {
            add_acc(s.w, lo, hi);
            add_load(s.z, lo, hi);
        }
    }
}

// `lift` for the top of the DAG — the leading levels the sweep's `chain` kernel took, positions
// [start, end) — in one dispatch: one workgroup per tree walks them from the deepest up, its threads
// splitting each cell's in-arcs to find the first tight one (the least index, as `lift_cell`'s loop
// finds it), the first thread handing the flow on. A cell's children sit at later positions: handed
// on by this workgroup earlier (the storage barrier makes their adds visible) or by earlier dispatches.

@compute @workgroup_size(64)
fn lift_chain(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let lane = wid.x + wid.y * nwg.x;
    let k = params.k;
    if lane >= k {
        return;
    }
    var p = params.end;
    while p > params.start {
        p -= 1u;
        let cell = p * k + lane;
        let lo = atomicLoad(&acc[2u * cell]);
        let hi = atomicLoad(&acc[2u * cell + 1u]);
        // Every thread takes part in the reduction (barriers need the whole workgroup); a cell with
        // nothing to hand on, or parented by the upward search, looks for no arc.
        let carries = up_arc[cell] == NONE && (lo != 0u || hi != 0u);
        var first = NONE;
        if carries {
            let d = dist[cell];
            let end = offsets[p + 1u];
            for (var a = offsets[p] + lid; a < end; a += CW) {
                if sat_add(dist[targets[a] * k + lane], weights[a]) == d {
                    first = a;
                    break;
                }
            }
        }
        let a = chain_min(lid, first);
        if lid == 0u && a != NONE {
            add_acc(targets[a] * k + lane, lo, hi);
            add_load(params.up_slots + down_slot[a], lo, hi);
        }
        storageBarrier();
    }
}
