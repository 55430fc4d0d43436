//! Traffic counts on links: what matrix estimation fits the assignment to.

use std::collections::HashMap;
use std::path::Path;

use graph_core::io::open_text;

use crate::error::TapError;
use crate::network::Network;

/// Counted links of a [`Network`], each with its count and the weight of its error in the objective.
///
/// ```
/// use urbanflow::tap::odme::LinkCounts;
/// use urbanflow::tap::{CostFactors, Link, Network};
/// let road = |from, to| Link { from, to, capacity: 100.0, length: 1.0, free_flow_time: 1.0, b: 0.15, power: 4.0, toll: 0.0 };
/// let net = Network::new(3, &[road(0, 1), road(1, 2)], 0, CostFactors::default()).unwrap();
/// let counts = LinkCounts::new(&net, [(1, 350.0, 1.0)]).unwrap();
/// assert_eq!((counts.len(), counts.links()[0], counts.counts()[0]), (1, 1, 350.0));
/// assert!(LinkCounts::new(&net, [(7, 1.0, 1.0)]).is_err());
/// ```
///
/// A count is of all vehicles, or of one user class's (by the class's name: several classes,
/// [`super::estimate_od_classes`]).
#[derive(Debug, Clone, PartialEq)]
pub struct LinkCounts {
    links: Vec<u32>,
    counts: Vec<f64>,
    weights: Vec<f64>,
    /// Per count: the index of its class's name in `class_names`, or `None` for all vehicles.
    classes: Vec<Option<u32>>,
    class_names: Vec<String>,
}

impl LinkCounts {
    /// Counts of all vehicles from `(link, count, weight)`: `link` in the network's link order
    /// (0-based), `count` ≥ 0, `weight` > 0, each link at most once.
    pub fn new(net: &Network, rows: impl IntoIterator<Item = (u32, f64, f64)>) -> Result<Self, TapError> {
        Self::by_class(net, rows.into_iter().map(|(a, c, w)| (a, c, w, None)))
    }

    /// Counts from `(link, count, weight, class)`: [`Self::new`]'s rows, each of all vehicles (`None`)
    /// or of the class named; each link at most once per class (a count of all vehicles may stand
    /// beside counts of single classes on the same link).
    ///
    /// ```
    /// use urbanflow::tap::odme::LinkCounts;
    /// use urbanflow::tap::{CostFactors, Link, Network};
    /// let road = |from, to| Link { from, to, capacity: 100.0, length: 1.0, free_flow_time: 1.0, b: 0.15, power: 4.0, toll: 0.0 };
    /// let net = Network::new(2, &[road(0, 1)], 0, CostFactors::default()).unwrap();
    /// let trucks = Some("trucks".to_string());
    /// let counts = LinkCounts::by_class(&net, [(0, 350.0, 1.0, None), (0, 40.0, 1.0, trucks.clone())]).unwrap();
    /// assert_eq!((counts.class_of(0), counts.class_of(1)), (None, Some("trucks")));
    /// assert!(LinkCounts::by_class(&net, [(0, 40.0, 1.0, trucks.clone()), (0, 41.0, 1.0, trucks)]).is_err());
    /// ```
    pub fn by_class(
        net: &Network,
        rows: impl IntoIterator<Item = (u32, f64, f64, Option<String>)>,
    ) -> Result<Self, TapError> {
        let mut counts = Self {
            links: Vec::new(),
            counts: Vec::new(),
            weights: Vec::new(),
            classes: Vec::new(),
            class_names: Vec::new(),
        };
        let mut seen = std::collections::HashSet::new();
        for (link, count, weight, class) in rows {
            let bad = |why: String| Err(TapError::InvalidOption(format!("count on link {link}: {why}")));
            if link as usize >= net.num_links() {
                return bad(format!("expected a link of the network (0..{})", net.num_links()));
            }
            if !(count >= 0.0 && count.is_finite()) {
                return bad(format!("{count}: expected a finite count ≥ 0"));
            }
            if !(weight > 0.0 && weight.is_finite()) {
                return bad(format!("weight {weight}: expected a finite weight > 0"));
            }
            let class = class.map(|name| match counts.class_names.iter().position(|n| *n == name) {
                Some(k) => k as u32,
                None => {
                    counts.class_names.push(name);
                    counts.class_names.len() as u32 - 1
                }
            });
            if !seen.insert((link, class)) {
                return bad(match class {
                    Some(k) => format!("counted twice for class {}", counts.class_names[k as usize]),
                    None => "counted twice".into(),
                });
            }
            counts.links.push(link);
            counts.counts.push(count);
            counts.weights.push(weight);
            counts.classes.push(class);
        }
        Ok(counts)
    }

