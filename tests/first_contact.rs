//! What a newcomer met on first contact (issue 63), one test per item, run as a user runs the commands:
//! silent wrong answers on mismatched files, unreachable targets answered alike everywhere, Ctrl-C that
//! keeps the iterations done, and no `error:` line on stderr of a run that went well.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod support;
use support::{command, repo};

use urbanflow::graph::datasets::data_path;

fn bundled(name: &str) -> PathBuf {
    repo().join("examples/data").join(name)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A scratch folder of this test process.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("urbanflow-first-contact-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_str(stdout(out).trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(out)))
}

/// Item 1: Sioux Falls with the `b` column left out of every row (the header still names ten columns)
/// was solved with `power` read as `b`: TSTT 15,880,000 for 7,474,531, exit 0. Now it is refused with the
/// line and both counts; `--lenient` maps by position with a warning.
#[test]
fn a_net_missing_a_column_is_refused() {
    let dir = scratch("no-b");
    let text = std::fs::read_to_string(bundled("SiouxFalls_net.tntp")).unwrap();
    let mut out_lines = Vec::new();
    let mut in_body = false;
    for line in text.lines() {
        if in_body && !line.trim_start().starts_with('~') && !line.trim().is_empty() {
            // Drop the sixth field (b) of the tab-separated row.
            let mut fields: Vec<&str> = line.split('\t').collect();
            fields.remove(6); // fields[0] is the empty text before the leading tab
            out_lines.push(fields.join("\t"));
            continue;
        }
        in_body |= line.contains("<END OF METADATA>");
        out_lines.push(line.to_string());
    }
    let net = dir.join("nob_net.tntp");
    std::fs::write(&net, out_lines.join("\n") + "\n").unwrap();
    let trips = bundled("SiouxFalls_trips.tntp");
    let args = ["--net", net.to_str().unwrap(), "--trips", trips.to_str().unwrap(), "--json"];
    let out = command("assign", &args, None);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("nob_net.tntp:"), "{err}");
    assert!(err.contains("the rows hold 9 fields but the column header (line"), "{err}");
    assert!(err.contains("names 10"), "{err}");
    assert!(stdout(&out).is_empty());
    let mut lenient = args.to_vec();
    lenient.push("--lenient");
    let out = command("assign", &lenient, None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("warning: "), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).ok();
}

/// Item 2: Sioux Falls' trips (24 zones) into Anaheim's network (38 zones) ran 273 iterations, exit 0.
#[test]
fn trips_of_another_network_are_refused() {
    let Some(anaheim) = data_path("tntp/Anaheim/Anaheim_net.tntp", "trips_of_another_network_are_refused")
    else {
        return;
    };
    let trips = bundled("SiouxFalls_trips.tntp");
    let args = ["--net", anaheim.to_str().unwrap(), "--trips", trips.to_str().unwrap(), "--no-cache"];
    let out = command("assign", &args, None);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("SiouxFalls_trips.tntp: <NUMBER OF ZONES> is 24 but the network"), "{err}");
    assert!(err.contains("Anaheim_net.tntp has 38 zones"), "{err}");
}

/// A graph where vertex 4 cannot be reached from 1 (DIMACS, 1-based ids).
fn unreachable_graph(dir: &Path) -> PathBuf {
    let path = dir.join("island.gr");
    std::fs::write(&path, "p sp 4 3\na 1 2 5\na 2 3 7\na 4 1 1\n").unwrap();
    path
}

