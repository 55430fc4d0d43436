#!/usr/bin/env python3
"""OMX at 5,000 zones: openmatrix (PyTables) against `urbanflow matrix ipf` reading and writing OMX, the
same file in one run.

    python -m venv /tmp/omxvenv && /tmp/omxvenv/bin/pip install openmatrix numpy
    cargo build --release -p urbanflow-cli --features omx
    /tmp/omxvenv/bin/python scripts/bench/omx_vs_openmatrix.py target/release/urbanflow [ZONES]

Prints one JSON object: openmatrix's write and read of the seed (best of 3), and the command's
`read_s` (the seed OMX read, checked, and put in the totals' order), `solve_s` (IPF) and `write_s` (the
result written as OMX), and openmatrix's read of that result (checked equal to its own Furness to 1e-9)."""

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import openmatrix as omx


def best(f, runs=3):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def main(exe, n):
    rng = np.random.default_rng(1)
    work = tempfile.mkdtemp()
    seed = rng.uniform(0.0, 100.0, (n, n))
    zones = np.arange(1, n + 1, dtype=np.int64)
    rows = seed.sum(axis=1) * rng.uniform(0.8, 1.2, n)
    cols = seed.sum(axis=0) * rng.uniform(0.8, 1.2, n)
    cols *= rows.sum() / cols.sum()
    for name, t in (("rows.csv", rows), ("cols.csv", cols)):
        with open(os.path.join(work, name), "w") as f:
            f.write("zone,total\n" + "".join(f"{z},{float(v)!r}\n" for z, v in zip(zones, t)))
    path = os.path.join(work, "seed.omx")

    def write():
        with omx.open_file(path, "w") as f:
            f["seed"] = seed
            f.create_mapping("zone", zones)

    def read(p, core):
        with omx.open_file(p) as f:
            return np.array(f[core])

    w, _ = best(write)
    r, back = best(lambda: read(path, "seed"))
    assert np.array_equal(back, seed)
    out = os.path.join(work, "trips.omx")
    runs = []
    for _ in range(3):
        done = subprocess.run([exe, "matrix", "ipf", "--seed", path, "--rows", os.path.join(work, "rows.csv"),
                               "--cols", os.path.join(work, "cols.csv"), "--tolerance", "1e-9", "--out", out,
                               "--json"], capture_output=True, text=True, check=True)
        runs.append(json.loads(done.stdout))
    ours = min(runs, key=lambda j: j["seconds"])
    r2, trips = best(lambda: read(out, "trips"))
    assert abs(trips.sum(axis=1) / rows - 1).max() < 1e-8
    print(json.dumps({
        "zones": n, "file_mb": os.path.getsize(path) / 1e6, "result_mb": os.path.getsize(out) / 1e6,
        "openmatrix_write_s": w, "openmatrix_read_s": r, "openmatrix_read_result_s": r2,
        "urbanflow_read_s": ours["read_s"], "urbanflow_solve_s": ours["solve_s"],
        "urbanflow_write_s": ours["write_s"], "urbanflow_seconds": ours["seconds"],
        "ipf_iterations": ours["iterations"],
    }, indent=1))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5000)
