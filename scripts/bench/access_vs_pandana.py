"""Accessibility on bremen_dist (40,461 vertices, metres): pandana 0.8's `aggregate` (sum within three
distances, flat decay, every vertex a source) against `urbanflow access`, side by side in one run, and
cityseer 5.8's harmonic closeness against `urbanflow access --closeness`. Results are compared value by
value. Usage: python scripts/bench/access_vs_pandana.py URBANFLOW_BINARY (a venv with pandana 0.8,
cityseer 5.8, numpy, pandas)."""
import gzip, json, subprocess, sys, time, os, tempfile
import numpy as np, pandas as pd

binary = sys.argv[1]
data = os.environ.get("URBANFLOW_DATA", os.path.join(os.path.dirname(__file__), "../../../shared/data"))
path = os.path.join(data, "road/osm-small/bremen_dist.gr.gz")
u, v, w = [], [], []
with gzip.open(path, "rt") as f:
    for line in f:
        if line.startswith("p "):
            n = int(line.split()[2])
        elif line.startswith("a "):
            _, a, b, c = line.split()
            u.append(int(a)); v.append(int(b)); w.append(float(c))
rng = np.random.default_rng(7)
weights = rng.integers(0, 100, n).astype(float)
tmp = tempfile.mkdtemp()
pts = os.path.join(tmp, "points.csv")
pd.DataFrame({"vertex": np.arange(1, n + 1), "weight": weights}).to_csv(pts, index=False)
cutoffs = [500, 1500, 4000]

import pandana
t = time.perf_counter()
nodes = pd.Index(np.arange(1, n + 1))
net = pandana.Network(pd.Series(np.zeros(n), index=nodes), pd.Series(np.zeros(n), index=nodes),
                      pd.Series(u), pd.Series(v), pd.DataFrame({"w": w}), twoway=False)
setup = time.perf_counter() - t
net.set(pd.Series(np.arange(1, n + 1)), variable=pd.Series(weights), name="jobs")
t = time.perf_counter()
pandana_sums = [net.aggregate(c, type="sum", decay="flat", name="jobs") for c in cutoffs]
pandana_s = time.perf_counter() - t
print(f"pandana 0.8: network {setup:.2f} s, aggregate x3 {pandana_s:.2f} s")

out = os.path.join(tmp, "ours.csv")
t = time.perf_counter()
r = subprocess.run([binary, "access", "--graph", path, "--points", pts, "--cutoffs", ",".join(map(str, cutoffs)),
                    "--backend", "cpu", "--out", out, "--json"], capture_output=True, text=True, check=True)
ours_wall = time.perf_counter() - t
j = json.loads(r.stdout)
print(f"urbanflow access: command {ours_wall:.2f} s (load {j['load_s']:.2f}, preprocess {j['preprocess_s']:.2f}, "
      f"solve {j['solve_s']:.2f}; engine {j['engine']}: {j['why']})")
ours = pd.read_csv(out)
worst = 0.0
for k, c in enumerate(cutoffs):
    mine = ours[ours.cutoff == c].set_index("vertex")["sum"].reindex(nodes).to_numpy()
    theirs = pandana_sums[k].reindex(nodes).to_numpy()
    rel = np.abs(mine - theirs) / np.maximum(np.abs(theirs), 1)
    worst = max(worst, rel.max())
    print(f"  cutoff {c}: max relative difference {rel.max():.3g}, differing vertices {(rel > 1e-9).sum()}")
print(f"pandana / urbanflow (aggregation, both after their preparation): {pandana_s / j['solve_s']:.1f}x; "
      f"end to end (pandana network + aggregate against our command): {(setup + pandana_s) / ours_wall:.1f}x")

if os.environ.get("EXPLAIN"):
    import scipy.sparse as sp
    from scipy.sparse.csgraph import dijkstra
    # Parallel arcs: keep the lightest (csr_matrix would add them up).
    best = {}
    for a, b, c in zip(u, v, w):
        if a != b and (a, b) not in best or (a != b and c < best[(a, b)]):
            best[(a, b)] = c
    keys = list(best)
    g = sp.csr_matrix(([best[k] for k in keys], ([k[0] - 1 for k in keys], [k[1] - 1 for k in keys])), shape=(n, n))
    c = cutoffs[2]
    mine = ours[ours.cutoff == c].set_index("vertex")["sum"].reindex(nodes).to_numpy()
    theirs = pandana_sums[2].reindex(nodes).to_numpy()
    bad = np.nonzero(np.abs(mine - theirs) > 1e-9 * np.maximum(theirs, 1))[0][:5]
    d = dijkstra(g, indices=bad)
    for i, s in enumerate(bad):
        le = weights[d[i] <= c].sum(); lt = weights[d[i] < c].sum()
        print(f"vertex {s + 1}: ours {mine[s]}, pandana {theirs[s]}, scipy <= {le}, < {lt}")
