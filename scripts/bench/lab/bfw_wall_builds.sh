#!/bin/bash
# BFW to 1e-4 on Philadelphia as a user runs it, for two builds alternated (`assign --net ... --gap 1e-4
# --backend gpu|cpu --json`): the whole process's wall time beside the JSON's file reading (load_s),
# device and hierarchy setup (setup_s), solve_s, its all-or-nothing part, the rest of an iteration and
# the time before the first loading. One warm-up run of each build first (the hierarchy's order and the parsed trips
# are cached on disk by the first run on a machine), then three rounds; `after` runs twice, reading the
# cached trips and with --no-cache (parsing the text). From the repository root with .gpu/bfw2.tar.xz
# (stripped assign_before, assign_after) and .gpu/data:  bash scripts/bench/lab/bfw_wall_builds.sh
# BACKENDS="auto" (default "gpu cpu") picks the backends compared.
mkdir -p .gpu/b2 && tar xJf .gpu/bfw2.tar.xz -C .gpu/b2
P=.gpu/data/tntp/Philadelphia/Philadelphia_net.tntp.xz
nvidia-smi -L
run() {
  python3 - "$1" "$2" "$3" $4 <<PY
import json, subprocess, sys, time
build, backend, tag = sys.argv[1:4]
extra = sys.argv[4:]
t = time.time()
out = subprocess.run([f".gpu/b2/assign_{build}", "--net", "$P", "--gap", "1e-4", "--backend", backend, "--json"]
                     + extra, capture_output=True, text=True).stdout
wall = time.time() - t
d = json.loads(out); h = d["history"]; n = len(h)
rest = sum(h[i]["seconds"] - h[i - 1]["seconds"] - h[i]["all_or_nothing_s"] for i in range(1, n)) / (n - 1)
build += "".join(extra) + (" cached" if d.get("trips_cached") else "")
print(f"{tag} {build:20} {backend} it {n} gap {d['relative_gap']:.6e} wall {wall:.3f} load_s {d['load_s']:.3f} "
      f"setup_s {d.get('setup_s', 0):.3f} solve_s {d['solve_s']:.3f} aon_s {d['all_or_nothing_s']:.3f} "
      f"rest_ms/it {1e3 * rest:.2f} before_first_s {h[0]['seconds'] - h[0]['all_or_nothing_s']:.3f} | {d['backend']}")
PY
}
BACKENDS=${BACKENDS:-gpu cpu}
run before ${BACKENDS%% *} warmup
run after ${BACKENDS%% *} warmup
for rep in 1 2 3; do for backend in $BACKENDS; do
  run before $backend r$rep
  run after $backend r$rep
  run after $backend r$rep --no-cache
done; done
