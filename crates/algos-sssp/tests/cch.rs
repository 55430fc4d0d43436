//! Customisable contraction hierarchies: after any customisation, PHAST on the CCH gives exactly
//! Dijkstra's distances (issue 21). Without the `gpu` feature the same tests run on the CPU paths
//! (and without `metis`, on hierarchies ordered by the breadth-first bisection).

use algos_sssp::cch::Cch;
#[cfg(feature = "gpu")]
use algos_sssp::cch::gpu_matrix::{READBACK_WORDS, Walks, cch_matrix_gpu_blocks, cch_matrix_mirror};
use algos_sssp::cpu::dijkstra::{Stop, dijkstra};
use graph_core::datasets::data_path;
use graph_core::generators::random_graph;
use graph_core::io::{LoadOptions, load_graph};
use graph_core::rng::SplitMix64;
use graph_core::{Csr, GraphBuilder};
use proptest::prelude::*;

fn random_weights(seed: u64, m: usize, max_w: u32) -> Vec<u32> {
    let mut rng = SplitMix64::new(seed);
    (0..m).map(|_| rng.below(max_w as u64 + 1) as u32).collect()
}

fn assert_trees_equal_dijkstra(cch: &Cch, g: &Csr<u32>, sources: &[u32], what: &str) {
    let ch = cch.customise(g.weights()).unwrap();
    let trees = ch.phast(sources).unwrap();
    for (row, &s) in trees.iter().zip(sources) {
        let (want, _) = dijkstra(g, s, &Stop::default()).unwrap();
        assert_eq!(row, &want, "{what} source {s}");
    }
}

