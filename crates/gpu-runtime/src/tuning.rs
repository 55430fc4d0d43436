//! Launch settings chosen by short measurements, remembered across processes (spec batched-apsp.md
//! §4: the seed's occupancy rules need hardware counters WebGPU does not expose, so the portable form
//! is to time a few candidates).
//!
//! Every measurement (seconds per unit of work of one candidate) is kept for the process and written
//! to a small text file in the user's cache directory ([`cache_file`]), keyed by adapter and driver
//! ([`adapter_key`]), kernel and kernel version, and the problem (for example a graph fingerprint). A
//! later process reads it back instead of measuring again, and a search cut short by its time budget
//! ([`tune_within`]) goes on where it stopped.
//!
//! `URBANFLOW_TUNE`: unset or `on` measures what is not cached; `off` never measures and takes the
//! first candidate (the kernel's portable default); `refresh` ignores what is stored and measures
//! again (the new values replace the old). `URBANFLOW_CACHE_DIR` moves the cache file's folder.
//!
//! ```
//! use urbanflow::gpu::tuning::{LaunchConfig, tuned};
//! # let key = ("doc adapter", "doc kernel v1", "n=10 (doc example, not stored)");
//! let candidates = [LaunchConfig { workgroup_size: 64, batch: 8, param: 1 }, LaunchConfig { workgroup_size: 128, batch: 8, param: 1 }];
//! // The measurement returns seconds per unit of work; the fastest candidate wins and is remembered.
//! let best = tuned(key, &candidates, |c| Ok::<f64, ()>(1.0 / c.workgroup_size as f64)).unwrap();
//! assert_eq!(best.workgroup_size, 128);
//! let again = tuned(key, &candidates, |_| -> Result<f64, ()> { panic!("cached, not measured again") }).unwrap();
//! assert_eq!(again, best);
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

#[cfg(feature = "gpu")]
use crate::context::GpuContext;

/// One launch setting of a kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    /// Invocations per workgroup.
    pub workgroup_size: u32,
    /// Independent problems (sources, tiles) per dispatch.
    pub batch: u32,
    /// A kernel-specific knob (for example a bucket width).
    pub param: u32,
}

impl LaunchConfig {
    fn key(&self) -> String {
        format!("wg={} batch={} param={}", self.workgroup_size, self.batch, self.param)
    }
}

/// What `URBANFLOW_TUNE` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TuneMode {
    /// Measure what is not cached (default; `on`).
    On,
    /// Never measure: first candidate (`off` or `0`).
    Off,
    /// Ignore stored measurements and measure again (`refresh`).
    Refresh,
}

/// The mode from `URBANFLOW_TUNE`; an unknown value is reported once on stderr and read as `on`.
pub fn mode() -> TuneMode {
    static MODE: OnceLock<TuneMode> = OnceLock::new();
    *MODE.get_or_init(|| match std::env::var("URBANFLOW_TUNE").as_deref().map(str::trim) {
        Err(_) | Ok("" | "on" | "1") => TuneMode::On,
        Ok("off" | "0") => TuneMode::Off,
        Ok("refresh") => TuneMode::Refresh,
        Ok(other) => {
            eprintln!("urbanflow: URBANFLOW_TUNE=`{other}` is not on, off or refresh; measuring as with on");
            TuneMode::On
        }
    })
}

/// Whether measuring is allowed (`URBANFLOW_TUNE` is not `off`).
pub fn enabled() -> bool {
    mode() != TuneMode::Off
}

/// The cache key naming an adapter: name, driver and backend.
#[cfg(feature = "gpu")]
pub fn adapter_key(ctx: &GpuContext) -> String {
    format!("{} | {} {} | {:?}", ctx.info.name, ctx.info.driver, ctx.info.driver_info, ctx.info.backend)
}

/// A kernel's version for cache keys: a hash of its WGSL source, so an edited kernel is measured anew.
pub fn kernel_version(wgsl: &str) -> String {
    format!("{:016x}", fingerprint_bytes(wgsl.as_bytes()))
}

