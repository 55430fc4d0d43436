//! What a user meets on bad input and in logs (issue 38), one test per case: the commands as a user runs
//! them (exit code, stderr) and the library calls behind them. Exit codes: 0 success, 1 error, 2 a target
//! not reached.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod support;
use support::{command, repo};

use urbanflow::graph::datasets::data_root;
use urbanflow::graph::io::{ParseIssue, ReadOptions, parse_dimacs_sp};

fn bundled(name: &str) -> PathBuf {
    repo().join("examples/data").join(name)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A scratch folder of this test process.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("urbanflow-trust-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn assign_with_trips(trips: &Path, extra: &[&str]) -> Output {
    let net = bundled("SiouxFalls_net.tntp");
    let mut args = vec!["--net", net.to_str().unwrap(), "--trips", trips.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    command("assign", &args, None)
}

/// Item 1: A trips file cut after line 122 (whole lines lost) or inside a number is refused with the line;
/// `--lenient` reads it with a warning.
#[test]
fn cut_trips_files_are_refused() {
    let dir = scratch("cut");
    let text = std::fs::read_to_string(bundled("SiouxFalls_trips.tntp")).unwrap();
    let head: Vec<&str> = text.lines().take(122).collect();
    let cut = dir.join("cut_trips.tntp");
    std::fs::write(&cut, head.join("\n") + "\n").unwrap();
    let out = assign_with_trips(&cut, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("cut_trips.tntp:2: <TOTAL OD FLOW> declares 360600.0"), "{}", stderr(&out));
    assert!(stderr(&out).contains("--lenient"));
    let out = assign_with_trips(&cut, &["--lenient"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("warning: "), "{}", stderr(&out));
    // Cut inside a number: `16 :   2800.0;` → `16 :   28`.
    let at = text.find("16 :   2800.0;").unwrap();
    let cut_number = dir.join("number_trips.tntp");
    std::fs::write(&cut_number, &text[..at + "16 :   28".len()]).unwrap();
    let out = assign_with_trips(&cut_number, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("has no `;`"), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).ok();
}

/// Item 2: A `<TOTAL OD FLOW>` the entries do not add up to is an error naming both values.
#[test]
fn a_wrong_total_is_refused() {
    let dir = scratch("total");
    let text = std::fs::read_to_string(bundled("SiouxFalls_trips.tntp")).unwrap();
    let wrong = dir.join("wrong_trips.tntp");
    std::fs::write(&wrong, text.replace("<TOTAL OD FLOW> 360600.0", "<TOTAL OD FLOW> 999999.0")).unwrap();
    let out = assign_with_trips(&wrong, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("declares 999999.0 but the entries add up to 360600"), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).ok();
}

/// Item 3: A link to node 30 in a network declaring 24 nodes is refused (it was read as a 25-node network).
#[test]
fn a_link_to_an_undeclared_node_is_refused() {
    let dir = scratch("node30");
    let text = std::fs::read_to_string(bundled("SiouxFalls_net.tntp")).unwrap();
    let last = text.lines().rev().find(|l| l.trim_start().starts_with("24")).unwrap();
    let bad_row = last.replacen("24", "30", 1);
    let net = dir.join("node30_net.tntp");
    std::fs::write(&net, text.replace(last, &bad_row)).unwrap();
    let trips = bundled("SiouxFalls_trips.tntp");
    let out = command(
        "assign",
        &["--net", net.to_str().unwrap(), "--trips", trips.to_str().unwrap(), "--json"],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("<NUMBER OF NODES> declares 24 but the links name 25"), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).ok();
}

/// Item 4: A start 4,000 km from the map is refused with the distance (NaN and out-of-range coordinates are
/// typed errors in the library: tests of graph-core's osm module).
#[test]
fn a_far_start_is_refused() {
    let pbf = repo().join("crates/graph-core/tests/data/oneway.osm.pbf");
    let out = command("sssp", &["--osm", pbf.to_str().unwrap(), "--from", "0,0", "--json"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("beyond the 1000 m snapping limit"), "{}", stderr(&out));
}

/// Item 4, timetables: a journey from a point thousands of kilometres from every stop is refused, not
/// walked.
#[test]
fn a_far_journey_start_is_refused() {
    let feed = repo().join("crates/algos-transit/tests/data/mini_gtfs");
    let out =
        command("journey", &["--gtfs", feed.to_str().unwrap(), "--from", "0,0", "--to", "0.001,0.001"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--from 0.000000,0.000000 is"), "{}", stderr(&out));
    assert!(stderr(&out).contains("snapping limit"), "{}", stderr(&out));
}

/// Item 5: `--k 0` is a usage error, not "none: … cannot be reached".
#[test]
fn k_zero_is_refused() {
    let out = command("ksp", &["--k", "0"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("at least 1 path"), "{}", stderr(&out));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("none"));
}

/// Item 6: An iteration cap that stops the assignment before its gap exits with 2 and names the cap; a usage
/// error exits with 1 (clap's own 2 would read as a missed target).
#[test]
fn a_missed_gap_exits_with_two() {
    let out = command("assign", &["--max-iters", "3", "--json"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("target not reached"), "{}", stderr(&out));
    assert!(stderr(&out).contains("--max-iters 3"), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["converged"], false);
    let out = command("assign", &["--gap", "1e-3", "--json"], None);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(command("assign", &["--no-such-flag"], None).status.code(), Some(1));
    assert_eq!(command("assign", &["--help"], None).status.code(), Some(0));
    let help = command("assign", &["--help"], None);
    assert!(String::from_utf8_lossy(&help.stdout).contains("Exit codes: 0 success, 1 error"));
}

/// Item 7: With stderr not a terminal, progress comes as plain lines while the run goes (here one per step:
/// `URBANFLOW_PROGRESS_SECONDS=0`), for `assign` and `many_to_all`.
#[test]
fn progress_lines_reach_logs() {
    let out = command("assign", &["--gap", "1e-4"], None);
    assert_eq!(out.status.code(), Some(0));
    let lines = stderr(&out).lines().filter(|l| l.contains("assignment: iteration")).count();
    assert!(lines >= 3, "{}", stderr(&out));
    let out = command("trees", &["--sources", "24"], None);
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("trees: 24 of 24 trees"), "{}", stderr(&out));
}

/// Item 8: Messages that say what is wrong: a fractional DIMACS weight, the reserved u32 weights with the
/// line, a VRPLIB file without demands blamed on its last line, the GTFS crate's typo replaced.
#[test]
fn messages_say_what_is_wrong() {
    let err = parse_dimacs_sp::<u32>("p sp 2 1\na 1 2 2.5\n".as_bytes(), "f.gr", ReadOptions::default())
        .unwrap_err();
    assert!(err.to_string().starts_with("f.gr:2: weight `2.5`"), "{err}");
    assert!(err.to_string().contains("a fraction"), "{err}");
    let err =
        parse_dimacs_sp::<u32>("p sp 2 1\na 1 2 4294967295\n".as_bytes(), "f.gr", ReadOptions::default())
            .unwrap_err();
    assert_eq!(err.line(), Some(2));
    assert!(matches!(err.kind(), Some(ParseIssue::BadWeight { .. })), "{err}");
    assert!(err.to_string().contains("reserved"), "{err}");

    let vrp = std::fs::read_to_string(bundled("small-cvrp.vrp")).unwrap();
    let start = vrp.find("DEMAND_SECTION").unwrap();
    let end = vrp.find("DEPOT_SECTION").unwrap();
    let no_demand = format!("{}{}", &vrp[..start], &vrp[end..]);
    let err = urbanflow::dp::vrp::vrplib::parse_vrplib(
        &no_demand,
        Path::new("x.vrp"),
        urbanflow::dp::vrp::vrplib::Rounding::Nint,
    )
    .unwrap_err()
    .to_string();
    let last = no_demand.lines().count();
    assert!(err.starts_with(&format!("x.vrp:{last}: ")), "{err}");
    assert!(err.contains("DEMAND_SECTION"), "{err}");

    let feed = scratch("gtfs");
    let src = repo().join("crates/algos-transit/tests/data/mini_gtfs");
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        if p.file_name().unwrap() != "stops.txt" {
            std::fs::copy(&p, feed.join(p.file_name().unwrap())).unwrap();
        }
    }
    let Err(err) = urbanflow::transit::transit::read_feed(&feed) else {
        panic!("a feed without stops.txt read")
    };
    let err = err.to_string();
    assert!(!err.contains("Cound") && err.contains("stops.txt"), "{err}");
    std::fs::remove_dir_all(&feed).ok();
}

/// Item 9: Data files named as the documentation names them (`../shared/data/…`) or relative to
/// `URBANFLOW_DATA` are found from any directory.
#[test]
fn data_names_resolve_from_anywhere() {
    let Some(root) = data_root() else {
        assert!(!urbanflow::graph::datasets::env_flag("URBANFLOW_REQUIRE_DATA"), "shared data required");
        eprintln!("SKIP data_names_resolve_from_anywhere: no shared data");
        return;
    };
    let elsewhere = scratch("elsewhere");
    for name in ["tntp/SiouxFalls/SiouxFalls_net.tntp", "../shared/data/tntp/SiouxFalls/SiouxFalls_net.tntp"]
    {
        let out = Command::new(support::urbanflow_bin())
            .args(["assign", "--net", name, "--gap", "1e-2", "--json"])
            .env("URBANFLOW_DATA", &root)
            .env("URBANFLOW_BACKEND", "cpu")
            .current_dir(&elsewhere)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    }
    std::fs::remove_dir_all(&elsewhere).ok();
}

/// Issue 36: `assign --turns` — a bad turn file exits 1 naming file and line; a good one writes
/// turning-movement flows in which the banned turn is absent and the flows into a junction add up.
#[test]
fn assign_with_turns() {
    let dir = scratch("turns");
    let bad = dir.join("bad_turns.tntp");
    std::fs::write(&bad, "<END OF METADATA>\n1,2 3,4 1 ;\n").unwrap();
    let out = command("assign", &["--turns", bad.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("bad_turns.tntp:2: 1,2 then 3,4: not a turn"), "{}", stderr(&out));
    let good = dir.join("sf_turns.tntp");
    std::fs::write(&good, "<NUMBER OF TURNS> 2\n<END OF METADATA>\n9,10 10,15 ban ;\n17,16 16,8 2.5 ;\n")
        .unwrap();
    let flows = dir.join("turn_flows.csv");
    let out = command(
        "assign",
        &["--turns", good.to_str().unwrap(), "--turn-flows-out", flows.to_str().unwrap(), "--json"],
        None,
    );
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("2 turns listed (1 banned for every class)"));
    let csv = std::fs::read_to_string(&flows).unwrap();
    assert!(csv.starts_with("node,from_link,to_link,volume,penalty\n"));
    assert!(!csv.contains("\n10,9-10,10-15,"), "the banned turn is listed");
    assert!(csv.contains("\n16,17-16,16-8,"), "the penalised turn is missing");
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 58: `transit-assign` on Coquimbo refuses zones without connectors unless told, then writes the
/// volumes AequilibraE computes (the library's fixture) and says what it could not assign.
#[test]
fn transit_assign_on_coquimbo() {
    let Some(dir) = data_root().map(|r| r.join("transit/coquimbo")) else {
        assert!(!urbanflow::graph::datasets::env_flag("URBANFLOW_REQUIRE_DATA"), "shared data required");
        eprintln!("SKIP transit_assign_on_coquimbo: no shared data");
        return;
    };
    let out_dir = scratch("transit");
    let volumes = out_dir.join("volumes.csv");
    let file = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let (edges, zones, demand) = (file("edges.csv"), file("zones.csv"), file("demand.csv"));
    let base = ["--edges", &edges, "--zones", &zones, "--demand", &demand];
    let refused = command("transit-assign", &base, None);
    assert_eq!(refused.status.code(), Some(1));
    assert!(stderr(&refused).contains("103 zones with demand have no connector"), "{}", stderr(&refused));
    let args = [&base[..], &["--allow-unconnected", "--json", "--out", volumes.to_str().unwrap()]].concat();
    let out = command("transit-assign", &args, None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("16686.0 trips in 16686 OD pairs could not reach"), "{}", stderr(&out));
    let want = std::fs::read_to_string(
        repo().join("crates/algos-transit/tests/fixtures/strategies/coquimbo_volumes.csv"),
    )
    .unwrap();
    let got = std::fs::read_to_string(&volumes).unwrap();
    assert_eq!(got.lines().count(), want.lines().count());
    for (g, w) in got.lines().zip(want.lines()).skip(1) {
        let (g, w) = (g.split_once(',').unwrap(), w.split_once(',').unwrap());
        assert_eq!(g.0, w.0);
        let (g, w): (f64, f64) = (g.1.parse().unwrap(), w.1.parse().unwrap());
        assert!((g - w).abs() <= 1e-9 * w.abs().max(1.0), "link {}: {g} against {w}", w);
    }
    std::fs::remove_dir_all(&out_dir).ok();
}

/// Issue 58's congested assignment: `--vehicle-capacity` on the grid city's edges iterates to the gap
/// with roomy vehicles (exit 0, the same volumes as without capacities), says when small vehicles stop
/// it short (exit 2, the gap named), writes the effective frequencies, and needs `--period` with
/// `--edges`.
#[test]
fn congested_transit_assign_reports_its_gap() {
    let dir = scratch("transit-congested");
    let city = repo().join("crates/algos-transit/tests/fixtures/strategies/city6");
    let file = |name: &str| city.join(name).to_str().unwrap().to_string();
    let (edges, zones, demand) = (file("edges.csv"), file("zones.csv"), file("demand.csv"));
    let (plain_out, roomy_out, freqs) = (dir.join("plain.csv"), dir.join("roomy.csv"), dir.join("freq.csv"));
    let base = ["--edges", &edges, "--zones", &zones, "--demand", &demand, "--json"];
    let plain =
        command("transit-assign", &[&base[..], &["--out", plain_out.to_str().unwrap()]].concat(), None);
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    let roomy_args = ["--vehicle-capacity", "1e9", "--period", "3600", "--out", roomy_out.to_str().unwrap()];
    let roomy = command("transit-assign", &[&base[..], &roomy_args].concat(), None);
    assert_eq!(roomy.status.code(), Some(0), "{}", stderr(&roomy));
    let j: serde_json::Value = serde_json::from_slice(&roomy.stdout).unwrap();
    assert_eq!(j["congestion"]["converged"], serde_json::json!(true), "{j}");
    assert_eq!(
        std::fs::read(&plain_out).unwrap(),
        std::fs::read(&roomy_out).unwrap(),
        "roomy lines do not congest"
    );
    let small = ["--vehicle-capacity", "2", "--period", "3600", "--max-iterations", "5"];
    let tight = command(
        "transit-assign",
        &[&base[..], &small, &["--frequencies", freqs.to_str().unwrap()]].concat(),
        None,
    );
    assert_eq!(tight.status.code(), Some(2), "{}", stderr(&tight));
    assert!(stderr(&tight).contains("congested assignment stopped after 5 iterations"), "{}", stderr(&tight));
    let table = std::fs::read_to_string(&freqs).unwrap();
    assert!(table.starts_with("link_id,frequency,effective_frequency,capacity,boarding,on_board\n"));
    let slowed = table.lines().skip(1).filter(|l| {
        let f: Vec<f64> = l.split(',').skip(1).take(2).map(|x| x.parse().unwrap()).collect();
        f[1] < f[0]
    });
    assert!(slowed.count() > 0, "small vehicles slow some lines down");
    // Per line: the one listed line congests, the others are unlimited.
    let vehicles = dir.join("vehicles.csv");
    std::fs::write(&vehicles, "line_id,vehicle_capacity\nL1a,1\n").unwrap();
    let per_line =
        ["--line-capacities", vehicles.to_str().unwrap(), "--period", "3600", "--max-iterations", "5"];
    let lined = command(
        "transit-assign",
        &[&base[..], &per_line, &["--frequencies", freqs.to_str().unwrap()]].concat(),
        None,
    );
    assert!(matches!(lined.status.code(), Some(0 | 2)), "{}", stderr(&lined));
    let capacities: Vec<f64> = std::fs::read_to_string(&freqs)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(3).unwrap().parse().unwrap())
        .collect();
    assert!(capacities.iter().any(|c| c.is_finite()) && capacities.iter().any(|c| c.is_infinite()));
    let no_period = command("transit-assign", &[&base[..], &["--vehicle-capacity", "2"]].concat(), None);
    assert_eq!(no_period.status.code(), Some(1));
    assert!(stderr(&no_period).contains("needs --period"), "{}", stderr(&no_period));
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 58: `transit-assign --gtfs` builds the graph of a service date's window from a feed (the bundled
/// mini feed: one red-line pattern with two trips 07:00–09:00), writes it, and assigns on it.
#[test]
fn transit_assign_from_gtfs() {
    let dir = scratch("transit-gtfs");
    let feed = repo().join("crates/algos-transit/tests/data/mini_gtfs");
    let demand = dir.join("demand.csv");
    std::fs::write(&demand, "origin,destination,demand\n1,3,5\n1,4,2\n").unwrap();
    let graph = dir.join("graph.csv");
    let args = [
        "--gtfs",
        feed.to_str().unwrap(),
        "--date",
        "2025-04-08",
        "--demand",
        demand.to_str().unwrap(),
        "--graph-out",
        graph.to_str().unwrap(),
        "--json",
    ];
    let out = command("transit-assign", &args, None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((j["zones"].as_u64(), j["assigned"].as_f64()), (Some(4), Some(7.0)), "{j}");
    // The written graph reads back as an edge list (the --edges schema): with zones as vertices, the
    // stations S1..S4 are vertices 0..3, so the same trips are 0 → 2 and 0 → 3.
    std::fs::write(&demand, "origin,destination,demand\n0,2,5\n0,3,2\n").unwrap();
    let again = command(
        "transit-assign",
        &["--edges", graph.to_str().unwrap(), "--demand", demand.to_str().unwrap(), "--json"],
        None,
    );
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    let k: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!((k["edges"].clone(), k["assigned"].as_f64()), (j["edges"].clone(), Some(7.0)), "{k}");
    let bad_window = command("transit-assign", &[&args[..6], &["--window", "9:00-8:00"]].concat(), None);
    assert_eq!(bad_window.status.code(), Some(1));
    assert!(stderr(&bad_window).contains("--window `9:00-8:00`"), "{}", stderr(&bad_window));
    std::fs::remove_dir_all(&dir).ok();
}

/// `urbanflow access` on the bundled road graph: rows in the file's ids for every source and cutoff,
/// equal to a brute-force count from full trees; closeness and betweenness rows; a bad points line
/// named by file and line; an OSM extract (when the shared data is there) with lat/lon points, a map.
#[test]
fn access_rows_equal_brute_force_and_bad_points_are_named() {
    use urbanflow::sssp::cpu::dijkstra::{Stop, dijkstra};
    let dir = scratch("access");
    let graph = bundled("small-road.gr.gz");
    let loaded = urbanflow::graph::io::load_graph(&graph, &Default::default()).unwrap();
    let g = &loaded.graph;
    let n = g.num_vertices();
    // Points at every seventh vertex, weights 1..=5.
    let points: Vec<(u32, u64)> = (0..n).step_by(7).map(|v| (v, 1 + v as u64 % 5)).collect();
    let mut text = String::from("vertex,weight\n");
    for &(v, w) in &points {
        text += &format!("{},{w}\n", loaded.ids[v as usize]);
    }
    let pts = dir.join("points.csv");
    std::fs::write(&pts, text).unwrap();
    let rows = dir.join("rows.csv");
    let args = [
        "--graph",
        graph.to_str().unwrap(),
        "--points",
        pts.to_str().unwrap(),
        "--cutoffs",
        "2000,9000",
        "--sources",
        "40",
        "--out",
        rows.to_str().unwrap(),
        "--json",
    ];
    let out = command("access", &args, None);
    assert!(out.status.success());
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["rows"], 80);
    let index: std::collections::HashMap<u64, u32> =
        loaded.ids.iter().enumerate().map(|(v, &id)| (id, v as u32)).collect();
    let csv = std::fs::read_to_string(&rows).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("vertex,cutoff,count,sum,mean,min,max"));
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let s = index[&f[0].parse::<u64>().unwrap()];
        let cut: f64 = f[1].parse().unwrap();
        let dist = dijkstra(g, s, &Stop::default()).unwrap().0;
        let within: Vec<u64> =
            points.iter().filter(|p| dist[p.0 as usize] as f64 <= cut).map(|p| p.1).collect();
        assert_eq!(f[2].parse::<usize>().unwrap(), within.len(), "{line}");
        assert_eq!(f[3].parse::<f64>().unwrap(), within.iter().sum::<u64>() as f64, "{line}");
    }
    let out = command("access", &["--graph", graph.to_str().unwrap(), "--closeness", "--sources", "5"], None);
    assert!(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("vertex,harmonic"));
    let out =
        command("access", &["--graph", graph.to_str().unwrap(), "--betweenness", "--sample", "50"], None);
    assert!(String::from_utf8_lossy(&out.stdout).contains("vertex,betweenness,std_error"));

    std::fs::write(&pts, "vertex,weight\n1,2\n1,x\n").unwrap();
    let out = command("access", &args, None);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("points.csv:3") && err.contains("not a number"), "{err}");

    let Some(osm) = data_root().map(|d| d.join("osm/porto/porto_portugal.osm.pbf")) else {
        assert!(!urbanflow::graph::datasets::env_flag("URBANFLOW_REQUIRE_DATA"), "shared data required");
        eprintln!("SKIP the OSM part of access: no shared data (URBANFLOW_DATA)");
        return;
    };
    std::fs::write(&pts, "lat,lon,weight\n41.1579,-8.6291,10\n41.1496,-8.6109,5\n").unwrap();
    let map = dir.join("map.svg");
    let geo = dir.join("rows.geojson");
    let args = [
        "--osm",
        osm.to_str().unwrap(),
        "--points",
        pts.to_str().unwrap(),
        "--cutoffs",
        "10",
        "--sources",
        "300",
        "--map",
        map.to_str().unwrap(),
        "--out",
        geo.to_str().unwrap(),
        "--json",
    ];
    let out = command("access", &args, None);
    assert!(out.status.success());
    assert!(std::fs::read_to_string(&map).unwrap().starts_with("<svg"));
    // One point per row, at the row's vertex, its fields as numbers (null where empty).
    let geo: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&geo).unwrap()).unwrap();
    let features = geo["features"].as_array().unwrap();
    assert_eq!(features.len(), 300);
    let first = &features[0];
    assert_eq!(first["geometry"]["type"], "Point");
    assert_eq!(first["properties"]["cutoff"], 10.0);
    assert!(first["properties"]["count"].is_number());
    let lon = first["geometry"]["coordinates"][0].as_f64().unwrap();
    assert!((-8.8..-8.3).contains(&lon), "{lon}");
}
