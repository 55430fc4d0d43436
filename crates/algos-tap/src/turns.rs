//! Traffic assignment with turn penalties and bans, and turning-movement flows out.
//!
//! A [`TurnTable`] lists turns — from one link onto a link leaving its head — with a penalty in the
//! network's cost units or a ban, for every class or one (the `_turns.tntp` format below, or built in
//! code). [`TurnNetwork::build`] expands the network so that turns become links of an ordinary
//! [`Network`], on which every assignment method, loader, skim and select-link analysis runs unchanged:
//!
//! - **vertices**: the network's nodes, then at each junction where turns matter (a turn banned or
//!   penalised there, for some class) an *in-port* per link arriving and an *out-port* per link
//!   leaving; the node itself then only starts and ends trips if it is a zone;
//! - **links**, in this order: each original link `a`, from its tail (or its out-port) to its head (or
//!   its in-port), with its cost function and index `a` kept (so the first `m` entries of every flow
//!   vector are the link flows); then one *turn link* per allowed turn `a → b` at a split junction,
//!   from `a`'s in-port to `b`'s out-port, with the constant cost of its penalty (sorted by `b`, then
//!   `a`); then free *connectors* from each split zone to the out-ports of its links and from the
//!   in-ports of the links entering it.
//!
//! Junctions where every turn is free stay whole ([`Split::WhereTurnsMatter`], the default): there a
//! node and a set of free turn links are the same model, and keeping the node keeps the numbering, so
//! a table without bans or penalties gives the turn-free assignment bit for bit. [`Split::Everywhere`]
//! splits every junction, for turning flows everywhere.
//!
//! A banned turn has no link, so it carries no flow; a path's cost is its links' costs plus the
//! penalties it turns through; the relative gap, SPTT and TSTT are those of the expanded network (a
//! node-based shortest path would price turns wrongly and misstate the gap). Turning-movement flows are
//! the flows on the turn links ([`TurnNetwork::turn_flows`]): at every split junction they add up to the
//! flow of each link in and of each link out (zones add their connectors).
//!
//! Zones passed through by paths (TNTP `<FIRST THRU NODE>` 1, as in Sioux Falls) are junctions too:
//! once split, their zone vertex only starts and ends trips, while through traffic turns between the
//! ports, so a ban at such a node cannot be bypassed through its zone.
//!
//! # The turn file
//! No TNTP turn format exists (the Hessen-Asymmetric README counts "Turns: 1,103" without a file), so
//! this one follows the TNTP style, and names links by their end nodes rather than by node triples,
//! which are ambiguous where two links join the same nodes:
//! ```text
//! <NUMBER OF TURNS> 3
//! <U-TURNS> allow          ~ allow | ban | a penalty, for U-turns not listed
//! <END OF METADATA>
//! ~ from_link   to_link    penalty   class
//!   547,548     548,601    0.25      ;
//!   547,548     548,550    ban       ;
//!   601,548     548,547    ban  truck ;
//! ```
//! A link is `init,term` (file node ids), with `#k` for the k-th of several parallel links in file order
//! (`3,4#2`; naming such a link without `#k` is an error). The to-link must leave the from-link's head.
//! The penalty is a number ≥ 0 or `ban`; the class (optional) names a user class of a multi-class
//! assignment, and the entry then applies to it alone. Turns not listed cost nothing (U-turns: the
//! `<U-TURNS>` rule, `allow` by default). A turn listed twice for one class is an error; every error
//! names the file and line.
//!
//! ```
//! use algos_tap::turns::{TurnNetwork, TurnTable};
//! use algos_tap::{AssignOptions, Demand, Network, assign};
//! # let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data");
//! let net = Network::read_tntp(dir.join("SiouxFalls_net.tntp"), Default::default())?;
//! let demand = Demand::read_tntp(dir.join("SiouxFalls_trips.tntp"), &net)?;
//! // Ban the left turn 1 → 3 → 4 and charge a minute for 2 → 6 → 8.
//! let text = "<NUMBER OF TURNS> 2\n<END OF METADATA>\n1,3 3,4 ban ;\n2,6 6,8 1.0 ;\n";
//! let table = TurnTable::parse(text, "example_turns.tntp".as_ref(), &net)?;
//! let expanded = TurnNetwork::build(&net, &table)?;
//! let result = assign(&expanded.network, &demand, &AssignOptions::default().with_gap(1e-4))?;
//! let links = expanded.link_flows(&result.flows); // one value per link of `net`
//! assert_eq!(links.len(), net.num_links());
//! let banned = expanded.turn_flows(&result.flows).into_iter().find(|t| t.from_link == net.link_between(1, 3).unwrap());
//! assert!(banned.iter().all(|t| t.to_link != net.link_between(3, 4).unwrap()));
//! # Ok::<(), algos_tap::TapError>(())
//! ```

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::TapError;
use crate::multiclass::UserClass;
use crate::network::{Link, Network};

