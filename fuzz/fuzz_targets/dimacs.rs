//! DIMACS shortest-path files: no panic; a file read holds exactly the arcs its `p sp n m` line declares.
#![no_main]
use libfuzzer_sys::fuzz_target;
use urbanflow::graph::io::{ReadOptions, parse_dimacs_sp};

fuzz_target!(|data: &[u8]| {
    if let Ok(g) = parse_dimacs_sp::<u32>(data, "fuzz.gr", ReadOptions::default()) {
        let text = String::from_utf8_lossy(data);
        let declared = text
            .lines()
            .map(|l| l.split_ascii_whitespace().collect::<Vec<_>>())
            .find(|t| t.len() >= 4 && t[0] == "p" && t[1] == "sp")
            .and_then(|t| t[3].parse::<usize>().ok());
        assert_eq!(Some(g.num_arcs() as usize), declared);
    }
});
