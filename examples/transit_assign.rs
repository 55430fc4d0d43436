//! Transit assignment by optimal strategies on the worked example of Spiess & Florian (1989): four
//! lines between stops A, X, Y and B, one traveller from A to B. The strategy costs 27.75 min: wait at A
//! for the first of lines 1 and 2; on line 2, at Y take the first of lines 3 and 4.
//!
//! ```text
//! cargo run --release --example transit_assign
//! ```
//! `urbanflow transit-assign` is the full command (edge, zone and demand files; skims; boardings).

use urbanflow::transit::strategies::{
    EdgeKind, HyperpathGraph, StrategyOptions, TransitDemand, Zones, assign,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    const INF: f64 = f64::INFINITY;
    // Frequencies are 2 / headway (the wait is half the combined headway, as in the paper); seconds.
    let (l1, l2, l3, l4) = (2.0 / 720.0, 2.0 / 720.0, 2.0 / 1800.0, 2.0 / 360.0);
    // Vertices: 0 A, 1 A board L2, 2 A board L1, 3 X, 4 X board L3, 5 X alight L2, 6 X board L2, 7 Y,
    // 8 Y board L4, 9 Y alight L3, 10 Y board L3, 11 Y alight L2, 12 B, 13–15 B alight L4, L3, L1.
    #[rustfmt::skip]
    let edges = [
        (0, 2, 0.0, l1), (0, 1, 0.0, l2), (2, 15, 1500.0, INF), (1, 5, 420.0, INF),   // A: board, ride
        (5, 3, 0.0, INF), (5, 6, 0.0, INF), (5, 4, 0.0, l3), (3, 6, 0.0, l2), (3, 4, 0.0, l3), // X
        (6, 11, 360.0, INF), (4, 9, 240.0, INF),                                      // X → Y
        (9, 7, 0.0, INF), (11, 7, 0.0, INF), (11, 10, 0.0, l3), (11, 8, 0.0, l4),     // Y: alight, transfer
        (9, 8, 0.0, l4), (9, 10, 0.0, INF), (7, 10, 0.0, l3), (7, 8, 0.0, l4),        // Y: board
        (10, 14, 240.0, INF), (8, 13, 600.0, INF),                                    // Y → B
        (15, 12, 0.0, INF), (14, 12, 0.0, INF), (13, 12, 0.0, INF),                   // B: alight
    ];
    // Rides are in-vehicle time (for the skims); the other edges have none.
    let rides = edges.map(|e| if e.2 > 0.0 { EdgeKind::OnBoard } else { EdgeKind::Other });
    let g = HyperpathGraph::from_edges(16, &edges)?.with_kinds(rides)?;
    // Every vertex its own zone; one traveller from A (0) to B (12).
    let zones = Zones::every_vertex(&g);
    let demand = TransitDemand::new(&zones, [(0, 12, 1.0)])?;
    let opts = StrategyOptions { skims: true, ..Default::default() };
    let r = assign(&g, &zones, &demand, &opts, &|_, _| {})?;

    let skims = r.skims.as_ref().expect("asked for");
    let ab = 12; // row A (0), column B (12) of the 16 × 16 skims
    println!("expected time A → B: {:.2} min (the paper: 27.75)", skims.total[ab] / 60.0);
    println!(
        "of which in vehicle {:.2} min, waiting {:.2} min, {:.2} boardings",
        skims.in_vehicle[ab] / 60.0,
        skims.waiting[ab] / 60.0,
        skims.boardings[ab]
    );
    let name =
        ["A", "A/L2", "A/L1", "X", "X/L3", "X/L2↓", "X/L2", "Y", "Y/L4", "Y/L3↓", "Y/L3", "Y/L2↓", "B"];
    let label = |v: u32| name.get(v as usize).copied().unwrap_or("B/↓");
    println!("edge volumes (the strategy, with its shares):");
    for (e, &v) in r.volumes.iter().enumerate() {
        if v > 1e-12 {
            let (t, h, time, _) = g.edge(e);
            println!("  {:>6} → {:<6} {:>5.0} s  {v:.4}", label(t), label(h), time);
        }
    }
    Ok(())
}
