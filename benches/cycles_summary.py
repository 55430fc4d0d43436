"""Summarises benches/cycles_backends.sh output: median solve seconds per label (setup = starting the GPU)."""
import collections
import json
import statistics
import sys

rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    label, _, js = line.strip().partition(" {")
    if not js:
        print("FAILED", line.strip())
        continue
    d = json.loads("{" + js)
    rows[label].append((d["solve_s"], d["setup_s"], d["cycles"], d["backend"]))
for label, runs in rows.items():
    med = statistics.median(r[0] for r in runs)
    setup = statistics.median(r[1] for r in runs)
    print(f"{label:26s} {runs[0][2]:>11} cycles  median {med:.4f} s  setup {setup:.3f} s  {runs[0][3]}")
