//! Time-dependent multimodal earliest arrival (issue 19): random queries (random origin and
//! destination, departures 05:00–23:00) on GTFS feeds and generated road + timetable instances, one
//! thread vs rayon (16 cores) vs the GPU batch, side by side in one run; queries per second, the
//! serial per-query median, product nodes settled, and whether the GPU's arrivals equal the CPU's.
//! One JSON line per instance and profile set.
//!
//! ```text
//! cargo bench --bench td -- --gtfs ../shared/data/transit/nyc_subway_gtfs.zip,../shared/data/transit/cairns_gtfs.zip \
//!     --generate 'road=100000,layers=4,lines=40;road=1000000,layers=4,lines=100' --queries 4096 --serial-queries 256 --gpu
//! ```

#[allow(dead_code)]
mod common;

use std::time::Instant;

use common::{arg, flag, median};
use urbanflow::graph::rng::SplitMix64;
use urbanflow::transit::generate::{GenSpec, filter_profiles, generate, park_and_ride};
use urbanflow::transit::gpu::{GpuTdBatch, TdBatchConfig};
use urbanflow::transit::transit::{TransitNetwork, TransitOptions, first_weekday, read_feed};
use urbanflow::transit::{EapQuery, Nfa, ProfileQuery, Semantics, TdGraph, Workspace, arrival_times};

fn queries(ends: &[u32], profiles: usize, n: usize, seed: u64) -> Vec<ProfileQuery> {
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|i| ProfileQuery {
            query: EapQuery {
                source: ends[rng.below(ends.len() as u64) as usize],
                target: Some(ends[rng.below(ends.len() as u64) as usize]),
                depart: 5 * 3600 + rng.below(18 * 3600) as u32,
            },
            profile: (i % profiles) as u32,
        })
        .collect()
}

struct Case<'a> {
    instance: String,
    graph: &'a TdGraph,
    profiles_name: &'a str,
    profiles: Vec<Nfa>,
    sem: Semantics,
    ends: &'a [u32],
}

fn run(case: &Case, n: usize, serial_n: usize, gpu: bool, memory_gib: f64) {
    let g = case.graph;
    let qs = queries(case.ends, case.profiles.len(), n, 7);
    let serial_qs = &qs[..serial_n.min(n)];
    // Serial: one workspace, each query timed (the per-query latency a single user sees).
    let states = case.profiles.iter().map(Nfa::num_states).max().unwrap_or(1);
    let mut ws = Workspace::new(g.num_vertices(), states);
    let filters: Vec<Nfa> = case.profiles.iter().map(Nfa::as_filter).collect();
    let profiles = if case.sem == Semantics::Product { &case.profiles } else { &filters };
    let mut lat = Vec::with_capacity(serial_qs.len());
    let mut serial_settled = 0u64;
    let t = Instant::now();
    for pq in serial_qs {
        let t1 = Instant::now();
        ws.search(g, &profiles[pq.profile as usize], &pq.query, false).expect("query");
        lat.push(t1.elapsed().as_secs_f64());
        serial_settled += ws.settled();
    }
    let serial_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let (want, stats) = arrival_times(g, &case.profiles, &qs, case.sem, true).expect("rayon");
    let rayon_s = t.elapsed().as_secs_f64();
    let mut line = format!(
        "{{\"instance\":\"{}\",\"vertices\":{},\"arcs\":{},\"profiles\":\"{}\",\"semantics\":\"{:?}\",\"queries\":{n},\"serial_queries\":{},\"serial_qps\":{:.1},\"serial_median_ms\":{:.4},\"serial_settled_per_query\":{:.0},\"rayon_qps\":{:.1},\"rayon_s\":{rayon_s:.4},\"settled_per_query\":{:.0},\"threads\":{}",
        case.instance,
        g.num_vertices(),
        g.num_arcs(),
        case.profiles_name,
        case.sem,
        serial_qs.len(),
        serial_qs.len() as f64 / serial_s,
        median(lat) * 1e3,
        serial_settled as f64 / serial_qs.len().max(1) as f64,
        n as f64 / rayon_s,
        stats.settled as f64 / n as f64,
        rayon::current_num_threads(),
    );
    if gpu && let Some(ctx) = urbanflow::gpu::GpuContext::shared() {
        let t = Instant::now();
        let mut config = TdBatchConfig::for_graph(ctx, g.num_vertices(), states);
        let size = g.num_vertices() as f64 * states as f64;
        let by_memory = (memory_gib * (1u64 << 30) as f64 / (16.0 * size)) as usize;
        let by_binding = (ctx.limits.max_storage_buffer_binding_size.min(u32::MAX as u64 + 1) as f64
            / (4.0 * size)) as usize;
        config.slots = by_memory.min(by_binding).clamp(1, 8192);
        if let Some(d) = arg("--delta") {
            config.delta = d.parse().expect("--delta");
        }
        if let Some(w) = arg("--wg") {
            config.workgroup_size = w.parse().expect("--wg");
        }
        let mut b = GpuTdBatch::with_config(ctx, g, &case.profiles, case.sem, config).expect("gpu");
        // Warm-up: compiles the pipeline and touches every buffer.
        b.arrival_times(&qs[..qs.len().min(config.slots)]).expect("warm-up");
        let setup_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let (got, gstats) = b.arrival_times(&qs).expect("gpu run");
        let gpu_s = t.elapsed().as_secs_f64();
        line.push_str(&format!(
            ",\"adapter\":\"{}\",\"gpu_slots\":{},\"gpu_delta\":{},\"gpu_wg\":{},\"gpu_setup_s\":{setup_s:.3},\"gpu_qps\":{:.1},\"gpu_s\":{gpu_s:.4},\"gpu_relaxed_per_query\":{:.0},\"gpu_vs_rayon\":{:.2},\"agree\":{}",
            ctx.describe().replace('"', "'"),
            config.slots,
            config.delta,
            config.workgroup_size,
            n as f64 / gpu_s,
            gstats.settled as f64 / n as f64,
            rayon_s / gpu_s,
            got == want
        ));
    }
    line.push('}');
    println!("{line}");
}

