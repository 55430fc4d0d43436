//! Many-source trees and distance matrices equal repeated Dijkstra, on the CPU and every GPU adapter.

use algos_sssp::many::many_to_all;
use algos_sssp::matrix::{DistanceMatrix, Engine, MatrixOptions, distance_matrix};
use algos_sssp::{Algorithm, Query, SsspError, solve};
use gpu_runtime::Backend;
use gpu_runtime::testing::for_each_context;
use graph_core::Csr;
use graph_core::datasets::data_path;
use graph_core::generators::random_graph_with;
use graph_core::io::{ReadOptions, read_graph};
use graph_core::rng::SplitMix64;

/// The trees engine's matrix on one backend.
fn trees_matrix(
    g: &Csr<u32>,
    sources: &[u32],
    targets: &[u32],
    backend: Backend,
) -> Result<DistanceMatrix, SsspError> {
    let opts = MatrixOptions { backend, engine: Engine::Trees, ..Default::default() };
    Ok(distance_matrix(g, sources, targets, &opts)?.matrix)
}

fn random_graph(seed: u64) -> Csr<u32> {
    let mut rng = SplitMix64::new(!seed);
    let n = 1 + rng.below(90) as u32;
    let m = rng.below(4 * n as u64 + 1) as u32;
    // One arc in six weighs nothing (ties and zero cycles).
    random_graph_with(seed, n, m, |r| if r.below(6) == 0 { 0 } else { 1 + r.below(50) as u32 }).unwrap()
}

fn check(g: &Csr<u32>, sources: &[u32], backend: Backend, label: &str) {
    let mut seen = 0;
    many_to_all(g, sources, backend, true, |block| {
        for (i, &s) in block.sources.iter().enumerate() {
            assert_eq!(s, sources[block.first + i], "{label}: blocks arrive in source order");
            let q = Query { source: s, predecessors: true, ..Default::default() };
            let want = solve(g, &q, Algorithm::Dijkstra, Backend::Cpu).unwrap();
            assert!(block.dist_row(i) == want.dist.as_slice(), "{label}: tree from {s}");
            let pred = &block.pred.unwrap()[i * block.n..(i + 1) * block.n];
            assert!(pred == want.pred_arc.as_deref().unwrap(), "{label}: predecessors from {s}");
            seen += 1;
        }
    })
    .unwrap();
    assert_eq!(seen, sources.len(), "{label}: every source delivered once");
}

#[test]
fn many_to_all_equals_repeated_dijkstra() {
    for seed in 0..20 {
        let g = random_graph(seed);
        let n = g.num_vertices();
        let sources: Vec<u32> = (0..n).chain(0..n.min(3)).collect();
        check(&g, &sources, Backend::Cpu, &format!("cpu seed {seed}"));
    }
    for_each_context("many_to_all_equals_repeated_dijkstra", |ctx| {
        for seed in 0..20 {
            let g = random_graph(seed);
            let n = g.num_vertices();
            let sources: Vec<u32> = (0..n).rev().collect();
            check(&g, &sources, Backend::Gpu(ctx), &format!("gpu seed {seed}"));
        }
        // More sources than one GPU batch holds.
        let g = random_graph(3);
        let sources: Vec<u32> = (0..600).map(|i| i % g.num_vertices()).collect();
        check(&g, &sources, Backend::Gpu(ctx), "gpu, several batches");
    });
}

#[test]
fn distance_matrix_and_errors() {
    let g = random_graph(7);
    let n = g.num_vertices();
    let sources: Vec<u32> = (0..n).step_by(3).collect();
    let targets: Vec<u32> = (0..n).rev().step_by(2).collect();
    let m = trees_matrix(&g, &sources, &targets, Backend::Cpu).unwrap();
    for (i, &s) in sources.iter().enumerate() {
        let d = solve(&g, &Query::from(s), Algorithm::Dijkstra, Backend::Cpu).unwrap().dist;
        for (j, &t) in targets.iter().enumerate() {
            assert_eq!(m.get(i, j), d[t as usize]);
        }
    }
    assert!(matches!(
        trees_matrix(&g, &[n], &targets, Backend::Cpu),
        Err(SsspError::SourceOutOfRange { .. })
    ));
    assert!(matches!(trees_matrix(&g, &[0], &[n], Backend::Cpu), Err(SsspError::TargetOutOfRange { .. })));
    for_each_context("distance_matrix_and_errors", |ctx| {
        assert_eq!(trees_matrix(&g, &sources, &targets, Backend::Gpu(ctx)).unwrap(), m);
    });
}

