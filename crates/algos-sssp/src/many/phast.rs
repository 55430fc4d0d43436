//! [`Method::Phast`] for a many-source run: a hierarchy (given; else a customisable one, its order
//! cached), then downward sweeps on the CPU or passes on the GPU.

use gpu_runtime::GpuContext;
use graph_core::Csr;

use super::{ManyOptions, ManyStats, Method, RowSink, Schedule};
use crate::error::SsspError;

/// [`Method::Phast`]: the hierarchy (given or built, timed), then sweeps on the CPU or passes on the GPU,
/// rows handed to `emit` in source order.
pub(super) fn run_phast(
    graph: &Csr<u32>,
    sources: &[u32],
    opts: &ManyOptions<'_>,
    gpu: Option<&GpuContext>,
    out: &mut ManyStats,
    emit: &mut RowSink<'_>,
) -> Result<(), SsspError> {
    out.method = Method::Phast;
    out.schedule = Schedule::Single;
    let built;
    let ch = match opts.hierarchy {
        Some(ch) => {
            out.hierarchy = "given".into();
            if ch.num_vertices() != graph.num_vertices() {
                return Err(SsspError::InvalidParameter(format!(
                    "the hierarchy has {} vertices, the graph {}",
                    ch.num_vertices(),
                    graph.num_vertices()
                )));
            }
            ch
        }
        None => {
            // A customisable hierarchy, CPU or GPU: its order comes from the cache folder when this
            // graph was prepared before, else is built on all cores (NY on the 16-core host: 0.77-0.81
            // s, against 9.8-13.2 s for a contraction on one thread). On the CPU it sweeps about as
            // fast as a contraction (NY, 16 threads: 3,633 vs 4,246 trees/s); on a GPU its deeper DAG
            // sweeps slower than a contraction's, which pays only past hundreds of thousands of
            // sources (docs/benchmarks.md "Many sources on the CCH").
            let t = std::time::Instant::now();
            let (cch, used) = crate::cch::Cch::build_cached(graph)?;
            built = cch.customise(graph.weights())?;
            out.preprocess_s = t.elapsed().as_secs_f64();
            out.hierarchy = match used {
                crate::cch::CacheUse::Loaded(p) => format!("cch, order loaded from {}", p.display()),
                crate::cch::CacheUse::Built(p) => format!("cch, built (order saved to {})", p.display()),
                crate::cch::CacheUse::Rebuilt(_, why) => {
                    format!("cch, rebuilt (the saved order was refused: {why})")
                }
                crate::cch::CacheUse::Uncached(why) => format!("cch, built ({why})"),
            };
            &built
        }
    };
    match gpu {
        #[cfg(not(feature = "gpu"))]
        Some(ctx) => ctx.unbuilt(),
        #[cfg(feature = "gpu")]
        Some(ctx) => {
            let n = graph.num_vertices() as usize;
            let mut phast = crate::ch::gpu::GpuPhast::new(ctx, ch, 128)?;
            phast.for_each_block(sources, |first, rows| {
                let count = rows.len() / n.max(1);
                emit(first, &sources[first..first + count], rows)
            })?;
            out.gpu_trees = sources.len();
            out.gpu_trees_per_device = vec![sources.len()];
        }
        None => {
            // Blocks of a few sweeps per thread: each sweep serves 16 sources.
            let block = (crate::ch::LANES * rayon::current_num_threads() * 4).max(crate::ch::LANES);
            let mut rows = Vec::new();
            for (b, chunk) in sources.chunks(block).enumerate() {
                let trees = ch.phast(chunk)?;
                rows.clear();
                for t in &trees {
                    rows.extend_from_slice(t);
                }
                emit(b * block, chunk, &rows);
            }
            out.cpu_trees = sources.len();
        }
    }
    Ok(())
}
