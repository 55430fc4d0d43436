//! The road network of an assignment: directed links with cost functions, dense node ids that
//! remember the file's ids, and which nodes are zones that paths may not pass through.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use graph_core::io::tntp::{TntpNet, read_net};

use crate::error::TapError;
use crate::vdf::{Bpr, Vdf};

/// Factors that turn tolls and lengths into time units: the generalised cost of a link is
/// `time(x) + toll · toll_factor + length · distance_factor`. TNTP files do not carry them; each
/// network's README does (Chicago-Sketch: 0.02 min/cent and 0.04 min/mile).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CostFactors {
    /// Time units per toll unit.
    pub toll: f64,
    /// Time units per length unit.
    pub distance: f64,
}

/// One directed link, with dense node indices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Link {
    /// Tail node (dense index).
    pub from: u32,
    /// Head node (dense index).
    pub to: u32,
    /// Capacity.
    pub capacity: f64,
    /// Length.
    pub length: f64,
    /// Free-flow time.
    pub free_flow_time: f64,
    /// BPR B.
    pub b: f64,
    /// BPR power.
    pub power: f64,
    /// Toll.
    pub toll: f64,
}

/// A directed road network ready for assignment.
///
/// ```
/// use urbanflow::tap::{CostFactors, Link, Network};
/// let link = |from, to, t0| Link { from, to, capacity: 100.0, length: 1.0, free_flow_time: t0, b: 0.15, power: 4.0, toll: 0.0 };
/// let net = Network::new(3, &[link(0, 1, 1.0), link(1, 2, 2.0)], 0, CostFactors::default()).unwrap();
/// assert_eq!(net.num_links(), 2);
/// assert_eq!(net.node_id(2), 3); // file ids are 1-based
/// ```
#[derive(Debug, Clone)]
pub struct Network {
    path: Option<PathBuf>,
    node_ids: Vec<u64>,
    index_of: Option<HashMap<u64, u32>>,
    through: Vec<bool>,
    zones: u32,
    links: Vec<Link>,
    fixed_cost: Vec<f64>,
    out_offsets: Vec<u32>,
    out_links: Vec<u32>,
    vdf: Arc<dyn Vdf>,
}

impl Network {
    /// Reads a TNTP `_net` file (plain, `.gz` or `.xz`) into a network with BPR costs.
    pub fn read_tntp(path: impl AsRef<Path>, factors: CostFactors) -> Result<Self, TapError> {
        Self::from_tntp(&read_net(path.as_ref())?, factors)
    }

    /// Builds a network with BPR costs from a parsed `_net` file. Node ids `1..=<NUMBER OF NODES>` map to
    /// `0..n`; files with other ids (Munich) get dense ids in increasing id order. Nodes with id below
    /// `<FIRST THRU NODE>` are zones that paths may start or end at but not pass through.
    pub fn from_tntp(net: &TntpNet, factors: CostFactors) -> Result<Self, TapError> {
        let node_ids = net.node_ids();
        let contiguous = node_ids.iter().enumerate().all(|(i, &id)| id == i as u64 + 1);
        let index_of: Option<HashMap<u64, u32>> =
            (!contiguous).then(|| node_ids.iter().enumerate().map(|(i, &id)| (id, i as u32)).collect());
        let index = |id: u64| match &index_of {
            None => (id - 1) as u32,
            Some(m) => m[&id],
        };
        let mut links = Vec::with_capacity(net.links.len());
        for l in &net.links {
            if l.capacity <= 0.0 && l.b != 0.0 {
                return Err(TapError::CapacityZero {
                    path: net.path.clone(),
                    line: l.line,
                    from: l.from,
                    to: l.to,
                    capacity: l.capacity,
                    b: l.b,
                });
            }
            links.push(Link {
                from: index(l.from),
                to: index(l.to),
                capacity: l.capacity,
                length: l.length,
                free_flow_time: l.free_flow_time,
                b: l.b,
                power: l.power,
                toll: l.toll,
            });
        }
        let through = node_ids.iter().map(|&id| id >= net.first_thru_node).collect();
        // Parameter errors name the file's line.
        let mut network =
            Self::assemble(node_ids, index_of, through, links, factors).map_err(|e| match e {
                TapError::BadParameter { link, from, to, field, value, expected } => TapError::BadLink {
                    path: net.path.clone(),
                    line: net.links[link].line,
                    from,
                    to,
                    field,
                    value,
                    expected,
                },
                other => other,
            })?;
        network.zones = net.zones.min(u32::MAX as u64) as u32;
        network.path = Some(net.path.clone());
        Ok(network)
    }

