//! What the examples share: a failed run prints `error: …` on stderr and exits non-zero.

use std::path::PathBuf;
use std::process::ExitCode;

/// The exit code of `run`'s result, printing the error when there is one.
#[allow(dead_code)] // graph_stats reports its own errors
pub fn finish(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The small road graph bundled in `examples/data`: the default input of the graph examples.
#[allow(dead_code)] // not every example reads a graph
pub fn bundled_road_graph() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data/small-road.gr.gz");
    p.canonicalize().unwrap_or(p)
}

/// The GPUs of `--gpus` (none when the flag is absent); an empty selection (`all` on a machine with no
/// hardware GPU) is an error, not a silent CPU run.
#[allow(dead_code)] // only the examples with --gpus
pub fn open_gpus(
    selection: Option<&urbanflow::gpu::devices::DeviceSelection>,
) -> Result<Vec<urbanflow::gpu::GpuContext>, String> {
    let Some(sel) = selection else { return Ok(Vec::new()) };
    let devices =
        urbanflow::gpu::devices::open(sel, &Default::default()).map_err(|e| format!("--gpus {sel}: {e}"))?;
    if devices.is_empty() {
        let found = urbanflow::gpu::devices::list(&Default::default());
        return Err(format!(
            "--gpus {sel}: no hardware GPU (found: {}); name a software adapter by index to test with it",
            if found.is_empty() {
                "none".to_string()
            } else {
                found.iter().map(|a| a.to_string()).collect::<Vec<_>>().join("; ")
            }
        ));
    }
    Ok(devices)
}

/// Where loading or trees ran, for reports: the GPUs of `--gpus`, else the backend.
#[allow(dead_code)] // only the examples with --gpus
pub fn backend_name(backend: urbanflow::Backend, devices: &[urbanflow::gpu::GpuContext]) -> String {
    match devices.len() {
        0 => backend.resolve().to_string(),
        1 => format!("gpu ({})", devices[0].info.name),
        k => format!(
            "{k} gpus ({})",
            devices.iter().map(|d| d.info.name.as_str()).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// Sources of the many-source examples: `all`, `zones` (TNTP zones) or a count of distinct vertices
/// drawn with `seed` (a partial Fisher–Yates shuffle: the same vertices on every backend and rank).
#[allow(dead_code)] // only the many-source examples
pub fn pick_sources(spec: &str, n: u32, zones: Option<&[u32]>, seed: u64) -> Result<Vec<u32>, String> {
    match spec {
        "all" => Ok((0..n).collect()),
        "zones" => zones.map(<[u32]>::to_vec).ok_or(
            "--sources zones needs a TNTP _net file whose zones are nodes 1..=<NUMBER OF ZONES> \
             (sparse-id files such as Munich's are not): use all or a count"
                .into(),
        ),
        count => {
            let k: u32 =
                count.parse().map_err(|_| format!("--sources `{count}`: expected all, zones or a count"))?;
            if k > n {
                return Err(format!("--sources {k}: the graph has only {n} vertices"));
            }
            let mut rng = urbanflow::graph::rng::SplitMix64::new(seed);
            let mut all: Vec<u32> = (0..n).collect();
            for i in 0..k as usize {
                let j = i + rng.below((n as usize - i) as u64) as usize;
                all.swap(i, j);
            }
            all.truncate(k as usize);
            Ok(all)
        }
    }
}

/// Sum of the reached distances of some rows mod 2^64 (the many-source examples' checksum, equal for
/// every method, backend and rank count).
#[allow(dead_code)] // only the many-source examples
pub fn row_checksum(rows: &[u32]) -> u64 {
    use rayon::prelude::*;
    rows.par_chunks(4096)
        .map(|c| c.iter().filter(|&&d| d != u32::MAX).fold(0u64, |s, &d| s.wrapping_add(d as u64)))
        .reduce(|| 0, u64::wrapping_add)
}
