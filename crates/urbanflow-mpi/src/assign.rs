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
    /// Seconds spent exchanging loads (messages, and waiting for slower ranks), over all calls.
    pub comm_seconds: f64,
    /// Calls so far.
    pub calls: usize,
}

/// Contiguous share `rank` of `0..total` split `size` ways.
fn share_of(total: usize, rank: usize, size: usize) -> Range<usize> {
    rank * total / size..(rank + 1) * total / size
}

impl<'c> DistributedAon<'c> {
    /// CPU loading: this rank's blocks of origins on its cores (rayon).
    pub fn cpu(comm: &'c dyn Comm, net: &Network, demand: &Demand, allow_zone_transit: bool) -> Self {
        let blocks = share_of(origin_blocks(demand), comm.rank(), comm.size());
        Self::with(comm, Share::Cpu(CpuAon::new(net, allow_zone_transit), blocks))
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

    fn with(comm: &'c dyn Comm, share: Share<'c>) -> Self {
        Self { comm, share, load_seconds: 0.0, comm_seconds: 0.0, calls: 0 }
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
