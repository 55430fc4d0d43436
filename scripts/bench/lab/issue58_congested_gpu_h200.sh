#!/usr/bin/env bash
# Issue 58: the congested NYC case (scripts/bench/transit_congested_nyc.sh's flags) on the GPU and the
# 16-core CPU of the one-GPU H200 host, alternated (BACKENDS, ROUNDS). Expects .gpu/t58/bins.tar.xz and
# .gpu/t58/data.tar.xz as scripts/bench/lab/issue58_gpu_h200.sh does; results in $OUT/results.tar.xz.
set -u
U=/tmp/urbanflow
tar xJf .gpu/t58/bins.tar.xz -C /tmp
mkdir -p /tmp/d && tar xJf .gpu/t58/data.tar.xz -C /tmp/d
D=/tmp/d
for r in $(seq "${ROUNDS:-2}"); do
  for b in ${BACKENDS:-cpu gpu auto}; do
    s=$(date +%s%N)
    "$U" transit-assign --gtfs $D/nyc_subway_gtfs.zip --date 2024-12-16 --window 07:00-09:00 --transfer-radius 2000 \
      --zones $D/nyc40_zones.csv --demand $D/nyc40_demand.csv --vehicle-capacity 40000 --max-iterations 150 \
      --backend $b --json --out "$OUT/cong_$b.csv" > "$OUT/cong_${b}_$r.json" 2> /dev/null
    rc=$?
    e=$(date +%s%N)
    echo "cong_${b}_$r rc=$rc wall_ms=$(( (e - s) / 1000000 )) $(grep -o '"backend":"[^"]*"\|"setup_s":[0-9.]*\|"solve_s":[0-9.]*\|"iterations":[0-9]*\|"relative_gap":[0-9.e-]*' "$OUT/cong_${b}_$r.json" | tr '\n' ' ')"
  done
done
(cd "$OUT" && tar cJf /tmp/results.tar.xz ./*.json ./*.csv && rm -f ./*.json ./*.csv && mv /tmp/results.tar.xz .)
