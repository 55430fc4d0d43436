//! What this machine's GPU and CPU can do, measured here: the inputs of every automatic choice.
//!
//! A [`DeviceProfile`] holds the constants a GPU's cost model needs — what starting it costs (device,
//! one pipeline), what one round trip and one more dispatch cost, device memory bandwidth, the host
//! link both ways, and scattered atomic throughput — measured by [`crate::calibrate`] in about a
//! second the first time an adapter is used, then kept in `device-profile-v1.tsv` in the cache folder
//! ([`crate::tuning::cache_dir`]) under the adapter's name, backend and driver and urbanflow's version
//! (a new driver or release measures again). A [`CpuProfile`] holds the same for the CPU: the rate of a
//! reference kernel (binary-heap pushes and pops over random gathers, the inner loop of every
//! label-setting search) on one thread and on all the threads a run uses.
//!
//! Decisions never read an adapter's name: they take these numbers and the work's size
//! ([`crate::predict`]). The profile's fields are plain numbers so that tests can build synthetic
//! machines (a fast discrete GPU, a slow integrated one, a software adapter).
//!
//! ```
//! use urbanflow::gpu::profile::DeviceProfile;
//! let p = DeviceProfile::synthetic_discrete();
//! let line = p.to_line();
//! assert_eq!(DeviceProfile::from_line(&line).unwrap(), p);
//! assert!(DeviceProfile::from_line("open_s=oops").is_err());
//! ```

use std::fmt;

use crate::tuning::{DiskCache, cache_dir};

/// A GPU's measured constants. Times in seconds, rates per second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeviceProfile {
    /// True when the adapter runs shaders on the CPU (lavapipe, WARP, SwiftShader): the cores the CPU
    /// backend would use, so it never wins and Auto never takes it unless asked.
    pub software: bool,
    /// Listing the adapters (loading the drivers): the first look of a process.
    pub list_s: f64,
    /// Creating the device and queue.
    pub open_s: f64,
    /// Compiling one small compute pipeline (WGSL translation and the driver's compiler).
    pub pipeline_s: f64,
    /// One submission of one small dispatch and the wait for it: the floor of every round trip.
    pub submit_s: f64,
    /// Each further dispatch recorded in the same submission.
    pub dispatch_s: f64,
    /// Device memory bandwidth, bytes read plus bytes written per second (a copy kernel).
    pub device_bytes_per_s: f64,
    /// Host to device (a buffer write, waited for).
    pub upload_bytes_per_s: f64,
    /// Device to host (a copy into a staging buffer and its mapping).
    pub download_bytes_per_s: f64,
    /// 32-bit `atomicMin` on scattered addresses of a 4 MiB table, per second.
    pub atomics_per_s: f64,
    /// How long the calibration took.
    pub calibration_s: f64,
}

/// A profile line that cannot be read: a corrupt or foreign cache entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("device profile `{line}`: {what}")]
pub struct ProfileParseError {
    /// The line as stored.
    pub line: String,
    /// What was wrong.
    pub what: String,
}

const FIELDS: [&str; 11] = [
    "software",
    "list_s",
    "open_s",
    "pipeline_s",
    "submit_s",
    "dispatch_s",
    "device_bytes_per_s",
    "upload_bytes_per_s",
    "download_bytes_per_s",
    "atomics_per_s",
    "calibration_s",
];

impl DeviceProfile {
    fn values(&self) -> [f64; 11] {
        [
            f64::from(u8::from(self.software)),
            self.list_s,
            self.open_s,
            self.pipeline_s,
            self.submit_s,
            self.dispatch_s,
            self.device_bytes_per_s,
            self.upload_bytes_per_s,
            self.download_bytes_per_s,
            self.atomics_per_s,
            self.calibration_s,
        ]
    }

    /// `name=value` pairs separated by spaces: the cache file's format.
    pub fn to_line(&self) -> String {
        FIELDS.iter().zip(self.values()).map(|(k, v)| format!("{k}={v:e}")).collect::<Vec<_>>().join(" ")
    }

