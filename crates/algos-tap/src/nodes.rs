//! Node coordinates: the TNTP `_node` files (`node x y ;` per line, a header line first), aligned with a
//! [`Network`]'s nodes, for maps and GeoJSON.

use std::io::BufRead;
use std::path::Path;

use crate::error::TapError;
use crate::network::Network;
use graph_core::GraphError;
use graph_core::io::{ParseIssue, open_text};

/// Coordinates of a network's nodes, by dense node index; `None` for nodes the file does not list.
/// Units are the file's own (longitude/latitude for Sioux Falls and Gold Coast, projected feet or
/// metres for others).
#[derive(Debug, Clone, PartialEq)]
pub struct NodeCoords {
    /// `(x, y)` of each node.
    pub xy: Vec<Option<(f64, f64)>>,
    /// Lines that name a node the network does not have (ignored).
    pub unknown_nodes: usize,
}

impl NodeCoords {
    /// The bounding box `(min x, min y, max x, max y)` of the listed nodes, if any.
    pub fn bounds(&self) -> Option<(f64, f64, f64, f64)> {
        self.xy.iter().flatten().fold(None, |b, &(x, y)| {
            Some(match b {
                None => (x, y, x, y),
                Some((a, c, d, e)) => (f64::min(a, x), f64::min(c, y), f64::max(d, x), f64::max(e, y)),
            })
        })
    }
}

/// Reads a TNTP `_node` file for `net` (plain, .gz or .xz). A first line whose first field is not a
/// number is the header; `~` starts a comment; a trailing `;` is optional. Errors name the file and line.
///
/// ```no_run
/// use urbanflow::tap::{CostFactors, Network, nodes::read_node_tntp};
/// let net = Network::read_tntp("SiouxFalls_net.tntp", CostFactors::default())?;
/// let coords = read_node_tntp("SiouxFalls_node.tntp", &net)?;
/// assert!(coords.xy.iter().all(Option::is_some));
/// # Ok::<(), urbanflow::tap::TapError>(())
/// ```
pub fn read_node_tntp(path: impl AsRef<Path>, net: &Network) -> Result<NodeCoords, TapError> {
    let path = path.as_ref();
    let reader = open_text(path)?;
    let mut xy = vec![None; net.num_nodes()];
    let mut unknown_nodes = 0;
    let parse_err = |line: u64, kind: ParseIssue| GraphError::Parse { path: path.to_path_buf(), line, kind };
    let mut content = 0u64;
    for (k, line) in reader.lines().enumerate() {
        let line_no = k as u64 + 1;
        let line = line.map_err(|e| parse_err(line_no, ParseIssue::Io(e.to_string())))?;
        let body = line.split('~').next().unwrap_or("").trim().trim_end_matches(';').trim();
        if body.is_empty() {
            continue;
        }
        content += 1;
        let fields: Vec<&str> = body.split_whitespace().collect();
        let Ok(id) = fields[0].parse::<u64>() else {
            if content == 1 {
                continue; // the header, e.g. `Node X Y ;`
            }
            return Err(parse_err(
                line_no,
                ParseIssue::BadField { field: "node", found: fields[0].into(), expected: "a node number" },
            )
            .into());
        };
        let coord = |k: usize, field: &'static str| -> Result<f64, GraphError> {
            let found = fields.get(k).copied().unwrap_or("");
            found.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| {
                parse_err(
                    line_no,
                    ParseIssue::BadField { field, found: found.into(), expected: "a finite number" },
                )
            })
        };
        let (x, y) = (coord(1, "x")?, coord(2, "y")?);
        match net.node_index(id) {
            Some(v) => {
                if xy[v as usize].replace((x, y)).is_some() {
                    return Err(parse_err(line_no, ParseIssue::DuplicateVertex { id }).into());
                }
            }
            None => unknown_nodes += 1,
        }
    }
    Ok(NodeCoords { xy, unknown_nodes })
}
