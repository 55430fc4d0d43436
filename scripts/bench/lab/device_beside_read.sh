#!/bin/bash
# The device started while the graph is read (examples/common.rs read_beside_devices): `ksp` and
# `many_to_all` on NY with --backend gpu, as a user runs them, for two builds alternated (before:
# device first, then the reading; after: both at once). Whole-process wall time from outside beside
# the JSON's load_s, setup_s and solve_s; one warm-up run of each build first (the driver compiles the
# pipelines once per binary), then three rounds. From the repository root with .gpu/beside.tar.xz
# (stripped ksp_before, ksp_after, many_to_all_before, many_to_all_after) and .gpu/data/NY.gr.xz:
#   bash scripts/bench/lab/device_beside_read.sh
mkdir -p .gpu/bs && tar xJf .gpu/beside.tar.xz -C .gpu/bs
G=.gpu/data/NY.gr.xz
nvidia-smi -L
run() {
  python3 - "$@" <<'PY'
import json, subprocess, sys, time
tag, example, build, *args = sys.argv[1:]
t = time.time()
p = subprocess.run([f".gpu/bs/{example}_{build}"] + args + ["--json"], capture_output=True, text=True)
wall = time.time() - t
try:
    d = json.loads(p.stdout)
except ValueError:
    print(tag, example, build, "no JSON:", p.stdout[-300:], p.stderr[-300:])
    sys.exit()
print(f"{tag} {example:12} {build:6} wall {wall:.3f} load_s {d.get('load_s', 0):.3f} "
      f"setup_s {d.get('setup_s', 0):.3f} solve_s {d.get('solve_s', 0):.3f} | {d.get('backend', d.get('device', ''))}")
PY
}
for b in before after; do
  run warmup ksp $b --graph $G --pairs 1000 --k 10 --backend gpu
  run warmup many_to_all $b --graph $G --sources 2000 --backend gpu
done
for rep in 1 2 3; do for b in before after; do
  run r$rep ksp $b --graph $G --pairs 1000 --k 10 --backend gpu
  run r$rep many_to_all $b --graph $G --sources 2000 --backend gpu
done; done
