//! The frequency-based transit graph of optimal-strategies assignment: edges with a travel time and a
//! frequency (infinite where no one waits), and labels that say what each edge is.

use std::path::Path;

use crate::TdError;

/// What an edge stands for. It decides which skim its time counts in; assignment itself reads only
/// times and frequencies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EdgeKind {
    /// Riding a line between two stops (in-vehicle time).
    OnBoard,
    /// Staying on board while a line stops (in-vehicle time).
    Dwell,
    /// Boarding a line at a stop (the wait comes from its frequency).
    Boarding,
    /// Getting off a line.
    Alighting,
    /// From one line to another at a stop without walking (AequilibraE's `inner_transfer`).
    Transfer,
    /// Walking between stops (`walking`, `outer_transfer`).
    Walking,
    /// Between a zone and a stop (`access_connector`, `egress_connector`, `connector`).
    Connector,
    /// Any other label, or none.
    Other,
}

impl EdgeKind {
    /// The kind of a `link_type` label as AequilibraE and this crate's GTFS builder write them.
    pub fn from_label(label: &str) -> Self {
        match label.trim() {
            "on-board" | "on_board" => Self::OnBoard,
            "dwell" => Self::Dwell,
            "boarding" => Self::Boarding,
            "alighting" => Self::Alighting,
            "inner_transfer" | "transfer" => Self::Transfer,
            "walking" | "outer_transfer" => Self::Walking,
            "access_connector" | "egress_connector" | "connector" => Self::Connector,
            _ => Self::Other,
        }
    }

    /// Whether time on this edge is in-vehicle time.
    pub fn in_vehicle(self) -> bool {
        matches!(self, Self::OnBoard | Self::Dwell)
    }

    /// Whether time on this edge is walking time (between stops, or to and from zones).
    pub fn walking(self) -> bool {
        matches!(self, Self::Walking | Self::Connector)
    }
}

/// A transit graph for optimal strategies: vertices `0..num_vertices`, edges with travel times (any
/// unit, the same for every edge) and frequencies (per that unit; `f64::INFINITY` where there is no
/// wait), plus labels: the user's edge ids, kinds, lines and stops.
///
/// ```
/// use urbanflow::transit::strategies::{EdgeKind, HyperpathGraph};
/// // Two lines from 0 to 1: a board edge each (wait), then the ride.
/// let inf = f64::INFINITY;
/// let g = HyperpathGraph::from_edges(
///     4,
///     &[(0, 2, 0.0, 1.0 / 600.0), (2, 1, 900.0, inf), (0, 3, 0.0, 1.0 / 300.0), (3, 1, 1200.0, inf)],
/// )?;
/// assert_eq!((g.num_vertices(), g.num_edges()), (4, 4));
/// assert_eq!(g.kind(0), EdgeKind::Other);
/// # Ok::<(), urbanflow::transit::TdError>(())
/// ```
#[derive(Debug, Clone)]
pub struct HyperpathGraph {
    num_vertices: u32,
    pub(crate) tail: Vec<u32>,
    pub(crate) head: Vec<u32>,
    pub(crate) time: Vec<f64>,
    pub(crate) freq: Vec<f64>,
    kind: Vec<EdgeKind>,
    link_id: Vec<i64>,
    line: Vec<String>,
    stop: Vec<String>,
    /// Edges entering each vertex: `in_edges[in_start[v]..in_start[v + 1]]`, by increasing travel time
    /// (floored as the sweep counts it), then edge index: the order the sweep examines them in once the
    /// vertex's label is set.
    pub(crate) in_start: Vec<u32>,
    pub(crate) in_edges: Vec<u32>,
    /// `time[in_edges[k]]` floored at [`TIME_FLOOR`](super::TIME_FLOOR), beside it.
    pub(crate) in_time: Vec<f64>,
    /// `tail[in_edges[k]]`, beside it.
    pub(crate) in_tail: Vec<u32>,
}

impl HyperpathGraph {
    /// A graph of `num_vertices` vertices from `(tail, head, time, frequency)` edges, without labels
    /// (edge ids are the 0-based edge indices). Times must be finite and ≥ 0, frequencies > 0 (or
    /// infinite).
    pub fn from_edges(num_vertices: u32, edges: &[(u32, u32, f64, f64)]) -> Result<Self, TdError> {
        for (i, &(t, h, c, f)) in edges.iter().enumerate() {
            if let Some(why) = edge_problem(num_vertices, t, h, c, f) {
                return Err(TdError::InvalidParameter(format!("edge {i}: {why}")));
            }
        }
        let n = edges.len();
        Ok(Self::build(
            num_vertices,
            edges.iter().map(|e| e.0).collect(),
            edges.iter().map(|e| e.1).collect(),
            edges.iter().map(|e| e.2).collect(),
            edges.iter().map(|e| e.3).collect(),
            vec![EdgeKind::Other; n],
            (0..n as i64).collect(),
            vec![String::new(); n],
            vec![String::new(); n],
        ))
    }

