//! The metric-independent part of a [`Cch`] on disk, keyed by the graph's shape: its nested-dissection
//! order, dissection tree and chordal supergraph (NY: 9.7 MB, the order 1.2 s and the supergraph
//! 0.05 s to build on a 2-core machine, both read back in a few hundredths of a second). The lower
//! triangles are never stored: customisation enumerates them from the supergraph.
//!
//! File: `UFCCHORD`, version, vertex and arc counts, fingerprints of the graph's offsets and heads, the
//! order, the parts, the supergraph's upward arcs, and a fingerprint of all of it (u32 arrays two to a
//! word). A file of another version or graph, cut short, altered, or whose supergraph is not chordal
//! or misses an arc of the graph is refused ([`SsspError::HierarchyFile`]); [`Cch::build_cached`] then
//! builds anew and says why ([`CacheUse::Rebuilt`]). Writes go to a temporary file renamed into place,
//! so concurrent processes never read half a file.

use std::path::{Path, PathBuf};

use gpu_runtime::tuning::fingerprint_words;
use graph_core::{Csr, Weight};

use super::Cch;
use super::order::Part;
use super::topology::Topology;
use crate::error::SsspError;

const MAGIC: &[u8; 8] = b"UFCCHORD";
const VERSION: u32 = 2;
/// `sides` of a leaf part.
const LEAF: u64 = u64::MAX;

/// Where [`Cch::build_cached`]'s hierarchy came from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CacheUse {
    /// Read from this file (the order; the supergraph recomputed).
    Loaded(PathBuf),
    /// Built and saved to this file for the next run.
    Built(PathBuf),
    /// Built: the file there was refused (the reason), and it was replaced.
    Rebuilt(PathBuf, String),
    /// Built without a cache: no cache folder, or it could not be written (the reason).
    Uncached(String),
}

/// One phrase for reports: `loaded from …`, `built, saved to …`, `built: the saved file was refused
/// (why); replaced at …`, `built, not cached: why`.
impl std::fmt::Display for CacheUse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CacheUse::Loaded(p) => write!(f, "loaded from {}", p.display()),
            CacheUse::Built(p) => write!(f, "built, saved to {}", p.display()),
            CacheUse::Rebuilt(p, why) => {
                write!(f, "built: the saved file was refused ({why}); replaced at {}", p.display())
            }
            CacheUse::Uncached(why) => write!(f, "built, not cached: {why}"),
        }
    }
}

/// The shape of a graph as four words: vertices, arcs and fingerprints of offsets and heads (the two
/// fingerprints on two threads: each is one chain of dependent multiplies, ~3 ms on NY).
fn shape<W: Weight>(graph: &Csr<W>) -> [u64; 4] {
    let (offsets, heads) =
        rayon::join(|| fingerprint_words(graph.offsets()), || fingerprint_words(graph.targets()));
    [graph.num_vertices() as u64, graph.num_arcs() as u64, offsets, heads]
}

/// `values` two to a word (the last word's high half 0 when their number is odd).
fn pack(values: &[u32], words: &mut Vec<u64>) {
    words.extend(values.chunks(2).map(|c| c[0] as u64 | (c.get(1).copied().unwrap_or(0) as u64) << 32));
}

/// `len` values from words packed by [`pack`].
fn unpack(words: &[u64], len: usize) -> Vec<u32> {
    words.iter().flat_map(|&w| [w as u32, (w >> 32) as u32]).take(len).collect()
}

/// A fingerprint of the file's words (their little-endian u32 halves).
fn checksum(words: &[u64]) -> u64 {
    fingerprint_words(bytemuck::cast_slice(words))
}

