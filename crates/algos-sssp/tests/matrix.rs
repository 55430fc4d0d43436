//! The one matrix API: every engine gives Dijkstra's distances bit for bit, on the CPU and (with the
//! `gpu` feature) on every GPU adapter; the automatic choice takes the engine its rule names and says why; impossible requests are
//! typed errors.

use algos_sssp::cch::Cch;
use algos_sssp::matrix::{Engine, MatrixOptions, distance_matrix, engine_for};
use algos_sssp::{Algorithm, Query, SsspError, solve};
use gpu_runtime::Backend;
#[cfg(feature = "gpu")]
use gpu_runtime::testing::for_each_context;
use graph_core::Csr;
use graph_core::generators::{grid_2d, random_graph_with, random_weights};
use graph_core::rng::SplitMix64;

fn dijkstra_rows(g: &Csr<u32>, origins: &[u32], destinations: &[u32]) -> Vec<u32> {
    origins
        .iter()
        .flat_map(|&s| {
            let d = solve(g, &Query::from(s), Algorithm::Dijkstra, Backend::Cpu).unwrap().dist;
            destinations.iter().map(move |&t| d[t as usize]).collect::<Vec<_>>()
        })
        .collect()
}

/// Random graphs (zero weights, parallel arcs, unreachable pairs) and a weighted grid: each engine,
/// asked by name, on the CPU and on every adapter, with and without a hierarchy given.
#[test]
fn every_engine_equals_dijkstra() {
    let mut rng = SplitMix64::new(91);
    let mut graphs: Vec<Csr<u32>> = (0..8)
        .map(|seed| {
            let n = 2 + rng.below(70) as u32;
            let m = rng.below(3 * n as u64 + 1) as u32;
            random_graph_with(seed, n, m, |r| if r.below(5) == 0 { 0 } else { 1 + r.below(60) as u32 })
                .unwrap()
        })
        .collect();
    graphs.push(random_weights(&grid_2d(9, 11), 1, 500, 4).unwrap());
    for (k, g) in graphs.iter().enumerate() {
        let n = g.num_vertices() as u64;
        let origins: Vec<u32> = (0..1 + rng.below(12)).map(|_| rng.below(n) as u32).collect();
        let destinations: Vec<u32> = (0..rng.below(15)).map(|_| rng.below(n) as u32).collect();
        let want = dijkstra_rows(g, &origins, &destinations);
        let ch = Cch::build(g).unwrap().customise(g.weights()).unwrap();
        let check = |opts: MatrixOptions<'_>, what: &str| {
            let run = distance_matrix(g, &origins, &destinations, &opts).unwrap();
            assert_eq!(run.matrix.data, want, "graph {k}: {what}");
            assert_eq!(
                (run.matrix.sources.as_slice(), run.matrix.targets.as_slice()),
                (&origins[..], &destinations[..])
            );
            assert_ne!(run.engine, Engine::Auto);
            run
        };
        for engine in [Engine::Auto, Engine::Trees, Engine::Buckets, Engine::FloydWarshall] {
            let cpu = MatrixOptions { backend: Backend::Cpu, engine, ..Default::default() };
            let run = check(cpu, &format!("{engine} on the CPU"));
            assert!(run.device.is_none());
            if engine == Engine::Buckets {
                assert!(run.hierarchy.starts_with("cch"), "{}", run.hierarchy);
                let given = check(MatrixOptions { hierarchy: Some(&ch), ..cpu }, "buckets, hierarchy given");
                assert_eq!(given.hierarchy, "given");
            }
        }
        let at_hand =
            check(MatrixOptions { hierarchy: Some(&ch), ..Default::default() }, "auto, hierarchy given");
        assert_eq!(at_hand.engine, Engine::Buckets, "{}", at_hand.reason);
        // Without the `gpu` feature the CPU engines above are the whole test.
        #[cfg(feature = "gpu")]
        for_each_context("every matrix engine on the GPU", |ctx| {
            for engine in [Engine::Trees, Engine::MinPlus, Engine::FloydWarshall] {
                let gpu = MatrixOptions { backend: Backend::Gpu(ctx), engine, ..Default::default() };
                let run = check(gpu, &format!("{engine} on {}", ctx.info.name));
                assert_eq!(run.device.as_deref(), Some(ctx.info.name.as_str()), "{engine}");
                assert_eq!(run.gpu_times.is_some(), engine == Engine::MinPlus);
            }
            // A hierarchy at hand and a GPU named: the automatic choice is the min-plus product.
            let named =
                MatrixOptions { backend: Backend::Gpu(ctx), hierarchy: Some(&ch), ..Default::default() };
            assert_eq!(check(named, "auto on a named GPU").engine, Engine::MinPlus);
        });
    }
}