/// A 64-bit fingerprint of `words` (for graph arrays in cache keys); not cryptographic.
pub fn fingerprint_words(words: &[u32]) -> u64 {
    fingerprint_bytes(bytemuck::cast_slice(words))
}

/// A 64-bit fingerprint of `bytes` (file contents in cache keys, cache payloads); not cryptographic.
pub fn fingerprint_bytes(bytes: &[u8]) -> u64 {
    // Eight bytes at a time through a multiply–xorshift mix (splitmix64's finaliser): fast enough to
    // run over a 55M-arc graph in a fraction of a tuning measurement.
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let mut h = 0x9e37_79b9_7f4a_7c15u64 ^ bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        h = mix(h ^ u64::from_le_bytes(c.try_into().unwrap_or_default()));
    }
    let mut tail = [0u8; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    mix(h ^ u64::from_le_bytes(tail))
}

/// The cache file: `$URBANFLOW_CACHE_DIR/tuning-v1.tsv`, else `urbanflow/tuning-v1.tsv` in the user's
/// cache directory (`$XDG_CACHE_HOME` or `~/.cache` on Linux, `~/Library/Caches` on macOS,
/// `%LOCALAPPDATA%` on Windows); `None` when there is no such directory.
pub fn cache_file() -> Option<PathBuf> {
    Some(cache_dir()?.join("tuning-v1.tsv"))
}

/// urbanflow's cache folder: `$URBANFLOW_CACHE_DIR`, else `urbanflow` in the user's cache directory
/// (see [`cache_file`]); `None` when there is no such directory. Not created here.
pub fn cache_dir() -> Option<PathBuf> {
    match std::env::var_os("URBANFLOW_CACHE_DIR") {
        Some(d) if !d.is_empty() => Some(PathBuf::from(d)),
        _ => Some(dirs::cache_dir()?.join("urbanflow")),
    }
}

/// Writes `bytes` to `path` all or nothing: into a temporary file beside it (its folder created), then
/// renamed into place, so a concurrent reader sees the old file or the new one, never half of one; the
/// temporary file is removed when a step fails. Every cache and checkpoint file is written this way. Not
/// synced to disk (a checkpoint's block files can be large): after a power cut a file may be empty,
/// which every reader refuses (checksums, or an empty tuning store: measured again).
pub fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let written = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        std::fs::remove_file(&tmp).ok();
    }
    written
}

/// A measurement store in a text file: one `key<TAB>value` line per entry. Unreadable files and
/// malformed lines count as absent entries; writes replace the file atomically (write, then rename), so
/// concurrent processes never see half a file (the last writer wins).
#[derive(Debug, Clone)]
pub struct DiskCache {
    path: PathBuf,
}