    /// Builds a network from links over nodes `0..n` (file ids `1..=n`); nodes `0..zones_blocked` may
    /// not be passed through (`<FIRST THRU NODE>` − 1; 0 means none is blocked).
    pub fn new(n: u32, links: &[Link], zones_blocked: u32, factors: CostFactors) -> Result<Self, TapError> {
        for (a, l) in links.iter().enumerate() {
            if l.from >= n || l.to >= n {
                return Err(TapError::InvalidOption(format!(
                    "link {a} ({}→{}) names a node outside 0..{n}",
                    l.from, l.to
                )));
            }
        }
        let through = (0..n).map(|v| v >= zones_blocked).collect();
        let mut net = Self::assemble((1..=n as u64).collect(), None, through, links.to_vec(), factors)?;
        net.zones = zones_blocked;
        Ok(net)
    }

    fn assemble(
        node_ids: Vec<u64>,
        index_of: Option<HashMap<u64, u32>>,
        through: Vec<bool>,
        links: Vec<Link>,
        factors: CostFactors,
    ) -> Result<Self, TapError> {
        let n = node_ids.len();
        for (a, l) in links.iter().enumerate() {
            let bad = |field, value, expected| TapError::BadParameter {
                link: a,
                from: node_ids[l.from as usize],
                to: node_ids[l.to as usize],
                field,
                value,
                expected,
            };
            let fields = [
                ("free_flow_time", l.free_flow_time),
                ("b", l.b),
                ("power", l.power),
                ("length", l.length),
                ("toll", l.toll),
            ];
            for (field, value) in fields {
                if !(value >= 0.0 && value.is_finite()) {
                    return Err(bad(field, value, "a finite number ≥ 0"));
                }
            }
            if l.b != 0.0 && !(l.capacity > 0.0 && l.capacity.is_finite()) {
                return Err(bad("capacity", l.capacity, "a finite number > 0 when B ≠ 0"));
            }
        }
        let fixed_cost: Vec<f64> =
            links.iter().map(|l| factors.toll * l.toll + factors.distance * l.length).collect();
        if fixed_cost.iter().any(|c| !(*c >= 0.0 && c.is_finite())) {
            return Err(TapError::InvalidOption(
                "cost factors give a negative or non-finite fixed cost".into(),
            ));
        }
        // Forward star: links grouped by tail, in file order within a tail (so ties resolve the same way
        // on every backend).
        let mut out_offsets = vec![0u32; n + 1];
        for l in &links {
            out_offsets[l.from as usize + 1] += 1;
        }
        for v in 0..n {
            out_offsets[v + 1] += out_offsets[v];
        }
        let mut next = out_offsets.clone();
        let mut out_links = vec![0u32; links.len()];
        for (a, l) in links.iter().enumerate() {
            out_links[next[l.from as usize] as usize] = a as u32;
            next[l.from as usize] += 1;
        }
        let vdf = Arc::new(Bpr::new(
            links.iter().map(|l| l.free_flow_time).collect(),
            links.iter().map(|l| l.b).collect(),
            links.iter().map(|l| l.power).collect(),
            links.iter().map(|l| l.capacity).collect(),
        )?);
        Ok(Self {
            path: None,
            node_ids,
            index_of,
            through,
            zones: 0,
            links,
            fixed_cost,
            out_offsets,
            out_links,
            vdf,
        })
    }

    /// A network built by another module of this crate (the turn expansion): ids, pass-through flags,
    /// links with BPR costs and the fixed cost of each link given, `zones` zones.
    pub(crate) fn derived(
        node_ids: Vec<u64>,
        through: Vec<bool>,
        links: Vec<Link>,
        fixed_cost: Vec<f64>,
        zones: u32,
    ) -> Result<Self, TapError> {
        let contiguous = node_ids.iter().enumerate().all(|(i, &id)| id == i as u64 + 1);
        let index_of =
            (!contiguous).then(|| node_ids.iter().enumerate().map(|(i, &id)| (id, i as u32)).collect());
        let mut net = Self::assemble(node_ids, index_of, through, links, CostFactors::default())?;
        debug_assert_eq!(fixed_cost.len(), net.links.len());
        net.fixed_cost = fixed_cost;
        net.zones = zones;
        Ok(net)
    }

    /// Replaces the cost function (BPR by default), for example by [`Conical`](crate::vdf::Conical).
    pub fn with_vdf(mut self, vdf: Arc<dyn Vdf>) -> Result<Self, TapError> {
        if vdf.len() != self.links.len() {
            return Err(TapError::InvalidOption(format!(
                "the cost function covers {} links but the network has {}",
                vdf.len(),
                self.links.len()
            )));
        }
        self.vdf = vdf;
        Ok(self)
    }

