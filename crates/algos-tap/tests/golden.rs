//! Golden tests on the TNTP networks of the shared data: published equilibria evaluate to the best-known
//! objective with a near-zero gap, and our solvers reach the objective.

use std::time::Instant;

use algos_tap::output::read_flows;
use algos_tap::{Algorithm, AssignOptions, Demand, Network, STANDARD_NETWORKS, Stop, assign, evaluate};
use graph_core::datasets::data_path;

/// Network, demand, published flows and best-known objective.
type Golden = (Network, Demand, Option<Vec<f64>>, Option<f64>);

fn load(name: &str) -> Option<Golden> {
    let s = algos_tap::standard_network(name).expect("known network");
    let net_path = data_path(s.net, "golden TNTP test")?;
    let net = Network::read_tntp(&net_path, s.factors).expect("network reads");
    let demand = Demand::read_tntp(data_path(s.trips?, "golden TNTP test")?, &net).expect("demand reads");
    let flows = s.flow.and_then(|f| data_path(f, "golden TNTP test")).map(|p| read_flows(p, &net).unwrap());
    Some((net, demand, flows, s.best_objective))
}

#[test]
fn published_flows_have_the_best_known_objective_and_no_gap() {
    for name in ["SiouxFalls", "Anaheim", "Barcelona", "Winnipeg", "Chicago-Sketch"] {
        let Some((net, demand, Some(flows), Some(best))) = load(name) else { continue };
        let e = evaluate(&net, &demand, &flows, false).unwrap();
        eprintln!(
            "{name}: Z {} (best {best}) gap {:.3e} / {:.3e}",
            e.objective, e.relative_gap, e.relative_gap_sptt
        );
        assert!((e.objective - best).abs() <= 1e-9 * best, "{name}: Z {} vs {best}", e.objective);
        assert!(e.relative_gap_sptt < 1e-12, "{name}: gap {}", e.relative_gap_sptt);
    }
}

#[test]
fn bfw_reaches_the_best_known_objective() {
    for name in ["SiouxFalls", "Anaheim", "Barcelona", "Winnipeg", "Chicago-Sketch"] {
        let Some((net, demand, _, Some(best))) = load(name) else { continue };
        let opts = AssignOptions {
            algorithm: Algorithm::BiconjugateFw,
            stop: Stop { relative_gap: 1e-5, max_iterations: 5000, ..Stop::default() },
            ..AssignOptions::default()
        };
        let t = Instant::now();
        let r = assign(&net, &demand, &opts).unwrap();
        let last = r.last();
        eprintln!(
            "{name}: {} iterations {:.2}s gap {:.3e} Z {} best {best} rel {:.2e}",
            r.history.len(),
            t.elapsed().as_secs_f64(),
            last.relative_gap,
            last.objective,
            (last.objective - best) / best
        );
        assert!(r.converged, "{name} did not converge");
        assert!(last.objective - best <= (last.tstt - last.sptt) + 1e-9 * best);
        assert!(last.objective >= best * (1.0 - 1e-9));
        assert!((last.objective - best).abs() <= 1e-5 * best);
    }
    let _ = STANDARD_NETWORKS;
}
