//! Isochrones (issue 35): the bounded multi-origin Dijkstra of `algos_sssp::isochrone::within` against
//! a PHAST sweep of the customisable hierarchy's whole downward graph followed by a cut at the budget,
//! side by side on one thread, for budgets that reach 1 %, 10 %, 50 % and 100 % of the source's tree.
//! The hierarchy's build and customisation are timed apart (PHAST needs them; the search does not).
//! Every isochrone is checked equal between the two. One JSON line per graph and budget.
//!
//! ```text
//! cargo bench --bench isochrone -- --graphs ../shared/data/road/weighted/NY.gr.xz --origins 20
//! ```

#[allow(dead_code)]
mod common;

use std::time::Instant;

use common::{arg, median};
use urbanflow::graph::io::{ReadOptions, read_graph};
use urbanflow::sssp::UNREACHABLE;
use urbanflow::sssp::cch::Cch;
use urbanflow::sssp::cpu::dijkstra::{Stop, dijkstra};
use urbanflow::sssp::isochrone::within;

fn main() {
    let graphs = arg("--graphs").expect("--graphs F[,F…]");
    let origins: u64 = arg("--origins").map_or(20, |s| s.parse().expect("--origins"));
    for path in graphs.split(',') {
        let g: urbanflow::Csr<u32> = read_graph(path, ReadOptions::default()).expect("graph");
        let n = g.num_vertices() as u64;
        let t = Instant::now();
        let ch = Cch::build(&g).expect("cch").customise(g.weights()).expect("customise");
        let hierarchy_s = t.elapsed().as_secs_f64();
        for share in [0.01, 0.1, 0.5, 1.0] {
            let (mut search, mut sweep, mut reached) = (Vec::new(), Vec::new(), 0usize);
            for k in 0..origins {
                let o = ((k * 2_654_435_761 + 17) % n) as u32;
                // The budget that reaches `share` of the origin's tree.
                let (full, _) = dijkstra(&g, o, &Stop::default()).expect("dijkstra");
                let mut d: Vec<u32> = full.iter().copied().filter(|&d| d != UNREACHABLE).collect();
                d.sort_unstable();
                let budget = d[((d.len() as f64 * share) as usize).min(d.len() - 1)];
                let t = Instant::now();
                let reach = within(&g, &[o], budget).expect("within");
                search.push(t.elapsed().as_secs_f64());
                let t = Instant::now();
                let row = ch.phast_serial(&[o]).expect("phast").pop().expect("one row");
                let cut: Vec<u32> = row.iter().map(|&d| if d <= budget { d } else { UNREACHABLE }).collect();
                sweep.push(t.elapsed().as_secs_f64());
                assert_eq!(cut, reach.dist, "{path}: origin {o}, budget {budget}");
                reached += reach.reached();
            }
            let (a, b) = (median(search), median(sweep));
            println!(
                "{{\"graph\":{path:?},\"vertices\":{n},\"share_of_tree\":{share},\"origins\":{origins},\"reached_mean\":{},\
                 \"bounded_dijkstra_ms\":{:.3},\"phast_sweep_ms\":{:.3},\"sweep_over_search\":{:.2},\"hierarchy_s\":{hierarchy_s:.3}}}",
                reached as u64 / origins,
                a * 1e3,
                b * 1e3,
                b / a
            );
        }
    }
}
