//! Many-to-all trees and distance matrices over ranks: sources in fixed blocks, block `b` on rank
//! `b mod size`, each rank computing its blocks with [`algos_sssp::many`] on its own CPU cores and GPUs.
//!
//! Ranks work in rounds of one block each; after every round one small all-reduce tells every rank
//! how far the job is (rank 0 reports progress) and whether a rank failed — then all of them stop with
//! [`MpiError::RankFailed`], so no rank ever returns a partial result as if it were whole. The
//! checksum (the sum of all reached distances mod 2^64, as the single-process `urbanflow trees`
//! prints) does not depend on the split. With a checkpoint directory every completed block is recorded,
//! and a restarted job skips those.

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use algos_sssp::UNREACHABLE;
use algos_sssp::many::{ManyOptions, many_to_all_shared};
use graph_core::Csr;
use rayon::prelude::*;

use crate::checkpoint::{BlockRecord, Checkpoint, fnv1a, write_atomically};
use crate::comm::Comm;
use crate::error::MpiError;

/// Options of [`many_to_all`].
#[derive(Debug, Clone, Default)]
pub struct DistOptions<'a> {
    /// Sources per block (default [`DEFAULT_BLOCK`]): the unit of distribution and of checkpoints.
    pub block: Option<usize>,
    /// Record completed blocks here and skip those already recorded.
    pub checkpoint: Option<PathBuf>,
    /// Write each block's rows here (`block-<b>.u32`: little-endian u32, row-major, one row per source
    /// of the block, `UNREACHABLE` = 4294967295): full rows, or the `targets` columns.
    pub rows_dir: Option<PathBuf>,
    /// Columns of the written rows (a distance matrix); default: every vertex.
    pub targets: Option<&'a [u32]>,
    /// How each rank computes its blocks (backend, GPUs, schedule).
    pub many: ManyOptions<'a>,
    /// Testing aid: rank 0 ends the job (MPI abort, exit code 3) once this many blocks are complete,
    /// as a crash would.
    pub abort_after_blocks: Option<usize>,
}

/// Sources per block by default: several GPU batches, and a checkpoint every few seconds on a road
/// network.
pub const DEFAULT_BLOCK: usize = 2048;

/// Where a running job stands (all ranks together), reported on rank 0 after every round.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Blocks complete (computed now or skipped from a checkpoint).
    pub blocks_done: usize,
    /// Blocks in the job.
    pub blocks: usize,
    /// Trees complete.
    pub trees_done: u64,
    /// Seconds since the start.
    pub seconds: f64,
}

/// What a distributed run did (the same on every rank).
#[derive(Debug, Clone, PartialEq)]
pub struct DistReport {
    /// Trees in the result (= sources).
    pub trees: u64,
    /// Sum of all reached distances mod 2^64 (equal to the single-process run's).
    pub checksum: u64,
    /// Blocks in the job.
    pub blocks: usize,
    /// Blocks computed in this run.
    pub blocks_computed: usize,
    /// Blocks taken from the checkpoint.
    pub blocks_skipped: usize,
    /// Trees computed by each rank in this run.
    pub trees_per_rank: Vec<u64>,
    /// Seconds each rank spent computing (the rest of the wall time is waiting and messages).
    pub compute_seconds_per_rank: Vec<f64>,
    /// Wall seconds.
    pub seconds: f64,
    /// Ranks.
    pub ranks: usize,
}

/// The job's fingerprint for checkpoints: graph, sources, block size and columns.
fn fingerprint(graph: &Csr<u32>, sources: &[u32], block: usize, targets: Option<&[u32]>) -> String {
    let g = fnv1a(graph.offsets().iter().chain(graph.targets()).chain(graph.weights()).copied());
    format!(
        "urbanflow-mpi many_to_all 1\nvertices {}\narcs {}\ngraph {g:016x}\nsources {} {:016x}\nblock {block}\n\
         targets {}\n",
        graph.num_vertices(),
        graph.num_arcs(),
        sources.len(),
        fnv1a(sources.iter().copied()),
        targets.map_or("all".to_string(), |t| format!("{} {:016x}", t.len(), fnv1a(t.iter().copied()))),
    )
}