    /// Reads [`DeviceProfile::to_line`]'s format: every field once, each a finite number ≥ 0 (rates
    /// > 0); anything else is an error naming what was wrong.
    pub fn from_line(line: &str) -> Result<Self, ProfileParseError> {
        let bad = |what: String| ProfileParseError { line: line.to_string(), what };
        let mut v = [f64::NAN; 11];
        for pair in line.split_whitespace() {
            let (k, value) =
                pair.split_once('=').ok_or_else(|| bad(format!("`{pair}` is not name=value")))?;
            let i = FIELDS.iter().position(|f| *f == k).ok_or_else(|| bad(format!("unknown field `{k}`")))?;
            let x: f64 = value.parse().map_err(|_| bad(format!("{k}: `{value}` is not a number")))?;
            if !x.is_finite() || x < 0.0 {
                return Err(bad(format!("{k}: {value} is not a finite number ≥ 0")));
            }
            v[i] = x;
        }
        if let Some(i) = v.iter().position(|x| x.is_nan()) {
            return Err(bad(format!("{} is missing", FIELDS[i])));
        }
        if v[6..10].iter().any(|&r| r <= 0.0) {
            return Err(bad("a rate is zero".into()));
        }
        Ok(Self {
            software: v[0] != 0.0,
            list_s: v[1],
            open_s: v[2],
            pipeline_s: v[3],
            submit_s: v[4],
            dispatch_s: v[5],
            device_bytes_per_s: v[6],
            upload_bytes_per_s: v[7],
            download_bytes_per_s: v[8],
            atomics_per_s: v[9],
            calibration_s: v[10],
        })
    }

    /// The fixed cost of a first GPU run in a process: the device (unless it exists already, `warm`)
    /// and `pipelines` compiled pipelines.
    pub fn start_s(&self, warm: bool, pipelines: u32) -> f64 {
        (if warm { 0.0 } else { self.open_s }) + f64::from(pipelines) * self.pipeline_s
    }

    /// Seconds to move `bytes` to the device.
    pub fn upload_s(&self, bytes: f64) -> f64 {
        bytes / self.upload_bytes_per_s
    }

    /// Seconds to read `bytes` back.
    pub fn download_s(&self, bytes: f64) -> f64 {
        bytes / self.download_bytes_per_s
    }

    /// A fast discrete GPU, for tests and examples (close to what an H200 measured).
    pub fn synthetic_discrete() -> Self {
        Self {
            software: false,
            list_s: 0.1,
            open_s: 0.15,
            pipeline_s: 0.004,
            submit_s: 60e-6,
            dispatch_s: 3e-6,
            device_bytes_per_s: 3.0e12,
            upload_bytes_per_s: 8e9,
            download_bytes_per_s: 6e9,
            atomics_per_s: 4e10,
            calibration_s: 0.5,
        }
    }

    /// A slow integrated GPU, for tests: a tenth of the discrete one's rates, slower start.
    pub fn synthetic_integrated() -> Self {
        Self {
            open_s: 0.15,
            pipeline_s: 0.02,
            submit_s: 150e-6,
            dispatch_s: 10e-6,
            device_bytes_per_s: 1e11,
            upload_bytes_per_s: 1e10,
            download_bytes_per_s: 1e10,
            atomics_per_s: 2e9,
            ..Self::synthetic_discrete()
        }
    }

    /// A software adapter, for tests: shaders on two CPU cores (what lavapipe measured here).
    pub fn synthetic_software() -> Self {
        Self {
            software: true,
            open_s: 0.05,
            pipeline_s: 0.03,
            submit_s: 200e-6,
            dispatch_s: 20e-6,
            device_bytes_per_s: 1e10,
            upload_bytes_per_s: 5e9,
            download_bytes_per_s: 5e9,
            atomics_per_s: 1e8,
            ..Self::synthetic_discrete()
        }
    }
}

impl fmt::Display for DeviceProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let gb = |x: f64| x / 1e9;
        write!(
            f,
            "{}adapters listed in {:.3} s, open {:.3} s, pipeline {:.1} ms, round trip {:.0} µs (+{:.1} µs a dispatch), memory {:.0} GB/s, \
             upload {:.1} GB/s, download {:.1} GB/s, atomics {:.2} G/s (calibrated in {:.2} s)",
            if self.software { "software adapter: " } else { "" },
            self.list_s,
            self.open_s,
            self.pipeline_s * 1e3,
            self.submit_s * 1e6,
            self.dispatch_s * 1e6,
            gb(self.device_bytes_per_s),
            gb(self.upload_bytes_per_s),
            gb(self.download_bytes_per_s),
            gb(self.atomics_per_s),
            self.calibration_s,
        )
    }
}

/// The CPU's measured rates of the reference kernel (see the [module documentation](self)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpuProfile {
    /// Threads the all-thread rate was measured with.
    pub threads: usize,
    /// Reference operations per second on one thread.
    pub ops_per_s_one: f64,
    /// Reference operations per second on `threads` threads together.
    pub ops_per_s_all: f64,
}

