//! User-class files of multi-class assignment (read against the bundled Sioux Falls network): no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;
use std::sync::OnceLock;
use urbanflow::tap::multiclass::read_classes;
use urbanflow::tap::{CostFactors, Demand, Network};

fn sioux_falls() -> &'static (Network, Demand) {
    static NET: OnceLock<(Network, Demand)> = OnceLock::new();
    NET.get_or_init(|| {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data");
        let net = Network::read_tntp(data.join("SiouxFalls_net.tntp"), CostFactors::default()).unwrap();
        let demand = Demand::read_tntp(data.join("SiouxFalls_trips.tntp"), &net).unwrap();
        (net, demand)
    })
}

fuzz_target!(|data: &[u8]| {
    let (net, demand) = sioux_falls();
    let path = std::env::temp_dir().join(format!("urbanflow-fuzz-{}-classes.txt", std::process::id()));
    std::fs::write(&path, data).unwrap();
    let _ = read_classes(&path, net, demand);
});
