//! Link flows in and out: published `_flow.tntp` solutions matched to a network's links, and writers for
//! TNTP flow files and CSV.

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::Path;

use graph_core::io::create_text;
use graph_core::io::tntp::read_flow;

use crate::demand::Demand;
use crate::error::TapError;
use crate::network::Network;

/// Reads a `_flow.tntp` file and returns its volumes in `net`'s link order. Rows are matched to links by
/// (from, to); parallel links are matched in file order. Every link must get exactly one row.
pub fn read_flows(path: impl AsRef<Path>, net: &Network) -> Result<Vec<f64>, TapError> {
    let path = path.as_ref();
    let rows = read_flow(path)?;
    let mut slots: HashMap<(u64, u64), Vec<usize>> = HashMap::new();
    for (a, l) in net.links().iter().enumerate().rev() {
        slots.entry((net.node_id(l.from), net.node_id(l.to))).or_default().push(a);
    }
    let mut flows = vec![f64::NAN; net.num_links()];
    for (i, r) in rows.iter().enumerate() {
        let a = slots.get_mut(&(r.from, r.to)).and_then(|v| v.pop()).ok_or_else(|| {
            TapError::UnknownLink { path: path.to_path_buf(), row: i + 1, from: r.from, to: r.to }
        })?;
        flows[a] = r.volume;
    }
    if flows.iter().any(|f| f.is_nan()) {
        return Err(TapError::BadFlows {
            what: "published flows",
            found: rows.len(),
            expected: net.num_links(),
        });
    }
    Ok(flows)
}

/// Writes flows and costs in the TNTP `_flow` format (`From To Volume Cost`, file ids). A `.gz` or `.xz`
/// extension compresses.
pub fn write_flows_tntp(
    path: impl AsRef<Path>,
    net: &Network,
    flows: &[f64],
    costs: &[f64],
) -> io::Result<()> {
    write_rows(path, "From \tTo \tVolume \tCost ", net, flows, costs, |w, _, from, to, flow, cost| {
        writeln!(w, "{from} \t{to} \t{flow} \t{cost} ")
    })
}

/// Writes flows and costs as CSV: `link,from,to,flow,cost` (1-based link number in file order, file ids).
pub fn write_flows_csv(
    path: impl AsRef<Path>,
    net: &Network,
    flows: &[f64],
    costs: &[f64],
) -> io::Result<()> {
    write_rows(path, "link,from,to,flow,cost", net, flows, costs, |w, link, from, to, flow, cost| {
        writeln!(w, "{link},{from},{to},{flow},{cost}")
    })
}

/// Writes a matrix as a TNTP `_trips` file (`<NUMBER OF ZONES>` of `net`, one `Origin` block per
/// origin with demand, file ids, flows written to round-trip exactly). Intrazonal demand is not
/// assignable and [`Demand`] keeps only its total, so it is not written. A `.gz` or `.xz` extension
/// compresses.
///
/// ```
/// use urbanflow::tap::output::write_demand_tntp;
/// use urbanflow::tap::{CostFactors, Demand, Link, Network};
/// let road = |from, to| Link { from, to, capacity: 1.0, length: 1.0, free_flow_time: 1.0, b: 0.0, power: 1.0, toll: 0.0 };
/// let net = Network::new(2, &[road(0, 1), road(1, 0)], 2, CostFactors::default()).unwrap();
/// let demand = Demand::from_pairs(&net, [(0, 1, 12.5), (1, 0, 0.1)]).unwrap();
/// let path = std::env::temp_dir().join("urbanflow-doc-trips.tntp");
/// write_demand_tntp(&path, &net, &demand).unwrap();
/// let back = Demand::read_tntp(&path, &net).unwrap();
/// assert_eq!(back, demand);
/// ```
pub fn write_demand_tntp(path: impl AsRef<Path>, net: &Network, demand: &Demand) -> io::Result<()> {
    let mut w = create_text(path)?;
    writeln!(w, "<NUMBER OF ZONES> {}", net.num_zones())?;
    writeln!(w, "<TOTAL OD FLOW> {}", demand.total())?;
    writeln!(w, "<END OF METADATA>")?;
    for (i, &o) in demand.origins().iter().enumerate() {
        writeln!(w, "\nOrigin {}", net.node_id(o))?;
        let (dests, flows) = demand.from_origin(i);
        for (k, (&d, &f)) in dests.iter().zip(flows).enumerate() {
            let end = if k % 5 == 4 || k + 1 == dests.len() { "\n" } else { "" };
            write!(w, "{:6} : {f};{end}", net.node_id(d))?;
        }
    }
    w.flush()
}

