#!/bin/bash
# many_to_all PHAST on the GPU with the upward searches on the device (default) against the CPU's
# (URBANFLOW_PHAST_UPWARD=cpu), one binary, alternated, two rounds: NY 16,384 and 60,000 sources, FLA
# 8,192 (the order cached by a warm-up run each). From the repository root with .gpu/m2a.tar.xz
# (stripped many_to_all) and .gpu/data:  bash scripts/bench/lab/phast_upward_many.sh
mkdir -p .gpu/m && tar xJf .gpu/m2a.tar.xz -C .gpu/m
export URBANFLOW_CACHE_DIR=$(mktemp -d)
nvidia-smi -L
run() { if [ "$1" = cpu ]; then URBANFLOW_PHAST_UPWARD=cpu "${@:2}"; else "${@:2}"; fi; }
for g in NY FLA; do .gpu/m/many_to_all --graph .gpu/data/$g.gr.xz --sources 256 --method phast --backend gpu --json > /dev/null 2>&1; done
for rep in 1 2; do for v in cpu device; do for gs in NY:16384 NY:60000 FLA:8192; do
  g=${gs%%:*}; s=${gs##*:}
  run $v .gpu/m/many_to_all --graph .gpu/data/$g.gr.xz --sources $s --method phast --backend gpu --json 2>/dev/null | python3 -c "
import json, sys
d = json.loads(sys.stdin.read().strip().splitlines()[-1])
print(f\"many_to_all upward_$v r$rep $g $s solve_s {d['solve_s']:.3f} pre {d['preprocess_s']:.3f} checksum {d['checksum']}\")"
done; done; done
