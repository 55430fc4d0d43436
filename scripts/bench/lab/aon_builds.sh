#!/bin/bash
# GPU all-or-nothing (the tap bench's `--aon 5`: PhastTimes per call) of two builds alternated, three
# rounds; then, where the tarball holds assign_before and assign_after, BFW to 1e-4 on Philadelphia on
# the GPU with each, two rounds. From the repository root with .gpu/aon.tar.xz (stripped tap_before,
# tap_after) and .gpu/data/tntp:  bash scripts/bench/lab/aon_builds.sh
mkdir -p .gpu/t && tar xJf .gpu/aon.tar.xz -C .gpu/t
export URBANFLOW_DATA=.gpu/data
nvidia-smi -L
for rep in 1 2 3; do for v in before after; do
  .gpu/t/tap_$v --aon 5 --networks Philadelphia,Austin,chicago-regional 2>/dev/null | python3 scripts/bench/lab/aon_times.py "tap_$v r$rep"
done; done
P=.gpu/data/tntp/Philadelphia/Philadelphia_net.tntp.xz
[ -x .gpu/t/assign_before ] && for rep in 1 2; do for v in before after; do
  .gpu/t/assign_$v --net $P --gap 1e-4 --backend gpu --json 2>/dev/null | python3 -c "
import json, sys; d = json.load(sys.stdin)
print('assign_$v r$rep', d['iterations'], d['relative_gap'], 'solve_s', round(d['solve_s'], 3), 'setup_s', round(d['setup_s'], 3), d['backend'])"
done; done