/// The all-thread reference rate of the host the cost models were fitted on (the H200 host, 16
/// threads): a model's CPU seconds measured there are scaled by [`CpuProfile::slowdown`] here.
pub const FIT_HOST_OPS_PER_S: f64 = 354e6;

impl CpuProfile {
    /// How many times longer than on the fit host ([`FIT_HOST_OPS_PER_S`]) CPU work takes here.
    pub fn slowdown(&self) -> f64 {
        FIT_HOST_OPS_PER_S / self.ops_per_s_all
    }

    /// Seconds for `ops` reference operations on all `threads`.
    pub fn seconds(&self, ops: f64) -> f64 {
        ops / self.ops_per_s_all
    }

    /// How many single threads the all-thread rate is worth (memory bandwidth and turbo make it less
    /// than the thread count).
    pub fn parallel_speedup(&self) -> f64 {
        self.ops_per_s_all / self.ops_per_s_one
    }

    /// A server CPU, for tests: 12 M reference operations a second per thread, 15× on 16 threads
    /// (the H200 host measured 11 M and 227 M).
    pub fn synthetic(threads: usize) -> Self {
        let speedup = 1.0 + 0.95 * (threads.max(1) as f64 - 1.0);
        Self { threads, ops_per_s_one: 12e6, ops_per_s_all: 12e6 * speedup }
    }
}

impl fmt::Display for CpuProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:.1} M reference ops/s on one thread, {:.1} M/s on {} ({:.1}×)",
            self.ops_per_s_one / 1e6,
            self.ops_per_s_all / 1e6,
            self.threads,
            self.parallel_speedup()
        )
    }
}

/// The file device profiles are kept in: `device-profile-v1.tsv` in [`cache_dir`].
pub fn profile_store() -> Option<DiskCache> {
    Some(DiskCache::at(cache_dir()?.join("device-profile-v1.tsv")))
}

/// The store key of an adapter: its name, backend and driver, and urbanflow's version (a driver
/// update or a new release measures again). The name here only keys the file; no decision reads it.
pub fn profile_key(name: &str, backend: &str, driver: &str) -> String {
    format!("{name} | {backend} | {driver} | urbanflow {}", env!("CARGO_PKG_VERSION"))
}

/// The reference kernel's operations on one thread: `ops` rounds of a gather from `table` at a
/// pseudo-random index and a binary-heap push, popping whenever the heap holds 1,024 (what a
/// label-setting search does per arc). Returns a checksum so the work cannot be optimised away.
pub fn reference_kernel(table: &[u32], ops: u64, seed: u64) -> u64 {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mask = table.len().next_power_of_two() - 1;
    let mut heap = BinaryHeap::with_capacity(1100);
    let mut x = seed | 1;
    let mut sum = 0u64;
    for _ in 0..ops {
        // xorshift64: cheap and good enough to defeat the prefetcher.
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let i = (x as usize & mask) % table.len();
        heap.push(Reverse(table[i].wrapping_add(x as u32 >> 20)));
        if heap.len() >= 1024 {
            if let Some(Reverse(v)) = heap.pop() {
                sum = sum.wrapping_add(u64::from(v));
            }
        }
    }
    sum
}

/// Words of the reference kernel's table: 1 MiB, within a core's L2 on current CPUs, so that the
/// rate measures the core (heap operations and dependent loads) more than a machine's memory latency,
/// which the graph algorithms' mostly-local accesses hide (a 16 MiB table made a 2-core VM look 45×
/// slower than a 16-core server whose algorithms ran 7× faster).
pub const REFERENCE_TABLE_WORDS: usize = 1 << 18;

