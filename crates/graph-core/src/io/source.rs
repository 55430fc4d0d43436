//! Opening a text file whatever its compression.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use super::GraphError;

/// Compression of a file, detected from its first bytes (not its name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain text.
    None,
    /// gzip (`1f 8b`).
    Gzip,
    /// xz (`fd 37 7a 58 5a 00`).
    Xz,
}

impl Compression {
    /// Detects the compression from a file's first bytes.
    pub fn detect(head: &[u8]) -> Self {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
            Compression::Xz
        } else {
            Compression::None
        }
    }
}

/// Opens `path` for buffered reading, decompressing gzip (including multi-member files) and xz
/// transparently.
pub fn open_text(path: &Path) -> Result<Box<dyn BufRead + Send>, GraphError> {
    let open_err = |source| GraphError::Open { path: path.to_path_buf(), source };
    let file = File::open(path).map_err(open_err)?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let head = reader.fill_buf().map_err(open_err)?;
    Ok(match Compression::detect(head) {
        Compression::None => Box::new(reader),
        Compression::Gzip => {
            Box::new(BufReader::with_capacity(1 << 16, flate2::bufread::MultiGzDecoder::new(reader)))
        }
        Compression::Xz => {
            Box::new(BufReader::with_capacity(1 << 16, xz2::bufread::XzDecoder::new_multi_decoder(reader)))
        }
    })
}
