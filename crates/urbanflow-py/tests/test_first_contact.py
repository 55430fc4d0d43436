"""What a newcomer met in Python (issue 63): mismatched files refused, file names resolved as the command
line resolves them, a stub that matches the module, integers only as vertices, short reprs, warnings where
the command line exits 2, and the hierarchy for fast routes and matrices (against scipy)."""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph

import urbanflow
from conftest import DATA, REPO, random_arcs, shared_data
from urbanflow import errors


def _without_b(tmp_path):
    """Sioux Falls with the `b` column left out of every row; the header still names ten columns."""
    lines, body = [], False
    for line in (DATA / "SiouxFalls_net.tntp").read_text().splitlines():
        if body and line.strip() and not line.lstrip().startswith("~"):
            fields = line.split("\t")
            del fields[6]
            line = "\t".join(fields)
        body = body or "<END OF METADATA>" in line
        lines.append(line)
    path = tmp_path / "nob_net.tntp"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_net_missing_a_column_is_refused(tmp_path):
    with pytest.raises(errors.FormatError) as e:
        urbanflow.Network.from_tntp(_without_b(tmp_path))
    assert "the rows hold 9 fields but the column header" in str(e.value)
    assert e.value.path.endswith("nob_net.tntp") and e.value.line is not None


def test_trips_of_another_network_are_refused():
    anaheim = shared_data("tntp/Anaheim/Anaheim_net.tntp")
    with pytest.raises(errors.FormatError, match="<NUMBER OF ZONES> is 24 but the network .* has 38 zones"):
        urbanflow.assign(anaheim, DATA / "SiouxFalls_trips.tntp")


def test_file_names_resolve_under_the_data_root(monkeypatch, tmp_path):
    root = tmp_path / "data"
    (root / "tntp").mkdir(parents=True)
    for name in ("SiouxFalls_net.tntp", "SiouxFalls_trips.tntp"):
        (root / "tntp" / name).write_bytes((DATA / name).read_bytes())
    monkeypatch.setenv("URBANFLOW_DATA", str(root))
    monkeypatch.chdir(tmp_path)
    # As the documentation names them, and relative to the data root.
    net = urbanflow.Network.from_tntp("../shared/data/tntp/SiouxFalls_net.tntp")
    assert net.num_links == 76
    r = urbanflow.assign("tntp/SiouxFalls_net.tntp", "tntp/SiouxFalls_trips.tntp", gap=1e-3)
    assert r.converged
    assert urbanflow.Graph.from_file("tntp/SiouxFalls_net.tntp").n == 24


def test_a_missing_file_says_so(tmp_path):
    for call in (lambda p: urbanflow.Graph.from_file(p), lambda p: urbanflow.Network.from_tntp(p),
                 lambda p: urbanflow.Transit.from_gtfs(p)):
        with pytest.raises(FileNotFoundError) as e:
            call(tmp_path / "nowhere.file")
        text = str(e.value)
        assert "No such file or directory" in text and "nowhere.file" in text, text
        assert "None" not in text, text
        assert e.value.errno == 2 and e.value.filename.endswith("nowhere.file")