impl Cch {
    /// Writes the order, dissection tree and chordal supergraph (what [`Self::load`] needs) to `path`,
    /// atomically.
    ///
    /// ```
    /// use urbanflow::sssp::cch::Cch;
    /// let g = urbanflow::graph::generators::grid_2d(20, 20);
    /// let cch = Cch::build(&g).unwrap();
    /// let path = std::env::temp_dir().join(format!("doc-{}.cch", std::process::id()));
    /// cch.save(&g, &path).unwrap();
    /// let again = Cch::load(&g, &path).unwrap();
    /// assert_eq!(again.rank(), cch.rank());
    /// # std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn save<W: Weight>(&self, graph: &Csr<W>, path: &Path) -> Result<(), SsspError> {
        let file_error =
            |e: std::io::Error| SsspError::HierarchyFile { path: path.into(), problem: e.to_string() };
        if graph.num_vertices() as usize != self.rank.len()
            || graph.num_arcs() as usize != self.arc_slot.len()
        {
            return Err(SsspError::InvalidParameter(
                "save: the hierarchy was built from another graph".into(),
            ));
        }
        let mut words: Vec<u64> = shape(graph).to_vec();
        words.push(self.order.len() as u64);
        pack(&self.order, &mut words);
        words.push(self.parts.len() as u64);
        for p in &self.parts {
            words.extend([p.ranks.start as u64, p.ranks.end as u64]);
            words.extend(p.sides.map_or([LEAF, LEAF], |[a, b]| [a as u64, b as u64]));
        }
        words.push(self.topo.head.len() as u64);
        pack(&self.topo.first_out, &mut words);
        pack(&self.topo.head, &mut words);
        let mut bytes = Vec::with_capacity(16 + 8 * (words.len() + 1));
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&0u32.to_le_bytes());
        for w in &words {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        bytes.extend_from_slice(&checksum(&words).to_le_bytes());
        gpu_runtime::tuning::write_whole(path, &bytes).map_err(file_error)
    }

    /// The hierarchy of `graph` saved by [`Self::save`] for this graph's shape (any weights). A file of
    /// another version or graph, cut short, altered or inconsistent is an error, never trusted.
    pub fn load<W: Weight>(graph: &Csr<W>, path: &Path) -> Result<Self, SsspError> {
        Self::load_shaped(graph, shape(graph), path)
    }

    /// [`Self::load`] with `graph`'s shape already computed.
    fn load_shaped<W: Weight>(graph: &Csr<W>, graph_shape: [u64; 4], path: &Path) -> Result<Self, SsspError> {
        let bad = |problem: &str| SsspError::HierarchyFile { path: path.into(), problem: problem.into() };
        let t = std::time::Instant::now();
        let bytes = std::fs::read(path).map_err(|e| bad(&e.to_string()))?;
        if bytes.len() < 16 || &bytes[..8] != MAGIC {
            return Err(bad("not a urbanflow hierarchy file"));
        }
        let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap_or_default());
        if version != VERSION {
            return Err(bad(&format!("format version {version}, this build reads {VERSION}")));
        }
        if bytes.len() % 8 != 0 || bytes.len() < 16 + 8 * 6 {
            return Err(bad("cut short"));
        }
        let words: Vec<u64> = bytes[16..]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
            .collect();
        let (body, check) = words.split_at(words.len() - 1);
        if checksum(body) != check[0] {
            return Err(bad("altered or cut short (its checksum does not match)"));
        }
        if body[..4] != graph_shape {
            return Err(bad("saved for another graph (vertex or arc count, or arcs, differ)"));
        }
        let n = graph.num_vertices() as usize;
        let mut at = 4;
        let mut next = |k: usize| -> Result<&[u64], SsspError> {
            let s = body.get(at..at + k).ok_or_else(|| bad("cut short"))?;
            at += k;
            Ok(s)
        };
        if next(1)?[0] != n as u64 {
            return Err(bad("its order does not cover the graph"));
        }
        let order = unpack(next(n.div_ceil(2))?, n);
        let mut seen = vec![false; n];
        for &v in &order {
            if v as usize >= n || std::mem::replace(&mut seen[v as usize], true) {
                return Err(bad("its order is not a permutation of the vertices"));
            }
        }
        let count = next(1)?[0] as usize;
        let mut parts = Vec::with_capacity(count.min(n + 1));
        for _ in 0..count {
            let p = next(4)?;
            let sides = match (p[2], p[3]) {
                (LEAF, LEAF) => None,
                (a, b) if (a as usize) < count && (b as usize) < count => Some([a as usize, b as usize]),
                _ => return Err(bad("a dissection part names a part that does not exist")),
            };
            if p[0] > p[1] || p[1] > n as u64 {
                return Err(bad("a dissection part lies outside the ranks"));
            }
            parts.push(Part { ranks: p[0] as u32..p[1] as u32, sides });
        }
        if count == 0 && n > 0 {
            return Err(bad("no dissection tree"));
        }
        let edges = next(1)?[0] as usize;
        let first_out = unpack(next((n + 1).div_ceil(2))?, n + 1);
        let head = unpack(next(edges.div_ceil(2))?, edges);
        if at != body.len() {
            return Err(bad("longer than its contents"));
        }
        let order_seconds = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let topo = Topology::from_stored(first_out, head).map_err(|e| bad(&e))?;
        Self::with_topology(graph, super::ranks_of(&order), order, parts, topo, order_seconds, t)
            .map_err(|e| bad(&e.to_string()))
    }

    /// Whether the cache folder holds a hierarchy file for `graph`'s shape (what makes
    /// [`Self::build_cached`] a read instead of a build: NY 0.1 s against 1–1.5 s; the file is checked
    /// only when read). For automatic choices that price the hierarchy ([`crate::auto::phast_pays`]).
    pub fn is_cached<W: Weight>(graph: &Csr<W>) -> bool {
        gpu_runtime::tuning::cache_dir().is_some_and(|dir| Self::cache_file_in(graph, &dir).is_file())
    }

    /// The file of `graph`'s hierarchy in the cache folder `dir`. The bisector is in the name: an order
    /// of another bisector is exact too, but would not be the hierarchy this build measures and reports.
    fn cache_file_in<W: Weight>(graph: &Csr<W>, dir: &Path) -> PathBuf {
        Self::cache_file_for(shape(graph), dir)
    }

    /// [`Self::cache_file_in`] for a shape already computed.
    fn cache_file_for([n, m, offsets, heads]: [u64; 4], dir: &Path) -> PathBuf {
        let bisector = super::Bisector::default();
        dir.join(format!("cch-v{VERSION}-{}-{n}-{m}-{offsets:016x}{heads:016x}.order", bisector.name()))
    }

    /// [`Self::build`], through the cache folder (`$URBANFLOW_CACHE_DIR`, else urbanflow's folder in the
    /// user's cache directory): loaded when a file for this graph's shape is there, else built and
    /// saved. Says which ([`CacheUse`]); a refused file is replaced, never trusted.
    pub fn build_cached<W: Weight>(graph: &Csr<W>) -> Result<(Self, CacheUse), SsspError> {
        match gpu_runtime::tuning::cache_dir() {
            Some(dir) => Self::build_cached_in(graph, &dir),
            None => Ok((Self::build(graph)?, CacheUse::Uncached("no cache folder on this system".into()))),
        }
    }

    /// The graph's hierarchy ready for queries: [`Self::build_cached`], customised with the graph's
    /// weights, and a phrase saying where the order came from (for a run's report).
    pub fn prepare_cached(graph: &Csr<u32>) -> Result<(crate::ch::ContractionHierarchy, String), SsspError> {
        let (cch, used) = Self::build_cached(graph)?;
        let customised = cch.customise(graph.weights())?;
        let how = match used {
            CacheUse::Loaded(p) => format!("cch, order loaded from {}", p.display()),
            CacheUse::Built(p) => format!("cch, built (order saved to {})", p.display()),
            CacheUse::Rebuilt(_, why) => format!("cch, rebuilt (the saved order was refused: {why})"),
            CacheUse::Uncached(why) => format!("cch, built ({why})"),
        };
        Ok((customised, how))
    }

    /// [`Self::build_cached`] with the cache in `dir`.
    pub fn build_cached_in<W: Weight>(graph: &Csr<W>, dir: &Path) -> Result<(Self, CacheUse), SsspError> {
        let graph_shape = shape(graph);
        let path = Self::cache_file_for(graph_shape, dir);
        let refused = if path.exists() {
            match Self::load_shaped(graph, graph_shape, &path) {
                Ok(cch) => return Ok((cch, CacheUse::Loaded(path))),
                Err(e) => Some(e.to_string()),
            }
        } else {
            None
        };
        let cch = Self::build_with(graph, super::Bisector::default())?;
        let used = match (cch.save(graph, &path), refused) {
            (Err(e), _) => CacheUse::Uncached(format!("not saved: {e}")),
            (Ok(()), Some(why)) => CacheUse::Rebuilt(path, why),
            (Ok(()), None) => CacheUse::Built(path),
        };
        Ok((cch, used))
    }
}
