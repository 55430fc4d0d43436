//! The micro-benchmarks a maintainer reruns after a change, as criterion groups (confidence intervals,
//! saved baselines): CPU Dijkstra and Δ-stepping, bidirectional Dijkstra, the CCH's point-to-point query,
//! a PHAST sweep, a matrix by buckets, one all-or-nothing assignment iteration and a BFW run, and the
//! TNTP reader — all on the bundled files, so they run anywhere in seconds. The side-by-side peer
//! harnesses (`p2p`, `tap`, …) stay as they are; these are for regressions.
//!
//! ```text
//! cargo bench --bench micro -- --save-baseline before     # on the old commit
//! cargo bench --bench micro -- --baseline before          # on the new one: changes with their intervals
//! ```

// criterion's macros define public functions without documentation.
#![allow(missing_docs)]

use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use urbanflow::Csr;
use urbanflow::graph::io::tntp::parse_net;
use urbanflow::graph::io::{ReadOptions, read_graph};
use urbanflow::sssp::cch::{Cch, CchQuery};
use urbanflow::sssp::cpu::bidirectional::BidirectionalQuery;
use urbanflow::sssp::cpu::delta::{default_delta, delta_stepping};
use urbanflow::sssp::cpu::dijkstra::{Stop, dijkstra};
use urbanflow::sssp::matrix::{Engine, MatrixOptions, distance_matrix};
use urbanflow::tap::{Algorithm, AssignOptions, CostFactors, Demand, Network, assign};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data").join(name)
}

fn road() -> Csr<u32> {
    read_graph(data("small-road.gr.gz"), ReadOptions::default()).expect("the bundled road graph")
}

fn shortest_paths(c: &mut Criterion) {
    let g = road();
    let n = g.num_vertices();
    let mut group = c.benchmark_group("sssp");
    group.bench_function("dijkstra tree", |b| b.iter(|| dijkstra(&g, 0, &Stop::default()).unwrap()));
    let delta = default_delta(&g);
    group.bench_function("delta-stepping tree", |b| b.iter(|| delta_stepping(&g, 0, delta).unwrap()));
    let mut bi = BidirectionalQuery::new(&g);
    group.bench_function("bidirectional p2p", |b| b.iter(|| bi.distance(0, n - 1).unwrap()));
    group.finish();
}

fn hierarchies(c: &mut Criterion) {
    let g = road();
    let n = g.num_vertices();
    let cch = Cch::build(&g).expect("cch");
    let mut group = c.benchmark_group("cch");
    group.bench_function("customise", |b| b.iter(|| cch.customise(g.weights()).unwrap()));
    let ch = cch.customise(g.weights()).expect("customise");
    let mut q = CchQuery::new(&ch).expect("query");
    group.bench_function("p2p distance", |b| b.iter(|| q.distance(&ch, 0, n - 1).unwrap()));
    group.bench_function("phast sweep (16 sources)", |b| {
        let sources: Vec<u32> = (0..16).map(|k| k * (n / 16)).collect();
        b.iter(|| ch.phast_serial(&sources).unwrap())
    });
    let ends: Vec<u32> = (0..100).map(|k| k * (n / 100)).collect();
    let buckets = MatrixOptions { engine: Engine::Buckets, hierarchy: Some(&ch), ..Default::default() };
    group.bench_function("matrix 100 x 100", |b| {
        b.iter(|| distance_matrix(&g, &ends, &ends, &buckets).unwrap())
    });
    group.finish();
}

fn assignment(c: &mut Criterion) {
    let net = Network::read_tntp(data("SiouxFalls_net.tntp"), CostFactors::default()).expect("network");
    let demand = Demand::read_tntp(data("SiouxFalls_trips.tntp"), &net).expect("demand");
    let mut group = c.benchmark_group("tap");
    let one = AssignOptions::default().with_max_iterations(1);
    group.bench_function("one all-or-nothing iteration", |b| b.iter(|| assign(&net, &demand, &one).unwrap()));
    let bfw =
        AssignOptions { algorithm: Algorithm::BiconjugateFw, ..AssignOptions::default() }.with_gap(1e-4);
    group.bench_function("BFW to 1e-4", |b| b.iter(|| assign(&net, &demand, &bfw).unwrap()));
    group.finish();
}

fn readers(c: &mut Criterion) {
    let bytes = std::fs::read(data("SiouxFalls_net.tntp")).expect("the bundled network");
    c.bench_function("tntp net reader", |b| {
        b.iter(|| parse_net(bytes.as_slice(), "SiouxFalls_net.tntp").unwrap())
    });
}

criterion_group!(micro, shortest_paths, hierarchies, assignment, readers);
criterion_main!(micro);
