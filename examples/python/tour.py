"""A tour of urbanflow from Python, on the data bundled with the repository (no notebook needed):

    pip install ./crates/urbanflow-py pandas
    python examples/python/tour.py            # prints what each step computed

1. a travel-time matrix and shortest paths on a road graph (DIMACS),
2. traffic assignment with two user classes and a turn ban, with progress, select-link and skims,
3. a public-transport journey on a GTFS feed.

Every call releases the GIL and answers Ctrl-C; ``backend="gpu"`` runs the GPU paths where one exists.
"""

import pathlib
import sys
import tempfile
import time

import numpy as np

import urbanflow

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA = REPO / "examples" / "data"


def roads() -> None:
    g = urbanflow.Graph.from_file(DATA / "small-road.gr.gz")
    rng = np.random.default_rng(7)
    origins, destinations = rng.choice(g.n, 50, replace=False), rng.choice(g.n, 80, replace=False)
    t = time.perf_counter()
    m = g.distance_matrix(origins, destinations, dtype="float64")
    print(f"roads: {g} — a {m.shape[0]}×{m.shape[1]} matrix in {1e3 * (time.perf_counter() - t):.1f} ms, "
          f"mean {np.mean(m[np.isfinite(m)]):.0f} (the file's weight units)")
    dist, pred = g.distances(origins[:4], predecessors=True)
    print(f"roads: 4 trees with parents, {int((pred != urbanflow.UNREACHABLE).sum())} tree arcs")
    found = g.paths(int(origins[0]), destinations[:3])
    for target, p in zip(destinations[:3], found):
        if p is not None:
            print(f"roads: {origins[0]} → {target}: length {p[0]}, {len(p[1])} vertices "
                  f"(file ids {g.ids[p[1][0]]} … {g.ids[p[1][-1]]})")


def assignment() -> None:
    net = urbanflow.Network.from_tntp(DATA / "SiouxFalls_net.tntp")
    trips = urbanflow.Demand.from_tntp(DATA / "SiouxFalls_trips.tntp", net)
    with tempfile.TemporaryDirectory() as tmp:
        turns = pathlib.Path(tmp) / "turns.tntp"
        # No left turn from 1 → 3 onto 3 → 4, for anyone; trucks may not turn from 10 → 15 onto 15 → 19.
        turns.write_text("<NUMBER OF TURNS> 2\n<END OF METADATA>\n1,3 3,4 ban ;\n10,15 15,19 ban trucks ;\n")
        classes = [{"name": "cars", "share": 0.9}, {"name": "trucks", "pce": 2.5, "share": 0.1}]
        gaps = []
        r = urbanflow.assign(net, trips, classes=classes, turns=turns, gap=1e-4,
                             progress=lambda log: gaps.append(log["relative_gap"]))
    print(f"assignment: {r.iterations} iterations to gap {r.relative_gap:.2e} (first {gaps[0]:.2e}), "
          f"TSTT {r.tstt:,.0f}")
    busiest = r.links.sort_values("volume_capacity", ascending=False).head(3) if hasattr(r.links, "sort_values") \
        else None
    if busiest is not None:
        print("assignment: busiest links\n" + busiest[["from", "to", "flow_cars", "flow_trucks",
                                                         "volume_capacity"]].to_string(index=False))
    banned = [(f, n, t) for f, n, t in zip(r.turns["from_node"], r.turns["node"], r.turns["to_node"])
              if (f, n, t) == (1, 3, 4)]
    print(f"assignment: {len(r.turns['volume'])} turning movements at split junctions, banned 1→3→4 present: "
          f"{bool(banned)}")
    one = urbanflow.assign(net, trips, gap=1e-4, select_link=[(10, 15)])
    print(f"select-link 10→15: {len(one.select_link['flow'])} OD pairs use it, "
          f"{float(np.sum(one.select_link['flow'])):,.0f} trips in all")
    s = urbanflow.skims(net, one)
    print(f"skims: {s['time'].shape} zone-to-zone times, mean {np.mean(s['time']):.1f} min")


def transit() -> None:
    feed = REPO / "crates" / "algos-transit" / "tests" / "data" / "mini_gtfs"
    t = urbanflow.Transit.from_gtfs(feed, date="2025-04-08", places=[(48.8500, 2.3500), (48.8700, 2.3500)])
    j = t.journey(0, 1, "07:55")
    print(f"transit: {t}")
    if j is None:
        print("transit: no journey")
        return
    print(f"transit: leave 07:55, arrive after {j.duration / 60:.0f} min")
    legs = j.legs
    for k in range(len(legs["mode"])):
        d, a = int(legs["departure"][k]), int(legs["arrival"][k])
        route = legs["route"][k] if isinstance(legs["route"][k], str) else ""  # pandas shows None as NaN
        print(f"  {legs['mode'][k]:<8} {legs['from'][k]} {d // 3600:02}:{d // 60 % 60:02} → "
              f"{legs['to'][k]} {a // 3600:02}:{a // 60 % 60:02} {route}")


if __name__ == "__main__":
    roads()
    assignment()
    transit()
    sys.exit(0)