#[test]
fn many_sources_on_a_road_graph() {
    let Some(path) = data_path("road/osm-small/bremen_time.gr.gz", "many_sources_on_a_road_graph") else {
        return;
    };
    let g: Csr<u32> = read_graph(&path, ReadOptions::default()).unwrap();
    let sources: Vec<u32> = (0..12).map(|k| k * 3371 % g.num_vertices()).collect();
    let cpu = trees_matrix(&g, &sources, &sources, Backend::Cpu).unwrap();
    for_each_context("many_sources_on_a_road_graph", |ctx| {
        assert_eq!(trees_matrix(&g, &sources, &sources, Backend::Gpu(ctx)).unwrap(), cpu);
    });
}

/// The batched kernel under awkward launch settings: several batches (the readback of one overlapping
/// the search of the next), one iteration per dispatch (every search resumed from its saved state),
/// tiny and huge windows, workgroups smaller than a subgroup.
#[test]
fn batched_gpu_kernel_under_every_launch_setting() {
    use algos_sssp::gpu::{BatchConfig, GpuBatchSssp};
    for_each_context("batched_gpu_kernel_under_every_launch_setting", |ctx| {
        for seed in 20..26 {
            let g = random_graph(seed);
            let n = g.num_vertices();
            let sources: Vec<u32> = (0..2 * n).map(|i| (i * 7 + 3) % n).collect();
            let want: Vec<Vec<u32>> = sources
                .iter()
                .map(|&s| solve(&g, &Query::from(s), Algorithm::Dijkstra, Backend::Cpu).unwrap().dist)
                .collect();
            for (wg, slots, delta, budget) in
                [(32, 5, 1, 1), (64, 17, 1 << 30, 3), (128, 64, 7, 1024), (16, 1, 2, 2)]
            {
                let config = BatchConfig { workgroup_size: wg, slots, delta, budget };
                let mut solver = GpuBatchSssp::new(ctx, &g, config).unwrap();
                let mut seen = 0;
                let stats = solver
                    .for_each_block(&sources, |first, block, rows| {
                        assert_eq!(first, seen, "blocks in order");
                        for i in 0..block.len() {
                            let row = &rows[i * n as usize..(i + 1) * n as usize];
                            assert!(
                                row == want[first + i].as_slice(),
                                "seed {seed} {config:?} source {}",
                                block[i]
                            );
                        }
                        seen += block.len();
                    })
                    .unwrap();
                assert_eq!(seen, sources.len());
                assert!(stats.dispatches >= sources.len().div_ceil(slots) as u64);
            }
        }
        // Errors: too many sources for the slots, a source out of range, a zero setting.
        let g = random_graph(5);
        let n = g.num_vertices();
        let config = BatchConfig { workgroup_size: 64, slots: 2, delta: 1, budget: 8 };
        let mut solver = GpuBatchSssp::new(ctx, &g, config).unwrap();
        assert!(matches!(solver.run(&[0, 0, 0]), Err(SsspError::InvalidParameter(_))));
        assert!(matches!(solver.run(&[n]), Err(SsspError::SourceOutOfRange { .. })));
        assert!(matches!(
            solver.for_each_block(&[0, 0, n], |_, _, _| {}),
            Err(SsspError::SourceOutOfRange { .. })
        ));
        assert!(GpuBatchSssp::new(ctx, &g, BatchConfig { delta: 0, ..config }).is_err());
    });
}