/// Writes a matrix as CSV: `origin,destination,demand` (file ids), one row per pair with demand.
pub fn write_demand_csv(path: impl AsRef<Path>, net: &Network, demand: &Demand) -> io::Result<()> {
    let mut w = create_text(path)?;
    writeln!(w, "origin,destination,demand")?;
    for (o, d, f) in demand.pairs() {
        writeln!(w, "{},{},{f}", net.node_id(o), net.node_id(d))?;
    }
    w.flush()
}

/// What a modeller reads off an assignment for one link.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkResult {
    /// 1-based link number in file order.
    pub link: usize,
    /// Tail and head as the file numbers them.
    pub from: u64,
    /// See `from`.
    pub to: u64,
    /// Flow.
    pub flow: f64,
    /// Generalised cost at the flows.
    pub cost: f64,
    /// Capacity.
    pub capacity: f64,
    /// Volume / capacity (0 for a link of no capacity).
    pub vc: f64,
    /// Free-flow time.
    pub free_flow_time: f64,
    /// The volume-delay function's time at the flows (no toll or distance terms).
    pub time: f64,
    /// `time − free_flow_time`.
    pub delay: f64,
}

/// Every link's results at `flows` and generalised `costs`.
pub fn link_results(net: &Network, flows: &[f64], costs: &[f64]) -> Vec<LinkResult> {
    let mut times = vec![0.0; net.num_links()];
    net.vdf().times(flows, &mut times);
    net.links()
        .iter()
        .enumerate()
        .map(|(a, l)| LinkResult {
            link: a + 1,
            from: net.node_id(l.from),
            to: net.node_id(l.to),
            flow: flows[a],
            cost: costs[a],
            capacity: l.capacity,
            vc: if l.capacity > 0.0 { flows[a] / l.capacity } else { 0.0 },
            free_flow_time: l.free_flow_time,
            time: times[a],
            delay: times[a] - l.free_flow_time,
        })
        .collect()
}

/// Writes [`link_results`] as CSV: `link,from,to,flow,cost,capacity,vc,free_flow_time,time,delay`. A
/// `.gz` or `.xz` extension compresses.
pub fn write_link_results_csv(
    path: impl AsRef<Path>,
    net: &Network,
    flows: &[f64],
    costs: &[f64],
) -> io::Result<()> {
    let mut w = create_text(path)?;
    writeln!(w, "link,from,to,flow,cost,capacity,vc,free_flow_time,time,delay")?;
    for r in link_results(net, flows, costs) {
        writeln!(
            w,
            "{},{},{},{},{},{},{},{},{},{}",
            r.link, r.from, r.to, r.flow, r.cost, r.capacity, r.vc, r.free_flow_time, r.time, r.delay
        )?;
    }
    w.flush()
}

/// A header line, then one row per link (1-based link number, file ids of its ends, flow, cost).
fn write_rows(
    path: impl AsRef<Path>,
    header: &str,
    net: &Network,
    flows: &[f64],
    costs: &[f64],
    row: impl Fn(&mut dyn Write, usize, u64, u64, f64, f64) -> io::Result<()>,
) -> io::Result<()> {
    let mut w = create_text(path)?;
    writeln!(w, "{header}")?;
    for (a, l) in net.links().iter().enumerate() {
        row(&mut w, a + 1, net.node_id(l.from), net.node_id(l.to), flows[a], costs[a])?;
    }
    w.flush()
}