/// Measures the CPU on `threads` threads (30–60 ms): the reference kernel on one thread, then on
/// all of them at once.
pub fn measure_cpu(threads: usize) -> CpuProfile {
    let threads = threads.max(1);
    let table: Vec<u32> =
        (0..(REFERENCE_TABLE_WORDS as u32)).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let rate = |n: usize, ops: u64| {
        let start = std::time::Instant::now();
        let sums: u64 = std::thread::scope(|s| {
            let handles: Vec<_> = (0..n)
                .map(|t| {
                    let table = &table;
                    s.spawn(move || reference_kernel(table, ops, 0x9e37_79b9 + t as u64))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or(0)).fold(0, u64::wrapping_add)
        });
        std::hint::black_box(sums);
        (n as u64 * ops) as f64 / start.elapsed().as_secs_f64().max(1e-9)
    };
    // A first short round warms the table into memory and the clocks up; then the measured rounds.
    rate(1, 50_000);
    let one = rate(1, 300_000);
    let all = if threads == 1 { one } else { rate(threads, 300_000).max(rate(threads, 300_000)) };
    CpuProfile { threads, ops_per_s_one: one, ops_per_s_all: all.max(one) }
}

/// The CPU's profile on `threads` threads: this process's, else the cache file's (keyed by the CPU's
/// model, the thread count and urbanflow's version), else measured now (30–60 ms) and stored.
pub fn cpu_profile(threads: usize) -> CpuProfile {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static MEASURED: OnceLock<Mutex<HashMap<usize, CpuProfile>>> = OnceLock::new();
    let cache = MEASURED.get_or_init(Default::default);
    if let Some(p) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&threads) {
        return *p;
    }
    let key = format!("cpu | {} | threads={threads} | urbanflow {}", cpu_model(), env!("CARGO_PKG_VERSION"));
    let store = profile_store();
    let stored = (crate::tuning::mode() != crate::tuning::TuneMode::Refresh)
        .then(|| store.as_ref()?.get(&key))
        .flatten()
        .and_then(|line| CpuProfile::from_line(threads, &line));
    let p = stored.unwrap_or_else(|| {
        let p = measure_cpu(threads);
        if let Some(store) = &store {
            store.put(&key, &p.to_line()).ok();
        }
        p
    });
    cache.lock().unwrap_or_else(|e| e.into_inner()).insert(threads, p);
    p
}

/// The CPU's model name where the system says it (Linux), else the architecture: a cache key only.
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines().find_map(|l| {
                l.strip_prefix("model name")?.split_once(':').map(|(_, m)| m.trim().to_string())
            })
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

impl CpuProfile {
    /// `ops_per_s_one=… ops_per_s_all=…`.
    pub fn to_line(&self) -> String {
        format!("ops_per_s_one={:e} ops_per_s_all={:e}", self.ops_per_s_one, self.ops_per_s_all)
    }

    /// Reads [`CpuProfile::to_line`]; `None` for anything else (measured again).
    pub fn from_line(threads: usize, line: &str) -> Option<Self> {
        let mut one = None;
        let mut all = None;
        for pair in line.split_whitespace() {
            let (k, v) = pair.split_once('=')?;
            let x: f64 = v.parse().ok().filter(|x: &f64| x.is_finite() && *x > 0.0)?;
            match k {
                "ops_per_s_one" => one = Some(x),
                "ops_per_s_all" => all = Some(x),
                _ => return None,
            }
        }
        Some(Self { threads, ops_per_s_one: one?, ops_per_s_all: all? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_refuse_damage() {
        for p in [
            DeviceProfile::synthetic_discrete(),
            DeviceProfile::synthetic_integrated(),
            DeviceProfile::synthetic_software(),
        ] {
            assert_eq!(DeviceProfile::from_line(&p.to_line()).unwrap(), p);
        }
        let good = DeviceProfile::synthetic_discrete().to_line();
        let truncated = good.split(' ').take(5).collect::<Vec<_>>().join(" ");
        assert!(DeviceProfile::from_line(&truncated).unwrap_err().what.contains("missing"));
        let negative = good.replace("open_s=1.5e-1", "open_s=-1");
        assert!(DeviceProfile::from_line(&negative).unwrap_err().what.contains("≥ 0"), "{negative}");
        let zero = good.replace("atomics_per_s=4e10", "atomics_per_s=0e0");
        assert!(DeviceProfile::from_line(&zero).unwrap_err().what.contains("zero"), "{zero}");
        assert!(DeviceProfile::from_line(&format!("{good} colour=3")).unwrap_err().what.contains("unknown"));
    }

    #[test]
    fn the_cpu_reference_is_measured_and_scales() {
        let p = measure_cpu(2);
        assert!(p.ops_per_s_one > 1e5 && p.ops_per_s_all >= p.ops_per_s_one, "{p}");
        assert!(p.seconds(p.ops_per_s_all) > 0.99 && p.seconds(p.ops_per_s_all) < 1.01);
        assert_eq!(CpuProfile::from_line(2, &p.to_line()), Some(p));
        assert_eq!(CpuProfile::from_line(2, "ops_per_s_one=1e7"), None);
    }
}
