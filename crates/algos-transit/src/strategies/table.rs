//! The CSV tables a user brings (edges, zones, zone points, demand): one way to open them, find their
//! columns by name and say where a value is wrong.

use std::path::Path;

use crate::TdError;

/// A table's header: columns found by name (a byte-order mark before the first is ignored).
pub(crate) struct Header(csv::StringRecord);

impl Header {
    /// The first column named any of `names`.
    pub fn find(&self, names: &[&str]) -> Option<usize> {
        self.0.iter().position(|h| names.contains(&h.trim_start_matches('\u{feff}')))
    }
}

/// Opens `path` as a CSV table with a header, fields trimmed.
pub(crate) fn open(path: &Path) -> Result<(csv::Reader<std::fs::File>, Header), TdError> {
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_path(path)
        .map_err(|e| error(path, 0, format!("cannot open: {e}")))?;
    let header = reader.headers().map_err(|e| error(path, 1, format!("no header: {e}")))?.clone();
    Ok((reader, Header(header)))
}

/// What is wrong at `line` of the table at `path`.
pub(crate) fn error(path: &Path, line: u64, message: String) -> TdError {
    TdError::TableFile { path: path.to_path_buf(), line, message }
}
