//! Zones (where trips start and end in the transit graph) and the demand between them, in the user's
//! zone ids.

use std::collections::HashMap;
use std::path::Path;

use rustc_hash::FxHashMap;

use super::graph::HyperpathGraph;
use crate::TdError;

/// The zones of a transit graph: each zone's id and the vertices its trips start from and end at (the
/// same vertex, or two where centroid flows are blocked).
#[derive(Debug, Clone, PartialEq)]
pub struct Zones {
    ids: Vec<i64>,
    origin: Vec<u32>,
    destination: Vec<u32>,
    // Looked up twice per demand row: FxHash, not the DoS-proof default (zone ids are the user's own).
    index: FxHashMap<i64, u32>,
}

impl Zones {
    /// Zones from `(id, origin vertex, destination vertex)`.
    pub fn new(
        g: &HyperpathGraph,
        zones: impl IntoIterator<Item = (i64, u32, u32)>,
    ) -> Result<Self, TdError> {
        let mut z = Self {
            ids: Vec::new(),
            origin: Vec::new(),
            destination: Vec::new(),
            index: FxHashMap::default(),
        };
        for (id, o, d) in zones {
            if o >= g.num_vertices() || d >= g.num_vertices() {
                return Err(TdError::InvalidParameter(format!(
                    "zone {id}: vertex {} is not in the graph ({} vertices)",
                    o.max(d),
                    g.num_vertices()
                )));
            }
            if z.index.insert(id, z.ids.len() as u32).is_some() {
                return Err(TdError::InvalidParameter(format!("zone {id} is given twice")));
            }
            z.ids.push(id);
            z.origin.push(o);
            z.destination.push(d);
        }
        Ok(z)
    }

    /// Every vertex its own zone (zone id = vertex id).
    pub fn every_vertex(g: &HyperpathGraph) -> Self {
        Self::new(g, (0..g.num_vertices()).map(|v| (v as i64, v, v))).expect("vertices are in the graph")
    }

    /// Reads `zone_id,origin_vertex,destination_vertex` (or `zone_id,vertex`), other columns ignored;
    /// AequilibraE's zone tables and the shared Coquimbo `zones.csv` read as they are. A vertex not in
    /// the graph or a repeated zone is refused with file and line.
    pub fn read_csv(path: impl AsRef<Path>, g: &HyperpathGraph) -> Result<Self, TdError> {
        let path = path.as_ref();
        let bad = |line: u64, message: String| super::table::error(path, line, message);
        let (mut reader, header) = super::table::open(path)?;
        let column = |name: &str| header.find(&[name]);
        let id = column("zone_id").ok_or_else(|| bad(1, "no `zone_id` column".into()))?;
        let (o, d) = match (column("origin_vertex"), column("destination_vertex"), column("vertex")) {
            (Some(o), Some(d), _) => (o, d),
            (_, _, Some(v)) => (v, v),
            _ => {
                return Err(bad(
                    1,
                    "expected origin_vertex and destination_vertex columns, or vertex".into(),
                ));
            }
        };
        let mut rows = Vec::new();
        let mut lines = HashMap::new();
        for (row, record) in reader.records().enumerate() {
            let record = record.map_err(|e| bad(row as u64 + 2, e.to_string()))?;
            let at = record.position().map_or(row as u64 + 2, |p| p.line());
            let field = |c: usize| record.get(c).unwrap_or("");
            let zone: i64 = field(id)
                .parse()
                .map_err(|_| bad(at, format!("zone_id `{}`: expected an integer", field(id))))?;
            let vertex = |c: usize| -> Result<u32, TdError> {
                let v: u32 =
                    field(c).parse().map_err(|_| bad(at, format!("`{}`: expected a vertex id", field(c))))?;
                if v >= g.num_vertices() {
                    return Err(bad(
                        at,
                        format!("vertex {v} is not in the graph ({} vertices)", g.num_vertices()),
                    ));
                }
                Ok(v)
            };
            rows.push((zone, vertex(o)?, vertex(d)?));
            if let Some(first) = lines.insert(zone, at) {
                return Err(bad(at, format!("zone {zone} repeats line {first}")));
            }
        }
        Self::new(g, rows)
    }

