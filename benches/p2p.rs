//! Point-to-point queries on a customisable contraction hierarchy (issue 35) against Dijkstra stopped at
//! the target, side by side in one run on one thread: CCH build and customisation timed apart, then the
//! distance query, the query with its path unpacked to input arcs, and Dijkstra to the target, per query;
//! every answer compared with Dijkstra's. One JSON line per graph.
//!
//! ```text
//! cargo bench --bench p2p -- --graphs ../shared/data/road/weighted/NY.gr.xz --queries 2000
//! ```

#[allow(dead_code)]
mod common;

use std::time::Instant;

use common::arg;
use urbanflow::graph::io::{ReadOptions, read_graph};
use urbanflow::sssp::cch::{Cch, CchQuery};
use urbanflow::sssp::cpu::dijkstra::{Stop, dijkstra};

fn main() {
    let graphs = arg("--graphs").expect("--graphs F[,F…]");
    let queries: usize = arg("--queries").map_or(2000, |s| s.parse().expect("--queries"));
    let checked: usize = arg("--dijkstra-queries").map_or(200, |s| s.parse().expect("--dijkstra-queries"));
    for path in graphs.split(',') {
        let g: urbanflow::Csr<u32> = read_graph(path, ReadOptions::default()).expect("graph");
        let n = g.num_vertices() as u64;
        let pairs: Vec<(u32, u32)> = (0..queries as u64)
            .map(|i| (((i * 2_654_435_761) % n) as u32, ((i * 40_503 + 12_345) % n) as u32))
            .collect();
        let t = Instant::now();
        let cch = Cch::build(&g).expect("cch");
        let build_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let (ch, unpacking) = cch.customise_with_unpacking(g.weights()).expect("customise");
        let customise_s = t.elapsed().as_secs_f64();
        let mut q = CchQuery::new(&ch).expect("query state");
        let t = Instant::now();
        let dist: Vec<Option<u32>> = pairs.iter().map(|&(s, t)| q.distance(&ch, s, t).unwrap()).collect();
        let query_us = t.elapsed().as_secs_f64() * 1e6 / queries as f64;
        let t = Instant::now();
        let mut arcs = 0usize;
        for &(s, t) in &pairs {
            arcs += q.path(&ch, &unpacking, s, t).unwrap().map_or(0, |(_, a)| a.len());
        }
        let path_us = t.elapsed().as_secs_f64() * 1e6 / queries as f64;
        let few = &pairs[..checked.min(pairs.len())];
        let t = Instant::now();
        for (k, &(s, target)) in few.iter().enumerate() {
            let stop = Stop { targets: Some(&[target]), ..Stop::default() };
            let (d, _) = dijkstra(&g, s, &stop).expect("dijkstra");
            let want = (d[target as usize] != u32::MAX).then_some(d[target as usize]);
            assert_eq!(dist[k], want, "{path}: {s} → {target}");
        }
        let dijkstra_us = t.elapsed().as_secs_f64() * 1e6 / few.len() as f64;
        println!(
            "{{\"graph\":{path:?},\"vertices\":{n},\"arcs\":{},\"cch_build_s\":{build_s:.3},\"customise_s\":{customise_s:.3},\
             \"queries\":{queries},\"query_us\":{query_us:.2},\"query_with_path_us\":{path_us:.2},\"path_arcs_mean\":{:.1},\
             \"dijkstra_to_target_us\":{dijkstra_us:.1},\"speedup_vs_dijkstra\":{:.0},\"checked_against_dijkstra\":{}}}",
            g.num_arcs(),
            arcs as f64 / queries as f64,
            dijkstra_us / query_us,
            few.len()
        );
    }
}
