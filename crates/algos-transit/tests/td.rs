//! Time-dependent multimodal earliest arrival (spec td-multimodal.md §6).

use algos_sssp::{Algorithm, Query, solve};
use algos_transit::generate::{GenSpec, filter_profiles, generate, park_and_ride};
use algos_transit::transit::{TransitNetwork, TransitOptions};
use algos_transit::{
    EapQuery, FnKind, Nfa, PERIOD, ProfileQuery, Semantics, TdError, TdGraph, TdGraphBuilder, UNREACHED,
    arrival_times, earliest_arrival, label,
};
use gpu_runtime::Backend;
use graph_core::GraphBuilder;
use graph_core::datasets::data_path;
use graph_core::rng::SplitMix64;
use proptest::prelude::*;

/// A random FIFO function: interpolated with slopes ≥ −1, or a timetable with non-decreasing arrivals.
fn random_function(b: &mut TdGraphBuilder, rng: &mut SplitMix64, horizon: u32) -> u32 {
    let k = 1 + rng.below(5) as usize;
    let mut times: Vec<u32> = (0..k).map(|_| rng.below(horizon as u64) as u32).collect();
    times.sort_unstable();
    times.dedup();
    if rng.below(2) == 0 {
        let mut pts: Vec<(u32, u32)> = Vec::new();
        for &t in &times {
            let v = match pts.last() {
                // Falls by at most the time elapsed (slope ≥ −1).
                Some(&(t0, v0)) => {
                    let lo = v0.saturating_sub(t - t0);
                    lo + rng.below(40) as u32
                }
                None => rng.below(40) as u32,
            };
            pts.push((t, v));
        }
        // The wrap segment must not fall faster than −1 either.
        let (tl, vl) = *pts.last().unwrap();
        let span = times[0] + PERIOD - tl;
        if pts[0].1 + span < vl {
            pts[0].1 = vl - span;
        }
        b.store_mut().push(FnKind::Interpolated, pts)
    } else {
        let mut pts: Vec<(u32, u32)> = Vec::new();
        for &t in &times {
            let ride = 1 + rng.below(30) as u32;
            let ride = match pts.last() {
                Some(&(t0, r0)) => ride.max((t0 + r0).saturating_sub(t)),
                None => ride,
            };
            pts.push((t, ride));
        }
        b.store_mut().push(FnKind::NextDeparture, pts)
    }
}

fn random_network(seed: u64, n: u32, labels: u8, horizon: u32) -> TdGraph {
    let mut rng = SplitMix64::new(seed);
    let mut b = TdGraphBuilder::new(n);
    let m = n * 3;
    for _ in 0..m {
        let u = rng.below(n as u64) as u32;
        let v = rng.below(n as u64) as u32;
        let f = random_function(&mut b, &mut rng, horizon);
        let l = rng.below(labels as u64) as u8;
        b.add_arc(u, v, l, f);
    }
    b.build().expect("random functions are FIFO")
}

fn random_nfa(rng: &mut SplitMix64, labels: u8) -> Nfa {
    let states = 1 + rng.below(4) as u32;
    let mut a = Nfa::new(states).unwrap();
    a.set_start(0);
    a.set_accept(rng.below(states as u64) as u32);
    for q in 0..states {
        for l in 0..labels {
            for to in 0..states {
                if rng.below(3) == 0 {
                    a.add(q, l, to);
                }
            }
        }
    }
    a
}

/// `count` queries between random `ends`, departing uniformly in `departs`, profiles round-robin.
fn random_queries(
    rng: &mut SplitMix64,
    ends: &[u32],
    count: usize,
    departs: std::ops::Range<u32>,
    profiles: u32,
) -> Vec<ProfileQuery> {
    (0..count)
        .map(|i| ProfileQuery {
            query: EapQuery {
                source: ends[rng.below(ends.len() as u64) as usize],
                target: Some(ends[rng.below(ends.len() as u64) as usize]),
                depart: departs.start + rng.below((departs.end - departs.start).max(1) as u64) as u32,
            },
            profile: i as u32 % profiles,
        })
        .collect()
}