    /// Number of zones.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Zone `z`'s id.
    pub fn id(&self, z: usize) -> i64 {
        self.ids[z]
    }

    /// The index of the zone with this id.
    pub fn index_of(&self, id: i64) -> Option<usize> {
        self.index.get(&id).map(|&z| z as usize)
    }

    /// Zone `z`'s origin vertex.
    pub fn origin(&self, z: usize) -> u32 {
        self.origin[z]
    }

    /// Zone `z`'s destination vertex.
    pub fn destination(&self, z: usize) -> u32 {
        self.destination[z]
    }
}

/// Reads zone points `zone_id,lat,lon` (the id column may also be `id`; degrees, WGS 84) for
/// [`graph_from_gtfs`](super::graph_from_gtfs), with file:line errors for a bad number, a coordinate out of
/// range or a repeated zone.
pub fn read_zone_points(path: impl AsRef<Path>) -> Result<Vec<(i64, [f64; 2])>, TdError> {
    let path = path.as_ref();
    let bad = |line: u64, message: String| super::table::error(path, line, message);
    let (mut reader, header) = super::table::open(path)?;
    let column = |names: &[&str]| header.find(names);
    let (ci, clat, clon) = match (column(&["zone_id", "id"]), column(&["lat"]), column(&["lon"])) {
        (Some(i), Some(a), Some(o)) => (i, a, o),
        _ => return Err(bad(1, "expected the columns zone_id,lat,lon".into())),
    };
    let mut points = Vec::new();
    let mut lines = HashMap::new();
    for (row, record) in reader.records().enumerate() {
        let record = record.map_err(|e| bad(row as u64 + 2, e.to_string()))?;
        let at = record.position().map_or(row as u64 + 2, |p| p.line());
        let field = |c: usize| record.get(c).unwrap_or("");
        let id: i64 = field(ci)
            .parse()
            .map_err(|_| bad(at, format!("zone id `{}`: expected an integer", field(ci))))?;
        let number = |c: usize, lo: f64, hi: f64, what: &str| -> Result<f64, TdError> {
            match field(c).parse::<f64>() {
                Ok(x) if (lo..=hi).contains(&x) => Ok(x),
                _ => Err(bad(at, format!("{what} `{}`: expected degrees in [{lo}, {hi}]", field(c)))),
            }
        };
        let p = [number(clat, -90.0, 90.0, "lat")?, number(clon, -180.0, 180.0, "lon")?];
        if let Some(first) = lines.insert(id, at) {
            return Err(bad(at, format!("zone {id} repeats line {first}")));
        }
        points.push((id, p));
    }
    Ok(points)
}

/// Trips between zones: `(origin zone index, destination zone index, trips)`, each pair once.
#[derive(Debug, Clone, PartialEq)]
pub struct TransitDemand {
    pub(crate) pairs: Vec<(u32, u32, f64)>,
}

impl TransitDemand {
    /// Demand from `(origin zone id, destination zone id, trips)`; zero rows are dropped, an unknown zone,
    /// a negative or non-finite number of trips and a repeated pair are refused.
    pub fn new(zones: &Zones, rows: impl IntoIterator<Item = (i64, i64, f64)>) -> Result<Self, TdError> {
        let mut rows_at = Vec::new();
        for (k, (o, d, trips)) in rows.into_iter().enumerate() {
            let pair = Self::check(zones, o, d, trips).map_err(TdError::InvalidParameter)?;
            rows_at.push((pair, k as u64 + 1));
        }
        Self::from_rows(zones, rows_at)
            .map_err(|(_, m)| TdError::InvalidParameter(m.replace("first at", "first as row")))
    }

