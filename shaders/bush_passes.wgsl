// The two passes over Algorithm B's bushes that matrix estimation needs (CPU twins: algos_tap::bush's
// `BushSolver::od_mean_costs` and `BushSolver::route_flows`, the same operations in the same order).
// A block of whole chunks of CHUNK bushes is resident; its integer arrays share one buffer, `topo`,
// at the sections `params` names (block-local indices throughout):
// - `bush_pos` (bushes + 1): each bush's first position; `first` (positions + 1): each position's first
//   entering link ("entry"); `tail` (entries): the position of each entry's tail; `link` (entries): its
//   internal link id; `pair_start` (bushes + 1) and `pair_pos` (pairs): each bush's OD pairs and the
//   position of each pair's destination; `link_start` (links + 1) and `link_entries`: per internal link
//   the entries on it, ascending; `chunk_start` (chunks + 1): each chunk's first entry.
// - `mean_costs`: one invocation per bush: the flow-weighted mean of `cost` from the root to every
//   position (a position without flow in takes its cheapest in-link's value), then each pair's value.
// - `push_back`: one invocation per bush: each pair's value put at its destination, sent back to the
//   root in the bush's flow shares, each entry's share written to `entry_flow`.
// - `link_sums`: one invocation per link: its entries' flows summed per chunk, the chunks' sums added
//   in order to `link_total`, which carries the sums of earlier blocks: the CPU's chunked sums exactly.
//!requires f64

const CHUNK: u32 = 64u;

struct Params {
    bushes: u32,
    links: u32,
    chunks: u32,
    pad: u32,
    // Offsets of the sections in `topo`.
    bush_pos: u32,
    first: u32,
    tail: u32,
    link: u32,
    pair_start: u32,
    pair_pos: u32,
    link_start: u32,
    link_entries: u32,
    chunk_start: u32,
    pad1: u32,
    pad2: u32,
    pad3: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> topo: array<u32>;
@group(0) @binding(2) var<storage, read> flow: array<f64>;
@group(0) @binding(3) var<storage, read> cost: array<f64>;
// Per position: the mean cost (`mean_costs`) or the flow passing through (`push_back`).
@group(0) @binding(4) var<storage, read_write> node_value: array<f64>;
// Per pair: the output of `mean_costs`, the input of `push_back`.
@group(0) @binding(5) var<storage, read_write> pair_value: array<f64>;
@group(0) @binding(6) var<storage, read_write> entry_flow: array<f64>;
@group(0) @binding(7) var<storage, read_write> link_total: array<f64>;

fn section(at: u32, i: u32) -> u32 {
    return topo[at + i];
}

@compute @workgroup_size(64)
fn mean_costs(@builtin(global_invocation_id) id: vec3<u32>) {
    let b = id.x;
    if b >= params.bushes {
        return;
    }
    let p0 = section(params.bush_pos, b);
    let p1 = section(params.bush_pos, b + 1u);
    node_value[p0] = f64(0.0);
    for (var p = p0 + 1u; p < p1; p++) {
        var total = f64(0.0);
        var weighted = f64(0.0);
        var cheapest = f64(0.0);
        var seen = false;
        let e1 = section(params.first, p + 1u);
        for (var e = section(params.first, p); e < e1; e++) {
            let via = node_value[section(params.tail, e)] + cost[section(params.link, e)];
            total += flow[e];
            weighted += flow[e] * via;
            if !seen || via < cheapest {
                cheapest = via;
            }
            seen = true;
        }
        node_value[p] = select(cheapest, weighted / total, total > f64(0.0));
    }
    let k1 = section(params.pair_start, b + 1u);
    for (var k = section(params.pair_start, b); k < k1; k++) {
        pair_value[k] = node_value[section(params.pair_pos, k)];
    }
}

@compute @workgroup_size(64)
fn push_back(@builtin(global_invocation_id) id: vec3<u32>) {
    let b = id.x;
    if b >= params.bushes {
        return;
    }
    let p0 = section(params.bush_pos, b);
    let p1 = section(params.bush_pos, b + 1u);
    for (var p = p0; p < p1; p++) {
        node_value[p] = f64(0.0);
    }
    for (var e = section(params.first, p0); e < section(params.first, p1); e++) {
        entry_flow[e] = f64(0.0);
    }
    let k1 = section(params.pair_start, b + 1u);
    for (var k = section(params.pair_start, b); k < k1; k++) {
        let p = section(params.pair_pos, k);
        node_value[p] += pair_value[k];
    }
    for (var p = p1 - 1u; p > p0; p--) {
        let through = node_value[p];
        if through == f64(0.0) {
            continue;
        }
        let e0 = section(params.first, p);
        let e1 = section(params.first, p + 1u);
        var total = f64(0.0);
        for (var e = e0; e < e1; e++) {
            total += flow[e];
        }
        if total > f64(0.0) {
            for (var e = e0; e < e1; e++) {
                let f = through * (flow[e] / total);
                entry_flow[e] = f;
                let t = section(params.tail, e);
                node_value[t] += f;
            }
        } else {
            // As on the CPU: along the first in-link (never met with the bush's own pairs).
            entry_flow[e0] = through;
            let t = section(params.tail, e0);
            node_value[t] += through;
        }
    }
}

@compute @workgroup_size(256)
fn link_sums(@builtin(global_invocation_id) id: vec3<u32>) {
    let l = id.x;
    if l >= params.links {
        return;
    }
    let i1 = section(params.link_start, l + 1u);
    var i = section(params.link_start, l);
    if i == i1 {
        return;
    }
    var total = link_total[l];
    var c = 0u;
    var part = f64(0.0);
    for (; i < i1; i++) {
        let e = section(params.link_entries, i);
        // Close the chunks before this entry's (their sums are added in chunk order).
        var closed = false;
        while e >= section(params.chunk_start, c + 1u) {
            c++;
            closed = true;
        }
        if closed {
            total += part;
            part = f64(0.0);
        }
        part += entry_flow[e];
    }
    link_total[l] = total + part;
}
