//! Distributed all-or-nothing loading for traffic assignment: every rank runs the same Frank–Wolfe
//! iterations ([`algos_tap::solve::assign_with_loader`]) and loads only its share of the origins.
//!
//! - **CPU ranks** take contiguous ranges of the loader's fixed origin blocks
//!   ([`algos_tap::loader::origin_blocks`]). The single-process loader adds the blocks' loads in block
//!   order; here rank 0 adds its blocks and sends the running sum to rank 1, which adds its own and
//!   passes it on, and the last rank broadcasts the total: the same additions in the same order, so
//!   the flows equal the single-process run's bit for bit, for any number of ranks. One message of
//!   `m + 4` numbers per rank and one broadcast per iteration.
//! - **GPU ranks** load their share of the origins on their GPUs in fixed point
//!   ([`algos_tap::loader::GpuLoader`]) and the integer loads are all-reduced (a sum, exact in any
//!   order): the flows equal one GPU's bit for bit.
//!
//! CPU ranks rebalance: after every loading the blocks' measured times are shared (one all-reduce of
//! one number per block) and every rank computes the same new contiguous block ranges, so a rank with
//! slow origins gets fewer blocks next time. The blocks themselves never change, so neither do the bits.
//!
//! A rank whose loading fails prints why and aborts the whole job (MPI abort): the others would
//! otherwise wait for its message forever.

use std::ops::Range;
use std::time::Instant;

use algos_tap::loader::{AllOrNothing, CpuAon, GpuLoader, LoadSum, Unreachable, origin_blocks};
use algos_tap::{Demand, Network, TapError};
use gpu_runtime::GpuContext;

use crate::comm::Comm;

/// How a rank loads its share.
enum Share<'c> {
    Cpu(CpuAon, Range<usize>),
    Gpu(GpuLoader<'c>),
}

/// An all-or-nothing loader spread over the ranks of `comm`.
pub struct DistributedAon<'c> {
    comm: &'c dyn Comm,
    share: Share<'c>,
    /// Seconds spent loading this rank's share, over all calls.
    pub load_seconds: f64,
    /// Seconds spent waiting for the slowest rank to finish its loading (a barrier), over all calls:
    /// the cost of uneven shares, not of the exchange.
    pub wait_seconds: f64,
    /// Seconds spent exchanging loads once every rank is ready (the chain and the broadcast, or the
    /// all-reduce), over all calls.
    pub comm_seconds: f64,
    /// Calls so far.
    pub calls: usize,
    /// Origin blocks of the demand (all ranks' ranges together).
    total_blocks: usize,
}

/// Contiguous share `rank` of `0..total` split `size` ways.
fn share_of(total: usize, rank: usize, size: usize) -> Range<usize> {
    rank * total / size..(rank + 1) * total / size
}

/// Contiguous ranges of blocks, one per rank, with the measured block times as even as the blocks
/// allow: rank `r` ends where the running total first reaches `(r + 1) / size` of the whole (at least
/// one block left for each later rank when there are enough). Deterministic in its inputs, so every rank
/// computes the same ranges from the same shared times.
pub fn balanced_ranges(seconds: &[f64], size: usize) -> Vec<Range<usize>> {
    let total: f64 = seconds.iter().sum();
    let b = seconds.len();
    if total.is_nan() || total <= 0.0 || size == 0 {
        return (0..size).map(|r| share_of(b, r, size)).collect();
    }
    let mut ranges = Vec::with_capacity(size);
    let (mut start, mut acc) = (0usize, 0.0);
    for r in 0..size {
        if r + 1 == size {
            ranges.push(start..b);
            break;
        }
        let goal = total * (r + 1) as f64 / size as f64;
        let mut end = start;
        // Leave a block for each later rank while there are blocks enough.
        let limit = b.saturating_sub(size - r - 1).max(start);
        while end < limit && acc + seconds[end] / 2.0 < goal {
            acc += seconds[end];
            end += 1;
        }
        ranges.push(start..end);
        start = end;
    }
    ranges
}

impl<'c> DistributedAon<'c> {
    /// CPU loading: this rank's blocks of origins on its cores (rayon).
    pub fn cpu(comm: &'c dyn Comm, net: &Network, demand: &Demand, allow_zone_transit: bool) -> Self {
        let total = origin_blocks(demand);
        let blocks = share_of(total, comm.rank(), comm.size());
        Self {
            total_blocks: total,
            ..Self::with(comm, Share::Cpu(CpuAon::new(net, allow_zone_transit), blocks))
        }
    }

