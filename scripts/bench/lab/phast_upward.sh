#!/bin/bash
# The GPU PHAST upward searches on the device (default) against the CPU's (URBANFLOW_PHAST_UPWARD=cpu),
# one binary, alternated: the tap bench's --aon 5 (ms per all-or-nothing call, three rounds), BFW to
# 1e-4 on Philadelphia on the GPU (two rounds), and many_to_all NY PHAST on the GPU (two rounds). From
# the repository root with .gpu/up.tar.xz (stripped tap, assign, many_to_all) and .gpu/data:
#   bash scripts/bench/lab/phast_upward.sh
mkdir -p .gpu/u && tar xJf .gpu/up.tar.xz -C .gpu/u
export URBANFLOW_DATA=.gpu/data URBANFLOW_CACHE_DIR=$(mktemp -d)
nvidia-smi -L
run() { if [ "$1" = cpu ]; then URBANFLOW_PHAST_UPWARD=cpu "${@:2}"; else "${@:2}"; fi; }
for rep in 1 2 3; do for v in cpu device; do
  run $v .gpu/u/tap --aon 5 --networks Philadelphia,Austin,chicago-regional 2>/dev/null | python3 scripts/bench/lab/aon_times.py "upward_$v r$rep"
done; done
P=.gpu/data/tntp/Philadelphia/Philadelphia_net.tntp.xz
for rep in 1 2; do for v in cpu device; do
  run $v .gpu/u/assign --net $P --gap 1e-4 --backend gpu --json 2>/dev/null | python3 -c "
import json, sys
d = json.load(sys.stdin); h = d['history']; n = len(h)
rest = sum(h[i]['seconds'] - h[i - 1]['seconds'] - h[i]['all_or_nothing_s'] for i in range(1, n))
print(f\"assign upward_$v r$rep it {n} gap {d['relative_gap']:.3e} solve_s {d['solve_s']:.3f} setup_s {d.get('setup_s', 0):.3f} aon_ms/it {1e3 * d['all_or_nothing_s'] / n:.2f} rest_ms/it {1e3 * rest / (n - 1):.2f} before_first_s {h[0]['seconds'] - h[0]['all_or_nothing_s']:.3f} objective {d['objective']:.9e}\")"
done; done
.gpu/u/many_to_all --graph .gpu/data/NY.gr.xz --sources 1024 --method phast --backend gpu --json > /dev/null 2>&1
for rep in 1 2; do for v in cpu device; do for s in 16384 60000; do
  run $v .gpu/u/many_to_all --graph .gpu/data/NY.gr.xz --sources $s --method phast --backend gpu --json 2>/dev/null | python3 -c "
import json, sys
d = json.loads(sys.stdin.read().strip().splitlines()[-1])
print(f\"many_to_all upward_$v r$rep NY $s solve_s {d['solve_s']:.3f} pre {d['preprocess_s']:.3f} checksum {d['checksum']} method {d['method']}\")"
done; done; done
