//! Trip tables parsed once: the [`Demand`] of a `_trips` file kept in urbanflow's cache folder, so a
//! later run of the same model reads a few arrays instead of decompressing and parsing text again
//! (Philadelphia's 27 MB trip table: 0.2–0.4 s of xz and parsing, against a few ms).
//!
//! The key is the trips file's bytes and the network's node ids (which the zone ids are mapped
//! through): any change to either reads the text again. A file is saved only for a strict read without
//! warnings, written whole and renamed into place, and checked (layout, fingerprint of its contents,
//! indices within the network) when read: a file that fails any check is ignored and replaced.
//!
//! ```
//! use algos_tap::demand_cache::{DemandFrom, read_demand_cached};
//! use algos_tap::{CostFactors, Network};
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data");
//! let net = Network::read_tntp(format!("{dir}/SiouxFalls_net.tntp"), CostFactors::default())?;
//! let cache = std::env::temp_dir().join(format!("urbanflow-doc-demand-{}", std::process::id()));
//! let trips = format!("{dir}/SiouxFalls_trips.tntp");
//! let first = read_demand_cached(&trips, &net, Default::default(), Some(&cache))?;
//! assert!(matches!(first.from, DemandFrom::Parsed { .. }));
//! let again = read_demand_cached(&trips, &net, Default::default(), Some(&cache))?;
//! assert!(matches!(again.from, DemandFrom::Cached(_)));
//! assert_eq!(first.demand, again.demand);
//! # std::fs::remove_dir_all(&cache).ok();
//! # Ok::<(), algos_tap::TapError>(())
//! ```

use std::path::{Path, PathBuf};

use gpu_runtime::tuning::fingerprint_bytes;
use graph_core::GraphError;
use graph_core::io::tntp::read_trips_with;
use graph_core::io::{ReadOptions, ReadWarning};

use crate::demand::Demand;
use crate::error::TapError;
use crate::network::Network;

/// Layout version of the cache files (in their names and headers).
const VERSION: u32 = 1;
const MAGIC: &[u8; 8] = b"UFDEMAND";

/// Where [`read_demand_cached`]'s demand came from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DemandFrom {
    /// Read from this cache file.
    Cached(PathBuf),
    /// Parsed from the text; `saved` says where it was kept for the next run, or why not.
    Parsed {
        /// The cache file written, or why none was (no cache folder, warnings, a write error).
        saved: Result<PathBuf, String>,
    },
}

/// A demand read through the cache, with the file's warnings (lenient reads only) and its origin.
#[derive(Debug, Clone)]
pub struct CachedDemand {
    /// The demand.
    pub demand: Demand,
    /// What a lenient read found disagreeing with the file's header (never cached: always empty for
    /// a demand read from the cache).
    pub warnings: Vec<ReadWarning>,
    /// Cache file or text.
    pub from: DemandFrom,
}

/// The demand of the `_trips` file `path` for `net` ([`Demand::from_tntp`]), through the cache folder
/// `cache` (`None`: parse, save nothing). Errors are those of reading the text: a bad cache file is
/// never one.
pub fn read_demand_cached(
    path: impl AsRef<Path>,
    net: &Network,
    opts: ReadOptions,
    cache: Option<&Path>,
) -> Result<CachedDemand, TapError> {
    let path = path.as_ref();
    let file = match cache {
        None => None,
        Some(dir) => {
            let bytes = std::fs::read(path)
                .map_err(|source| GraphError::Open { path: path.to_path_buf(), source })?;
            let nodes: Vec<u8> =
                (0..net.num_nodes() as u32).flat_map(|v| net.node_id(v).to_le_bytes()).collect();
            let key = format!(
                "demand-v{VERSION}-{}-{:016x}-{:016x}.bin",
                bytes.len(),
                fingerprint_bytes(&bytes),
                fingerprint_bytes(&nodes)
            );
            Some(dir.join(key))
        }
    };
    if let Some(file) = &file
        && let Some(demand) = load(file, net)
    {
        return Ok(CachedDemand { demand, warnings: Vec::new(), from: DemandFrom::Cached(file.clone()) });
    }
    let trips = read_trips_with(path, opts)?;
    let demand = Demand::from_tntp(&trips, net)?;
    let saved = match (&file, trips.warnings.is_empty()) {
        (None, _) => Err("no cache folder".to_string()),
        (Some(_), false) => Err("the file has warnings: read it again each time".to_string()),
        (Some(file), true) => save(file, &demand).map(|()| file.clone()).map_err(|e| e.to_string()),
    };
    Ok(CachedDemand { demand, warnings: trips.warnings, from: DemandFrom::Parsed { saved } })
}

