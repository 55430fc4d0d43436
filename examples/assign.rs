//! Static traffic assignment with the library: read a TNTP network and its trip table, solve the user
//! equilibrium, and read the result in the network's own node ids.
//!
//! ```text
//! cargo run --release --example assign                 # the bundled Sioux Falls network
//! cargo run --release --example assign -- NET TRIPS    # any TNTP network and trip table
//! ```
//! `urbanflow assign` is the full command (algorithms, backends, turns, classes, skims, pictures).

use urbanflow::tap::{Algorithm, AssignOptions, CostFactors, Demand, Network, Stop, assign_with_progress};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data");
    let mut args = std::env::args().skip(1);
    let net_file = args.next().unwrap_or(format!("{data}/SiouxFalls_net.tntp"));
    let trips_file = args.next().unwrap_or(format!("{data}/SiouxFalls_trips.tntp"));

    // Link costs are the BPR times plus, here, nothing for tolls or distance.
    let net = Network::read_tntp(&net_file, CostFactors::default())?;
    let demand = Demand::read_tntp(&trips_file, &net)?;
    println!(
        "{} nodes, {} links, {} zones, {:.0} trips",
        net.num_nodes(),
        net.num_links(),
        net.num_zones(),
        demand.total()
    );

    // Bi-conjugate Frank–Wolfe to a relative gap of 1e-5; loading runs where the library measured it
    // fastest (`Backend::Auto`, the default), and says where in `loaded_by`.
    let opts = AssignOptions {
        algorithm: Algorithm::BiconjugateFw,
        stop: Stop { relative_gap: 1e-5, ..Stop::default() },
        ..AssignOptions::default()
    };
    let result = assign_with_progress(&net, &demand, &opts, |log| {
        if log.iteration % 25 == 0 {
            eprintln!("iteration {:>4}: relative gap {:.2e}", log.iteration, log.relative_gap);
        }
    })?;
    let last = result.last();
    println!(
        "{} after {} iterations: relative gap {:.2e}, total travel time {:.0}",
        if result.converged { "converged" } else { "stopped" },
        result.history.len(),
        last.relative_gap,
        last.tstt
    );
    println!("loading ran on {}", result.loaded_by);

    // The five links with the highest volume/capacity ratio, named by their nodes.
    let mut by_ratio: Vec<usize> = (0..net.num_links()).collect();
    let ratio = |i: usize| result.flows[i] / net.links()[i].capacity;
    by_ratio.sort_by(|&a, &b| ratio(b).total_cmp(&ratio(a)));
    println!("link        flow    V/C   time");
    for &i in &by_ratio[..5] {
        let l = &net.links()[i];
        println!(
            "{:>3} → {:<3} {:>8.0} {:>6.2} {:>6.2}",
            net.node_id(l.from),
            net.node_id(l.to),
            result.flows[i],
            ratio(i),
            result.costs[i]
        );
    }
    Ok(())
}