/// Label-correcting fixpoint over product nodes: relax every arc until nothing changes.
fn fixpoint(g: &TdGraph, nfa: &Nfa, q: &EapQuery) -> Vec<u32> {
    let s = nfa.num_states() as usize;
    let n = g.num_vertices() as usize;
    let mut arr = vec![UNREACHED; n * s];
    for q0 in 0..s {
        if nfa.start() & (1 << q0) != 0 {
            arr[q.source as usize * s + q0] = q.depart;
        }
    }
    loop {
        let mut changed = false;
        for u in 0..n as u32 {
            for a in g.arcs_of(u) {
                for st in 0..s {
                    let t = arr[u as usize * s + st];
                    if t == UNREACHED {
                        continue;
                    }
                    let next = nfa.next(st as u32, g.label[a as usize]);
                    let at = t + g.travel_time(a, t);
                    for q2 in 0..s {
                        let w = g.head(a) as usize * s + q2;
                        if next & (1 << q2) != 0 && at < arr[w] {
                            arr[w] = at;
                            changed = true;
                        }
                    }
                }
            }
        }
        if !changed {
            return arr;
        }
    }
}

fn best_accepting(arr: &[u32], nfa: &Nfa, v: u32) -> Option<u32> {
    let s = nfa.num_states() as usize;
    (0..s)
        .filter(|&q| nfa.accept() & (1 << q) != 0)
        .map(|q| arr[v as usize * s + q])
        .min()
        .filter(|&t| t != UNREACHED)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Spec §6: random FIFO functions, 3 modes, automata of up to 4 states: the product search equals
    /// the brute-force fixpoint at every vertex, and every journey replays to its arrival time and is
    /// accepted by the automaton.
    #[test]
    fn product_search_equals_fixpoint(seed in any::<u64>(), depart in 0u32..3 * PERIOD) {
        let mut rng = SplitMix64::new(seed ^ 0xABCD);
        let n = 2 + rng.below(48) as u32;
        let g = random_network(seed, n, 3, PERIOD);
        let nfa = random_nfa(&mut rng, 3);
        let q = EapQuery { source: rng.below(n as u64) as u32, target: None, depart };
        let r = earliest_arrival(&g, &nfa, &q, Semantics::Product).unwrap();
        let want = fixpoint(&g, &nfa, &q);
        prop_assert_eq!(&r.arrival, &want);
        for v in 0..n {
            let best = best_accepting(&want, &nfa, v);
            prop_assert_eq!(r.arrival_at(v), best);
            if let Some(t) = best {
                let j = r.journey(&g, v).unwrap();
                prop_assert_eq!(j.arrival, t);
                let word: Vec<u8> = j.legs.iter().flat_map(|l| l.steps.iter().map(|s| g.label[s.arc as usize])).collect();
                prop_assert!(nfa.accepts(&word));
                // With a target, the early exit gives the same arrival.
                let early = earliest_arrival(&g, &nfa, &EapQuery { target: Some(v), ..q }, Semantics::Product).unwrap();
                prop_assert_eq!(early.arrival_at(v), Some(t));
            }
        }
        // Batched (serial and rayon) equals single queries.
        let queries: Vec<ProfileQuery> = (0..n).map(|v| ProfileQuery { query: EapQuery { target: Some(v), ..q }, profile: 0 }).collect();
        for parallel in [false, true] {
            let (a, _) = arrival_times(&g, std::slice::from_ref(&nfa), &queries, Semantics::Product, parallel).unwrap();
            let want: Vec<u32> = (0..n).map(|v| best_accepting(&want, &nfa, v).unwrap_or(UNREACHED)).collect();
            prop_assert_eq!(a, want);
        }
    }
}

