//! The time-dependent network: a CSR graph whose arcs carry a label (mode) and a travel-time function.

use graph_core::Csr;

use super::error::TdError;
use super::plf::{FnKind, PlfStore};

/// Labels an automaton can read: `0..MAX_LABELS`.
pub const MAX_LABELS: u32 = 16;

/// The labels the GTFS loader and the generator use (any `u8 < MAX_LABELS` is a valid label; these
/// only give the library's own layers names).
pub mod label {
    /// Walking between stops, places and road nodes.
    pub const WALK: u8 = 0;
    /// Cycling.
    pub const BIKE: u8 = 1;
    /// Driving.
    pub const CAR: u8 = 2;
    /// Inside a station: boarding, alighting, changing platforms; joins between layers.
    pub const TRANSFER: u8 = 3;
    /// From the street into a station.
    pub const ENTER: u8 = 4;
    /// From a station to the street.
    pub const EXIT: u8 = 5;
    /// Tram, streetcar, light rail.
    pub const TRAM: u8 = 6;
    /// Subway, metro.
    pub const METRO: u8 = 7;
    /// Rail.
    pub const RAIL: u8 = 8;
    /// Bus.
    pub const BUS: u8 = 9;
    /// Ferry.
    pub const FERRY: u8 = 10;
    /// Cable car, gondola, funicular.
    pub const CABLE: u8 = 11;
    /// Any other timetabled mode.
    pub const OTHER: u8 = 12;

    /// Every timetabled (transit) label.
    pub const TRANSIT: [u8; 7] = [TRAM, METRO, RAIL, BUS, FERRY, CABLE, OTHER];

    /// A short name for a label (`label12` style for labels without one).
    pub fn name(l: u8) -> String {
        match l {
            WALK => "walk".into(),
            BIKE => "bike".into(),
            CAR => "car".into(),
            TRANSFER => "transfer".into(),
            ENTER => "enter".into(),
            EXIT => "exit".into(),
            TRAM => "tram".into(),
            METRO => "metro".into(),
            RAIL => "rail".into(),
            BUS => "bus".into(),
            FERRY => "ferry".into(),
            CABLE => "cable".into(),
            OTHER => "transit".into(),
            l => format!("label{l}"),
        }
    }

    /// Whether the label is a timetabled mode.
    pub fn is_transit(l: u8) -> bool {
        TRANSIT.contains(&l)
    }
}

/// A time-dependent network: arc `a` (the CSR position) leads from its tail to `csr.targets()[a]`,
/// has the label `label[a]` and the travel-time function `csr.weights()[a]` of `store`.
///
/// ```
/// use urbanflow::transit::{label, TdGraphBuilder};
/// let mut b = TdGraphBuilder::new(2);
/// let ride = b.store_mut().push(urbanflow::transit::FnKind::NextDeparture, [(3600, 600)]);
/// b.add_arc(0, 1, label::BUS, ride);
/// let g = b.build().unwrap();
/// assert_eq!(g.travel_time(0, 0), 3600 + 600); // wait an hour, ride ten minutes
/// ```
#[derive(Debug, Clone)]
pub struct TdGraph {
    /// Structure; the weight of an arc is its function id in `store`.
    pub csr: Csr<u32>,
    /// Label of every arc.
    pub label: Vec<u8>,
    /// The functions.
    pub store: PlfStore,
}

impl TdGraph {
    /// Number of vertices.
    pub fn num_vertices(&self) -> u32 {
        self.csr.num_vertices()
    }

    /// Number of arcs.
    pub fn num_arcs(&self) -> u32 {
        self.csr.num_arcs()
    }

    /// The travel time of arc `a` for a departure from its tail at absolute time `t`.
    #[inline]
    pub fn travel_time(&self, a: u32, t: u32) -> u32 {
        self.store.eval(self.csr.weights()[a as usize], t)
    }

    /// How long a traveller waits at the tail of arc `a` when there at time `t` (zero unless the arc
    /// is timetabled).
    pub fn wait(&self, a: u32, t: u32) -> u32 {
        let f = self.csr.weights()[a as usize];
        match self.store.kind[f as usize] {
            FnKind::Interpolated => 0,
            FnKind::NextDeparture => {
                let (ts, _) = self.store.breakpoints(f);
                let tau = t % super::plf::PERIOD;
                let k = ts.partition_point(|&x| x < tau);
                if k < ts.len() { ts[k] - tau } else { ts[0] + super::plf::PERIOD - tau }
            }
        }
    }

