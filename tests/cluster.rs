//! The cluster layer (`urbanflow::cluster`, crate urbanflow-mpi).
//!
//! On one process (`Solo`, always): checksums equal the single-process library's, checkpoints skip
//! completed blocks and refuse another job's directory, written rows equal the distance matrix, the
//! distributed loader equals the CPU loader bit for bit.
//!
//! With the `mpi` feature (CI builds it): `urbanflow cluster trees` and `cluster assign` under
//! `mpirun -np 2` (oversubscribed on the 2-core CI machine) against single-process results computed
//! here — checksums, flows bit for bit on the CPU and on the GPU (lavapipe), a job aborted after half
//! its blocks and restarted, and a failing rank ending the job with its error.

use std::path::{Path, PathBuf};

use urbanflow::Backend;
use urbanflow::cluster::Solo;
use urbanflow::cluster::many::{DistOptions, many_to_all};
use urbanflow::graph::io::{LoadOptions, load_graph};
use urbanflow::sssp::UNREACHABLE;
use urbanflow::sssp::many::{ManyOptions, Schedule, many_to_all_with};
use urbanflow::sssp::matrix::{MatrixOptions, distance_matrix};
use urbanflow::tap::{AssignOptions, CostFactors, Demand, Network, Stop, assign};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn small_road() -> urbanflow::Csr<u32> {
    load_graph(repo().join("examples/data/small-road.gr.gz"), &LoadOptions::default()).unwrap().graph
}

