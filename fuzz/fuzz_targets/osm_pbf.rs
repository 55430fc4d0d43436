//! OpenStreetMap PBF (and XML, refused by name): no panic. The importer reads files, so each input is
//! written to a scratch file first.
#![no_main]
use libfuzzer_sys::fuzz_target;
use urbanflow::graph::osm::{OsmOptions, Profile, import};

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("urbanflow-fuzz-{}.osm.pbf", std::process::id()));
    std::fs::write(&path, data).unwrap();
    let _ = import(&path, &OsmOptions::new(Profile::Car));
});
