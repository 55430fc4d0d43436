//! DIMACS shortest-path `.gr` (1-based and the 0-based variant) and PACE-2016 `.gr`.

use std::io::BufRead;
use std::path::Path;

use super::lines::{Lines, excerpt, no_more, parse_vertex, parse_weight};
use super::{GraphError, ParseIssue, ReadOptions, open_text};
use crate::builder::GraphBuilder;
use crate::csr::Csr;
use crate::weight::Weight;

const SP_HEADER: &str = "p sp <n> <m>";
const TW_HEADER: &str = "p tw <n> <m>";

/// Reads a DIMACS shortest-path file (`p sp n m`, `a u v w` with 1-based ids).
pub fn read_dimacs_sp<W: Weight>(path: impl AsRef<Path>, opts: ReadOptions) -> Result<Csr<W>, GraphError> {
    let path = path.as_ref();
    parse_dimacs_sp(open_text(path)?, path, opts)
}

/// Parses DIMACS shortest-path text from any reader; `name` is used in error messages.
pub fn parse_dimacs_sp<W: Weight>(
    reader: impl BufRead,
    name: impl AsRef<Path>,
    opts: ReadOptions,
) -> Result<Csr<W>, GraphError> {
    parse_arcs(Lines::new(reader, name), opts, 1, true)
}

/// Reads the 0-based `a u v w` variant (as used by fast_paths): the `p sp n m` line is optional; without
/// it n is the largest id plus one.
pub fn read_dimacs_sp_zero_based<W: Weight>(
    path: impl AsRef<Path>,
    opts: ReadOptions,
) -> Result<Csr<W>, GraphError> {
    let path = path.as_ref();
    parse_dimacs_sp_zero_based(open_text(path)?, path, opts)
}

/// Parses the 0-based `a u v w` variant from any reader.
pub fn parse_dimacs_sp_zero_based<W: Weight>(
    reader: impl BufRead,
    name: impl AsRef<Path>,
    opts: ReadOptions,
) -> Result<Csr<W>, GraphError> {
    parse_arcs(Lines::new(reader, name), opts, 0, false)
}

/// Reads a PACE-2016 graph (`p tw n m`, then `u v` per undirected edge, 1-based, unweighted): every
/// edge becomes two arcs of weight [`Weight::ONE`].
pub fn read_pace<W: Weight>(path: impl AsRef<Path>, opts: ReadOptions) -> Result<Csr<W>, GraphError> {
    let path = path.as_ref();
    parse_pace(open_text(path)?, path, opts)
}

/// Parses PACE-2016 text from any reader.
pub fn parse_pace<W: Weight>(
    reader: impl BufRead,
    name: impl AsRef<Path>,
    opts: ReadOptions,
) -> Result<Csr<W>, GraphError> {
    let mut lines = Lines::new(reader, name);
    let mut header: Option<(u64, u64)> = None;
    let mut builder: Option<GraphBuilder<W>> = None;
    let mut edges = 0u64;
    while let Some(line) = lines.next_line()? {
        let mut f = line.split_ascii_whitespace();
        let first = match f.next() {
            None | Some("c") => continue,
            Some(tok) => tok,
        };
        let result = if first == "p" {
            if header.is_some() {
                Err(ParseIssue::DuplicateProblemLine)
            } else {
                parse_problem(f, line, "tw", TW_HEADER).map(|(n, m)| {
                    header = Some((n, m));
                    builder = Some(
                        GraphBuilder::new(n as u32)
                            .duplicates(opts.duplicates)
                            .self_loops(opts.self_loops)
                            .with_capacity((2 * m).min(1 << 28) as usize),
                    );
                })
            }
        } else if let (Some((n, m)), Some(b)) = (header, builder.as_mut()) {
            let edge = (|| {
                let u = parse_vertex(Some(first), "u", 1, n)?;
                let v = parse_vertex(f.next(), "v", 1, n)?;
                no_more(f, line)?;
                Ok((u, v))
            })();
            edge.and_then(|(u, v)| {
                edges += 1;
                if edges > m {
                    return Err(ParseIssue::CountMismatch { what: "edges", header: m, found: edges });
                }
                if u == v {
                    b.add_arc(u, v, W::ONE);
                } else {
                    b.add_edge(u, v, W::ONE);
                }
                Ok(())
            })
        } else {
            Err(ParseIssue::MissingProblemLine { expected: TW_HEADER })
        };
        result.map_err(|kind| lines.error(kind))?;
    }
    let (Some((_, m)), Some(b)) = (header, builder) else {
        return Err(lines.error(ParseIssue::Empty { expected: TW_HEADER }));
    };
    if edges != m {
        return Err(lines.error(ParseIssue::CountMismatch { what: "edges", header: m, found: edges }));
    }
    b.build().map(|(g, _)| g).map_err(|e| lines.not_a_graph(e))
}

