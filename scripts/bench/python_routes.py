"""Python routes and matrices against the Rust command on the same points, in one run (issue 63).

    python scripts/bench/python_routes.py [--graph ../shared/data/road/weighted/NY.gr.xz] [--rounds 5]

Needs the package installed (pip install ./crates/urbanflow-py) and the `urbanflow` command built (cargo
build --release -p urbanflow-cli). Prints one JSON object: the hierarchy's setup, the 200 x 200 matrix from
Python (best of the rounds) beside the `route --matrix` command's own matrix time on the same points, the
old path (a tree per source), and point-to-point paths by the hierarchy and by bidirectional Dijkstra.
"""

import argparse
import json
import os
import pathlib
import subprocess
import tempfile
import time

import numpy as np

import urbanflow

REPO = pathlib.Path(__file__).resolve().parents[2]


def best(f, rounds):
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times), max(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--graph", default=str(REPO.parent / "shared/data/road/weighted/NY.gr.xz"))
    p.add_argument("--size", type=int, default=200)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--pairs", type=int, default=200)
    a = p.parse_args()
    out = {"graph": a.graph, "threads": os.cpu_count()}
    t = time.perf_counter()
    g = urbanflow.Graph.from_file(a.graph)
    out["read_s"] = time.perf_counter() - t
    rng = np.random.default_rng(63)
    src, dst = rng.integers(0, g.n, a.size).astype(np.uint32), rng.integers(0, g.n, a.size).astype(np.uint32)

    # The old default (a tree per source), measured before the graph has a hierarchy.
    t = time.perf_counter()
    trees = g.distance_matrix(src, dst, method="trees")
    out["matrix_trees_s"] = time.perf_counter() - t

    t = time.perf_counter()
    h = g.hierarchy()
    out["hierarchy_s"] = time.perf_counter() - t
    out["hierarchy_order"] = h.cache
    out["hierarchy_build_s"], out["customise_s"] = h.build_s, h.customise_s
    m = h.matrix(src, dst)
    assert np.array_equal(m, trees), "hierarchy and trees disagree"
    out["matrix_python_s"] = best(lambda: h.matrix(src, dst), a.rounds)
    out["matrix_python_default_s"] = best(lambda: g.distance_matrix(src, dst), a.rounds)

    # The Rust command on the same points (file ids are 1-based vertex numbers for DIMACS).
    ids = g.ids
    with tempfile.TemporaryDirectory() as d:
        o, t_ = pathlib.Path(d) / "o.txt", pathlib.Path(d) / "d.txt"
        o.write_text("\n".join(str(int(ids[v])) for v in src) + "\n")
        t_.write_text("\n".join(str(int(ids[v])) for v in dst) + "\n")
        exe = REPO / "target/release/urbanflow"
        rust = []
        for _ in range(a.rounds):
            r = subprocess.run([exe, "route", "--graph", a.graph, "--matrix", o, t_, "--backend", "cpu", "--json"],
                               capture_output=True, text=True, check=True)
            rust.append(json.loads(r.stdout)["matrix_s"])
        out["matrix_rust_command_s"] = (min(rust), max(rust))
    out["python_over_rust"] = out["matrix_python_s"][0] / out["matrix_rust_command_s"][0]

    pairs = [(int(s), int(t)) for s, t in zip(rng.integers(0, g.n, a.pairs), rng.integers(0, g.n, a.pairs))]
    t = time.perf_counter()
    for s, d_ in pairs:
        h.path(s, d_)
    out["path_hierarchy_us"] = (time.perf_counter() - t) / len(pairs) * 1e6
    inner = g._g  # the bidirectional search the graph used before it had a hierarchy
    t = time.perf_counter()
    for s, d_ in pairs[:20]:
        inner.path(s, d_)
    out["path_bidirectional_us"] = (time.perf_counter() - t) / 20 * 1e6
    for s, d_ in pairs[:20]:
        a_, b_ = h.path(s, d_), inner.path(s, d_)
        assert (a_ is None) == (b_ is None) and (a_ is None or a_[0] == b_[0])
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
