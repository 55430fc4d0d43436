//! Zone × zone matrices and trip distribution: iterative proportional fitting ([`ipf`]) and the gravity
//! model ([`gravity`]), with matrices and zone totals read from and written to CSV in the user's zone
//! ids.
//!
//! Files: a matrix is `origin,destination,value` (one row per cell; cells not listed are 0 — for a
//! cost matrix, unreachable), zone totals are `zone,total`. The zones of a study are those of its
//! totals file, in file order; a matrix cell naming another zone is an error.
//!
//! ```
//! use urbanflow::tap::matrix::{IpfOptions, ZoneMatrix, ipf};
//! let zones = vec![10, 20];
//! let seed = ZoneMatrix::new(zones.clone(), vec![1.0, 2.0, 3.0, 4.0]).unwrap();
//! let b = ipf(seed.values(), &[10.0, 20.0], &[12.0, 18.0], &IpfOptions::default()).unwrap();
//! let trips = ZoneMatrix::new(zones, b.matrix).unwrap();
//! assert!((trips.get(10, 20).unwrap() + trips.get(10, 10).unwrap() - 10.0).abs() < 1e-9);
//! ```

mod calibrate;
mod gravity;
mod ipf;
#[cfg(feature = "gpu")]
mod ipf_gpu;
#[cfg(feature = "omx")]
pub mod omx;

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::Path;

use graph_core::io::{create_text, open_text};

pub(crate) use calibrate::mean_cost;
pub use calibrate::{
    CalibrateOptions, Calibrated, Fit, Observed, TripLengths, calibrate, calibrate_to, coincidence_ratio,
};
pub use gravity::{Constraint, Deterrence, gravity, gravity_with_k_factors};
pub use ipf::{Balanced, IpfOptions, ipf, ipf_owned};
#[cfg(feature = "gpu")]
pub use ipf_gpu::ipf_gpu;

use crate::error::TapError;

/// A dense square matrix over zones named by the user's ids, row-major (row = origin).
#[derive(Debug, Clone, PartialEq)]
pub struct ZoneMatrix {
    zones: Vec<u64>,
    values: Vec<f64>,
}

impl ZoneMatrix {
    /// A matrix over `zones` (distinct ids) with `values` (`zones² `, row-major).
    pub fn new(zones: Vec<u64>, values: Vec<f64>) -> Result<Self, TapError> {
        if values.len() != zones.len() * zones.len() {
            return Err(TapError::InvalidOption(format!(
                "{} values for {} zones",
                values.len(),
                zones.len()
            )));
        }
        let mut seen = HashMap::new();
        if let Some(z) = zones.iter().find(|&&z| seen.insert(z, ()).is_some()) {
            return Err(TapError::InvalidOption(format!("zone {z} is named twice")));
        }
        Ok(Self { zones, values })
    }

    /// Reads `origin,destination,value` rows (a header first; other columns are ignored) over `zones`;
    /// cells not listed hold `missing` (0 for trips, `f64::INFINITY` for costs). A zone not in `zones`,
    /// a value that is not a finite number ≥ 0, a cell listed twice: errors
    /// with file and line.
    pub fn read_csv(path: impl AsRef<Path>, zones: &[u64], missing: f64) -> Result<Self, TapError> {
        let path = path.as_ref();
        let error =
            |line: u64, message: String| TapError::TableFile { path: path.to_path_buf(), line, message };
        let index: HashMap<u64, usize> = zones.iter().enumerate().map(|(k, &z)| (z, k)).collect();
        let n = zones.len();
        let mut values = vec![missing; n * n];
        let mut line_of = vec![0u64; n * n];
        let (mut reader, [o, d, v]) = csv_columns(
            path,
            &[
                &["origin", "from", "o"],
                &["destination", "to", "d"],
                &["value", "trips", "demand", "cost", "flow"],
            ],
            "origin,destination,value",
        )?;
        for record in reader.records() {
            let record = record.map_err(|e| error(e.position().map_or(0, |p| p.line()), e.to_string()))?;
            let line = record.position().map_or(0, |p| p.line());
            let field = |i: usize| record.get(i).unwrap_or("");
            let zone = |i: usize, what: &str| {
                let id = field(i)
                    .parse::<u64>()
                    .map_err(|_| error(line, format!("{what} `{}`: expected a zone id", field(i))))?;
                index.get(&id).copied().ok_or_else(|| {
                    error(line, format!("{what} {id} is not a zone of the totals ({n} zones)"))
                })
            };
            let (i, j) = (zone(o, "origin")?, zone(d, "destination")?);
            let x = field(v)
                .parse::<f64>()
                .map_err(|_| error(line, format!("value `{}`: expected a number", field(v))))?;
            if !(x >= 0.0 && x.is_finite()) {
                return Err(error(line, format!("value {x}: expected a finite value ≥ 0")));
            }
            let k = i * n + j;
            if line_of[k] != 0 {
                return Err(error(
                    line,
                    format!(
                        "cell {} → {} is listed twice (first on line {})",
                        zones[i], zones[j], line_of[k]
                    ),
                ));
            }
            line_of[k] = line;
            values[k] = x;
        }
        Ok(Self { zones: zones.to_vec(), values })
    }