/// CPU threads and the GPU together: every tree exactly once, equal to Dijkstra, whatever the policy;
/// the equitable policy gives each worker its share.
#[test]
fn cpu_and_gpu_together_under_both_policies() {
    use algos_sssp::gpu::BatchConfig;
    use algos_sssp::many::{ManyOptions, Schedule, many_to_all_with};
    for_each_context("cpu_and_gpu_together_under_both_policies", |ctx| {
        for seed in [40, 41, 42] {
            let g = random_graph(seed);
            let n = g.num_vertices();
            let sources: Vec<u32> = (0..3 * n + 5).map(|i| (i * 11) % n).collect();
            let want: Vec<Vec<u32>> = sources
                .iter()
                .map(|&s| solve(&g, &Query::from(s), Algorithm::Dijkstra, Backend::Cpu).unwrap().dist)
                .collect();
            for schedule in [Schedule::Equitable, Schedule::WorkQueue] {
                let opts = ManyOptions {
                    backend: Backend::Gpu(ctx),
                    predecessors: true,
                    schedule,
                    gpu: Some(BatchConfig { workgroup_size: 64, slots: 4, delta: 5, budget: 64 }),
                    cpu_threads: Some(2),
                    ..Default::default()
                };
                let mut seen = vec![0u32; sources.len()];
                let out = many_to_all_with(&g, &sources, &opts, |b| {
                    for i in 0..b.sources.len() {
                        let k = b.first + i;
                        seen[k] += 1;
                        assert_eq!(b.sources[i], sources[k]);
                        assert!(b.dist_row(i) == want[k].as_slice(), "seed {seed} {schedule:?} source {k}");
                        let q = Query { source: sources[k], predecessors: true, ..Default::default() };
                        let p = solve(&g, &q, Algorithm::Dijkstra, Backend::Cpu).unwrap().pred_arc.unwrap();
                        assert!(&b.pred.unwrap()[i * b.n..(i + 1) * b.n] == p.as_slice());
                    }
                })
                .unwrap();
                assert!(seen.iter().all(|&c| c == 1), "{schedule:?}: every tree once");
                assert_eq!(out.schedule, schedule);
                assert_eq!(out.gpu_trees + out.cpu_trees, sources.len());
                if schedule == Schedule::Equitable {
                    assert!(out.gpu_trees > 0 && out.cpu_trees > 0, "{out:?}");
                }
            }
        }
        // All pairs, streamed: the checksum of every row equals the CPU's.
        let g = random_graph(43);
        let sum = |backend, schedule| {
            let mut total = 0u64;
            let opts = ManyOptions { backend, schedule, ..Default::default() };
            let every: Vec<u32> = (0..g.num_vertices()).collect();
            many_to_all_with(&g, &every, &opts, |b| {
                total +=
                    b.dist.iter().filter(|&&d| d != algos_sssp::UNREACHABLE).map(|&d| d as u64).sum::<u64>()
            })
            .unwrap();
            total
        };
        assert_eq!(sum(Backend::Gpu(ctx), Schedule::WorkQueue), sum(Backend::Cpu, Schedule::Single));
    });
}

