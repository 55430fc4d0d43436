//! Accessibility: how much of something every vertex reaches within a few distances, the nearest
//! points, closeness and betweenness — each tree reduced where it is computed, the engine (bounded
//! searches, CPU sweeps or the GPU) chosen from rates measured on this run.
//!
//! ```text
//! cargo run --release --example access                                  # the bundled small road graph
//! cargo run --release --example access -- ../shared/data/road/weighted/NY.gr.xz 6600,22400,53200
//! ```
//! `urbanflow access` is the full command (OSM extracts and lat/lon points, decays, CSV/GeoJSON rows,
//! maps).

use std::time::Instant;

use urbanflow::access::{
    AccessOptions, BetweennessOptions, Decay, Opportunities, accessibility, betweenness, closeness, nearest,
};
use urbanflow::graph::rng::SplitMix64;
use urbanflow::{LoadOptions, load_graph};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let file = args
        .next()
        .unwrap_or(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data/small-road.gr.gz").into());
    let cutoffs: Vec<u32> = match args.next() {
        Some(list) => list.split(',').map(str::parse).collect::<Result<_, _>>()?,
        None => vec![2_000, 10_000, 40_000],
    };
    let g = load_graph(&file, &LoadOptions::default())?.graph;
    let n = g.num_vertices();

    // Opportunities: "jobs" at every 20th vertex, 1 to 100 of them (several points may share a vertex).
    let mut rng = SplitMix64::new(7);
    let jobs: Vec<(u32, f64)> = (0..n).step_by(20).map(|v| (v, 1.0 + rng.below(100) as f64)).collect();
    let jobs = Opportunities::new(n, &jobs)?;
    let sources: Vec<u32> = (0..n).collect();

    // Cumulative opportunities within each cutoff, for every vertex: Auto times the engines on the
    // first sources (they are part of the answer) and says which it chose.
    let t = Instant::now();
    let opts = AccessOptions { cutoffs: &cutoffs, ..Default::default() };
    let a = accessibility(&g, &jobs, &sources, &opts)?;
    println!(
        "{} sources × {} cutoffs in {:.2} s: {}",
        n,
        cutoffs.len(),
        t.elapsed().as_secs_f64(),
        a.stats.why
    );
    for (c, cut) in cutoffs.iter().enumerate() {
        let mean = (0..sources.len()).map(|i| a.sum(i, c)).sum::<f64>() / sources.len() as f64;
        println!(
            "  within {cut:>7}: vertex 0 reaches {:>6} jobs at {:>3} places; the mean vertex {mean:.0}",
            a.sum(0, c),
            a.count(0, c)
        );
    }

    // The same with a gravity decay: a job at distance d counts e^(−d / 5000).
    let gravity = AccessOptions { decay: Decay::Exp(1.0 / 5_000.0), ..opts };
    let g_acc = accessibility(&g, &jobs, &sources[..1], &gravity)?;
    println!(
        "gravity-weighted jobs of vertex 0 within {}: {:.1}",
        cutoffs[cutoffs.len() - 1],
        g_acc.sum(0, cutoffs.len() - 1)
    );

    // The three nearest places with jobs, from vertex 0.
    let near = nearest(&g, &jobs, &[0], 3, None)?;
    println!(
        "nearest places with jobs from vertex 0 (vertex, distance): {:?}",
        near.of(0).collect::<Vec<_>>()
    );

    // Harmonic closeness within the first cutoff, and betweenness of pairs within it (sampled).
    let c = closeness(&g, &sources, &AccessOptions { cutoffs: &cutoffs[..1], ..Default::default() })?;
    let best = (0..n as usize).max_by(|&x, &y| c.sum(x, 0).total_cmp(&c.sum(y, 0))).unwrap_or(0);
    println!("most central vertex within {}: {best} (harmonic closeness {:.4})", cutoffs[0], c.sum(best, 0));
    let b = betweenness(
        &g,
        &BetweennessOptions { cutoff: Some(cutoffs[0]), sample: Some(500), ..Default::default() },
    )?;
    let busiest = (0..n as usize).max_by(|&x, &y| b.value[x].total_cmp(&b.value[y])).unwrap_or(0);
    let se = b.std_error.as_ref().map_or(0.0, |s| s[busiest]);
    println!(
        "highest betweenness within {}: vertex {busiest}, {:.0} ± {se:.0} (from {} sources)",
        cutoffs[0], b.value[busiest], b.sources
    );
    Ok(())
}