    /// Writes `origin,destination,value` rows (zone ids), the cells ≠ 0 only unless `all`.
    pub fn write_csv(&self, path: impl AsRef<Path>, all: bool) -> io::Result<()> {
        let mut w = create_text(path)?;
        writeln!(w, "origin,destination,value")?;
        let n = self.zones.len();
        for (k, &x) in self.values.iter().enumerate() {
            if all || x != 0.0 {
                writeln!(w, "{},{},{x}", self.zones[k / n], self.zones[k % n])?;
            }
        }
        w.flush()
    }

    /// This matrix over `zones`: the same zone set in another order (a file's zones in a study's
    /// order). `what` names the matrix in the error when the sets differ.
    ///
    /// ```
    /// use urbanflow::tap::matrix::ZoneMatrix;
    /// let m = ZoneMatrix::new(vec![1, 2], vec![0.0, 12.0, 21.0, 0.0]).unwrap();
    /// let r = m.in_order_of(&[2, 1], "trips").unwrap();
    /// assert_eq!(r.values(), &[0.0, 21.0, 12.0, 0.0]);
    /// assert!(m.in_order_of(&[1, 3], "trips").is_err());
    /// ```
    pub fn in_order_of(&self, zones: &[u64], what: &str) -> Result<Self, TapError> {
        if zones == self.zones {
            return Ok(self.clone());
        }
        let from = positions(&self.zones, zones, what)?;
        let n = zones.len();
        let mut values = Vec::with_capacity(n * n);
        for &i in &from {
            values.extend(from.iter().map(|&j| self.values[i * n + j]));
        }
        Self::new(zones.to_vec(), values)
    }

    /// The zone ids, in row order.
    pub fn zones(&self) -> &[u64] {
        &self.zones
    }

    /// The values, row-major.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The zone ids and the values (row-major), given away: a seed for [`ipf_owned`] without a copy.
    pub fn into_parts(self) -> (Vec<u64>, Vec<f64>) {
        (self.zones, self.values)
    }

    /// The value from zone `origin` to zone `destination` (ids), if both are zones.
    pub fn get(&self, origin: u64, destination: u64) -> Option<f64> {
        let i = self.zones.iter().position(|&z| z == origin)?;
        let j = self.zones.iter().position(|&z| z == destination)?;
        Some(self.values[i * self.zones.len() + j])
    }
}

/// Zone totals (productions or attractions) in a study's zone order.
#[derive(Debug, Clone, PartialEq)]
pub struct ZoneTotals {
    /// The zone ids, in file order.
    pub zones: Vec<u64>,
    /// One total per zone.
    pub totals: Vec<f64>,
}

impl ZoneTotals {
    /// Reads `zone,total` rows (a header first): every zone once, totals finite and ≥ 0; errors with
    /// file and line.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("uf-totals-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// # let path = dir.join("rows.csv");
    /// std::fs::write(&path, "zone,total\n1,100\n2,50.5\n").unwrap();
    /// let t = urbanflow::tap::matrix::ZoneTotals::read_csv(&path).unwrap();
    /// assert_eq!((t.zones, t.totals), (vec![1, 2], vec![100.0, 50.5]));
    /// ```
    pub fn read_csv(path: impl AsRef<Path>) -> Result<Self, TapError> {
        let path = path.as_ref();
        let error =
            |line: u64, message: String| TapError::TableFile { path: path.to_path_buf(), line, message };
        let (mut reader, [z, t]) = csv_columns(
            path,
            &[&["zone", "zone_id", "id"], &["total", "value", "productions", "attractions", "trips"]],
            "zone,total",
        )?;
        let (mut zones, mut totals, mut first) = (Vec::new(), Vec::new(), HashMap::new());
        for record in reader.records() {
            let record = record.map_err(|e| error(e.position().map_or(0, |p| p.line()), e.to_string()))?;
            let line = record.position().map_or(0, |p| p.line());
            let field = |i: usize| record.get(i).unwrap_or("");
            let id = field(z)
                .parse::<u64>()
                .map_err(|_| error(line, format!("zone `{}`: expected a zone id", field(z))))?;
            let x = field(t)
                .parse::<f64>()
                .map_err(|_| error(line, format!("total `{}`: expected a number", field(t))))?;
            if !(x >= 0.0 && x.is_finite()) {
                return Err(error(line, format!("total {x}: expected a finite total ≥ 0")));
            }
            if let Some(l) = first.insert(id, line) {
                return Err(error(line, format!("zone {id} is listed twice (first on line {l})")));
            }
            zones.push(id);
            totals.push(x);
        }
        if zones.is_empty() {
            return Err(error(1, "no zones: expected one `zone,total` row per zone".into()));
        }
        Ok(Self { zones, totals })
    }

