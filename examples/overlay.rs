//! The membership overlay problem: peers choose connection bandwidths to maximise expected
//! throughput. Lagrangean relaxation gives a certified upper bound and a feasible overlay, so the gap
//! between them says how good the overlay is.
//!
//! ```text
//! cargo run --release --example overlay            # a generated instance of 200 peers
//! cargo run --release --example overlay -- 1000    # of 1,000 peers
//! ```
//! `urbanflow overlay` is the full command (instance files, the STD method, the GPU, histories).

use std::time::Instant;

use urbanflow::gpu::Backend;
use urbanflow::overlay::generator::{Family, generate};
use urbanflow::overlay::{DistParams, lp_bound_exact, subgradient_dist};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let peers: usize = std::env::args().nth(1).map_or(Ok(200), |s| s.parse())?;
    // A seeded instance of family A (bandwidth limit 14): the same instance on every machine.
    let inst = generate(peers, Family::A, 14.0, 1);
    println!("{} peers, {} candidate connections", inst.n(), inst.edges().len());

    // DIST: the subgradient method on the distributed relaxation; Backend::Auto runs its inner
    // problems on a GPU only where that was measured faster here.
    let t = Instant::now();
    let r = subgradient_dist(&inst, &DistParams::default(), None, Backend::Auto)?;
    let seconds = t.elapsed().as_secs_f64();
    let feasible = r.primal.as_ref().map_or(f64::NAN, |p| p.value);
    println!(
        "upper bound {:.4}, feasible overlay {:.4}: gap {:.2} % in {seconds:.2} s",
        r.bound,
        feasible,
        100.0 * (r.bound - feasible) / r.bound
    );

    // On small instances the LP relaxation, solved exactly, checks the bound: bound ≥ LP ≥ feasible.
    if inst.n() <= 250 {
        let lp = lp_bound_exact(&inst)?;
        println!("LP relaxation {lp:.4}: the bound is {:.3} % above it", 100.0 * (r.bound - lp) / lp);
    }
    Ok(())
}
