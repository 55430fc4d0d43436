//! Routes and distance matrices on a customisable contraction hierarchy: build the hierarchy once for a
//! graph, customise it for a metric, then answer queries in microseconds.
//!
//! ```text
//! cargo run --release --example route                               # the bundled small road graph
//! cargo run --release --example route -- ../shared/data/road/weighted/NY.gr.xz 1 5000
//! ```
//! Vertices are the file's own ids. `urbanflow route` is the full command (OSM files, turn restrictions,
//! isochrones, matrices on the GPU, GeoJSON).

use std::time::Instant;

use urbanflow::sssp::cch::{Cch, CchQuery};
use urbanflow::sssp::matrix::{MatrixOptions, distance_matrix};
use urbanflow::{LoadOptions, load_graph};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let file = args
        .next()
        .unwrap_or(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data/small-road.gr.gz").into());
    let loaded = load_graph(&file, &LoadOptions::default())?;
    let g = &loaded.graph;
    let vertex = |id: u64| loaded.vertex(id).ok_or(format!("{id} is not a vertex of {file}"));
    let from = vertex(args.next().map_or(Ok(1), |s| s.parse())?)?;
    let to = vertex(args.next().map_or(Ok(loaded.ids[g.num_vertices() as usize - 1]), |s| s.parse())?)?;

    // The hierarchy depends on the graph's shape only (a nested-dissection order); customising puts
    // this metric's weights on it. A new metric (congested times, say) needs only a new customisation.
    let t = Instant::now();
    let cch = Cch::build(g)?;
    let build_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let (ch, unpacking) = cch.customise_with_unpacking(g.weights())?;
    println!(
        "{} vertices, {} arcs: hierarchy {build_s:.3} s, customised in {:.3} s",
        g.num_vertices(),
        g.num_arcs(),
        t.elapsed().as_secs_f64()
    );

    let mut query = CchQuery::new(&ch)?;
    let t = Instant::now();
    match query.path(&ch, &unpacking, from, to)? {
        None => println!("{} → {}: no path", loaded.ids[from as usize], loaded.ids[to as usize]),
        Some((distance, arcs)) => {
            let mut path = vec![loaded.ids[from as usize]];
            path.extend(arcs.iter().map(|&a| loaded.ids[g.targets()[a as usize] as usize]));
            println!(
                "{} → {}: distance {distance}, {} vertices, in {:.1} µs",
                path[0],
                path[path.len() - 1],
                path.len(),
                t.elapsed().as_secs_f64() * 1e6
            );
        }
    }

    // A 100 × 100 distance matrix between the first and last hundred vertices. The matrix API picks its
    // engine (here: the hierarchy at hand, so bucket walks) and says why.
    let n = g.num_vertices();
    let origins: Vec<u32> = (0..100.min(n)).collect();
    let destinations: Vec<u32> = (n.saturating_sub(100)..n).collect();
    let opts = MatrixOptions { hierarchy: Some(&ch), ..Default::default() };
    let run = distance_matrix(g, &origins, &destinations, &opts)?;
    let reachable = run.matrix.data.iter().filter(|&&d| d != urbanflow::sssp::UNREACHABLE).count();
    println!(
        "matrix {} × {}: {reachable} pairs reachable, in {:.3} s by {} ({})",
        origins.len(),
        destinations.len(),
        run.solve_s,
        run.engine,
        run.reason
    );
    Ok(())
}
