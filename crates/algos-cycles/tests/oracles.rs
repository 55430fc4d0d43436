//! Chordless cycle counts against the spec's oracle table, brute force over vertex subsets, and
//! relabelling; rayon counts equal the sequential ones.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use algos_cycles::{
    ChordlessOptions, CycleStats, SimpleGraph, Simplify, chordless_cycles, chordless_cycles_vec,
    count_chordless_cycles_rayon,
};
use graph_core::generators;
use graph_core::rng::SplitMix64;

mod common;
use common::{from, gnp, normalise};

fn simple(n: u32, edges: &[(u32, u32)]) -> SimpleGraph {
    SimpleGraph::from_edges(n, edges, Simplify::Repair).unwrap().0
}

/// Sequential and rayon counts, checked equal; the sequential stats.
fn count(g: &SimpleGraph, opts: &ChordlessOptions) -> CycleStats {
    let seq = chordless_cycles(g, opts, &mut |_| ControlFlow::Continue(())).unwrap();
    let par = count_chordless_cycles_rayon(g, opts).unwrap();
    assert_eq!((seq.total, &seq.by_length), (par.total, &par.by_length), "rayon differs from sequential");
    seq
}

fn total(g: &SimpleGraph) -> u64 {
    count(g, &ChordlessOptions::default()).total
}

fn grid3(a: u32, b: u32, c: u32) -> SimpleGraph {
    from(&generators::grid_3d(a, b, c))
}

fn cycle(n: u32) -> SimpleGraph {
    simple(n, &(0..n).map(|i| (i, (i + 1) % n)).collect::<Vec<_>>())
}

fn circular_ladder(k: u32) -> SimpleGraph {
    let mut e: Vec<(u32, u32)> = (0..k).map(|i| (i, (i + 1) % k)).collect();
    e.extend((0..k).map(|i| (k + i, k + (i + 1) % k)));
    e.extend((0..k).map(|i| (i, k + i)));
    simple(2 * k, &e)
}

fn binom2(n: u64) -> u64 {
    n * (n - 1) / 2
}

#[test]
fn closed_forms_and_named_graphs() {
    for n in 3..9 {
        assert_eq!(total(&from(&generators::complete(n))), (n as u64) * (n as u64 - 1) * (n as u64 - 2) / 6);
    }
    for (m, n) in [(2, 3), (3, 4), (8, 8)] {
        assert_eq!(total(&from(&generators::complete_bipartite(m, n))), binom2(m as u64) * binom2(n as u64));
    }
    for r in [4, 5, 10, 100] {
        assert_eq!(total(&from(&generators::wheel(r + 1).unwrap())), r as u64 + 1, "wheel {r}");
    }
    for n in [3, 4, 10, 100] {
        assert_eq!(total(&cycle(n)), 1, "C_{n}");
    }
    // A path and a star: trees have none.
    assert_eq!(total(&simple(5, &[(0, 1), (1, 2), (2, 3), (3, 4)])), 0);
    assert_eq!(total(&simple(5, &[(0, 1), (0, 2), (0, 3), (0, 4)])), 0);
    let p = count(&from(&generators::petersen()), &ChordlessOptions::default());
    assert_eq!((p.total, p.by_length[5], p.by_length[6]), (22, 12, 10));
    for (k, want) in [(6, 26), (8, 54), (10, 132)] {
        assert_eq!(total(&circular_ladder(k)), want, "CL{k}");
    }
    for (d, want) in [(2, 1), (3, 10), (4, 224)] {
        assert_eq!(total(&from(&generators::hypercube(d).unwrap())), want, "Q{d}");
    }
    let q4 = count(&from(&generators::hypercube(4).unwrap()), &ChordlessOptions::default());
    assert_eq!((q4.by_length[4], q4.by_length[6], q4.by_length[8]), (24, 32, 168));
    assert_eq!(total(&grid3(3, 3, 3)), 1785);
    assert_eq!(total(&grid3(3, 3, 4)), 15_818);
}