def test_the_stub_matches_the_module(tmp_path):
    # CI installs mypy (.ci/run); elsewhere the test needs it too.
    pytest.importorskip("mypy.stubtest")
    run = subprocess.run([sys.executable, "-m", "mypy.stubtest", "urbanflow"], capture_output=True, text=True,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr


def test_integers_only_as_vertices():
    g = urbanflow.Graph.from_edges([0, 1], [1, 2], [3, 4])
    for bad in (0.5, 1.0, "1", True, np.float64(1)):
        with pytest.raises(errors.InvalidInputError, match="expected an integer"):
            g.distances(bad)
        with pytest.raises(errors.InvalidInputError):
            g.path(bad, 2)
    assert g.distances(np.int64(0)).tolist() == [0, 3, 7]
    assert g.distances(np.array(0)).tolist() == [0, 3, 7]


def test_dir_shows_the_api_only():
    names = dir(urbanflow)
    for private in ("np", "os", "dataclass", "Any", "table", "warnings"):
        assert private not in names
    for public in ("Graph", "Hierarchy", "assign", "skims", "errors"):
        assert public in names


def test_results_summarise_and_warn():
    with pytest.warns(RuntimeWarning, match="stopped after 2 iterations"):
        r = urbanflow.assign(DATA / "SiouxFalls_net.tntp", DATA / "SiouxFalls_trips.tntp", max_iters=2)
    assert not r.converged
    text = repr(r)
    assert text.startswith("AssignResult(converged=False, iterations=2") and "links=76" in text
    assert len(text) < 300, text
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        urbanflow.assign(DATA / "SiouxFalls_net.tntp", DATA / "SiouxFalls_trips.tntp", gap=1e-3)


def test_skims_of_another_network_say_so():
    anaheim = shared_data("tntp/Anaheim/Anaheim_net.tntp")
    r = urbanflow.assign(DATA / "SiouxFalls_net.tntp", DATA / "SiouxFalls_trips.tntp", gap=1e-3)
    with pytest.raises(errors.InvalidInputError, match="76 link flows but the network has 914 links"):
        urbanflow.skims(anaheim, r)


def _road():
    g = urbanflow.Graph.from_file(DATA / "small-road.gr.gz")
    return g.tails, g.heads, g.weights.astype(np.int64)


@pytest.mark.parametrize("seed,n,m", [(1, 2, 3), (2, 60, 200), (3, 500, 1600), (4, 3024, "road")])
def test_hierarchy_equals_scipy(seed, n, m, monkeypatch, tmp_path):
    monkeypatch.setenv("URBANFLOW_CACHE_DIR", str(tmp_path))
    t, h, w = _road() if m == "road" else random_arcs(seed, n, m, lo=0, hi=50)
    g = urbanflow.Graph.from_edges(t, h, w, n=n)
    want = csgraph.dijkstra(g.to_scipy())
    hier = g.hierarchy()
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, 40), rng.integers(0, n, 30)
    m_ = hier.matrix(src, dst, dtype="float64")
    np.testing.assert_array_equal(m_, want[np.ix_(src, dst)])
    # distance_matrix now runs on the hierarchy the graph keeps; the trees agree.
    np.testing.assert_array_equal(g.distance_matrix(src, dst, dtype="float64"), m_)
    np.testing.assert_array_equal(g.distance_matrix(src, dst, method="trees", dtype="float64"), m_)
    for s, d in zip(src[:10], dst[:10]):
        s, d = int(s), int(d)
        found = hier.path(s, d)
        if np.isinf(want[s, d]):
            assert found is None and hier.distance(s, d) is None
            continue
        dist, vertices = found
        assert dist == want[s, d] == hier.distance(s, d)
        assert vertices[0] == s and vertices[-1] == d
        # The path's arcs add up to its distance.
        cost = sum(w[(t == a) & (h == b)].min() for a, b in zip(vertices[:-1], vertices[1:]))
        assert cost == dist
    # New weights: the same order, another metric.
    w2 = g.weights[::-1].copy()
    hier.customise(w2)
    g2 = urbanflow.Graph.from_edges(g.tails, g.heads, w2, n=n)
    np.testing.assert_array_equal(hier.matrix(src, dst, dtype="float64"),
                                  csgraph.dijkstra(g2.to_scipy())[np.ix_(src, dst)])
    hier.customise()
    np.testing.assert_array_equal(hier.matrix(src, dst, dtype="float64"), m_)
    # The perfect customisation's thinned hierarchy: the same distances, paths that add up to them.
    hier.customise(perfect=True)
    np.testing.assert_array_equal(hier.matrix(src, dst, dtype="float64"), m_)
    for s, d in zip(src[:10], dst[:10]):
        s, d = int(s), int(d)
        found = hier.path(s, d)
        assert (found is None) == np.isinf(want[s, d]) and (found is None) == (hier.distance(s, d) is None)
        if found is not None:
            dist, vertices = found
            assert dist == want[s, d] and vertices[0] == s and vertices[-1] == d
            assert sum(w[(t == a) & (h == b)].min() for a, b in zip(vertices[:-1], vertices[1:])) == dist
    hier.customise()
    with pytest.raises(errors.InvalidInputError, match="weights"):
        hier.customise(w2[:-1] if len(w2) else [1])
    with pytest.raises(errors.InvalidInputError):
        hier.distance(0, n)


def test_no_small_separators_fall_back_to_trees():
    t, h, w = random_arcs(4, 3000, 9000, lo=0, hi=50)
    g = urbanflow.Graph.from_edges(t, h, w, n=3000)
    with pytest.raises(errors.InvalidInputError, match="no small separators"):
        g.hierarchy()
    src, dst = np.arange(40), np.arange(30)
    want = csgraph.dijkstra(g.to_scipy(), indices=src)[:, dst]
    np.testing.assert_array_equal(g.distance_matrix(src, dst, dtype="float64"), want)
    with pytest.raises(errors.InvalidInputError, match="no small separators"):
        g.distance_matrix(src, dst, method="hierarchy")


def test_hierarchy_on_ny_is_fast():
    """Issue 63's bar: 200 x 200 on NY from Python within 0.1 s and 1.2x the Rust call, the order cached."""
    ny = shared_data("road/weighted/NY.gr.xz")
    g = urbanflow.Graph.from_file(ny)
    h = g.hierarchy()
    rng = np.random.default_rng(63)
    src, dst = rng.integers(0, g.n, 200), rng.integers(0, g.n, 200)
    import time

    best = min(_timed(lambda: h.matrix(src, dst), time) for _ in range(3))
    print(f"NY 200 x 200 from Python: {best:.4f} s (hierarchy {h.cache}, {h.build_s:.2f} s + customise "
          f"{h.customise_s:.2f} s)")
    # Checked against trees on a few rows (a full Dijkstra per source is the slow way).
    rows = g.distance_matrix(src[:3], dst, method="trees")
    np.testing.assert_array_equal(h.matrix(src[:3], dst), rows)
    if os.environ.get("URBANFLOW_TIMING_BARS") == "1":
        assert best <= 0.1


def _timed(f, time):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def test_no_error_lines_on_import_and_probe():
    """A CPU-only run (the adapter probe included) writes no `error:` line to stderr."""
    code = ("import urbanflow; g = urbanflow.Graph.from_edges([0], [1], [1]); "
            "g.distances(0, backend='auto'); g.distances([0, 1], backend='auto')")
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_RUNTIME_DIR", "NODEVICE_SELECT")}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO)
    assert run.returncode == 0, run.stderr
    assert not any(line.lstrip().startswith("error") for line in run.stderr.splitlines()), run.stderr


def test_the_progress_bar_never_goes_back_and_shows_no_rate():
    pytest.importorskip("tqdm")
    bar_update = urbanflow._progress_bar(1e-4)
    bar = bar_update.bar
    seen = []
    for i, gap in enumerate([1e-1, 1e-2, 3e-2, 1e-3, 2e-3, 1e-4]):  # gaps rise now and then
        bar_update({"iteration": i + 1, "relative_gap": gap})
        seen.append(bar.n)
    assert seen == sorted(seen) and seen[-1] == 1000, seen
    text = str(bar)
    assert "/s" not in text and "‰" not in text, text
    bar.close()
