//! Opening a text file whatever its compression.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
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
    // Decompression runs on its own thread, a few blocks ahead of the parser: reading a file costs the
    // slower of the two instead of their sum (Philadelphia's 27 MB trip table: 0.17 s of xz and 0.13 s
    // of parsing on one core).
    Ok(match Compression::detect(head) {
        Compression::None => Box::new(reader),
        Compression::Gzip => Box::new(Prefetched::spawn(flate2::bufread::MultiGzDecoder::new(reader))),
        Compression::Xz => Box::new(Prefetched::spawn(xz2::bufread::XzDecoder::new_multi_decoder(reader))),
    })
}

/// Bytes of one block handed from the decompressing thread to the reader.
const BLOCK: usize = 1 << 20;
/// Blocks the decompressing thread may run ahead (bounded memory: a few MiB whatever the file's size).
const AHEAD: usize = 4;

/// A reader whose source is read on a thread of its own, [`BLOCK`] bytes at a time, up to [`AHEAD`]
/// blocks ahead. Errors reach the reader in order, after the bytes read before them. Dropping the reader
/// stops the thread at its next block.
struct Prefetched {
    blocks: std::sync::mpsc::Receiver<std::io::Result<Vec<u8>>>,
    block: Vec<u8>,
    at: usize,
}

impl Prefetched {
    fn spawn(mut source: impl Read + Send + 'static) -> Self {
        let (send, blocks) = std::sync::mpsc::sync_channel(AHEAD);
        let read_blocks = move || loop {
            let mut block = vec![0u8; BLOCK];
            let mut filled = 0;
            let outcome = loop {
                match source.read(&mut block[filled..]) {
                    Ok(0) => break Ok(true),
                    Ok(n) => {
                        filled += n;
                        if filled == BLOCK {
                            break Ok(false);
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => break Err(e),
                }
            };
            block.truncate(filled);
            if filled > 0 && send.send(Ok(block)).is_err() {
                return; // the reader is gone
            }
            match outcome {
                Ok(false) => {}
                Ok(true) => return,
                Err(e) => {
                    let _ = send.send(Err(e));
                    return;
                }
            }
        };
        let spawned = std::thread::Builder::new().name("urbanflow-decompress".into()).spawn(read_blocks);
        match spawned {
            Ok(_) => Self { blocks, block: Vec::new(), at: 0 },
            // No thread to be had: the same bytes, read where the reader asks for them.
            Err(e) => {
                let (send, blocks) = std::sync::mpsc::sync_channel(1);
                let _ = send.send(Err(std::io::Error::other(format!("no thread to decompress on: {e}"))));
                Self { blocks, block: Vec::new(), at: 0 }
            }
        }
    }
}

impl Read for Prefetched {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Prefetched {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.at == self.block.len() {
            match self.blocks.recv() {
                Ok(block) => {
                    self.block = block?;
                    self.at = 0;
                }
                // The thread ended after its last block: the end of the file.
                Err(_) => {
                    self.block.clear();
                    self.at = 0;
                }
            }
        }
        Ok(&self.block[self.at..])
    }

    fn consume(&mut self, n: usize) {
        self.at = (self.at + n).min(self.block.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source that hands out `data` in uneven pieces, then fails if `fail` is set.
    struct Uneven {
        data: Vec<u8>,
        at: usize,
        fail: bool,
    }

    impl Read for Uneven {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            if self.at == self.data.len() {
                return if self.fail { Err(std::io::Error::other("disk on fire")) } else { Ok(0) };
            }
            let n = out.len().min(self.data.len() - self.at).min(1 + self.at % 7919);
            out[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    fn bytes(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect()
    }

    #[test]
    fn prefetched_blocks_give_every_byte_in_order() {
        for len in [0, 1, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 12_345] {
            let data = bytes(len);
            let mut back = Vec::new();
            Prefetched::spawn(Uneven { data: data.clone(), at: 0, fail: false })
                .read_to_end(&mut back)
                .unwrap();
            assert_eq!(back.len(), len);
            assert!(back == data, "{len} bytes came back different");
        }
    }

    #[test]
    fn prefetched_errors_come_after_the_bytes_before_them() {
        let data = bytes(2 * BLOCK + 77);
        let mut reader = Prefetched::spawn(Uneven { data: data.clone(), at: 0, fail: true });
        let mut back = vec![0u8; data.len()];
        reader.read_exact(&mut back).unwrap();
        assert!(back == data);
        let err = reader.read(&mut [0u8; 16]).unwrap_err();
        assert!(err.to_string().contains("disk on fire"), "{err}");
    }

    /// A source that says when it is dropped (which happens when the thread reading it ends).
    struct Watched(Uneven, std::sync::Arc<std::sync::atomic::AtomicBool>);

    impl Read for Watched {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            self.0.read(out)
        }
    }

    impl Drop for Watched {
        fn drop(&mut self) {
            self.1.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }

    #[test]
    fn a_dropped_reader_stops_its_thread() {
        // More blocks than the channel holds: the thread must see the reader is gone, not block forever.
        let ended = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let source = Uneven { data: bytes(3 * AHEAD * BLOCK), at: 0, fail: false };
        let mut reader = Prefetched::spawn(Watched(source, ended.clone()));
        let mut first = [0u8; 10];
        reader.read_exact(&mut first).unwrap();
        drop(reader);
        let waited = std::time::Instant::now();
        while !ended.load(std::sync::atomic::Ordering::SeqCst) {
            assert!(waited.elapsed().as_secs() < 20, "the decompressing thread outlived its reader");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
}
