//! Saved hierarchies: a round trip gives the same hierarchy (same ranks, same distances); a file of
//! another graph, cut short or altered is refused; the cache builds once, then loads, and replaces a
//! refused file with a reason.

use algos_sssp::SsspError;
use algos_sssp::cch::{CacheUse, Cch};
use graph_core::generators::{grid_2d, random_graph};

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("urbanflow-cch-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn round_trip_gives_the_same_hierarchy() {
    let dir = temp_dir("round");
    for seed in 0..8u64 {
        let g = random_graph(seed, 60 + seed as u32 * 30, 300, 1..=50).unwrap();
        let built = Cch::build(&g).unwrap();
        let path = dir.join(format!("{seed}.order"));
        built.save(&g, &path).unwrap();
        let loaded = Cch::load(&g, &path).unwrap();
        assert_eq!(loaded.rank(), built.rank(), "seed {seed}");
        assert_eq!((loaded.num_edges(), loaded.num_triangles()), (built.num_edges(), built.num_triangles()));
        let sources: Vec<u32> = (0..g.num_vertices()).step_by(7).collect();
        let a = built.customise(g.weights()).unwrap().phast(&sources).unwrap();
        let b = loaded.customise(g.weights()).unwrap().phast(&sources).unwrap();
        assert_eq!(a, b, "seed {seed}: trees differ");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn foreign_short_and_altered_files_are_refused() {
    let dir = temp_dir("refused");
    let g = grid_2d(12, 9);
    let cch = Cch::build(&g).unwrap();
    let path = dir.join("g.order");
    cch.save(&g, &path).unwrap();
    let refused = |what: &str, path: &std::path::Path| match Cch::load(&g, path) {
        Err(SsspError::HierarchyFile { problem, .. }) => problem,
        other => panic!("{what}: {other:?}"),
    };
    // Another graph.
    let other = grid_2d(12, 10);
    assert!(matches!(Cch::load(&other, &path), Err(SsspError::HierarchyFile { .. })));
    let bytes = std::fs::read(&path).unwrap();
    // Cut short, at several places.
    for cut in [0, 7, 16, 40, bytes.len() - 9, bytes.len() - 1] {
        let p = dir.join(format!("cut{cut}.order"));
        std::fs::write(&p, &bytes[..cut]).unwrap();
        refused(&format!("cut at {cut}"), &p);
    }
    // One bit flipped anywhere after the header.
    for at in [20, 60, bytes.len() / 2, bytes.len() - 12] {
        let mut b = bytes.clone();
        b[at] ^= 4;
        let p = dir.join(format!("flip{at}.order"));
        std::fs::write(&p, &b).unwrap();
        refused(&format!("flip at {at}"), &p);
    }
    // Another version, and not a hierarchy file at all.
    let mut b = bytes.clone();
    b[8] = 9;
    std::fs::write(dir.join("v9.order"), &b).unwrap();
    assert!(refused("version", &dir.join("v9.order")).contains("version 9"));
    std::fs::write(dir.join("text.order"), b"hello").unwrap();
    refused("text", &dir.join("text.order"));
    assert!(matches!(Cch::load(&g, &dir.join("missing.order")), Err(SsspError::HierarchyFile { .. })));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_cache_builds_once_then_loads_and_replaces_a_bad_file() {
    let dir = temp_dir("cache");
    let g = grid_2d(15, 15);
    let (first, used) = Cch::build_cached_in(&g, &dir).unwrap();
    let CacheUse::Built(path) = used else { panic!("first: {used:?}") };
    let (second, used) = Cch::build_cached_in(&g, &dir).unwrap();
    assert_eq!(used, CacheUse::Loaded(path.clone()));
    assert_eq!(first.rank(), second.rank());
    // Another graph has its own file.
    let (_, used) = Cch::build_cached_in(&grid_2d(15, 16), &dir).unwrap();
    assert!(matches!(used, CacheUse::Built(p) if p != path));
    // A damaged file is rebuilt, with the reason, and replaced.
    let mut bytes = std::fs::read(&path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let (third, used) = Cch::build_cached_in(&g, &dir).unwrap();
    assert!(matches!(&used, CacheUse::Rebuilt(p, why) if *p == path && why.contains("checksum")), "{used:?}");
    assert_eq!(third.rank(), first.rank());
    assert!(matches!(Cch::build_cached_in(&g, &dir).unwrap().1, CacheUse::Loaded(_)));
    std::fs::remove_dir_all(&dir).unwrap();
}
