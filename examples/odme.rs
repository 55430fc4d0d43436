//! Matrix estimation from traffic counts with the library: adjust a seed matrix until its equilibrium
//! reproduces counted links (Spiess's gradient method), and read the fit.
//!
//! ```text
//! cargo run --release --example odme
//! ```
//! The counts here are made up so that the answer is known: the bundled Sioux Falls trip table is
//! assigned, a third of its links are "counted" from that equilibrium, and the seed is the same table
//! perturbed by 30 % noise. `urbanflow odme` is the full command (count files, outputs, targets).

use urbanflow::tap::odme::{LinkCounts, OdmeOptions, estimate_od, perturbed};
use urbanflow::tap::{AssignOptions, CostFactors, Demand, Network, Stop, assign};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data");
    let net = Network::read_tntp(format!("{data}/SiouxFalls_net.tntp"), CostFactors::default())?;
    let truth = Demand::read_tntp(format!("{data}/SiouxFalls_trips.tntp"), &net)?;

    // Counts: every third link's equilibrium flow under the true demand, each with weight 1.
    let exact = AssignOptions { stop: Stop { relative_gap: 1e-8, ..Stop::default() }, ..Default::default() };
    let equilibrium = assign(&net, &truth, &exact)?;
    let counted = (0..net.num_links() as u32).step_by(3).map(|l| (l, equilibrium.flows[l as usize], 1.0));
    let counts = LinkCounts::new(&net, counted)?;

    // The seed: the true matrix with every cell multiplied by a log-normal factor (σ = 0.3).
    let seed = perturbed(&truth, 0.3, 7)?;
    println!("{} counts; seed {:.0} trips, truth {:.0}", counts.len(), seed.total(), truth.total());

    let opts = OdmeOptions { outer_iterations: 10, ..OdmeOptions::default() };
    println!("iter  objective       RMSE   R²      GEH<5");
    let result = estimate_od(&net, &seed, &counts, &opts, |it| {
        let f = it.fit;
        println!(
            "{:>4}  {:<14.4e} {:>6.1} {:>6.4} {:>6.1}%",
            it.iteration,
            f.objective,
            f.rmse,
            f.r_squared,
            100.0 * f.geh_below_5
        );
    })?;
    println!(
        "{}: {:.1} % of counted links with GEH < 5",
        result.stopped,
        100.0 * result.last().fit.geh_below_5
    );

    // What the counts do not say: with a third of the links counted, many matrices reproduce them, and
    // the estimate is the one nearest the seed along the gradient's path, not the truth cell by cell.
    let distance = |d: &Demand| -> f64 {
        d.pairs().zip(truth.pairs()).map(|((_, _, a), (_, _, b))| (a - b).abs()).sum::<f64>()
    };
    println!(
        "sum of |estimate − truth| over OD cells: seed {:.0}, estimate {:.0}",
        distance(&seed),
        distance(&result.demand)
    );
    Ok(())
}