    /// GPU loading: this rank's share of the origins on `devices` (all GPUs of its host, or the ones
    /// this rank was given).
    pub fn gpu(
        comm: &'c dyn Comm,
        devices: &[&'c GpuContext],
        net: &Network,
        demand: &Demand,
        allow_zone_transit: bool,
    ) -> Result<Self, TapError> {
        let origins = share_of(demand.num_origins(), comm.rank(), comm.size());
        let loader = GpuLoader::for_origins(devices, net, demand, allow_zone_transit, origins)?;
        Ok(Self::with(comm, Share::Gpu(loader)))
    }

    /// Shares every block's measured time and moves this rank's range to its balanced one.
    fn rebalance(&mut self, mine: &[algos_tap::loader::BlockLoad]) {
        let Share::Cpu(_, blocks) = &mut self.share else { return };
        let all = self.comm.size();
        if all == 1 {
            return;
        }
        let mut bits = vec![0u64; self.total_blocks];
        for (slot, b) in bits[blocks.clone()].iter_mut().zip(mine) {
            *slot = b.seconds.to_bits();
        }
        self.comm.all_reduce_sum_u64(&mut bits);
        let seconds: Vec<f64> = bits.into_iter().map(f64::from_bits).collect();
        *blocks = balanced_ranges(&seconds, all)[self.comm.rank()].clone();
    }

    /// This rank's origin blocks (CPU loading) as they stand now.
    pub fn blocks(&self) -> Option<Range<usize>> {
        match &self.share {
            Share::Cpu(_, b) => Some(b.clone()),
            Share::Gpu(_) => None,
        }
    }

    fn with(comm: &'c dyn Comm, share: Share<'c>) -> Self {
        Self {
            comm,
            share,
            load_seconds: 0.0,
            wait_seconds: 0.0,
            comm_seconds: 0.0,
            calls: 0,
            total_blocks: 0,
        }
    }

    /// This rank's loading, or the error (before any message of this call).
    fn load_share(&mut self, net: &Network, demand: &Demand, costs: &[f64]) -> Result<Loaded, TapError> {
        Ok(match &mut self.share {
            Share::Cpu(cpu, blocks) => Loaded::Blocks(cpu.load_blocks(net, demand, costs, blocks.clone())?),
            Share::Gpu(gpu) => Loaded::Fixed(gpu.loads(net, demand, costs)?),
        })
    }
}

enum Loaded {
    Blocks(Vec<algos_tap::loader::BlockLoad>),
    Fixed(Vec<u64>),
}

/// The running sum as one message: `[sptt, pairs, flow, first origin or -1, first destination, y…]`.
fn encode(sum: &LoadSum) -> Vec<f64> {
    let u = sum.unreachable;
    let (o, d) = u.first.map_or((-1.0, -1.0), |(o, d)| (o as f64, d as f64));
    let mut v = Vec::with_capacity(sum.y.len() + 5);
    v.extend([sum.sptt, u.pairs as f64, u.flow, o, d]);
    v.extend_from_slice(&sum.y);
    v
}

fn decode(v: &[f64]) -> LoadSum {
    let first = (v[3] >= 0.0).then(|| (v[3] as u32, v[4] as u32));
    LoadSum {
        y: v[5..].to_vec(),
        sptt: v[0],
        unreachable: Unreachable { pairs: v[1] as usize, flow: v[2], first },
    }
}

impl AllOrNothing for DistributedAon<'_> {
    fn load(
        &mut self,
        net: &Network,
        demand: &Demand,
        costs: &[f64],
        y: &mut [f64],
    ) -> Result<f64, TapError> {
        let (rank, size) = (self.comm.rank(), self.comm.size());
        let t = Instant::now();
        let loaded = match self.load_share(net, demand, costs) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("urbanflow-mpi: rank {rank} of {size} failed while loading: {e}; aborting the job");
                self.comm.abort(2);
            }
        };
        self.load_seconds += t.elapsed().as_secs_f64();
        // Uneven shares and the exchange itself are timed apart: everyone meets first.
        let t = Instant::now();
        if size > 1 {
            self.comm.barrier();
        }
        self.wait_seconds += t.elapsed().as_secs_f64();
        let t = Instant::now();
        self.calls += 1;
        let m = net.num_links();
        let out = match loaded {
            Loaded::Blocks(blocks) => {
                let mut sum = if rank == 0 { LoadSum::new(m) } else { decode(&self.comm.recv_f64(rank - 1)) };
                for b in &blocks {
                    sum.add(b);
                }
                let mut message = encode(&sum);
                if rank + 1 < size {
                    self.comm.send_f64(rank + 1, &message);
                }
                self.comm.broadcast_f64(size - 1, &mut message);
                self.rebalance(&blocks);
                decode(&message).finish(net, y)
            }
            Loaded::Fixed(mut loads) => {
                self.comm.all_reduce_sum_u64(&mut loads);
                let Share::Gpu(gpu) = &self.share else { unreachable!("fixed-point loads come from GPUs") };
                y.copy_from_slice(&gpu.flows(net, &loads));
                Ok(costs.iter().zip(y.iter()).map(|(c, v)| c * v).sum())
            }
        };
        self.comm_seconds += t.elapsed().as_secs_f64();
        out
    }

    fn describe(&self) -> String {
        let here = match &self.share {
            Share::Cpu(cpu, blocks) => format!("{} on origin blocks {blocks:?}", cpu.describe()),
            Share::Gpu(gpu) => gpu.describe(),
        };
        format!(
            "{} ({}; rank {}: {here})",
            self.comm.describe(),
            "all-or-nothing split by origins",
            self.comm.rank()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::balanced_ranges;

    #[test]
    fn balanced_ranges_cover_every_block_once_and_follow_the_times() {
        let even = balanced_ranges(&[1.0; 8], 4);
        assert_eq!(even, vec![0..2, 2..4, 4..6, 6..8]);
        // One slow block at the front: its rank takes it alone.
        let skew = balanced_ranges(&[6.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], 2);
        assert_eq!(skew, vec![0..1, 1..7]);
        // No times yet: equal counts; more ranks than blocks: empty ranges at the end.
        assert_eq!(balanced_ranges(&[0.0; 5], 2), vec![0..2, 2..5]);
        let few = balanced_ranges(&[1.0, 1.0], 3);
        assert_eq!(few.iter().map(|r| r.len()).sum::<usize>(), 2);
        for (size, times) in [(3, vec![0.5, 2.0, 0.1, 0.1, 3.0, 0.2, 0.2, 0.9]), (5, vec![1.0; 64])] {
            let r = balanced_ranges(&times, size);
            assert_eq!(r.len(), size);
            assert_eq!(r[0].start, 0);
            assert_eq!(r[size - 1].end, times.len());
            assert!(r.windows(2).all(|w| w[0].end == w[1].start));
        }
    }
}