/// The perfect customisation's downward arcs only: fewer arcs, Dijkstra's distances (zero weights too).
fn assert_thinned_equals_dijkstra(cch: &Cch, g: &Csr<u32>, sources: &[u32], what: &str) {
    let ch = cch.customise(g.weights()).unwrap();
    let thin = algos_sssp::cch::perfect::thin_downward(&ch).unwrap();
    assert!(thin.down.num_arcs() <= ch.down.num_arcs(), "{what}");
    for (row, &s) in thin.phast(sources).unwrap().iter().zip(sources) {
        let (want, _) = dijkstra(g, s, &Stop::default()).unwrap();
        assert_eq!(row, &want, "{what}: thinned, source {s}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Random graphs with zero weights and ties: the thinned hierarchy keeps Dijkstra's distances.
    #[test]
    fn thinned_downward_arcs_keep_dijkstras_distances(
        seed in any::<u64>(), n in 2u32..60, deg in 1u32..5, max_w in 0u32..20,
    ) {
        let g = random_graph(seed, n, n * deg, 0..=max_w).unwrap();
        let cch = Cch::build(&g).unwrap();
        let sources: Vec<u32> = (0..n).collect();
        assert_thinned_equals_dijkstra(&cch, &g, &sources, "random");
    }

    /// Random directed graphs (zero weights, parallel arcs, self-loops, one-way arcs), one topology,
    /// three random metrics: every tree equals Dijkstra.
    #[test]
    fn cch_equals_dijkstra_after_recustomisation(
        seed in any::<u64>(), n in 1u32..90, density in 1u32..5, max_w in 0u32..60,
    ) {
        let g = random_graph(seed, n, n * density, 0..=max_w).unwrap();
        let cch = Cch::build(&g).unwrap();
        let sources: Vec<u32> = (0..n).collect();
        for round in 0..3u64 {
            let metric = g.with_weights(random_weights(seed ^ round, g.num_arcs() as usize, max_w)).unwrap();
            let ch = cch.customise(metric.weights()).unwrap();
            let trees = ch.phast(&sources).unwrap();
            for (s, row) in trees.iter().enumerate() {
                let (want, _) = dijkstra(&metric, s as u32, &Stop::default()).unwrap();
                prop_assert_eq!(row, &want, "round {} source {}", round, s);
            }
        }
    }
}

/// Real road graphs and TNTP networks (every shared one but the three large DIMACS graphs): the shipped
/// metric, then two random ones.
#[test]
fn cch_equals_dijkstra_on_road_graphs() {
    for (file, what) in [
        ("road/dimacs-rome99/rome99.gr.gz", "Rome 99"),
        ("road/osm-small/graph_ballard.gr.gz", "Seattle Ballard"),
        ("road/osm-small/graph_23rd.gr.gz", "Seattle 23rd"),
        ("road/osm-small/south_seattle_car.gr.gz", "South Seattle"),
        ("road/osm-small/bremen_time.gr.gz", "Bremen (time)"),
        ("road/osm-small/bremen_dist.gr.gz", "Bremen (distance)"),
        ("tntp/Anaheim/Anaheim_net.tntp", "Anaheim"),
        ("tntp/Chicago-Sketch/ChicagoSketch_net.tntp", "Chicago-Sketch"),
        ("tntp/Philadelphia/Philadelphia_net.tntp.xz", "Philadelphia"),
        ("tntp/Austin/Austin_net.tntp", "Austin"),
        ("tntp/chicago-regional/ChicagoRegional_net.tntp.xz", "Chicago-Regional"),
    ] {
        let Some(path) = data_path(file, what) else { continue };
        let g: Csr<u32> = load_graph(&path, &LoadOptions::default()).unwrap().graph;
        let cch = Cch::build(&g).unwrap();
        let n = g.num_vertices();
        let sources: Vec<u32> = (0..12).map(|i| (i * 7919) % n).collect();
        assert_trees_equal_dijkstra(&cch, &g, &sources, what);
        assert_thinned_equals_dijkstra(&cch, &g, &sources, what);
        // METIS's bisections (feature `metis`) give another order, and the same distances.
        #[cfg(feature = "metis")]
        {
            let by_metis = Cch::build_with(&g, algos_sssp::cch::Bisector::Metis).unwrap();
            assert_trees_equal_dijkstra(&by_metis, &g, &sources, &format!("{what}, METIS order"));
            eprintln!(
                "{what}: METIS order {:.2} s, {} triangles",
                by_metis.order_seconds,
                by_metis.num_triangles()
            );
        }
        for round in 0..2u64 {
            let metric = g.with_weights(random_weights(round, g.num_arcs() as usize, 1000)).unwrap();
            assert_trees_equal_dijkstra(&cch, &metric, &sources, &format!("{what}, random metric {round}"));
        }
        eprintln!(
            "{what}: {} vertices, {} CCH edges ({} shortcuts), {} triangles, {} dissection parts, order {:.2} s, topology {:.2} s",
            n,
            cch.num_edges(),
            cch.num_edges() - g.num_arcs() as usize / 2,
            cch.num_triangles(),
            cch.num_parts(),
            cch.order_seconds,
            cch.topology_seconds
        );
    }
}

/// Weights of the wrong count or at the saturation bound are typed errors; overflowing sums are
/// reported, never distances.
#[test]
fn bad_metrics_are_errors() {
    let mut b = GraphBuilder::new(3);
    b.add_arc(0, 1, 5).add_arc(1, 2, 7);
    let g = b.build().unwrap().0;
    let cch = Cch::build(&g).unwrap();
    assert!(cch.customise(&[1]).is_err());
    assert!(cch.customise(&[1, u32::MAX - 1]).is_err());
    let ch = cch.customise(&[u32::MAX - 10, 100]).unwrap();
    assert!(ch.phast(&[0]).is_err());
    assert_eq!(ch.phast(&[1]).unwrap()[0], vec![u32::MAX, 0, 100]);
}

/// The GPU sweep on a customised CCH equals Dijkstra (lavapipe and any adapter).
#[test]
#[cfg(feature = "gpu")]
fn gpu_phast_on_cch_equals_dijkstra() {
    use algos_sssp::ch::gpu::GpuPhast;
    gpu_runtime::testing::for_each_context("cch gpu_phast_on_cch_equals_dijkstra", |ctx| {
        for seed in 0..8u64 {
            let n = 1 + (seed as u32 * 17) % 80;
            let g = random_graph(seed, n, 3 * n, 0..=25).unwrap();
            let cch = Cch::build(&g).unwrap();
            let metric = g.with_weights(random_weights(seed + 100, g.num_arcs() as usize, 40)).unwrap();
            let ch = cch.customise(metric.weights()).unwrap();
            let sources: Vec<u32> = (0..n).collect();
            let mut gpu = GpuPhast::new(ctx, &ch, 8).unwrap();
            for (s, row) in gpu.trees(&sources).unwrap().iter().enumerate() {
                assert_eq!(
                    row,
                    &dijkstra(&metric, s as u32, &Stop::default()).unwrap().0,
                    "seed {seed} source {s}"
                );
            }
        }
    });
}

/// The device's upward searches on a CCH (`phast_up.wgsl`) leave the seeds the CPU twin's
/// elimination-tree walk finds — cell, label, up arc and parent's cell, in decreasing rank — plus one
/// INF seed per ancestor never reached, which the random one-way graphs here produce.
#[test]
#[cfg(feature = "gpu")]
fn gpu_upward_seeds_equal_the_cpu_searches() {
    use algos_sssp::ch::UpwardSearch;
    use algos_sssp::ch::gpu::GpuPhast;
    const NONE: u32 = u32::MAX;
    gpu_runtime::testing::for_each_context("cch gpu_upward_seeds_equal_the_cpu_searches", |ctx| {
        let mut unreached = 0;
        for seed in 0..6u64 {
            let n = 20 + (seed as u32 * 23) % 70;
            let g = random_graph(seed, n, 2 * n, 0..=25).unwrap();
            let cch = Cch::build(&g).unwrap();
            let ch = cch.customise(random_weights(seed + 7, g.num_arcs() as usize, 40).as_slice()).unwrap();
            let k = 16u32;
            let sources: Vec<u32> = (0..k.min(n)).map(|i| (i * 7 + seed as u32) % n).collect();
            let mut gpu = GpuPhast::new(ctx, &ch, k).unwrap();
            gpu.run(&sources).unwrap();
            let view = gpu.sweep_view();
            let lanes = view.seed_lanes.to_vec();
            let seeds = view.seeds.read_range(ctx, 0, 4 * *lanes.last().unwrap() as usize).unwrap();
            let pos_of_vertex = view.pos_of_vertex.read_range(ctx, 0, n as usize).unwrap();
            let cell = |r: u32, lane: u32| pos_of_vertex[ch.order[r as usize] as usize] * k + lane;
            let mut search = UpwardSearch::new(n);
            for (lane, &s) in sources.iter().enumerate() {
                let lane = lane as u32;
                let mut want = Vec::new();
                search.search_tree(&ch, s, |r, d, (parent, arc)| {
                    let from = if parent == NONE { NONE } else { cell(parent, lane) };
                    want.push((r, [cell(r, lane), d, arc, from]));
                });
                want.sort_by_key(|&(r, _)| std::cmp::Reverse(r));
                let want: Vec<[u32; 4]> = want.into_iter().map(|(_, s)| s).collect();
                let range = lanes[lane as usize] as usize..lanes[lane as usize + 1] as usize;
                let got: Vec<[u32; 4]> = range
                    .map(|i| [seeds[4 * i], seeds[4 * i + 1], seeds[4 * i + 2], seeds[4 * i + 3]])
                    .collect();
                unreached += got.iter().filter(|s| s[1] == u32::MAX).count();
                assert!(
                    got.iter().filter(|s| s[1] == u32::MAX).all(|s| s[2] == NONE && s[3] == NONE),
                    "seed {seed} source {s}: an unreached ancestor with a parent"
                );
                let reached: Vec<[u32; 4]> = got.into_iter().filter(|s| s[1] != u32::MAX).collect();
                assert_eq!(reached, want, "seed {seed} source {s}");
            }
        }
        assert!(unreached > 0, "no unreached ancestor: the test lost its hard case");
    });
}

/// The top of a CCH's DAG (a separator's chain of narrow levels) goes to the chain kernel in one
/// dispatch; its trees equal Dijkstra's, with weights of every size and unreachable directions.
#[test]
#[cfg(feature = "gpu")]
fn gpu_phast_chain_of_top_levels_equals_dijkstra() {
    use algos_sssp::ch::gpu::GpuPhast;
    gpu_runtime::testing::for_each_context("cch gpu_phast_chain_of_top_levels_equals_dijkstra", |ctx| {
        let g = graph_core::generators::grid_2d(30, 20);
        let cch = Cch::build(&g).unwrap();
        for seed in 0..3u64 {
            let mut w = random_weights(seed, g.num_arcs() as usize, 1 + 500 * seed as u32);
            // Some arcs far heavier than the rest.
            w.iter_mut().step_by(7).for_each(|x| *x = 1_000_000);
            let metric = g.with_weights(w).unwrap();
            let ch = cch.customise(metric.weights()).unwrap();
            // 70 trees: passes of 64 lanes and a partial one.
            let sources: Vec<u32> = (0..70).map(|i| (i * 37) % g.num_vertices()).collect();
            let mut gpu = GpuPhast::new(ctx, &ch, 64).unwrap();
            assert!(gpu.num_chain_levels() >= 4, "a grid's top separator makes a chain of narrow levels");
            for (&s, row) in sources.iter().zip(gpu.trees(&sources).unwrap()) {
                assert_eq!(row, dijkstra(&metric, s, &Stop::default()).unwrap().0, "seed {seed} source {s}");
            }
        }
    });
}

/// Hierarchies built on several threads at once are the same as one built alone (METIS's global
/// random generator must not leak between concurrent builds: loads would differ between devices and
/// cluster ranks).
#[test]
fn concurrent_builds_give_the_same_order() {
    // A road-like shape large enough for many bisections.
    let g = graph_core::generators::grid_2d(50, 50);
    let alone = Cch::build(&g).unwrap();
    let ranks: Vec<Vec<u32>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4).map(|_| s.spawn(|| Cch::build(&g).unwrap().rank().to_vec())).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for r in ranks {
        assert_eq!(r, alone.rank());
    }
}

/// Checks point-to-point answers against Dijkstra: the distance, and a path of input arcs from `s` to
/// `t` whose weights add up to it.
fn assert_queries_equal_dijkstra(cch: &Cch, g: &Csr<u32>, pairs: &[(u32, u32)], what: &str) {
    use algos_sssp::cch::CchQuery;
    let (basic, unpacking) = cch.customise_with_unpacking(g.weights()).unwrap();
    // The perfect customisation's thinned hierarchy answers the same, with the same unpacking.
    let (thin, thin_unpacking) = algos_sssp::cch::perfect::thin_for_queries(&basic, &unpacking).unwrap();
    for (ch, unpacking, how) in [(&basic, &unpacking, "basic"), (&thin, &thin_unpacking, "thinned")] {
        let what = format!("{what}, {how}");
        let mut q = CchQuery::new(ch).unwrap();
        let batch = CchQuery::distances(ch, pairs).unwrap();
        for (&(s, t), &from_batch) in pairs.iter().zip(&batch) {
            let (dist, _) = dijkstra(g, s, &Stop::default()).unwrap();
            let want = (dist[t as usize] != u32::MAX).then_some(dist[t as usize]);
            assert_eq!(q.distance(ch, s, t).unwrap(), want, "{what}: {s} → {t}");
            assert_eq!(from_batch, want, "{what}: batch {s} → {t}");
            check_path(g, q.path(ch, unpacking, s, t).unwrap(), want, (s, t), &what);
        }
    }
}

/// A path of input arcs from `s` to `t` whose weights add up to Dijkstra's distance `want`.
fn check_path(g: &Csr<u32>, got: Option<(u32, Vec<u32>)>, want: Option<u32>, (s, t): (u32, u32), what: &str) {
    match (got, want) {
        (None, None) => {}
        (Some((d, arcs)), Some(w)) => {
            assert_eq!(d, w, "{what}: path distance {s} → {t}");
            let mut at = s;
            let mut sum = 0u64;
            for &a in &arcs {
                let range = g.arc_range(at);
                assert!(range.contains(&(a as usize)), "{what}: arc {a} does not leave {at} ({s} → {t})");
                sum += g.weights()[a as usize] as u64;
                at = g.targets()[a as usize];
            }
            assert_eq!((at, sum), (t, w as u64), "{what}: the path of {s} → {t} ends or adds up wrong");
        }
        (got, want) => panic!("{what}: {s} → {t}: path {got:?}, Dijkstra {want:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Point-to-point queries on random graphs (zero weights, parallel arcs, self-loops, one-way arcs)
    /// after two customisations: distances and unpacked paths equal Dijkstra's.
    #[test]
    fn point_to_point_equals_dijkstra(
        seed in any::<u64>(), n in 1u32..80, density in 1u32..5, max_w in 0u32..60,
    ) {
        let g = random_graph(seed, n, n * density, 0..=max_w).unwrap();
        let cch = Cch::build(&g).unwrap();
        let mut rng = SplitMix64::new(seed);
        let pairs: Vec<(u32, u32)> =
            (0..30).map(|_| (rng.below(n as u64) as u32, rng.below(n as u64) as u32)).collect();
        for round in 0..2u64 {
            let metric = g.with_weights(random_weights(seed ^ round, g.num_arcs() as usize, max_w)).unwrap();
            assert_queries_equal_dijkstra(&cch, &metric, &pairs, &format!("round {round}"));
        }
    }
}

/// Point-to-point queries on a real road graph: 100 random pairs equal Dijkstra, paths included.
#[test]
fn point_to_point_on_a_road_graph() {
    let Some(path) = data_path("road/osm-small/bremen_time.gr.gz", "point_to_point_on_a_road_graph") else {
        return;
    };
    let g = load_graph(&path, &LoadOptions::default()).unwrap().graph;
    let cch = Cch::build(&g).unwrap();
    let mut rng = SplitMix64::new(5);
    let n = g.num_vertices() as u64;
    let pairs: Vec<(u32, u32)> = (0..100).map(|_| (rng.below(n) as u32, rng.below(n) as u32)).collect();
    assert_queries_equal_dijkstra(&cch, &g, &pairs, "Bremen");
    // The thinning has something to thin on a road graph (Bremen keeps 72 % of the arcs, NY 48 %).
    let (ch, unpacking) = cch.customise_with_unpacking(g.weights()).unwrap();
    let (thin, _) = algos_sssp::cch::perfect::thin_for_queries(&ch, &unpacking).unwrap();
    let arcs = |c: &algos_sssp::ch::ContractionHierarchy| c.up.num_arcs() + c.down.num_arcs();
    assert!(arcs(&thin) * 10 < arcs(&ch) * 8, "Bremen: {} of {} arcs kept", arcs(&thin), arcs(&ch));
}

/// The bucket engine's matrix on a customised hierarchy.
fn buckets(
    ch: &algos_sssp::ch::ContractionHierarchy,
    g: &Csr<u32>,
    sources: &[u32],
    targets: &[u32],
) -> Result<algos_sssp::matrix::DistanceMatrix, algos_sssp::SsspError> {
    use algos_sssp::matrix::{Engine, MatrixOptions, distance_matrix};
    let opts = MatrixOptions { engine: Engine::Buckets, hierarchy: Some(ch), ..Default::default() };
    Ok(distance_matrix(g, sources, targets, &opts)?.matrix)
}

/// Checks a CCH matrix against Dijkstra rows (repeated sources and targets included).
fn assert_matrix_equals_dijkstra(cch: &Cch, g: &Csr<u32>, sources: &[u32], targets: &[u32], what: &str) {
    let ch = cch.customise(g.weights()).unwrap();
    let m = buckets(&ch, g, sources, targets).unwrap();
    assert_eq!((m.sources.as_slice(), m.targets.as_slice()), (sources, targets), "{what}");
    // The min-plus layout: its CPU twin and the GPU give the buckets' matrix, bit for bit.
    #[cfg(feature = "gpu")]
    {
        let walks = Walks::new(&ch, sources, targets).unwrap();
        assert_eq!(cch_matrix_mirror(&walks).unwrap(), m, "{what}: mirror");
        gpu_runtime::testing::for_each_context("cch matrix on the GPU", |ctx| {
            assert_eq!(cch_matrix_gpu_blocks(ctx, &walks, READBACK_WORDS).unwrap().0, m, "{what}: GPU");
            // Read back a few rows at a time: the blocks join into the same matrix.
            let (blocks, _) = cch_matrix_gpu_blocks(ctx, &walks, 3 * targets.len().max(1)).unwrap();
            assert_eq!(blocks, m, "{what}: GPU in blocks");
        });
    }
    for (i, &s) in sources.iter().enumerate() {
        let (row, _) = dijkstra(g, s, &Stop::default()).unwrap();
        for (j, &t) in targets.iter().enumerate() {
            assert_eq!(m.get(i, j), row[t as usize], "{what}: {s} → {t}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Many-to-many matrices on random graphs (zero weights, parallel arcs, self-loops, unreachable
    /// pairs) after two customisations equal Dijkstra's rows.
    #[test]
    fn matrix_equals_dijkstra(
        seed in any::<u64>(), n in 1u32..80, density in 1u32..5, max_w in 0u32..60, s in 0usize..12, t in 0usize..12,
    ) {
        let g = random_graph(seed, n, n * density, 0..=max_w).unwrap();
        let cch = Cch::build(&g).unwrap();
        let mut rng = SplitMix64::new(seed ^ 7);
        let sources: Vec<u32> = (0..s).map(|_| rng.below(n as u64) as u32).collect();
        let targets: Vec<u32> = (0..t).map(|_| rng.below(n as u64) as u32).collect();
        for round in 0..2u64 {
            let metric = g.with_weights(random_weights(seed ^ round, g.num_arcs() as usize, max_w)).unwrap();
            assert_matrix_equals_dijkstra(&cch, &metric, &sources, &targets, &format!("round {round}"));
        }
    }
}

/// A 40 × 60 matrix on a real road graph equals Dijkstra's rows; ids outside the graph are errors.
#[test]
fn matrix_on_a_road_graph() {
    use algos_sssp::SsspError;
    let Some(path) = data_path("road/osm-small/bremen_time.gr.gz", "matrix_on_a_road_graph") else {
        return;
    };
    let g = load_graph(&path, &LoadOptions::default()).unwrap().graph;
    let cch = Cch::build(&g).unwrap();
    let mut rng = SplitMix64::new(11);
    let n = g.num_vertices();
    let sources: Vec<u32> = (0..40).map(|_| rng.below(n as u64) as u32).collect();
    let targets: Vec<u32> = (0..60).map(|_| rng.below(n as u64) as u32).collect();
    assert_matrix_equals_dijkstra(&cch, &g, &sources, &targets, "Bremen");
    let ch = cch.customise(g.weights()).unwrap();
    assert!(matches!(buckets(&ch, &g, &[n], &[0]), Err(SsspError::SourceOutOfRange { .. })));
    assert!(matches!(buckets(&ch, &g, &[0], &[n]), Err(SsspError::TargetOutOfRange { .. })));
}

/// Point-to-point queries refuse what Dijkstra refuses: vertices outside the graph, and distances that
/// reach the saturation bound (never reported as a distance or as unreachable).
#[test]
fn point_to_point_errors_like_dijkstra() {
    use algos_sssp::SsspError;
    use algos_sssp::cch::CchQuery;
    let mut b = GraphBuilder::new(3);
    b.add_arc(0, 1, u32::MAX - 2).add_arc(1, 2, u32::MAX - 2).add_arc(0, 2, 7);
    let g = b.build().unwrap().0;
    let cch = Cch::build(&g).unwrap();
    let (ch, unpacking) = cch.customise_with_unpacking(g.weights()).unwrap();
    let mut q = CchQuery::new(&ch).unwrap();
    // A shorter meeting wins over a saturated one.
    assert_eq!(q.distance(&ch, 0, 2).unwrap(), Some(7));
    // The only route saturates: an error, as in Dijkstra, and the state is clean afterwards.
    let mut b = GraphBuilder::new(3);
    b.add_arc(0, 1, u32::MAX - 2).add_arc(1, 2, u32::MAX - 2);
    let long = b.build().unwrap().0;
    let lcch = Cch::build(&long).unwrap();
    let (lch, lunpack) = lcch.customise_with_unpacking(long.weights()).unwrap();
    let mut lq = CchQuery::new(&lch).unwrap();
    assert!(matches!(lq.distance(&lch, 0, 2), Err(SsspError::WeightOverflow { .. })));
    assert!(matches!(lq.path(&lch, &lunpack, 0, 2), Err(SsspError::WeightOverflow { .. })));
    assert!(dijkstra(&long, 0, &Stop::default()).is_err());
    assert_eq!(lq.distance(&lch, 0, 1).unwrap(), Some(u32::MAX - 2));
    assert!(matches!(buckets(&lch, &long, &[0], &[2]), Err(SsspError::WeightOverflow { .. })));
    // The GPU's product too, in any block of a pipelined readback (blocks of one row here).
    #[cfg(feature = "gpu")]
    {
        use algos_sssp::cch::gpu_matrix::{Walks, cch_matrix_gpu_blocks};
        let walks = Walks::new(&lch, &[1, 0, 1, 1], &[2, 1]).unwrap();
        gpu_runtime::testing::for_each_context("cch matrix overflow on the GPU", |ctx| {
            let r = cch_matrix_gpu_blocks(ctx, &walks, 2);
            assert!(matches!(r, Err(SsspError::WeightOverflow { .. })), "{r:?}");
            let fine = Walks::new(&lch, &[1, 0, 1], &[1]).unwrap();
            let (m, times) = cch_matrix_gpu_blocks(ctx, &fine, 1).unwrap();
            assert_eq!(m.data, vec![0, u32::MAX - 2, 0]);
            assert_eq!(times.bytes, 12);
        });
    }
    // Vertices outside the graph.
    assert!(matches!(q.distance(&ch, 3, 0), Err(SsspError::SourceOutOfRange { vertex: 3, n: 3 })));
    assert!(matches!(q.path(&ch, &unpacking, 0, 5), Err(SsspError::TargetOutOfRange { target: 5, n: 3 })));
    assert_eq!(q.distance(&ch, 0, 2).unwrap(), Some(7));
}

/// Ranks with many triangles split their lower neighbours over threads and merge the runs in order:
/// weights and witnesses (the arc loads they unpack to) must equal one thread's, ties included.
#[test]
fn customisation_is_the_same_on_one_thread_and_many() {
    // A 100 × 100 grid: its top separators' ranks have thousands of triangles each.
    let g = graph_core::generators::grid_2d(100, 100);
    let cch = Cch::build(&g).unwrap();
    let run = |threads: usize, weights: &[u32]| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let (ch, unpacking) = cch.customise_with_unpacking(weights).unwrap();
            let slots: Vec<u64> = ch
                .up
                .weights()
                .iter()
                .chain(ch.down.weights())
                .enumerate()
                .map(|(i, &w)| if w < algos_sssp::SATURATED { i as u64 % 5 + 1 } else { 0 })
                .collect();
            (ch.up.weights().to_vec(), ch.down.weights().to_vec(), unpacking.arc_loads(slots))
        })
    };
    for (what, weights) in
        [("random", random_weights(3, g.num_arcs() as usize, 1000)), ("ties", vec![1; g.num_arcs() as usize])]
    {
        let one = run(1, &weights);
        for threads in [2, 5] {
            assert!(one == run(threads, &weights), "{what}: {threads} threads differ from one");
        }
    }
}
