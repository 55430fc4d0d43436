//! Shortest-path trees from many sources at once: the rows are handed to a sink as they are computed,
//! on the CPU or the GPU, chosen by what was measured on this machine.
//!
//! ```text
//! cargo run --release --example trees                                   # the bundled small road graph
//! cargo run --release --example trees -- ../shared/data/road/weighted/NY.gr.xz 10000
//! ```
//! `urbanflow trees` is the full command (sources, schedules, several GPUs, hierarchies, rows to files).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use urbanflow::sssp::UNREACHABLE;
use urbanflow::sssp::many::{ManyOptions, many_to_all_shared};
use urbanflow::{LoadOptions, load_graph};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let file = args
        .next()
        .unwrap_or(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data/small-road.gr.gz").into());
    let wanted: u32 = args.next().map_or(Ok(1000), |s| s.parse())?;
    let g = load_graph(&file, &LoadOptions::default())?.graph;
    // Every k-th vertex as a source.
    let step = (g.num_vertices() / wanted.max(1)).max(1);
    let sources: Vec<u32> = (0..g.num_vertices()).step_by(step as usize).take(wanted as usize).collect();

    // The sink sees blocks of rows (one row of n distances per source) and may run on several threads
    // at once (one per device): here it sums the reached distances and counts the trees.
    let (sum, trees) = (AtomicU64::new(0), AtomicUsize::new(0));
    let t = Instant::now();
    let out = many_to_all_shared(&g, &sources, &ManyOptions::default(), |block| {
        let reached = block.dist.iter().filter(|&&d| d != UNREACHABLE);
        sum.fetch_add(reached.map(|&d| d as u64).sum::<u64>(), Ordering::Relaxed);
        trees.fetch_add(block.sources.len(), Ordering::Relaxed);
    })?;
    let seconds = t.elapsed().as_secs_f64();
    let trees = trees.into_inner();
    println!(
        "{trees} trees of {} vertices in {seconds:.3} s ({:.0} trees/s), distance sum {}",
        g.num_vertices(),
        trees as f64 / seconds,
        sum.into_inner()
    );
    // What the automatic choice did, and why.
    println!(
        "method {:?}, schedule {:?}: {} trees on GPUs, {} on the CPU",
        out.method, out.schedule, out.gpu_trees, out.cpu_trees
    );
    if let Some(d) = &out.decision {
        println!("why: {} (probe of {} trees)", d.reason, d.probe_trees);
    }
    Ok(())
}