/// What happens to U-turns the file does not list.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum UTurns {
    /// Allowed at no cost (the default).
    Allow,
    /// Banned.
    Ban,
    /// Allowed at this penalty.
    Penalty(f64),
}

/// One listed turn.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnEntry {
    /// The link arriving at the junction (index in the network's link order).
    pub from_link: u32,
    /// The link leaving it.
    pub to_link: u32,
    /// The penalty in the network's cost units; `None` bans the turn.
    pub penalty: Option<f64>,
    /// The user class it binds; `None` for every class.
    pub class: Option<String>,
    /// The file line (0 for entries built in code).
    pub line: u64,
}

/// The turns of a network: listed penalties and bans, and the rule for U-turns not listed.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnTable {
    /// The entries, in file order.
    pub entries: Vec<TurnEntry>,
    /// U-turns not listed.
    pub u_turns: UTurns,
    /// The file, for messages.
    pub path: PathBuf,
}

fn turn_error(path: &Path, line: u64, message: impl Into<String>) -> TapError {
    TapError::TurnFile { path: path.to_path_buf(), line, message: message.into() }
}

impl TurnTable {
    /// Reads a turn file (plain, `.gz` or `.xz`) for `net`.
    pub fn read(path: impl AsRef<Path>, net: &Network) -> Result<Self, TapError> {
        let path = path.as_ref();
        let mut text = String::new();
        graph_core::io::open_text(path)?
            .read_to_string(&mut text)
            .map_err(|e| turn_error(path, 0, format!("read failed: {e}")))?;
        Self::parse(&text, path, net)
    }

