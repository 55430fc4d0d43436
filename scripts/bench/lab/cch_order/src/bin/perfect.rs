//! `cch::perfect::thin_downward` on a graph file: its time, the downward arcs and the DAG levels the GPU
//! sweep has before and after, and 32 PHAST trees compared.
//!   cargo build --release --bin perfect && target/release/perfect NY.gr.xz $(mktemp -d)
use algos_sssp::ch::ContractionHierarchy;
use graph_core::io::{LoadOptions, load_graph};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let g = load_graph(&args[1], &LoadOptions::default()).unwrap();
    let dir = std::path::PathBuf::from(&args[2]);
    std::fs::create_dir_all(&dir).unwrap();
    let (cch, _) = algos_sssp::cch::Cch::build_cached_in(&g.graph, &dir).unwrap();
    let ch = cch.customise(g.graph.weights()).unwrap();
    let t = std::time::Instant::now();
    let thin = algos_sssp::cch::perfect::thin_downward(&ch).unwrap();
    println!("thinning {:.3} s", t.elapsed().as_secs_f64());
    println!("down arcs {} -> {}", ch.down.num_arcs(), thin.down.num_arcs());
    println!("levels down {} -> {}", levels(&ch), levels(&thin));
    let n = g.graph.num_vertices();
    let sources: Vec<u32> = (0..32).map(|i| (i * 7919 + 13) % n).collect();
    let a = ch.phast(&sources).unwrap();
    let b = thin.phast(&sources).unwrap();
    assert_eq!(a, b, "thinned PHAST differs");
    println!("32 PHAST trees equal");
}

fn levels(ch: &ContractionHierarchy) -> u32 {
    let n = ch.num_vertices() as usize;
    let (dof, dt) = (ch.down.offsets(), ch.down.targets());
    let mut depth = vec![0u32; n];
    for r in (0..n).rev() {
        depth[r] = (dof[r]..dof[r + 1]).map(|a| depth[dt[a as usize] as usize] + 1).max().unwrap_or(0);
    }
    depth.iter().max().map_or(0, |d| d + 1)
}