/// Item 7: unreachable is an answer, exit 0, the same in every command: `"distance": null` and no path in
/// JSON, a plain line in text.
#[test]
fn unreachable_is_an_answer_everywhere() {
    let dir = scratch("unreachable");
    let graph = unreachable_graph(&dir);
    let g = graph.to_str().unwrap();
    for extra in [&[][..], &["--no-hierarchy"][..]] {
        let mut args = vec!["--graph", g, "--from", "1", "--to", "4", "--json"];
        args.extend_from_slice(extra);
        let out = command("route", &args, None);
        assert_eq!(out.status.code(), Some(0), "route {extra:?}: {}", stderr(&out));
        let j = json(&out);
        assert!(j["distance"].is_null() && j["path"].as_array().unwrap().is_empty(), "{j}");
        args.retain(|a| *a != "--json");
        let out = command("route", &args, None);
        assert_eq!(out.status.code(), Some(0));
        assert!(stdout(&out).contains("1 → 4: unreachable"), "{}", stdout(&out));
    }
    // --check compares with Dijkstra, which agrees.
    let out = command("route", &["--graph", g, "--from", "1", "--to", "4", "--check", "--json"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = command("sssp", &["--graph", g, "--source", "1", "--target", "4", "--json"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(json(&out)["target_distance"].is_null());
    let out = command("ksp", &["--graph", g, "--source", "1", "--target", "4", "--k", "3", "--json"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(json(&out)["paths"].as_array().unwrap().is_empty());
    // A reachable target still has its distance and path.
    let out = command("route", &["--graph", g, "--from", "4", "--to", "3", "--json"], None);
    let j = json(&out);
    assert_eq!(j["distance"], 13);
    assert_eq!(j["path"], serde_json::json!([4, 1, 2, 3]));
    std::fs::remove_dir_all(&dir).ok();
}

/// Item 8: Ctrl-C during an assignment stops it at the end of its iteration, prints the table of the
/// iterations done, writes the outputs asked for from the last of them, and exits 130.
#[test]
fn ctrl_c_keeps_what_the_assignment_did() {
    let dir = scratch("sigint");
    let links = dir.join("links.csv");
    // MSA never reaches a gap of 1e-15: only the signal ends this run.
    let child = Command::new(support::urbanflow_bin())
        .args(["assign", "--algorithm", "msa", "--gap", "1e-15", "--max-iters", "100000000", "--links-out"])
        .arg(&links)
        .env("URBANFLOW_BACKEND", "cpu")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let sent = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    let start = Instant::now();
    let out = child.wait_with_output().unwrap();
    eprintln!("--- stderr\n{}", stderr(&out));
    assert!(start.elapsed() < Duration::from_secs(20), "the run took {:?} to stop", start.elapsed());
    assert_eq!(out.status.code(), Some(130));
    let text = stdout(&out);
    assert!(text.contains("interrupted (Ctrl-C) after"), "{text}");
    assert!(text.lines().any(|l| l.trim_start().starts_with("1 ")), "no table: {text}");
    assert!(stderr(&out).contains("interrupted: stopped after iteration"), "{}", stderr(&out));
    let csv = std::fs::read_to_string(&links).expect("--links-out written");
    assert_eq!(csv.lines().count(), 76 + 1, "Sioux Falls' 76 links and a header");
    std::fs::remove_dir_all(&dir).ok();
}

/// Item 6: a run that went well says no `error:` on stderr, also where the GPU is looked for and none
/// helps (here: the software adapter, on a machine without a display).
#[test]
fn a_good_run_prints_no_error_line() {
    let out =
        command("sssp", &["--graph", bundled("small-road.gr.gz").to_str().unwrap(), "--source", "1"], None);
    assert_eq!(out.status.code(), Some(0));
    // As a user starts it: without cargo's NODEVICE_SELECT (.cargo/config.toml) and without a session.
    let auto = Command::new(support::urbanflow_bin())
        .args([
            "sssp",
            "--graph",
            bundled("small-road.gr.gz").to_str().unwrap(),
            "--source",
            "1",
            "--backend",
            "auto",
        ])
        .env_remove("NODEVICE_SELECT")
        .env_remove("XDG_RUNTIME_DIR")
        .output()
        .unwrap();
    assert_eq!(auto.status.code(), Some(0), "{}", stderr(&auto));
    for run in [&out, &auto] {
        let err = stderr(run);
        assert!(!err.lines().any(|l| l.trim_start().starts_with("error")), "{err}");
    }
}