/// Two GPUs (two devices on one adapter here), alone and beside CPU threads, under every policy:
/// every tree exactly once and equal to Dijkstra's, both devices used, counts per device adding up.
#[test]
fn several_gpus_share_the_trees() {
    use algos_sssp::gpu::BatchConfig;
    use algos_sssp::many::{ManyOptions, Schedule, many_to_all_with};
    gpu_runtime::testing::with_two_devices("several_gpus_share_the_trees", |devices| {
        let g = random_graph(44);
        let n = g.num_vertices();
        let sources: Vec<u32> = (0..4 * n + 3).map(|i| (i * 7) % n).collect();
        let want: Vec<Vec<u32>> = sources
            .iter()
            .map(|&s| solve(&g, &Query::from(s), Algorithm::Dijkstra, Backend::Cpu).unwrap().dist)
            .collect();
        for (schedule, threads) in
            [(Schedule::Single, None), (Schedule::Equitable, Some(1)), (Schedule::WorkQueue, Some(2))]
        {
            let opts = ManyOptions {
                backend: Backend::Gpu(&devices[0]),
                schedule,
                gpu: Some(BatchConfig { workgroup_size: 64, slots: 4, delta: 5, budget: 64 }),
                cpu_threads: threads,
                devices,
                ..Default::default()
            };
            let mut seen = vec![0u32; sources.len()];
            let out = many_to_all_with(&g, &sources, &opts, |b| {
                for i in 0..b.sources.len() {
                    let k = b.first + i;
                    seen[k] += 1;
                    assert!(b.dist_row(i) == want[k].as_slice(), "{schedule:?} source {k}");
                }
            })
            .unwrap();
            assert!(seen.iter().all(|&c| c == 1), "{schedule:?}: every tree once");
            // The same with a sink every GPU's thread calls itself.
            let seen_shared = std::sync::Mutex::new(vec![0u32; sources.len()]);
            let shared = algos_sssp::many::many_to_all_shared(&g, &sources, &opts, |b| {
                for i in 0..b.sources.len() {
                    let k = b.first + i;
                    seen_shared.lock().unwrap()[k] += 1;
                    assert!(b.dist_row(i) == want[k].as_slice(), "shared {schedule:?} source {k}");
                }
            })
            .unwrap();
            assert!(seen_shared.into_inner().unwrap().iter().all(|&c| c == 1), "shared {schedule:?}");
            assert_eq!(shared.gpu_trees + shared.cpu_trees, sources.len());
            assert_eq!(shared.gpu_trees_per_device.iter().sum::<usize>(), shared.gpu_trees);
            let targets: Vec<u32> = (0..n).step_by(3).collect();
            let on_both = MatrixOptions {
                backend: opts.backend,
                devices: opts.devices,
                engine: Engine::Trees,
                ..Default::default()
            };
            let m = distance_matrix(&g, &sources, &targets, &on_both).unwrap().matrix;
            for (k, row) in want.iter().enumerate() {
                for (j, &t) in targets.iter().enumerate() {
                    assert_eq!(m.get(k, j), row[t as usize]);
                }
            }
            assert_eq!(out.gpu_trees_per_device.len(), 2);
            assert_eq!(out.gpu_trees_per_device.iter().sum::<usize>(), out.gpu_trees);
            assert_eq!(out.gpu_trees + out.cpu_trees, sources.len());
            if schedule != Schedule::WorkQueue {
                // Fixed shares (Equitable) and the GPUs alone racing for batches both use each device.
                assert!(out.gpu_trees_per_device.iter().all(|&t| t > 0), "{schedule:?}: {out:?}");
            }
            if schedule == Schedule::Single {
                assert_eq!(out.cpu_trees, 0);
            }
        }
    });
}

