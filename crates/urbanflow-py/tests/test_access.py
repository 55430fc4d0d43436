"""Accessibility, closeness and betweenness against independent oracles: scipy's Dijkstra evaluated point
by point, networkx's harmonic_centrality and betweenness_centrality, on seeded random graphs with ties;
bad input refused by name; the command and the function agree."""

import subprocess

import networkx as nx
import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph

import urbanflow
from conftest import command, random_arcs


def graph_and_nx(seed, n, m, lo=1, hi=3):
    """A simple digraph (no parallel arcs, no loops: networkx's DiGraph keeps one arc per pair) with
    small integer weights (many ties), as a urbanflow Graph and a networkx DiGraph."""
    t, h, w = random_arcs(seed, n, m, lo, hi)
    arcs = {}
    for a, b, c in zip(t.tolist(), h.tolist(), w.tolist()):
        if a != b:
            arcs[(a, b)] = c
    tails = np.array([a for a, _ in arcs], dtype=np.int64)
    heads = np.array([b for _, b in arcs], dtype=np.int64)
    weights = np.array(list(arcs.values()), dtype=np.int64)
    g = urbanflow.Graph.from_edges(tails, heads, weights, n=n)
    x = nx.DiGraph()
    x.add_nodes_from(range(n))
    x.add_weighted_edges_from(zip(tails.tolist(), heads.tolist(), weights.tolist()))
    return g, x


@pytest.mark.parametrize("seed,n,m", [(1, 5, 10), (2, 30, 90), (3, 120, 400), (4, 400, 1500)])
def test_betweenness_equals_networkx(seed, n, m):
    g, x = graph_and_nx(seed, n, m)
    want = nx.betweenness_centrality(x, normalized=False, weight="weight")
    got = urbanflow.betweenness(g)
    np.testing.assert_allclose(got, [want[v] for v in range(n)], rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("seed,n,m", [(5, 30, 90), (6, 300, 1000)])
def test_harmonic_closeness_equals_networkx(seed, n, m):
    g, x = graph_and_nx(seed, n, m)
    # networkx sums distances *to* each vertex: on the reversed graph, distances from it.
    want = nx.harmonic_centrality(x.reverse(), distance="weight")
    for engine in ["search", "sweep"]:
        got = urbanflow.closeness(g, engine=engine, backend="cpu")
        np.testing.assert_allclose(got, [want[v] for v in range(n)], rtol=1e-12)


def test_accessibility_equals_scipy():
    n = 500
    t, h, w = random_arcs(9, n, 1600, 1, 50)
    g = urbanflow.Graph.from_edges(t, h, w, n=n)
    rng = np.random.default_rng(9)
    vertices = rng.integers(0, n, 200)
    weights = rng.integers(0, 10, 200).astype(float) * 0.5
    cutoffs = [20, 60, 150]
    dist = csgraph.dijkstra(g.to_scipy(), indices=np.arange(n))
    for decay, f in [("flat", lambda d, c: 1.0), ("linear", lambda d, c: 1 - d / c),
                     ("exp:0.02", lambda d, c: np.exp(-0.02 * d))]:
        a = urbanflow.accessibility(g, (vertices, weights), cutoffs, decay=decay, backend="cpu")
        assert a.count.shape == (n, 3) and a.sum.shape == (n, 3)
        for k, c in enumerate(cutoffs):
            d = dist[:, vertices]
            inside = d <= c
            np.testing.assert_array_equal(a.count[:, k], inside.sum(axis=1))
            want = np.where(inside, weights * f(np.where(inside, d, 0), c), 0).sum(axis=1)
            np.testing.assert_allclose(a.sum[:, k], want, rtol=1e-12, atol=1e-12)
            best = np.where(inside, weights, np.inf).min(axis=1)
            np.testing.assert_array_equal(a.min[:, k], np.where(np.isinf(best), np.nan, best))
    rows = a.table(as_frame=False)
    assert len(rows["vertex"]) == 3 * n and rows["cutoff"][:3].tolist() == cutoffs


def test_sampled_betweenness_has_errors():
    g, _ = graph_and_nx(7, 300, 1200)
    exact = urbanflow.betweenness(g)
    value, se = urbanflow.betweenness(g, sample=300)
    np.testing.assert_allclose(value, exact, rtol=1e-12)
    value, se = urbanflow.betweenness(g, sample=100, seed=3)
    assert se.shape == (300,) and np.all(se >= 0)
    assert abs(value.sum() / exact.sum() - 1) < 0.2


def test_bad_input_is_refused():
    g = urbanflow.Graph.from_edges([0, 1], [1, 2], [1, 1])
    with pytest.raises(urbanflow.errors.VertexError):
        urbanflow.accessibility(g, ([7], [1.0]), [5])
    with pytest.raises(urbanflow.errors.InvalidInputError, match="finite number"):
        urbanflow.accessibility(g, ([1], [-1.0]), [5])
    with pytest.raises(urbanflow.errors.InvalidInputError, match="ascending"):
        urbanflow.accessibility(g, [1], [5, 2])
    with pytest.raises(urbanflow.errors.InvalidInputError, match="decay"):
        urbanflow.accessibility(g, [1], [5], decay="cubic")
    with pytest.raises(urbanflow.errors.InvalidInputError, match="one weight per point"):
        urbanflow.accessibility(g, ([1, 2], [1.0]), [5])


def test_command_equals_function(tmp_path):
    n = 200
    t, h, w = random_arcs(12, n, 700, 1, 20)
    gr = tmp_path / "g.gr"
    lines = [f"p sp {n} {len(t)}"] + [f"a {a + 1} {b + 1} {c}" for a, b, c in zip(t, h, w)]
    gr.write_text("\n".join(lines) + "\n")
    g = urbanflow.Graph.from_file(gr)
    pts = tmp_path / "points.csv"
    pts.write_text("vertex,weight\n" + "".join(f"{v + 1},{v % 7}\n" for v in range(0, n, 3)))
    out = tmp_path / "rows.csv"
    subprocess.run(command("access") + ["--graph", str(gr), "--points", str(pts), "--cutoffs", "10,30",
                                        "--backend", "cpu", "--out", str(out)], check=True, capture_output=True)
    rows = np.loadtxt(out, delimiter=",", skiprows=1, usecols=(0, 1, 2, 3))
    # The file's ids are 1..n and the graph keeps them: vertex index = id - 1.
    vertices = np.arange(0, n, 3)
    a = urbanflow.accessibility(g, (vertices, (vertices % 7).astype(float)), [10, 30], backend="cpu")
    np.testing.assert_array_equal(rows[:, 0], np.repeat(np.asarray(g.ids)[a.sources], 2))
    np.testing.assert_array_equal(rows[:, 2], a.count.reshape(-1))
    np.testing.assert_allclose(rows[:, 3], a.sum.reshape(-1), rtol=1e-12)


def test_nearest_equals_scipy():
    n = 300
    t, h, w = random_arcs(21, n, 1000, 1, 9)
    g = urbanflow.Graph.from_edges(t, h, w, n=n)
    points = np.random.default_rng(21).integers(0, n, 40)
    vertices, distances = urbanflow.nearest(g, points, 4, max_distance=25)
    dist = csgraph.dijkstra(g.to_scipy(), indices=np.arange(n))
    for s in range(n):
        want = sorted((dist[s, p], p) for p in points.tolist() if dist[s, p] <= 25)[:4]
        got = [(d, v) for v, d in zip(vertices[s].tolist(), distances[s].tolist()) if v != urbanflow.UNREACHABLE]
        assert got == [(int(d), int(p)) for d, p in want], s
