#!/usr/bin/env python3
"""Prints the tap bench's `--aon` JSON lines (stdin) one line each, PhastTimes in ms. Argument: a label."""
import json, re, sys
label = sys.argv[1] if len(sys.argv) > 1 else ""
for line in sys.stdin:
    if '"aon"' not in line:
        continue
    d = json.loads(line)
    t = {k: float(v) * 1000 for k, v in re.findall(r"(\w+)_s: ([0-9.e-]+)", d["gpu_phast_times"])}
    parts = " ".join(f"{k} {v:.2f}" for k, v in t.items())
    print(f"{label} {d['aon']:17s} cpu {d['cpu_s'] * 1000:6.1f} ms gpu_phast {d['gpu_phast_s'] * 1000:5.1f} ms "
          f"({d['gpu_phast_over_cpu']:.2f}x) split {d.get('gpu_phast_split_s', float('nan')) * 1000:5.1f} ms cpu_cch {d['cpu_cch_s'] * 1000:5.1f} ms loads_equal {d['cpu_cch_loads_equal_gpu_phast']} | {parts}", flush=True)