/// Cubic graphs in LCF notation, and the named graphs of networkx (tests/fixtures/named_graphs.txt).
#[test]
fn cubic_and_named_graphs() {
    let lcf = |shifts: &[i32], repeats| from(&generators::lcf(shifts, repeats).unwrap());
    assert_eq!(total(&lcf(&[10, 7, 4, -4, -7, 10, -4, 7, -7, 4], 2)), 168, "dodecahedral");
    assert_eq!(total(&lcf(&[5, -5], 7)), 49, "Heawood");
    assert_eq!(total(&lcf(&[5, -5], 8)), 58, "Möbius–Kantor");
    assert_eq!(total(&lcf(&[5, -5, 9, -9], 5)), 152, "Desargues");
    let named = named_graphs();
    let want = [
        ("karate", 103),
        ("les_miserables", 594),
        ("florentine_families", 11),
        ("davis_southern_women", 879),
        ("tutte", 8736),
    ];
    for (name, cycles) in want {
        let g = &named.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{name} in the fixture")).1;
        assert_eq!(total(g), cycles, "{name}");
    }
    let karate = count(&named[0].1, &ChordlessOptions::default());
    assert_eq!(karate.by_length[3..7], [45, 36, 20, 2]);
}

/// The fixture's sections: `graph NAME VERTICES`, then `u v` lines.
fn named_graphs() -> Vec<(String, SimpleGraph)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/named_graphs.txt");
    let text = std::fs::read_to_string(path).unwrap();
    // (name, vertices, edges)
    type Section = (String, u32, Vec<(u32, u32)>);
    let mut graphs: Vec<Section> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[..] {
            ["graph", name, n] => graphs.push((name.to_string(), n.parse().unwrap(), Vec::new())),
            [u, v] => graphs.last_mut().unwrap().2.push((u.parse().unwrap(), v.parse().unwrap())),
            _ => panic!("{path}: unexpected line {line:?}"),
        }
    }
    graphs.into_iter().map(|(name, n, edges)| (name, simple(n, &edges))).collect()
}

#[test]
fn grids() {
    for (k, want) in [(2, 1), (3, 5), (4, 24), (5, 229), (6, 3436)] {
        assert_eq!(total(&from(&generators::grid_2d(k, k))), want, "grid {k}x{k}");
    }
    let four = [0, 3, 9, 24, 58, 125, 251, 490, 948, 1823];
    for (n, &want) in (1..=10).zip(&four) {
        assert_eq!(total(&from(&generators::grid_2d(4, n))), want, "grid 4x{n}");
    }
    let five = [0, 4, 14, 58, 229, 749, 2180];
    for (n, &want) in (1..=7).zip(&five) {
        assert_eq!(total(&from(&generators::grid_2d(5, n))), want, "grid 5x{n}");
    }
    for (n, want) in [(8, 6188), (9, 17_912), (10, 52_620)] {
        assert_eq!(total(&from(&generators::grid_2d(5, n))), want, "grid 5x{n}");
    }
    for (n, want) in [(7, 13_350), (8, 50_203), (9, 196_918), (10, 800_139)] {
        assert_eq!(total(&from(&generators::grid_2d(6, n))), want, "grid 6x{n}");
    }
    // Count-only never calls the sink and counts the same.
    let g = from(&generators::grid_2d(5, 6));
    let s = chordless_cycles(&g, &ChordlessOptions { count_only: true, ..Default::default() }, &mut |_| {
        panic!("count-only must not call the sink")
    })
    .unwrap();
    assert_eq!(s.total, 749);
    // max_len: the 6×6 grid has 25 four-cycles and 16 eight-cycles up to length 8.
    let g = from(&generators::grid_2d(6, 6));
    let s = count(&g, &ChordlessOptions { max_len: Some(8), ..Default::default() });
    assert_eq!(s.total, 41);
    let s = count(&g, &ChordlessOptions { min_len: 5, max_len: Some(8), ..Default::default() });
    assert_eq!(s.total, 16);
}

#[test]
fn sioux_falls_network_taken_undirected() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data/SiouxFalls_net.tntp");
    let net = graph_core::io::load_graph(&path, &Default::default()).unwrap();
    let (g, report) = SimpleGraph::from_csr(&net.graph, Simplify::Repair).unwrap();
    assert_eq!((g.num_edges(), report.repeated), (38, 38));
    let s = count(&g, &ChordlessOptions::default());
    assert_eq!(s.total, 178);
    let want = [2, 9, 2, 4, 2, 8, 12, 5, 21, 22, 49, 31, 11];
    assert_eq!(&s.by_length[3..], &want);
}

