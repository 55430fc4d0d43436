//! Tuning measurements persist across processes: each step below runs in a child process (this test
//! binary re-run on one test) sharing a cache folder, the way two runs of an example would.

use std::path::Path;
use std::process::Command;

use gpu_runtime::tuning::{LaunchConfig, tune_within};

const CHILD: &str = "URBANFLOW_TEST_TUNING_CHILD";

fn candidates() -> Vec<LaunchConfig> {
    (1..=3).map(|w| LaunchConfig { workgroup_size: 64 * w, batch: 1, param: 0 }).collect()
}

/// Run in a child: tunes, printing how many candidates it measured and which won.
#[test]
fn child_tunes_once() {
    let Ok(step) = std::env::var(CHILD) else { return };
    let key = ("test adapter | driver 1", "kernel@abc", "graph=persist-test");
    let t = tune_within(key, &candidates(), None, |c| Ok::<f64, ()>(1.0 / c.workgroup_size as f64)).unwrap();
    println!("RESULT {step} measured={} best={}", t.measured_now, t.config.workgroup_size);
}

fn child(dir: &Path, step: &str, tune: Option<&str>) -> String {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "child_tunes_once", "--nocapture", "--test-threads=1"])
        .env(CHILD, step)
        .env("URBANFLOW_CACHE_DIR", dir)
        .env_remove("URBANFLOW_TUNE");
    if let Some(t) = tune {
        cmd.env("URBANFLOW_TUNE", t);
    }
    let out = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{step}: {text}{}", String::from_utf8_lossy(&out.stderr));
    // The harness prints `test child_tunes_once ... ` before the child's own line.
    let marker = format!("RESULT {step} ");
    text.lines()
        .find_map(|l| l.split_once(&marker).map(|(_, r)| r.trim().to_string()))
        .unwrap_or_else(|| panic!("{step}: no result in {text}"))
}

#[test]
fn measurements_survive_the_process_and_refresh_or_off_behave() {
    if std::env::var(CHILD).is_ok() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("urbanflow-tuning-persist-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // First run measures all three; the second reads them back and measures none.
    assert_eq!(child(&dir, "first", None), "measured=3 best=192");
    assert!(dir.join("tuning-v1.tsv").exists(), "the cache file is written");
    assert_eq!(child(&dir, "second", None), "measured=0 best=192");
    // refresh measures again; off measures nothing but still uses what is stored.
    assert_eq!(child(&dir, "refresh", Some("refresh")), "measured=3 best=192");
    assert_eq!(child(&dir, "off", Some("off")), "measured=0 best=192");
    // off with nothing stored: the first candidate, unmeasured.
    let empty = dir.join("empty");
    assert_eq!(child(&empty, "off-empty", Some("off")), "measured=0 best=64");
    let _ = std::fs::remove_dir_all(&dir);
}
