//! Trip tables parsed once: the [`Demand`] of a `_trips` file kept in urbanflow's cache folder, so a
//! later run of the same model reads a few arrays instead of decompressing and parsing text again
//! (Philadelphia's 27 MB trip table: 0.2–0.4 s of xz and parsing, against a few ms).
//!
//! The key is the trips file's bytes and the network's node ids (which the zone ids are mapped
//! through): any change to either reads the text again. A file is saved only for a read without
//! warnings, in [`gpu_runtime::parsed_cache`]'s framing (written whole, fingerprinted, the 8 most
//! recently used kept); when read, the arrays must also be exactly what [`Demand::from_pairs`] builds
//! for this network. A file that fails any check is ignored and replaced.
//!
//! ```
//! use urbanflow::tap::demand_cache::{DemandFrom, read_demand_cached};
//! use urbanflow::tap::{CostFactors, Network};
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
//! # Ok::<(), urbanflow::tap::TapError>(())
//! ```

use std::path::Path;

use gpu_runtime::parsed_cache::{Origin, through_cache};
use graph_core::io::tntp::read_trips_with;
use graph_core::io::{ReadOptions, ReadWarning};

use crate::demand::Demand;
use crate::error::TapError;
use crate::network::Network;

/// Layout version of the demand's payload (in the cache files' names and headers).
const VERSION: u32 = 2;

/// Where [`read_demand_cached`]'s demand came from: a cache file, or the text (and whether it was kept).
pub type DemandFrom = Origin;

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
/// `cache` (`None`: parse, save nothing; [`gpu_runtime::parsed_cache`]). Errors are those of reading
/// the text: a bad cache file is never one.
pub fn read_demand_cached(
    path: impl AsRef<Path>,
    net: &Network,
    opts: ReadOptions,
    cache: Option<&Path>,
) -> Result<CachedDemand, TapError> {
    let path = path.as_ref();
    let nodes: Vec<u8> = (0..net.num_nodes() as u32).flat_map(|v| net.node_id(v).to_le_bytes()).collect();
    let mut warnings = Vec::new();
    let parse = || -> Result<(Demand, bool), TapError> {
        let trips = read_trips_with(path, opts)?;
        let demand = Demand::from_tntp(&trips, net)?;
        let cacheable = trips.warnings.is_empty();
        warnings = trips.warnings;
        Ok((demand, cacheable))
    };
    let (demand, from) =
        through_cache(cache, "demand", VERSION, path, &nodes, encode, |b| decode(b, net.num_nodes()), parse)?;
    Ok(CachedDemand { demand, warnings, from })
}

/// The payload: counts and intrazonal total, then the four arrays, little-endian.
fn encode(d: &Demand) -> Vec<u8> {
    let (origins, offsets, dest, flow, intrazonal) = d.parts();
    let mut out = Vec::with_capacity(24 + 4 * (origins.len() + offsets.len() + dest.len()) + 8 * flow.len());
    out.extend_from_slice(&(origins.len() as u64).to_le_bytes());
    out.extend_from_slice(&(dest.len() as u64).to_le_bytes());
    out.extend_from_slice(&intrazonal.to_le_bytes());
    for words in [origins, offsets, dest] {
        words.iter().for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
    }
    flow.iter().for_each(|f| out.extend_from_slice(&f.to_le_bytes()));
    out
}

