//! VRPLIB (TSPLIB-style) CVRP files and CVRPLIB solution files.
//!
//! Reads `NAME`, `DIMENSION`, `CAPACITY`, `EDGE_WEIGHT_TYPE` (`EUC_2D` or `EXPLICIT`),
//! `EDGE_WEIGHT_FORMAT` (`FULL_MATRIX`, `LOWER_ROW`, `LOWER_DIAG_ROW`, `UPPER_ROW`, `UPPER_DIAG_ROW`),
//! `NODE_COORD_SECTION`, `EDGE_WEIGHT_SECTION`, `DEMAND_SECTION` and `DEPOT_SECTION` (one depot, ended
//! by `-1`); tabs and trailing blanks are fine. `EUC_2D` distances are rounded to the nearest integer
//! by default (the convention of the literature's optimal values; [`Rounding::Exact`] keeps them real).
//! The depot becomes node 0 and the other nodes keep their file order as customers 1..n, so the
//! customer numbers of CVRPLIB `.sol` files (1..n) are the same.

use std::path::{Path, PathBuf};

use super::{Cvrp, DpError};

/// How `EUC_2D` distances are rounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Rounding {
    /// Nearest integer (TSPLIB `nint`): what published optimal values use.
    #[default]
    Nint,
    /// The real Euclidean distance.
    Exact,
}

struct Lines<'a> {
    path: &'a Path,
    lines: Vec<(usize, &'a str)>,
    at: usize,
    /// The file's last line: where "the file ends without …" is reported.
    end: usize,
}

impl<'a> Lines<'a> {
    fn err(&self, line: usize, what: impl Into<String>) -> DpError {
        DpError::Parse { path: self.path.to_path_buf(), line, what: what.into() }
    }

    /// The next `count` numbers, across lines; the line of each is kept for errors.
    fn numbers(&mut self, count: usize, what: &str) -> Result<Vec<f64>, DpError> {
        let mut out = Vec::with_capacity(count);
        while out.len() < count {
            let Some(&(ln, text)) = self.lines.get(self.at) else {
                return Err(self.err(self.end, format!("file ends after {} of {count} {what}", out.len())));
            };
            self.at += 1;
            for tok in text.split_whitespace() {
                if out.len() == count {
                    return Err(self.err(ln, format!("more values than the {count} {what} expected")));
                }
                out.push(
                    tok.parse::<f64>()
                        .map_err(|_| self.err(ln, format!("`{tok}` is not a number ({what})")))?,
                );
            }
        }
        Ok(out)
    }

    /// The next line split into fields.
    fn fields(&mut self, what: &str) -> Result<(usize, Vec<&'a str>), DpError> {
        let Some(&(ln, text)) = self.lines.get(self.at) else {
            return Err(self.err(self.end, format!("file ends early: expected {what}")));
        };
        self.at += 1;
        Ok((ln, text.split_whitespace().collect()))
    }
}

/// Reads a VRPLIB CVRP file.
pub fn read_vrplib(path: impl AsRef<Path>, rounding: Rounding) -> Result<Cvrp, DpError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| DpError::Open { path: path.into(), source: e })?;
    parse_vrplib(&text, path, rounding)
}

