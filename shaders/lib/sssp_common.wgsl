// Shared by the shortest-path kernels (algos-sssp): the CSR graph bindings and saturating addition.
// INF marks unreached vertices; sums saturate at OVF (= u32::MAX - 1), which the host reports as an
// overflow error, never as "unreachable" (spec sssp.md §3.1).
const INF: u32 = 0xFFFFFFFFu;
const OVF: u32 = 0xFFFFFFFEu;

@group(0) @binding(0) var<storage, read> offsets: array<u32>;
@group(0) @binding(1) var<storage, read> targets: array<u32>;
@group(0) @binding(2) var<storage, read> weights: array<u32>;

fn sat_add(a: u32, b: u32) -> u32 {
    if a == INF || b == INF {
        return INF;
    }
    if a >= OVF - min(b, OVF) {
        return OVF;
    }
    return a + b;
}