/// The demand of a payload for a network of `nodes` nodes, or `None` unless it is exactly what
/// [`Demand::from_pairs`] builds ([`Demand::from_parts`]' checks).
fn decode(bytes: &[u8], nodes: usize) -> Option<Demand> {
    let long = |at: usize| Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?));
    let (n_origins, n_pairs) = (usize::try_from(long(0)?).ok()?, usize::try_from(long(8)?).ok()?);
    let intrazonal = f64::from_bits(long(16)?);
    // Checked: the counts come from the file.
    let words_len = n_origins.checked_mul(2)?.checked_add(1)?.checked_add(n_pairs)?;
    let size = words_len.checked_mul(4)?.checked_add(n_pairs.checked_mul(8)?)?;
    if size.checked_add(24)? != bytes.len() {
        return None;
    }
    let words = |at: usize, len: usize| -> Vec<u32> {
        bytes[at..at + 4 * len]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap_or_default()))
            .collect()
    };
    let origins = words(24, n_origins);
    let offsets = words(24 + 4 * n_origins, n_origins + 1);
    let at = 24 + 4 * (2 * n_origins + 1);
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
    use std::path::PathBuf;

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
        assert_eq!(parsed.from, Origin::Parsed { saved: Err("no cache folder".into()) });
        let first = read_demand_cached(&trips, &net, ReadOptions::default(), Some(&cache)).unwrap();
        let Origin::Parsed { saved: Ok(file) } = &first.from else { panic!("{:?}", first.from) };
        let again = read_demand_cached(&trips, &net, ReadOptions::default(), Some(&cache)).unwrap();
        assert_eq!(again.from, Origin::Cached(file.clone()));
        assert_eq!(again.demand, parsed.demand);
        // Every flipped byte is caught (the framing's fingerprint), and the text is read again.
        let good = std::fs::read(file).unwrap();
        for at in [0, 9, 13, 30, 40, good.len() / 2, good.len() - 9, good.len() - 1] {
            let mut bad = good.clone();
            bad[at] ^= 0x10;
            std::fs::write(file, &bad).unwrap();
            let reread = read_demand_cached(&trips, &net, ReadOptions::default(), Some(&cache)).unwrap();
            assert!(matches!(reread.from, Origin::Parsed { saved: Ok(_) }), "byte {at}");
            assert_eq!(reread.demand, parsed.demand);
        }
        // Another trips file (one flow changed) has another key.
        let other = cache.join("other_trips.tntp");
        let text = std::fs::read_to_string(&trips).unwrap();
        let text = text.replacen("   1300.0;", "   1301.0;", 1).replacen("360600.0", "360601.0", 1);
        std::fs::write(&other, text).unwrap();
        let changed = read_demand_cached(&other, &net, ReadOptions::default(), Some(&cache)).unwrap();
        assert!(matches!(changed.from, Origin::Parsed { saved: Ok(_) }));
        assert_eq!(changed.demand.total(), parsed.demand.total() + 1.0);
        std::fs::remove_dir_all(&cache).ok();
    }

    #[test]
    fn payloads_that_are_not_such_a_demand_are_refused() {
        let (net, trips) = sioux_falls();
        let demand = read_demand_cached(&trips, &net, ReadOptions::default(), None).unwrap().demand;
        let good = encode(&demand);
        assert_eq!(decode(&good, net.num_nodes()).as_ref(), Some(&demand));
        assert!(decode(&good[..good.len() - 1], net.num_nodes()).is_none());
        // A network with fewer nodes than the indices: not this demand.
        assert!(decode(&good, 3).is_none());
        // Counts that overflow: refused, no panic.
        for count in [u64::MAX, u64::MAX / 2, u64::MAX / 8 + 1] {
            let mut huge = good.clone();
            huge[..8].copy_from_slice(&count.to_le_bytes());
            assert!(decode(&huge, net.num_nodes()).is_none(), "{count}");
        }
        // An unsorted destination list (a valid layout, not a demand from_pairs builds).
        let (origins, offsets, dest, flow, intrazonal) = demand.parts();
        let (origins, offsets, flow) = (origins.to_vec(), offsets.to_vec(), flow.to_vec());
        let again =
            Demand::from_parts(origins.clone(), offsets.clone(), dest.to_vec(), flow.clone(), intrazonal, 24);
        assert_eq!(again.as_ref(), Some(&demand));
        let mut swapped = dest.to_vec();
        swapped.swap(0, 1);
        assert!(Demand::from_parts(origins, offsets, swapped, flow, intrazonal, net.num_nodes()).is_none());
    }
}