/// Parses `p <kind> n m` (the leading `p` already taken).
fn parse_problem(
    mut f: std::str::SplitAsciiWhitespace<'_>,
    line: &str,
    kind: &str,
    expected: &'static str,
) -> Result<(u64, u64), ParseIssue> {
    let bad = || ParseIssue::BadProblemLine { found: excerpt(line), expected };
    if f.next() != Some(kind) {
        return Err(bad());
    }
    let n = f.next().and_then(|s| s.parse::<u64>().ok()).ok_or_else(bad)?;
    let m = f.next().and_then(|s| s.parse::<u64>().ok()).ok_or_else(bad)?;
    if f.next().is_some() {
        return Err(bad());
    }
    if n > u32::MAX as u64 {
        return Err(ParseIssue::BadField {
            field: "n",
            found: n.to_string(),
            expected: "at most 4294967295 vertices",
        });
    }
    Ok((n, m))
}

/// The `a u v w` body shared by the 1-based and 0-based DIMACS variants.
fn parse_arcs<W: Weight, R: BufRead>(
    mut lines: Lines<R>,
    opts: ReadOptions,
    base: u64,
    header_required: bool,
) -> Result<Csr<W>, GraphError> {
    let mut header: Option<(u64, u64)> = None;
    let mut arcs: Vec<(u32, u32, W)> = Vec::new();
    let mut max_id = 0u32;
    while let Some(line) = lines.next_line()? {
        let mut f = line.split_ascii_whitespace();
        let result = match f.next() {
            None | Some("c") => continue,
            Some("p") if header.is_some() => Err(ParseIssue::DuplicateProblemLine),
            Some("p") if !arcs.is_empty() => Err(ParseIssue::UnexpectedLine {
                found: excerpt(line),
                expected: "the problem line before the first arc",
            }),
            Some("p") => parse_problem(f, line, "sp", SP_HEADER).map(|(n, m)| {
                header = Some((n, m));
                arcs.reserve(m.min(1 << 28) as usize);
            }),
            Some("a") => {
                let last = match header {
                    Some((n, _)) => Ok((n + base).saturating_sub(1)),
                    None if header_required => Err(ParseIssue::MissingProblemLine { expected: SP_HEADER }),
                    None => Ok(u32::MAX as u64 - 1),
                };
                let arc = last.and_then(|last| {
                    let u = parse_vertex(f.next(), "u", base, last)?;
                    let v = parse_vertex(f.next(), "v", base, last)?;
                    let w = parse_weight::<W>(f.next())?;
                    no_more(f, line)?;
                    Ok((u, v, w))
                });
                arc.and_then(|arc| {
                    if let Some((_, m)) = header
                        && arcs.len() as u64 >= m
                    {
                        let found = arcs.len() as u64 + 1;
                        return Err(ParseIssue::CountMismatch { what: "arcs", header: m, found });
                    }
                    max_id = max_id.max(arc.0).max(arc.1);
                    arcs.push(arc);
                    Ok(())
                })
            }
            Some(_) => Err(ParseIssue::UnexpectedLine {
                found: excerpt(line),
                expected: "`c` comment, `p sp n m` problem line or `a u v w` arc line",
            }),
        };
        result.map_err(|kind| lines.error(kind))?;
    }
    let n = match header {
        Some((n, m)) => {
            if arcs.len() as u64 != m {
                let found = arcs.len() as u64;
                return Err(lines.error(ParseIssue::CountMismatch { what: "arcs", header: m, found }));
            }
            n as u32
        }
        None if header_required || lines.line() == 0 => {
            return Err(lines.error(ParseIssue::Empty { expected: SP_HEADER }));
        }
        None if arcs.is_empty() => 0,
        None => max_id + 1,
    };
    let mut b = GraphBuilder::new(n)
        .duplicates(opts.duplicates)
        .self_loops(opts.self_loops)
        .with_capacity(arcs.len());
    for (u, v, w) in arcs {
        b.add_arc(u, v, w);
    }
    b.build().map(|(g, _)| g).map_err(|e| lines.not_a_graph(e))
}
