// Locality-based relaxation (seed 002; spec sssp.md §5.3). A flagged vertex's owner follows successful
// relaxations depth first, up to K hops, keeping the path in private arrays; vertices lowered at depth
// exactly K are flagged for the next launch. Flags are double-buffered by launch parity: at the start
// of a launch the outgoing half is all zero, because its owners cleared those flags one launch ago.
// The loop stops after a launch that flagged nothing (advance), checked once per batch by the host.
// Several sources run at once: invocation i works on source i / n and vertex i % n, each source with its
// own rows of dist and flags (one source is a batch of one).
// Reads of dist are atomic loads: other invocations lower it concurrently (the seed's plain reads race).
//!include grid
//!include sssp_common

override WG: u32 = 256;
override K: u32 = 4;
const KMAX: u32 = 8u;

struct Params {
    n: u32,
    // Sources in this batch (rows of dist).
    batch: u32,
}

// control: [done, changed, launches, parity]
@group(0) @binding(3) var<storage, read_write> dist: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> flags: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read> sources: array<u32>;
@group(0) @binding(6) var<storage, read_write> control: array<atomic<u32>, 4>;
@group(0) @binding(7) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn init(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid, WG);
    let cells = params.n * params.batch;
    if i >= cells {
        return;
    }
    let is_source = i % params.n == sources[i / params.n];
    atomicStore(&dist[i], select(INF, 0u, is_source));
    atomicStore(&flags[i], select(0u, 1u, is_source));
    atomicStore(&flags[cells + i], 0u);
}

@compute @workgroup_size(WG)
fn relax(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid, WG);
    let cells = params.n * params.batch;
    if i >= cells || atomicLoad(&control[0]) != 0u {
        return;
    }
    let parity = atomicLoad(&control[3]);
    // Row of this source: dist[row + v], flags[flags_in + v], flags[flags_out + v].
    let row = (i / params.n) * params.n;
    let u = i - row;
    let flags_in = parity * cells + row;
    let flags_out = (1u - parity) * cells + row;
    if atomicLoad(&flags[flags_in + u]) == 0u {
        return;
    }
    atomicStore(&flags[flags_in + u], 0u);
    var stack_v: array<u32, KMAX>;
    var stack_c: array<u32, KMAX>;
    var depth = 0u;
    stack_v[0] = u;
    stack_c[0] = offsets[u];
    var flagged = false;
    loop {
        let x = stack_v[depth];
        let c = stack_c[depth];
        if c >= offsets[x + 1u] {
            if depth == 0u {
                break;
            }
            depth -= 1u;
            continue;
        }
        stack_c[depth] = c + 1u;
        let v = targets[c];
        let cand = sat_add(atomicLoad(&dist[row + x]), weights[c]);
        if atomicLoad(&dist[row + v]) <= cand {
            continue;
        }
        atomicMin(&dist[row + v], cand);
        if depth + 1u >= K {
            atomicStore(&flags[flags_out + v], 1u);
            flagged = true;
        } else {
            depth += 1u;
            stack_v[depth] = v;
            stack_c[depth] = offsets[v];
        }
    }
    if flagged {
        atomicStore(&control[1], 1u);
    }
}

@compute @workgroup_size(1)
fn advance() {
    if atomicLoad(&control[0]) != 0u {
        return;
    }
    if atomicLoad(&control[1]) == 0u {
        atomicStore(&control[0], 1u);
    } else {
        atomicAdd(&control[2], 1u);
        atomicStore(&control[1], 0u);
        atomicStore(&control[3], 1u - atomicLoad(&control[3]));
    }
}
