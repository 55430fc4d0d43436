#!/bin/bash
# GPU all-or-nothing (the tap bench's `--aon 5`: PhastTimes per call) of two builds alternated, three
# rounds. From the repository root with .gpu/aon.tar.xz (stripped tap_before, tap_after) and
# .gpu/data/tntp:  bash scripts/bench/aon_builds.sh
mkdir -p .gpu/t && tar xJf .gpu/aon.tar.xz -C .gpu/t
export URBANFLOW_DATA=.gpu/data
nvidia-smi -L
for rep in 1 2 3; do for v in before after; do
  .gpu/t/tap_$v --aon 5 --networks Philadelphia,Austin,chicago-regional 2>/dev/null | python3 scripts/bench/aon_times.py "tap_$v r$rep"
done; done
