//! Parsed input files kept between runs in urbanflow's cache folder ([`crate::tuning::cache_dir`]): a
//! later run of the same input reads a few arrays instead of decompressing and parsing text again.
//! One framing for every kind (trip tables, graphs): the file's name holds the kind, its layout
//! version and a key from the source file's bytes and the caller's extra key bytes (what else the
//! parse depended on); its contents are a header, the caller's payload and a fingerprint of both.
//!
//! A file is written whole under a temporary name and renamed into place (readers never see half of
//! one), only for parses the caller calls cacheable (no warnings) of sources and payloads up to
//! [`MAX_BYTES`], and only the [`KEPT`] most recently used of each kind stay. A file that fails any check — its framing, its fingerprint, the caller's
//! decoding — is parsed again and replaced, never an error.
//!
//! ```
//! use urbanflow::gpu::parsed_cache::{Origin, through_cache};
//! let dir = std::env::temp_dir().join(format!("urbanflow-doc-parsed-{}", std::process::id()));
//! let source = dir.join("numbers.txt");
//! std::fs::create_dir_all(&dir)?;
//! std::fs::write(&source, "1 2 3")?;
//! let parse = || -> std::io::Result<(Vec<u8>, bool)> {
//!     let text = std::fs::read_to_string(&source)?;
//!     Ok((text.split(' ').map(|t| t.parse().unwrap()).collect(), true))
//! };
//! let (first, origin) = through_cache(Some(&dir), "numbers", 1, &source, b"", |v| v.clone(), |b| Some(b.to_vec()), parse)?;
//! assert!(matches!(origin, Origin::Parsed { saved: Ok(_) }));
//! let (again, origin) = through_cache(Some(&dir), "numbers", 1, &source, b"", |v| v.clone(), |b| Some(b.to_vec()), parse)?;
//! assert!(matches!(origin, Origin::Cached(_)));
//! assert_eq!(first, again);
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), std::io::Error>(())
//! ```

use std::path::{Path, PathBuf};

use crate::tuning::{fingerprint_bytes, write_whole};

/// Files of one kind kept in the cache folder (the most recently used: a read marks its file used).
pub const KEPT: usize = 8;
/// Largest source file and largest payload kept (bytes): the shared data's inputs fit (FLA's graph is a
/// 34 MB payload), while a continent's graph would cost seconds to hash and write and gigabytes of disk
/// across [`KEPT`] files; those are parsed every time.
pub const MAX_BYTES: u64 = 64 << 20;
const MAGIC: &[u8; 8] = b"UFPARSED";

/// Where [`through_cache`]'s value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Origin {
    /// Read from this cache file.
    Cached(PathBuf),
    /// Parsed from the source; `saved` says where it was kept for the next run, or why not.
    Parsed {
        /// The cache file written, or why none was (no cache folder, not cacheable, a write error).
        saved: Result<PathBuf, String>,
    },
}

/// The value of `source`: decoded from the cache folder `dir` when a file of this `kind`, `version`,
/// source bytes and `extra` key is there and passes every check, else `parse()`d — which says whether
/// its value may be kept — and saved. `dir` `None`: parse, keep nothing. The only errors are
/// `parse`'s: a source that cannot be read gets no key and is parsed, which reports it; a cache file
/// that cannot be read, decoded or written is skipped.
#[allow(clippy::too_many_arguments)]
pub fn through_cache<T, E>(
    dir: Option<&Path>,
    kind: &str,
    version: u32,
    source: &Path,
    extra: &[u8],
    encode: impl FnOnce(&T) -> Vec<u8>,
    decode: impl FnOnce(&[u8]) -> Option<T>,
    parse: impl FnOnce() -> Result<(T, bool), E>,
) -> Result<(T, Origin), E> {
    // An unreadable source: no key; the parse reports it. A source too large to keep: no key either.
    let small = std::fs::metadata(source).is_ok_and(|m| m.len() <= MAX_BYTES);
    let bytes = if small { std::fs::read(source).ok() } else { None };
    let file = dir.zip(bytes).map(|(dir, bytes)| {
        let key = format!(
            "{kind}-v{version}-{}-{:016x}-{:016x}.bin",
            bytes.len(),
            fingerprint_bytes(&bytes),
            fingerprint_bytes(extra)
        );
        dir.join(key)
    });
    if let Some(file) = &file
        && let Some(value) =
            std::fs::read(file).ok().and_then(|b| unframe(&b, kind, version).and_then(decode))
    {
        // Marked as just used, so pruning removes the least recently used.
        let touch = std::fs::File::options().write(true).open(file);
        touch.and_then(|f| f.set_modified(std::time::SystemTime::now())).ok();
        return Ok((value, Origin::Cached(file.clone())));
    }
    let (value, cacheable) = parse()?;
    let saved = match (&file, cacheable) {
        (None, _) if dir.is_none() => Err("no cache folder".to_string()),
        (None, _) => Err(format!("{} is unreadable or larger than {MAX_BYTES} bytes", source.display())),
        (Some(_), false) => Err("not cacheable (the parse found warnings)".to_string()),
        (Some(file), true) => match encode(&value) {
            payload if payload.len() as u64 > MAX_BYTES => {
                Err(format!("{} bytes parsed, more than the {MAX_BYTES} kept", payload.len()))
            }
            payload => save(file, kind, &frame(kind, version, &payload))
                .map(|()| file.clone())
                .map_err(|e| e.to_string()),
        },
    };
    Ok((value, Origin::Parsed { saved }))
}

