//! Chordless cycles: every cycle of an undirected graph that has no chord, each once, counted by length
//! or handed to a closure one by one.
//!
//! ```text
//! cargo run --release --example cycles             # a 6 × 10 grid and the Sioux Falls network
//! ```
//! `urbanflow cycles` is the full command (graph files, generated families, the GPU, limits, output).

use std::ops::ControlFlow;

use urbanflow::cycles::{
    ChordlessOptions, SimpleGraph, Simplify, chordless_cycles, count_chordless_cycles_rayon,
};
use urbanflow::graph::generators::grid_2d;
use urbanflow::{LoadOptions, load_graph};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A grid graph: each unit square is a chordless 4-cycle, and so is every longer cycle that
    // encloses no vertex (a rectangle one square high or wide, an L shape, ...).
    let (grid, _) = SimpleGraph::from_csr(&grid_2d(6, 10), Simplify::Repair)?;
    let stats = count_chordless_cycles_rayon(&grid, &ChordlessOptions::default())?;
    let by_length: Vec<String> = stats
        .by_length
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(k, c)| format!("{k}:{c}"))
        .collect();
    println!("6 × 10 grid: {} chordless cycles, by length {}", stats.total, by_length.join(" "));

    // A road network read as an undirected graph: one-way links become edges, both directions merge.
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data/SiouxFalls_net.tntp");
    let loaded = load_graph(file, &LoadOptions::default())?;
    let (g, repairs) = SimpleGraph::from_csr(&loaded.graph, Simplify::Repair)?;
    println!("Sioux Falls: {} repeated arcs merged into edges", repairs.repeated);

    // The cycles themselves, in the file's node ids: the first five of length at most 6.
    let opts = ChordlessOptions { max_len: Some(6), ..ChordlessOptions::default() };
    let mut shown = 0;
    let stats = chordless_cycles(&g, &opts, &mut |cycle: &[u32]| {
        if shown < 5 {
            let ids: Vec<String> = cycle.iter().map(|&v| loaded.ids[v as usize].to_string()).collect();
            println!("  {}", ids.join(" – "));
            shown += 1;
        }
        ControlFlow::Continue(())
    })?;
    println!("{} chordless cycles of length ≤ 6", stats.total);
    Ok(())
}
