//! A lower bound on a capacitated vehicle routing problem by column generation: a set-partitioning LP
//! over routes of a relaxation (q-routes or ng-routes), priced by a dynamic programme.
//!
//! ```text
//! cargo run --release --example vrp_bound                                  # the bundled small instance
//! cargo run --release --example vrp_bound -- ../shared/data/vrp/X/X-n101-k25.vrp
//! ```
//! `urbanflow vrp` is the full command (relaxations, the LP master, time limits, JSON).

use urbanflow::dp::vrp::vrplib::{Rounding, read_solution, read_vrplib};
use urbanflow::dp::vrp::{BoundOptions, PricingBackend, Relaxation, pricer, root_bound_with};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let file = std::env::args()
        .nth(1)
        .unwrap_or(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data/small-cvrp.vrp").into());
    // Distances rounded to the nearest integer, as the X instances' best-known costs are.
    let inst = read_vrplib(&file, Rounding::Nint)?;
    println!("{}: {} customers, capacity {}", inst.name(), inst.customers(), inst.capacity());

    // ng-routes with neighbourhoods of 8: no 2-cycles, few longer ones; a bound close to the optimum.
    let opts = BoundOptions { relaxation: Relaxation::NgRoute { delta: 8 }, ..BoundOptions::default() };
    // The pricer runs where it was measured fastest (CPU or GPU); its name says where.
    let (mut engine, name) = pricer(&inst, &opts, PricingBackend::Auto)?;
    println!("pricing on {name}");
    let report = root_bound_with(&inst, &opts, engine.as_mut(), &mut |round| {
        if round.round % 10 == 0 {
            println!("round {:>4}: LP {:.3}, bound {:.3}", round.round, round.lp_value, round.bound);
        }
    })?;
    println!(
        "lower bound {:.3} ({}) in {:.2} s",
        report.lower_bound,
        if report.converged { "converged" } else { "stopped" },
        report.seconds
    );
    // The gap to the best-known solution when a `.sol` file sits beside the instance.
    let sol = std::path::Path::new(&file).with_extension("sol");
    if sol.exists() {
        let best = read_solution(&sol)?.cost;
        println!("best known {best}: gap {:.2} %", 100.0 * (best - report.lower_bound) / best);
    }
    Ok(())
}
