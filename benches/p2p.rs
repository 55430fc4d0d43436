//! Point-to-point queries and distance matrices (issue 35), side by side in one run with their
//! baselines: our customisable contraction hierarchy (build and customisation timed apart; distance
//! query, query with its path unpacked to input arcs, the buckets matrix engine), bidirectional Dijkstra and
//! Dijkstra stopped at the target (no preparation), and the fast_paths crate (a contraction hierarchy:
//! preparation, query with path, and a matrix as its users compute one — a query per pair, on all cores
//! with one calculator per thread). Our queries run on the basic customisation and on its perfect
//! thinning (`cch::perfect::thin_for_queries`, timed apart as `thin_s`). Every answer is compared with
//! Dijkstra's or with ours. Each query timing is the best of `--rounds` (default 3), the variants in
//! turn within a round. One JSON line per graph.
//!
//! ```text
//! cargo bench --bench p2p -- --graphs ../shared/data/road/weighted/NY.gr.xz --queries 2000 --matrix 1000
//! ```
//! `--no-fast-paths` leaves the peer out (its preparation takes seconds on large graphs);
//! `--fast-paths-matrix K` sets the side of the peer's matrix (default: `--matrix`, capped at 300: its
//! query loop would take minutes at 1,000 × 1,000 on NY).

#[allow(dead_code)]
mod common;

use std::time::Instant;

use common::{arg, flag};
use rayon::prelude::*;
use urbanflow::graph::io::{ReadOptions, read_graph};
use urbanflow::sssp::cch::perfect::thin_for_queries;
use urbanflow::sssp::cch::{Cch, CchQuery};
use urbanflow::sssp::cpu::bidirectional::BidirectionalQuery;
use urbanflow::sssp::cpu::dijkstra::{Stop, dijkstra};
use urbanflow::sssp::matrix::{Engine, MatrixOptions, distance_matrix};

fn main() {
    let graphs = arg("--graphs").expect("--graphs F[,F…]");
    let queries: usize = arg("--queries").map_or(2000, |s| s.parse().expect("--queries"));
    let checked: usize = arg("--dijkstra-queries").map_or(200, |s| s.parse().expect("--dijkstra-queries"));
    let side: usize = arg("--matrix").map_or(1000, |s| s.parse().expect("--matrix"));
    let peer_side: usize =
        arg("--fast-paths-matrix").map_or(side.min(300), |s| s.parse().expect("--fast-paths-matrix"));
    let with_peer = !flag("--no-fast-paths");
    let rounds: usize = arg("--rounds").map_or(3, |s| s.parse().expect("--rounds")).max(1);
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
        // The perfect customisation's thinned copy (only the arcs some shortest path may need).
        let t = Instant::now();
        let (thin, thin_unpacking) = thin_for_queries(&ch, &unpacking).expect("thinning");
        let thin_s = t.elapsed().as_secs_f64();
        let kept = |c: &urbanflow::sssp::ch::ContractionHierarchy| c.up.num_arcs() + c.down.num_arcs();
        let (arcs_basic, arcs_thin) = (kept(&ch), kept(&thin));
        let mut q = CchQuery::new(&ch).expect("query state");
        // Each timing is the best of `rounds`, the variants in turn within a round, so that a machine
        // whose speed drifts (this 2-core one moves by ±25 % between runs) slows them alike.
        let mut best = [f64::INFINITY; 4];
        let mut dist: Vec<Option<u32>> = Vec::new();
        let mut arcs = 0usize;
        for _ in 0..rounds {
            for (k, hierarchy) in [&ch, &thin].into_iter().enumerate() {
                let t = Instant::now();
                let d: Vec<Option<u32>> =
                    pairs.iter().map(|&(s, t)| q.distance(hierarchy, s, t).unwrap()).collect();
                best[k] = best[k].min(t.elapsed().as_secs_f64() * 1e6 / queries as f64);
                if k == 0 {
                    dist = d;
                } else {
                    assert_eq!(d, dist, "{path}: the thinned hierarchy's distances");
                }
            }
            for (k, (hierarchy, unpacking)) in
                [(&ch, &unpacking), (&thin, &thin_unpacking)].into_iter().enumerate()
            {
                let t = Instant::now();
                arcs = 0;
                for &(s, t) in &pairs {
                    arcs += q.path(hierarchy, unpacking, s, t).unwrap().map_or(0, |(_, a)| a.len());
                }
                best[2 + k] = best[2 + k].min(t.elapsed().as_secs_f64() * 1e6 / queries as f64);
            }
        }
        let [query_us, thin_query_us, path_us, thin_path_us] = best;
        let few = &pairs[..checked.min(pairs.len())];
        let t = Instant::now();
        for (k, &(s, target)) in few.iter().enumerate() {
            let stop = Stop { targets: Some(&[target]), ..Stop::default() };
            let (d, _) = dijkstra(&g, s, &stop).expect("dijkstra");
            let want = (d[target as usize] != u32::MAX).then_some(d[target as usize]);
            assert_eq!(dist[k], want, "{path}: {s} → {target}");
        }
        let dijkstra_us = t.elapsed().as_secs_f64() * 1e6 / few.len() as f64;
        // Bidirectional Dijkstra: no preparation but the reverse graph.
        let t = Instant::now();
        let mut bi = BidirectionalQuery::new(&g);
        let reverse_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        for (k, &(s, target)) in few.iter().enumerate() {
            let route = bi.path(s, target).expect("bidirectional");
            assert_eq!(route.map(|r| r.distance), dist[k], "{path}: bidirectional {s} → {target}");
        }
        let bidirectional_us = t.elapsed().as_secs_f64() * 1e6 / few.len() as f64;
        // Matrices: ours on all cores.
        let ends = |k: usize, salt: u64| -> Vec<u32> {
            (0..k as u64).map(|i| ((i * 2_654_435_761 + salt) % n) as u32).collect()
        };
        let (rows, cols) = (ends(side, 7), ends(side, 99_991));
        let t = Instant::now();
        let buckets = MatrixOptions { engine: Engine::Buckets, hierarchy: Some(&ch), ..Default::default() };
        let m = distance_matrix(&g, &rows, &cols, &buckets).expect("matrix").matrix;
        let matrix_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let thinned = MatrixOptions { engine: Engine::Buckets, hierarchy: Some(&thin), ..Default::default() };
        let thin_m = distance_matrix(&g, &rows, &cols, &thinned).expect("matrix").matrix;
        let thin_matrix_s = t.elapsed().as_secs_f64();
        assert_eq!(thin_m.data, m.data, "{path}: the thinned hierarchy's matrix");
        let threads = rayon::current_num_threads();
        let mut line = format!(
            "{{\"graph\":{path:?},\"vertices\":{n},\"arcs\":{},\"threads\":{threads},\"cch_build_s\":{build_s:.3},\"customise_s\":{customise_s:.3},\
             \"thin_s\":{thin_s:.3},\"hierarchy_arcs\":{arcs_basic},\"thinned_arcs\":{arcs_thin},\"rounds\":{rounds},\
             \"queries\":{queries},\"query_us\":{query_us:.2},\"query_with_path_us\":{path_us:.2},\
             \"thinned_query_us\":{thin_query_us:.2},\"thinned_query_with_path_us\":{thin_path_us:.2},\"path_arcs_mean\":{:.1},\
             \"dijkstra_to_target_us\":{dijkstra_us:.1},\"bidirectional_reverse_s\":{reverse_s:.3},\"bidirectional_with_path_us\":{bidirectional_us:.1},\
             \"checked_against_dijkstra\":{},\"matrix\":\"{side}x{side}\",\"matrix_s\":{matrix_s:.3},\"thinned_matrix_s\":{thin_matrix_s:.3}",
            g.num_arcs(),
            arcs as f64 / queries as f64,
            few.len()
        );
        if with_peer {
            line += &fast_paths_columns(&g, &pairs, &dist, &m, peer_side, rounds);
        }
        println!("{line}}}");
    }
}