    /// These totals in the order of `zones` (the same zone set), or an error naming what differs.
    pub fn in_order_of(&self, zones: &[u64], what: &str) -> Result<Vec<f64>, TapError> {
        Ok(positions(&self.zones, zones, what)?.into_iter().map(|k| self.totals[k]).collect())
    }
}

/// Where each of `wanted` stands in `have` (the same zone set in another order); `what` names the
/// table in the error when the sets differ.
fn positions(have: &[u64], wanted: &[u64], what: &str) -> Result<Vec<usize>, TapError> {
    if wanted.len() != have.len() {
        return Err(TapError::InvalidOption(format!(
            "{what}: {} zones, expected {}",
            have.len(),
            wanted.len()
        )));
    }
    let index: HashMap<u64, usize> = have.iter().enumerate().map(|(k, &z)| (z, k)).collect();
    wanted
        .iter()
        .map(|z| index.get(z).copied().ok_or_else(|| TapError::InvalidOption(format!("{what}: no zone {z}"))))
        .collect()
}

/// The first band of a cost-band table (ascending upper bounds, one value each) that breaks its rules,
/// and why: bounds finite and above the previous one (the first above 0), values finite and ≥ 0.
/// `value` names the values in the message (`factor`, `value`).
fn check_bands(upper: &[f64], values: &[f64], value: &str) -> Result<(), (usize, String)> {
    if upper.is_empty() || upper.len() != values.len() {
        return Err((
            0,
            format!(
                "{} bounds and {} values: expected one {value} per band, some bands",
                upper.len(),
                values.len()
            ),
        ));
    }
    for k in 0..upper.len() {
        let previous = if k == 0 { 0.0 } else { upper[k - 1] };
        if !(upper[k].is_finite() && upper[k] > previous) {
            return Err((k, format!("upper bound {}: expected a finite bound above {previous}", upper[k])));
        }
        if !(values[k].is_finite() && values[k] >= 0.0) {
            return Err((k, format!("{value} {}: expected a finite {value} ≥ 0", values[k])));
        }
    }
    Ok(())
}

/// Reads two numeric columns (a header naming them first): `(line, a, b)` per row, numbers finite;
/// the caller checks their domain.
fn read_pairs(path: &Path, names: [&[&str]; 2], expected: &str) -> Result<Vec<(u64, f64, f64)>, TapError> {
    let error = |line: u64, message: String| TapError::TableFile { path: path.to_path_buf(), line, message };
    let (mut reader, [a, b]) = csv_columns(path, &names, expected)?;
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| error(e.position().map_or(0, |p| p.line()), e.to_string()))?;
        let line = record.position().map_or(0, |p| p.line());
        let number = |i: usize, what: &str| {
            let field = record.get(i).unwrap_or("");
            field
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| error(line, format!("{what} `{field}`: expected a finite number")))
        };
        rows.push((line, number(a, names[0][0])?, number(b, names[1][0])?));
    }
    if rows.is_empty() {
        return Err(error(1, format!("no rows: expected `{expected}` rows after the header")));
    }
    Ok(rows)
}

/// A CSV reader over a file opened by [`open_text`] (plain or compressed).
type CsvReader = csv::Reader<Box<dyn io::BufRead + Send>>;

/// Opens a CSV file with a header and finds one column per list of accepted names.
fn csv_columns<const K: usize>(
    path: &Path,
    names: &[&[&str]; K],
    expected: &str,
) -> Result<(CsvReader, [usize; K]), TapError> {
    let error = |line: u64, message: String| TapError::TableFile { path: path.to_path_buf(), line, message };
    let mut reader = csv::ReaderBuilder::new().trim(csv::Trim::All).from_reader(open_text(path)?);
    let header = reader.headers().map_err(|e| error(1, e.to_string()))?.clone();
    let mut found = [0; K];
    for (k, accepted) in names.iter().enumerate() {
        found[k] = header
            .iter()
            .position(|h| accepted.iter().any(|a| h.trim_start_matches('\u{feff}').eq_ignore_ascii_case(a)))
            .ok_or_else(|| {
                error(1, format!("no `{}` column: expected a header `{expected}`", accepted[0]))
            })?;
    }
    Ok((reader, found))
}
