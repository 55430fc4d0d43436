"""Harmonic closeness on the Porto walking network: cityseer 5.8's `node_centrality_shortest` (closeness
only, distance thresholds) against `urbanflow.closeness` on the same graph, side by side in one run,
compared value by value. Both get the same undirected graph: the OSM walk graph's vertices projected to
metres (equirectangular about the extract's centre), each street segment once, its length the straight
line between its ends (cityseer measures its LineString; urbanflow gets the length in millimetres,
rounded). Usage: python scripts/bench/closeness_vs_cityseer.py [THRESHOLDS] (a venv with cityseer 5.8 and
urbanflow's Python package)."""
import math, os, sys, time

import networkx as nx
import numpy as np
from shapely.geometry import LineString

import urbanflow
from cityseer.metrics import networks
from cityseer.tools import io

thresholds = [int(t) for t in (sys.argv[1] if len(sys.argv) > 1 else "400,800").split(",")]
data = os.environ.get("URBANFLOW_DATA", os.path.join(os.path.dirname(__file__), "../../../shared/data"))
osm = urbanflow.Graph.from_osm(os.path.join(data, "osm/porto/porto_portugal.osm.pbf"), "walk")
coords = np.asarray(osm.coords)
lat0, lon0 = coords[:, 0].mean(), coords[:, 1].mean()
R = 6_371_000.0
x = R * np.radians(coords[:, 1] - lon0) * math.cos(math.radians(lat0))
y = R * np.radians(coords[:, 0] - lat0)
g = osm.graph
t, h = np.asarray(g.tails), np.asarray(g.heads)
# The city centre (cityseer took 1,367 s for the whole extract at 400 and 800 m on 2 busy cores):
# vertices within the box, renumbered; BBOX=all keeps the extract.
box = os.environ.get("BBOX", "41.13,-8.66,41.19,-8.56")
if box != "all":
    la0, lo0, la1, lo1 = map(float, box.split(","))
    keep = (coords[:, 0] >= la0) & (coords[:, 0] <= la1) & (coords[:, 1] >= lo0) & (coords[:, 1] <= lo1)
    new_id = np.full(len(coords), -1)
    new_id[keep] = np.arange(keep.sum())
    inside = keep[t] & keep[h]
    t, h = new_id[t[inside]], new_id[h[inside]]
    x, y, coords = x[keep], y[keep], coords[keep]
pairs = {(min(a, b), max(a, b)) for a, b in zip(t.tolist(), h.tolist()) if a != b}
# Segments shorter than 1 cm (vertices at one point) are dropped from both graphs: cityseer refuses them.
pairs = sorted(p for p in pairs if math.hypot(x[p[0]] - x[p[1]], y[p[0]] - y[p[1]]) >= 0.01)
n = len(coords)
print(f"Porto walk graph ({box}): {n} vertices, {len(pairs)} street segments; thresholds {thresholds} m")

G = nx.MultiGraph()
# A projected CRS for cityseer's bookkeeping (the coordinates are our local projection in metres).
G.graph["crs"] = "EPSG:32629"
for v in range(n):
    G.add_node(str(v), x=float(x[v]), y=float(y[v]))
for a, b in pairs:
    G.add_edge(str(a), str(b), geom=LineString([(x[a], y[a]), (x[b], y[b])]))
t0 = time.perf_counter()
nodes_gdf, _, structure = io.network_structure_from_nx(G)
cs_setup = time.perf_counter() - t0
t0 = time.perf_counter()
nodes_gdf = networks.node_centrality_shortest(structure, nodes_gdf, distances=thresholds,
                                              compute_closeness=True, compute_betweenness=False)
cs_solve = time.perf_counter() - t0
print(f"cityseer 5.8: structure {cs_setup:.2f} s, closeness {cs_solve:.2f} s")

mm = [round(math.hypot(x[a] - x[b], y[a] - y[b]) * 1000) for a, b in pairs]
tails = np.array([p[0] for p in pairs] + [p[1] for p in pairs], dtype=np.int64)
heads = np.array([p[1] for p in pairs] + [p[0] for p in pairs], dtype=np.int64)
ug = urbanflow.Graph.from_edges(tails, heads, np.array(mm + mm, dtype=np.int64), n=n)
t0 = time.perf_counter()
mine_all = urbanflow.closeness(ug, cutoff=[d * 1000 for d in thresholds]) * 1000.0  # 1/mm to 1/m
ours_solve = time.perf_counter() - t0
for k, d in enumerate(thresholds):
    mine = mine_all[:, k]
    col = [c for c in nodes_gdf.columns if c.startswith("cc_harmonic") and c.endswith(f"_{d}")]
    theirs = nodes_gdf[col[0]].reindex([str(v) for v in range(n)]).to_numpy()
    rel = np.abs(mine - theirs) / np.maximum(np.abs(theirs), 1e-12)
    print(f"  {d} m: max relative difference {np.nanmax(rel):.3g}, median {np.nanmedian(rel):.3g}, "
          f"vertices over 1e-6: {int((rel > 1e-6).sum())}")
print(f"urbanflow.closeness: {ours_solve:.2f} s for the {len(thresholds)} thresholds (one call)")
print(f"cityseer / urbanflow: {cs_solve / ours_solve:.1f}x (closeness calls); "
      f"{(cs_setup + cs_solve) / ours_solve:.1f}x with cityseer's structure")