    /// Counts from `(from, to, count, weight)` with the links named by their nodes' ids as in the
    /// network's file; a pair of nodes with no link, or with several (name those by
    /// [`LinkCounts::new`]), is an error naming the row (0-based).
    pub fn between_nodes(
        net: &Network,
        rows: impl IntoIterator<Item = (u64, u64, f64, f64)>,
    ) -> Result<Self, TapError> {
        Self::between_nodes_by_class(net, rows.into_iter().map(|(u, v, c, w)| (u, v, c, w, None)))
    }

    /// [`Self::between_nodes`] with each row's class (`None`: all vehicles), as in [`Self::by_class`].
    pub fn between_nodes_by_class(
        net: &Network,
        rows: impl IntoIterator<Item = (u64, u64, f64, f64, Option<String>)>,
    ) -> Result<Self, TapError> {
        let between = links_between(net);
        let rows = rows
            .into_iter()
            .enumerate()
            .map(|(i, (u, v, c, w, k))| {
                link_named(&between, u, v)
                    .map(|a| (a, c, w, k))
                    .map_err(|why| TapError::InvalidOption(format!("count row {i}: {why}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Self::by_class(net, rows)
    }

    /// Reads counts from a CSV file with a header. Links are named by `from,to` (the network's node
    /// ids; also `from_node_id,to_node_id` as Path4GMNS writes them, or `a_node,b_node`) or by `link`
    /// (1-based, in the network file's order; `from,to` beside it must then be that link's nodes —
    /// the way to count one of several parallel links); the count is `count` (or `volume`, `flow`); `weight` is
    /// optional (1 by default); `class` is optional: a user class's name, or empty (also `all`) for a
    /// count of all vehicles. Other columns are ignored, except Path4GMNS's
    /// `measurement_type` (only `link` rows are link counts) and `upper_bound_flag` (a count that is an
    /// upper bound is not an observation): rows they mark otherwise are errors, never dropped. `.gz`
    /// and `.xz` files are read compressed.
    ///
    /// Every problem is an error naming the file and line: a link the network does not have (or has
    /// twice between the same nodes, when named by its nodes), a count that is not a number ≥ 0, a
    /// link counted twice (for the same class).
    pub fn read_csv(path: impl AsRef<Path>, net: &Network) -> Result<Self, TapError> {
        let path = path.as_ref();
        let error =
            |line: u64, message: String| TapError::TableFile { path: path.to_path_buf(), line, message };
        let mut reader = csv::ReaderBuilder::new().trim(csv::Trim::All).from_reader(open_text(path)?);
        let header = reader.headers().map_err(|e| error(1, e.to_string()))?.clone();
        let column = |names: &[&str]| {
            header
                .iter()
                .position(|h| names.iter().any(|n| h.trim_start_matches('\u{feff}').eq_ignore_ascii_case(n)))
        };
        let from = column(&["from", "from_node", "from_node_id", "a_node", "init_node"]);
        let to = column(&["to", "to_node", "to_node_id", "b_node", "term_node"]);
        let link = column(&["link"]);
        let count = column(&["count", "volume", "flow"]);
        let weight = column(&["weight"]);
        let kind = column(&["measurement_type"]);
        let upper_bound = column(&["upper_bound_flag"]);
        let expected = "expected a header with `count` and either `from,to` (node ids) or `link` (1-based)";
        let Some(count) = count else {
            return Err(error(1, format!("no count column (`count`, `volume` or `flow`): {expected}")));
        };
        let class = column(&["class"]);
        let by_nodes = match (from, to, link) {
            (Some(f), Some(t), _) => Some((f, t)),
            (None, None, Some(_)) => None,
            _ => return Err(error(1, format!("links named neither by `from,to` nor by `link`: {expected}"))),
        };
        let between = if link.is_none() { links_between(net) } else { HashMap::new() };
        let mut rows = Vec::new();
        let mut first_line: HashMap<(u32, Option<String>), u64> = HashMap::new();
        for record in reader.records() {
            let record = record.map_err(|e| {
                let line = e.position().map_or(0, |p| p.line());
                error(line, e.to_string())
            })?;
            let line = record.position().map_or(0, |p| p.line());
            let field = |i: usize| record.get(i).unwrap_or("");
            let number = |i: usize, what: &str| -> Result<f64, TapError> {
                field(i)
                    .parse::<f64>()
                    .map_err(|_| error(line, format!("{what} `{}`: expected a number", field(i))))
            };
            if let Some(k) = kind.filter(|&k| !field(k).eq_ignore_ascii_case("link")) {
                return Err(error(
                    line,
                    format!(
                        "measurement_type `{}`: expected `link` (zone totals are not link counts)",
                        field(k)
                    ),
                ));
            }
            if let Some(u) = upper_bound.filter(|&u| !matches!(field(u), "" | "0")) {
                return Err(error(
                    line,
                    format!("upper_bound_flag `{}`: expected 0 (a bound is not an observed count)", field(u)),
                ));
            }
            let node = |i: usize, what: &str| {
                field(i)
                    .parse::<u64>()
                    .map_err(|_| error(line, format!("{what} `{}`: expected a node id", field(i))))
            };
            let a = match link {
                Some(i) => {
                    let a = match field(i).parse::<u64>() {
                        Ok(k) if k >= 1 && k <= net.num_links() as u64 => (k - 1) as u32,
                        _ => {
                            let n = net.num_links();
                            return Err(error(
                                line,
                                format!("link `{}`: expected a link number from 1 to {n}", field(i)),
                            ));
                        }
                    };
                    // Nodes given beside the number must be that link's.
                    if let Some((f, t)) = by_nodes {
                        let l = &net.links()[a as usize];
                        let (u, v) = (node(f, "from")?, node(t, "to")?);
                        let (lu, lv) = (net.node_id(l.from), net.node_id(l.to));
                        if (u, v) != (lu, lv) {
                            return Err(error(
                                line,
                                format!("link {} runs from {lu} to {lv}, not from {u} to {v}", a + 1),
                            ));
                        }
                    }
                    a
                }
                None => {
                    let (f, t) = by_nodes.expect("links named by their nodes");
                    link_named(&between, node(f, "from")?, node(t, "to")?).map_err(|why| error(line, why))?
                }
            };
            let c = number(count, "count")?;
            if !(c >= 0.0 && c.is_finite()) {
                return Err(error(line, format!("count {c}: expected a finite count ≥ 0")));
            }
            let w = match weight {
                Some(i) if !field(i).is_empty() => number(i, "weight")?,
                _ => 1.0,
            };
            if !(w > 0.0 && w.is_finite()) {
                return Err(error(line, format!("weight {w}: expected a finite weight > 0")));
            }
            let k = class.map(field).filter(|k| !k.is_empty() && !k.eq_ignore_ascii_case("all"));
            let k = k.map(str::to_string);
            if let Some(first) = first_line.insert((a, k.clone()), line) {
                let l = &net.links()[a as usize];
                let of = k.as_ref().map_or(String::new(), |k| format!(" for class {k}"));
                return Err(error(
                    line,
                    format!(
                        "link {}→{} is counted twice{of} (first on line {first})",
                        net.node_id(l.from),
                        net.node_id(l.to),
                    ),
                ));
            }
            rows.push((a, c, w, k));
        }
        if rows.is_empty() {
            return Err(error(1, "no counts: expected at least one counted link".into()));
        }
        Self::by_class(net, rows)
    }

    /// Number of counted links.
    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// Whether no link is counted.
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// The counted links, in the network's link order (0-based), as given.
    pub fn links(&self) -> &[u32] {
        &self.links
    }

    /// The counts, one per counted link.
    pub fn counts(&self) -> &[f64] {
        &self.counts
    }

    /// The weights, one per counted link.
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// The class count `i` counts, or `None` for all vehicles.
    pub fn class_of(&self, i: usize) -> Option<&str> {
        self.classes[i].map(|k| self.class_names[k as usize].as_str())
    }

    /// The classes named by the counts, in order of first appearance.
    pub fn class_names(&self) -> &[String] {
        &self.class_names
    }

    /// Per count, the index of its class's name in [`Self::class_names`] (`None`: all vehicles).
    pub(crate) fn class_indices(&self) -> &[Option<u32>] {
        &self.classes
    }

    /// The counts of `flows` (one per network link): what counting these flows would have given, with
    /// these counts' weights — counts made from a known matrix, for tests and synthetic studies.
    pub fn with_counts_of(&self, flows: &[f64]) -> Self {
        Self { counts: self.links.iter().map(|&a| flows[a as usize]).collect(), ..self.clone() }
    }

    /// [`Self::with_counts_of`] with each count of its own: `counted[i]` is count `i`'s (of all
    /// vehicles or of its class), e.g. [`super::OdmeResult::counted`]'s flows.
    pub fn with_counts(&self, counted: &[f64]) -> Result<Self, TapError> {
        crate::solve::check_length(counted.len(), self.len(), "counted values")?;
        Ok(Self { counts: counted.to_vec(), ..self.clone() })
    }
}

/// The links between each pair of node ids (file ids), in link order.
fn links_between(net: &Network) -> HashMap<(u64, u64), Vec<u32>> {
    let mut between: HashMap<(u64, u64), Vec<u32>> = HashMap::new();
    for (a, l) in net.links().iter().enumerate() {
        between.entry((net.node_id(l.from), net.node_id(l.to))).or_default().push(a as u32);
    }
    between
}

/// The one link from node `u` to node `v`, or why there is none to count.
fn link_named(between: &HashMap<(u64, u64), Vec<u32>>, u: u64, v: u64) -> Result<u32, String> {
    match between.get(&(u, v)).map(Vec::as_slice) {
        Some([a]) => Ok(*a),
        Some(_) => {
            Err(format!("the network has several links from {u} to {v}: name the link by `link` (1-based)"))
        }
        None => Err(format!("no link from node {u} to node {v} in the network")),
    }
}
