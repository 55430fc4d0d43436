//! Where assignment loads by default (`Backend::Auto`): the CPU below the measured size, without
//! looking for a GPU; as asked otherwise; and the choice always says why.

use algos_tap::Backend;
use algos_tap::solve::{GPU_MIN_WORK_16_THREADS, choose_loader};
use algos_tap::{AssignOptions, CostFactors, Demand, Network, assign};

fn sioux_falls() -> (Network, Demand) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data");
    let net = Network::read_tntp(format!("{dir}/SiouxFalls_net.tntp"), CostFactors::default()).unwrap();
    let demand = Demand::read_tntp(format!("{dir}/SiouxFalls_trips.tntp"), &net).unwrap();
    (net, demand)
}

#[test]
fn auto_is_the_default_and_small_networks_load_on_the_cpu() {
    let (net, demand) = sioux_falls();
    let opts = AssignOptions::default();
    assert!(matches!(opts.backend, Backend::Auto), "Auto is the default");
    let choice = choose_loader(&net, &demand, &opts);
    assert!(choice.devices.is_empty(), "{}", choice.why);
    // 24 origins × 76 links, far below the threshold: the numbers are in the reason.
    assert!(choice.why.starts_with("auto: 0.0 M origin × link pairs"), "{}", choice.why);
    assert!(choice.why.contains("the CPU is faster"), "{}", choice.why);
    assert!(choice.describe().starts_with("cpu ("), "{}", choice.describe());
    assert!((demand.num_origins() as u64 * net.num_links() as u64) < GPU_MIN_WORK_16_THREADS / 16);
    // The default solves on the CPU, as the choice said.
    let r = assign(&net, &demand, &opts).unwrap();
    assert!(r.converged);
}

#[test]
fn asked_for_is_taken_as_asked() {
    let (net, demand) = sioux_falls();
    let cpu = choose_loader(&net, &demand, &AssignOptions::default().with_backend(Backend::Cpu));
    assert!(cpu.devices.is_empty());
    assert_eq!(cpu.why, "asked for");
    let b = AssignOptions { algorithm: algos_tap::Algorithm::AlgorithmB, ..Default::default() };
    let choice = choose_loader(&net, &demand, &b);
    assert!(choice.devices.is_empty() && choice.why.contains("Algorithm B"), "{}", choice.why);
}
