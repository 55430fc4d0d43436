//! Writers for the formats the readers accept (compressed by file extension).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use crate::csr::Csr;
use crate::weight::Weight;

/// Creates `path` for writing, compressing with gzip for `.gz` and xz for `.xz` names.
pub fn create_text(path: impl AsRef<Path>) -> io::Result<Box<dyn Write>> {
    let path = path.as_ref();
    let file = BufWriter::with_capacity(1 << 16, File::create(path)?);
    Ok(match path.extension().and_then(|e| e.to_str()) {
        Some("gz") => Box::new(flate2::write::GzEncoder::new(file, flate2::Compression::default())),
        Some("xz") => Box::new(xz2::write::XzEncoder::new(file, 6)),
        _ => Box::new(file),
    })
}

/// Writes a DIMACS shortest-path file (`p sp n m`, 1-based `a u v w`), with `comments` as `c` lines.
///
/// ```
/// use urbanflow::graph::{io, Csr};
/// let g = Csr::from_parts(vec![0, 1, 1], vec![1], vec![7u32]).unwrap();
/// let mut out = Vec::new();
/// io::write_dimacs_sp(&g, &mut out, &["example"]).unwrap();
/// assert_eq!(String::from_utf8(out).unwrap(), "c example\np sp 2 1\na 1 2 7\n");
/// ```
pub fn write_dimacs_sp<W: Weight>(g: &Csr<W>, mut out: impl Write, comments: &[&str]) -> io::Result<()> {
    for c in comments {
        writeln!(out, "c {c}")?;
    }
    writeln!(out, "p sp {} {}", g.num_vertices(), g.num_arcs())?;
    for (u, v, w) in g.arcs() {
        writeln!(out, "a {} {} {}", u + 1, v + 1, w)?;
    }
    out.flush()
}

/// Writes a PACE-2016 graph (`p tw n m`, one 1-based line per undirected edge). The graph must be
/// symmetric (every arc has its reverse, as [`Csr::symmetrise`] makes it); weights are not written.
/// Fails with `InvalidInput` on an asymmetric graph rather than losing arcs.
pub fn write_pace<W: Weight>(g: &Csr<W>, mut out: impl Write) -> io::Result<()> {
    let mut forward: Vec<(u32, u32)> = Vec::new();
    let mut backward: Vec<(u32, u32)> = Vec::new();
    let mut loops: Vec<(u32, u32)> = Vec::new();
    for (u, v, _) in g.arcs() {
        match u.cmp(&v) {
            std::cmp::Ordering::Less => forward.push((u, v)),
            std::cmp::Ordering::Greater => backward.push((v, u)),
            std::cmp::Ordering::Equal => loops.push((u, v)),
        }
    }
    forward.sort_unstable();
    backward.sort_unstable();
    if forward != backward {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "PACE graphs are undirected: the graph must hold both directions of every arc",
        ));
    }
    forward.extend(loops);
    writeln!(out, "p tw {} {}", g.num_vertices(), forward.len())?;
    for (u, v) in forward {
        writeln!(out, "{} {}", u + 1, v + 1)?;
    }
    out.flush()
}

/// Writes a plain 0-based edge list, one `u v w` line per arc.
pub fn write_edge_list<W: Weight>(g: &Csr<W>, mut out: impl Write) -> io::Result<()> {
    writeln!(out, "# {} vertices, {} arcs: u v w (0-based)", g.num_vertices(), g.num_arcs())?;
    for (u, v, w) in g.arcs() {
        writeln!(out, "{u} {v} {w}")?;
    }
    out.flush()
}
