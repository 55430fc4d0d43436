//! The other plain graph formats (0-based DIMACS, PACE, edge lists, DIMACS coordinates): no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use urbanflow::graph::io::{
    ReadOptions, parse_dimacs_coordinates, parse_dimacs_sp_zero_based, parse_edge_list, parse_pace,
};

fuzz_target!(|data: &[u8]| {
    let _ = parse_dimacs_sp_zero_based::<u32>(data, "fuzz.gr", ReadOptions::default());
    let _ = parse_pace::<u32>(data, "fuzz.gr", ReadOptions::default());
    let _ = parse_edge_list::<f64>(data, "fuzz.txt", ReadOptions::default());
    let _ = parse_dimacs_coordinates(data, "fuzz.co");
});