impl DiskCache {
    /// A store in `path` (created on the first write).
    pub fn at(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// The store in [`cache_file`].
    pub fn user() -> Option<Self> {
        cache_file().map(Self::at)
    }

    /// Its file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every entry.
    pub fn entries(&self) -> HashMap<String, String> {
        let Ok(text) = std::fs::read_to_string(&self.path) else { return HashMap::new() };
        text.lines().filter_map(|l| l.split_once('\t')).map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    /// The value stored under `key`.
    pub fn get(&self, key: &str) -> Option<String> {
        self.entries().remove(&clean(key))
    }

    /// Stores `value` under `key` (tabs and line breaks in either become spaces).
    pub fn put(&self, key: &str, value: &str) -> std::io::Result<()> {
        let mut all = self.entries();
        all.insert(clean(key), clean(value));
        let mut lines: Vec<String> = all.into_iter().map(|(k, v)| format!("{k}\t{v}\n")).collect();
        lines.sort();
        write_whole(&self.path, lines.concat().as_bytes())
    }
}

fn clean(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}

type Key = String;

fn memory() -> &'static Mutex<HashMap<Key, f64>> {
    static CACHE: OnceLock<Mutex<HashMap<Key, f64>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

fn disk() -> Option<&'static DiskCache> {
    static DISK: OnceLock<Option<DiskCache>> = OnceLock::new();
    DISK.get_or_init(DiskCache::user).as_ref()
}

/// Keys whose problem text says it is a documentation example or a test stay in memory.
fn persistent(key: &str) -> bool {
    !key.contains("not stored")
}

fn measurement_key((adapter, kernel, problem): (&str, &str, &str), c: &LaunchConfig) -> Key {
    clean(&format!("{adapter} || {kernel} || {problem} || {}", c.key()))
}

/// A stored measurement (seconds per unit) of `config`: this process's, else the cache file's (not
/// under `URBANFLOW_TUNE=refresh`, where only this process's count).
pub fn stored_measurement(key: (&str, &str, &str), config: &LaunchConfig) -> Option<f64> {
    let k = measurement_key(key, config);
    if let Some(&t) = memory().lock().unwrap_or_else(|e| e.into_inner()).get(&k) {
        return Some(t);
    }
    if mode() == TuneMode::Refresh || !persistent(&k) {
        return None;
    }
    let t: f64 = disk()?.get(&k)?.parse().ok().filter(|t: &f64| t.is_finite() && *t > 0.0)?;
    memory().lock().unwrap_or_else(|e| e.into_inner()).insert(k, t);
    Some(t)
}

/// Remembers a measurement for this process and in the cache file (a file that cannot be written is
/// reported once on stderr; tuning then lasts for the process only).
pub fn store_measurement(key: (&str, &str, &str), config: &LaunchConfig, seconds_per_unit: f64) {
    let k = measurement_key(key, config);
    memory().lock().unwrap_or_else(|e| e.into_inner()).insert(k.clone(), seconds_per_unit);
    if !persistent(&k) {
        return;
    }
    if let Some(d) = disk()
        && let Err(e) = d.put(&k, &format!("{seconds_per_unit:e}"))
    {
        static ONCE: OnceLock<()> = OnceLock::new();
        ONCE.get_or_init(|| {
            eprintln!(
                "urbanflow: cannot write the tuning cache {}: {e} (tuning kept in memory)",
                d.path().display()
            )
        });
    }
}

/// The outcome of [`tune_within`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tuned {
    /// The best measured candidate (the first candidate when none was measured).
    pub config: LaunchConfig,
    /// Its seconds per unit of work, when measured (now or earlier).
    pub seconds_per_unit: Option<f64>,
    /// Candidates measured by this call (0 when everything came from the cache).
    pub measured_now: usize,
    /// Candidates with no measurement yet (the budget ran out, or tuning is off).
    pub unmeasured: usize,
    /// Time this call spent measuring.
    pub spent: Duration,
}

/// Measures the candidates not measured before, in order, while the time spent stays under `budget`
/// (`None`: no limit; a measurement starts only if one as long as the longest so far still fits), and
/// returns the fastest measured so far. A measurement that fails is skipped;
/// if every attempt failed and nothing was measured before, the first error is returned. With
/// `URBANFLOW_TUNE=off` nothing is measured and stored values are still used.
///
/// # Panics
/// If `candidates` is empty (a programming error of the calling kernel, not of its input).
pub fn tune_within<E>(
    key: (&str, &str, &str),
    candidates: &[LaunchConfig],
    budget: Option<Duration>,
    mut measure: impl FnMut(LaunchConfig) -> Result<f64, E>,
) -> Result<Tuned, E> {
    let Some(&first) = candidates.first() else {
        panic!("tuning `{}` needs at least one candidate", key.1);
    };
    let started = Instant::now();
    let mut best: Option<(f64, LaunchConfig)> = None;
    let mut first_error = None;
    let (mut measured_now, mut unmeasured) = (0, 0);
    // The longest measurement so far: the next one starts only if it would, at that length, still end
    // inside the budget.
    let mut longest = Duration::ZERO;
    for c in candidates {
        let stored = stored_measurement(key, c);
        let fits = budget.is_none_or(|b| started.elapsed() + longest < b);
        let t = match stored {
            Some(t) => t,
            None if enabled() && fits => {
                let one = Instant::now();
                let r = measure(*c);
                longest = longest.max(one.elapsed());
                match r {
                    Ok(t) => {
                        measured_now += 1;
                        store_measurement(key, c, t);
                        t
                    }
                    Err(e) => {
                        first_error.get_or_insert(e);
                        continue;
                    }
                }
            }
            None => {
                unmeasured += 1;
                continue;
            }
        };
        if best.is_none_or(|(b, _)| t < b) {
            best = Some((t, *c));
        }
    }
    if let (None, Some(e)) = (best, first_error) {
        return Err(e);
    }
    Ok(Tuned {
        config: best.map_or(first, |(_, c)| c),
        seconds_per_unit: best.map(|(t, _)| t),
        measured_now,
        unmeasured,
        spent: started.elapsed(),
    })
}