/// The automatic choice follows `auto::matrix_hierarchy_pays` and says so; graphs without small
/// separators keep the trees; impossible requests are typed errors.
#[test]
fn the_automatic_engine_and_the_errors() {
    use algos_sssp::auto::MATRIX_MIN_ORIGINS_TO_BUILD;
    // Weights drawn from the process id: a graph whose hierarchy order no earlier run has cached.
    let g = random_weights(&grid_2d(20, 20), 1, 100, std::process::id() as u64).unwrap();
    let cpu = MatrixOptions { backend: Backend::Cpu, ..Default::default() };
    let (few, why) = engine_for(&g, 3, &cpu);
    assert_eq!(few, Engine::Trees, "{why}");
    assert!(why.contains("matrix_hierarchy_pays"), "{why}");
    let (many, why) = engine_for(&g, MATRIX_MIN_ORIGINS_TO_BUILD, &cpu);
    assert_eq!(many, Engine::Buckets, "{why}");
    let origins: Vec<u32> =
        (0..MATRIX_MIN_ORIGINS_TO_BUILD as u32).map(|i| (i * 3) % g.num_vertices()).collect();
    let run = distance_matrix(&g, &origins, &[0, 399, 17], &cpu).unwrap();
    assert_eq!(run.engine, Engine::Buckets);
    assert_eq!(run.matrix.data, dijkstra_rows(&g, &origins, &[0, 399, 17]));
    // A dense graph: no hierarchy, whatever the count.
    let dense = random_graph_with(3, 60, 600, |r| 1 + r.below(9) as u32).unwrap();
    let (e, why) = engine_for(&dense, 10_000, &cpu);
    assert_eq!(e, Engine::Trees, "{why}");
    assert!(why.contains("denser"), "{why}");

    let n = g.num_vertices();
    assert!(matches!(distance_matrix(&g, &[n], &[0], &cpu), Err(SsspError::SourceOutOfRange { .. })));
    assert!(matches!(distance_matrix(&g, &[0], &[n], &cpu), Err(SsspError::TargetOutOfRange { .. })));
    let other = Cch::build(&grid_2d(3, 3)).unwrap().customise(grid_2d(3, 3).weights()).unwrap();
    let wrong = MatrixOptions { hierarchy: Some(&other), ..cpu };
    assert!(matches!(distance_matrix(&g, &[0], &[1], &wrong), Err(SsspError::InvalidParameter(_))));
    // The min-plus product needs a GPU; the CPU backend has none.
    let min_plus = MatrixOptions { engine: Engine::MinPlus, ..cpu };
    match distance_matrix(&g, &[0], &[1], &min_plus) {
        Err(SsspError::InvalidParameter(m)) => assert!(m.contains("GPU"), "{m}"),
        other => panic!("expected an error, got {other:?}"),
    }
    // Real weights run the trees only.
    let mut b = graph_core::GraphBuilder::<f64>::new(2);
    b.add_arc(0, 1, 0.5);
    let real = b.build().unwrap().0;
    let buckets = MatrixOptions { engine: Engine::Buckets, ..cpu };
    assert!(matches!(distance_matrix(&real, &[0], &[1], &buckets), Err(SsspError::InvalidParameter(_))));
    assert_eq!("min-plus".parse::<Engine>(), Ok(Engine::MinPlus));
    assert!("fastest".parse::<Engine>().is_err());
}