/// The single-process checksum: every reached distance of every tree, mod 2^64.
fn reference_checksum(g: &urbanflow::Csr<u32>, sources: &[u32]) -> u64 {
    let opts = ManyOptions { backend: Backend::Cpu, schedule: Schedule::Single, ..Default::default() };
    let mut sum = 0u64;
    many_to_all_with(g, sources, &opts, |b| {
        sum = b.dist.iter().filter(|&&d| d != UNREACHABLE).fold(sum, |s, &d| s.wrapping_add(d as u64));
    })
    .unwrap();
    sum
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("urbanflow-cluster-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn solo_checksum_checkpoint_and_rows() {
    let g = small_road();
    let sources: Vec<u32> = (0..g.num_vertices()).step_by(7).collect();
    let want = reference_checksum(&g, &sources);
    let ckpt = temp_dir("solo-ckpt");
    let rows = temp_dir("solo-rows");
    let targets: Vec<u32> = (0..g.num_vertices()).step_by(11).collect();
    let opts = DistOptions {
        block: Some(10),
        checkpoint: Some(ckpt.clone()),
        rows_dir: Some(rows.clone()),
        targets: Some(&targets),
        many: ManyOptions { backend: Backend::Cpu, ..Default::default() },
        ..Default::default()
    };
    let mut rounds = 0;
    let first = many_to_all(&Solo, &g, &sources, &opts, |_| rounds += 1).unwrap();
    assert_eq!((first.checksum, first.trees), (want, sources.len() as u64));
    assert_eq!(first.blocks, sources.len().div_ceil(10));
    assert_eq!((first.blocks_computed, first.blocks_skipped), (first.blocks, 0));
    assert_eq!(rounds, first.blocks, "one progress report per round");
    // The rows written per block are the distance matrix's.
    let cpu = MatrixOptions { backend: Backend::Cpu, ..Default::default() };
    let m = distance_matrix(&g, &sources, &targets, &cpu).unwrap().matrix;
    for b in 0..first.blocks {
        let bytes = std::fs::read(rows.join(format!("block-{b:08}.u32"))).unwrap();
        let got: Vec<u32> =
            bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        let lo = b * 10 * targets.len();
        assert_eq!(got, m.data[lo..lo + got.len()], "block {b}");
    }
    // A restart skips everything; losing some records recomputes exactly those.
    let again = many_to_all(&Solo, &g, &sources, &opts, |_| {}).unwrap();
    assert_eq!((again.checksum, again.blocks_computed, again.blocks_skipped), (want, 0, first.blocks));
    for b in [1, 4] {
        std::fs::remove_file(ckpt.join(format!("block-{b:08}.done"))).unwrap();
    }
    let partial = many_to_all(&Solo, &g, &sources, &opts, |_| {}).unwrap();
    assert_eq!((partial.checksum, partial.blocks_computed), (want, 2));
    assert_eq!(partial.trees_per_rank, vec![20]);
    // Another job's directory is refused, naming the file.
    let other = DistOptions { block: Some(9), ..opts.clone() };
    let e = many_to_all(&Solo, &g, &sources, &other, |_| {}).unwrap_err().to_string();
    assert!(e.contains("another job") && e.contains("job"), "{e}");
    // A damaged record is an error, not a silent skip.
    std::fs::write(ckpt.join("block-00000000.done"), "12 x").unwrap();
    let e = many_to_all(&Solo, &g, &sources, &opts, |_| {}).unwrap_err().to_string();
    assert!(e.contains("block-00000000.done") && e.contains("expected"), "{e}");
    let bad = DistOptions { block: Some(0), ..DistOptions::default() };
    assert!(many_to_all(&Solo, &g, &sources, &bad, |_| {}).is_err());
    let _ = (std::fs::remove_dir_all(&ckpt), std::fs::remove_dir_all(&rows));
}

#[test]
fn solo_distributed_loader_equals_the_cpu_loader() {
    use urbanflow::cluster::assign::DistributedAon;
    use urbanflow::tap::assign_with_loader;
    let dir = repo().join("examples/data");
    let net = Network::read_tntp(dir.join("SiouxFalls_net.tntp"), CostFactors::default()).unwrap();
    let demand = Demand::read_tntp(dir.join("SiouxFalls_trips.tntp"), &net).unwrap();
    let opts = AssignOptions {
        stop: Stop { relative_gap: 1e-6, max_iterations: 400, ..Stop::default() },
        ..AssignOptions::default()
    };
    let want = assign(&net, &demand, &opts).unwrap();
    let mut loader = DistributedAon::cpu(&Solo, &net, &demand, false);
    let got = assign_with_loader(&net, &demand, &opts, &mut loader, |_| {}).unwrap();
    assert_eq!(got.flows, want.flows);
    assert_eq!(got.history.len(), want.history.len());
    assert_eq!(loader.calls, want.history.len() + 1, "the free-flow loading, then one per iteration");
}

/// `mpirun … urbanflow cluster <command>` with what running as root in a container needs (the
/// command built with its `mpi` feature: `cargo test --features urbanflow/mpi,urbanflow-cli/mpi`).
#[cfg(feature = "mpi")]
fn mpirun(ranks: usize, command: &str, args: &[&str]) -> std::process::Output {
    let exe = std::env::current_exe().unwrap();
    let bin =
        exe.parent().unwrap().parent().unwrap().join(format!("urbanflow{}", std::env::consts::EXE_SUFFIX));
    assert!(bin.exists(), "{} not built (cargo test --workspace builds it)", bin.display());
    let out = std::process::Command::new("mpirun")
        .args(["-np", &ranks.to_string(), "--oversubscribe", "--bind-to", "none"])
        .arg(&bin)
        .args(["cluster", command])
        .args(args)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
        .output()
        .expect("mpirun (the mpi feature needs OpenMPI or MPICH installed)");
    eprintln!("mpirun -np {ranks} urbanflow cluster {command} {}: {}", args.join(" "), out.status);
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("unrecognized subcommand 'cluster'"),
        "the urbanflow command was built without its `mpi` feature (add urbanflow-cli/mpi)"
    );
    out
}

#[cfg(feature = "mpi")]
fn json_of(out: &std::process::Output) -> serde_json::Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().rev().find(|l| l.starts_with('{')).unwrap_or_else(|| {
        panic!("no JSON; stdout {stdout}\nstderr {}", String::from_utf8_lossy(&out.stderr))
    });
    serde_json::from_str(line).unwrap()
}

