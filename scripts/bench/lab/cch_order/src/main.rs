//! Builds the customisable hierarchy of a graph file into a fresh cache folder and prints the order,
//! chordal-supergraph and customisation times and the DAG's levels.

use graph_core::io::{LoadOptions, load_graph};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let g = load_graph(&args[1], &LoadOptions::default()).unwrap();
    let dir = std::path::PathBuf::from(&args[2]);
    std::fs::create_dir_all(&dir).unwrap();
    let t = std::time::Instant::now();
    // `metis` as a third argument (with the `metis` feature): METIS's bisections, not cached.
    #[cfg(feature = "metis")]
    let (cch, used) = if args.get(3).is_some_and(|a| a == "metis") {
        let cch = algos_sssp::cch::Cch::build_with(&g.graph, algos_sssp::cch::Bisector::Metis).unwrap();
        (cch, algos_sssp::cch::CacheUse::Uncached("METIS".into()))
    } else {
        algos_sssp::cch::Cch::build_cached_in(&g.graph, &dir).unwrap()
    };
    #[cfg(not(feature = "metis"))]
    let (cch, used) = algos_sssp::cch::Cch::build_cached_in(&g.graph, &dir).unwrap();
    let build = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    let ch = cch.customise(g.graph.weights()).unwrap();
    let cust = t.elapsed().as_secs_f64();
    println!(
        "order {:.3} s topology {:.3} s edges {} triangles {}",
        cch.order_seconds,
        cch.topology_seconds,
        cch.num_edges(),
        cch.num_triangles()
    );
    println!("levels up {} down {}", dag_levels(&ch.up), dag_levels(&ch.down));
    // FNV-1a of the ranks: two builds gave the same order iff these match.
    let hash = cch
        .rank()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, &r| (h ^ u64::from(r)).wrapping_mul(0x100_0000_01b3));
    println!("rank hash {hash:016x}");
    println!(
        "threads {} build {build:.3} s customise {cust:.3} s ({used:?}) vertices {}",
        rayon::current_num_threads(),
        ch.num_vertices()
    );
}

/// Longest-path levels of a DAG given as a CSR (Kahn's algorithm).
#[allow(dead_code)]
pub fn dag_levels(g: &graph_core::Csr<u32>) -> u32 {
    let n = g.num_vertices() as usize;
    let mut indeg = vec![0u32; n];
    for (_, v, _) in g.arcs() {
        indeg[v as usize] += 1;
    }
    let mut level = vec![0u32; n];
    let mut queue: Vec<u32> = (0..n as u32).filter(|&v| indeg[v as usize] == 0).collect();
    let mut head = 0;
    let mut seen = 0;
    while head < queue.len() {
        let u = queue[head];
        head += 1;
        seen += 1;
        for (v, _) in g.out_arcs(u) {
            level[v as usize] = level[v as usize].max(level[u as usize] + 1);
            indeg[v as usize] -= 1;
            if indeg[v as usize] == 0 {
                queue.push(v);
            }
        }
    }
    assert_eq!(seen, n, "not a DAG");
    level.iter().max().map_or(0, |&l| l + 1)
}