/// Every cycle of length ≥ 3 in a small graph by brute force: vertex subsets whose induced subgraph
/// is connected and 2-regular, normalised (smallest vertex first, then the smaller neighbour).
fn brute(g: &SimpleGraph) -> BTreeSet<Vec<u32>> {
    let n = g.num_vertices();
    let mut out = BTreeSet::new();
    for mask in 1u32..(1 << n) {
        if mask.count_ones() < 3 {
            continue;
        }
        let vs: Vec<u32> = (0..n).filter(|&v| mask >> v & 1 == 1).collect();
        let nb = |v: u32| g.neighbours(v).iter().copied().filter(|&w| mask >> w & 1 == 1).collect::<Vec<_>>();
        if vs.iter().any(|&v| nb(v).len() != 2) {
            continue;
        }
        // Walk from the smallest vertex; a cycle covers all of them.
        let mut walk = vec![vs[0]];
        let mut prev = vs[0];
        let mut cur = nb(vs[0])[0];
        while cur != vs[0] {
            walk.push(cur);
            let next = nb(cur).into_iter().find(|&w| w != prev).unwrap();
            prev = cur;
            cur = next;
        }
        if walk.len() == vs.len() {
            out.insert(normalise(&walk));
        }
    }
    out
}

#[test]
fn random_graphs_equal_brute_force_and_survive_relabelling() {
    for seed in 0..60 {
        let n = 4 + (seed % 11) as u32; // 4..=14
        let p = [0.2, 0.35, 0.5, 0.7][seed as usize % 4];
        let g = gnp(n, p, seed);
        let found = chordless_cycles_vec(&g, &ChordlessOptions::default()).unwrap();
        let set: BTreeSet<Vec<u32>> = found.iter().map(|c| normalise(c)).collect();
        assert_eq!(set.len(), found.len(), "seed {seed}: a cycle reported twice");
        for c in &found {
            for (k, &v) in c.iter().enumerate() {
                assert!(g.adjacent(v, c[(k + 1) % c.len()]), "seed {seed}: {c:?} is not a cycle");
            }
        }
        assert_eq!(set, brute(&g), "seed {seed}");
        assert_eq!(count(&g, &ChordlessOptions::default()).total, found.len() as u64);
        // A random relabelling: the same cycles, renamed.
        let mut rng = SplitMix64::new(seed + 1000);
        let mut perm: Vec<u32> = (0..n).collect();
        for i in (1..n as usize).rev() {
            perm.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let h = g.relabelled(&perm).unwrap();
        let renamed: BTreeSet<Vec<u32>> =
            set.iter().map(|c| normalise(&c.iter().map(|&v| perm[v as usize]).collect::<Vec<_>>())).collect();
        let got: BTreeSet<Vec<u32>> = chordless_cycles_vec(&h, &ChordlessOptions::default())
            .unwrap()
            .iter()
            .map(|c| normalise(c))
            .collect();
        assert_eq!(got, renamed, "seed {seed}: relabelled");
    }
}

#[test]
fn limits_sinks_and_bad_input() {
    let g = from(&generators::grid_2d(5, 5));
    let s = chordless_cycles(&g, &ChordlessOptions { limit: Some(10), ..Default::default() }, &mut |_| {
        ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!((s.total, s.stopped_early), (10, true));
    let mut seen = 0;
    let s = chordless_cycles(&g, &ChordlessOptions::default(), &mut |_| {
        seen += 1;
        if seen == 7 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    })
    .unwrap();
    assert_eq!((seen, s.stopped_early), (7, true));
    assert!(
        chordless_cycles(&g, &ChordlessOptions { min_len: 2, ..Default::default() }, &mut |_| {
            ControlFlow::Continue(())
        })
        .is_err()
    );
    assert!(SimpleGraph::from_edges(3, &[(0, 3)], Simplify::Repair).is_err());
    assert!(SimpleGraph::from_edges(3, &[(0, 1), (1, 0)], Simplify::Reject).is_err());
    assert!(SimpleGraph::from_edges(3, &[(1, 1)], Simplify::Reject).is_err());
}