    /// Number of nodes (dense indices `0..n`).
    pub fn num_nodes(&self) -> usize {
        self.node_ids.len()
    }
    /// Number of links.
    pub fn num_links(&self) -> usize {
        self.links.len()
    }
    /// `<NUMBER OF ZONES>` of the file (or the blocked-zone count given to [`Network::new`]).
    pub fn num_zones(&self) -> u32 {
        self.zones
    }
    /// The links, in file order.
    pub fn links(&self) -> &[Link] {
        &self.links
    }
    /// The file the network came from, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }
    /// The file's id of dense node `v`.
    pub fn node_id(&self, v: u32) -> u64 {
        self.node_ids[v as usize]
    }
    /// The dense index of the file's node id.
    pub fn node_index(&self, id: u64) -> Option<u32> {
        match &self.index_of {
            None => (id >= 1 && id <= self.node_ids.len() as u64).then(|| (id - 1) as u32),
            Some(m) => m.get(&id).copied(),
        }
    }
    /// The first link from node `from` to node `to` (ids as in the files).
    pub fn link_between(&self, from: u64, to: u64) -> Option<u32> {
        let (u, v) = (self.node_index(from)?, self.node_index(to)?);
        self.links.iter().position(|l| l.from == u && l.to == v).map(|k| k as u32)
    }

    /// Links named `FROM-TO` (node ids as in the files) in a comma-separated list, as select-link
    /// analyses name them: `"10-15, 15-10"`.
    ///
    /// ```
    /// # let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data");
    /// let net = urbanflow::tap::Network::read_tntp(dir.join("SiouxFalls_net.tntp"), Default::default()).unwrap();
    /// let links = net.links_named("1-2, 2-1").unwrap();
    /// assert_eq!(links.len(), 2);
    /// assert!(net.links_named("1-24").unwrap_err().to_string().contains("no link from node 1 to node 24"));
    /// ```
    pub fn links_named(&self, list: &str) -> Result<Vec<u32>, TapError> {
        list.split(',')
            .map(|item| {
                let bad = |why: String| TapError::InvalidOption(format!("link `{}`: {why}", item.trim()));
                let ids = item
                    .trim()
                    .split_once('-')
                    .and_then(|(a, b)| Some((a.trim().parse::<u64>().ok()?, b.trim().parse::<u64>().ok()?)));
                let (a, b) = ids.ok_or_else(|| bad("expected FROM-TO node ids".into()))?;
                self.link_between(a, b).ok_or_else(|| bad(format!("no link from node {a} to node {b}")))
            })
            .collect()
    }

    /// Whether paths may pass through node `v` (false for zones below `<FIRST THRU NODE>`).
    pub fn can_pass_through(&self, v: u32) -> bool {
        self.through[v as usize]
    }
    /// The flow-independent cost of each link (toll and distance terms).
    pub fn fixed_costs(&self) -> &[f64] {
        &self.fixed_cost
    }
    /// The cost function.
    pub fn vdf(&self) -> &dyn Vdf {
        &*self.vdf
    }
    /// Links leaving `v`, grouped by tail (indices into [`Network::links`]).
    pub fn out_links(&self, v: u32) -> &[u32] {
        &self.out_links[self.out_offsets[v as usize] as usize..self.out_offsets[v as usize + 1] as usize]
    }
    pub(crate) fn out_offsets(&self) -> &[u32] {
        &self.out_offsets
    }
    pub(crate) fn out_link_ids(&self) -> &[u32] {
        &self.out_links
    }
    pub(crate) fn through(&self) -> &[bool] {
        &self.through
    }

    /// Generalised link costs at flows `x`: `time(x) + fixed` (separable costs on all cores).
    pub fn costs(&self, x: &[f64], out: &mut [f64]) {
        let (vdf, fixed) = (&*self.vdf, &self.fixed_cost);
        if vdf.is_separable() {
            crate::vector::fill(out, |a| vdf.time(a, x[a]) + fixed[a]);
            return;
        }
        // Non-separable times read the partners' flows from `x` (Vdf::times), not the frozen ones.
        vdf.times(x, out);
        for (o, f) in out.iter_mut().zip(fixed) {
            *o += f;
        }
    }

    /// The Beckmann objective `Σ ∫_0^{x_a} c_a` (on all cores, the same on any number of threads); NaN
    /// when the costs are not separable (no such objective exists).
    pub fn beckmann(&self, x: &[f64]) -> f64 {
        if !self.vdf.is_separable() {
            return f64::NAN;
        }
        let (vdf, fixed) = (&*self.vdf, &self.fixed_cost);
        let m = x.len().min(fixed.len());
        crate::vector::block_sums(m, |links| [links.map(|a| vdf.integral(a, x[a]) + fixed[a] * x[a]).sum()])
            [0]
    }
}