/// The file's bytes: header (magic, version, counts, intrazonal), the four arrays little-endian, then
/// the fingerprint of everything before it.
fn encode(d: &Demand) -> Vec<u8> {
    let (origins, offsets, dest, flow, intrazonal) = d.parts();
    let mut out = Vec::with_capacity(48 + 4 * (origins.len() + offsets.len() + dest.len()) + 8 * flow.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(origins.len() as u64).to_le_bytes());
    out.extend_from_slice(&(dest.len() as u64).to_le_bytes());
    out.extend_from_slice(&intrazonal.to_le_bytes());
    for words in [origins, offsets, dest] {
        words.iter().for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
    }
    flow.iter().for_each(|f| out.extend_from_slice(&f.to_le_bytes()));
    let check = fingerprint_bytes(&out);
    out.extend_from_slice(&check.to_le_bytes());
    out
}

/// Writes the file whole under a temporary name, then renames it into place (readers never see half).
/// Then keeps the [`KEPT`] most recently used demand files of the folder, so edited trip tables do not
/// pile up.
fn save(file: &Path, d: &Demand) -> std::io::Result<()> {
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, encode(d)).and_then(|()| std::fs::rename(&tmp, file)).inspect_err(|_| {
        std::fs::remove_file(&tmp).ok();
    })?;
    prune(dir, KEPT);
    Ok(())
}

/// Demand files kept in the cache folder (the newest by modification time; Philadelphia's is 14 MB).
const KEPT: usize = 8;

/// Removes all but the `keep` newest `demand-v*.bin` files of `dir` (best effort: a file another
/// process removed first, or one that cannot be removed, is left to the next save).
fn prune(dir: &Path, keep: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("demand-v") && name.ends_with(".bin")
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    for (_, old) in files.into_iter().skip(keep) {
        std::fs::remove_file(old).ok();
    }
}

/// The demand in `file`, or `None` when it is absent or fails a check. A file read is marked as just
/// used, so [`prune`] removes the least recently used.
fn load(file: &Path, net: &Network) -> Option<Demand> {
    let demand = decode(&std::fs::read(file).ok()?, net.num_nodes())?;
    let touch = std::fs::File::options().write(true).open(file);
    touch.and_then(|f| f.set_modified(std::time::SystemTime::now())).ok();
    Some(demand)
}