/// PHAST on two GPUs (two devices on one adapter here) sharing one queue of passes: every tree once,
/// equal to one device's rows bit for bit (and to Dijkstra's), both devices used, through both sinks.
#[test]
fn phast_on_two_gpus_equals_one() {
    use algos_sssp::many::{ManyOptions, Method, Schedule, many_to_all_shared, many_to_all_with};
    gpu_runtime::testing::with_two_devices("phast_on_two_gpus_equals_one", |devices| {
        let g = random_graph(47);
        let n = g.num_vertices();
        // Enough passes of 128 for both devices to take some.
        let sources: Vec<u32> = (0..1500).map(|i| (i * 11) % n).collect();
        let one =
            ManyOptions { backend: Backend::Gpu(&devices[0]), method: Method::Phast, ..Default::default() };
        let mut want = vec![Vec::new(); sources.len()];
        many_to_all_with(&g, &sources, &one, |b| {
            for i in 0..b.sources.len() {
                want[b.first + i] = b.dist_row(i).to_vec();
            }
        })
        .unwrap();
        for k in [0, 777, sources.len() - 1] {
            let d = solve(&g, &Query::from(sources[k]), Algorithm::Dijkstra, Backend::Cpu).unwrap().dist;
            assert_eq!(want[k], d, "one device, source {k}");
        }
        let two = ManyOptions { devices, ..one };
        let mut seen = vec![0u32; sources.len()];
        let out = many_to_all_with(&g, &sources, &two, |b| {
            for i in 0..b.sources.len() {
                let k = b.first + i;
                seen[k] += 1;
                assert!(b.dist_row(i) == want[k].as_slice(), "two devices, source {k}");
            }
        })
        .unwrap();
        assert!(seen.iter().all(|&c| c == 1), "every tree once");
        assert_eq!(
            (out.method, out.schedule, out.gpu_trees),
            (Method::Phast, Schedule::WorkQueue, sources.len())
        );
        assert_eq!(out.gpu_trees_per_device.len(), 2);
        assert_eq!(out.gpu_trees_per_device.iter().sum::<usize>(), sources.len());
        assert!(
            out.gpu_trees_per_device.iter().all(|&t| t > 0),
            "both devices used: {:?}",
            out.gpu_trees_per_device
        );
        let seen = std::sync::Mutex::new(vec![0u32; sources.len()]);
        many_to_all_shared(&g, &sources, &two, |b| {
            for i in 0..b.sources.len() {
                let k = b.first + i;
                seen.lock().unwrap()[k] += 1;
                assert!(b.dist_row(i) == want[k].as_slice(), "shared sink, source {k}");
            }
        })
        .unwrap();
        assert!(seen.into_inner().unwrap().iter().all(|&c| c == 1), "shared sink: every tree once");
    });
}

/// Every shared TNTP network as a plain graph (free-flow times in thousandths): batched GPU trees
/// from zones spread over the network equal repeated Dijkstra, and the CPU many-source path does too.
#[test]
fn tntp_networks_as_plain_graphs() {
    let Some(root) = data_path("tntp", "tntp_networks_as_plain_graphs") else {
        return;
    };
    let mut nets: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
        .map(|f| f.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_lowercase();
            name.contains("_net") || name.starts_with("goldcoast_network")
        })
        .collect();
    nets.sort();
    assert!(nets.len() >= 20, "the shared TNTP networks: found {}", nets.len());
    let mut checked = Vec::new();
    for path in &nets {
        let net = graph_core::io::tntp::read_net(path).unwrap();
        let tg = net.free_flow_graph(1000.0).unwrap();
        let g = &tg.graph;
        // Zones are nodes 1..=Z except in sparse-id files (Munich), where any vertices stand in.
        let sparse = path.to_string_lossy().contains("munich");
        let zones = tg.zone_vertices(net.zones).unwrap_or_else(|| {
            assert!(sparse, "{}: zones 1..=Z are nodes", path.display());
            (0..g.num_vertices()).collect()
        });
        assert!(!zones.is_empty(), "{}: zones", path.display());
        // At most 24 zones, spread over the list, plus one non-zone vertex.
        let step = zones.len().div_ceil(24);
        let mut sources: Vec<u32> = zones.iter().step_by(step).copied().collect();
        sources.push(g.num_vertices() - 1);
        let want: Vec<Vec<u32>> = sources
            .iter()
            .map(|&s| solve(g, &Query::from(s), Algorithm::Dijkstra, Backend::Cpu).unwrap().dist)
            .collect();
        let compare = |backend: Backend, label: &str| {
            many_to_all(g, &sources, backend, false, |b| {
                for i in 0..b.sources.len() {
                    assert!(
                        b.dist_row(i) == want[b.first + i].as_slice(),
                        "{label} {}: source {}",
                        path.display(),
                        b.sources[i]
                    );
                }
            })
            .unwrap();
        };
        compare(Backend::Cpu, "cpu");
        for_each_context("tntp_networks_as_plain_graphs", |ctx| compare(Backend::Gpu(ctx), &ctx.info.name));
        checked.push(format!(
            "{} ({} vertices)",
            path.file_name().unwrap().to_string_lossy(),
            g.num_vertices()
        ));
    }
    eprintln!("checked {}", checked.join(", "));
}

