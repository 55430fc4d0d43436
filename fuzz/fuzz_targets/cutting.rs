//! Guillotine cutting instances (OR-Library gcut text, OR-Datasets JSON): no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use urbanflow::dp::io::{parse_gcut, parse_or_datasets_json};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = parse_gcut(&text, "fuzz_gcut.txt");
    let _ = parse_or_datasets_json(&text, "fuzz.json");
});
