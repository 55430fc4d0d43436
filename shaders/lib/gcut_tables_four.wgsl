// Guillotine tables split over up to four storage bindings each, for tables larger than one binding
// may be (max_storage_buffer_binding_size): word k of a table lives in its chunk k >> CHUNK_SHIFT at
// k & (2^CHUNK_SHIFT - 1). Unused chunks are bound to small placeholder buffers. Same accessors as
// gcut_tables_one.
override CHUNK_SHIFT: u32 = 28u;

@group(0) @binding(4) var<storage, read_write> rows0: array<u32>;
@group(0) @binding(5) var<storage, read_write> rows1: array<u32>;
@group(0) @binding(6) var<storage, read_write> rows2: array<u32>;
@group(0) @binding(7) var<storage, read_write> rows3: array<u32>;
@group(0) @binding(8) var<storage, read_write> cols0: array<u32>;
@group(0) @binding(9) var<storage, read_write> cols1: array<u32>;
@group(0) @binding(10) var<storage, read_write> cols2: array<u32>;
@group(0) @binding(11) var<storage, read_write> cols3: array<u32>;
@group(0) @binding(12) var<storage, read_write> cuts0: array<u32>;
@group(0) @binding(13) var<storage, read_write> cuts1: array<u32>;
@group(0) @binding(14) var<storage, read_write> cuts2: array<u32>;
@group(0) @binding(15) var<storage, read_write> cuts3: array<u32>;

fn rows_get(k: u32) -> u32 {
    let o = k & ((1u << CHUNK_SHIFT) - 1u);
    switch k >> CHUNK_SHIFT {
        case 0u: { return rows0[o]; }
        case 1u: { return rows1[o]; }
        case 2u: { return rows2[o]; }
        default: { return rows3[o]; }
    }
}
fn rows_set(k: u32, v: u32) {
    let o = k & ((1u << CHUNK_SHIFT) - 1u);
    switch k >> CHUNK_SHIFT {
        case 0u: { rows0[o] = v; }
        case 1u: { rows1[o] = v; }
        case 2u: { rows2[o] = v; }
        default: { rows3[o] = v; }
    }
}
fn cols_get(k: u32) -> u32 {
    let o = k & ((1u << CHUNK_SHIFT) - 1u);
    switch k >> CHUNK_SHIFT {
        case 0u: { return cols0[o]; }
        case 1u: { return cols1[o]; }
        case 2u: { return cols2[o]; }
        default: { return cols3[o]; }
    }
}
fn cols_set(k: u32, v: u32) {
    let o = k & ((1u << CHUNK_SHIFT) - 1u);
    switch k >> CHUNK_SHIFT {
        case 0u: { cols0[o] = v; }
        case 1u: { cols1[o] = v; }
        case 2u: { cols2[o] = v; }
        default: { cols3[o] = v; }
    }
}
fn cuts_get(k: u32) -> u32 {
    let o = k & ((1u << CHUNK_SHIFT) - 1u);
    switch k >> CHUNK_SHIFT {
        case 0u: { return cuts0[o]; }
        case 1u: { return cuts1[o]; }
        case 2u: { return cuts2[o]; }
        default: { return cuts3[o]; }
    }
}
fn cuts_set(k: u32, v: u32) {
    let o = k & ((1u << CHUNK_SHIFT) - 1u);
    switch k >> CHUNK_SHIFT {
        case 0u: { cuts0[o] = v; }
        case 1u: { cuts1[o] = v; }
        case 2u: { cuts2[o] = v; }
        default: { cuts3[o] = v; }
    }
}