/// Spec §6: constant functions give static Dijkstra's distances exactly, for every label filter.
#[test]
fn constant_functions_equal_static_dijkstra() {
    for seed in 0..30u64 {
        let mut rng = SplitMix64::new(seed);
        let n = 2 + rng.below(60) as u32;
        let mut td = TdGraphBuilder::new(n);
        let arcs: Vec<(u32, u32, u32, u8)> = (0..4 * n)
            .map(|_| {
                (
                    rng.below(n as u64) as u32,
                    rng.below(n as u64) as u32,
                    rng.below(1000) as u32,
                    rng.below(3) as u8,
                )
            })
            .collect();
        for &(u, v, w, l) in &arcs {
            td.add_constant_arc(u, v, l, w);
        }
        let g = td.build().unwrap();
        for mask in 1u8..8 {
            let labels: Vec<u8> = (0..3).filter(|l| mask & (1 << l) != 0).collect();
            let mut sb = GraphBuilder::new(n);
            for &(u, v, w, l) in &arcs {
                if labels.contains(&l) {
                    sb.add_arc(u, v, w);
                }
            }
            let sg = sb.build().unwrap().0;
            let depart = rng.below(PERIOD as u64) as u32;
            let src = rng.below(n as u64) as u32;
            let want =
                solve(&sg, &Query { source: src, ..Default::default() }, Algorithm::Dijkstra, Backend::Cpu)
                    .unwrap()
                    .dist;
            let nfa = Nfa::any_of(&labels);
            let r = earliest_arrival(
                &g,
                &nfa,
                &EapQuery { source: src, target: None, depart },
                Semantics::Product,
            )
            .unwrap();
            for v in 0..n {
                let got = r.arrival_at(v).map(|t| t - depart);
                let want = (want[v as usize] != u32::MAX).then_some(want[v as usize]);
                assert_eq!(got, want, "seed {seed} mask {mask} vertex {v}");
            }
        }
    }
}

/// Spec §6: an explicit time-expanded graph (one node per vertex, state and second over a horizon)
/// searched breadth-first gives the same arrival times.
#[test]
fn time_expanded_graph_agrees() {
    for seed in 0..40u64 {
        let mut rng = SplitMix64::new(seed ^ 0x7E);
        let n = 2 + rng.below(8) as u32;
        // Breakpoints inside the first 200 s; departures after them wrap to the next day, beyond the
        // horizon, so the horizon covers every reachable arrival below it.
        let g = random_network(seed, n, 2, 200);
        let nfa = random_nfa(&mut rng, 2);
        let depart = rng.below(150) as u32;
        let horizon = 600u32;
        let s = nfa.num_states();
        // reached[t][v][q]
        let idx = |t: u32, v: u32, q: u32| ((t * n + v) * s + q) as usize;
        let mut reached = vec![false; ((horizon + 1) * n * s) as usize];
        let src = rng.below(n as u64) as u32;
        for q in 0..s {
            if nfa.start() & (1 << q) != 0 {
                reached[idx(depart, src, q)] = true;
            }
        }
        for t in depart..=horizon {
            for u in 0..n {
                for q in 0..s {
                    if !reached[idx(t, u, q)] {
                        continue;
                    }
                    for a in g.arcs_of(u) {
                        let at = t + g.travel_time(a, t);
                        if at > horizon {
                            continue;
                        }
                        let next = nfa.next(q, g.label[a as usize]);
                        for q2 in 0..s {
                            if next & (1 << q2) != 0 {
                                reached[idx(at, g.head(a), q2)] = true;
                            }
                        }
                    }
                }
            }
        }
        let r =
            earliest_arrival(&g, &nfa, &EapQuery { source: src, target: None, depart }, Semantics::Product)
                .unwrap();
        for v in 0..n {
            let expanded = (depart..=horizon)
                .find(|&t| (0..s).any(|q| nfa.accept() & (1 << q) != 0 && reached[idx(t, v, q)]));
            let got = r.arrival_at(v).filter(|&t| t <= horizon);
            assert_eq!(got, expanded, "seed {seed} vertex {v}");
        }
    }
}

