#!/usr/bin/env python3
"""Zones on a grid over a GTFS feed's stations, and seeded demand between them: the city-size case of
transit assignment (issue 58), e.g. the NYC subway feed in shared/data/transit.

    python3 scripts/transit_city_zones.py ../shared/data/transit/nyc_subway_gtfs.zip --side 40 \
        --share 0.1 --seed 7 --out /tmp/nyc

writes OUT_zones.csv (`zone_id,lat,lon`: a side × side grid over the stations' bounding box) and
OUT_demand.csv (`origin,destination,demand`: a seeded `share` of all ordered pairs of distinct zones, 1–10
trips each), for `urbanflow transit-assign --gtfs FEED --zones OUT_zones.csv --demand OUT_demand.csv`.
"""
import argparse
import csv
import io
import random
import zipfile
from pathlib import Path


def stations(feed: Path):
    if feed.is_dir():
        text = (feed / "stops.txt").read_text(encoding="utf-8-sig")
    else:
        with zipfile.ZipFile(feed) as z:
            name = next(n for n in z.namelist() if n.endswith("stops.txt"))
            text = z.read(name).decode("utf-8-sig")
    rows = csv.DictReader(io.StringIO(text))
    return [(float(r["stop_lat"]), float(r["stop_lon"])) for r in rows if r.get("stop_lat")]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("feed", type=Path)
    ap.add_argument("--side", type=int, default=40)
    ap.add_argument("--share", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    pts = stations(a.feed)
    lat0, lat1 = min(p[0] for p in pts), max(p[0] for p in pts)
    lon0, lon1 = min(p[1] for p in pts), max(p[1] for p in pts)
    n = a.side
    with open(f"{a.out}_zones.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["zone_id", "lat", "lon"])
        for i in range(n):
            for j in range(n):
                w.writerow([i * n + j + 1, lat0 + (lat1 - lat0) * (i + 0.5) / n, lon0 + (lon1 - lon0) * (j + 0.5) / n])
    rng = random.Random(a.seed)
    pairs = trips = 0
    with open(f"{a.out}_demand.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["origin", "destination", "demand"])
        for o in range(1, n * n + 1):
            for d in range(1, n * n + 1):
                if o != d and rng.random() < a.share:
                    t = rng.randint(1, 10)
                    w.writerow([o, d, t])
                    pairs += 1
                    trips += t
    print(f"{n * n} zones, {pairs} pairs, {trips} trips: {a.out}_zones.csv, {a.out}_demand.csv")


if __name__ == "__main__":
    main()