    /// Parses the text of a turn file; `path` names it in errors.
    pub fn parse(text: &str, path: &Path, net: &Network) -> Result<Self, TapError> {
        // Links by (from id, to id) in file order, for `init,term#k`.
        let mut by_ends: HashMap<(u64, u64), Vec<u32>> = HashMap::new();
        for (a, l) in net.links().iter().enumerate() {
            by_ends.entry((net.node_id(l.from), net.node_id(l.to))).or_default().push(a as u32);
        }
        let link = |line: u64, field: &str, s: &str| -> Result<u32, TapError> {
            let (ends, k) = match s.split_once('#') {
                Some((e, k)) => (e, Some(k)),
                None => (s, None),
            };
            let parsed = ends
                .split_once(',')
                .and_then(|(a, b)| Some((a.trim().parse::<u64>().ok()?, b.trim().parse::<u64>().ok()?)));
            let (a, b) = parsed.ok_or_else(|| {
                turn_error(
                    path,
                    line,
                    format!("{field} `{s}`: expected a link as INIT,TERM node ids (e.g. 3,4)"),
                )
            })?;
            let links = by_ends.get(&(a, b)).ok_or_else(|| {
                turn_error(path, line, format!("{field} `{s}`: the network has no link {a}→{b}"))
            })?;
            match k {
                None if links.len() == 1 => Ok(links[0]),
                None => Err(turn_error(
                    path,
                    line,
                    format!(
                        "{field} `{s}`: {} parallel links {a}→{b}; name one as {a},{b}#k (k = 1..={})",
                        links.len(),
                        links.len()
                    ),
                )),
                Some(k) => {
                    let k: usize = k.trim().parse().map_err(|_| {
                        turn_error(path, line, format!("{field} `{s}`: `#{k}` is not a link number"))
                    })?;
                    links.get(k.wrapping_sub(1)).copied().ok_or_else(|| {
                        turn_error(
                            path,
                            line,
                            format!("{field} `{s}`: there are {} links {a}→{b}, not {k}", links.len()),
                        )
                    })
                }
            }
        };
        let mut declared: Option<(u64, u64)> = None;
        let mut u_turns = UTurns::Allow;
        let mut in_body = false;
        let mut entries: Vec<TurnEntry> = Vec::new();
        let mut seen: HashMap<(u32, u32, Option<String>), u64> = HashMap::new();
        let mut last_line = 0;
        for (k, raw) in text.lines().enumerate() {
            let line = k as u64 + 1;
            last_line = line;
            let body = raw.split('~').next().unwrap_or("").trim();
            if body.is_empty() {
                continue;
            }
            if !in_body {
                if body.eq_ignore_ascii_case("<END OF METADATA>") {
                    in_body = true;
                    continue;
                }
                let Some(rest) = body.strip_prefix('<') else {
                    return Err(turn_error(
                        path,
                        line,
                        format!("`{body}`: expected <KEY> value metadata, then <END OF METADATA>"),
                    ));
                };
                let (key, value) = rest
                    .split_once('>')
                    .ok_or_else(|| turn_error(path, line, format!("`{body}`: a metadata key without `>`")))?;
                let value = value.trim();
                match key.trim().to_ascii_uppercase().as_str() {
                    "NUMBER OF TURNS" => {
                        let n = value.parse::<u64>().map_err(|_| {
                            turn_error(
                                path,
                                line,
                                format!("<NUMBER OF TURNS> `{value}`: expected a whole number"),
                            )
                        })?;
                        declared = Some((n, line));
                    }
                    "U-TURNS" => {
                        u_turns = match value.to_ascii_lowercase().as_str() {
                            "allow" => UTurns::Allow,
                            "ban" => UTurns::Ban,
                            v => match v.parse::<f64>() {
                                Ok(p) if p.is_finite() && p >= 0.0 => UTurns::Penalty(p),
                                _ => {
                                    return Err(turn_error(
                                        path,
                                        line,
                                        format!("<U-TURNS> `{value}`: expected allow, ban or a penalty ≥ 0"),
                                    ));
                                }
                            },
                        }
                    }
                    // Other keys (a name, a source) carry nothing the model needs.
                    _ => {}
                }
                continue;
            }
            let body = body.strip_suffix(';').unwrap_or(body).trim();
            let f: Vec<&str> = body.split_whitespace().collect();
            if !(3..=4).contains(&f.len()) {
                return Err(turn_error(
                    path,
                    line,
                    format!("`{body}`: expected from_link to_link penalty|ban [class] ;"),
                ));
            }
            let (from_link, to_link) = (link(line, "from_link", f[0])?, link(line, "to_link", f[1])?);
            let (from, to) = (net.links()[from_link as usize], net.links()[to_link as usize]);
            if to.from != from.to {
                return Err(turn_error(
                    path,
                    line,
                    format!(
                        "{} then {}: not a turn — the to-link must leave node {}, where the from-link ends",
                        f[0],
                        f[1],
                        net.node_id(from.to)
                    ),
                ));
            }
            let penalty = if f[2].eq_ignore_ascii_case("ban") {
                None
            } else {
                match f[2].parse::<f64>() {
                    Ok(p) if p.is_finite() && p >= 0.0 => Some(p),
                    _ => {
                        return Err(turn_error(
                            path,
                            line,
                            format!("penalty `{}`: expected a number ≥ 0 or ban", f[2]),
                        ));
                    }
                }
            };
            let class = f.get(3).map(|c| c.to_string());
            if let Some(first) = seen.insert((from_link, to_link, class.clone()), line) {
                return Err(turn_error(
                    path,
                    line,
                    format!("the turn {} → {} is listed a second time (first on line {first})", f[0], f[1]),
                ));
            }
            entries.push(TurnEntry { from_link, to_link, penalty, class, line });
        }
        if !in_body && !text.trim().is_empty() {
            return Err(turn_error(path, last_line.max(1), "no <END OF METADATA> line"));
        }
        if let Some((n, line)) = declared
            && n != entries.len() as u64
        {
            return Err(turn_error(
                path,
                line,
                format!("<NUMBER OF TURNS> declares {n} but the file lists {}", entries.len()),
            ));
        }
        Ok(Self { entries, u_turns, path: path.to_path_buf() })
    }
}

