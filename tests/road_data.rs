//! Reads every road graph of the shared data set and checks it against `road/manifest.json` (vertex and
//! arc counts, self-loops and parallel arcs where the manifest states them) and DIMACS Rome99.

use graph_core::datasets::data_path;
use graph_core::io::{ReadOptions, read_graph};
use graph_core::{Csr, DuplicatePolicy};

fn note_count(note: &str, label: &str) -> Option<u64> {
    let at = note.find(label)? + label.len();
    note[at..].trim_start().split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

#[test]
fn every_road_graph_matches_the_manifest() {
    let Some(manifest) = data_path("road/manifest.json", "every_road_graph_matches_the_manifest") else {
        return;
    };
    let text = std::fs::read_to_string(&manifest).unwrap();
    let entries: serde_json::Value = serde_json::from_str(&text).unwrap();
    let entries = entries.as_array().expect("manifest is a list");
    assert!(entries.len() >= 8, "manifest lists the road graphs");
    for e in entries {
        let rel = format!("road/{}/{}", e["dir"].as_str().unwrap(), e["file"].as_str().unwrap());
        let path = data_path(&rel, "road graph").expect("listed file exists");
        let t = std::time::Instant::now();
        let g: Csr<u32> = read_graph(&path, ReadOptions::default())
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        assert_eq!(g.num_vertices() as u64, e["n"].as_u64().unwrap(), "{rel}: n");
        assert_eq!(g.num_arcs() as u64, e["m"].as_u64().unwrap(), "{rel}: m");
        let note = e["note"].as_str().unwrap_or("");
        let stats = g.degree_stats();
        if let Some(loops) = note_count(note, "self-loops") {
            assert_eq!(stats.self_loops as u64, loops, "{rel}: self-loops");
        }
        if let Some(parallel) = note_count(note, "parallel arcs beyond the first") {
            let mut b =
                graph_core::GraphBuilder::new(g.num_vertices()).duplicates(DuplicatePolicy::KeepFirst);
            for (u, v, w) in g.arcs() {
                b.add_arc(u, v, w);
            }
            let (_, report) = b.build().unwrap();
            assert_eq!(report.parallel_arcs_dropped, parallel, "{rel}: parallel arcs");
        }
        if let Some(zero) = note_count(note, "zero-weight arcs") {
            let zeros = g.weights().iter().filter(|&&w| w == 0).count() as u64;
            assert_eq!(zeros, zero, "{rel}: zero-weight arcs");
        }
        eprintln!("{rel}: n={} m={} read in {:.2?}", g.num_vertices(), g.num_arcs(), t.elapsed());
    }
}

#[test]
fn rome99_reads() {
    let Some(path) = data_path("road/dimacs-rome99/rome99.gr.gz", "rome99_reads") else { return };
    let g: Csr<u32> = read_graph(&path, ReadOptions::default()).unwrap();
    assert_eq!((g.num_vertices(), g.num_arcs()), (3353, 8870));
}
