//! Turn-aware routing on an OSM extract (issue 36, specs/turns.md §6), side by side in one run with the
//! node-based graph: import (restrictions resolved), turn-graph build, CCH order and customisation,
//! point-to-point queries (CCH; bidirectional Dijkstra without a hierarchy), how many routes the turns
//! change and by how much, and PHAST trees from 64 and 256 sources (rows read at the target vertices).
//! Every turn-graph answer is checked against Dijkstra on the turn graph. One JSON line per profile.
//!
//! ```text
//! cargo bench --bench turns -- --osm ../shared/data/osm/porto/porto_portugal.osm.pbf --queries 1000
//! ```
//! `--profiles car,bike` (default car); `--ch` adds the contraction hierarchy (slow on the turn graph).

#[allow(dead_code)]
mod common;

use std::time::Instant;

use common::{arg, flag};
use urbanflow::graph::osm::{OsmOptions, Profile, import};
use urbanflow::graph::turns::{TurnGraph, TurnOptions};
use urbanflow::sssp::cch::{Cch, CchQuery};
use urbanflow::sssp::ch::ContractionHierarchy;
use urbanflow::sssp::cpu::bidirectional::BidirectionalQuery;
use urbanflow::sssp::cpu::dijkstra::{Stop, dijkstra};

fn secs(t: Instant) -> f64 {
    t.elapsed().as_secs_f64()
}

