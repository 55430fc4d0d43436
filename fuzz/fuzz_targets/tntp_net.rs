//! TNTP networks: no panic; a network read holds exactly `<NUMBER OF LINKS>` links, and its free-flow
//! graph builds or fails with an error.
#![no_main]
use libfuzzer_sys::fuzz_target;
use urbanflow::graph::io::tntp::parse_net;

fuzz_target!(|data: &[u8]| {
    if let Ok(net) = parse_net(data, "fuzz_net.tntp") {
        let declared = net.metadata["NUMBER OF LINKS"].split_ascii_whitespace().next().unwrap();
        assert_eq!(net.links.len() as f64, declared.parse::<f64>().unwrap());
        let _ = net.free_flow_graph(1000.0);
    }
});