/// Spec §6: the unconstrained optimum drives after the bus; the product automaton forbids it and finds
/// the best allowed journey; the per-profile filter only removes labels.
#[test]
fn automaton_forbids_car_after_bus() {
    // 0 --car 100--> 1 --bus (dep 200, ride 50)--> 2 --car 10--> 3 ; 2 --walk 500--> 3 ; 0 --walk 2000--> 3
    let mut b = TdGraphBuilder::new(4);
    b.add_constant_arc(0, 1, label::CAR, 100);
    let bus = b.store_mut().push(FnKind::NextDeparture, [(200, 50)]);
    b.add_arc(1, 2, label::BUS, bus);
    b.add_constant_arc(2, 3, label::CAR, 10);
    b.add_constant_arc(2, 3, label::WALK, 500);
    b.add_constant_arc(0, 3, label::WALK, 2000);
    let g = b.build().unwrap();
    let q = EapQuery { source: 0, target: Some(3), depart: 0 };
    let any = Nfa::any_of(&[label::CAR, label::BUS, label::WALK]);
    assert_eq!(earliest_arrival(&g, &any, &q, Semantics::Product).unwrap().arrival_at(3), Some(260));
    // Park and ride: car*, then bus/walk only.
    let mut pr = Nfa::new(2).unwrap();
    pr.set_start(0).set_accept(0).set_accept(1);
    pr.add(0, label::CAR, 0).add(0, label::WALK, 1).add(0, label::BUS, 1);
    pr.add(1, label::BUS, 1).add(1, label::WALK, 1);
    let r = earliest_arrival(&g, &pr, &q, Semantics::Product).unwrap();
    // Manual enumeration: car-bus-car is forbidden; car-bus-walk arrives 750; walk arrives 2000.
    assert_eq!(r.arrival_at(3), Some(750));
    let j = r.journey(&g, 3).unwrap();
    let modes: Vec<u8> = j.legs.iter().map(|l| l.label).collect();
    assert_eq!(modes, vec![label::CAR, label::BUS, label::WALK]);
    assert_eq!((j.legs[1].depart, j.legs[1].arrive), (200, 250));
    // The seed's semantics: the automaton only filters labels, so car after bus is allowed again.
    let f = earliest_arrival(&g, &pr, &q, Semantics::PerProfileFilter).unwrap();
    assert_eq!(f.arrival_at(3), Some(260));
    assert_eq!(f.arrival_at(3), earliest_arrival(&g, &any, &q, Semantics::Product).unwrap().arrival_at(3));
}

/// Spec §6: a segment of slope −1.5 is rejected naming arc and segment; slope −1 is accepted.
#[test]
fn fifo_is_validated() {
    let mut b = TdGraphBuilder::new(2);
    b.add_constant_arc(0, 1, label::WALK, 5);
    let f = b.store_mut().push(FnKind::Interpolated, [(0, 100), (1000, 1000), (1200, 700)]);
    b.add_arc(1, 0, label::CAR, f);
    match b.build() {
        Err(TdError::NonFifo { arc, func, segment, .. }) => {
            assert_eq!((arc, func, segment), (1, f, 1));
        }
        other => panic!("expected NonFifo, got {other:?}"),
    }
    let mut b = TdGraphBuilder::new(2);
    let f = b.store_mut().push(FnKind::Interpolated, [(0, 100), (1000, 1000), (1300, 700)]);
    b.add_arc(0, 1, label::CAR, f);
    let g = b.build().expect("slope −1 is FIFO");
    // Arrival is constant along the slope −1 segment.
    assert_eq!(1000 + g.travel_time(0, 1000), 1300 + g.travel_time(0, 1300));
    // The wrap segment counts too: 700 at 1300 s falling to 0 at 86,400 s is fine, to a value that
    // would arrive earlier is not (a timetable whose last trip arrives after tomorrow's first).
    let mut b = TdGraphBuilder::new(2);
    let f = b.store_mut().push(FnKind::NextDeparture, [(100, 50), (PERIOD - 10, PERIOD)]);
    b.add_arc(0, 1, label::BUS, f);
    assert!(matches!(b.build(), Err(TdError::NonFifo { segment: 1, .. })));
    // Unsorted and empty functions.
    let mut b = TdGraphBuilder::new(2);
    let f = b.store_mut().push(FnKind::Interpolated, [(50, 1), (50, 2)]);
    b.add_arc(0, 1, label::CAR, f);
    assert!(matches!(b.build(), Err(TdError::UnsortedBreakpoints { index: 1, .. })));
    let mut b = TdGraphBuilder::new(2);
    let f = b.store_mut().push(FnKind::Interpolated, []);
    b.add_arc(0, 1, label::CAR, f);
    assert!(matches!(b.build(), Err(TdError::EmptyFunction { arc: 0, .. })));
}

