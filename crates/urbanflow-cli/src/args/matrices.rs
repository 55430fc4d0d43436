//! Zone matrices in files, chosen by extension: OMX (`.omx`, with the `omx` feature) or CSV
//! `origin,destination,value` (anything else; `.gz`/`.xz` compressed too).

use std::path::Path;

use urbanflow::tap::matrix::ZoneMatrix;
#[cfg(feature = "omx")]
use urbanflow::tap::matrix::omx::{OmxFile, write_omx};
use urbanflow::tap::{Demand, Network};

use crate::outcome::Error;

/// The mapping (zone id array) name of the OMX files the commands write.
#[cfg(feature = "omx")]
const OMX_MAPPING: &str = "zone";

/// Which core and mapping of an OMX input to read (ignored for CSV).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct OmxSelect {
    /// The OMX core (matrix) to read; needed when the file has several.
    #[arg(long)]
    pub core: Option<String>,
    /// The OMX mapping that holds the zone ids; needed when the file has several (none: zones 1..n).
    #[arg(long)]
    pub mapping: Option<String>,
}

/// Whether `path` names an OMX file.
pub fn is_omx(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("omx"))
}

#[cfg(not(feature = "omx"))]
fn no_omx(path: &Path) -> Error {
    format!(
        "{}: this urbanflow was built without OMX support: install it with `--features omx` (needs the \
         system's libhdf5-dev), or give the matrix as CSV origin,destination,value",
        path.display()
    )
    .into()
}

/// A matrix over the study's `zones` (in that order): from an OMX file (its zones must be the same
/// set), or from CSV rows. Cells with no value hold `missing` (0 for trips, infinity for costs).
pub fn read_matrix(
    path: &Path,
    zones: &[u64],
    missing: f64,
    select: &OmxSelect,
) -> Result<ZoneMatrix, Error> {
    if !is_omx(path) {
        return Ok(ZoneMatrix::read_csv(path, zones, missing)?);
    }
    #[cfg(feature = "omx")]
    {
        let m = OmxFile::open(path)?.matrix(select.core.as_deref(), select.mapping.as_deref(), missing)?;
        Ok(m.in_order_of(zones, &path.display().to_string())?)
    }
    #[cfg(not(feature = "omx"))]
    {
        let _ = (missing, select);
        Err(no_omx(path))
    }
}

/// A matrix with its own zones: an OMX file's (its mapping's ids), for inputs that have no totals file
/// to take the zones from. CSV needs those zones, so it is refused here.
pub fn read_omx_matrix(path: &Path, missing: f64, select: &OmxSelect) -> Result<ZoneMatrix, Error> {
    #[cfg(feature = "omx")]
    {
        Ok(OmxFile::open(path)?.matrix(select.core.as_deref(), select.mapping.as_deref(), missing)?)
    }
    #[cfg(not(feature = "omx"))]
    {
        let _ = (missing, select);
        Err(no_omx(path))
    }
}

/// An OMX file's zone ids (its mapping's, as [`read_omx_matrix`] takes them), without reading a core.
pub fn omx_zones(path: &Path, select: &OmxSelect) -> Result<Vec<u64>, Error> {
    #[cfg(feature = "omx")]
    {
        Ok(OmxFile::open(path)?.zones(select.mapping.as_deref())?)
    }
    #[cfg(not(feature = "omx"))]
    {
        let _ = select;
        Err(no_omx(path))
    }
}

/// Writes `cores` (row-major over `zones`) to `path`: all of them into one OMX file, or, for CSV, the
/// first core as `origin,destination,value` rows (cells ≠ 0).
pub fn write_matrices(path: &Path, zones: &[u64], cores: &[(&str, &[f64])]) -> Result<(), Error> {
    if !is_omx(path) {
        let (_, values) = cores.first().ok_or("no matrix to write")?;
        ZoneMatrix::new(zones.to_vec(), values.to_vec())?.write_csv(path, false)?;
        return Ok(());
    }
    #[cfg(feature = "omx")]
    {
        Ok(write_omx(path, zones, OMX_MAPPING, cores)?)
    }
    #[cfg(not(feature = "omx"))]
    {
        Err(no_omx(path))
    }
}

/// The demand of a trips file for `net`: an OMX core over the network's zone ids (`.omx`), or a TNTP
/// `_trips` file.
pub fn read_demand(path: &Path, net: &Network, select: &OmxSelect) -> Result<Demand, Error> {
    if is_omx(path) {
        let m = read_omx_matrix(path, 0.0, select)?;
        Ok(Demand::from_zone_matrix(net, &m, &path.display().to_string())?)
    } else {
        Ok(Demand::read_tntp(path, net)?)
    }
}

/// Writes `demand` between `net`'s zones: OMX (core `demand`, every zone), `origin,destination,demand`
/// CSV (`.csv`), or a TNTP `_trips` file (anything else).
pub fn write_demand(path: &Path, net: &Network, demand: &Demand) -> Result<(), Error> {
    use urbanflow::tap::output::{write_demand_csv, write_demand_tntp};
    if is_omx(path) {
        let zones = net.num_zones();
        let dense = urbanflow::tap::model::dense_matrix(demand, zones as usize)?;
        write_matrices(path, &zone_ids(net), &[("demand", &dense)])
    } else if path.extension().is_some_and(|e| e == "csv") {
        Ok(write_demand_csv(path, net, demand)?)
    } else {
        Ok(write_demand_tntp(path, net, demand)?)
    }
}

/// The network's zone ids, in zone order.
pub fn zone_ids(net: &Network) -> Vec<u64> {
    (0..net.num_zones()).map(|z| net.node_id(z)).collect()
}

/// Writes skims: OMX cores `time`, `distance`, `toll`, `cost` (unreachable: infinity), or CSV rows.
pub fn write_skims(path: &Path, net: &Network, s: &urbanflow::tap::skim::Skims) -> Result<(), Error> {
    if is_omx(path) {
        let cores: [(&str, &[f64]); 4] =
            [("time", &s.time), ("distance", &s.distance), ("toll", &s.toll), ("cost", &s.cost)];
        write_matrices(path, &zone_ids(net), &cores)
    } else {
        urbanflow::tap::skim::write_skims_csv(path, net, s)
            .map_err(|e| format!("{}: {e}", path.display()).into())
    }
}
