#!/usr/bin/env bash
# OpenStreetMap import side by side: urbanflow's `graph_core::osm::import` (routable graph, largest
# strongly connected component, R-tree) against pyrosm's `get_network` (nodes and edges GeoDataFrames,
# no connectivity filter), same file, same machine, median of 5 each.
#   PYTHON=/path/to/venv/bin/python benches/osm_vs_pyrosm.sh [file.osm.pbf]
# pyrosm: `pip install pyrosm` (0.25.0 measured).
set -euo pipefail
cd "$(dirname "$0")/.."
PBF=$(realpath "${1:-../shared/data/osm/porto/porto_portugal.osm.pbf}")
PYTHON=${PYTHON:-python3}
cargo bench --bench osm -- --pbf "$PBF" --reps 5
"$PYTHON" - "$PBF" <<'PY'
import json, statistics, sys, time
import pyrosm
pbf = sys.argv[1]
for kind, ours in (("driving", "car"), ("cycling", "bike"), ("walking", "walk")):
    times = []
    for _ in range(5):
        t = time.perf_counter()
        osm = pyrosm.OSM(pbf)
        nodes, edges = osm.get_network(network_type=kind, nodes=True)
        times.append(time.perf_counter() - t)
    print(json.dumps({"peer": f"pyrosm {pyrosm.__version__}", "network_type": kind, "profile": ours,
                      "median_s": round(statistics.median(times), 4), "min_s": round(min(times), 4),
                      "nodes": len(nodes), "edges": len(edges)}))
PY
