#!/usr/bin/env python3
"""Synthetic link counts for matrix estimation studies: assign a known ("true") matrix to a tight gap
and count the equilibrium flow on a seeded random sample of links that carry flow.

    python scripts/odme_synthetic_counts.py --net ../shared/data/tntp/Philadelphia/Philadelphia_net.tntp.xz \
        --counts 2000 --seed 1 --out /tmp/philadelphia_counts.csv

The counts file (link,from,to,count: the 1-based link number, its nodes' ids) then goes to `odme --counts`, with the same
trips file perturbed as the seed (`odme --perturb 0.5`): an estimate that reproduces the counts
recovers what the perturbation hid. Needs the urbanflow Python package (crates/urbanflow-py)."""

import argparse
import sys
import time

import numpy as np

import urbanflow


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--net", required=True, help="TNTP _net file")
    p.add_argument("--trips", help="TNTP _trips file (default: beside the network)")
    p.add_argument("--toll-factor", type=float, default=0.0)
    p.add_argument("--distance-factor", type=float, default=0.0)
    p.add_argument("--counts", type=int, required=True, help="how many links to count")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--gap", type=float, default=1e-6, help="relative gap of the true equilibrium (Algorithm B)")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    net = urbanflow.Network.from_tntp(a.net, toll_factor=a.toll_factor, distance_factor=a.distance_factor)
    trips = a.trips or a.net.replace("_net.tntp", "_trips.tntp")
    start = time.perf_counter()
    r = urbanflow.assign(net, trips, algorithm="b", gap=a.gap, backend="cpu", as_frame=False)
    links = r.links
    carrying = np.flatnonzero(r.flows > 0)
    if a.counts > len(carrying):
        print(f"only {len(carrying)} links carry flow: cannot count {a.counts}", file=sys.stderr)
        return 1
    chosen = np.sort(np.random.default_rng(a.seed).choice(carrying, a.counts, replace=False))
    with open(a.out, "w") as f:
        # Links by number (1-based, file order): a pair of nodes may have parallel links.
        f.write("link,from,to,count\n")
        for k in chosen:
            f.write(f"{k + 1},{links['from'][k]},{links['to'][k]},{float(r.flows[k])!r}\n")
    print(f"{a.counts} counts of {len(r.flows)} links written to {a.out} "
          f"(equilibrium at gap {r.relative_gap:.2e} in {time.perf_counter() - start:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
