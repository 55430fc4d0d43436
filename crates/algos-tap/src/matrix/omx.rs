//! OMX files: the Open Matrix format (version 0.2) over HDF5 that AequilibraE, Emme, Visum, TransCAD
//! and Cube read and write.
//!
//! A file holds one shape (`SHAPE`, rows × columns), named matrices ("cores", 2-D datasets under
//! `/data`, any integer or float type) and named mappings (1-D zone id arrays under `/lookup`). Zone
//! matrices here are square, in the zone ids of one mapping: the one named, or the file's only one; a
//! file without mappings numbers its zones 1..=n, as the format's tools do. A core's `NA` attribute,
//! where present, marks cells with no value (read as `missing`, as a CSV's unlisted cells).
//!
//! Files written here are what openmatrix writes: `OMX_VERSION` `0.2`, an `int32` `SHAPE`, `float64`
//! cores chunked by rows with zlib level 1 and shuffle, and an `int64` mapping; openmatrix's validator
//! passes them (tested in CI).
//!
//! ```no_run
//! use urbanflow::tap::matrix::omx::{OmxFile, write_omx};
//! let file = OmxFile::open("demand.omx")?;
//! println!("cores {:?}, mappings {:?}", file.cores(), file.mappings());
//! let trips = file.matrix(Some("matrix"), None, 0.0)?;
//! write_omx("copy.omx", trips.zones(), "taz", &[("trips", trips.values())])?;
//! # Ok::<(), urbanflow::tap::TapError>(())
//! ```

use std::path::{Path, PathBuf};

use hdf5::types::{FixedAscii, TypeDescriptor};

use super::ZoneMatrix;
use crate::error::TapError;

/// The version string files are written with (openmatrix's `__omx_version__`).
const OMX_VERSION: &[u8; 3] = b"0.2";

/// An OMX file opened for reading: its shape, cores and mappings listed, values read on demand.
pub struct OmxFile {
    path: PathBuf,
    file: hdf5::File,
    zones: usize,
    cores: Vec<String>,
    mappings: Vec<String>,
}

impl std::fmt::Debug for OmxFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OmxFile")
            .field("path", &self.path)
            .field("zones", &self.zones)
            .field("cores", &self.cores)
            .field("mappings", &self.mappings)
            .finish()
    }
}

impl OmxFile {
    /// Opens `path` and checks its layout: a square `SHAPE`, every core of that shape, every mapping
    /// one id per zone. Not an HDF5 file, no `SHAPE`, a core or mapping of another shape: errors
    /// naming the file and what was expected.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, TapError> {
        let path = path.as_ref().to_path_buf();
        let error = |message: String| TapError::MatrixFile { path: path.clone(), message };
        if !path.is_file() {
            return Err(error("no such file".into()));
        }
        let file = hdf5::File::open(&path)
            .map_err(|e| error(format!("not an HDF5 file ({e}): expected an OMX matrix file")))?;
        let shape: Vec<i64> = file
            .attr("SHAPE")
            .and_then(|a| a.read_raw::<i64>())
            .map_err(|_| error("no SHAPE attribute: expected an OMX file (rows, columns)".into()))?;
        let zones = match shape[..] {
            [r, c] if r == c && r >= 0 => r as usize,
            _ => return Err(error(format!("SHAPE is {shape:?}: expected a square zone matrix (n, n)"))),
        };
        let members = |group: &str| -> Result<Vec<String>, TapError> {
            if !file.link_exists(group) {
                return Ok(Vec::new());
            }
            let mut names = file
                .group(group)
                .and_then(|g| g.member_names())
                .map_err(|e| error(format!("/{group}: {e}")))?;
            names.sort();
            Ok(names)
        };
        let (cores, mappings) = (members("data")?, members("lookup")?);
        for name in &cores {
            let ds = file.dataset(&format!("data/{name}")).map_err(|e| error(format!("core {name}: {e}")))?;
            if ds.shape() != [zones, zones] {
                return Err(error(format!(
                    "core {name} has shape {:?}: expected the file's SHAPE [{zones}, {zones}]",
                    ds.shape()
                )));
            }
        }
        for name in &mappings {
            let ds =
                file.dataset(&format!("lookup/{name}")).map_err(|e| error(format!("mapping {name}: {e}")))?;
            if ds.shape() != [zones] {
                return Err(error(format!(
                    "mapping {name} has shape {:?}: expected one zone id per zone ([{zones}])",
                    ds.shape()
                )));
            }
        }
        Ok(Self { path, file, zones, cores, mappings })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The number of zones (rows = columns).
    pub fn num_zones(&self) -> usize {
        self.zones
    }