    /// Reads an edge list CSV: `tail,head,trav_time,freq` (vertex ids from 0; `inf` for no wait) and the
    /// optional columns `link_id` (the ids results are reported in; default the 1-based row),
    /// `link_type` ([`EdgeKind::from_label`]), `line_id` and `stop_id`. AequilibraE's transit graphs
    /// (`graph.edges`) read as they are. Vertices are `0..=` the largest id used.
    ///
    /// Refused, naming file and line: a missing column, a non-numeric or negative time, a frequency
    /// that is not positive, a negative vertex id, a repeated `link_id`.
    pub fn read_csv(path: impl AsRef<Path>) -> Result<Self, TdError> {
        let path = path.as_ref();
        let bad = |line: u64, message: String| super::table::error(path, line, message);
        let (mut reader, header) = super::table::open(path)?;
        let column = |name: &str| header.find(&[name]);
        let need = |name: &str| {
            column(name).ok_or_else(|| {
                bad(1, format!("no `{name}` column (expected tail,head,trav_time,freq and optional link_id,link_type,line_id,stop_id)"))
            })
        };
        let (ct, ch, cc, cf) = (need("tail")?, need("head")?, need("trav_time")?, need("freq")?);
        let (cid, ctype, cline, cstop) =
            (column("link_id"), column("link_type"), column("line_id"), column("stop_id"));
        let (mut tail, mut head, mut time, mut freq) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut kind, mut link_id, mut line, mut stop) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut seen = std::collections::HashMap::new();
        for (row, record) in reader.records().enumerate() {
            let record = record.map_err(|e| bad(row as u64 + 2, e.to_string()))?;
            let at = record.position().map_or(row as u64 + 2, |p| p.line());
            let field = |c: usize| record.get(c).unwrap_or("");
            let vertex = |c: usize, what: &str| -> Result<u32, TdError> {
                field(c).parse::<u32>().map_err(|_| {
                    bad(at, format!("{what} `{}`: expected a vertex id (an integer from 0)", field(c)))
                })
            };
            let (t, h) = (vertex(ct, "tail")?, vertex(ch, "head")?);
            let number = |c: usize, what: &str| -> Result<f64, TdError> {
                field(c)
                    .parse::<f64>()
                    .map_err(|_| bad(at, format!("{what} `{}`: expected a number", field(c))))
            };
            let (c, f) = (number(cc, "trav_time")?, number(cf, "freq")?);
            if let Some(why) = edge_problem(u32::MAX, t, h, c, f) {
                return Err(bad(at, why));
            }
            let id = match cid {
                Some(k) => field(k)
                    .parse::<i64>()
                    .map_err(|_| bad(at, format!("link_id `{}`: expected an integer", field(k))))?,
                None => tail.len() as i64 + 1,
            };
            if let Some(first) = seen.insert(id, at) {
                return Err(bad(at, format!("link_id {id} repeats the edge of line {first}")));
            }
            tail.push(t);
            head.push(h);
            time.push(c);
            freq.push(f);
            kind.push(ctype.map_or(EdgeKind::Other, |k| EdgeKind::from_label(field(k))));
            link_id.push(id);
            line.push(cline.map_or(String::new(), |k| field(k).to_string()));
            stop.push(cstop.map_or(String::new(), |k| field(k).to_string()));
        }
        if tail.is_empty() {
            return Err(bad(1, "no edges".into()));
        }
        let n = tail.iter().chain(&head).max().map_or(0, |&v| v + 1);
        Ok(Self::build(n, tail, head, time, freq, kind, link_id, line, stop))
    }

    /// A graph from checked, labelled columns (the GTFS builder's), `(tail, head, time, frequency, kind,
    /// line, stop)` per edge; edge ids are the 1-based edge indices.
    pub(crate) fn from_labelled(
        num_vertices: u32,
        edges: Vec<(u32, u32, f64, f64, EdgeKind, String, String)>,
    ) -> Self {
        let n = edges.len();
        let mut cols =
            (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut kind, mut line, mut stop) =
            (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
        for (t, h, c, f, k, l, s) in edges {
            debug_assert!(edge_problem(num_vertices, t, h, c, f).is_none());
            cols.0.push(t);
            cols.1.push(h);
            cols.2.push(c);
            cols.3.push(f);
            kind.push(k);
            line.push(l);
            stop.push(s);
        }
        Self::build(num_vertices, cols.0, cols.1, cols.2, cols.3, kind, (1..=n as i64).collect(), line, stop)
    }

    /// Writes the graph as an edge list CSV in [`HyperpathGraph::read_csv`]'s schema (AequilibraE's);
    /// times and frequencies keep every bit.
    pub fn write_csv(&self, path: impl AsRef<Path>) -> Result<(), csv::Error> {
        let mut w = csv::Writer::from_path(path)?;
        w.write_record(["link_id", "tail", "head", "trav_time", "freq", "link_type", "line_id", "stop_id"])?;
        for e in 0..self.num_edges() {
            let kind = match self.kind[e] {
                EdgeKind::OnBoard => "on-board",
                EdgeKind::Dwell => "dwell",
                EdgeKind::Boarding => "boarding",
                EdgeKind::Alighting => "alighting",
                EdgeKind::Transfer => "inner_transfer",
                EdgeKind::Walking => "walking",
                EdgeKind::Connector => "connector",
                EdgeKind::Other => "",
            };
            let f =
                if self.freq[e].is_infinite() { "inf".to_string() } else { format!("{:?}", self.freq[e]) };
            w.write_record([
                &self.link_id[e].to_string(),
                &self.tail[e].to_string(),
                &self.head[e].to_string(),
                &format!("{:?}", self.time[e]),
                &f,
                kind,
                &self.line[e],
                &self.stop[e],
            ])?;
        }
        w.flush()?;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)] // the columns of one table, checked by both constructors
    fn build(
        num_vertices: u32,
        tail: Vec<u32>,
        head: Vec<u32>,
        time: Vec<f64>,
        freq: Vec<f64>,
        kind: Vec<EdgeKind>,
        link_id: Vec<i64>,
        line: Vec<String>,
        stop: Vec<String>,
    ) -> Self {
        let mut in_start = vec![0u32; num_vertices as usize + 1];
        for &h in &head {
            in_start[h as usize + 1] += 1;
        }
        for v in 0..num_vertices as usize {
            in_start[v + 1] += in_start[v];
        }
        let mut fill = in_start.clone();
        let mut in_edges = vec![0u32; head.len()];
        for (e, &h) in head.iter().enumerate() {
            in_edges[fill[h as usize] as usize] = e as u32;
            fill[h as usize] += 1;
        }
        let floored = |e: u32| time[e as usize].max(super::TIME_FLOOR);
        for v in 0..num_vertices as usize {
            let range = in_start[v] as usize..in_start[v + 1] as usize;
            in_edges[range].sort_by(|&a, &b| floored(a).total_cmp(&floored(b)).then(a.cmp(&b)));
        }
        let in_time = in_edges.iter().map(|&e| floored(e)).collect();
        let in_tail = in_edges.iter().map(|&e| tail[e as usize]).collect();
        Self {
            num_vertices,
            tail,
            head,
            time,
            freq,
            kind,
            link_id,
            line,
            stop,
            in_start,
            in_edges,
            in_time,
            in_tail,
        }
    }

    /// The graph with each edge's kind set (they decide which skim an edge's time counts in; edges of
    /// [`HyperpathGraph::from_edges`] are [`EdgeKind::Other`]): one kind per edge, in edge order.
    pub fn with_kinds(mut self, kinds: impl IntoIterator<Item = EdgeKind>) -> Result<Self, TdError> {
        let kinds: Vec<EdgeKind> = kinds.into_iter().collect();
        if kinds.len() != self.num_edges() {
            return Err(TdError::InvalidParameter(format!(
                "{} edge kinds for {} edges",
                kinds.len(),
                self.num_edges()
            )));
        }
        self.kind = kinds;
        Ok(self)
    }

    /// Vertices.
    pub fn num_vertices(&self) -> u32 {
        self.num_vertices
    }

    /// Edges.
    pub fn num_edges(&self) -> usize {
        self.tail.len()
    }

    /// Edge `e`'s `(tail, head, time, frequency)`.
    pub fn edge(&self, e: usize) -> (u32, u32, f64, f64) {
        (self.tail[e], self.head[e], self.time[e], self.freq[e])
    }

    /// Edge `e`'s kind.
    pub fn kind(&self, e: usize) -> EdgeKind {
        self.kind[e]
    }

    /// Edge `e`'s id as the user gave it (`link_id`, else its 1-based row; the 0-based index for
    /// [`HyperpathGraph::from_edges`]).
    pub fn link_id(&self, e: usize) -> i64 {
        self.link_id[e]
    }

    /// Edge `e`'s line (empty when not given).
    pub fn line(&self, e: usize) -> &str {
        &self.line[e]
    }

    /// Edge `e`'s stop (empty when not given).
    pub fn stop(&self, e: usize) -> &str {
        &self.stop[e]
    }
}

/// Why an edge cannot be in a graph, if it cannot.
fn edge_problem(num_vertices: u32, tail: u32, head: u32, time: f64, freq: f64) -> Option<String> {
    if tail >= num_vertices || head >= num_vertices {
        return Some(format!("vertex {} is not below the vertex count {num_vertices}", tail.max(head)));
    }
    if !(time.is_finite() && time >= 0.0) {
        return Some(format!("travel time {time}: expected a finite time ≥ 0"));
    }
    if freq.is_nan() || freq <= 0.0 {
        return Some(format!("frequency {freq}: expected a frequency > 0 (or inf where there is no wait)"));
    }
    None
}