/// The flow of one turning movement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TurnFlow {
    /// The link arriving (index in the original network).
    pub from_link: u32,
    /// The link leaving.
    pub to_link: u32,
    /// The junction (dense node index of the original network).
    pub node: u32,
    /// Flow (vehicles, or PCE in a multi-class assignment).
    pub volume: f64,
    /// The penalty every class pays.
    pub penalty: f64,
}

/// A network expanded so that its turns are links (see the module documentation).
#[derive(Debug, Clone)]
pub struct TurnNetwork {
    /// The expanded network every assignment method runs on.
    pub network: Network,
    /// Links of the original network (the first links of the expanded one).
    links: usize,
    /// (from-link, to-link, junction) of each turn link, in order after the original links.
    turns: Vec<(u32, u32, u32)>,
    /// The penalty of each turn link.
    penalties: Vec<f64>,
    /// Class entries: (class, expanded link, penalty or ban).
    class_entries: Vec<(String, u32, Option<f64>)>,
    /// Which nodes of the original network are split into ports.
    split: Vec<bool>,
}

/// Which junctions [`TurnNetwork::build_with`] splits into ports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Split {
    /// Only junctions where a turn is banned or penalised (for some class) — elsewhere every turn is
    /// free, so the node stays whole and the model, the vertex and link numbering and every iterate are
    /// those of the turn-free network (a table of zero penalties gives the turn-free assignment bit for
    /// bit). Turning flows are reported at the split junctions.
    #[default]
    WhereTurnsMatter,
    /// Every junction that paths may pass through: turning flows everywhere. The equilibrium is the
    /// same; the iterates are not bit for bit those of the unsplit network (shortest-path ties break
    /// differently among equal-cost turns).
    Everywhere,
}

impl TurnNetwork {
    /// Expands `net` with the turns of `table`, splitting only the junctions where turns matter
    /// ([`Split::WhereTurnsMatter`]; see the module documentation). The network must keep BPR costs:
    /// replace the cost function of the expanded network instead.
    pub fn build(net: &Network, table: &TurnTable) -> Result<Self, TapError> {
        Self::build_with(net, table, Split::WhereTurnsMatter)
    }

