"""Shortest paths against scipy and networkx on seeded random graphs (zero weights, parallel arcs,
self-loops, unreachable parts), trees and paths that add up, matrices that equal rows, and a GPU that
equals the CPU."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph

import urbanflow
from conftest import gpu_required, random_arcs

CASES = [(seed, n, m) for seed, (n, m) in enumerate([(1, 0), (2, 3), (10, 30), (57, 120), (300, 900), (2000, 5000)])]


@pytest.mark.parametrize("seed,n,m", CASES)
def test_rows_equal_scipy(seed, n, m):
    t, h, w = random_arcs(seed, n, m, lo=1)
    g = urbanflow.Graph.from_edges(t, h, w, n=n)
    a = g.to_scipy()
    sources = np.unique(np.random.default_rng(seed).integers(0, n, min(n, 12)))
    want = csgraph.dijkstra(a, indices=sources)
    for algorithm in ["auto", "dijkstra", "delta", "bellman-ford"]:
        for i, s in enumerate(sources):
            got = g.distances(int(s), algorithm=algorithm, backend="cpu", dtype="float64")
            np.testing.assert_array_equal(got, want[i], err_msg=f"{algorithm} from {s}")
    for method in ["trees", "phast"]:
        rows = g.distances(sources, method=method, backend="cpu")
        assert rows.dtype == np.uint32 and rows.shape == (len(sources), n)
        np.testing.assert_array_equal(np.where(rows == urbanflow.UNREACHABLE, np.inf, rows), want)


@pytest.mark.parametrize("seed,n,m", CASES[:5])
def test_rows_equal_networkx_with_zero_weights(seed, n, m):
    t, h, w = random_arcs(100 + seed, n, m, lo=0, hi=9)
    g = urbanflow.Graph.from_edges(t, h, w, n=n)
    nxg = g.to_networkx()
    for s in range(min(n, 5)):
        want = nx.single_source_dijkstra_path_length(nxg, s)
        got = g.distances(s, backend="cpu")
        for v in range(n):
            assert got[v] == want.get(v, urbanflow.UNREACHABLE), (s, v)


def test_paths_add_up_and_matrices_equal_rows():
    t, h, w = random_arcs(7, 400, 1600)
    g = urbanflow.Graph.from_edges(t, h, w)
    tails, heads, weights, offsets = g.tails, g.heads, g.weights, g.offsets
    for s, target in [(0, 1), (5, 399), (17, 17), (3, 250)]:
        d = g.distances(s, backend="cpu")
        found = g.path(s, target)
        if d[target] == urbanflow.UNREACHABLE:
            assert found is None
            continue
        dist, vertices = found
        assert dist == d[target] and vertices[0] == s and vertices[-1] == target
        cost = 0
        for u, v in zip(vertices[:-1], vertices[1:]):
            arcs = np.arange(offsets[u], offsets[u + 1])
            cost += weights[arcs][heads[arcs] == v].min()
        assert cost == dist
    sources, targets = np.array([0, 3, 9]), np.array([1, 2, 250, 399])
    m = g.distance_matrix(sources, targets, backend="cpu")
    rows = g.distances(sources, backend="cpu")
    np.testing.assert_array_equal(m, rows[:, targets])
    assert g.from_scipy(g.to_scipy()).distances(0, backend="cpu").tolist() == g.distances(0, backend="cpu").tolist()


def test_gpu_equals_cpu():
    t, h, w = random_arcs(11, 500, 2000)
    g = urbanflow.Graph.from_edges(t, h, w)
    try:
        gpu = g.distances(np.arange(8), backend="gpu")
    except urbanflow.errors.NoGpuError:
        if gpu_required():
            raise
        pytest.skip("no GPU adapter")
    np.testing.assert_array_equal(gpu, g.distances(np.arange(8), backend="cpu"))
    for algorithm in ["auto", "near-far", "harish"]:
        np.testing.assert_array_equal(g.distances(3, algorithm=algorithm, backend="gpu"), g.distances(3, backend="cpu"))
    with pytest.raises(urbanflow.errors.InvalidInputError, match="does not run on the cpu backend"):
        g.distances(3, algorithm="near-far", backend="cpu")


def test_files_and_ids():
    from conftest import DATA

    g = urbanflow.Graph.from_file(DATA / "small-road.gr.gz")
    assert g.ids.dtype == np.uint64 and g.ids[0] == 1 and len(g.ids) == g.n
    assert g.index([1, g.n]).tolist() == [0, g.n - 1]
    with pytest.raises(KeyError, match="not in the graph"):
        g.index([g.n + 5])
    assert g.distances(0).dtype == np.uint32


def test_k_shortest_paths_equal_networkx():
    t, h, w = random_arcs(21, 40, 160, lo=1, hi=20)
    keep = {}
    for a, b, c in zip(t.tolist(), h.tolist(), w.tolist()):
        if a != b:
            keep[(a, b)] = min(c, keep.get((a, b), c))
    tails, heads, weights = zip(*[(a, b, c) for (a, b), c in sorted(keep.items())])
    g = urbanflow.Graph.from_edges(tails, heads, weights, n=40)
    d = nx.DiGraph()
    d.add_weighted_edges_from(zip(tails, heads, weights))
    for s, target in [(0, 5), (3, 17), (9, 30)]:
        paths = g.k_shortest_paths(s, target, 8)
        assert paths == [] or [int(v) for v in paths[0][1]][0] == s
        want = []
        if d.has_node(s) and d.has_node(target) and nx.has_path(d, s, target):
            for p in nx.shortest_simple_paths(d, s, target, weight="weight"):
                want.append(sum(d[u][v]["weight"] for u, v in zip(p[:-1], p[1:])))
                if len(want) == 8:
                    break
        assert [c for c, _ in paths] == want
        yen = g.k_shortest_paths(s, target, 8, algorithm="yen")
        assert [c for c, _ in yen] == want
        for cost, vertices in paths:
            assert len(set(vertices.tolist())) == len(vertices)
            assert cost == sum(keep[(u, v)] for u, v in zip(vertices[:-1].tolist(), vertices[1:].tolist()))


def test_openstreetmap_and_turns():
    from conftest import REPO

    fixture = REPO / "crates" / "graph-core" / "tests" / "data" / "restrictions.osm"
    o = urbanflow.Graph.from_osm(fixture, "car", largest_component=False)
    r = o.report()
    assert (r["restrictions"], r["restrictions_applied"]) == (19, 8)
    assert r["restrictions_skipped"]["except"] == 1
    assert o.coords.shape == (o.graph.n, 2) and o.osm_ids.dtype == np.int64
    v, metres = o.snap(41.1491007, -8.61)
    assert o.osm_ids[v] == 4 and metres < 1.0
    with pytest.raises(urbanflow.errors.InvalidInputError, match="snapping limit"):
        o.snap(0.0, 0.0)
    tg, sources, targets, road_arcs = o.turn_graph()
    assert tg.n == len(road_arcs) + 2 * o.graph.n
    # h → d: left at e is banned (relation 101), so the turn-aware route is longer or equal.
    h, d = (int(np.flatnonzero(o.osm_ids == i)[0]) for i in (8, 4))
    plain = o.graph.distances(h, backend="cpu")[d]
    turned = tg.distances(int(sources[h]), backend="cpu")[targets[d]]
    assert turned >= plain


@pytest.mark.parametrize("seed,n,m", CASES[1:])
def test_predecessors_form_shortest_path_trees(seed, n, m):
    """Each parent arc is tight, every reached vertex but the source has one, trees and PHAST give the
    same canonical parents, and ``paths`` walks them back to the source with the right length."""
    t, h, w = random_arcs(seed, n, m, lo=0 if seed % 2 else 1)
    g = urbanflow.Graph.from_edges(t, h, w, n=n)
    sources = np.unique(np.random.default_rng(seed).integers(0, n, min(n, 6)))
    dist, pred = g.distances(sources, method="trees", backend="cpu", predecessors=True)
    assert pred.dtype == np.uint32 and pred.shape == dist.shape == (len(sources), n)
    d2, p2 = g.distances(sources, method="phast", backend="cpu", predecessors=True)
    np.testing.assert_array_equal(dist, d2)
    np.testing.assert_array_equal(pred, p2)
    best = {}
    for u, v, x in zip(g.tails.tolist(), g.heads.tolist(), g.weights.tolist()):
        best[(u, v)] = min(x, best.get((u, v), x))
    U = urbanflow.UNREACHABLE
    for i, s in enumerate(sources.tolist()):
        for v in range(n):
            p = int(pred[i, v])
            if v == s or dist[i, v] == U:
                assert p == U
            else:
                assert p != U and int(dist[i, p]) + best[(p, v)] == int(dist[i, v])
        one_d, one_p = g.distances(s, backend="cpu", predecessors=True)
        np.testing.assert_array_equal(one_p, pred[i])
        targets = np.arange(n)
        for v, found in zip(targets.tolist(), g.paths(s, targets)):
            if dist[i, v] == U:
                assert found is None
                continue
            length, vertices = found
            assert length == dist[i, v] and vertices[0] == s and vertices[-1] == v
            assert vertices.dtype == np.uint32
            assert sum(best[(a, b)] for a, b in zip(vertices[:-1].tolist(), vertices[1:].tolist())) == length
    with pytest.raises(urbanflow.errors.InvalidInputError, match="target"):
        g.paths(0, [n])


def test_gpu_predecessors_equal_cpu():
    t, h, w = random_arcs(12, 400, 1600)
    g = urbanflow.Graph.from_edges(t, h, w)
    try:
        gpu = g.distances(np.arange(5), backend="gpu", predecessors=True)
    except urbanflow.errors.NoGpuError:
        if gpu_required():
            raise
        pytest.skip("no GPU adapter")
    cpu = g.distances(np.arange(5), backend="cpu", predecessors=True)
    np.testing.assert_array_equal(gpu[0], cpu[0])
    np.testing.assert_array_equal(gpu[1], cpu[1])
