//! Contraction hierarchies and PHAST give exactly Dijkstra's distances (issue 21).

use algos_sssp::ch::ContractionHierarchy;
use algos_sssp::cpu::dijkstra::{Stop, dijkstra};
use graph_core::GraphBuilder;
use graph_core::datasets::data_path;
use graph_core::generators::random_graph;
use graph_core::io::{ReadOptions, read_graph};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random directed graphs with zero weights, parallel arcs and self-loops: every tree equals Dijkstra.
    #[test]
    fn phast_equals_dijkstra(seed in any::<u64>(), n in 1u32..80, density in 1u32..5, max_w in 0u32..50) {
        let g = random_graph(seed, n, n * density, 0..=max_w).unwrap();
        let ch = ContractionHierarchy::build(&g).unwrap();
        let sources: Vec<u32> = (0..n).collect();
        let trees = ch.phast(&sources).unwrap();
        let serial = ch.phast_serial(&sources).unwrap();
        prop_assert_eq!(&trees, &serial);
        for (s, row) in trees.iter().enumerate() {
            let (want, _) = dijkstra(&g, s as u32, &Stop::default()).unwrap();
            prop_assert_eq!(row, &want, "source {}", s);
        }
    }
}

/// Real road graphs: trees from spread sources equal Dijkstra's.
#[test]
fn phast_equals_dijkstra_on_road_graphs() {
    for (file, what) in [
        ("road/dimacs-rome99/rome99.gr.gz", "Rome 99"),
        ("road/osm-small/graph_ballard.gr.gz", "Seattle Ballard"),
        ("road/osm-small/bremen_time.gr.gz", "Bremen (time)"),
    ] {
        let Some(path) = data_path(file, what) else { continue };
        let g: graph_core::Csr<u32> = read_graph(&path, ReadOptions::default()).unwrap();
        let ch = ContractionHierarchy::build(&g).unwrap();
        let n = g.num_vertices();
        let sources: Vec<u32> = (0..20).map(|i| (i * 7919) % n).collect();
        let trees = ch.phast(&sources).unwrap();
        for (row, &s) in trees.iter().zip(&sources) {
            let (want, _) = dijkstra(&g, s, &Stop::default()).unwrap();
            assert_eq!(row, &want, "{what} source {s}");
        }
        eprintln!("{what}: {} shortcuts, contracted in {:.2} s", ch.shortcuts, ch.build_seconds);
    }
}

/// Sums beyond u32 are an overflow error, never a distance; bad sources are typed errors.
#[test]
fn overflow_and_bad_sources_are_errors() {
    let mut b = GraphBuilder::new(3);
    b.add_arc(0, 1, u32::MAX - 10).add_arc(1, 2, 100);
    let g = b.build().unwrap().0;
    let ch = ContractionHierarchy::build(&g).unwrap();
    assert!(ch.phast(&[0]).is_err());
    assert!(ch.phast(&[1]).is_ok());
    assert!(ch.phast(&[3]).is_err());
}

