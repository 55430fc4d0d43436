//! Round-trip properties of the builder, transpose, symmetrise, relabelling and the writers/readers.

use graph_core::io::{self, ReadOptions};
use graph_core::{Csr, DuplicatePolicy, GraphBuilder, Permutation, SelfLoopPolicy};
use proptest::prelude::*;

fn arb_graph() -> impl Strategy<Value = Csr<u32>> {
    (1u32..40).prop_flat_map(|n| {
        prop::collection::vec((0..n, 0..n, 0u32..20), 0..150).prop_map(move |arcs| {
            let mut b = GraphBuilder::new(n);
            for (u, v, w) in arcs {
                b.add_arc(u, v, w);
            }
            b.build().unwrap().0
        })
    })
}

fn sorted_arcs(g: &Csr<u32>) -> Vec<(u32, u32, u32)> {
    let mut a: Vec<_> = g.arcs().collect();
    a.sort_unstable();
    a
}

proptest! {
    #[test]
    fn transpose_twice_is_identity_up_to_arc_order(g in arb_graph()) {
        let t = g.transpose();
        prop_assert_eq!(t.graph.num_arcs(), g.num_arcs());
        for (a, &f) in t.rev_to_fwd.iter().enumerate() {
            // Reverse arc a = (h -> u) is forward arc f = (u -> h) with the same weight.
            prop_assert_eq!(g.targets()[f as usize], tail_of(&t.graph, a));
            prop_assert_eq!(g.weights()[f as usize], t.graph.weights()[a]);
        }
        prop_assert_eq!(sorted_arcs(&t.graph.transpose().graph), sorted_arcs(&g));
    }

    #[test]
    fn builder_policies_agree_with_a_model(arcs in prop::collection::vec((0u32..8, 0u32..8, 0u32..5), 0..60)) {
        let mut b = GraphBuilder::new(8).duplicates(DuplicatePolicy::KeepMin).self_loops(SelfLoopPolicy::Drop);
        for &(u, v, w) in &arcs { b.add_arc(u, v, w); }
        let (g, report) = b.build().unwrap();
        let mut model = std::collections::BTreeMap::new();
        for &(u, v, w) in &arcs {
            if u != v { model.entry((u, v)).and_modify(|m: &mut u32| *m = (*m).min(w)).or_insert(w); }
        }
        let want: Vec<_> = model.into_iter().map(|((u, v), w)| (u, v, w)).collect();
        prop_assert_eq!(sorted_arcs(&g), want);
        prop_assert_eq!(report.arcs_in, arcs.len() as u64);
        prop_assert_eq!(report.arcs_out + report.self_loops_dropped + report.parallel_arcs_dropped, report.arcs_in);
    }

    #[test]
    fn relabel_round_trips(g in arb_graph(), use_rcm in any::<bool>()) {
        let p = if use_rcm { Permutation::rcm(&g) } else { Permutation::bfs(&g) };
        let h = g.relabel(&p);
        prop_assert_eq!(h.num_arcs(), g.num_arcs());
        let back = h.relabel(&p.inverse());
        prop_assert_eq!(&back, &g);
        for u in 0..g.num_vertices() {
            let mapped: Vec<_> = g.out_arcs(u).map(|(v, w)| (p.to_new(v), w)).collect();
            let got: Vec<_> = h.out_arcs(p.to_new(u)).collect();
            prop_assert_eq!(mapped, got);
        }
        let ids: Vec<u32> = (0..g.num_vertices()).collect();
        prop_assert_eq!(p.to_old_order(&p.to_new_order(&ids)), ids);
    }

    #[test]
    fn symmetrise_is_symmetric(g in arb_graph()) {
        let (s, _) = g.symmetrise(DuplicatePolicy::KeepMin);
        let a = sorted_arcs(&s);
        let mut rev: Vec<_> = a.iter().map(|&(u, v, w)| (v, u, w)).collect();
        rev.sort_unstable();
        prop_assert_eq!(a, rev);
    }

    #[test]
    fn dimacs_write_read_round_trip(g in arb_graph()) {
        let mut text = Vec::new();
        io::write_dimacs_sp(&g, &mut text, &["prop"]).unwrap();
        let back: Csr<u32> = io::parse_dimacs_sp(&text[..], "p.gr", ReadOptions::default()).unwrap();
        prop_assert_eq!(back, g.clone());
        let mut text = Vec::new();
        io::write_edge_list(&g, &mut text).unwrap();
        let back: Csr<u32> = io::parse_edge_list(&text[..], "p.txt", ReadOptions::default()).unwrap();
        // An edge list cannot express trailing isolated vertices: compare the arcs.
        prop_assert_eq!(sorted_arcs(&back), sorted_arcs(&g));
    }

    #[test]
    fn readers_never_panic_on_garbage(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = io::parse_dimacs_sp::<u32>(&bytes[..], "g.gr", ReadOptions::default());
        let _ = io::parse_pace::<u32>(&bytes[..], "g.gr", ReadOptions::default());
        let _ = io::parse_edge_list::<f32>(&bytes[..], "g.gr", ReadOptions::default());
        let _ = io::parse_dimacs_coordinates(&bytes[..], "g.co");
    }
}

fn tail_of(g: &Csr<u32>, arc: usize) -> u32 {
    g.offsets().partition_point(|&o| o as usize <= arc) as u32 - 1
}
