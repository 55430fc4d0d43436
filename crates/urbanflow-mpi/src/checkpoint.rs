//! Checkpoints of completed source blocks, so a restarted job skips them.
//!
//! One small file per completed block (`block-00000042.done`: trees and checksum), written to a
//! temporary name and renamed, so a killed rank leaves either a whole record or none: a restart
//! recomputes only the blocks that were in flight. A `job` file fingerprints the graph, the sources and
//! the block size; a directory written by another job is refused rather than mixed in.

use std::path::{Path, PathBuf};

use crate::error::{MpiError, io_err};

/// What a completed block contributed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockRecord {
    /// Trees computed.
    pub trees: u64,
    /// Sum of their reached distances, mod 2^64.
    pub checksum: u64,
}

/// A checkpoint directory (shared by all ranks: a cluster file system, or one host's disk).
#[derive(Debug, Clone)]
pub struct Checkpoint {
    dir: PathBuf,
}

impl Checkpoint {
    /// Opens `dir` for the job `fingerprint`: creates it and writes the fingerprint when `writer`
    /// (rank 0; the others call this after a barrier with `writer = false`), or checks it.
    pub fn open(dir: &Path, fingerprint: &str, writer: bool) -> Result<Self, MpiError> {
        let job = dir.join("job");
        if writer {
            std::fs::create_dir_all(dir).map_err(io_err(dir))?;
            if !job.exists() {
                write_atomically(&job, fingerprint.as_bytes())?;
            }
        }
        let found = std::fs::read_to_string(&job).map_err(io_err(&job))?;
        if found != fingerprint {
            return Err(MpiError::Checkpoint {
                path: job,
                message: format!(
                    "written by another job (graph, sources or block size differ): found\n{found}expected\n\
                     {fingerprint}use another --checkpoint directory or delete this one"
                ),
            });
        }
        Ok(Self { dir: dir.to_path_buf() })
    }

    fn block_path(&self, block: usize) -> PathBuf {
        self.dir.join(format!("block-{block:08}.done"))
    }

    /// The record of `block`, if it was completed.
    pub fn done(&self, block: usize) -> Result<Option<BlockRecord>, MpiError> {
        let path = self.block_path(block);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(MpiError::Io { path, source: e }),
        };
        let mut it = text.split_whitespace().map(str::parse::<u64>);
        match (it.next(), it.next(), it.next()) {
            (Some(Ok(trees)), Some(Ok(checksum)), None) => Ok(Some(BlockRecord { trees, checksum })),
            _ => Err(MpiError::Checkpoint {
                path,
                message: format!("expected `<trees> <checksum>`, found `{}`", text.trim()),
            }),
        }
    }

    /// Records `block` as completed.
    pub fn record(&self, block: usize, r: BlockRecord) -> Result<(), MpiError> {
        write_atomically(&self.block_path(block), format!("{} {}\n", r.trees, r.checksum).as_bytes())
    }
}

/// Writes `bytes` to `path` through a temporary file and a rename (all or nothing).
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), MpiError> {
    gpu_runtime::tuning::write_whole(path, bytes).map_err(io_err(path))
}

/// FNV-1a over words: a stable fingerprint (not a security hash).
pub fn fnv1a(words: impl IntoIterator<Item = u32>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for w in words {
        for b in w.to_le_bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}