/// The autotune measures every candidate, picks one of them, caches it per adapter and graph, and the
/// setting it picks gives the same trees.
#[test]
fn autotuned_settings_are_a_candidate_cached_and_correct() {
    use algos_sssp::gpu::GpuBatchSssp;
    use algos_sssp::tuning::measured_batch_config;
    for_each_context("autotuned_settings_are_a_candidate_cached_and_correct", |ctx| {
        let g = random_graph(77);
        let n = g.num_vertices();
        let first = measured_batch_config(ctx, &g).unwrap();
        assert!([128, 256, 512].contains(&first.workgroup_size), "{first:?}");
        assert!(first.delta >= 1 && first.slots >= 1);
        assert_eq!(measured_batch_config(ctx, &g).unwrap(), first, "cached");
        let sources: Vec<u32> = (0..n).collect();
        let mut solver = GpuBatchSssp::new(ctx, &g, first).unwrap();
        solver
            .for_each_block(&sources, |first_row, block, rows| {
                for i in 0..block.len() {
                    let want =
                        solve(&g, &Query::from(block[i]), Algorithm::Dijkstra, Backend::Cpu).unwrap().dist;
                    assert!(
                        rows[i * n as usize..(i + 1) * n as usize] == want[..],
                        "source {}",
                        first_row + i
                    );
                }
            })
            .unwrap();
    });
}

/// `Method::Phast` (the hierarchy built inside or given) and `Method::Auto` give Dijkstra's rows through
/// many_to_all_with and the shared sink, on the CPU and on every adapter; the
/// report says what ran.
#[test]
fn phast_method_equals_dijkstra_rows() {
    use algos_sssp::ch::ContractionHierarchy;
    use algos_sssp::many::{ManyOptions, Method, many_to_all_with};
    let g = random_graph(45);
    let n = g.num_vertices();
    let sources: Vec<u32> = (0..2 * n + 3).map(|i| (i * 5) % n).collect();
    let want: Vec<Vec<u32>> = sources
        .iter()
        .map(|&s| solve(&g, &Query::from(s), Algorithm::Dijkstra, Backend::Cpu).unwrap().dist)
        .collect();
    let check = |opts: &ManyOptions<'_>, what: &str| {
        let mut seen = vec![0u32; sources.len()];
        let out = many_to_all_with(&g, &sources, opts, |b| {
            for i in 0..b.sources.len() {
                let k = b.first + i;
                seen[k] += 1;
                assert!(b.dist_row(i) == want[k].as_slice(), "{what}: source {k}");
            }
        })
        .unwrap();
        assert!(seen.iter().all(|&c| c == 1), "{what}: every tree once");
        out
    };
    let cpu = ManyOptions { backend: Backend::Cpu, method: Method::Phast, ..Default::default() };
    let out = check(&cpu, "cpu phast");
    assert_eq!((out.method, out.cpu_trees), (Method::Phast, sources.len()));
    let ch = ContractionHierarchy::build(&g).unwrap();
    let given = ManyOptions { hierarchy: Some(&ch), method: Method::Auto, ..cpu };
    let out = check(&given, "cpu phast, hierarchy given (auto)");
    assert_eq!((out.method, out.preprocess_s), (Method::Phast, 0.0));
    // Auto with few sources and no hierarchy: one search per source.
    let few = ManyOptions { method: Method::Auto, ..cpu };
    // (PHAST above built its order into the cache folder: Auto prices that.)
    use algos_sssp::auto::{HierarchyCost, phast_threshold};
    let threshold = phast_threshold(rayon::current_num_threads(), false, HierarchyCost::of(&g, false));
    if sources.len() < threshold {
        assert_eq!(check(&few, "auto, few sources").method, algos_sssp::many::Method::Trees);
    }
    // A hierarchy of another graph is refused.
    let other = ContractionHierarchy::build(&random_graph(46)).unwrap();
    if other.num_vertices() != n {
        let bad = ManyOptions { hierarchy: Some(&other), ..cpu };
        assert!(many_to_all_with(&g, &sources, &bad, |_| {}).is_err());
    }
    for_each_context("phast_method_equals_dijkstra_rows", |ctx| {
        let gpu = ManyOptions { backend: Backend::Gpu(ctx), method: Method::Phast, ..Default::default() };
        let out = check(&gpu, "gpu phast");
        assert_eq!((out.method, out.gpu_trees), (Method::Phast, sources.len()));
    });
}

