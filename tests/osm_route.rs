//! Routes on an OpenStreetMap import: the shortest path on the millisecond weights is optimal for the
//! real-valued travel times within the documented rounding bound (at most 1 ms per arc on each path),
//! checked against a reference Dijkstra in f64 over `travel_time_s` on the Porto extract.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

mod support;
use support::{command, repo};

use urbanflow::Backend;
use urbanflow::graph::datasets::data_path;
use urbanflow::graph::osm::{OsmGraph, OsmOptions, Profile, import};
use urbanflow::sssp::real::{RealQuery, dijkstra_real, solve_real};
use urbanflow::sssp::{Algorithm, Query, solve};

/// f64 Dijkstra over the real travel times: (seconds, arcs on the path) to every vertex.
fn reference(g: &OsmGraph, s: u32) -> Vec<(f64, u32)> {
    let n = g.graph.num_vertices() as usize;
    let mut dist = vec![(f64::INFINITY, 0u32); n];
    let mut heap = BinaryHeap::new();
    dist[s as usize] = (0.0, 0);
    // Keys as ordered bits of non-negative f64 (monotone).
    heap.push(Reverse((0u64, s)));
    while let Some(Reverse((key, v))) = heap.pop() {
        let d = f64::from_bits(key);
        if d > dist[v as usize].0 {
            continue;
        }
        for a in g.graph.arc_range(v) {
            let w = g.graph.targets()[a];
            let nd = d + g.travel_time_s[a];
            if nd < dist[w as usize].0 {
                dist[w as usize] = (nd, dist[v as usize].1 + 1);
                heap.push(Reverse((nd.to_bits(), w)));
            }
        }
    }
    dist
}

#[test]
fn millisecond_routes_are_optimal_in_real_time_within_the_bound() {
    let Some(path) = data_path("osm/porto/porto_portugal.osm.pbf", "osm_route") else { return };
    for profile in [Profile::Car, Profile::Walk] {
        let g = import(&path, &OsmOptions::new(profile)).unwrap();
        let mut rng = urbanflow::graph::rng::SplitMix64::new(5);
        for _ in 0..3 {
            let s = rng.below(g.graph.num_vertices() as u64) as u32;
            let exact = reference(&g, s);
            let q = Query { source: s, predecessors: true, ..Default::default() };
            let r = solve(&g.graph, &q, Algorithm::Dijkstra, Backend::Cpu).unwrap();
            for _ in 0..20 {
                let t = rng.below(g.graph.num_vertices() as u64) as u32;
                let p = r.path_to(&g.graph, t).expect("one strongly connected component");
                let (secs, _) = g.path_totals(&p).unwrap();
                let (best, best_arcs) = exact[t as usize];
                let hops = (p.len() - 1) as f64;
                assert!(secs >= best - 1e-6, "{profile}: below the optimum");
                assert!(
                    secs <= best + 1e-3 * (hops + best_arcs as f64) + 1e-6,
                    "{profile}: {secs} s vs {best} s"
                );
                // The routed milliseconds are the rounded arc times summed.
                let ms = r.distance(t).unwrap() as f64;
                assert!((ms / 1000.0 - secs).abs() <= 1e-3 * hops + 1e-6);
            }
        }
    }
}

/// The real-valued API on real data: travel times in seconds (f64) of the Porto car graph, exact
/// Dijkstra against the scaled Δ-stepping at 1 ms resolution: same reachability, every distance the
/// length of a real path within the reported bound.
#[test]
fn real_valued_travel_times_on_porto() {
    let Some(path) = data_path("osm/porto/porto_portugal.osm.pbf", "osm_route") else { return };
    let g = import(&path, &OsmOptions::new(Profile::Car)).unwrap();
    let secs = urbanflow::Csr::from_parts(
        g.graph.offsets().to_vec(),
        g.graph.targets().to_vec(),
        g.travel_time_s.clone(),
    )
    .unwrap();
    for s in [0, 1234, 200_000] {
        let exact = dijkstra_real(&secs, s, false).unwrap();
        let q = RealQuery { source: s, predecessors: false, resolution: Some(1e-3) };
        let scaled = solve_real(&secs, &q, Algorithm::DeltaStepping(None), Backend::Cpu).unwrap();
        let mut worst = 0.0f64;
        for v in 0..secs.num_vertices() {
            let (e, d) = (exact.dist[v as usize], scaled.dist[v as usize]);
            assert!(e.is_finite() && d.is_finite(), "one strongly connected component");
            assert!(d >= e - 1e-9 && d <= e + scaled.error_bound(v) + 1e-9, "{v}: {d} vs {e}");
            worst = worst.max(d - e);
        }
        assert!(worst < 1.0, "source {s}: worst excess {worst} s");
    }
}

