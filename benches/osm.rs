//! OpenStreetMap import: seconds per import of a PBF extract (median of `--reps`), per profile, one
//! JSON line each. `benches/osm_vs_pyrosm.sh` runs it beside pyrosm on the same file.
//!
//! ```text
//! cargo bench --bench osm -- --pbf ../shared/data/osm/porto/porto_portugal.osm.pbf --reps 5
//! ```

use std::time::Instant;

use urbanflow::graph::osm::{OsmOptions, Profile, import};

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

fn main() {
    let pbf = arg("--pbf").unwrap_or_else(|| "../../../shared/data/osm/porto/porto_portugal.osm.pbf".into());
    let reps: usize = arg("--reps").map_or(5, |s| s.parse().expect("--reps: a number"));
    for profile in [Profile::Car, Profile::Bike, Profile::Walk] {
        let mut times = Vec::new();
        let mut last = None;
        for _ in 0..reps.max(1) {
            let t = Instant::now();
            last = Some(import(&pbf, &OsmOptions::new(profile)).unwrap_or_else(|e| panic!("{e}")));
            times.push(t.elapsed().as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        let g = last.expect("one import");
        println!(
            "{{\"file\":{pbf:?},\"profile\":\"{profile}\",\"median_s\":{:.4},\"min_s\":{:.4},\"vertices\":{},\"arcs\":{},\"vertices_before_scc\":{},\"ways_used\":{},\"threads\":{}}}",
            times[times.len() / 2],
            times[0],
            g.graph.num_vertices(),
            g.graph.num_arcs(),
            g.report.vertices_before_scc,
            g.report.ways_used,
            rayon::current_num_threads()
        );
    }
}