/// `Method::Auto` with enough sources builds a customisable hierarchy, runs PHAST and says why (not
/// "asked for"); the rows are Dijkstra's.
#[test]
fn auto_takes_phast_from_the_measured_source_count_and_says_why() {
    use algos_sssp::many::{ManyOptions, Method, many_to_all_with};
    let g = graph_core::generators::grid_2d(30, 30);
    let count = algos_sssp::auto::PHAST_CPU_MIN_SOURCES_PER_THREAD * rayon::current_num_threads() + 1;
    let sources: Vec<u32> = (0..count as u32).map(|i| (i * 7) % g.num_vertices()).collect();
    let opts = ManyOptions { backend: Backend::Cpu, method: Method::Auto, ..Default::default() };
    let mut rows = vec![Vec::new(); sources.len()];
    let out = many_to_all_with(&g, &sources, &opts, |b| {
        for (i, row) in b.dist.chunks(b.n).enumerate() {
            rows[b.first + i] = row.to_vec();
        }
    })
    .unwrap();
    assert_eq!(out.method, Method::Phast);
    let why = out.decision.expect("an automatic choice is explained").reason;
    assert!(why.contains("phast_pays") && why.contains(&count.to_string()), "{why}");
    for (&s, row) in sources.iter().zip(&rows) {
        assert_eq!(row, &solve(&g, &Query::from(s), Algorithm::Dijkstra, Backend::Cpu).unwrap().dist);
    }
}

/// `many_to_all_into` fills the caller's rows as `many_to_all` delivers them: CPU trees in place,
/// CPU PHAST and every GPU adapter through their blocks; a buffer of the wrong size is refused.
#[test]
fn rows_into_the_callers_buffer_equal_the_delivered_rows() {
    use algos_sssp::many::{ManyOptions, Method, many_to_all_into};
    let mut cases: Vec<(Csr<u32>, Vec<u32>)> = (0..12)
        .map(|seed| {
            let g = random_graph(seed);
            let n = g.num_vertices();
            (g, (0..n).step_by(3).collect())
        })
        .collect();
    cases.push((graph_core::generators::grid_2d(30, 30), (0..300).collect()));
    let want = |g: &Csr<u32>, sources: &[u32]| {
        let n = g.num_vertices() as usize;
        let mut rows = vec![0u32; sources.len() * n];
        many_to_all(g, sources, Backend::Cpu, false, |b| {
            rows[b.first * n..b.first * n + b.dist.len()].copy_from_slice(b.dist);
        })
        .unwrap();
        rows
    };
    for (g, sources) in &cases {
        let n = g.num_vertices() as usize;
        let expected = want(g, sources);
        for method in [Method::Trees, Method::Phast, Method::Auto] {
            let mut rows = vec![7u32; sources.len() * n];
            let opts = ManyOptions { backend: Backend::Cpu, method, ..Default::default() };
            many_to_all_into(g, sources, &opts, &mut rows).unwrap();
            assert!(rows == expected, "{method:?}, n = {n}");
        }
        let mut short = vec![0u32; sources.len() * n + 1];
        let opts = ManyOptions { backend: Backend::Cpu, ..Default::default() };
        assert!(matches!(
            many_to_all_into(g, sources, &opts, &mut short),
            Err(SsspError::InvalidParameter(_))
        ));
    }
    for_each_context("rows_into_the_callers_buffer_equal_the_delivered_rows", |ctx| {
        let (g, sources) = cases.last().unwrap();
        let mut rows = vec![7u32; sources.len() * g.num_vertices() as usize];
        let opts = ManyOptions { backend: Backend::Gpu(ctx), ..Default::default() };
        many_to_all_into(g, sources, &opts, &mut rows).unwrap();
        assert!(rows == want(g, sources), "{}", ctx.info.name);
    });
}