/// Parses the text of a VRPLIB file (`path` names it in errors).
pub fn parse_vrplib(text: &str, path: &Path, rounding: Rounding) -> Result<Cvrp, DpError> {
    let lines: Vec<(usize, &str)> =
        text.lines().enumerate().map(|(k, l)| (k + 1, l.trim())).filter(|(_, l)| !l.is_empty()).collect();
    let end = text.lines().count().max(1);
    let mut r = Lines { path, lines, at: 0, end };
    let mut name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let (mut dim, mut capacity) = (None::<usize>, None::<u32>);
    let (mut weight_type, mut weight_format) = (String::new(), String::from("FULL_MATRIX"));
    let (mut coords, mut weights, mut demand, mut depot) = (None, None, None, None);
    let mut seen = std::collections::HashMap::<&str, usize>::new();
    while r.at < r.lines.len() {
        let (ln, line) = r.lines[r.at];
        r.at += 1;
        if line == "EOF" {
            break;
        }
        // A key or section written twice (a header repeated by a bad merge, two DIMENSIONs that
        // disagree) is refused: which one the writer meant is a guess. COMMENT may repeat.
        let said = line.split_once(':').map_or(line, |(key, _)| key.trim());
        if said != "COMMENT"
            && let Some(first) = seen.insert(said, ln)
        {
            return Err(r.err(ln, format!("{said} given a second time (first on line {first})")));
        }
        if let Some((key, value)) = line.split_once(':') {
            let (key, value) = (key.trim(), value.trim());
            let int = |what: &str| {
                value.parse::<u64>().map_err(|_| r.err(ln, format!("{what}: `{value}` is not a count")))
            };
            match key {
                "NAME" => name = value.into(),
                "DIMENSION" => dim = Some(int("DIMENSION")? as usize),
                "CAPACITY" => {
                    let c = int("CAPACITY")?;
                    capacity = Some(u32::try_from(c).map_err(|_| r.err(ln, "CAPACITY above 2^32"))?);
                }
                "EDGE_WEIGHT_TYPE" => weight_type = value.into(),
                "EDGE_WEIGHT_FORMAT" => weight_format = value.into(),
                _ => {} // TYPE, COMMENT, DISPLAY_DATA_TYPE, …
            }
            continue;
        }
        let need_dim = |r: &Lines| dim.ok_or_else(|| r.err(ln, format!("{line} before DIMENSION")));
        match line {
            "NODE_COORD_SECTION" => {
                let n = need_dim(&r)?;
                let mut c = vec![(0.0, 0.0); n];
                for _ in 0..n {
                    let (ln, f) = r.fields("a coordinate line `id x y`")?;
                    let (id, x, y) = match f[..] {
                        [id, x, y, ..] => (id, x, y),
                        _ => return Err(r.err(ln, "expected `id x y`")),
                    };
                    let k = node_index(&r, ln, id, n)?;
                    let p = |s: &str| {
                        s.parse::<f64>().map_err(|_| r.err(ln, format!("`{s}` is not a coordinate")))
                    };
                    c[k] = (p(x)?, p(y)?);
                }
                coords = Some(c);
            }
            "DEMAND_SECTION" => {
                let n = need_dim(&r)?;
                let mut d = vec![0u32; n];
                for _ in 0..n {
                    let (ln, f) = r.fields("a demand line `id q`")?;
                    let [id, q] = f[..] else { return Err(r.err(ln, "expected `id demand`")) };
                    let k = node_index(&r, ln, id, n)?;
                    d[k] = q
                        .parse()
                        .map_err(|_| r.err(ln, format!("`{q}` is not a demand (unsigned integer)")))?;
                }
                demand = Some(d);
            }
            "DEPOT_SECTION" => {
                let n = need_dim(&r)?;
                let (ln, f) = r.fields("the depot id")?;
                depot = Some(node_index(&r, ln, f.first().copied().unwrap_or(""), n)?);
                let (ln, f) = r.fields("`-1` ending DEPOT_SECTION")?;
                if f.first().copied() != Some("-1") {
                    return Err(r.err(ln, "only one depot is supported (expected -1)"));
                }
            }
            "EDGE_WEIGHT_SECTION" => {
                let n = need_dim(&r)?;
                let count = match weight_format.as_str() {
                    "FULL_MATRIX" => n * n,
                    "LOWER_ROW" | "UPPER_ROW" => n * (n - 1) / 2,
                    "LOWER_DIAG_ROW" | "UPPER_DIAG_ROW" => n * (n + 1) / 2,
                    other => return Err(r.err(ln, format!("EDGE_WEIGHT_FORMAT {other} is not supported"))),
                };
                let v = r.numbers(count, "edge weights")?;
                let mut w = vec![0.0; n * n];
                let mut it = v.into_iter();
                for i in 0..n {
                    let cols: Box<dyn Iterator<Item = usize>> = match weight_format.as_str() {
                        "FULL_MATRIX" => Box::new(0..n),
                        "LOWER_ROW" => Box::new(0..i),
                        "LOWER_DIAG_ROW" => Box::new(0..=i),
                        "UPPER_ROW" => Box::new(i + 1..n),
                        _ => Box::new(i..n),
                    };
                    for j in cols {
                        let x = it.next().expect("counted");
                        w[i * n + j] = x;
                        if weight_format != "FULL_MATRIX" {
                            w[j * n + i] = x;
                        }
                    }
                }
                weights = Some(w);
            }
            _ => return Err(r.err(ln, format!("unexpected line `{line}`"))),
        }
    }
    let n = dim.ok_or_else(|| r.err(r.end, "the file ends without DIMENSION"))?;
    let capacity = capacity.ok_or_else(|| r.err(r.end, "the file ends without CAPACITY"))?;
    let demand_file = demand.ok_or_else(|| r.err(r.end, "the file ends without a DEMAND_SECTION"))?;
    let depot = depot.unwrap_or(0);
    let cost_file = match (weight_type.as_str(), weights, &coords) {
        ("EXPLICIT", Some(w), _) => w,
        ("EUC_2D", _, Some(c)) => {
            let mut w = vec![0.0; n * n];
            for i in 0..n {
                for j in 0..n {
                    let d = ((c[i].0 - c[j].0).powi(2) + (c[i].1 - c[j].1).powi(2)).sqrt();
                    w[i * n + j] = if rounding == Rounding::Nint { d.round() } else { d };
                }
            }
            w
        }
        ("EUC_2D", _, None) => {
            return Err(r.err(r.end, "EUC_2D, but the file ends without a NODE_COORD_SECTION"));
        }
        ("EXPLICIT", None, _) => {
            return Err(r.err(r.end, "EXPLICIT, but the file ends without an EDGE_WEIGHT_SECTION"));
        }
        (other, _, _) => {
            return Err(
                r.err(r.end, format!("EDGE_WEIGHT_TYPE `{other}` is not supported (EUC_2D, EXPLICIT)"))
            );
        }
    };
    // The depot first, then the other nodes in file order.
    let order: Vec<usize> = std::iter::once(depot).chain((0..n).filter(|&k| k != depot)).collect();
    let demand: Vec<u32> = order.iter().map(|&k| demand_file[k]).collect();
    if demand[0] != 0 {
        return Err(r.err(0, format!("the depot has demand {}", demand[0])));
    }
    let mut cost = vec![0.0; n * n];
    for (a, &i) in order.iter().enumerate() {
        for (b, &j) in order.iter().enumerate() {
            cost[a * n + b] = cost_file[i * n + j];
        }
    }
    // Shape errors name the file; ZeroDemand / DemandExceedsCapacity stay typed (they name the customer).
    let inst = Cvrp::new(name, demand, capacity, cost).map_err(|e| match e {
        DpError::Shape(what) => r.err(0, what),
        other => other,
    })?;
    Ok(match coords {
        Some(c) => inst.with_coords(order.iter().map(|&k| c[k]).collect()),
        None => inst,
    })
}

