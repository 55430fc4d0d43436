// Guillotine tables in one storage binding each (the common case: each fits the device's
// max_storage_buffer_binding_size). Same accessors as gcut_tables_four.
@group(0) @binding(4) var<storage, read_write> rows0: array<u32>;
@group(0) @binding(8) var<storage, read_write> cols0: array<u32>;
@group(0) @binding(12) var<storage, read_write> cuts0: array<u32>;

fn rows_get(k: u32) -> u32 { return rows0[k]; }
fn cols_get(k: u32) -> u32 { return cols0[k]; }
fn cuts_get(k: u32) -> u32 { return cuts0[k]; }
fn rows_set(k: u32, v: u32) { rows0[k] = v; }
fn cols_set(k: u32, v: u32) { cols0[k] = v; }
fn cuts_set(k: u32, v: u32) { cuts0[k] = v; }