/// Spec §6: after the last trip of the day, the first trip of the next day (+ Π).
#[test]
fn wrap_around_catches_tomorrows_first_trip() {
    let mut b = TdGraphBuilder::new(2);
    let f = b.store_mut().push(FnKind::NextDeparture, [(6 * 3600, 600), (23 * 3600, 600)]);
    b.add_arc(0, 1, label::BUS, f);
    let g = b.build().unwrap();
    let nfa = Nfa::any_of(&[label::BUS]);
    let q = EapQuery { source: 0, target: Some(1), depart: 23 * 3600 + 1 };
    let r = earliest_arrival(&g, &nfa, &q, Semantics::Product).unwrap();
    assert_eq!(r.arrival_at(1), Some(PERIOD + 6 * 3600 + 600));
    // On day 3, the same rule.
    let q = EapQuery { depart: 3 * PERIOD + 23 * 3600 + 1, ..q };
    let r = earliest_arrival(&g, &nfa, &q, Semantics::Product).unwrap();
    assert_eq!(r.arrival_at(1), Some(4 * PERIOD + 6 * 3600 + 600));
    let j = r.journey(&g, 1).unwrap();
    assert_eq!(j.legs[0].depart, 4 * PERIOD + 6 * 3600);
}

/// The generated instance: park and ride never drives after boarding; filter profiles only widen.
#[test]
fn generated_instance_profiles() {
    let g = generate(&GenSpec { road: 400, layers: 4, lines: 4, seed: 3 }).unwrap();
    let profiles = filter_profiles(8);
    let mut rng = SplitMix64::new(9);
    let queries =
        random_queries(&mut rng, &(0..g.road_vertices).collect::<Vec<u32>>(), 64, 6 * 3600..18 * 3600, 8);
    let (filter, _) = arrival_times(&g.graph, &profiles, &queries, Semantics::Product, true).unwrap();
    let car_only: Vec<ProfileQuery> = queries.iter().map(|q| ProfileQuery { profile: 0, ..*q }).collect();
    let (car, _) = arrival_times(&g.graph, &profiles, &car_only, Semantics::Product, true).unwrap();
    for (i, (a, c)) in filter.iter().zip(&car).enumerate() {
        assert!(a <= c, "query {i}: more modes cannot arrive later");
        assert_ne!(*c, UNREACHED, "the road layer is connected");
    }
    let pr = park_and_ride();
    for q in queries.iter().take(16) {
        let r = earliest_arrival(&g.graph, &pr, &q.query, Semantics::Product).unwrap();
        let t = q.query.target.unwrap();
        let j = r.journey(&g.graph, t).unwrap();
        let labels: Vec<u8> = j.legs.iter().map(|l| l.label).collect();
        if let Some(first) = labels.iter().position(|&l| l == label::TRANSFER) {
            assert!(!labels[first..].contains(&label::CAR), "drove after boarding: {labels:?}");
        }
        assert!(r.arrival_at(t).unwrap() <= car[0].max(r.arrival_at(t).unwrap()));
    }
}

/// The shared New York subway feed: counts, a known journey and the product semantics at work.
#[test]
fn nyc_subway_feed_loads() {
    let Some(path) = data_path("transit/nyc_subway_gtfs.zip", "NYC subway GTFS") else { return };
    let opts =
        TransitOptions { places: vec![[40.8898, -73.8986], [40.7020, -74.0130]], ..Default::default() };
    let net = TransitNetwork::from_gtfs(&path, "2024-12-16", &opts).unwrap();
    assert_eq!(net.stations.len(), 91, "parent stations of routes 1 and 2");
    assert_eq!(net.routes.len(), 2);
    assert_eq!(net.patterns.iter().filter(|p| p.trips > 0).count(), net.patterns.len());
    assert!(net.stats.trips > 500, "{:?}", net.stats);
    assert!(net.stats.departures > 20_000, "{:?}", net.stats);
    assert!(net.stats.walk_arcs > 0);
    let q = EapQuery { source: net.place[0], target: Some(net.place[1]), depart: 8 * 3600 };
    let r = earliest_arrival(&net.graph, &Nfa::walk_transit(), &q, Semantics::Product).unwrap();
    let j = r.journey(&net.graph, net.place[1]).unwrap();
    let arrival = r.arrival_at(net.place[1]).unwrap();
    // Van Cortlandt Park to South Ferry: about an hour by the 1 train.
    assert!((8 * 3600 + 45 * 60..8 * 3600 + 80 * 60).contains(&arrival), "{arrival}");
    assert!(j.legs.iter().any(|l| l.label == label::METRO));
    assert_eq!(j.legs.first().unwrap().label, label::WALK);
    // The seed's filter semantics may skip the change time (exit and re-enter), never arriving later.
    let f = earliest_arrival(&net.graph, &Nfa::walk_transit(), &q, Semantics::PerProfileFilter).unwrap();
    assert!(f.arrival_at(net.place[1]).unwrap() <= arrival);
    // Walking only takes far longer than transit.
    let w = earliest_arrival(&net.graph, &Nfa::walk(), &q, Semantics::Product).unwrap();
    assert!(w.arrival_at(net.place[1]).is_none_or(|t| t > arrival));
    // Sunday service exists too; a date outside the calendar names the range.
    assert!(TransitNetwork::from_gtfs(&path, "2024-12-15", &TransitOptions::default()).is_ok());
    match TransitNetwork::from_gtfs(&path, "2030-01-01", &TransitOptions::default()) {
        Err(TdError::NoService { first, last, .. }) => {
            assert_eq!((first.as_str(), last.as_str()), ("2024-12-15", "2025-01-17"))
        }
        other => panic!("expected NoService, got {other:?}"),
    }
}