    /// The cores' names, sorted.
    pub fn cores(&self) -> &[String] {
        &self.cores
    }

    /// The mappings' names, sorted.
    pub fn mappings(&self) -> &[String] {
        &self.mappings
    }

    fn error(&self, message: String) -> TapError {
        TapError::MatrixFile { path: self.path.clone(), message }
    }

    /// The zone ids of mapping `name`; with `None`, of the file's only mapping, or 1..=n when it has
    /// none. Several mappings and none named, a mapping of strings or of negative or repeated ids:
    /// errors.
    pub fn zones(&self, name: Option<&str>) -> Result<Vec<u64>, TapError> {
        let name = match (name, &self.mappings[..]) {
            (Some(n), _) => n,
            (None, []) => return Ok((1..=self.zones as u64).collect()),
            (None, [only]) => only,
            (None, all) => {
                return Err(self.error(format!("mappings {all:?}: name the one that holds the zone ids")));
            }
        };
        if !self.mappings.iter().any(|m| m == name) {
            return Err(self.error(format!("no mapping {name}: the file has {:?}", self.mappings)));
        }
        let ds = self.file.dataset(&format!("lookup/{name}")).map_err(|e| self.error(e.to_string()))?;
        let integer = matches!(
            ds.dtype().and_then(|t| t.to_descriptor()),
            Ok(TypeDescriptor::Integer(_) | TypeDescriptor::Unsigned(_))
        );
        if !integer {
            return Err(self.error(format!("mapping {name} does not hold integers: expected zone ids")));
        }
        let ids = ds.read_raw::<i64>().map_err(|e| self.error(format!("mapping {name}: {e}")))?;
        let mut seen = std::collections::HashSet::with_capacity(ids.len());
        let mut zones = Vec::with_capacity(ids.len());
        for &id in &ids {
            let z = u64::try_from(id)
                .map_err(|_| self.error(format!("mapping {name} holds zone id {id}: expected ids ≥ 0")))?;
            if !seen.insert(z) {
                return Err(self.error(format!("mapping {name} names zone {z} twice")));
            }
            zones.push(z);
        }
        Ok(zones)
    }

    /// The values of core `name`, row-major as stored (converted to f64; cells equal to the core's
    /// `NA` attribute, where it has one, become NaN).
    pub fn core(&self, name: &str) -> Result<Vec<f64>, TapError> {
        let (mut values, na) = self.core_and_na(name)?;
        if let Some(na) = na {
            values.iter_mut().filter(|v| is_na(**v, na)).for_each(|v| *v = f64::NAN);
        }
        Ok(values)
    }

    /// The values of core `name` as stored, and its `NA` value if it declares one.
    fn core_and_na(&self, name: &str) -> Result<(Vec<f64>, Option<f64>), TapError> {
        if !self.cores.iter().any(|c| c == name) {
            return Err(self.error(format!("no core {name}: the file has {:?}", self.cores)));
        }
        let ds = self.file.dataset(&format!("data/{name}")).map_err(|e| self.error(e.to_string()))?;
        let numeric = matches!(
            ds.dtype().and_then(|t| t.to_descriptor()),
            Ok(TypeDescriptor::Integer(_) | TypeDescriptor::Unsigned(_) | TypeDescriptor::Float(_))
        );
        if !numeric {
            return Err(self.error(format!("core {name} is not numeric: expected integers or floats")));
        }
        let values = ds.read_raw::<f64>().map_err(|e| self.error(format!("core {name}: {e}")))?;
        let na = ds.attr("NA").and_then(|a| a.read_scalar::<f64>()).ok();
        Ok((values, na))
    }

