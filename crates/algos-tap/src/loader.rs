//! All-or-nothing loaders behind one trait, so the Frank–Wolfe family takes any of them: the CPU's
//! ([`CpuAon`], f64 costs, rayon), one or several GPUs' ([`GpuLoader`], fixed point), or one a caller
//! builds — urbanflow-mpi's, which loads a share of the origins on every rank and adds the shares up.
//!
//! ```
//! use urbanflow::tap::loader::{AllOrNothing, CpuAon};
//! use urbanflow::tap::{AssignOptions, CostFactors, Demand, Network, solve::assign_with_loader};
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data");
//! let net = Network::read_tntp(format!("{dir}/SiouxFalls_net.tntp"), CostFactors::default())?;
//! let demand = Demand::read_tntp(format!("{dir}/SiouxFalls_trips.tntp"), &net)?;
//! let mut loader = CpuAon::new(&net, false);
//! let result = assign_with_loader(&net, &demand, &AssignOptions::default(), &mut loader, |_| {})?;
//! assert!(result.last().relative_gap <= 1e-4);
//! # Ok::<(), urbanflow::tap::TapError>(())
//! ```

use std::ops::Range;

#[cfg(feature = "gpu")]
use gpu_runtime::GpuContext;

pub use crate::aon::{BlockLoad, LoadSum, Unreachable, origin_blocks};
use crate::aon::{SearchGraph, all_or_nothing, block_loads};
use crate::demand::Demand;
use crate::error::TapError;
#[cfg(feature = "gpu")]
use crate::gpu::{GpuAon, Method};
use crate::network::Network;
#[cfg(feature = "gpu")]
use crate::vector::dot;

/// Loads every OD pair on a shortest path at given link costs.
pub trait AllOrNothing {
    /// Loads per link into `y` (the network's link order) at link costs `costs`, and returns the
    /// shortest-path total `SPTT = Σ_od d_od κ_od`.
    fn load(&mut self, net: &Network, demand: &Demand, costs: &[f64], y: &mut [f64])
    -> Result<f64, TapError>;

    /// Where it runs, in a few words (for reports).
    fn describe(&self) -> String;

    /// True when its trees are exactly the CPU loader's (f64 costs, same tie rule), which select-link
    /// analysis needs.
    fn exact_trees(&self) -> bool {
        false
    }
}

/// The CPU loader: one f64 Dijkstra tree per origin on rayon's threads, origins in
/// [`origin_blocks`] fixed blocks added in block order (bit-identical on any thread count).
#[derive(Debug, Clone)]
pub struct CpuAon {
    graph: SearchGraph,
}

impl CpuAon {
    /// The loader of `net`; zones are passed through only when `allow_zone_transit`.
    pub fn new(net: &Network, allow_zone_transit: bool) -> Self {
        Self { graph: SearchGraph::new(net, !allow_zone_transit) }
    }

    /// The loads of origin blocks `blocks` only (of [`origin_blocks`]`(demand)`), one [`BlockLoad`]
    /// per block in order: add them, in block order, after the earlier blocks' [`LoadSum`] to get
    /// [`AllOrNothing::load`]'s bits.
    pub fn load_blocks(
        &self,
        net: &Network,
        demand: &Demand,
        costs: &[f64],
        blocks: Range<usize>,
    ) -> Result<Vec<BlockLoad>, TapError> {
        let all = origin_blocks(demand);
        if blocks.start > blocks.end || blocks.end > all {
            return Err(TapError::InvalidOption(format!("origin blocks {blocks:?} outside 0..{all}")));
        }
        Ok(block_loads(&self.graph, demand, costs, blocks, net.num_links()))
    }
}

impl AllOrNothing for CpuAon {
    fn load(
        &mut self,
        net: &Network,
        demand: &Demand,
        costs: &[f64],
        y: &mut [f64],
    ) -> Result<f64, TapError> {
        all_or_nothing(net, &self.graph, demand, costs, y)
    }

    fn describe(&self) -> String {
        format!("cpu ({} threads)", rayon::current_num_threads())
    }

    fn exact_trees(&self) -> bool {
        true
    }
}