fn main() {
    let osm = arg("--osm").expect("--osm FILE.osm.pbf");
    let queries: u64 = arg("--queries").map_or(1000, |s| s.parse().expect("--queries"));
    let profiles = arg("--profiles").unwrap_or_else(|| "car".into());
    for profile in profiles.split(',') {
        let profile: Profile = profile.parse().expect("profile");
        let t = Instant::now();
        let g = import(&osm, &OsmOptions::new(profile)).expect("import");
        let import_s = secs(t);
        let t = Instant::now();
        let tg = TurnGraph::from_osm(&g, &TurnOptions::for_profile(profile)).expect("turn graph");
        let turn_graph_s = secs(t);
        let n = g.graph.num_vertices() as u64;
        let pairs: Vec<(u32, u32)> = (0..queries)
            .map(|i| (((i * 2_654_435_761 + 7) % n) as u32, ((i * 40_503 + 12_345) % n) as u32))
            .collect();

        // Node graph.
        let t = Instant::now();
        let cch = Cch::build(&g.graph).expect("cch");
        let node_build_s = secs(t);
        let t = Instant::now();
        let ch = cch.customise(g.graph.weights()).expect("customise");
        let node_customise_s = secs(t);
        let mut q = CchQuery::new(&ch).expect("query");
        let t = Instant::now();
        let node_d: Vec<Option<u32>> = pairs.iter().map(|&(s, d)| q.distance(&ch, s, d).unwrap()).collect();
        let node_query_us = secs(t) * 1e6 / queries as f64;

        // Turn graph.
        let t = Instant::now();
        let tcch = Cch::build(&tg.graph).expect("turn cch");
        let turn_build_s = secs(t);
        let t = Instant::now();
        let (tch, unpacking) = tcch.customise_with_unpacking(tg.graph.weights()).expect("customise");
        let turn_customise_s = secs(t);
        let mut tq = CchQuery::new(&tch).expect("query");
        let t = Instant::now();
        let turn_d: Vec<Option<u32>> =
            pairs.iter().map(|&(s, d)| tq.distance(&tch, tg.source(s), tg.target(d)).unwrap()).collect();
        let turn_query_us = secs(t) * 1e6 / queries as f64;
        // Routes whose node sequence the turns change.
        let (_, node_unpacking) = cch.customise_with_unpacking(g.graph.weights()).expect("customise");
        let mut changed = 0usize;
        for &(s, d) in &pairs {
            let with = tq.path(&tch, &unpacking, tg.source(s), tg.target(d)).unwrap();
            let without = q.path(&ch, &node_unpacking, s, d).unwrap();
            if let (Some((_, turn_arcs)), Some((_, arcs))) = (with, without) {
                let mut v = vec![tg.source(s)];
                v.extend(turn_arcs.iter().map(|&a| tg.graph.targets()[a as usize]));
                let mut nodes = vec![s];
                nodes.extend(arcs.iter().map(|&a| g.graph.targets()[a as usize]));
                changed += usize::from(tg.path_nodes(&v) != nodes);
            }
        }
        // Bidirectional Dijkstra, no hierarchy, on both graphs.
        let mut bq = BidirectionalQuery::new(&g.graph);
        let mut tbq = BidirectionalQuery::new(&tg.graph);
        let few = &pairs[..pairs.len().min(200)];
        let t = Instant::now();
        for &(s, d) in few {
            bq.distance(s, d).unwrap();
        }
        let node_bidir_us = secs(t) * 1e6 / few.len() as f64;
        let t = Instant::now();
        for (k, &(s, d)) in few.iter().enumerate() {
            assert_eq!(
                tbq.distance(tg.source(s), tg.target(d)).unwrap(),
                turn_d[k],
                "bidirectional {s}->{d}"
            );
        }
        let turn_bidir_us = secs(t) * 1e6 / few.len() as f64;
        // Checks against Dijkstra on the turn graph, and what turns change.
        for (k, &(s, d)) in few.iter().enumerate().take(50) {
            let stop = Stop { targets: Some(&[tg.target(d)]), ..Stop::default() };
            let (dist, _) = dijkstra(&tg.graph, tg.source(s), &stop).unwrap();
            let want = Some(dist[tg.target(d) as usize]).filter(|&x| x != u32::MAX);
            assert_eq!(turn_d[k], want, "CCH on the turn graph {s}->{d}");
        }
        let both: Vec<(u32, u32)> =
            node_d.iter().zip(&turn_d).filter_map(|(a, b)| Some(((*a)?, (*b)?))).collect();
        let longer = both.iter().filter(|(a, b)| b > a).count();
        let mean_increase =
            both.iter().map(|&(a, b)| b as f64 / a.max(1) as f64 - 1.0).sum::<f64>() / both.len() as f64;
        let lost = node_d.iter().zip(&turn_d).filter(|(a, b)| a.is_some() && b.is_none()).count();

        // PHAST trees.
        let mut phast = Vec::new();
        for k in [64usize, 256] {
            let sources: Vec<u32> = (0..k as u64).map(|i| ((i * 7_919 + 3) % n) as u32).collect();
            let t = Instant::now();
            let rows = ch.phast(&sources).unwrap();
            let node_s = secs(t);
            let turn_sources: Vec<u32> = sources.iter().map(|&s| tg.source(s)).collect();
            let t = Instant::now();
            let trows = tch.phast(&turn_sources).unwrap();
            let turn_s = secs(t);
            assert_eq!(rows.len(), trows.len());
            phast.push(format!(
                "\"phast_{k}\":{{\"node_s\":{node_s:.4},\"turn_s\":{turn_s:.4},\"ratio\":{:.2}}}",
                turn_s / node_s
            ));
        }
        let ch_part = if flag("--ch") {
            let t = Instant::now();
            let c = ContractionHierarchy::build(&g.graph).unwrap();
            let node_ch_s = secs(t);
            let t = Instant::now();
            let tc = ContractionHierarchy::build(&tg.graph).unwrap();
            let turn_ch_s = secs(t);
            let _ = (c, tc);
            format!(",\"ch_build_node_s\":{node_ch_s:.3},\"ch_build_turn_s\":{turn_ch_s:.3}")
        } else {
            String::new()
        };
        let r = &g.turn_rules.report;
        println!(
            "{{\"osm\":{osm:?},\"profile\":\"{profile}\",\"threads\":{},\"import_s\":{import_s:.3},\
             \"turn_graph_s\":{turn_graph_s:.3},\"nodes\":{},\"arcs\":{},\"turn_vertices\":{},\"turn_arcs\":{},\
             \"relations\":{},\"applied\":{},\"banned_pairs\":{},\"arcs_outside_turn_scc\":{},\
             \"cch_build_node_s\":{node_build_s:.3},\"cch_build_turn_s\":{turn_build_s:.3},\
             \"customise_node_s\":{node_customise_s:.3},\"customise_turn_s\":{turn_customise_s:.3},\
             \"query_node_us\":{node_query_us:.1},\"query_turn_us\":{turn_query_us:.1},\
             \"bidirectional_node_us\":{node_bidir_us:.0},\"bidirectional_turn_us\":{turn_bidir_us:.0},\
             \"pairs\":{},\"routes_changed\":{changed},\"routes_longer\":{longer},\"routes_lost\":{lost},\"mean_cost_increase\":{mean_increase:.4},{}{ch_part}}}",
            rayon::current_num_threads(),
            g.graph.num_vertices(),
            g.graph.num_arcs(),
            tg.graph.num_vertices(),
            tg.graph.num_arcs(),
            r.relations,
            r.applied(),
            tg.report.banned_by_restrictions,
            tg.report.arcs_outside_largest_component,
            both.len(),
            phast.join(",")
        );
    }
}
