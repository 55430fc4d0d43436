#!/usr/bin/env bash
# Packed as .gpu/t.tar.xz: the stripped release command, the NYC feed, and the zones and demand of
# `python3 scripts/transit_city_zones.py ../shared/data/transit/nyc_subway_gtfs.zip --out nyc` (run here,
# the host has no package index); run through the device tool with carry [".gpu"].
# Congested transit assignment on the NYC case, the 16-core host's CPU (issue 58): uncongested beside
# congested (beta 0.5), at 16 and 2 threads, alternated twice. Prints each command's JSON line and wall.
set -u
cd "$(dirname "$0")" && tar xJf t.tar.xz && cd t
nproc; grep -m1 "model name" /proc/cpuinfo
base=(transit-assign --gtfs nyc_subway_gtfs.zip --date 2024-12-16 --window 07:00-09:00 --transfer-radius 2000
  --zones nyc_zones.csv --demand nyc_demand.csv --json)
for round in 1 2; do
  for t in 16 2; do
    for mode in plain congested; do
      extra=(); [ "$mode" = congested ] && extra=(--vehicle-capacity 40000 --max-iterations 150)
      s=$EPOCHREALTIME
      ./urbanflow "${base[@]}" --threads "$t" "${extra[@]}" > run.json 2>/dev/null; rc=$?
      e=$EPOCHREALTIME
      wall=$(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.3f", b-a}')
      echo "round $round threads $t $mode rc $rc wall $wall $(sed "s/\"gaps\":\[[^]]*\],\?//" run.json)"
    done
  done
done