#[cfg(feature = "gpu")]
/// One or several GPUs, each loading a contiguous share of the origins at once (one thread per
/// device); fixed-point loads add up exactly, so the flows equal one device's bit for bit.
pub struct GpuLoader<'c> {
    parts: Vec<GpuAon<'c>>,
    names: Vec<String>,
}

#[cfg(feature = "gpu")]
impl<'c> GpuLoader<'c> {
    /// Uploads the network and each device's share of the origins (equal shares: the devices of one
    /// machine are alike; a slower one sets the pace).
    pub fn new(
        devices: &[&'c GpuContext],
        net: &Network,
        demand: &Demand,
        allow_zone_transit: bool,
    ) -> Result<Self, TapError> {
        Self::for_origins(devices, net, demand, allow_zone_transit, 0..demand.num_origins())
    }

    /// The loader of the origins at positions `origins` only (a cluster rank's share), split equally
    /// between the devices.
    pub fn for_origins(
        devices: &[&'c GpuContext],
        net: &Network,
        demand: &Demand,
        allow_zone_transit: bool,
        origins: Range<usize>,
    ) -> Result<Self, TapError> {
        Self::with_method(devices, net, demand, allow_zone_transit, origins, Method::Auto)
    }

    /// Like [`Self::for_origins`], with trees grown by `method` ([`GpuAon::with_method`]).
    pub fn with_method(
        devices: &[&'c GpuContext],
        net: &Network,
        demand: &Demand,
        allow_zone_transit: bool,
        origins: Range<usize>,
        method: Method,
    ) -> Result<Self, TapError> {
        if devices.is_empty() {
            return Err(TapError::InvalidOption("a GPU loader needs at least one device".into()));
        }
        let (start, len) = (origins.start, origins.len());
        let k = devices.len();
        let parts = devices
            .iter()
            .enumerate()
            .map(|(i, ctx)| {
                let share = start + i * len / k..start + (i + 1) * len / k;
                GpuAon::with_method(ctx, net, demand, allow_zone_transit, share, method)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { parts, names: devices.iter().map(|c| c.info.name.clone()).collect() })
    }

    /// Fixed-point loads per search arc of every device, added up (units of
    /// [`DEMAND_SCALE`](crate::fixed::DEMAND_SCALE)); what a cluster rank all-reduces.
    pub fn loads(&mut self, net: &Network, demand: &Demand, costs: &[f64]) -> Result<Vec<u64>, TapError> {
        let results: Vec<Result<Vec<u64>, TapError>> = if self.parts.len() == 1 {
            vec![self.parts[0].loads(net, demand, costs)]
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> =
                    self.parts.iter_mut().map(|p| s.spawn(move || p.loads(net, demand, costs))).collect();
                handles.into_iter().map(|h| h.join().unwrap_or(Err(TapError::WorkerPanicked))).collect()
            })
        };
        let mut total: Option<Vec<u64>> = None;
        for r in results {
            let loads = r?;
            match total.as_mut() {
                None => total = Some(loads),
                Some(t) => t.iter_mut().zip(&loads).for_each(|(a, b)| *a += b),
            }
        }
        Ok(total.unwrap_or_default())
    }

    /// Link flows (the network's link order) from summed fixed-point loads.
    pub fn flows(&self, net: &Network, loads: &[u64]) -> Vec<f64> {
        crate::fixed::link_flows(self.parts[0].graph(), loads, net.num_links())
    }

    /// Number of devices.
    pub fn num_devices(&self) -> usize {
        self.parts.len()
    }
}

#[cfg(feature = "gpu")]
impl AllOrNothing for GpuLoader<'_> {
    fn load(
        &mut self,
        net: &Network,
        demand: &Demand,
        costs: &[f64],
        y: &mut [f64],
    ) -> Result<f64, TapError> {
        let loads = self.loads(net, demand, costs)?;
        y.copy_from_slice(&self.flows(net, &loads));
        Ok(dot(costs, y))
    }

    fn describe(&self) -> String {
        match self.names.len() {
            1 => format!("gpu ({})", self.names[0]),
            k => format!("{k} gpus ({})", self.names.join(", ")),
        }
    }
}