/// Magic, kind (length and bytes), version, payload length, payload, then the fingerprint of it all.
fn frame(kind: &str, version: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + kind.len() + 40);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(kind.len() as u32).to_le_bytes());
    out.extend_from_slice(kind.as_bytes());
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    let check = fingerprint_bytes(&out);
    out.extend_from_slice(&check.to_le_bytes());
    out
}

/// The payload of a framed file of `kind` and `version`, or `None` when any check fails.
fn unframe<'a>(bytes: &'a [u8], kind: &str, version: u32) -> Option<&'a [u8]> {
    let body = bytes.len().checked_sub(8)?;
    let check = u64::from_le_bytes(bytes[body..].try_into().ok()?);
    if !bytes.starts_with(MAGIC) || fingerprint_bytes(&bytes[..body]) != check {
        return None;
    }
    let mut at = MAGIC.len();
    let mut take = |len: usize| -> Option<&'a [u8]> {
        let end = at.checked_add(len).filter(|&e| e <= body)?;
        let part = &bytes[at..end];
        at = end;
        Some(part)
    };
    let kind_len = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
    let same = take(kind_len)? == kind.as_bytes() && u32::from_le_bytes(take(4)?.try_into().ok()?) == version;
    let len = usize::try_from(u64::from_le_bytes(take(8)?.try_into().ok()?)).ok()?;
    let payload = take(len)?;
    (same && at == body).then_some(payload)
}

/// Writes `bytes` to `file` whole ([`write_whole`]), then prunes the kind's files.
fn save(file: &Path, kind: &str, bytes: &[u8]) -> std::io::Result<()> {
    write_whole(file, bytes)?;
    prune(file.parent().unwrap_or(Path::new(".")), &format!("{kind}-v"), KEPT);
    Ok(())
}

/// Removes all but the `keep` newest `{prefix}*.bin` files of `dir` (best effort: a file another process
/// removed first, or one that cannot be removed, is left to the next save).
fn prune(dir: &Path, prefix: &str, keep: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with(prefix) && name.ends_with(".bin")
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    for (_, old) in files.into_iter().skip(keep) {
        std::fs::remove_file(old).ok();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_damaged_frame_is_refused() {
        let good = frame("kind", 3, b"payload bytes");
        assert_eq!(unframe(&good, "kind", 3), Some(&b"payload bytes"[..]));
        assert_eq!(unframe(&good, "kind", 4), None);
        assert_eq!(unframe(&good, "other", 3), None);
        for at in 0..good.len() {
            let mut bad = good.clone();
            bad[at] ^= 0x10;
            assert_eq!(unframe(&bad, "kind", 3), None, "byte {at}");
        }
        for len in 0..good.len() {
            assert_eq!(unframe(&good[..len], "kind", 3), None, "{len} bytes");
        }
        // Lengths past the end, under a fingerprint that matches them: refused, no panic.
        for huge in [u64::MAX, u64::MAX / 2, 1 << 40] {
            let mut body = good[..good.len() - 8].to_vec();
            let at = MAGIC.len() + 4 + 4 + 4;
            body[at..at + 8].copy_from_slice(&huge.to_le_bytes());
            let check = fingerprint_bytes(&body);
            body.extend_from_slice(&check.to_le_bytes());
            assert_eq!(unframe(&body, "kind", 3), None, "{huge}");
        }
    }

    #[test]
    fn sources_and_payloads_too_large_are_parsed_and_not_kept() {
        let dir = std::env::temp_dir().join(format!("urbanflow-parsed-large-{}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(&dir).unwrap();
        let (small, large) = (dir.join("small.txt"), dir.join("large.txt"));
        std::fs::write(&small, "x").unwrap();
        // A sparse file: its length is what is checked, never its bytes.
        std::fs::File::create(&large).unwrap().set_len(MAX_BYTES + 1).unwrap();
        let ok = || Ok::<_, ()>((7u8, true));
        let (_, origin) =
            through_cache(Some(&dir), "t", 1, &large, b"", |_| vec![7], |_| Some(7), ok).unwrap();
        assert!(
            matches!(origin, Origin::Parsed { saved: Err(ref why) } if why.contains("larger than")),
            "{origin:?}"
        );
        let huge = |_: &u8| vec![0u8; MAX_BYTES as usize + 1];
        let (_, origin) = through_cache(Some(&dir), "t", 1, &small, b"", huge, |_| Some(7), ok).unwrap();
        assert!(
            matches!(origin, Origin::Parsed { saved: Err(ref why) } if why.contains("more than")),
            "{origin:?}"
        );
        let kept = std::fs::read_dir(&dir)
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with("t-v"))
            .count();
        assert_eq!(kept, 0);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn only_the_newest_files_of_a_kind_are_kept() {
        let dir = std::env::temp_dir().join(format!("urbanflow-parsed-prune-{}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(&dir).unwrap();
        for i in 0..5u64 {
            let path = dir.join(format!("demand-v1-{i}.bin"));
            std::fs::write(&path, [i as u8]).unwrap();
            // Modification times a clear step apart on every file system.
            let t = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000 + 10 * i);
            std::fs::File::options().write(true).open(&path).unwrap().set_modified(t).unwrap();
        }
        std::fs::write(dir.join("graph-v1-0.bin"), [0]).unwrap();
        std::fs::write(dir.join("cch-v1-other.order"), [0]).unwrap();
        prune(&dir, "demand-v", 2);
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["cch-v1-other.order", "demand-v1-3.bin", "demand-v1-4.bin", "graph-v1-0.bin"]);
        std::fs::remove_dir_all(&dir).ok();
    }
}
