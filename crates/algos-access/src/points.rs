//! Points files: `vertex,weight` (vertex ids of the graph file) or `lat,lon,weight` (to be snapped to
//! the network), with a header naming the columns; `weight` is optional (1 for every point) and other
//! columns are ignored.

use std::path::Path;

use crate::error::AccessError;

/// Where a point is, as the file says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Location {
    /// A vertex id as the graph file writes it.
    Vertex(u64),
    /// Latitude and longitude in degrees (WGS 84).
    LatLon(f64, f64),
}

/// One row of a points file.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointRecord {
    /// Where.
    pub location: Location,
    /// Its weight (opportunities), 1 when the file has no `weight` column.
    pub weight: f64,
    /// Its 1-based line in the file, for messages about it.
    pub line: u64,
}

/// Reads a points file (see the module's description). Errors name the file and line: a missing
/// header column, a field that is not a number, a latitude or longitude out of range, a weight that
/// is negative, infinite or NaN.
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("uf-points-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("jobs.csv");
/// std::fs::write(&path, "vertex,weight\n17,120\n4,3.5\n").unwrap();
/// let points = urbanflow::access::read_points(&path).unwrap();
/// assert_eq!(points[0].location, urbanflow::access::Location::Vertex(17));
/// assert_eq!((points[1].weight, points[1].line), (3.5, 3));
/// std::fs::write(&path, "vertex,weight\n17,-1\n").unwrap();
/// let err = urbanflow::access::read_points(&path).unwrap_err().to_string();
/// assert!(err.contains("jobs.csv:2"), "{err}");
/// ```
pub fn read_points(path: impl AsRef<Path>) -> Result<Vec<PointRecord>, AccessError> {
    let path = path.as_ref();
    let (mut reader, header) = open(path)?;
    let find = |names: &[&str]| header.iter().position(|h| names.contains(&h.as_str()));
    let vertex = find(&["vertex", "node", "node_id", "vertex_id"]);
    let lat = find(&["lat", "latitude", "y"]);
    let lon = find(&["lon", "lng", "longitude", "x"]);
    let weight = find(&["weight", "value", "opportunities"]);
    let line_err = |line: u64, message: String| AccessError::Line { path: path.to_path_buf(), line, message };
    let columns = match (vertex, lat, lon) {
        (Some(v), _, _) => Columns::Vertex(v),
        (None, Some(a), Some(o)) => Columns::LatLon(a, o),
        _ => {
            return Err(line_err(
                1,
                format!("header `{}`: expected a `vertex` column, or `lat` and `lon`", header.join(",")),
            ));
        }
    };
    let mut out = Vec::new();
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => return Err(line_err(e.position().map_or(0, |p| p.line()), e.to_string())),
        }
        let line = record.position().map_or(0, |p| p.line());
        if record.iter().all(|f| f.trim().is_empty()) {
            continue;
        }
        let field = |i: usize, what: &str| -> Result<&str, AccessError> {
            record.get(i).map(str::trim).filter(|f| !f.is_empty()).ok_or_else(|| {
                line_err(line, format!("no {what} (column {}): expected {} fields", i + 1, header.len()))
            })
        };
        let number = |i: usize, what: &str| -> Result<f64, AccessError> {
            let f = field(i, what)?;
            f.parse::<f64>().map_err(|_| line_err(line, format!("{what} `{f}` is not a number")))
        };
        let location = match columns {
            Columns::Vertex(i) => {
                let f = field(i, "vertex")?;
                Location::Vertex(f.parse::<u64>().map_err(|_| {
                    line_err(line, format!("vertex `{f}` is not a vertex id (an integer ≥ 0)"))
                })?)
            }
            Columns::LatLon(a, o) => {
                let (la, lo) = (number(a, "latitude")?, number(o, "longitude")?);
                if !(-90.0..=90.0).contains(&la) || !(-180.0..=180.0).contains(&lo) {
                    return Err(line_err(
                        line,
                        format!("({la}, {lo}) is not a latitude in [−90, 90] and a longitude in [−180, 180]"),
                    ));
                }
                Location::LatLon(la, lo)
            }
        };
        let w = match weight {
            Some(i) => number(i, "weight")?,
            None => 1.0,
        };
        if !(w.is_finite() && w >= 0.0) {
            return Err(line_err(line, format!("weight {w}: expected a finite number ≥ 0")));
        }
        out.push(PointRecord { location, weight: w, line });
    }
    Ok(out)
}

/// Reads a sources file: a header with a `vertex` column, then one vertex id per row (ids as the
/// graph file writes them), with their lines.
pub fn read_source_ids(path: impl AsRef<Path>) -> Result<Vec<(u64, u64)>, AccessError> {
    let path = path.as_ref();
    let points = read_points(path)?;
    points
        .iter()
        .map(|p| match p.location {
            Location::Vertex(id) => Ok((id, p.line)),
            Location::LatLon(..) => Err(AccessError::Line {
                path: path.to_path_buf(),
                line: 1,
                message: "a sources file lists vertex ids: expected a `vertex` column".into(),
            }),
        })
        .collect()
}

enum Columns {
    Vertex(usize),
    LatLon(usize, usize),
}

fn open(path: &Path) -> Result<(csv::Reader<std::fs::File>, Vec<String>), AccessError> {
    let file = std::fs::File::open(path)
        .map_err(|e| AccessError::File { path: path.to_path_buf(), message: e.to_string() })?;
    let mut reader =
        csv::ReaderBuilder::new().has_headers(true).flexible(true).trim(csv::Trim::All).from_reader(file);
    let header = reader
        .headers()
        .map_err(|e| AccessError::Line { path: path.to_path_buf(), line: 1, message: e.to_string() })?
        .iter()
        .map(|h| h.trim().trim_start_matches('\u{feff}').to_ascii_lowercase())
        .collect();
    Ok((reader, header))
}