/// The shared Cairns bus feed (2014): counts and reachability.
#[test]
fn cairns_feed_loads() {
    let Some(path) = data_path("transit/cairns_gtfs.zip", "Cairns GTFS") else { return };
    let net = TransitNetwork::from_gtfs(&path, "2014-06-02", &TransitOptions::default()).unwrap();
    assert_eq!(net.stations.len(), 416);
    assert_eq!(net.routes.len(), 22);
    assert!(net.routes.iter().all(|r| r.label == label::BUS));
    assert!(net.stats.trips > 300, "{:?}", net.stats);
    let mut rng = SplitMix64::new(4);
    let queries = random_queries(&mut rng, &net.street, 50, 7 * 3600..7 * 3600 + 1, 1);
    let (a, _) =
        arrival_times(&net.graph, &[Nfa::walk_transit()], &queries, Semantics::Product, true).unwrap();
    let reached = a.iter().filter(|&&t| t != UNREACHED).count();
    assert!(reached >= 45, "{reached} of 50 reached");
}

/// A feed that is not there, or not a feed, is a typed error naming the path.
#[test]
fn bad_feeds_are_typed_errors() {
    match TransitNetwork::from_gtfs("/no/such/feed.zip", "2024-12-16", &TransitOptions::default()) {
        Err(TdError::Feed { path, .. }) => assert!(path.contains("feed.zip")),
        other => panic!("expected Feed, got {other:?}"),
    }
    assert!(matches!(
        TransitNetwork::from_gtfs("/no/such/feed.zip", "16/12/2024", &TransitOptions::default()),
        Err(TdError::InvalidParameter(_))
    ));
    // A malformed time names the file, the line and what was expected.
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mini_gtfs");
    let dir = std::env::temp_dir().join(format!("urbanflow-bad-gtfs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(&src).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
    let mut st = std::fs::read_to_string(dir.join("stop_times.txt")).unwrap();
    st.push_str("slow,xx:00:00,08:00:00,S3,4,0,0\n");
    std::fs::write(dir.join("stop_times.txt"), st).unwrap();
    let err =
        TransitNetwork::from_gtfs(&dir, "2025-04-09", &TransitOptions::default()).unwrap_err().to_string();
    std::fs::remove_dir_all(&dir).ok();
    assert!(err.contains("stop_times.txt") && err.contains("line: 13") && err.contains("HH:MM:SS"), "{err}");
}

/// Spec §6: GPU batches of queries × profiles equal the CPU exactly (random networks and automata,
/// both semantics; the generated instance with filter profiles and park and ride; the NYC feed).
#[test]
fn gpu_batch_equals_cpu() {
    use algos_transit::gpu::{GpuTdBatch, TdBatchConfig};
    gpu_runtime::testing::for_each_context("td gpu_batch_equals_cpu", |ctx| {
        let check = |g: &TdGraph, profiles: &[Nfa], queries: &[ProfileQuery], sem: Semantics, what: &str| {
            let (want, _) = arrival_times(g, profiles, queries, sem, true).unwrap();
            // Few slots and a short budget too, so batches and dispatch continuation are exercised.
            let states = profiles.iter().map(Nfa::num_states).max().unwrap();
            let default = TdBatchConfig::for_graph(ctx, g.num_vertices(), states);
            for config in [default, TdBatchConfig { slots: 7, budget: 3, delta: 1, ..default }] {
                let mut gpu = GpuTdBatch::with_config(ctx, g, profiles, sem, config).unwrap();
                let (got, _) = gpu.arrival_times(queries).unwrap();
                assert_eq!(got, want, "{what} with {config:?}");
            }
        };
        for seed in 0..12u64 {
            let mut rng = SplitMix64::new(seed ^ 0x6E);
            let n = 2 + rng.below(40) as u32;
            let g = random_network(seed, n, 3, PERIOD);
            let profiles: Vec<Nfa> = (0..3).map(|_| random_nfa(&mut rng, 3)).collect();
            let queries: Vec<ProfileQuery> = (0..40)
                .map(|_| ProfileQuery {
                    query: EapQuery {
                        source: rng.below(n as u64) as u32,
                        target: Some(rng.below(n as u64) as u32),
                        depart: rng.below(2 * PERIOD as u64) as u32,
                    },
                    profile: rng.below(3) as u32,
                })
                .collect();
            for sem in [Semantics::Product, Semantics::PerProfileFilter] {
                check(&g, &profiles, &queries, sem, &format!("random seed {seed} {sem:?}"));
            }
        }
        let inst = generate(&GenSpec { road: 300, layers: 4, lines: 4, seed: 5 }).unwrap();
        let mut profiles = filter_profiles(4);
        profiles.push(park_and_ride());
        let mut rng = SplitMix64::new(77);
        let queries = random_queries(
            &mut rng,
            &(0..inst.road_vertices).collect::<Vec<u32>>(),
            60,
            4 * 3600..24 * 3600,
            5,
        );
        check(&inst.graph, &profiles, &queries, Semantics::Product, "generated");
        if let Some(path) = data_path("transit/nyc_subway_gtfs.zip", "NYC subway GTFS") {
            let net = TransitNetwork::from_gtfs(&path, "2024-12-16", &TransitOptions::default()).unwrap();
            let queries = random_queries(&mut rng, &net.street, 40, 0..PERIOD, 1);
            check(&net.graph, &[Nfa::walk_transit()], &queries, Semantics::Product, "NYC subway");
        }
    });
}

/// The automatic schedule answers like the CPU, and says what it chose (here: no hardware GPU, or too
/// little work for one).
#[test]
fn auto_schedule_equals_cpu() {
    use algos_transit::gpu::arrival_times_auto;
    let inst = generate(&GenSpec { road: 500, layers: 2, lines: 4, seed: 8 }).unwrap();
    let profiles = filter_profiles(3);
    let mut rng = SplitMix64::new(3);
    let queries =
        random_queries(&mut rng, &(0..inst.road_vertices).collect::<Vec<u32>>(), 300, 7 * 3600..8 * 3600, 3);
    let (want, _) =
        arrival_times(&inst.graph, &profiles, &queries, Semantics::PerProfileFilter, false).unwrap();
    let (got, _, decision) =
        arrival_times_auto(&inst.graph, &profiles, &queries, Semantics::PerProfileFilter).unwrap();
    assert_eq!(got, want);
    assert_eq!(decision.cpu_queries + decision.gpu_queries, queries.len());
    assert!(!decision.reason.is_empty());
}

/// A road layer joins the feed's network: the car profile walks to the nearest road vertex, drives and
/// walks on; walk+transit never drives.
#[test]
fn road_layer_joins_the_feed() {
    use algos_transit::transit::{RoadLayer, VertexKind, distance_m};
    let Some(path) = data_path("transit/nyc_subway_gtfs.zip", "NYC subway GTFS") else { return };
    let (a, b) = ([40.8898, -73.8986], [40.7020, -74.0130]);
    // Two road vertices next to the two places, joined both ways by a 20-minute drive.
    let (ra, rb) = ([40.8899, -73.8986], [40.7021, -74.0130]);
    let mut gb = GraphBuilder::new(2);
    gb.add_arc(0, 1, 1200).add_arc(1, 0, 1200);
    let roads = RoadLayer {
        graph: gb.build().unwrap().0,
        coords: vec![ra, rb],
        label: label::CAR,
        seconds_per_unit: 1.0,
    };
    let opts = TransitOptions { places: vec![a, b], roads: Some(roads), ..Default::default() };
    let net = TransitNetwork::from_gtfs(&path, "2024-12-16", &opts).unwrap();
    assert_eq!(net.kind.iter().filter(|k| matches!(k, VertexKind::Road(_))).count(), 2);
    let q = EapQuery { source: net.place[0], target: Some(net.place[1]), depart: 8 * 3600 };
    let r = earliest_arrival(&net.graph, &Nfa::car(), &q, Semantics::Product).unwrap();
    let walk = |x: [f64; 2], y: [f64; 2]| (distance_m(x, y) / 1.3).ceil().max(1.0) as u32;
    assert_eq!(r.arrival_at(net.place[1]), Some(8 * 3600 + walk(a, ra) + 1200 + walk(rb, b)));
    let j = r.journey(&net.graph, net.place[1]).unwrap();
    assert_eq!(
        j.legs.iter().map(|l| l.label).collect::<Vec<_>>(),
        vec![label::WALK, label::CAR, label::WALK]
    );
    let t = earliest_arrival(&net.graph, &Nfa::walk_transit(), &q, Semantics::Product).unwrap();
    let tj = t.journey(&net.graph, net.place[1]).unwrap();
    assert!(tj.legs.iter().all(|l| l.label != label::CAR));
}

/// A hand-written feed (tests/data/mini_gtfs) with every rule the loader applies: a parent station,
/// a blank stop time, an overtaking trip, a trip past midnight that may not set down at one stop,
/// frequencies, a removed service date and transfers.
#[test]
fn mini_feed_rules() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mini_gtfs");
    let net = TransitNetwork::from_gtfs(&dir, "2025-04-09", &TransitOptions::default()).unwrap();
    let ids: Vec<&str> = net.stations.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["S1", "S2", "S3", "S4"], "the platform S1a belongs to its parent S1");
    let st = |id: &str| net.street[ids.iter().position(|&s| s == id).unwrap()];
    // slow, fast, late (today) + late (yesterday, after midnight) + 4 frequency trips.
    assert_eq!(net.stats.trips, 8, "{:?}", net.stats);
    assert_eq!(net.stats.overtaken, 1, "the slow 08:00 trip is overtaken by the 08:05 one");
    assert_eq!(net.stats.transfers, 1);
    assert_eq!(net.stats.walk_arcs, 2, "only S3 and S4 are within 500 m");
    assert_eq!(net.patterns.len(), 3);
    assert_eq!(net.routes.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), ["Blue bus", "R1"]);
    let arrive = |from: &str, to: &str, depart: u32| {
        let q = EapQuery { source: st(from), target: Some(st(to)), depart };
        earliest_arrival(&net.graph, &Nfa::walk_transit(), &q, Semantics::Product).unwrap().arrival_at(st(to))
    };
    let hms = |h: u32, m: u32| h * 3600 + m * 60;
    // Boarding the 08:00 (blank time at S2 interpolated to 08:15) is no worse than waiting for the
    // fast 08:05: the envelope lets the traveller change to it; both reach S3 at 08:20.
    assert_eq!(arrive("S1", "S3", hms(7, 58)), Some(hms(8, 20)));
    // Frequencies: every 15 minutes from 10:00, riding 6 minutes.
    assert_eq!(arrive("S3", "S2", hms(10, 1)), Some(hms(10, 21)));
    assert_eq!(arrive("S3", "S2", hms(10, 46)), Some(PERIOD + hms(10, 6)), "no departure after 10:45");
    // Past midnight: the 23:50 trip reaches S3 at 00:20 but may not set down at S2.
    assert_eq!(arrive("S1", "S3", hms(23, 45)), Some(PERIOD + hms(0, 20)));
    assert_eq!(arrive("S1", "S2", hms(23, 45)), Some(PERIOD + hms(8, 10)));
    // The change time of S1 (240 s, transfers.txt) applies between trips; S3 → S4 by transfer or on
    // foot (27 m).
    assert!(arrive("S3", "S4", hms(12, 0)).unwrap() <= hms(12, 0) + 90);
    // The Monday of 2025-04-07 is removed from the calendar, and Sunday has no service: no service at all.
    assert!(matches!(
        TransitNetwork::from_gtfs(&dir, "2025-04-07", &TransitOptions::default()),
        Err(TdError::NoService { .. })
    ));
    // On Tuesday 2025-04-08 the after-midnight part of Monday's late trip is missing.
    let tue = TransitNetwork::from_gtfs(&dir, "2025-04-08", &TransitOptions::default()).unwrap();
    assert_eq!(tue.stats.trips, 7);
}
