#!/usr/bin/env bash
# Issue 58: optimal-strategies transit assignment on the GPU against the 16-core CPU of the one-GPU
# H200 host, through the device tool: `transit-assign --backend cpu|gpu|auto` alternated, ROUNDS rounds,
# on the grid cities of scripts/transit_grid_city.py (--side 30 --lines 120, and --side 60 --lines 480
# --pair-share 0.05) and the NYC subway feed with scripts/transit_city_zones.py --side 40 --share 0.1
# --seed 7. Expects .gpu/t58/bins.tar.xz (the stripped release command) and .gpu/t58/data.tar.xz
# (city30/, city60/, nyc_subway_gtfs.zip, nyc40_zones.csv, nyc40_demand.csv); writes each run's JSON
# and volumes into $OUT/results.tar.xz.
set -u
U=/tmp/urbanflow
tar xJf .gpu/t58/bins.tar.xz -C /tmp
mkdir -p /tmp/d && tar xJf .gpu/t58/data.tar.xz -C /tmp/d
nproc; nvidia-smi -L 2>/dev/null
ROUNDS=${ROUNDS:-2}
run() {
  local name=$1; shift
  local s=$(date +%s%N)
  "$U" transit-assign "$@" --json > "$OUT/$name.json" 2> "$OUT/$name.err"
  local rc=$?
  local e=$(date +%s%N)
  echo "$name rc=$rc wall_ms=$(( (e - s) / 1000000 )) $(cat "$OUT/$name.json")"
}
D=/tmp/d
for r in $(seq "$ROUNDS"); do
  for b in ${BACKENDS:-cpu gpu}; do
    run "city30_${b}_$r" --edges $D/city30/edges.csv --zones $D/city30/zones.csv --demand $D/city30/demand.csv --backend $b --out "$OUT/city30_$b.csv"
    run "city60_${b}_$r" --edges $D/city60/edges.csv --zones $D/city60/zones.csv --demand $D/city60/demand.csv --backend $b --out "$OUT/city60_$b.csv"
    run "nyc40_${b}_$r" --gtfs $D/nyc_subway_gtfs.zip --date 2024-12-16 --zones $D/nyc40_zones.csv --demand $D/nyc40_demand.csv --backend $b --out "$OUT/nyc40_$b.csv"
  done
done
# Everything back in one file (the device returns a few files only).
(cd "$OUT" && tar cJf /tmp/results.tar.xz ./*.json ./*.err ./*.csv && rm -f ./*.json ./*.err ./*.csv && mv /tmp/results.tar.xz .)
