//! Origin–destination demand, stored by origin.

use std::path::Path;

use graph_core::io::tntp::{TntpTrips, read_trips};

use crate::error::TapError;
use crate::matrix::ZoneMatrix;
use crate::network::Network;

/// Demand between nodes of a [`Network`], grouped by origin (CSR): for the `i`-th origin, destinations
/// `dest[offsets[i]..offsets[i + 1]]` with flows alongside. Entries for the same pair are summed; zero and
/// intrazonal (origin = destination) entries are dropped, the intrazonal total is kept for reports.
///
/// ```
/// use urbanflow::tap::{CostFactors, Demand, Link, Network};
/// let link = Link { from: 0, to: 1, capacity: 1.0, length: 0.0, free_flow_time: 1.0, b: 0.0, power: 0.0, toll: 0.0 };
/// let net = Network::new(2, &[link], 0, CostFactors::default()).unwrap();
/// let d = Demand::from_pairs(&net, [(0, 1, 5.0), (0, 1, 2.0), (1, 1, 9.0)]).unwrap();
/// assert_eq!(d.total(), 7.0);
/// assert_eq!(d.intrazonal(), 9.0);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Demand {
    origins: Vec<u32>,
    offsets: Vec<u32>,
    dest: Vec<u32>,
    flow: Vec<f64>,
    intrazonal: f64,
}

impl Demand {
    /// Reads a TNTP `_trips` file for `net`.
    pub fn read_tntp(path: impl AsRef<Path>, net: &Network) -> Result<Self, TapError> {
        Self::from_tntp(&read_trips(path.as_ref())?, net)
    }

    /// Builds the demand of a parsed `_trips` file; every zone must be a node of `net`, and a network
    /// read from a TNTP file must declare the trips file's `<NUMBER OF ZONES>` — or, where it declares
    /// every node a zone (Munich's), at least as many ([`TapError::ZoneCountMismatch`]).
    pub fn from_tntp(trips: &TntpTrips, net: &Network) -> Result<Self, TapError> {
        if let Some(net_path) = net.path() {
            let net_zones = u64::from(net.num_zones());
            let every_node_a_zone = net_zones == net.num_nodes() as u64;
            let fits = trips.zones == net_zones || (every_node_a_zone && trips.zones <= net_zones);
            if !fits {
                return Err(TapError::ZoneCountMismatch {
                    trips: trips.path.clone(),
                    trips_zones: trips.zones,
                    net: net_path.to_path_buf(),
                    net_zones,
                });
            }
        }
        let mut pairs = Vec::with_capacity(trips.entries.len());
        for (&(o, d, f), &line) in trips.entries.iter().zip(&trips.lines) {
            let index = |zone: u64| {
                net.node_index(zone).ok_or_else(|| TapError::UnknownZone {
                    path: trips.path.clone(),
                    line,
                    zone,
                })
            };
            pairs.push((index(o)?, index(d)?, f));
        }
        Self::from_pairs(net, pairs)
    }

