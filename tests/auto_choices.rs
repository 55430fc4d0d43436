//! Automatic choices from this machine's measurements (issue 56), run as a user runs the commands on
//! the CI machine, whose only adapter is Mesa's lavapipe: Auto never takes the software adapter by
//! default; named (`WGPU_ADAPTER_NAME`), it is calibrated, its profile is stored and read back, an
//! unreadable stored profile is reported and measured again, and assignment races it on a loading.

use std::path::Path;
use std::process::{Command, Output};

use urbanflow::graph::datasets::data_path;

mod support;

/// Runs `urbanflow <name> <args>` as a user would, with Auto and a cache folder of its own.
fn run(name: &str, args: &[&str], cache: &Path, envs: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(support::urbanflow_bin());
    cmd.arg(name)
        .args(args)
        .env("URBANFLOW_BACKEND", "auto")
        .env("URBANFLOW_CACHE_DIR", cache)
        .env("URBANFLOW_PROGRESS_SECONDS", "0")
        .env_remove("WGPU_ADAPTER_NAME")
        .env_remove("URBANFLOW_TUNE");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    eprintln!("{name} {}: {}\n{}", args.join(" "), out.status, String::from_utf8_lossy(&out.stderr));
    out
}

fn json(out: &Output) -> serde_json::Value {
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.lines().last().unwrap_or("")).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn has_hardware_gpu() -> bool {
    use urbanflow::gpu::context::auto_adapter;
    auto_adapter().found.iter().any(|a| !a.is_software())
}

fn temp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("urbanflow-auto-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn auto_never_takes_a_software_adapter_and_says_why() {
    if has_hardware_gpu() {
        eprintln!("SKIP auto_never_takes_a_software_adapter: this machine has a hardware GPU");
        return;
    }
    let cache = temp("software");
    // DIST on 1,000 nodes: 0.5–3 s on a CPU, worth a GPU if there were one.
    let out = run(
        "overlay",
        &["--generate", "n=1000,family=b,l=128,seed=2", "--method", "dist", "--iters", "20", "--json"],
        &cache,
        &[],
    );
    assert!(out.status.success());
    let j = json(&out);
    assert!(j["engine"].as_str().unwrap().starts_with("rayon"), "{j}");
    let why = j["why"].as_str().unwrap();
    assert!(why.starts_with("auto: CPU predicted") && why.contains("no GPU prediction"), "{why}");
    // Nothing was calibrated: no device was opened.
    let stored = std::fs::read_to_string(cache.join("device-profile-v1.tsv")).unwrap_or_default();
    assert!(stored.lines().all(|l| l.starts_with("cpu |")), "{stored}");
}

#[test]
fn a_named_software_adapter_is_calibrated_stored_and_raced() {
    let Some(net) =
        data_path("tntp/Chicago-Sketch/ChicagoSketch_net.tntp", "a_named_software_adapter_is_raced")
    else {
        return;
    };
    if has_hardware_gpu() {
        eprintln!("SKIP a_named_software_adapter: this test names lavapipe");
        return;
    }
    let cache = temp("named");
    let lavapipe = [("WGPU_ADAPTER_NAME", "llvmpipe")];
    // The doctor calibrates it (within the 2 s on lavapipe) and stores the profile.
    let out = run("doctor", &["--calibrate"], &cache, &lavapipe);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.starts_with("profile")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("software adapter"), "{line}");
    let secs: f64 = line.rsplit("calibrated in ").next().unwrap().trim_end_matches(" s)").parse().unwrap();
    assert!(secs < 2.0, "{line}");
    let file = cache.join("device-profile-v1.tsv");
    let stored = std::fs::read_to_string(&file).unwrap();
    assert!(stored.lines().any(|l| l.starts_with("llvmpipe") && l.contains("software=1")), "{stored}");

    // Read back, not measured again.
    let out = run("doctor", &[], &cache, &lavapipe);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("calibrating"));

    // A damaged entry is reported and measured again.
    let damaged: String = stored
        .lines()
        .map(|l| {
            if l.starts_with("llvmpipe") {
                format!("{}\tsoftware=1 open_s=oops\n", l.split('\t').next().unwrap())
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    std::fs::write(&file, damaged).unwrap();
    let out = run("doctor", &[], &cache, &lavapipe);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unreadable profile") && err.contains("calibrating"), "{err}");

    // Assignment races the named adapter on a loading and says what it measured.
    // Dijkstra trees make the CPU's loadings on 2 threads worth racing.
    let args = ["--net", net.to_str().unwrap(), "--trees", "dijkstra", "--max-iters", "4", "--json"];
    let out = run("assign", &args, &cache, &lavapipe);
    assert!(out.status.success() || out.status.code() == Some(2), "{}", out.status);
    let j = json(&out);
    let why = j["backend_why"].as_str().unwrap();
    assert!(why.starts_with("auto: raced one loading: GPU"), "{why}");
}
