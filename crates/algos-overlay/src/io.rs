//! A small text format for instances.
//!
//! ```text
//! # comments and blank lines anywhere
//! MOP 1
//! NODES 3
//! 10 0.9 300        # id, on-line probability p, bandwidth capacity b (one line per node)
//! 20 0.5 128
//! 30 0.2 56
//! EDGES complete 256 14    # every pair: p_ij = p_i p_j, u_ij = min(256, b_i, b_j), l_ij = 14
//!                          # (pairs with u_ij < l are no candidates)
//! ```
//! or, for a sparse candidate graph, `EDGES m` followed by m lines `id_i id_j u l [p]` (`p` defaults to
//! `p_i p_j`). Ids are any distinct unsigned integers; results name nodes by them. Numbers are
//! decimal (Rust's `f64` syntax); errors name the file, the line and what was expected.

use std::fmt::Write as _;
use std::path::Path;

use crate::error::OverlayError;
use crate::instance::{Edge, MopInstance};

/// Reads an instance file.
pub fn read_instance(path: impl AsRef<Path>) -> Result<MopInstance, OverlayError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| OverlayError::Parse {
        path: path.into(),
        line: 0,
        what: format!("cannot read: {e}"),
    })?;
    parse_instance(&text, path)
}

/// Parses the text of an instance file (`path` names it in errors).
pub fn parse_instance(text: &str, path: &Path) -> Result<MopInstance, OverlayError> {
    let err = |line: usize, what: String| OverlayError::Parse { path: path.into(), line, what };
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(k, l)| (k + 1, l.split('#').next().unwrap_or("").trim()))
        .filter(|(_, l)| !l.is_empty());
    let mut next =
        |expected: &str| lines.next().ok_or_else(|| err(0, format!("file ends early: expected {expected}")));
    let (ln, header) = next("`MOP 1`")?;
    if header.split_whitespace().collect::<Vec<_>>() != ["MOP", "1"] {
        return Err(err(ln, format!("expected the header `MOP 1`, found `{header}`")));
    }
    let (ln, nodes) = next("`NODES n`")?;
    let n: usize = match nodes.split_whitespace().collect::<Vec<_>>()[..] {
        ["NODES", n] => n.parse().map_err(|_| err(ln, format!("`{n}` is not a node count")))?,
        _ => return Err(err(ln, format!("expected `NODES n`, found `{nodes}`"))),
    };
    let (mut ids, mut p, mut b) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    let mut index = std::collections::HashMap::with_capacity(n);
    for k in 0..n {
        let (ln, line) = next(&format!("node line {} of {n} (`id p b`)", k + 1))?;
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() != 3 {
            return Err(err(ln, format!("expected `id p b`, found `{line}`")));
        }
        let id: u64 =
            f[0].parse().map_err(|_| err(ln, format!("`{}` is not a node id (unsigned integer)", f[0])))?;
        if index.insert(id, k as u32).is_some() {
            return Err(err(ln, format!("node id {id} appears twice")));
        }
        ids.push(id);
        let (pk, bk) = (
            number(f[1], "probability p").map_err(|w| err(ln, w))?,
            number(f[2], "capacity b").map_err(|w| err(ln, w))?,
        );
        if !(0.0..=1.0).contains(&pk) {
            return Err(err(ln, format!("node {id}: on-line probability {pk} is outside [0, 1]")));
        }
        if bk < 0.0 {
            return Err(err(ln, format!("node {id}: bandwidth capacity {bk} must be ≥ 0")));
        }
        p.push(pk);
        b.push(bk);
    }
    let (ln, edges_line) = next("`EDGES complete u_max l` or `EDGES m`")?;
    let f: Vec<&str> = edges_line.split_whitespace().collect();
    let at = |e: OverlayError| match e {
        OverlayError::Parse { .. } => e,
        other => err(ln, other.to_string()),
    };
    let inst = match f[..] {
        ["EDGES", "complete", u_max, l] => {
            let u_max = number(u_max, "u_max").map_err(|w| err(ln, w))?;
            let l = number(l, "l").map_err(|w| err(ln, w))?;
            MopInstance::complete(ids, p, b, u_max, l).map_err(at)?
        }
        ["EDGES", m] => {
            let m: usize = m.parse().map_err(|_| err(ln, format!("`{m}` is not an edge count")))?;
            let mut edges = Vec::with_capacity(m);
            for k in 0..m {
                let (ln, line) = next(&format!("edge line {} of {m} (`id_i id_j u l [p]`)", k + 1))?;
                let f: Vec<&str> = line.split_whitespace().collect();
                if !(4..=5).contains(&f.len()) {
                    return Err(err(ln, format!("expected `id_i id_j u l [p]`, found `{line}`")));
                }
                let node = |s: &str| -> Result<u32, OverlayError> {
                    let id: u64 = s.parse().map_err(|_| err(ln, format!("`{s}` is not a node id")))?;
                    index
                        .get(&id)
                        .copied()
                        .ok_or_else(|| err(ln, format!("node {id} is not in the NODES list")))
                };
                let (i, j) = (node(f[0])?, node(f[1])?);
                let upper = number(f[2], "u").map_err(|w| err(ln, w))?;
                let lower = number(f[3], "l").map_err(|w| err(ln, w))?;
                let value = match f.get(4) {
                    Some(s) => number(s, "p").map_err(|w| err(ln, w))?,
                    None => p[i as usize] * p[j as usize],
                };
                edges.push(Edge { i, j, value, upper, lower });
            }
            // Errors of the whole set (a repeated pair, a bad bound) are reported at the EDGES line.
            MopInstance::new(ids, p, b, edges).map_err(at)?
        }
        _ => {
            return Err(err(
                ln,
                format!("expected `EDGES complete u_max l` or `EDGES m`, found `{edges_line}`"),
            ));
        }
    };
    if let Some((ln, extra)) = lines.next() {
        return Err(err(ln, format!("unexpected line after the last edge: `{extra}`")));
    }
    Ok(inst)
}

