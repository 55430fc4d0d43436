//! The generic Dijkstra: every queue and every label type gives the same distances on random graphs,
//! predecessors lie on shortest paths, and the settle hook's Skip and Stop mean what they say.

use algos_sssp::cpu::queue::{IndexedHeap, LazyHeap};
use algos_sssp::cpu::radix_heap::RadixHeap;
use algos_sssp::cpu::search::{RealWeights, Settle, Star, Workspace, dijkstra_search};
use algos_sssp::{NO_ARC, UNREACHABLE};
use graph_core::generators::random_graph;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn queues_and_label_types_agree(seed in any::<u64>(), n in 1u32..80, density in 0u32..5, max_w in 0u32..40) {
        let g = random_graph(seed, n, n * density, 0..=max_w).unwrap();
        let nv = n as usize;
        let source = (seed % n as u64) as u32;
        let mut lazy = vec![UNREACHABLE; nv];
        let mut ws = Workspace::new(LazyHeap::with_capacity(8)).with_predecessors(nv);
        dijkstra_search(&g, source, &mut lazy, &mut ws, |_, _| Settle::Expand);
        // Every predecessor arc is tight and ends at its vertex.
        for v in 0..nv {
            let a = ws.pred()[v];
            if a != NO_ARC {
                let a = a as usize;
                prop_assert_eq!(g.targets()[a] as usize, v);
                let tail = algos_sssp::tail_of(&g, a as u32) as usize;
                prop_assert_eq!(lazy[tail] + g.weights()[a], lazy[v]);
            } else {
                prop_assert!(v == source as usize || lazy[v] == UNREACHABLE);
            }
        }
        let mut radix = vec![UNREACHABLE; nv];
        dijkstra_search(&g, source, &mut radix, &mut Workspace::new(RadixHeap::new()), |_, _| Settle::Expand);
        prop_assert_eq!(&radix, &lazy);
        let mut indexed = vec![UNREACHABLE; nv];
        dijkstra_search(&g, source, &mut indexed, &mut Workspace::new(IndexedHeap::new(nv)), |_, _| Settle::Expand);
        prop_assert_eq!(&indexed, &lazy);
        let mut real = vec![f64::INFINITY; nv];
        dijkstra_search(&RealWeights(&g), source, &mut real, &mut Workspace::new(IndexedHeap::new(nv)), |_, _| Settle::Expand);
        let weights64: Vec<u64> = g.weights().iter().map(|&w| w as u64).collect();
        let star = Star { offsets: g.offsets(), ends: g.targets(), arc_of: None, weights: &weights64 };
        let mut wide = vec![u64::MAX; nv];
        dijkstra_search(&star, source, &mut wide, &mut Workspace::new(LazyHeap::with_capacity(8)), |_, _| Settle::Expand);
        for v in 0..nv {
            if lazy[v] == UNREACHABLE {
                prop_assert!(real[v].is_infinite() && wide[v] == u64::MAX);
            } else {
                prop_assert_eq!(real[v], lazy[v] as f64);
                prop_assert_eq!(wide[v], lazy[v] as u64);
            }
        }
    }

    #[test]
    fn skip_and_stop_and_reset(seed in any::<u64>(), n in 2u32..60) {
        let g = random_graph(seed, n, 3 * n, 1..=9).unwrap();
        let nv = n as usize;
        let mut full = vec![UNREACHABLE; nv];
        dijkstra_search(&g, 0, &mut full, &mut Workspace::new(LazyHeap::with_capacity(8)), |_, _| Settle::Expand);
        // Skip vertex 1: paths through it disappear, its own label stays.
        let mut ws = Workspace::new(IndexedHeap::new(nv)).with_touched();
        let mut skipped = vec![UNREACHABLE; nv];
        dijkstra_search(&g, 0, &mut skipped, &mut ws, |v, _| if v == 1 { Settle::Skip } else { Settle::Expand });
        let mut cut = graph_core::GraphBuilder::new(n);
        for u in 0..n {
            for a in g.arc_range(u) {
                if u != 1 {
                    cut.add_arc(u, g.targets()[a], g.weights()[a]);
                }
            }
        }
        let cut = cut.build().unwrap().0;
        let mut want = vec![UNREACHABLE; nv];
        dijkstra_search(&cut, 0, &mut want, &mut Workspace::new(LazyHeap::with_capacity(8)), |_, _| Settle::Expand);
        prop_assert_eq!(&skipped, &want);
        // Reset through the touched list leaves nothing behind; a second search reuses the workspace.
        ws.reset(&mut skipped);
        prop_assert!(skipped.iter().all(|&d| d == UNREACHABLE));
        // Stop after k settled vertices: exactly those have their final labels, in order.
        let k = 1 + (seed % n as u64) as usize;
        let mut settled = Vec::new();
        dijkstra_search(&g, 0, &mut skipped, &mut ws, |v, d| {
            settled.push((v, d));
            if settled.len() == k { Settle::Stop } else { Settle::Expand }
        });
        prop_assert!(settled.windows(2).all(|w| w[0].1 <= w[1].1));
        for &(v, d) in &settled {
            prop_assert_eq!(d, full[v as usize]);
        }
        prop_assert!(settled.len() <= k);
    }
}
