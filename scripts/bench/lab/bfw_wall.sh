#!/bin/bash
# BFW to 1e-4 on Philadelphia as a user runs it (`assign --net ... --gap 1e-4 --backend gpu|cpu
# --json`), three rounds: the whole process's wall time beside the JSON's file reading (load_s), device
# and hierarchy setup (setup_s), solve_s and its all-or-nothing part. From the repository root with
# .gpu/wall.tar.xz (stripped assign) and .gpu/data:  bash scripts/bench/lab/bfw_wall.sh
mkdir -p .gpu/w && tar xJf .gpu/wall.tar.xz -C .gpu/w
P=.gpu/data/tntp/Philadelphia/Philadelphia_net.tntp.xz
nvidia-smi -L
for rep in 1 2 3; do for backend in gpu cpu; do
  python3 - "$backend" "$rep" <<PY
import json, subprocess, sys, time
t = time.time()
out = subprocess.run([".gpu/w/assign", "--net", "$P", "--gap", "1e-4", "--backend", sys.argv[1], "--json"],
                     capture_output=True, text=True).stdout
wall = time.time() - t
d = json.loads(out)
print(f"r{sys.argv[2]} {sys.argv[1]} it {d['iterations']} gap {d['relative_gap']:.3e} wall {wall:.3f} "
      f"load_s {d['load_s']:.3f} setup_s {d.get('setup_s', 0):.3f} solve_s {d['solve_s']:.3f} "
      f"aon_s {d['all_or_nothing_s']:.3f} | {d['backend']}")
PY
done; done