fn number(s: &str, what: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(format!("`{s}` is not a finite number ({what})")),
    }
}

/// The text of `inst` in this format: `EDGES complete` when it was built by
/// [`MopInstance::complete`], otherwise every edge.
pub fn format_instance(inst: &MopInstance) -> String {
    let mut out = String::from("# urbanflow membership overlay instance\nMOP 1\n");
    let _ = writeln!(out, "NODES {}", inst.n());
    for h in 0..inst.n() {
        let _ = writeln!(out, "{} {} {}", inst.ids()[h], inst.p()[h], inst.b()[h]);
    }
    if let Some((u_max, l)) = inst.complete_rule() {
        let _ = writeln!(out, "EDGES complete {u_max} {l}");
    } else {
        let _ = writeln!(out, "EDGES {}", inst.edges().len());
        for e in inst.edges() {
            let _ = writeln!(
                out,
                "{} {} {} {} {}",
                inst.ids()[e.i as usize],
                inst.ids()[e.j as usize],
                e.upper,
                e.lower,
                e.value
            );
        }
    }
    out
}

/// Writes `inst` to a file ([`format_instance`]).
pub fn write_instance(inst: &MopInstance, path: impl AsRef<Path>) -> Result<(), OverlayError> {
    let path = path.as_ref();
    std::fs::write(path, format_instance(inst)).map_err(|e| OverlayError::Parse {
        path: path.into(),
        line: 0,
        what: format!("cannot write: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generator::{Family, generate};

    fn parse(text: &str) -> Result<MopInstance, OverlayError> {
        parse_instance(text, Path::new("t.mop"))
    }

    #[test]
    fn round_trips() {
        let inst = generate(12, Family::B, 128.0, 5);
        let text = format_instance(&inst);
        assert!(text.contains("EDGES complete 256 128"), "{text}");
        let back = parse(&text).unwrap();
        assert_eq!(back.edges(), inst.edges());
        assert_eq!(back.p(), inst.p());
        let sparse = MopInstance::new(
            vec![5, 9, 2],
            vec![0.5, 0.25, 1.0],
            vec![10.0, 20.0, 30.0],
            vec![Edge { i: 0, j: 2, value: 0.3, upper: 8.0, lower: 1.0 }],
        )
        .unwrap();
        let back = parse(&format_instance(&sparse)).unwrap();
        assert_eq!(back.edges(), sparse.edges());
        assert_eq!(back.ids(), &[5, 9, 2]);
    }

    #[test]
    fn errors_name_the_line() {
        let line_of = |text: &str| match parse(text) {
            Err(OverlayError::Parse { line, what, .. }) => (line, what),
            other => panic!("expected a parse error, got {other:?}"),
        };
        assert_eq!(line_of("MOP 2\n").0, 1);
        assert_eq!(line_of("MOP 1\n# c\nNODES x\n").0, 3);
        assert_eq!(line_of("MOP 1\nNODES 2\n1 0.5 3\n2 0.5\n").0, 4);
        let (line, what) = line_of("MOP 1\nNODES 2\n1 0.5 3\n2 1.5 3\nEDGES complete 256 14\n");
        assert_eq!(line, 4);
        assert!(what.contains("probability"), "{what}");
        assert_eq!(line_of("MOP 1\nNODES 2\n1 0.5 3\n2 0.5 3\nEDGES 1\n1 3 5 1\n").0, 6);
        assert_eq!(line_of("MOP 1\nNODES 2\n1 0.5 3\n2 0.5 3\nEDGES 1\n1 2 5 9\n").0, 5);
        assert_eq!(line_of("MOP 1\nNODES 2\n1 0.5 3\n2 0.5 3\nEDGES 2\n1 2 5 1\n").0, 0);
        assert_eq!(line_of("MOP 1\nNODES 1\n1 0.5 3\nEDGES 0\nextra\n").0, 5);
        assert_eq!(line_of("MOP 1\nNODES 2\n1 0.5 3\n1 0.5 3\n").0, 4);
    }
}
