//! GTFS feeds: the input is a zip archive; no panic reading it or building the timetable network.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("urbanflow-fuzz-{}.zip", std::process::id()));
    std::fs::write(&path, data).unwrap();
    let _ = urbanflow::transit::transit::read_feed(&path);
});