/// The three steps of a many-source run apart: `measure` delivers the automatic schedule's probe
/// trees, `plan` decides the same from the same measurements every time (and keeps the CPU, saying
/// so, when nothing was measured), `Plan::run` delivers the rest; together every source once, with
/// Dijkstra's rows. A plan made from hand-given GPU measurements runs on that GPU; a plan run with
/// another source list is refused.
#[test]
fn measure_plan_and_run_are_separate_steps() {
    use algos_sssp::gpu::BatchConfig;
    use algos_sssp::many::{ManyOptions, TreeBlock};
    use algos_sssp::many::{Measurements, Method, Placement, Schedule, TunedGpu, measure, plan};
    let g =
        graph_core::generators::random_weights(&graph_core::generators::grid_2d(12, 12), 1, 40, 7).unwrap();
    let sources: Vec<u32> = (0..100).map(|i| (i * 13 + 3) % g.num_vertices()).collect();
    let want = |s: u32| solve(&g, &Query::from(s), Algorithm::Dijkstra, Backend::Cpu).unwrap().dist;
    let mut rows: Vec<Option<Vec<u32>>> = vec![None; sources.len()];
    let mut keep = |b: TreeBlock<'_>| {
        for (i, row) in b.dist.chunks(b.n).enumerate() {
            assert!(rows[b.first + i].replace(row.to_vec()).is_none(), "source {} twice", b.first + i);
        }
    };
    let opts = ManyOptions { backend: Backend::Auto, ..Default::default() };
    let measured = measure(&g, &sources, &opts, &mut keep).unwrap();
    let probe = measured.probe.expect("the automatic schedule times the CPU");
    assert!(probe.trees > 0 && probe.trees < sources.len() && probe.trees_per_s > 0.0, "{probe:?}");
    let p = plan(&g, &sources, &opts, &measured);
    let again = plan(&g, &sources, &opts, &measured);
    assert_eq!((p.method, p.done, p.decision.clone()), (again.method, again.done, again.decision.clone()));
    assert_eq!(p.done, probe.trees);
    let out = p.run(&g, &sources, &mut keep).unwrap();
    assert_eq!(out.cpu_trees + out.gpu_trees, sources.len(), "{out:?}");
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.as_deref(), Some(want(sources[i]).as_slice()), "source {i}");
    }
    assert!(matches!(p.run(&g, &sources[1..], |_| {}), Err(SsspError::InvalidParameter(_))));

    // Nothing measured: the CPU, and the reason says why.
    let blind = plan(&g, &sources, &opts, &Measurements::default());
    assert!(matches!(blind.placement, Placement::Cpu) && blind.method == Method::Trees);
    assert!(blind.decision.unwrap().reason.contains("not measured"));

    // GPU measurements given by hand (no tuning): the plan places the trees there, the run follows it.
    for_each_context("plan_from_given_measurements", |ctx| {
        let config = BatchConfig::for_graph(ctx, &g);
        let m = Measurements {
            devices: vec![ctx],
            gpus: vec![TunedGpu { device: ctx, config, trees_per_s: None }],
            ..Default::default()
        };
        let opts =
            ManyOptions { backend: Backend::Gpu(ctx), schedule: Schedule::Single, ..Default::default() };
        let p = plan(&g, &sources, &opts, &m);
        match &p.placement {
            Placement::Gpus { devices, schedule } => {
                assert_eq!((devices.len(), devices[0].1, *schedule), (1, Some(config), Schedule::Single))
            }
            other => panic!("expected the GPU, got {other:?}"),
        }
        let mut seen = 0;
        let out = p
            .run(&g, &sources, |b| {
                for (i, row) in b.dist.chunks(b.n).enumerate() {
                    assert_eq!(row, want(b.sources[i]).as_slice());
                    seen += 1;
                }
            })
            .unwrap();
        assert_eq!((seen, out.gpu_trees, out.gpu_config), (sources.len(), sources.len(), Some(config)));
    });
}