/// The fastest candidate, measuring every one not measured before ([`tune_within`] without a budget).
///
/// # Panics
/// If `candidates` is empty.
pub fn tuned<E>(
    key: (&str, &str, &str),
    candidates: &[LaunchConfig],
    measure: impl FnMut(LaunchConfig) -> Result<f64, E>,
) -> Result<LaunchConfig, E> {
    tune_within(key, candidates, None, measure).map(|t| t.config)
}

/// Forgets this process's measurements (the cache file stays; delete it to forget those too).
pub fn clear() {
    memory().lock().unwrap_or_else(|e| e.into_inner()).clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disk_cache_round_trips_and_survives_garbage() {
        let dir = std::env::temp_dir().join(format!("urbanflow-tuning-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = DiskCache::at(dir.join("sub/tuning.tsv"));
        assert_eq!(cache.get("a"), None);
        cache.put("a key\twith tab", "1.5e-3").unwrap();
        cache.put("b", "2").unwrap();
        cache.put("b", "3").unwrap();
        assert_eq!(cache.get("a key with tab").as_deref(), Some("1.5e-3"));
        assert_eq!(cache.get("b").as_deref(), Some("3"));
        // A line without a tab (a hand edit, a truncated write from elsewhere) is ignored, not fatal.
        let mut text = std::fs::read_to_string(cache.path()).unwrap();
        text.push_str("garbage line\n");
        std::fs::write(cache.path(), text).unwrap();
        assert_eq!(cache.entries().len(), 2);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn budget_stops_measuring_and_a_later_call_goes_on() {
        let key = ("test adapter", "test kernel", "budget (test, not stored)");
        let cands: Vec<LaunchConfig> =
            (1..=4).map(|w| LaunchConfig { workgroup_size: w, batch: 1, param: 0 }).collect();
        // A zero budget still lets nothing through: every candidate stays unmeasured.
        let t = tune_within(key, &cands, Some(Duration::ZERO), |_| Ok::<f64, ()>(1.0)).unwrap();
        assert_eq!((t.measured_now, t.unmeasured, t.seconds_per_unit), (0, 4, None));
        assert_eq!(t.config, cands[0]);
        // Measure two, then the rest in a second call; the best over both calls wins.
        let mut calls = 0;
        let t = tune_within(key, &cands[..2], None, |c| {
            calls += 1;
            Ok::<f64, ()>(10.0 / c.workgroup_size as f64)
        })
        .unwrap();
        assert_eq!((calls, t.config.workgroup_size), (2, 2));
        let t = tune_within(key, &cands, None, |c| Ok::<f64, ()>(10.0 / c.workgroup_size as f64)).unwrap();
        assert_eq!((t.measured_now, t.config.workgroup_size), (2, 4));
        assert_eq!(t.seconds_per_unit, Some(2.5));
    }

    #[test]
    fn fingerprints_differ_and_repeat() {
        assert_eq!(fingerprint_words(&[1, 2, 3]), fingerprint_words(&[1, 2, 3]));
        assert_ne!(fingerprint_words(&[1, 2, 3]), fingerprint_words(&[1, 2, 4]));
        assert_ne!(fingerprint_words(&[]), fingerprint_words(&[0]));
        assert_ne!(kernel_version("a"), kernel_version("b"));
    }
}
