#!/bin/bash
# issue 40: GPU all-or-nothing with the chain kernels (sweep and loading of the DAG's top levels in one
# dispatch each) against the build before this session's CCH changes: the tap bench's `--aon 5` and BFW
# to 1e-4 on Philadelphia end to end (`assign --backend gpu`), alternated, three rounds. From the
# repository root with .gpu/taps.tar.xz (stripped tap_old, tap_new, assign_old, assign_new) and .gpu/data/tntp.
mkdir -p .gpu/t && tar xJf .gpu/taps.tar.xz -C .gpu/t
export URBANFLOW_DATA=.gpu/data
P="--net .gpu/data/tntp/Philadelphia/Philadelphia_net.tntp.xz --trips .gpu/data/tntp/Philadelphia/Philadelphia_trips.tntp.xz"
nvidia-smi -L
for rep in 1 2 3; do for v in old new; do
  .gpu/t/tap_$v --aon 5 --networks Philadelphia,Austin,chicago-regional 2>/dev/null | python3 scripts/bench/lab/aon_times.py "tap_$v r$rep"
  s=$(date +%s%N); out=$(.gpu/t/assign_$v $P --backend gpu --gap 1e-4 --json 2>/dev/null | tail -1); e=$(date +%s%N)
  echo "assign_$v r$rep Philadelphia BFW 1e-4 gpu: wall_ms $(( (e - s) / 1000000 )) $(echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("solve_s", round(d["solve_s"],3), "setup_s", d.get("setup_s"), "iterations", d["iterations"], "gap", d["relative_gap"], "tstt", d.get("total_travel_time"))')"
done; done
