//! TNTP node files and best-known flow files: no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use urbanflow::graph::io::tntp::{parse_flow, parse_nodes};

fuzz_target!(|data: &[u8]| {
    let _ = parse_nodes(data, "fuzz_node.tntp");
    let _ = parse_flow(data, "fuzz_flow.tntp");
});
