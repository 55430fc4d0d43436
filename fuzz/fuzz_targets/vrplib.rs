//! VRPLIB CVRP files: no panic; an instance read has `DIMENSION − 1` customers.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;
use urbanflow::dp::vrp::vrplib::{Rounding, parse_vrplib};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(c) = parse_vrplib(&text, Path::new("fuzz.vrp"), Rounding::Nint) {
        let dim = text.lines().find_map(|l| {
            let (key, value) = l.split_once(':')?;
            (key.trim() == "DIMENSION").then(|| value.trim().parse::<usize>().ok())?
        });
        assert_eq!(Some(c.customers() + 1), dim);
    }
});
