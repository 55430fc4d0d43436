#!/bin/bash
# The tap bench's all-or-nothing calls (`--aon 5`) of two builds alternated, three rounds: customisation,
# sweep and loading times of GPU PHAST (PhastTimes) side by side. On the device from the repository root
# with .gpu/taps.tar.xz (stripped tap_old, tap_new) and .gpu/data/tntp/{Philadelphia,Austin,chicago-regional}.
mkdir -p .gpu/t && tar xJf .gpu/taps.tar.xz -C .gpu/t
export URBANFLOW_DATA=.gpu/data
for rep in 1 2 3; do for b in ${TAPS:-tap_old tap_new}; do
  .gpu/t/$b --aon 5 --networks Philadelphia,Austin,chicago-regional 2>/dev/null | python3 scripts/bench/lab/aon_times.py "$b r$rep"
done; done
