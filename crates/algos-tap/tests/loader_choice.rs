//! Where assignment loads by default (`Backend::Auto`): the CPU first, raced against a GPU only where
//! the CPU's loadings could repay a GPU's start (a small network never lists an adapter); as asked
//! otherwise; and the choice always says why.

use algos_tap::Backend;
use algos_tap::solve::choose_loader;
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
    if cfg!(feature = "gpu") {
        assert!(choice.race && choice.why.starts_with("auto: the CPU loads first"), "{}", choice.why);
    } else {
        assert!(!choice.race && choice.why.contains("without the `gpu` feature"), "{}", choice.why);
    }
    assert!(choice.describe().starts_with("cpu ("), "{}", choice.describe());
    // Trees: f64 Dijkstra, as a network this small was measured to need.
    assert!(
        !choice.cpu_hierarchy && choice.why.contains("trees: f64 dijkstra: a hierarchy does not pay below"),
        "{}",
        choice.why
    );
    // The default solves on the CPU: Sioux Falls' loadings (well under a millisecond) are far from
    // repaying any GPU's start, so the race is not even considered and the reason has the numbers.
    let r = assign(&net, &demand, &opts).unwrap();
    assert!(r.converged);
    assert!(r.loaded_by.starts_with("cpu ("), "{}", r.loaded_by);
    #[cfg(feature = "gpu")]
    assert!(r.loaded_by.contains("less than what any GPU's start takes"), "{}", r.loaded_by);
}

#[test]
fn asked_for_is_taken_as_asked() {
    let (net, demand) = sioux_falls();
    let cpu = choose_loader(&net, &demand, &AssignOptions::default().with_backend(Backend::Cpu));
    assert!(cpu.devices.is_empty());
    assert!(cpu.why.starts_with("asked for; trees: f64 dijkstra"), "{}", cpu.why);
    let b = AssignOptions { algorithm: algos_tap::Algorithm::AlgorithmB, ..Default::default() };
    let choice = choose_loader(&net, &demand, &b);
    assert!(choice.devices.is_empty() && choice.why.contains("Algorithm B"), "{}", choice.why);
}

#[test]
fn cpu_trees_take_the_hierarchy_where_measured_faster_and_say_why() {
    use algos_sssp::many::Method;
    use algos_tap::solve::{CPU_PHAST_MIN_GAP, CPU_PHAST_MIN_WORK_PER_THREAD, choose_cpu_trees};
    let auto = AssignOptions::default();
    let threads = rayon::current_num_threads() as u64;
    let (big, small) = (CPU_PHAST_MIN_WORK_PER_THREAD * threads, CPU_PHAST_MIN_WORK_PER_THREAD * threads - 1);
    assert!(choose_cpu_trees(big, &auto).0);
    assert!(choose_cpu_trees(big, &auto).1.starts_with("cch+phast (auto): measured faster from"));
    assert!(!choose_cpu_trees(small, &auto).0);
    // Below the measured gap floor, and for select-link, the exact f64 trees.
    let deep = AssignOptions::default().with_gap(CPU_PHAST_MIN_GAP / 10.0);
    assert!(!choose_cpu_trees(big, &deep).0 && choose_cpu_trees(big, &deep).1.contains("gap target"));
    let select = AssignOptions { select_links: vec![3], ..AssignOptions::default() };
    assert!(!choose_cpu_trees(big, &select).0 && choose_cpu_trees(big, &select).1.contains("select-link"));
    // Asked for is taken, whatever the size.
    let phast = AssignOptions { trees: Method::Phast, ..AssignOptions::default() };
    assert_eq!(choose_cpu_trees(0, &phast), (true, "cch+phast, asked for".to_string()));
    let trees = AssignOptions { trees: Method::Trees, ..AssignOptions::default() };
    assert!(!choose_cpu_trees(u64::MAX, &trees).0);
    // And the solver loads as the choice says: Sioux Falls asked onto the hierarchy.
    let (net, demand) = sioux_falls();
    let choice = choose_loader(&net, &demand, &phast);
    assert!(choice.cpu_hierarchy && choice.describe().ends_with("cch+phast trees"), "{}", choice.describe());
    assert!(assign(&net, &demand, &phast).unwrap().converged);
}

/// Several GPUs given: the assignment loads on the first and says why (splitting origins was measured
/// slower than one GPU on every network).
#[cfg(feature = "gpu")]
#[test]
fn several_gpus_load_on_one_and_say_why() {
    gpu_runtime::testing::with_two_devices("several_gpus_load_on_one_and_say_why", |devices| {
        let (net, demand) = sioux_falls();
        let opts = AssignOptions { devices, ..AssignOptions::default() };
        let choice = choose_loader(&net, &demand, &opts);
        assert_eq!(choice.devices.len(), 1, "{}", choice.why);
        assert!(std::ptr::eq(choice.devices[0], &devices[0]));
        assert!(choice.why.starts_with("2 GPUs given, the first loads"), "{}", choice.why);
        // Asked for the CPU, the devices are ignored.
        let cpu = AssignOptions { backend: Backend::Cpu, ..opts };
        assert!(choose_loader(&net, &demand, &cpu).devices.is_empty());
    });
}
