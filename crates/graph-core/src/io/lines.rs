//! Line-by-line reading with line numbers and typed errors.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use super::{GraphError, ParseIssue};
use crate::weight::Weight;

/// A line reader that knows its file name and line number, so every error can say where it happened.
pub(crate) struct Lines<R> {
    reader: R,
    path: PathBuf,
    buf: Vec<u8>,
    line: u64,
}

impl<R: BufRead> Lines<R> {
    pub(crate) fn new(reader: R, path: impl AsRef<Path>) -> Self {
        Self { reader, path: path.as_ref().to_path_buf(), buf: Vec::with_capacity(256), line: 0 }
    }

    /// The next line without its end (`\n` or `\r\n`), or `None` at the end of the file.
    pub(crate) fn next_line(&mut self) -> Result<Option<&str>, GraphError> {
        self.buf.clear();
        match self.reader.read_until(b'\n', &mut self.buf) {
            Ok(0) => return Ok(None),
            Ok(_) => {}
            Err(e) => {
                self.line += 1;
                return Err(self.error(ParseIssue::Io(e.to_string())));
            }
        }
        self.line += 1;
        while matches!(self.buf.last(), Some(b'\n' | b'\r')) {
            self.buf.pop();
        }
        match std::str::from_utf8(&self.buf) {
            Ok(s) => Ok(Some(s)),
            Err(_) => {
                Err(GraphError::Parse { path: self.path.clone(), line: self.line, kind: ParseIssue::NotText })
            }
        }
    }

    /// The next line with its 1-based number (for loops that need the number while holding the line).
    pub(crate) fn next_numbered(&mut self) -> Result<Option<(u64, &str)>, GraphError> {
        let at = self.line + 1;
        Ok(self.next_line()?.map(|l| (at, l)))
    }

    /// The current line number (1-based; 0 before the first line).
    pub(crate) fn line(&self) -> u64 {
        self.line
    }

    /// An error at the current line.
    pub(crate) fn error(&self, kind: ParseIssue) -> GraphError {
        GraphError::Parse { path: self.path.clone(), line: self.line.max(1), kind }
    }

    /// The arcs read up to here do not make a graph (`why`: too many arcs for u32 offsets, ...).
    pub(crate) fn not_a_graph(&self, why: GraphError) -> GraphError {
        GraphError::NotAGraph { path: self.path.clone(), line: self.line.max(1), source: Box::new(why) }
    }
}

/// Shortens a line for an error message.
pub(crate) fn excerpt(line: &str) -> String {
    const MAX: usize = 60;
    if line.len() <= MAX {
        line.to_string()
    } else {
        let mut end = MAX;
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &line[..end])
    }
}

/// Parses an unsigned integer field.
pub(crate) fn parse_u64(
    field: Option<&str>,
    name: &'static str,
    expected: &'static str,
) -> Result<u64, ParseIssue> {
    let found = field.unwrap_or("");
    found.parse::<u64>().map_err(|_| ParseIssue::BadField { field: name, found: found.to_string(), expected })
}

/// Parses a vertex id in `first..=last` and returns it 0-based.
pub(crate) fn parse_vertex(
    field: Option<&str>,
    name: &'static str,
    first: u64,
    last: u64,
) -> Result<u32, ParseIssue> {
    let id = parse_u64(field, name, "a vertex id")?;
    if id < first || id > last {
        return Err(ParseIssue::VertexOutOfRange { id, first, last });
    }
    Ok((id - first) as u32)
}

/// Parses a weight field.
pub(crate) fn parse_weight<W: Weight>(field: Option<&str>) -> Result<W, ParseIssue> {
    let found = field.ok_or(ParseIssue::BadField {
        field: "weight",
        found: String::new(),
        expected: "a non-negative weight",
    })?;
    W::parse_field(found).map_err(|issue| ParseIssue::BadWeight {
        found: found.to_string(),
        issue,
        weight_type: W::NAME,
    })
}

/// Fails if a line has fields left over.
pub(crate) fn no_more(mut fields: std::str::SplitAsciiWhitespace<'_>, line: &str) -> Result<(), ParseIssue> {
    match fields.next() {
        None => Ok(()),
        Some(_) => {
            Err(ParseIssue::UnexpectedLine { found: excerpt(line), expected: "no more fields on this line" })
        }
    }
}