    /// Expands `net` with the turns of `table`, splitting the junctions `split` names.
    pub fn build_with(net: &Network, table: &TurnTable, split: Split) -> Result<Self, TapError> {
        if net.vdf().name() != "bpr" {
            return Err(TapError::InvalidOption(format!(
                "turns: the network's cost function is `{}`; expand the BPR network first and replace the cost \
                 function of TurnNetwork::network (its first links are the network's)",
                net.vdf().name()
            )));
        }
        let m = net.num_links();
        let n = net.num_nodes();
        let zones = net.num_zones() as usize;
        let links_in = {
            let mut by_head: Vec<Vec<u32>> = vec![Vec::new(); n];
            for (a, l) in net.links().iter().enumerate() {
                by_head[l.to as usize].push(a as u32);
            }
            by_head
        };
        // All-class penalties and bans; class entries kept apart.
        let mut penalty: HashMap<(u32, u32), Option<f64>> = HashMap::new();
        let mut class_raw: Vec<(String, u32, u32, Option<f64>)> = Vec::new();
        let mut matters = vec![false; n];
        for e in &table.entries {
            let j = net.links()[e.to_link as usize].from as usize;
            match &e.class {
                None => {
                    penalty.insert((e.from_link, e.to_link), e.penalty);
                    matters[j] |= e.penalty != Some(0.0);
                }
                Some(c) => {
                    class_raw.push((c.clone(), e.from_link, e.to_link, e.penalty));
                    matters[j] = true;
                }
            }
        }
        if table.u_turns != UTurns::Allow && table.u_turns != UTurns::Penalty(0.0) {
            for lb in net.links() {
                if links_in[lb.from as usize].iter().any(|&a| net.links()[a as usize].from == lb.to) {
                    matters[lb.from as usize] = true;
                }
            }
        }
        let is_split: Vec<bool> = (0..n)
            .map(|j| {
                net.can_pass_through(j as u32)
                    && !links_in[j].is_empty()
                    && !net.out_links(j as u32).is_empty()
                    && (split == Split::Everywhere || matters[j])
            })
            .collect();
        // Ports after the original nodes: an in-port per link into a split node, an out-port per link
        // out of one.
        let mut in_port = vec![u32::MAX; m];
        let mut out_port = vec![u32::MAX; m];
        let mut next = n as u64;
        for j in (0..n).filter(|&j| is_split[j]) {
            for &a in &links_in[j] {
                in_port[a as usize] = next as u32;
                next += 1;
            }
            for &b in net.out_links(j as u32) {
                out_port[b as usize] = next as u32;
                next += 1;
            }
        }
        if next >= u32::MAX as u64 {
            return Err(TapError::InvalidOption(format!("turns: {next} expanded vertices exceed u32 ids")));
        }
        let vertices = next as usize;
        let mut links: Vec<Link> = net
            .links()
            .iter()
            .enumerate()
            .map(|(a, l)| Link {
                from: if is_split[l.from as usize] { out_port[a] } else { l.from },
                to: if is_split[l.to as usize] { in_port[a] } else { l.to },
                ..*l
            })
            .collect();
        let mut fixed: Vec<f64> = net.fixed_costs().to_vec();
        let constant = |from: u32, to: u32, cost: f64| Link {
            from,
            to,
            capacity: 1.0,
            length: 0.0,
            free_flow_time: cost,
            b: 0.0,
            power: 1.0,
            toll: 0.0,
        };
        // Turn links sorted by (to-link, from-link).
        let mut turns = Vec::new();
        let mut penalties = Vec::new();
        let mut index_of_turn: HashMap<(u32, u32), u32> = HashMap::new();
        for (b, lb) in net.links().iter().enumerate() {
            let j = lb.from;
            if !is_split[j as usize] {
                continue;
            }
            for &a in &links_in[j as usize] {
                let la = net.links()[a as usize];
                let u_turn = lb.to == la.from;
                let p = match penalty.get(&(a, b as u32)) {
                    Some(p) => *p,
                    None if u_turn => match table.u_turns {
                        UTurns::Allow => Some(0.0),
                        UTurns::Ban => None,
                        UTurns::Penalty(p) => Some(p),
                    },
                    None => Some(0.0),
                };
                let Some(p) = p else { continue };
                index_of_turn.insert((a, b as u32), links.len() as u32);
                links.push(constant(in_port[a as usize], out_port[b], p));
                fixed.push(0.0);
                turns.push((a, b as u32, j));
                penalties.push(p);
            }
        }
        // Zones that are split junctions keep their vertex as a terminal: free connectors to the
        // out-ports of their links and from the in-ports of the links entering them.
        for z in (0..zones).filter(|&z| is_split[z]) {
            for &b in net.out_links(z as u32) {
                links.push(constant(z as u32, out_port[b as usize], 0.0));
                fixed.push(0.0);
            }
            for &a in &links_in[z] {
                links.push(constant(in_port[a as usize], z as u32, 0.0));
                fixed.push(0.0);
            }
        }
        // A class entry on a turn banned for every class, or at a zone paths may not pass, changes
        // nothing.
        let class_entries = class_raw
            .into_iter()
            .filter_map(|(c, a, b, p)| index_of_turn.get(&(a, b)).map(|&k| (c, k, p)))
            .collect();
        // Ids: nodes keep theirs; ports follow the largest id of the network.
        let top = (0..n as u32).map(|v| net.node_id(v)).max().unwrap_or(0);
        let node_ids: Vec<u64> = (0..n as u32)
            .map(|v| net.node_id(v))
            .chain((0..(vertices - n) as u64).map(|k| top + 1 + k))
            .collect();
        // A split node is a terminal (a zone) or unused; its ports are passed through.
        let through = (0..vertices)
            .map(|v| if v < n { net.can_pass_through(v as u32) && !is_split[v] } else { true })
            .collect();
        let network = Network::derived(node_ids, through, links, fixed, zones as u32)?;
        Ok(Self { network, links: m, turns, penalties, class_entries, split: is_split })
    }