/// Trees from every source over all ranks of `comm`; every rank passes the same graph, sources and
/// options, and gets the same report. `progress` runs on rank 0 after every round.
pub fn many_to_all(
    comm: &dyn Comm,
    graph: &Csr<u32>,
    sources: &[u32],
    opts: &DistOptions<'_>,
    mut progress: impl FnMut(&Progress),
) -> Result<DistReport, MpiError> {
    let started = Instant::now();
    let (rank, size) = (comm.rank(), comm.size());
    let block = opts.block.unwrap_or(DEFAULT_BLOCK);
    if block == 0 {
        return Err(MpiError::InvalidOption("the block size must be at least 1".into()));
    }
    let n = graph.num_vertices();
    if let Some(&t) = opts.targets.and_then(|t| t.iter().find(|&&t| t >= n)) {
        return Err(algos_sssp::SsspError::TargetOutOfRange { target: t, n }.into());
    }
    let blocks = sources.len().div_ceil(block);
    // Rank 0 creates the checkpoint directory; the others check it once it exists.
    let checkpoint = match &opts.checkpoint {
        None => None,
        Some(dir) => {
            let fp = fingerprint(graph, sources, block, opts.targets);
            let mine = if rank == 0 { Some(Checkpoint::open(dir, &fp, true)) } else { None };
            agree(comm, mine.as_ref().map(|r| r.as_ref().map(|_| ()).map_err(|e| e.to_string())))?;
            let ckpt = match mine {
                Some(c) => c?,
                None => Checkpoint::open(dir, &fp, false)?,
            };
            Some(ckpt)
        }
    };
    if let Some(dir) = &opts.rows_dir
        && rank == 0
    {
        std::fs::create_dir_all(dir).map_err(crate::error::io_err(dir))?;
    }
    comm.barrier();

    let mine: Vec<usize> = (rank..blocks).step_by(size).collect();
    let (mut checksum, mut trees, mut computed, mut skipped) = (0u64, 0u64, 0usize, 0usize);
    let mut trees_computed = 0u64;
    let mut compute_s = 0.0;
    let mut next = 0;
    let mut blocks_done_total = 0usize;
    let mut trees_done_total = 0u64;
    loop {
        // One block (after any already checkpointed ones) per round.
        let mut round: Result<(usize, u64), MpiError> = Ok((0, 0));
        let mut work = None;
        while next < mine.len() {
            let b = mine[next];
            next += 1;
            match checkpoint.as_ref().map(|c| c.done(b)).transpose() {
                Ok(Some(Some(rec))) => {
                    checksum = checksum.wrapping_add(rec.checksum);
                    trees += rec.trees;
                    skipped += 1;
                    if let Ok((d, t)) = round.as_mut() {
                        *d += 1;
                        *t += rec.trees;
                    }
                }
                Ok(_) => {
                    work = Some(b);
                    break;
                }
                Err(e) => {
                    round = Err(e);
                    break;
                }
            }
        }
        if let (Some(b), Ok((d, t))) = (work, round.as_mut()) {
            let t0 = Instant::now();
            let block_sources = &sources[b * block..((b + 1) * block).min(sources.len())];
            match run_block(graph, b, block_sources, opts, checkpoint.as_ref()) {
                Ok(rec) => {
                    checksum = checksum.wrapping_add(rec.checksum);
                    trees += rec.trees;
                    computed += 1;
                    trees_computed += rec.trees;
                    *d += 1;
                    *t += rec.trees;
                }
                Err(e) => round = Err(e),
            }
            compute_s += t0.elapsed().as_secs_f64();
        }
        // [failed rank + 1, more work] by maximum; [blocks, trees] by sum.
        let failed = round.as_ref().err().map_or(0, |_| rank as u64 + 1);
        let more = u64::from(next < mine.len());
        let mut flags = [failed.wrapping_neg(), more];
        comm.all_reduce_max_u64(&mut flags);
        let (d, t) = *round.as_ref().unwrap_or(&(0, 0));
        let mut counts = [d as u64, t];
        comm.all_reduce_sum_u64(&mut counts);
        blocks_done_total += counts[0] as usize;
        trees_done_total += counts[1];
        if flags[0] != 0 {
            // The lowest failed rank (largest two's-complement negation) tells everyone why.
            let who = flags[0].wrapping_neg() as usize - 1;
            let mut message = match &round {
                Err(e) if who == rank => e.to_string().into_bytes(),
                _ => Vec::new(),
            };
            comm.broadcast_bytes(who, &mut message);
            return Err(match round {
                Err(e) if who == rank => e,
                _ => MpiError::RankFailed { rank: who, message: String::from_utf8_lossy(&message).into() },
            });
        }
        if rank == 0 {
            progress(&Progress {
                blocks_done: blocks_done_total,
                blocks,
                trees_done: trees_done_total,
                seconds: started.elapsed().as_secs_f64(),
            });
            if opts.abort_after_blocks.is_some_and(|k| blocks_done_total >= k && blocks_done_total < blocks) {
                eprintln!("urbanflow-mpi: aborting after {blocks_done_total} blocks, as asked (testing)");
                comm.abort(3);
            }
        }
        if flags[1] == 0 {
            break;
        }
    }
    let mut totals = [checksum, trees, computed as u64, skipped as u64];
    comm.all_reduce_sum_u64(&mut totals);
    let mut per_rank = vec![0u64; 2 * size];
    per_rank[rank] = trees_computed;
    per_rank[size + rank] = compute_s.to_bits();
    comm.all_reduce_sum_u64(&mut per_rank);
    Ok(DistReport {
        trees: totals[1],
        checksum: totals[0],
        blocks,
        blocks_computed: totals[2] as usize,
        blocks_skipped: totals[3] as usize,
        trees_per_rank: per_rank[..size].to_vec(),
        compute_seconds_per_rank: per_rank[size..].iter().map(|&b| f64::from_bits(b)).collect(),
        seconds: started.elapsed().as_secs_f64(),
        ranks: size,
    })
}