    /// The zone indices of a row, after checking its zones and trips.
    fn check(zones: &Zones, o: i64, d: i64, trips: f64) -> Result<(u32, u32, f64), String> {
        let index = |z: i64| {
            zones
                .index_of(z)
                .map(|i| i as u32)
                .ok_or_else(|| format!("zone {z} is not among the {} zones", zones.len()))
        };
        let (oi, di) = (index(o)?, index(d)?);
        if !(trips.is_finite() && trips >= 0.0) {
            return Err(format!("{o} → {d}: {trips} trips; expected a finite number ≥ 0"));
        }
        Ok((oi, di, trips))
    }

    /// The pairs with trips, once a repeated pair is ruled out (by sorting: no table of every pair);
    /// the error carries the repeat's row tag and says which pair and where it came first.
    fn from_rows(zones: &Zones, mut rows: Vec<((u32, u32, f64), u64)>) -> Result<Self, (u64, String)> {
        let pairs: Vec<(u32, u32, f64)> = rows.iter().map(|r| r.0).filter(|p| p.2 > 0.0).collect();
        rows.sort_unstable_by_key(|&((o, d, _), at)| (o, d, at));
        if let Some(w) = rows.windows(2).find(|w| (w[0].0.0, w[0].0.1) == (w[1].0.0, w[1].0.1)) {
            let (o, d) = (zones.id(w[1].0.0 as usize), zones.id(w[1].0.1 as usize));
            return Err((w[1].1, format!("the pair {o} → {d} is given twice (first at {})", w[0].1)));
        }
        Ok(Self { pairs })
    }

    /// Reads `origin,destination,demand` (zone ids; the third column may also be named `trips`), with
    /// file:line errors.
    pub fn read_csv(path: impl AsRef<Path>, zones: &Zones) -> Result<Self, TdError> {
        let path = path.as_ref();
        let bad = |line: u64, message: String| super::table::error(path, line, message);
        let (mut reader, header) = super::table::open(path)?;
        let column = |names: &[&str]| header.find(names);
        let (co, cd, ct) = match (column(&["origin"]), column(&["destination"]), column(&["demand", "trips"]))
        {
            (Some(o), Some(d), Some(t)) => (o, d, t),
            _ => return Err(bad(1, "expected the columns origin,destination,demand".into())),
        };
        let mut rows = Vec::new();
        // Byte records, one reused: a city's demand has hundreds of thousands of rows.
        let mut record = csv::ByteRecord::new();
        let mut row = 0u64;
        while reader.read_byte_record(&mut record).map_err(|e| bad(row + 2, e.to_string()))? {
            row += 1;
            let at = record.position().map_or(row + 1, |p| p.line());
            let field = |c: usize| std::str::from_utf8(record.get(c).unwrap_or(b"")).unwrap_or("").trim();
            let zone = |c: usize| -> Result<i64, TdError> {
                field(c).parse().map_err(|_| bad(at, format!("`{}`: expected a zone id", field(c))))
            };
            let (o, d) = (zone(co)?, zone(cd)?);
            let trips: f64 =
                field(ct).parse().map_err(|_| bad(at, format!("`{}`: expected a number", field(ct))))?;
            rows.push((Self::check(zones, o, d, trips).map_err(|m| bad(at, m))?, at));
        }
        Self::from_rows(zones, rows).map_err(|(at, m)| bad(at, m.replace("first at", "first at line")))
    }

    /// Total trips.
    pub fn total(&self) -> f64 {
        self.pairs.iter().map(|p| p.2).sum()
    }

    /// Number of zone pairs with trips.
    pub fn num_pairs(&self) -> usize {
        self.pairs.len()
    }

    /// The zone pairs with trips: `(origin, destination, trips)`, zones as indices into [`Zones`].
    pub fn pairs(&self) -> &[(u32, u32, f64)] {
        &self.pairs
    }
}
