#!/usr/bin/env python3
"""The Python package against its peers and against the `urbanflow` command, side by side in one run
(issue 37). Needs the package installed (`pip install ./crates/urbanflow-py`), scipy and networkx, and
the release command (`cargo build --release -p urbanflow-cli`).

1. NY, 1,000 trees: urbanflow (all threads, and one) against scipy's `dijkstra(A, indices=...)` (one
   thread) and networkx (on the first `--nx` sources, scaled), rows checked equal.
2. Python overhead: `g.distances(64 sources)` against `many_to_all --sources 64 --method dijkstra --backend
   cpu --json` (the example's solve time), and `urbanflow.assign` against `assign --json` `solve_s`
   (Chicago-Sketch, BFW 1e-4), median of `--repeat` runs each.

Rust and Python runs alternate (rust, python, rust, ...) so that the machine's drift hits both alike.

usage: python_vs.py --data ../shared/data [--repeat 5] [--nx 5] [--trees 1000] [--overhead-only]
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import time

import numpy as np

import urbanflow

REPO = pathlib.Path(__file__).resolve().parents[1]


def release(name):
    """`urbanflow <name>`, release build, as the start of a command line (the list is spliced in)."""
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return [str(target / "release" / "urbanflow"), name]


def median_time(f, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times), min(times), max(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--nx", type=int, default=5)
    ap.add_argument("--trees", type=int, default=1000)
    ap.add_argument("--overhead-only", action="store_true", help="part 2 alone")
    a = ap.parse_args()
    data = pathlib.Path(a.data)
    ny = data / "road" / "weighted" / "NY.gr.xz"
    out = {"threads": os.cpu_count()}

    t = time.perf_counter()
    g = urbanflow.Graph.from_file(ny)
    out["ny_read_s"] = time.perf_counter() - t
    rng = np.random.default_rng(1)
    sources = rng.choice(g.n, a.trees, replace=False).astype(np.uint32)

    if not a.overhead_only:
        trees_against_peers(a, g, sources, out)
    overhead(a, data, ny, g, out)
    print(json.dumps(out, indent=1))


def trees_against_peers(a, g, sources, out):
    """Part 1: NY trees against scipy and networkx."""
    t = time.perf_counter()
    rows = g.distances(sources, backend="cpu")
    out["urbanflow_all_threads_s"] = time.perf_counter() - t
    for method in ("trees", "phast"):
        t = time.perf_counter()
        again = g.distances(sources, method=method, backend="cpu")
        out[f"urbanflow_{method}_s"] = time.perf_counter() - t
        assert (again == rows).all()
        del again
    t = time.perf_counter()
    rows1 = g.distances(sources[:200], backend="cpu", threads=1)
    out["urbanflow_one_thread_per_tree_s"] = (time.perf_counter() - t) / 200
    assert (rows1 == rows[:200]).all()
    import scipy.sparse.csgraph as csgraph

    t = time.perf_counter()
    matrix = g.to_scipy()
    out["scipy_matrix_s"] = time.perf_counter() - t
    t = time.perf_counter()
    want = csgraph.dijkstra(matrix, indices=sources[:100])
    out["scipy_per_tree_s"] = (time.perf_counter() - t) / 100
    got = np.where(rows[:100] == urbanflow.UNREACHABLE, np.inf, rows[:100])
    assert (got == want).all(), "scipy disagrees"
    import networkx as nx

    t = time.perf_counter()
    nxg = g.to_networkx()
    out["networkx_graph_s"] = time.perf_counter() - t
    t = time.perf_counter()
    for i, s in enumerate(sources[: a.nx]):
        d = nx.single_source_dijkstra_path_length(nxg, int(s))
        assert all(rows[i][v] == dist for v, dist in d.items())
    out["networkx_per_tree_s"] = (time.perf_counter() - t) / a.nx
    n_trees = len(sources)
    out["trees"] = n_trees
    out["speedup_vs_scipy"] = out["scipy_per_tree_s"] * n_trees / out["urbanflow_all_threads_s"]
    out["speedup_vs_scipy_phast"] = out["scipy_per_tree_s"] * n_trees / out["urbanflow_phast_s"]
    out["speedup_vs_networkx"] = out["networkx_per_tree_s"] * n_trees / out["urbanflow_all_threads_s"]



def overhead(a, data, ny, g, out):
    """Part 2: the same work through the Rust examples (their solve_s) and through Python, alternating."""
    def rust_trees():
        r = subprocess.run([*release("trees"), "--graph", str(ny), "--sources", "64", "--seed", "1",
                            "--method", "trees", "--backend", "cpu", "--json"], capture_output=True, text=True,
                           check=True)
        return json.loads(r.stdout.strip().splitlines()[-1])
    same = g.index(rust_trees()["sources"])
    rust, python = [], []
    for _ in range(a.repeat):
        rust.append(rust_trees()["solve_s"])
        t = time.perf_counter()
        g.distances(same, method="trees", backend="cpu")
        python.append(time.perf_counter() - t)
    out["rust_many_to_all_64_solve_s"] = statistics.median(rust)
    out["python_distances_64_s"] = statistics.median(python)
    out["trees_runs"] = {"rust": rust, "python": python}
    out["trees_overhead"] = out["python_distances_64_s"] / out["rust_many_to_all_64_solve_s"] - 1

    cs = data / "tntp" / "Chicago-Sketch"
    net, trips = cs / "ChicagoSketch_net.tntp", cs / "ChicagoSketch_trips.tntp.xz"
    def rust_assign():
        r = subprocess.run([*release("assign"), "--net", str(net), "--trips", str(trips), "--gap", "1e-4",
                            "--backend", "cpu", "--json"], capture_output=True, text=True, check=True)
        return json.loads(r.stdout)["solve_s"]
    network = urbanflow.Network.from_tntp(net)
    demand = urbanflow.Demand.from_tntp(trips, network)
    rust, python = [], []
    for _ in range(a.repeat):
        rust.append(rust_assign())
        t = time.perf_counter()
        urbanflow.assign(network, demand, gap=1e-4, backend="cpu", as_frame=False)
        python.append(time.perf_counter() - t)
    out["rust_assign_solve_s"] = statistics.median(rust)
    out["python_assign_s"] = statistics.median(python)
    out["assign_runs"] = {"rust": rust, "python": python}
    out["assign_overhead"] = out["python_assign_s"] / out["rust_assign_solve_s"] - 1


if __name__ == "__main__":
    main()
