//! Membership-overlay instances: no panic; an instance read has the `NODES` it declares.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;
use urbanflow::overlay::io::parse_instance;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(inst) = parse_instance(&text, Path::new("fuzz.mop")) {
        let declared = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("NODES"))
            .and_then(|r| r.split('#').next()?.trim().parse::<usize>().ok());
        assert_eq!(Some(inst.n()), declared);
    }
});
