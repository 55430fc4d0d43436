//! Plain edge lists: `u v [w]` per line, 0-based, `#` or `%` comments.

use std::io::BufRead;
use std::path::Path;

use super::lines::{Lines, excerpt, no_more, parse_vertex, parse_weight};
use super::{GraphError, ParseIssue, ReadOptions, open_text};
use crate::builder::GraphBuilder;
use crate::csr::Csr;
use crate::weight::Weight;

/// Reads a plain directed edge list: one arc `u v` or `u v w` per line (0-based ids; all lines weighted
/// or none; unweighted arcs get [`Weight::ONE`]); lines starting with `#` or `%` are comments. n is the
/// largest id plus one.
pub fn read_edge_list<W: Weight>(path: impl AsRef<Path>, opts: ReadOptions) -> Result<Csr<W>, GraphError> {
    let path = path.as_ref();
    parse_edge_list(open_text(path)?, path, opts)
}

/// Parses a plain edge list from any reader.
pub fn parse_edge_list<W: Weight>(
    reader: impl BufRead,
    name: impl AsRef<Path>,
    opts: ReadOptions,
) -> Result<Csr<W>, GraphError> {
    let mut lines = Lines::new(reader, name);
    let mut arcs: Vec<(u32, u32, W)> = Vec::new();
    let mut weighted: Option<bool> = None;
    let mut max_id = 0u32;
    while let Some(line) = lines.next_line()? {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with('%') {
            continue;
        }
        let has_weight = trimmed.split_ascii_whitespace().count() >= 3;
        let mut f = trimmed.split_ascii_whitespace();
        let arc = (|| {
            let u = parse_vertex(f.next(), "u", 0, u32::MAX as u64 - 1)?;
            let v = parse_vertex(f.next(), "v", 0, u32::MAX as u64 - 1)?;
            if *weighted.get_or_insert(has_weight) != has_weight {
                return Err(ParseIssue::UnexpectedLine {
                    found: excerpt(line),
                    expected: "the same number of fields as the first edge line (all weighted or none)",
                });
            }
            let w = if has_weight { parse_weight::<W>(f.next())? } else { W::ONE };
            no_more(f, line)?;
            Ok((u, v, w))
        })()
        .map_err(|kind| lines.error(kind))?;
        max_id = max_id.max(arc.0).max(arc.1);
        arcs.push(arc);
    }
    let n = if arcs.is_empty() { 0 } else { max_id + 1 };
    let mut b = GraphBuilder::new(n)
        .duplicates(opts.duplicates)
        .self_loops(opts.self_loops)
        .with_capacity(arcs.len());
    for (u, v, w) in arcs {
        b.add_arc(u, v, w);
    }
    b.build().map(|(g, _)| g).map_err(|e| lines.not_a_graph(e))
}