/// The GPU sweep equals Dijkstra (random graphs, several lane counts; Rome 99).
#[test]
fn gpu_phast_equals_dijkstra() {
    use algos_sssp::ch::gpu::GpuPhast;
    gpu_runtime::testing::for_each_context("ch gpu_phast_equals_dijkstra", |ctx| {
        for seed in 0..16u64 {
            let g =
                random_graph(seed, 1 + (seed as u32 * 13) % 90, 3 * (1 + (seed as u32 * 13) % 90), 0..=30)
                    .unwrap();
            let ch = ContractionHierarchy::build(&g).unwrap();
            let n = g.num_vertices();
            let sources: Vec<u32> = (0..n).collect();
            for k in [1u32, 3, 32] {
                let mut gpu = GpuPhast::new(ctx, &ch, k).unwrap();
                let trees = gpu.trees(&sources).unwrap();
                for (s, row) in trees.iter().enumerate() {
                    let (want, _) = dijkstra(&g, s as u32, &Stop::default()).unwrap();
                    assert_eq!(row, &want, "seed {seed} k {k} source {s}");
                }
            }
        }
        if let Some(path) = data_path("road/dimacs-rome99/rome99.gr.gz", "Rome 99") {
            let g: graph_core::Csr<u32> = read_graph(&path, ReadOptions::default()).unwrap();
            let ch = ContractionHierarchy::build(&g).unwrap();
            let mut gpu = GpuPhast::new(ctx, &ch, 16).unwrap();
            let sources: Vec<u32> = (0..40).map(|i| i * 83).collect();
            for (row, &s) in gpu.trees(&sources).unwrap().iter().zip(&sources) {
                assert_eq!(row, &dijkstra(&g, s, &Stop::default()).unwrap().0, "Rome source {s}");
            }
            eprintln!("Rome: {} levels", gpu.num_levels());
        }
    });
}

/// Streaming passes to a consumer gives the same trees as reading them one by one.
#[test]
fn gpu_phast_streams_every_tree() {
    use algos_sssp::ch::gpu::GpuPhast;
    gpu_runtime::testing::for_each_context("ch gpu_phast_streams_every_tree", |ctx| {
        let g = random_graph(5, 70, 210, 0..=20).unwrap();
        let ch = ContractionHierarchy::build(&g).unwrap();
        let sources: Vec<u32> = (0..70).rev().collect();
        let mut gpu = GpuPhast::new(ctx, &ch, 8).unwrap();
        // Two staging buffers (the host reads a pass while the device sweeps the next) and three (the
        // device a pass further ahead).
        for depth in [2, 3] {
            gpu.set_readback_depth(depth);
            let mut got = vec![Vec::new(); sources.len()];
            gpu.for_each_block(&sources, |first, rows| {
                for (i, row) in rows.chunks(70).enumerate() {
                    got[first + i] = row.to_vec();
                }
            })
            .unwrap();
            for (row, &s) in got.iter().zip(&sources) {
                assert_eq!(row, &dijkstra(&g, s, &Stop::default()).unwrap().0, "depth {depth} source {s}");
            }
        }
    });
}

/// A streamed pass whose labels saturate is an error (the device's overflow flag), whichever pass it is
/// in, and the flag does not stick to the passes after a clean one.
#[test]
fn gpu_phast_streams_report_overflow() {
    use algos_sssp::SATURATED;
    use algos_sssp::SsspError;
    use algos_sssp::ch::gpu::GpuPhast;
    gpu_runtime::testing::for_each_context("ch gpu_phast_streams_report_overflow", |ctx| {
        // 0 → 1 → 2 sums past the bound; from 1 or 2 every distance is small.
        let mut b = GraphBuilder::new(4);
        b.add_arc(0, 1, SATURATED - 10).add_arc(1, 2, 20).add_arc(2, 3, 1).add_arc(3, 2, 1);
        let g = b.build().unwrap().0;
        let ch = ContractionHierarchy::build(&g).unwrap();
        let mut gpu = GpuPhast::new(ctx, &ch, 1).unwrap();
        for depth in [2, 3] {
            gpu.set_readback_depth(depth);
            let clean: Vec<u32> = vec![1, 2, 3, 1, 2];
            let mut seen = 0;
            gpu.for_each_block(&clean, |_, rows| seen += rows.len()).unwrap();
            assert_eq!(seen, 5 * 4, "depth {depth}");
            for at in 0..4 {
                let mut sources = vec![2u32, 3, 1, 2];
                sources.insert(at, 0);
                let r = gpu.for_each_block(&sources, |_, _| {});
                assert!(matches!(r, Err(SsspError::WeightOverflow { .. })), "depth {depth} at {at}: {r:?}");
            }
            gpu.for_each_block(&clean, |_, _| {}).unwrap();
        }
    });
}