fn decode(bytes: &[u8], nodes: usize) -> Option<Demand> {
    let body = bytes.len().checked_sub(8)?;
    let check = u64::from_le_bytes(bytes[body..].try_into().ok()?);
    if bytes.len() < 36 || &bytes[..8] != MAGIC || fingerprint_bytes(&bytes[..body]) != check {
        return None;
    }
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or_default());
    let long = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default());
    if word(8) != VERSION {
        return None;
    }
    let (n_origins, n_pairs) = (usize::try_from(long(12)).ok()?, usize::try_from(long(20)).ok()?);
    let intrazonal = f64::from_bits(long(28));
    let words = |at: usize, len: usize| -> Vec<u32> {
        bytes[at..at + 4 * len]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap_or_default()))
            .collect()
    };
    // Checked: counts come from the file (the fingerprint makes damage unlikely, not impossible).
    let words_len = n_origins.checked_mul(2)?.checked_add(1)?.checked_add(n_pairs)?;
    let sizes = words_len.checked_mul(4)?.checked_add(n_pairs.checked_mul(8)?)?;
    if sizes.checked_add(36)? != body {
        return None;
    }
    let origins = words(36, n_origins);
    let offsets = words(36 + 4 * n_origins, n_origins + 1);
    let at = 36 + 4 * (2 * n_origins + 1);
    let dest = words(at, n_pairs);
    let at = at + 4 * n_pairs;
    let flow: Vec<f64> = bytes[at..at + 8 * n_pairs]
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap_or_default()))
        .collect();
    Demand::from_parts(origins, offsets, dest, flow, intrazonal, nodes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CostFactors;

    fn sioux_falls() -> (Network, PathBuf) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data");
        let net = Network::read_tntp(dir.join("SiouxFalls_net.tntp"), CostFactors::default()).unwrap();
        (net, dir.join("SiouxFalls_trips.tntp"))
    }

    #[test]
    fn a_cached_demand_equals_the_parsed_one_and_any_damage_is_read_again() {
        let (net, trips) = sioux_falls();
        let cache = std::env::temp_dir().join(format!("urbanflow-demand-cache-{}", std::process::id()));
        std::fs::remove_dir_all(&cache).ok();
        let parsed = read_demand_cached(&trips, &net, ReadOptions::default(), None).unwrap();
        assert_eq!(parsed.from, DemandFrom::Parsed { saved: Err("no cache folder".into()) });
        let first = read_demand_cached(&trips, &net, ReadOptions::default(), Some(&cache)).unwrap();
        let DemandFrom::Parsed { saved: Ok(file) } = &first.from else { panic!("{:?}", first.from) };
        let again = read_demand_cached(&trips, &net, ReadOptions::default(), Some(&cache)).unwrap();
        assert_eq!(again.from, DemandFrom::Cached(file.clone()));
        assert_eq!(again.demand, parsed.demand);
        // Every flipped byte is caught (the fingerprint, or the layout), and the text is read again.
        let good = std::fs::read(file).unwrap();
        for at in [0, 9, 13, 30, 40, good.len() / 2, good.len() - 9, good.len() - 1] {
            let mut bad = good.clone();
            bad[at] ^= 0x10;
            assert!(decode(&bad, net.num_nodes()).is_none(), "byte {at}");
            std::fs::write(file, &bad).unwrap();
            let reread = read_demand_cached(&trips, &net, ReadOptions::default(), Some(&cache)).unwrap();
            assert!(matches!(reread.from, DemandFrom::Parsed { saved: Ok(_) }), "byte {at}");
            assert_eq!(reread.demand, parsed.demand);
        }
        assert!(decode(&good[..good.len() - 1], net.num_nodes()).is_none());
        // Counts that overflow, under a fingerprint that matches them: refused, no panic.
        for count in [u64::MAX, u64::MAX / 2, u64::MAX / 8 + 1] {
            let mut huge = good[..good.len() - 8].to_vec();
            huge[12..20].copy_from_slice(&count.to_le_bytes());
            let check = fingerprint_bytes(&huge);
            huge.extend_from_slice(&check.to_le_bytes());
            assert!(decode(&huge, net.num_nodes()).is_none(), "{count}");
        }
        // A network with fewer nodes than the cached indices: not this demand.
        assert!(decode(&good, 3).is_none());
        // Another trips file (one flow changed) has another key.
        let other = cache.join("other_trips.tntp");
        let text = std::fs::read_to_string(&trips).unwrap();
        let text = text.replacen("   1300.0;", "   1301.0;", 1).replacen("360600.0", "360601.0", 1);
        std::fs::write(&other, text).unwrap();
        let changed = read_demand_cached(&other, &net, ReadOptions::default(), Some(&cache)).unwrap();
        assert!(matches!(changed.from, DemandFrom::Parsed { saved: Ok(_) }));
        assert_eq!(changed.demand.total(), parsed.demand.total() + 1.0);
        std::fs::remove_dir_all(&cache).ok();
    }

    #[test]
    fn only_the_newest_demand_files_are_kept() {
        let dir = std::env::temp_dir().join(format!("urbanflow-demand-prune-{}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(&dir).unwrap();
        for i in 0..5 {
            std::fs::write(dir.join(format!("demand-v1-{i}.bin")), [i as u8]).unwrap();
            // Modification times a clear step apart on every file system.
            let t = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000 + 10 * i);
            std::fs::File::options()
                .write(true)
                .open(dir.join(format!("demand-v1-{i}.bin")))
                .unwrap()
                .set_modified(t)
                .unwrap();
        }
        std::fs::write(dir.join("cch-v1-other.order"), [0]).unwrap();
        prune(&dir, 2);
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["cch-v1-other.order", "demand-v1-3.bin", "demand-v1-4.bin"]);
        std::fs::remove_dir_all(&dir).ok();
    }
}
