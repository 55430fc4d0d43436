//! Chordless cycles: sequential DFS and the rayon count side by side, one JSON line per graph
//! (median of `--reps`; counts asserted equal).
//!
//! ```text
//! cargo bench --bench cycles -- --graphs grid:6x10,grid:7x10,grid:8x10,hypercube:6,kmn:50,grid3:3x4x4 --reps 3
//! ```

use std::ops::ControlFlow;
use std::time::Instant;

use urbanflow::cycles::{
    ChordlessOptions, SimpleGraph, Simplify, chordless_cycles, count_chordless_cycles_rayon,
};
use urbanflow::graph::generators;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

fn graph(spec: &str) -> SimpleGraph {
    let (kind, rest) = spec.split_once(':').unwrap_or((spec, ""));
    let nums: Vec<u32> =
        rest.split(['x', ',']).filter(|s| !s.is_empty()).map(|s| s.parse().expect("a number")).collect();
    let repair = |g: &urbanflow::graph::Csr<u32>| SimpleGraph::from_csr(g, Simplify::Repair).unwrap().0;
    match (kind, nums.as_slice()) {
        ("grid", &[r, c]) => repair(&generators::grid_2d(r, c)),
        ("hypercube", &[d]) => repair(&generators::hypercube(d).unwrap()),
        ("kmn", &[k]) => repair(&generators::complete_bipartite(k, k)),
        ("wheel", &[n]) => repair(&generators::wheel(n).unwrap()),
        ("grid3", &[a, b, c]) => repair(&generators::grid_3d(a, b, c)),
        _ => panic!("unknown graph `{spec}`"),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let reps: usize = arg("--reps").map_or(3, |s| s.parse().expect("--reps"));
    let graphs = arg("--graphs").unwrap_or("grid:6x10,grid:7x10".into());
    let opts = ChordlessOptions::default();
    for spec in graphs.split(',') {
        let g = graph(spec);
        let mut seq_t = Vec::new();
        let mut total = 0;
        for _ in 0..reps.max(1) {
            let t = Instant::now();
            total = chordless_cycles(&g, &opts, &mut |_| ControlFlow::Continue(())).unwrap().total;
            seq_t.push(t.elapsed().as_secs_f64());
        }
        let mut par_t = Vec::new();
        for _ in 0..reps.max(1) {
            let t = Instant::now();
            let s = count_chordless_cycles_rayon(&g, &opts).unwrap();
            par_t.push(t.elapsed().as_secs_f64());
            assert_eq!(s.total, total, "{spec}: rayon count differs");
        }
        let (s, p) = (median(seq_t), median(par_t));
        println!(
            "{{\"graph\":{spec:?},\"vertices\":{},\"edges\":{},\"cycles\":{total},\"sequential_s\":{s:.4},\"rayon_s\":{p:.4},\"threads\":{},\"rayon_vs_sequential\":{:.2},\"sequential_cycles_per_s\":{:.0}}}",
            g.num_vertices(),
            g.num_edges(),
            rayon::current_num_threads(),
            s / p,
            total as f64 / s
        );
    }
}