#[cfg(feature = "mpi")]
#[test]
fn mpi_two_ranks_give_the_single_process_checksum_and_survive_a_restart() {
    let g = small_road();
    let graph = repo().join("examples/data/small-road.gr.gz");
    let graph = graph.to_str().unwrap();
    let common = ["--graph", graph, "--sources", "all", "--backend", "cpu", "--threads", "1", "--json"];
    let all: Vec<u32> = (0..g.num_vertices()).collect();
    let want = reference_checksum(&g, &all);
    let out = mpirun(2, "trees", &[&common[..], &["--block", "64"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j = json_of(&out);
    assert_eq!(j["ranks"], 2);
    assert_eq!(j["checksum"].as_u64().unwrap(), want);
    assert_eq!(j["trees"].as_u64().unwrap(), g.num_vertices() as u64);
    let per_rank: Vec<u64> =
        j["trees_per_rank"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert!(per_rank.len() == 2 && per_rank.iter().all(|&t| t > 0), "{per_rank:?}");

    // Killed (MPI abort) once half the blocks are done, then restarted: same checksum, and only the
    // blocks without a record are computed again.
    let ckpt = temp_dir("mpi-ckpt");
    let ck = ckpt.to_str().unwrap();
    let blocks = (g.num_vertices() as usize).div_ceil(32);
    let half = (blocks / 2).to_string();
    let args = [&common[..], &["--block", "32", "--checkpoint", ck]].concat();
    let killed = mpirun(2, "trees", &[&args[..], &["--abort-after-blocks", &half]].concat());
    assert!(!killed.status.success(), "the aborted job must fail");
    let recorded = std::fs::read_dir(&ckpt)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "done"))
        .count();
    assert!(recorded >= blocks / 2 && recorded < blocks, "{recorded} of {blocks} blocks recorded");
    let restarted = mpirun(2, "trees", &args);
    assert!(restarted.status.success(), "{}", String::from_utf8_lossy(&restarted.stderr));
    let j = json_of(&restarted);
    assert_eq!(j["checksum"].as_u64().unwrap(), want);
    assert_eq!(j["blocks_skipped"].as_u64().unwrap() as usize, recorded);
    assert_eq!(j["blocks_computed"].as_u64().unwrap() as usize, blocks - recorded);

    // A failure (here: a checkpoint directory of another job) ends every rank with the error.
    let other = mpirun(2, "trees", &[&common[..], &["--block", "33", "--checkpoint", ck]].concat());
    assert!(!other.status.success());
    let err = String::from_utf8_lossy(&other.stderr);
    assert!(err.contains("written by another job"), "{err}");
    let _ = std::fs::remove_dir_all(&ckpt);
}

#[cfg(feature = "mpi")]
fn flows_of(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[cfg(feature = "mpi")]
#[test]
fn mpi_assignment_flows_equal_the_single_process_run_bit_for_bit() {
    use urbanflow::tap::output::write_flows_csv;
    let dir = repo().join("examples/data");
    let net_path = dir.join("SiouxFalls_net.tntp");
    let net = Network::read_tntp(&net_path, CostFactors::default()).unwrap();
    let demand = Demand::read_tntp(dir.join("SiouxFalls_trips.tntp"), &net).unwrap();
    let stop = Stop { relative_gap: 1e-6, max_iterations: 300, ..Stop::default() };
    let out_dir = temp_dir("mpi-assign");
    std::fs::create_dir_all(&out_dir).unwrap();
    // CPU loading, 2 and 3 ranks.
    let cpu = assign(&net, &demand, &AssignOptions { stop, ..AssignOptions::default() }).unwrap();
    let want = out_dir.join("single.csv");
    write_flows_csv(&want, &net, &cpu.flows, &cpu.costs).unwrap();
    for ranks in [2, 3] {
        let got = out_dir.join(format!("cpu{ranks}.csv"));
        let out = mpirun(
            ranks,
            "assign",
            &[
                "--gap",
                "1e-6",
                "--max-iters",
                "300",
                "--threads",
                "1",
                "--json",
                "--flows-out",
                got.to_str().unwrap(),
            ],
        );
        // 300 iterations do not reach 1e-6 on Sioux Falls: every rank exits with 2 (a missed target),
        // exactly when the single process stops unconverged too.
        let want_code = if cpu.converged { 0 } else { 2 };
        assert_eq!(out.status.code(), Some(want_code), "{}", String::from_utf8_lossy(&out.stderr));
        let j = json_of(&out);
        assert_eq!(j["converged"].as_bool(), Some(cpu.converged));
        assert_eq!(j["iterations"].as_u64().unwrap() as usize, cpu.history.len());
        assert_eq!(flows_of(&got), flows_of(&want), "{ranks} ranks, CPU loading");
    }
    // GPU loading (lavapipe in CI), 2 ranks, against one GPU in this process.
    urbanflow::gpu::testing::for_each_context("mpi_gpu_assignment", |ctx| {
        if !std::ptr::eq(ctx, &urbanflow::gpu::testing::contexts()[0]) {
            return;
        }
        let opts = AssignOptions { stop, backend: Backend::Gpu(ctx), ..AssignOptions::default() };
        let one = assign(&net, &demand, &opts).unwrap();
        let want = out_dir.join("gpu1.csv");
        write_flows_csv(&want, &net, &one.flows, &one.costs).unwrap();
        let got = out_dir.join("gpu2.csv");
        let out = mpirun(
            2,
            "assign",
            &[
                "--gap",
                "1e-6",
                "--max-iters",
                "300",
                "--gpus",
                "0",
                "--json",
                "--flows-out",
                got.to_str().unwrap(),
            ],
        );
        let want_code = if one.converged { 0 } else { 2 };
        assert_eq!(out.status.code(), Some(want_code), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(flows_of(&got), flows_of(&want), "2 ranks, GPU loading");
    });
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn solo_distributed_dist_equals_the_cpu_engine() {
    use urbanflow::cluster::overlay::DistributedDist;
    use urbanflow::overlay::dist::{CpuEngine, subgradient_dist_with};
    use urbanflow::overlay::generator::{Family, generate};
    use urbanflow::overlay::{DistParams, Silent};
    for (n, family, seed) in [(30, Family::A, 1), (60, Family::B, 2)] {
        let inst = generate(n, family, 14.0, seed);
        let p = DistParams { ext_iters: 60, ..DistParams::default() };
        let one =
            subgradient_dist_with(&inst, &p, None, &mut CpuEngine::rayon(&inst, &p), &mut Silent).unwrap();
        let mut engine = DistributedDist::new(&Solo, &inst, &p);
        let many = subgradient_dist_with(&inst, &p, None, &mut engine, &mut Silent).unwrap();
        assert_eq!(one.bound.to_bits(), many.bound.to_bits(), "n = {n}");
        assert_eq!(one.lambda, many.lambda);
        assert_eq!(one.local_sum.map(f64::to_bits), many.local_sum.map(f64::to_bits));
        assert_eq!(one.history.len(), many.history.len());
    }
}

/// Three ranks as threads (`LocalComm`): the multi-rank logic of every distributed algorithm, without
/// MPI — checksums, flows and bounds equal the single process's bit for bit.
#[test]
fn three_local_ranks_equal_one_process() {
    use urbanflow::cluster::LocalComm;
    use urbanflow::cluster::assign::DistributedAon;
    use urbanflow::cluster::overlay::DistributedDist;
    use urbanflow::overlay::dist::{CpuEngine, subgradient_dist_with};
    use urbanflow::overlay::generator::{Family, generate};
    use urbanflow::overlay::{DistParams, Silent};
    use urbanflow::tap::assign_with_loader;

    let g = small_road();
    let sources: Vec<u32> = (0..g.num_vertices()).step_by(3).collect();
    let want = reference_checksum(&g, &sources);
    let opts = DistOptions {
        block: Some(17),
        many: ManyOptions { backend: Backend::Cpu, ..Default::default() },
        ..Default::default()
    };
    let reports = LocalComm::run(3, |c| many_to_all(c, &g, &sources, &opts, |_| {}).unwrap());
    for r in &reports {
        assert_eq!((r.checksum, r.trees, r.ranks), (want, sources.len() as u64, 3));
        assert_eq!(r.trees_per_rank.iter().sum::<u64>(), sources.len() as u64);
        assert!(r.trees_per_rank.iter().all(|&t| t > 0));
    }

    let dir = repo().join("examples/data");
    let net = Network::read_tntp(dir.join("SiouxFalls_net.tntp"), CostFactors::default()).unwrap();
    let demand = Demand::read_tntp(dir.join("SiouxFalls_trips.tntp"), &net).unwrap();
    let aopts = AssignOptions {
        stop: Stop { relative_gap: 1e-7, max_iterations: 300, ..Stop::default() },
        ..AssignOptions::default()
    };
    let single = assign(&net, &demand, &aopts).unwrap();
    for ranks in [2, 3, 5] {
        let flows = LocalComm::run(ranks, |c| {
            let mut loader = DistributedAon::cpu(c, &net, &demand, false);
            assign_with_loader(&net, &demand, &aopts, &mut loader, |_| {}).unwrap().flows
        });
        for f in flows {
            assert_eq!(f, single.flows, "{ranks} ranks");
        }
    }

    let inst = generate(50, Family::A, 14.0, 3);
    let p = DistParams { ext_iters: 40, ..DistParams::default() };
    let one = subgradient_dist_with(&inst, &p, None, &mut CpuEngine::rayon(&inst, &p), &mut Silent).unwrap();
    let bounds = LocalComm::run(3, |c| {
        let mut engine = DistributedDist::new(c, &inst, &p);
        subgradient_dist_with(&inst, &p, None, &mut engine, &mut Silent).unwrap()
    });
    for b in bounds {
        assert_eq!(b.bound.to_bits(), one.bound.to_bits());
        assert_eq!(b.lambda, one.lambda);
        assert_eq!(b.local_sum.map(f64::to_bits), one.local_sum.map(f64::to_bits));
    }
}

/// Turns across ranks (issue 36): `urbanflow cluster assign --turns` on two ranks gives the single-process flows of
/// the expanded network bit for bit, in the network's own links.
#[cfg(feature = "mpi")]
#[test]
fn mpi_assignment_with_turns_equals_the_single_process_run() {
    use urbanflow::tap::output::write_flows_csv;
    use urbanflow::tap::turns::{TurnNetwork, TurnTable};
    let dir = repo().join("examples/data");
    let net = Network::read_tntp(dir.join("SiouxFalls_net.tntp"), CostFactors::default()).unwrap();
    let demand = Demand::read_tntp(dir.join("SiouxFalls_trips.tntp"), &net).unwrap();
    let out_dir = temp_dir("mpi-turns");
    std::fs::create_dir_all(&out_dir).unwrap();
    let turns = out_dir.join("sf_turns.tntp");
    std::fs::write(&turns, "<U-TURNS> ban\n<END OF METADATA>\n9,10 10,15 ban ;\n17,16 16,8 2.5 ;\n").unwrap();
    let expanded = TurnNetwork::build(&net, &TurnTable::read(&turns, &net).unwrap()).unwrap();
    let stop = Stop { relative_gap: 1e-4, max_iterations: 300, ..Stop::default() };
    let one =
        assign(&expanded.network, &demand, &AssignOptions { stop, ..AssignOptions::default() }).unwrap();
    let want = out_dir.join("single.csv");
    write_flows_csv(&want, &net, expanded.link_flows(&one.flows), expanded.link_flows(&one.costs)).unwrap();
    let got = out_dir.join("two.csv");
    let out = mpirun(
        2,
        "assign",
        &[
            "--turns",
            turns.to_str().unwrap(),
            "--gap",
            "1e-4",
            "--max-iters",
            "300",
            "--threads",
            "1",
            "--json",
            "--flows-out",
            got.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(json_of(&out)["turns"].as_str().unwrap().contains("2 turns listed"));
    assert_eq!(flows_of(&got), flows_of(&want));
    let _ = std::fs::remove_dir_all(&out_dir);
}
