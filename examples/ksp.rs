//! K shortest loopless paths: one pair answered by two algorithms, then a batch of pairs, each path in
//! the file's own vertex ids.
//!
//! ```text
//! cargo run --release --example ksp                                     # the bundled small road graph
//! cargo run --release --example ksp -- ../shared/data/road/weighted/NY.gr.xz 1 5000 10
//! ```
//! `urbanflow ksp` is the full command (random batches, the GPU, paths to a file).

use std::time::Instant;

use urbanflow::gpu::Backend;
use urbanflow::sssp::ksp::{ksp_batch, mps, yen};
use urbanflow::{LoadOptions, load_graph};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let file = args
        .next()
        .unwrap_or(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data/small-road.gr.gz").into());
    let loaded = load_graph(&file, &LoadOptions::default())?;
    let g = &loaded.graph;
    let vertex = |id: u64| loaded.vertex(id).ok_or(format!("{id} is not a vertex of {file}"));
    let s = vertex(args.next().map_or(Ok(1), |a| a.parse())?)?;
    let t = vertex(args.next().map_or(Ok(2000), |a| a.parse())?)?;
    let k: usize = args.next().map_or(Ok(5), |a| a.parse())?;

    // MPS (a tree of shortest paths to the target, deviations ranked by reduced cost) and Yen's
    // algorithm give the same costs; MPS is usually much faster.
    for (name, run) in [("mps", mps as fn(_, _, _, _) -> _), ("yen", yen)] {
        let clock = Instant::now();
        let (paths, stats) = run(g, s, t, k)?;
        println!(
            "{name}: {} paths in {:.2} ms ({} searches)",
            paths.len(),
            clock.elapsed().as_secs_f64() * 1e3,
            stats.searches
        );
        for p in &paths {
            let ids = p.file_ids(&loaded);
            println!("  cost {:>8}  {} vertices: {} … {}", p.cost, ids.len(), ids[0], ids[ids.len() - 1]);
        }
    }

    // A batch of pairs: the library decides where the reverse searches run and says why.
    let pairs: Vec<(u32, u32)> =
        (0..20).map(|i| (i * 7 % g.num_vertices(), (i * 131 + 50) % g.num_vertices())).collect();
    let clock = Instant::now();
    let (answers, stats) = ksp_batch(g, &pairs, k, Backend::Auto)?;
    println!(
        "batch of {} pairs: {} paths in {:.3} s ({})",
        pairs.len(),
        answers.iter().map(Vec::len).sum::<usize>(),
        clock.elapsed().as_secs_f64(),
        stats.why
    );
    Ok(())
}