fn node_index(r: &Lines, ln: usize, id: &str, n: usize) -> Result<usize, DpError> {
    match id.parse::<usize>() {
        Ok(k) if (1..=n).contains(&k) => Ok(k - 1),
        _ => Err(r.err(ln, format!("`{id}` is not a node id in 1..={n}"))),
    }
}

/// A CVRPLIB solution: routes of customer numbers (1..n, depot excluded) and the stated cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// The routes.
    pub routes: Vec<Vec<u32>>,
    /// The `Cost` line.
    pub cost: f64,
}

/// Reads a CVRPLIB `.sol` file (`Route #k: c c c` lines and a `Cost X` line).
pub fn read_solution(path: impl AsRef<Path>) -> Result<Solution, DpError> {
    let path: PathBuf = path.as_ref().into();
    let text = std::fs::read_to_string(&path).map_err(|e| DpError::Open { path: path.clone(), source: e })?;
    let err = |line, what: String| DpError::Parse { path: path.clone(), line, what };
    let (mut routes, mut cost) = (Vec::new(), None);
    for (k, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("Route") {
            let (_, body) =
                rest.split_once(':').ok_or_else(|| err(k + 1, "expected `Route #k: customers…`".into()))?;
            let route: Result<Vec<u32>, _> = body.split_whitespace().map(str::parse).collect();
            routes.push(route.map_err(|_| err(k + 1, "customer numbers must be unsigned integers".into()))?);
        } else if let Some(rest) = line.strip_prefix("Cost") {
            cost = Some(
                rest.trim()
                    .parse::<f64>()
                    .map_err(|_| err(k + 1, format!("`{}` is not a cost", rest.trim())))?,
            );
        }
    }
    let cost = cost.ok_or_else(|| err(0, "no `Cost` line".into()))?;
    Ok(Solution { routes, cost })
}