    /// Core `core` (or the file's only core) over the zones of `mapping` (see [`OmxFile::zones`]) as a
    /// [`ZoneMatrix`]; `NA` cells hold `missing` (0 for trips, `f64::INFINITY` for costs). A NaN, a
    /// negative value, or an infinite one where `missing` is finite: errors naming the core and the
    /// cell in zone ids.
    pub fn matrix(
        &self,
        core: Option<&str>,
        mapping: Option<&str>,
        missing: f64,
    ) -> Result<ZoneMatrix, TapError> {
        let core = match (core, &self.cores[..]) {
            (Some(c), _) => c,
            (None, [only]) => only,
            (None, []) => return Err(self.error("no cores under /data: expected a matrix".into())),
            (None, all) => return Err(self.error(format!("cores {all:?}: name the one to read"))),
        };
        let zones = self.zones(mapping)?;
        let (mut values, na) = self.core_and_na(core)?;
        let n = zones.len();
        for (k, v) in values.iter_mut().enumerate() {
            if na.is_some_and(|na| is_na(*v, na)) {
                *v = missing;
            }
            let allowed = *v >= 0.0 && (v.is_finite() || missing.is_infinite());
            if !allowed {
                return Err(self.error(format!(
                    "core {core}, cell {} → {}: {}: expected a finite value ≥ 0{}",
                    zones[k / n],
                    zones[k % n],
                    *v,
                    if missing.is_infinite() { " (or infinity: unreachable)" } else { "" }
                )));
            }
        }
        ZoneMatrix::new(zones, values)
    }
}

/// Whether `v` is the `NA` value `na` (a NaN `NA` marks the NaN cells).
fn is_na(v: f64, na: f64) -> bool {
    v == na || (na.is_nan() && v.is_nan())
}

/// Writes an OMX file (replacing `path`): the zone ids as mapping `mapping`, and each `(name, values)`
/// core (row-major over `zones`, as [`ZoneMatrix::values`]). Names must be distinct and not empty.
pub fn write_omx(
    path: impl AsRef<Path>,
    zones: &[u64],
    mapping: &str,
    cores: &[(&str, &[f64])],
) -> Result<(), TapError> {
    let path = path.as_ref();
    let error = |message: String| TapError::MatrixFile { path: path.to_path_buf(), message };
    let n = zones.len();
    for (k, (name, values)) in cores.iter().enumerate() {
        if name.is_empty() || name.contains('/') || cores[..k].iter().any(|(m, _)| m == name) {
            return Err(error(format!("core name `{name}`: expected distinct names without `/`")));
        }
        if values.len() != n * n {
            return Err(error(format!("core {name}: {} values for {n} zones", values.len())));
        }
    }
    if mapping.is_empty() || mapping.contains('/') {
        return Err(error(format!("mapping name `{mapping}`: expected a name without `/`")));
    }
    let ids: Vec<i64> = zones
        .iter()
        .map(|&z| i64::try_from(z).map_err(|_| error(format!("zone id {z} does not fit an int64 mapping"))))
        .collect::<Result<_, _>>()?;
    let h5 = |e: hdf5::Error| error(e.to_string());
    let file = hdf5::File::create(path).map_err(h5)?;
    let version = FixedAscii::<3>::from_ascii(OMX_VERSION).expect("ASCII");
    file.new_attr::<FixedAscii<3>>()
        .create("OMX_VERSION")
        .and_then(|a| a.write_scalar(&version))
        .map_err(h5)?;
    let side =
        i32::try_from(n).map_err(|_| error(format!("{n} zones: more than OMX's int32 SHAPE holds")))?;
    file.new_attr::<i32>().shape(2).create("SHAPE").and_then(|a| a.write_raw(&[side, side])).map_err(h5)?;
    let data = file.create_group("data").map_err(h5)?;
    // Chunks of whole rows, about 512 KiB each (openmatrix's are PyTables' automatic row blocks).
    let rows_per_chunk = (65_536 / n.max(1)).clamp(1, n.max(1));
    for (name, values) in cores {
        let view = ndarray::ArrayView2::from_shape((n, n), values).map_err(|e| error(e.to_string()))?;
        let mut builder = data.new_dataset_builder().with_data(view);
        if n > 0 {
            builder = builder.chunk((rows_per_chunk, n)).shuffle().deflate(1);
        }
        builder.create(*name).map_err(h5)?;
    }
    let lookup = file.create_group("lookup").map_err(h5)?;
    lookup.new_dataset_builder().with_data(&ids[..]).create(mapping).map_err(h5)?;
    file.close().map_err(h5)
}
