#!/usr/bin/env python3
"""A seeded grid city for transit assignment (issue 58): stops on a square grid, bidirectional lines
along rows, columns and L-shaped routes, walking links between neighbouring stops, every stop a zone,
demand between a share of all stop pairs. Writes `edges.csv` (AequilibraE's edge schema:
link_id,tail,head,trav_time,freq,link_type,line_id,stop_id), `zones.csv` and `demand.csv` into --out.

    python scripts/transit_grid_city.py --side 30 --lines 120 --out /tmp/city30     # the issue's city
    python scripts/transit_grid_city.py --side 6 --lines 8 --pair-share 0.5 --out fixtures/city6

Times in seconds, frequencies in 1/s (1/headway: the wait at a stop is the combined headway, as in
AequilibraE's graphs). Vertices: stops 0..side²-1, then one vertex per (line, stop) the line serves.
Boarding takes 10 s and alighting 5 s, and every walking link and ride between stops has its own time
(within ±10 % of spacing / speed): no two strategies cost the same, so every optimal-strategies solver
must return the same volumes (on a grid of equal times, equally good routes would be split however
each solver breaks its ties, and zero-time edges make alighting and boarding again cost a label's
rounding error).
Only the standard library and the seed decide the output (same files on every machine).
"""

import argparse
import csv
import os
import random


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--side", type=int, default=30, help="stops per side of the grid")
    p.add_argument("--spacing", type=float, default=400.0, help="metres between neighbouring stops")
    p.add_argument("--lines", type=int, default=120, help="bidirectional lines (each gives two patterns)")
    p.add_argument("--min-stops", type=int, default=8)
    p.add_argument("--max-stops", type=int, default=20)
    p.add_argument("--pair-share", type=float, default=0.5, help="share of ordered stop pairs with demand")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    rng = random.Random(a.seed)
    n = a.side * a.side
    bus_speed = 8.0  # m/s on board
    walk_speed = 1.2
    stop = lambda r, c: r * a.side + c
    edges = []  # (tail, head, time, freq, type, line, stop)
    next_vertex = n
    for line in range(a.lines):
        k = rng.randint(a.min_stops, min(a.max_stops, 2 * a.side - 1))
        # A route: start anywhere, go straight, maybe turn once (an L), staying on the grid.
        while True:
            r, c = rng.randrange(a.side), rng.randrange(a.side)
            dirs = [(0, 1), (0, -1), (1, 0), (-1, 0)]
            d1 = rng.choice(dirs)
            d2 = rng.choice([d for d in dirs if d[0] * d1[0] + d[1] * d1[1] == 0])
            turn = rng.randint(1, k - 1)
            path = [(r, c)]
            for i in range(1, k):
                dr, dc = d1 if i <= turn else d2
                r, c = r + dr, c + dc
                if not (0 <= r < a.side and 0 <= c < a.side):
                    break
                path.append((r, c))
            if len(path) == k:
                break
        headway = rng.randint(3, 20) * 60.0
        for direction, stops in (("a", path), ("b", path[::-1])):
            name = f"L{line + 1}{direction}"
            verts = []
            for rc in stops:
                s = stop(*rc)
                v = next_vertex
                next_vertex += 1
                verts.append(v)
                edges.append((s, v, 10.0, 1.0 / headway, "boarding", name, s))
                edges.append((v, s, 5.0, float("inf"), "alighting", name, s))
            for u, v in zip(verts, verts[1:]):
                ride = a.spacing / bus_speed * rng.uniform(0.9, 1.1)
                edges.append((u, v, ride, float("inf"), "on-board", name, ""))
    for r in range(a.side):
        for c in range(a.side):
            for dr, dc in ((0, 1), (1, 0)):
                if r + dr < a.side and c + dc < a.side:
                    s, t = stop(r, c), stop(r + dr, c + dc)
                    w = a.spacing / walk_speed * rng.uniform(0.9, 1.1)
                    edges.append((s, t, w, float("inf"), "walking", "", ""))
                    edges.append((t, s, w, float("inf"), "walking", "", ""))
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "edges.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["link_id", "tail", "head", "trav_time", "freq", "link_type", "line_id", "stop_id"])
        for i, (t, h, c, fr, ty, line, s) in enumerate(edges):
            w.writerow([i + 1, t, h, repr(c), "inf" if fr == float("inf") else repr(fr), ty, line, s])
    with open(os.path.join(a.out, "zones.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["zone_id", "origin_vertex", "destination_vertex"])
        for s in range(n):
            w.writerow([s + 1, s, s])
    pairs = 0
    with open(os.path.join(a.out, "demand.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["origin", "destination", "demand"])
        for o in range(n):
            for d in range(n):
                if o != d and rng.random() < a.pair_share:
                    w.writerow([o + 1, d + 1, rng.randint(1, 20)])
                    pairs += 1
    print(f"{a.out}: {n} stops, {next_vertex} vertices, {len(edges)} edges, {pairs} OD pairs")


if __name__ == "__main__":
    main()