    /// The demand of a zone matrix (an OMX or CSV file's, [`ZoneMatrix`]) whose zone ids are zones
    /// of `net` (its first `num_zones` nodes, by their file ids); `what` names the matrix in errors.
    /// A zone id that is not one of the network's zones, or a value that is negative or not finite:
    /// errors.
    ///
    /// ```
    /// use urbanflow::tap::{CostFactors, Demand, Link, Network, matrix::ZoneMatrix};
    /// let link = Link { from: 0, to: 1, capacity: 1.0, length: 0.0, free_flow_time: 1.0, b: 0.0, power: 0.0, toll: 0.0 };
    /// let net = Network::new(2, &[link], 2, CostFactors::default()).unwrap();
    /// // Network::new numbers nodes 1..=n as a TNTP file does.
    /// let m = ZoneMatrix::new(vec![2, 1], vec![0.0, 0.0, 7.0, 0.0]).unwrap();
    /// let d = Demand::from_zone_matrix(&net, &m, "trips").unwrap();
    /// assert_eq!(d.pairs().collect::<Vec<_>>(), vec![(0, 1, 7.0)]);
    /// ```
    pub fn from_zone_matrix(net: &Network, matrix: &ZoneMatrix, what: &str) -> Result<Self, TapError> {
        let zones = net.num_zones();
        let index: Vec<u32> = matrix
            .zones()
            .iter()
            .map(|&z| {
                net.node_index(z).filter(|&v| v < zones).ok_or_else(|| {
                    TapError::InvalidOption(format!(
                        "{what}: zone {z} is not one of the network's {zones} zones"
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
        let n = index.len();
        let pairs = matrix.values().iter().enumerate().map(|(k, &f)| (index[k / n], index[k % n], f));
        Self::from_pairs(net, pairs)
    }

    /// Builds demand from `(origin, destination, flow)` with dense node indices.
    pub fn from_pairs(
        net: &Network,
        pairs: impl IntoIterator<Item = (u32, u32, f64)>,
    ) -> Result<Self, TapError> {
        let n = net.num_nodes() as u32;
        let mut intrazonal = 0.0;
        let mut list = Vec::new();
        for (o, d, f) in pairs {
            if o >= n || d >= n {
                return Err(TapError::InvalidOption(format!("demand {o}→{d} names a node outside 0..{n}")));
            }
            if !(f >= 0.0 && f.is_finite()) {
                return Err(TapError::InvalidOption(format!(
                    "demand {o}→{d} is {f}: expected a finite flow ≥ 0"
                )));
            }
            if o == d {
                intrazonal += f;
            } else if f > 0.0 {
                list.push((o, d, f));
            }
        }
        list.sort_by_key(|&(o, d, _)| (o, d));
        let mut demand =
            Self { origins: Vec::new(), offsets: vec![0], dest: Vec::new(), flow: Vec::new(), intrazonal };
        for (o, d, f) in list {
            let new_origin = demand.origins.last() != Some(&o);
            if new_origin {
                if !demand.origins.is_empty() {
                    demand.offsets.push(demand.dest.len() as u32);
                }
                demand.origins.push(o);
            }
            if !new_origin && demand.dest.last() == Some(&d) {
                *demand.flow.last_mut().expect("a previous entry") += f;
            } else {
                demand.dest.push(d);
                demand.flow.push(f);
            }
        }
        if !demand.origins.is_empty() {
            demand.offsets.push(demand.dest.len() as u32);
        }
        Ok(demand)
    }

    /// The arrays as stored (origins, offsets, destinations, flows) and the intrazonal total: what the
    /// demand cache writes.
    pub(crate) fn parts(&self) -> (&[u32], &[u32], &[u32], &[f64], f64) {
        (&self.origins, &self.offsets, &self.dest, &self.flow, self.intrazonal)
    }

    /// The demand of stored arrays, or `None` unless they are what [`Demand::from_pairs`] builds for a
    /// network of `nodes` nodes: origins ascending, each origin's destinations ascending and other than
    /// it, flows positive and finite.
    pub(crate) fn from_parts(
        origins: Vec<u32>,
        offsets: Vec<u32>,
        dest: Vec<u32>,
        flow: Vec<f64>,
        intrazonal: f64,
        nodes: usize,
    ) -> Option<Self> {
        let n = u32::try_from(nodes).ok()?;
        let shaped = offsets.len() == origins.len() + 1
            && offsets.first() == Some(&0)
            && offsets.last().map(|&e| e as usize) == Some(dest.len())
            && dest.len() == flow.len()
            && offsets.windows(2).all(|w| w[0] < w[1])
            && origins.windows(2).all(|w| w[0] < w[1])
            && origins.last().is_none_or(|&o| o < n);
        if !(shaped && intrazonal >= 0.0 && intrazonal.is_finite()) {
            return None;
        }
        for (i, &o) in origins.iter().enumerate() {
            let row = offsets[i] as usize..offsets[i + 1] as usize;
            let ds = &dest[row.clone()];
            if ds.iter().any(|&d| d >= n || d == o) || ds.windows(2).any(|w| w[0] >= w[1]) {
                return None;
            }
            if flow[row].iter().any(|&f| !(f > 0.0 && f.is_finite())) {
                return None;
            }
        }
        Some(Self { origins, offsets, dest, flow, intrazonal })
    }

    /// The same pairs with other flows, one per pair in [`Demand::pairs`] order, each finite and ≥ 0
    /// (what matrix estimation changes: a pair of a class scaled to nothing stays at zero); `None` for a
    /// wrong count or a flow out of range.
    pub fn with_flows(&self, flows: Vec<f64>) -> Option<Self> {
        if flows.len() != self.flow.len() || flows.iter().any(|&f| !(f >= 0.0 && f.is_finite())) {
            return None;
        }
        Some(Self { flow: flows, ..self.clone() })
    }

    /// Whether `other` has exactly these OD pairs (whatever their flows).
    pub fn same_pairs(&self, other: &Demand) -> bool {
        self.origins == other.origins && self.offsets == other.offsets && self.dest == other.dest
    }

    /// The flow of every pair, in [`Demand::pairs`] order.
    pub fn flows(&self) -> &[f64] {
        &self.flow
    }

    /// Every flow multiplied by `factor` (Chicago-Sketch's README suggests ×2 for testing).
    pub fn scaled(&self, factor: f64) -> Self {
        let mut d = self.clone();
        d.flow.iter_mut().for_each(|f| *f *= factor);
        d.intrazonal *= factor;
        d
    }

    /// Total demand between distinct nodes.
    pub fn total(&self) -> f64 {
        self.flow.iter().sum()
    }
    /// Total intrazonal demand (dropped from the assignment).
    pub fn intrazonal(&self) -> f64 {
        self.intrazonal
    }
    /// Number of origins with demand.
    pub fn num_origins(&self) -> usize {
        self.origins.len()
    }
    /// Number of OD pairs with demand.
    pub fn num_pairs(&self) -> usize {
        self.dest.len()
    }
    /// The origins with demand (dense node indices, increasing).
    pub fn origins(&self) -> &[u32] {
        &self.origins
    }
    /// Every pair `(origin, destination, flow)` (dense node indices), origin by origin in increasing
    /// order, each origin's destinations as [`Demand::from_origin`] lists them.
    pub fn pairs(&self) -> impl Iterator<Item = (u32, u32, f64)> + '_ {
        (0..self.num_origins()).flat_map(move |i| {
            let (dests, flows) = self.from_origin(i);
            dests.iter().zip(flows).map(move |(&d, &f)| (self.origins[i], d, f))
        })
    }

    /// Destinations and flows of the `i`-th origin.
    pub fn from_origin(&self, i: usize) -> (&[u32], &[f64]) {
        let r = self.offsets[i] as usize..self.offsets[i + 1] as usize;
        (&self.dest[r.clone()], &self.flow[r])
    }
}