/// `urbanflow route` (a customisable hierarchy, point to point) gives Dijkstra's distance and a path
/// in the file's ids whose arcs exist, on the bundled road graph and on the OSM fixture.
#[test]
fn route_command_matches_dijkstra() {
    use urbanflow::graph::io::{LoadOptions, load_graph};
    let bin = support::urbanflow_bin();
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let graph = repo.join("examples/data/small-road.gr.gz");
    let loaded = load_graph(&graph, &LoadOptions::default()).unwrap();
    let n = loaded.graph.num_vertices();
    for (from, to) in [(1u64, n as u64), (17, 2_000), (2_500, 3)] {
        let out = std::process::Command::new(&bin)
            .args([
                "route",
                "--graph",
                graph.to_str().unwrap(),
                "--from",
                &from.to_string(),
                "--to",
                &to.to_string(),
            ])
            .args(["--check", "--json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let (s, t) = (loaded.vertex(from).unwrap(), loaded.vertex(to).unwrap());
        let q = Query { source: s, targets: Some(vec![t]), ..Default::default() };
        let want = solve(&loaded.graph, &q, Algorithm::Dijkstra, Backend::Cpu).unwrap().distance(t).unwrap();
        assert_eq!(j["distance"].as_u64(), Some(want as u64), "{from} → {to}");
        let path: Vec<u32> = j["path"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| loaded.vertex(v.as_u64().unwrap()).unwrap())
            .collect();
        assert_eq!((path[0], *path.last().unwrap()), (s, t));
        let sum: u64 = path
            .windows(2)
            .map(|p| {
                let g = &loaded.graph;
                g.arc_range(p[0])
                    .filter(|&a| g.targets()[a] == p[1])
                    .map(|a| g.weights()[a] as u64)
                    .min()
                    .unwrap()
            })
            .sum();
        assert_eq!(sum, want as u64, "{from} → {to}: the path's arcs add up to the distance");
        // Without a hierarchy (bidirectional Dijkstra): the same distance and path ends.
        let out = std::process::Command::new(&bin)
            .args([
                "route",
                "--graph",
                graph.to_str().unwrap(),
                "--from",
                &from.to_string(),
                "--to",
                &to.to_string(),
            ])
            .args(["--no-hierarchy", "--json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(j["distance"].as_u64(), Some(want as u64), "bidirectional {from} → {to}");
        assert_eq!(j["engine"], "bidirectional-dijkstra");
    }
    // An unknown vertex is an error naming it.
    let out = std::process::Command::new(&bin)
        .args(["route", "--graph", graph.to_str().unwrap(), "--from", "999999999"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--from 999999999: no such vertex"));
}

/// `route --within` (several origins, CSV out) equals the minimum of one Dijkstra per origin cut at the
/// budget, and `route --matrix` writes the same CSV with every engine, on the CPU and on the GPU
/// (lavapipe in CI).
#[test]
fn route_isochrones_and_gpu_matrices() {
    use urbanflow::graph::io::{LoadOptions, load_graph};
    let bin = support::urbanflow_bin();
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let graph = repo.join("examples/data/small-road.gr.gz");
    let loaded = load_graph(&graph, &LoadOptions::default()).unwrap();
    let dir = std::env::temp_dir().join(format!("urbanflow-route-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (origins, dests) = (dir.join("origins.txt"), dir.join("dests.txt"));
    std::fs::write(&origins, "# three origins\n17\n\n2500\n1200\n").unwrap();
    std::fs::write(&dests, "3\n2000\n3024\n").unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(&bin)
            .args(["route", "--graph", graph.to_str().unwrap()])
            .args(args)
            .env("URBANFLOW_CACHE_DIR", &dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let budget = 4_000u32;
    let csv = dir.join("iso.csv");
    run(&[
        "--within",
        &budget.to_string(),
        "--origins",
        origins.to_str().unwrap(),
        "--out",
        csv.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&csv).unwrap();
    let ids = [17u64, 2500, 1200];
    let rows: Vec<Vec<u32>> = ids
        .iter()
        .map(|&o| {
            let q = Query { source: loaded.vertex(o).unwrap(), ..Default::default() };
            solve(&loaded.graph, &q, Algorithm::Dijkstra, Backend::Cpu).unwrap().dist
        })
        .collect();
    let mut want: Vec<(u64, u32)> = (0..loaded.graph.num_vertices())
        .filter_map(|v| {
            let d = rows.iter().map(|r| r[v as usize]).min().unwrap();
            (d <= budget).then(|| (loaded.ids[v as usize], d))
        })
        .collect();
    want.sort_unstable();
    let mut got: Vec<(u64, u32)> = text
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let (v, d, o): (u64, u32, u64) =
                (f[0].parse().unwrap(), f[1].parse().unwrap(), f[2].parse().unwrap());
            let k = ids.iter().position(|&x| x == o).expect("an origin of the file");
            assert_eq!(
                rows[k][loaded.vertex(v).unwrap() as usize],
                d,
                "vertex {v}: its origin {o} is at {d}"
            );
            (v, d)
        })
        .collect();
    got.sort_unstable();
    assert!(want.len() > 3 && want.len() < loaded.graph.num_vertices() as usize, "the budget cuts somewhere");
    assert_eq!(got, want);
    // Matrices: every engine, CPU and GPU, writes the same file; the automatic one (three origins)
    // takes the trees and says why.
    let m = [origins.to_str().unwrap(), dests.to_str().unwrap()];
    let matrix = |extra: &[&str]| {
        let out = dir.join("matrix.csv");
        let mut args = vec!["--matrix", m[0], m[1], "--out", out.to_str().unwrap(), "--json"];
        args.extend_from_slice(extra);
        let json: serde_json::Value = serde_json::from_str(&run(&args)).unwrap();
        (std::fs::read_to_string(out).unwrap(), json)
    };
    let (cpu, json) = matrix(&["--backend", "cpu"]);
    assert_eq!(cpu.lines().count(), 1 + 9);
    assert_eq!(json["engine"], "trees", "{json}");
    assert!(json["engine_why"].as_str().unwrap().contains("origins"), "{json}");
    let (buckets, json) = matrix(&["--backend", "cpu", "--engine", "buckets"]);
    assert_eq!((buckets.as_str(), &json["engine"]), (cpu.as_str(), &serde_json::json!("buckets")));
    assert!(json["hierarchy"].as_str().unwrap().starts_with("cch"), "{json}");
    // The GPU runs only where there is an adapter (SKIP, or a failure under URBANFLOW_REQUIRE_GPU=1).
    let mut adapter = false;
    urbanflow::gpu::testing::for_each_context("route --matrix --backend gpu", |_| adapter = true);
    if adapter {
        for engine in ["trees", "min-plus"] {
            let (gpu, json) = matrix(&["--backend", "gpu", "--engine", engine]);
            assert_eq!(cpu, gpu, "{engine} on the GPU");
            assert_eq!(json["engine"], engine);
            assert!(!json["device"].as_str().unwrap().is_empty(), "{json}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `urbanflow route` and `urbanflow sssp` obey turn restrictions by default (issue 36): on the hand-made fixture (the map is drawn
/// in `scripts/fixtures/restrictions_osm.py`) a car from h to d may not turn left h→e→d (relation 101)
/// and goes by g; `--no-turns` lets it. Both commands, the hierarchy and the bidirectional search.
#[test]
fn commands_obey_turn_restrictions() {
    let fixture = repo().join("crates/graph-core/tests/data/restrictions.osm");
    let fixture = fixture.to_str().unwrap();
    // h (row 2, column 1) and d (row 1, column 0) of the 100 m grid.
    let (h, d) = ("41.1482014,-8.6088057", "41.1491007,-8.61");
    let run = |name: &str, extra: &[&str]| {
        let mut args = vec!["--osm", fixture, "--from", h, "--to", d, "--json"];
        args.extend_from_slice(extra);
        let out = command(name, &args, None);
        assert!(out.status.success(), "{name} {extra:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    for extra in [&[][..], &["--no-hierarchy"][..]] {
        let on = run("route", extra);
        assert!(on.contains("\"path\":[8,7,4]"), "route {extra:?}: {on}");
        assert!(on.contains("restriction relations applied"), "{on}");
    }
    let off = run("route", &["--no-turns"]);
    assert!(off.contains("\"turns\":\"off (car profile, --no-turns)\""), "{off}");
    let on = run("sssp", &[]);
    assert!(on.contains("\"path_vertices\":3") && on.contains("restriction relations applied"), "{on}");
    // The one turn, right at g, costs nothing: g has two neighbours, a bend and not a junction.
    let j: serde_json::Value = serde_json::from_str(&on).unwrap();
    assert_eq!(j["turn_cost_s"].as_f64(), Some(0.0), "{on}");
}
