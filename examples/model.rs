//! A whole travel model with the library: trips distributed by a gravity model over the network's
//! skims, balanced by IPF, assigned, skimmed again, until demand and congestion agree.
//!
//! ```text
//! cargo run --release --example model                  # the bundled Sioux Falls network
//! ```
//! The productions and attractions are the bundled trip table's row and column totals; the deterrence
//! is calibrated first to that table's trip lengths (Hyman's method). `urbanflow model` and
//! `urbanflow matrix` are the full commands.

use urbanflow::tap::matrix::{Constraint, Deterrence, IpfOptions, calibrate, gravity};
use urbanflow::tap::model::{ModelOptions, dense_matrix, run_model};
use urbanflow::tap::skim::skims;
use urbanflow::tap::{CostFactors, Demand, Network};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data");
    let net = Network::read_tntp(format!("{data}/SiouxFalls_net.tntp"), CostFactors::default())?;
    let observed = Demand::read_tntp(format!("{data}/SiouxFalls_trips.tntp"), &net)?;
    let zones = net.num_zones() as usize;
    let table = dense_matrix(&observed, zones)?;
    let productions: Vec<f64> = table.chunks(zones).map(|row| row.iter().sum()).collect();
    let attractions: Vec<f64> = (0..zones).map(|j| (0..zones).map(|i| table[i * zones + j]).sum()).collect();

    // Free-flow skims: the costs of an empty network.
    let empty = vec![0.0; net.num_links()];
    let free = net.links().iter().map(|l| l.free_flow_time).collect::<Vec<_>>();
    let free_skims = skims(&net, &empty, &free)?;

    // Calibrate an exponential deterrence to the observed table's mean trip cost.
    let ipf = IpfOptions::default();
    let fit = calibrate(&free_skims.cost, &table, Deterrence::Exponential { beta: 0.1 }, 1e-6, &ipf)?;
    println!(
        "calibrated {}: mean cost {:.3} (observed {:.3}), coincidence ratio {:.2}",
        fit.deterrence, fit.model_mean_cost, fit.observed_mean_cost, fit.coincidence_ratio
    );

    // One distribution on free-flow costs, to see the gravity model alone.
    let once = gravity(
        &free_skims.cost,
        &productions,
        &attractions,
        fit.deterrence.clone(),
        Constraint::Doubly,
        &ipf,
    )?;
    println!(
        "gravity on free-flow costs: {:.0} trips, balanced in {} IPF iterations",
        once.matrix.iter().sum::<f64>(),
        once.iterations
    );

    // The feedback loop: distribute on the current skims, assign, skim, average, repeat.
    let opts = ModelOptions::new(fit.deterrence);
    let result = run_model(&net, &productions, &attractions, &opts, |l| {
        println!(
            "loop {:>2}: demand change {:.2e}, assignment gap {:.1e} after {} iterations, mean cost {:.3}",
            l.iteration, l.demand_change, l.relative_gap, l.assignment_iterations, l.mean_cost
        );
    })?;
    println!(
        "{} after {} loops",
        if result.converged { "converged" } else { "stopped" },
        result.history.len()
    );
    Ok(())
}