/// Every rank learns whether rank 0's step succeeded (`Some(result)` on rank 0, `None` elsewhere);
/// all return its error if it failed.
fn agree(comm: &dyn Comm, on_root: Option<Result<(), String>>) -> Result<(), MpiError> {
    let mut message = match &on_root {
        Some(Err(e)) => e.clone().into_bytes(),
        _ => Vec::new(),
    };
    comm.broadcast_bytes(0, &mut message);
    if message.is_empty() {
        Ok(())
    } else {
        Err(MpiError::RankFailed { rank: 0, message: String::from_utf8_lossy(&message).into() })
    }
}

/// One block: its trees on this rank's devices, checksum, rows to a file, checkpoint record.
fn run_block(
    graph: &Csr<u32>,
    b: usize,
    sources: &[u32],
    opts: &DistOptions<'_>,
    checkpoint: Option<&Checkpoint>,
) -> Result<BlockRecord, MpiError> {
    let n = graph.num_vertices() as usize;
    let cols = opts.targets.map_or(n, <[u32]>::len);
    // Every GPU's thread may deliver rows at once (no copy to this thread): the checksum is atomic and
    // the block's rows sit behind a lock.
    let rows: Option<Mutex<Vec<u32>>> =
        opts.rows_dir.as_ref().map(|_| Mutex::new(vec![0u32; sources.len() * cols]));
    let checksum = AtomicU64::new(0);
    many_to_all_shared(graph, sources, &opts.many, |tb| {
        // On all cores: a block's rows are gigabytes on a road network.
        let sum = tb
            .dist
            .par_chunks(1 << 16)
            .map(|c| c.iter().filter(|&&d| d != UNREACHABLE).fold(0u64, |s, &d| s.wrapping_add(d as u64)))
            .reduce(|| 0, u64::wrapping_add);
        checksum.fetch_add(sum, Ordering::Relaxed);
        if let Some(rows) = rows.as_ref() {
            let mut rows = rows.lock().unwrap_or_else(|e| e.into_inner());
            for i in 0..tb.sources.len() {
                let out = &mut rows[(tb.first + i) * cols..(tb.first + i + 1) * cols];
                match opts.targets {
                    None => out.copy_from_slice(tb.dist_row(i)),
                    Some(t) => out.iter_mut().zip(t).for_each(|(o, &t)| *o = tb.dist_row(i)[t as usize]),
                }
            }
        }
    })?;
    let checksum = checksum.into_inner();
    let rows = rows.map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()));
    if let (Some(dir), Some(rows)) = (&opts.rows_dir, rows) {
        let bytes: Vec<u8> = rows.iter().flat_map(|d| d.to_le_bytes()).collect();
        write_atomically(&dir.join(format!("block-{b:08}.u32")), &bytes)?;
    }
    let rec = BlockRecord { trees: sources.len() as u64, checksum };
    if let Some(c) = checkpoint {
        c.record(b, rec)?;
    }
    Ok(rec)
}