    /// Whether node `v` of the original network is split into ports (its turning movements are links).
    pub fn is_split(&self, v: u32) -> bool {
        self.split[v as usize]
    }

    /// Links of the original network.
    pub fn num_original_links(&self) -> usize {
        self.links
    }

    /// The turn links: (from-link, to-link, junction), in the expanded network's order after the
    /// original links.
    pub fn turns(&self) -> &[(u32, u32, u32)] {
        &self.turns
    }

    /// The original links' part of a vector over the expanded network's links (flows, costs).
    pub fn link_flows<'a>(&self, values: &'a [f64]) -> &'a [f64] {
        &values[..self.links]
    }

    /// Turning-movement flows from the expanded network's link flows, in turn-link order.
    pub fn turn_flows(&self, flows: &[f64]) -> Vec<TurnFlow> {
        self.turns
            .iter()
            .zip(&self.penalties)
            .enumerate()
            .map(|(k, (&(from_link, to_link, node), &penalty))| TurnFlow {
                from_link,
                to_link,
                node,
                volume: flows[self.links + k],
                penalty,
            })
            .collect()
    }

    /// A user class of the original network carried over to the expanded one: its banned links and
    /// fixed costs kept (connectors and turn links cost nothing extra), and the turn file's entries for
    /// this class applied (a class ban bans the turn link, a class penalty adds to its fixed cost).
    pub fn class(&self, class: &UserClass) -> UserClass {
        let total = self.network.num_links();
        let mut out = class.clone();
        if !out.fixed_cost.is_empty() || self.class_entries.iter().any(|e| e.0 == class.name) {
            out.fixed_cost.resize(self.links, 0.0);
            out.fixed_cost.resize(total, 0.0);
        }
        for (name, link, penalty) in &self.class_entries {
            if *name != class.name {
                continue;
            }
            match penalty {
                None => out.banned.push(*link),
                Some(p) => out.fixed_cost[*link as usize] += p,
            }
        }
        out
    }

    /// Class names the turn file binds, for checking them against the classes assigned.
    pub fn class_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.class_entries.iter().map(|e| e.0.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        names
    }
}

/// Writes turning-movement flows as CSV: `node,from_link,to_link,volume,penalty`, nodes and links by
/// their file ids (`INIT-TERM`; `#k` for parallel links is left out).
pub fn write_turn_flows_csv(
    path: impl AsRef<Path>,
    net: &Network,
    turns: &[TurnFlow],
) -> Result<(), std::io::Error> {
    use std::io::Write;
    let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(w, "node,from_link,to_link,volume,penalty")?;
    let name = |a: u32| {
        let l = net.links()[a as usize];
        format!("{}-{}", net.node_id(l.from), net.node_id(l.to))
    };
    for t in turns {
        writeln!(
            w,
            "{},{},{},{},{}",
            net.node_id(t.node),
            name(t.from_link),
            name(t.to_link),
            t.volume,
            t.penalty
        )?;
    }
    w.flush()
}