/// The fast_paths crate on the same graph, pairs and matrix corner: its preparation, a query with its
/// path, and a `k × k` matrix as a query per pair on all cores; every answer checked against ours.
fn fast_paths_columns(
    g: &urbanflow::Csr<u32>,
    pairs: &[(u32, u32)],
    dist: &[Option<u32>],
    ours: &urbanflow::sssp::matrix::DistanceMatrix,
    k: usize,
    rounds: usize,
) -> String {
    let t = Instant::now();
    let mut input = fast_paths::InputGraph::new();
    // fast_paths skips zero-weight arcs and loops and keeps the lightest of parallel arcs: counted, so a
    // graph where that changes distances is said to differ rather than compared wrongly.
    let mut skipped_zero = 0usize;
    for (u, v, w) in g.arcs() {
        if w == 0 && u != v {
            skipped_zero += 1;
        }
        input.add_edge(u as usize, v as usize, w as usize);
    }
    input.freeze();
    let input_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let fast = fast_paths::prepare(&input);
    let prepare_s = t.elapsed().as_secs_f64();
    let mut calc = fast_paths::create_calculator(&fast);
    let (mut differ, mut query_us) = (0usize, f64::INFINITY);
    for _ in 0..rounds {
        let t = Instant::now();
        differ = 0;
        for (k, &(s, t)) in pairs.iter().enumerate() {
            let p = calc.calc_path(&fast, s as usize, t as usize);
            differ += (p.map(|p| p.get_weight() as u32) != dist[k]) as usize;
        }
        query_us = query_us.min(t.elapsed().as_secs_f64() * 1e6 / pairs.len() as f64);
    }
    let (rows, cols) =
        (&ours.sources[..k.min(ours.sources.len())], &ours.targets[..k.min(ours.targets.len())]);
    let t = Instant::now();
    let entries: Vec<u32> = rows
        .par_iter()
        .map_init(
            || fast_paths::create_calculator(&fast),
            |calc, &s| {
                cols.iter()
                    .map(|&c| {
                        calc.calc_path(&fast, s as usize, c as usize)
                            .map_or(u32::MAX, |p| p.get_weight() as u32)
                    })
                    .collect::<Vec<_>>()
            },
        )
        .flatten()
        .collect();
    let matrix_s = t.elapsed().as_secs_f64();
    for (i, row) in entries.chunks(cols.len().max(1)).enumerate() {
        for (j, &d) in row.iter().enumerate() {
            differ += (d != ours.get(i, j)) as usize;
        }
    }
    let per_entry_us = matrix_s * 1e6 / entries.len().max(1) as f64;
    format!(
        ",\"fast_paths\":{{\"input_s\":{input_s:.3},\"prepare_s\":{prepare_s:.3},\"query_with_path_us\":{query_us:.2},\
         \"matrix\":\"{}x{}\",\"matrix_s\":{matrix_s:.3},\"matrix_us_per_entry\":{per_entry_us:.2},\"zero_weight_arcs_skipped\":{skipped_zero},\
         \"answers_differing_from_ours\":{differ}}}",
        rows.len(),
        cols.len()
    )
}
