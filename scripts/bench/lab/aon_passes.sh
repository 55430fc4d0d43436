#!/bin/bash
# GPU all-or-nothing on the hierarchy (the tap bench's --aon 5: the user's calls, steps back to back,
# against calls split by a wait after each step) by origins per pass (URBANFLOW_TAP_PHAST_LANES 4096,
# the default then, and 8192: Austin's 7,388 origins in one pass) and chain width
# (URBANFLOW_PHAST_CHAIN_WIDTH 8, the default, and 32), two rounds; then BFW to 1e-4 on Philadelphia on
# the GPU, two rounds. From the repository root with .gpu/passes.tar.xz (stripped tap, assign) and
# .gpu/data:  bash scripts/bench/lab/aon_passes.sh
mkdir -p .gpu/p && tar xJf .gpu/passes.tar.xz -C .gpu/p
export URBANFLOW_DATA=.gpu/data
nvidia-smi -L
for rep in 1 2; do for lanes in 4096 8192; do for width in 8 32; do
  URBANFLOW_TAP_PHAST_LANES=$lanes URBANFLOW_PHAST_CHAIN_WIDTH=$width .gpu/p/tap --aon 5 \
    --networks Philadelphia,Austin,chicago-regional 2>/dev/null | python3 scripts/bench/lab/aon_times.py "lanes $lanes width $width r$rep"
done; done; done
P=.gpu/data/tntp/Philadelphia/Philadelphia_net.tntp.xz
for rep in 1 2; do
  .gpu/p/assign --net $P --gap 1e-4 --backend gpu --json 2>/dev/null | python3 -c "
import json, sys
d = json.load(sys.stdin); h = d['history']; n = len(h)
rest = sum(h[i]['seconds'] - h[i - 1]['seconds'] - h[i]['all_or_nothing_s'] for i in range(1, n))
print(f\"assign r$rep it {n} gap {d['relative_gap']:.3e} solve_s {d['solve_s']:.3f} aon_ms/it {1e3 * d['all_or_nothing_s'] / n:.2f} rest_ms/it {1e3 * rest / (n - 1):.2f} objective {d['objective']:.9e}\")"
done
