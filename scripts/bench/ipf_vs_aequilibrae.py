#!/usr/bin/env python3
"""IPF on a seeded N × N matrix, urbanflow against AequilibraE 1.7.2's Ipf, side by side in one process
(the same seed and totals, the same convergence level, both on every core of this machine).

    pip install aequilibrae==1.7.2 ./crates/urbanflow-py
    python scripts/bench/ipf_vs_aequilibrae.py --zones 5000 --tolerance 1e-6

Prints each tool's seconds (best of --repeat), iterations and the largest relative difference of the
two results."""

import argparse
import time

import numpy as np
import pandas as pd
from aequilibrae.distribution import Ipf
from aequilibrae.matrix import AequilibraeMatrix

import urbanflow


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--zones", type=int, default=5000)
    p.add_argument("--tolerance", type=float, default=1e-6)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    n = a.zones
    rng = np.random.default_rng(1)
    seed = rng.random((n, n)) * 100.0
    seed[rng.random((n, n)) < 0.2] = 0.0
    rows = seed.sum(axis=1) * rng.uniform(0.5, 1.5, n)
    cols = seed.sum(axis=0) * rng.uniform(0.5, 1.5, n)
    cols *= rows.sum() / cols.sum()

    m = AequilibraeMatrix()
    m.create_empty(zones=n, matrix_names=["seed"], memory_only=True)
    m.index[:] = np.arange(1, n + 1)
    m.matrices[:, :, 0] = seed
    m.computational_view(["seed"])
    vectors = pd.DataFrame({"rows": rows, "cols": cols}, index=m.index)

    def aequilibrae():
        f = Ipf(matrix=m, vectors=vectors, row_field="rows", column_field="cols", nan_as_zero=False)
        f.parameters["convergence level"] = a.tolerance
        f.parameters["max iterations"] = 10000
        f.fit()
        return np.array(f.output.matrix_view), f.report

    def ours():
        return urbanflow.ipf(seed, rows, cols, tolerance=a.tolerance)

    times = {}
    for name, run in [("aequilibrae", aequilibrae), ("urbanflow", ours)]:
        best = float("inf")
        for _ in range(a.repeat):
            t = time.perf_counter()
            out = run()
            best = min(best, time.perf_counter() - t)
        times[name] = (best, out)
    theirs, report = times["aequilibrae"][1]
    b = times["urbanflow"][1]
    diff = np.max(np.abs(b.matrix - theirs)) / np.max(theirs)
    its = [r for r in report if "," in r and "Iteration" not in r and "Total" not in r]
    print(f"{n} x {n}, tolerance {a.tolerance:g}: AequilibraE {times['aequilibrae'][0]:.3f} s ({its[-1].strip()}), "
          f"urbanflow {times['urbanflow'][0]:.3f} s ({b.iterations} iterations, gap {b.gap:.2e}), "
          f"ratio {times['aequilibrae'][0] / times['urbanflow'][0]:.1f}x, largest difference {diff:.1e} of the largest cell")


if __name__ == "__main__":
    main()