fn main() {
    let n: usize = arg("--queries").map_or(1024, |s| s.parse().expect("--queries"));
    let serial_n: usize = arg("--serial-queries").map_or(256, |s| s.parse().expect("--serial-queries"));
    let memory_gib: f64 = arg("--gpu-memory-gib").map_or(8.0, |s| s.parse().expect("--gpu-memory-gib"));
    let gpu = flag("--gpu");
    let h: usize = arg("--profiles").map_or(8, |s| s.parse().expect("--profiles"));
    eprintln!("threads: {}", rayon::current_num_threads());
    if let Some(feeds) = arg("--gtfs") {
        for path in feeds.split(',') {
            let feed = read_feed(path.as_ref()).expect("feed");
            let date = first_weekday(&feed).expect("a weekday");
            let net = TransitNetwork::from_feed(&feed, path.as_ref(), date, &TransitOptions::default())
                .expect("network");
            let name = std::path::Path::new(path).file_name().unwrap().to_string_lossy().to_string();
            run(
                &Case {
                    instance: format!("{name} {date}"),
                    graph: &net.graph,
                    profiles_name: "walk+transit",
                    profiles: vec![Nfa::walk_transit()],
                    sem: Semantics::Product,
                    ends: &net.street,
                },
                n,
                serial_n,
                gpu,
                memory_gib,
            );
        }
    }
    if let Some(specs) = arg("--generate") {
        for spec in specs.split(';') {
            let t = Instant::now();
            let inst = generate(&GenSpec::parse(spec).expect("spec")).expect("generate");
            eprintln!("{spec}: generated in {:.1} s", t.elapsed().as_secs_f64());
            let ends: Vec<u32> = (0..inst.road_vertices).collect();
            for (name, profiles, sem) in [
                (format!("filter h={h}"), filter_profiles(h), Semantics::PerProfileFilter),
                ("park+ride".to_string(), vec![park_and_ride()], Semantics::Product),
            ] {
                run(
                    &Case {
                        instance: spec.to_string(),
                        graph: &inst.graph,
                        profiles_name: &name,
                        profiles,
                        sem,
                        ends: &ends,
                    },
                    n,
                    serial_n,
                    gpu,
                    memory_gib,
                );
            }
        }
    }
}
