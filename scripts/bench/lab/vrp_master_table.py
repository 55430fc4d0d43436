#!/usr/bin/env python3
"""Table of scripts/bench/lab/vrp_master.sh's output: per instance, both masters side by side."""
import json
import sys

rows = {}
for line in open(sys.argv[1]):
    rec = json.loads(line)
    run = rec["run"]
    if run is None:
        continue
    rows.setdefault(run["instance"], {})[rec["master"]] = run

print("| instance | bound (simplex) | bound (interior point) | rounds s / ip | columns s / ip | pricing s s / ip | LP s s / ip | pivots | whole s s / ip | speed-up | gap % |")
print("|---|---:|---:|---|---|---|---|---:|---|---:|---:|")
tot = {"simplex": [0.0, 0.0, 0.0], "interior-point": [0.0, 0.0, 0.0]}
gaps = {"simplex": [], "interior-point": []}
for name in sorted(rows):
    r = rows[name]
    s, i = r.get("simplex"), r.get("interior-point")
    if not s or not i:
        continue
    for m, x in (("simplex", s), ("interior-point", i)):
        tot[m][0] += x["solve_s"]
        tot[m][1] += x["pricing_s"]
        tot[m][2] += x["lp_s"]
        gaps[m].append(x["gap_percent"])
    conv = lambda x: "" if x["converged"] else " (unconv.)"
    print(f"| {name} | {s['lower_bound']:.1f}{conv(s)} | {i['lower_bound']:.1f}{conv(i)} | {s['iterations']} / {i['iterations']} | {s['columns']} / {i['columns']} "
          f"| {s['pricing_s']:.1f} / {i['pricing_s']:.1f} | {s['lp_s']:.2f} / {i['lp_s']:.1f} | {s['lp_pivots']} | {s['solve_s']:.1f} / {i['solve_s']:.1f} "
          f"| {i['solve_s'] / s['solve_s']:.2f}× | {s['gap_percent']:.2f} |")
for m in tot:
    n = len(gaps[m])
    print(f"{m}: {n} instances, whole {tot[m][0]:.1f} s, pricing {tot[m][1]:.1f} s, LP {tot[m][2]:.1f} s, mean gap {sum(gaps[m]) / max(n, 1):.3f} %")