    /// The arc ids leaving `v`.
    pub fn arcs_of(&self, v: u32) -> std::ops::Range<u32> {
        let r = self.csr.arc_range(v);
        r.start as u32..r.end as u32
    }

    /// The head of arc `a`.
    pub fn head(&self, a: u32) -> u32 {
        self.csr.targets()[a as usize]
    }

    /// The tail of arc `a` (binary search over the offsets).
    pub fn tail(&self, a: u32) -> u32 {
        (self.csr.offsets().partition_point(|&o| o <= a) - 1) as u32
    }

    /// Bytes held by the network.
    pub fn size_in_bytes(&self) -> usize {
        self.csr.size_in_bytes()
            + self.label.len()
            + 4 * (self.store.offsets.len() + self.store.times.len() + self.store.values.len())
            + 4 * self.store.kind.len()
    }
}

/// Collects arcs (in any order) and functions, then builds a validated [`TdGraph`].
#[derive(Debug, Clone)]
pub struct TdGraphBuilder {
    n: u32,
    arcs: Vec<(u32, u32, u32, u8)>,
    store: PlfStore,
    constants: std::collections::HashMap<u32, u32>,
}

impl TdGraphBuilder {
    /// A builder for `n` vertices.
    pub fn new(n: u32) -> Self {
        Self { n, arcs: Vec::new(), store: PlfStore::new(), constants: Default::default() }
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> u32 {
        self.n
    }

    /// Adds a vertex and returns its id.
    pub fn add_vertex(&mut self) -> u32 {
        self.n += 1;
        self.n - 1
    }

    /// The function store, to add functions to.
    pub fn store_mut(&mut self) -> &mut PlfStore {
        &mut self.store
    }

    /// The id of a constant function of `seconds` (shared by every arc that uses the same constant).
    pub fn constant(&mut self, seconds: u32) -> u32 {
        if let Some(&f) = self.constants.get(&seconds) {
            return f;
        }
        let f = self.store.constant(seconds);
        self.constants.insert(seconds, f);
        f
    }

    /// Adds arc `tail → head` with `label` and function `func`.
    pub fn add_arc(&mut self, tail: u32, head: u32, label: u8, func: u32) -> &mut Self {
        self.arcs.push((tail, head, func, label));
        self
    }

    /// Adds an arc with a constant travel time.
    pub fn add_constant_arc(&mut self, tail: u32, head: u32, label: u8, seconds: u32) -> &mut Self {
        let f = self.constant(seconds);
        self.add_arc(tail, head, label, f)
    }

    /// Number of arcs added.
    pub fn num_arcs(&self) -> usize {
        self.arcs.len()
    }

    /// Sorts the arcs by tail (keeping the order they were added within a tail) and validates vertices,
    /// labels and every function (sorted breakpoints, FIFO, 32-bit exactness).
    pub fn build(self) -> Result<TdGraph, TdError> {
        let Self { n, mut arcs, store, .. } = self;
        for &(t, h, f, l) in &arcs {
            for v in [t, h] {
                if v >= n {
                    return Err(TdError::VertexOutOfRange { vertex: v, n });
                }
            }
            if l as u32 >= MAX_LABELS {
                return Err(TdError::LabelOutOfRange { label: l as u32, max: MAX_LABELS });
            }
            if f as usize >= store.len() {
                // Arc ids are known only after sorting; name the insertion index.
                let arc = arcs.iter().position(|a| a.2 == f).unwrap_or(0) as u32;
                return Err(TdError::FunctionOutOfRange { arc, func: f, count: store.len() as u32 });
            }
        }
        arcs.sort_by_key(|a| a.0);
        let mut offsets = vec![0u32; n as usize + 1];
        for &(t, ..) in &arcs {
            offsets[t as usize + 1] += 1;
        }
        for v in 0..n as usize {
            offsets[v + 1] += offsets[v];
        }
        let targets = arcs.iter().map(|a| a.1).collect();
        let funcs: Vec<u32> = arcs.iter().map(|a| a.2).collect();
        let label = arcs.iter().map(|a| a.3).collect();
        let mut first_arc = vec![u32::MAX; store.len()];
        for (a, &f) in funcs.iter().enumerate() {
            if first_arc[f as usize] == u32::MAX {
                first_arc[f as usize] = a as u32;
            }
        }
        store.validate(&first_arc)?;
        let csr = Csr::from_parts(offsets, targets, funcs)
            .map_err(|e| TdError::InvalidParameter(format!("network structure: {e}")))?;
        Ok(TdGraph { csr, label, store })
    }
}
